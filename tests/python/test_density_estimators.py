"""The unconditional density estimators (ParzenWindow, GMM, RSDE): the scikit-learn density
contract, every query against a brute-force computation on the fitted kernels, model files, and
the command line."""

import pickle
import subprocess

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.base import clone
from sklearn.mixture import GaussianMixture
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import parametrize_with_checks

import cdens

# RSDE with one width: MNQP on all n kernels costs O(n²) per update and takes thousands of
# updates (Chen et al. note its slow convergence), so its cross-validation is tested on small
# data only (the scikit-learn checks, test_rsde_width_is_chosen_by_held_out_ise).
ESTIMATORS = [
    lambda: cdens.ParzenWindow(),
    lambda: cdens.ParzenWindow(per_dimension=True),
    lambda: cdens.GMM(n_components=2, n_init=3, random_state=0),
    lambda: cdens.RSDE(bandwidth=0.3),
    lambda: cdens.SKD(bandwidth=0.4),
    # Fewer RWBS generations and iterations than the paper's (10, 200): these tests check the
    # queries on whatever mixture is fitted, not the search.
    lambda: cdens.GSKD(generations=2, iterations=50, random_state=0),
]
IDS = ["parzen", "parzen-per-dimension", "gmm", "rsde", "skd", "gskd"]


@pytest.fixture(scope="module")
def bimodal():
    """500 draws of 0.4 N(-2, 0.5²) + 0.6 N(1, 1), shape (500, 1)."""
    rng = np.random.default_rng(11)
    return np.r_[rng.normal(-2.0, 0.5, 200), rng.normal(1.0, 1.0, 300)].reshape(-1, 1)


@pytest.fixture(scope="module")
def plane():
    """300 points in 2-D from two elongated clusters."""
    rng = np.random.default_rng(12)
    first = rng.normal([0.0, 0.0], [1.0, 0.3], size=(150, 2))
    second = rng.normal([3.0, 2.0], [0.4, 0.8], size=(150, 2))
    return np.ascontiguousarray(np.r_[first, second])


def brute_force_log_pdf(estimator, X):
    """log sum_l w_l prod_d N(x_d; m_ld, s_ld²) from the fitted attributes, in numpy."""
    components = stats.norm.logpdf(X[:, None, :], estimator.means_[None], estimator.widths_[None])
    joint = np.log(estimator.weights_)[None] + components.sum(axis=2)
    top = joint.max(axis=1, keepdims=True)
    return (top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True)))[:, 0]


# No check is skipped: the generic checks apply to a density estimator (fit(X) ignoring y). The
# sample-weight checks fit 16 rows that are 4 distinct ones written four times each, which are
# merged into 4 (docs/methods/duplicates.md): RSDE and SKD then cross-validate on two folds, and
# GSKD, whose hold-out needs more than 2 training samples for a first kernel, keeps the rows.
@parametrize_with_checks([cdens.ParzenWindow(bandwidth=[0.2, 0.5]),
                          cdens.GMM(n_components=2, random_state=0),
                          cdens.RSDE(cv=2, random_state=0),
                          cdens.SKD(bandwidth=[0.3, 0.6], cv=2, random_state=0),
                          cdens.GSKD(generations=2, iterations=30, random_state=0,
                                     duplicates="keep")])
def test_scikit_learn_checks(estimator, check):
    check(estimator)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_queries_equal_a_brute_force_computation_on_the_fitted_kernels(make, bimodal, plane):
    for X in (bimodal, plane):
        estimator = make().fit(X)
        assert estimator.n_kernels_ == len(estimator.weights_) == len(estimator.means_)
        assert np.all(estimator.weights_ >= 0) and estimator.weights_.sum() == pytest.approx(1)
        np.testing.assert_allclose(estimator.score_samples(X), brute_force_log_pdf(estimator, X),
                                   rtol=1e-10, atol=1e-10)
        assert estimator.score(X) == pytest.approx(estimator.score_samples(X).sum(), rel=1e-12)
        w, m, s = estimator.weights_, estimator.means_, estimator.widths_
        mean = w @ m
        np.testing.assert_allclose(estimator.mean(), mean, rtol=1e-10, atol=1e-12)
        second_moment = (m.T * w) @ m + np.diag(w @ s**2)
        np.testing.assert_allclose(estimator.covariance(), second_moment - np.outer(mean, mean),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_every_fitted_density_integrates_to_one(make, bimodal, plane):
    one_d = make().fit(bimodal)
    total, _error = integrate.quad(lambda t: one_d.pdf([[t]])[0], -12, 12, limit=400)
    assert total == pytest.approx(1.0, abs=1e-7)
    two_d = make().fit(plane)
    # Midpoint rule on a grid that covers every kernel by more than 8 widths: the error is far
    # below 1e-4 for these smooth densities.
    u = np.linspace(-6, 8, 561)
    v = np.linspace(-5, 7, 481)
    points = np.array(np.meshgrid(u, v)).reshape(2, -1).T
    mass = two_d.pdf(points).sum() * (u[1] - u[0]) * (v[1] - v[0])
    assert mass == pytest.approx(1.0, abs=1e-4)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_one_dimensional_queries_agree_with_each_other(make, bimodal):
    estimator = make().fit(bimodal)
    levels = np.array([0.05, 0.3, 0.5, 0.9])
    quantiles = estimator.quantiles(levels)[:, 0]
    np.testing.assert_allclose(estimator.cdf(quantiles.reshape(-1, 1)), levels, atol=1e-9)
    assert estimator.quantiles(0.5).shape == (1,)
    # CDF against the integral of the density.
    point = 0.3
    integral, _error = integrate.quad(lambda t: estimator.pdf([[t]])[0], -12, point, limit=400)
    assert estimator.cdf([[point]])[0] == pytest.approx(integral, abs=1e-8)
    # The highest-density region holds its coverage and the density is equal at its ends.
    intervals = estimator.hdr(0.8)
    mass = sum(integrate.quad(lambda t: estimator.pdf([[t]])[0], a, b, limit=200)[0]
               for a, b in intervals)
    assert mass == pytest.approx(0.8, abs=1e-6)
    ends = estimator.pdf(intervals.reshape(-1, 1))
    np.testing.assert_allclose(ends, ends[0], rtol=1e-5)


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_samples_follow_the_fitted_moments(make, plane):
    estimator = make().fit(plane)
    draws = estimator.sample(20000, random_state=5)
    assert draws.shape == (20000, 2)
    np.testing.assert_array_equal(draws, estimator.sample(20000, random_state=5))
    # Sample means: standard error sd/sqrt(20000) < 0.015 for these spreads; 5 standard errors.
    sd = np.sqrt(np.diag(estimator.covariance()))
    assert np.all(np.abs(draws.mean(axis=0) - estimator.mean()) <= 5 * sd / np.sqrt(20000))
    # Sample variances: relative standard error sqrt(2 (kurtosis-adjusted)/n) < 0.02.
    np.testing.assert_allclose(draws.var(axis=0), sd**2, rtol=0.06)


def test_parzen_width_is_the_explicit_leave_one_out_maximiser(bimodal):
    widths = [0.05, 0.1, 0.2, 0.4, 0.8]
    estimator = cdens.ParzenWindow(bandwidth=widths).fit(bimodal)
    z = (bimodal[:, 0] - bimodal.mean()) / bimodal.std(ddof=1)
    scores = []
    for h in widths:
        kernel = stats.norm.pdf(z[:, None], z[None, :], h)
        np.fill_diagonal(kernel, 0.0)
        scores.append(np.mean(np.log(kernel.sum(axis=1) / (len(z) - 1))))
    assert estimator.bandwidth_ == widths[int(np.argmax(scores))]
    # The CV table holds minus the mean held-out log-likelihood, in standardised units.
    np.testing.assert_allclose(estimator.cv_results_["mean_test_score"], scores, rtol=1e-10)


def test_per_dimension_parzen_widths_and_their_refusals(plane):
    fitted = cdens.ParzenWindow(per_dimension=True).fit(plane)
    assert fitted.bandwidth_.shape == (2,) and fitted.cv_results_ is None
    np.testing.assert_allclose(fitted.widths_[0], fitted.bandwidth_ * plane.std(axis=0, ddof=1))
    with pytest.raises(ValueError, match="least_squares criterion takes one width"):
        cdens.ParzenWindow(per_dimension=True, criterion="least_squares").fit(plane)
    with pytest.raises(ValueError, match="a width grid is for one width"):
        cdens.ParzenWindow(per_dimension=True, bandwidth=[0.2, 0.4]).fit(plane)


def test_gmm_reaches_the_likelihood_of_scikit_learn_on_separated_clusters(plane):
    ours = cdens.GMM(n_components=2, n_init=5, random_state=0).fit(plane)
    theirs = GaussianMixture(n_components=2, covariance_type="diag", n_init=5, tol=1e-10,
                             reg_covar=1e-12, random_state=0).fit(plane)
    assert ours.score(plane) / len(plane) == pytest.approx(theirs.score(plane), abs=1e-6)
    order = np.argsort(ours.means_[:, 0])
    np.testing.assert_allclose(ours.means_[order], theirs.means_[np.argsort(theirs.means_[:, 0])],
                               atol=1e-4)


def test_rsde_is_sparser_than_the_parzen_window(bimodal):
    rsde = cdens.RSDE(bandwidth=0.3).fit(bimodal)
    assert rsde.n_kernels_ < len(bimodal) // 2
    assert np.all(rsde.weights_ > 0)


def test_rsde_width_is_chosen_by_held_out_ise(bimodal):
    X = bimodal[::5]
    widths = [0.1, 0.3, 0.9]
    rsde = cdens.RSDE(bandwidth=widths, cv=3, random_state=2).fit(X)
    scores = rsde.cv_results_["mean_test_score"]
    assert rsde.bandwidth_ == widths[int(np.argmax(scores))]
    # Each score is minus the held-out ISE estimate, -(integral of p² - 2 mean held-out p(x)):
    # positive when the fit beats the zero density, which the chosen width must.
    assert scores.max() > 0


def test_grid_search_uses_the_total_log_likelihood(bimodal):
    search = GridSearchCV(cdens.ParzenWindow(), {"bandwidth": [0.05, 0.2, 1.0]}, cv=3)
    search.fit(bimodal)
    assert search.best_params_["bandwidth"] == 0.2


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_files_and_pickles_reproduce_the_model(make, plane, tmp_path):
    estimator = make().fit(plane)
    estimator.save(tmp_path / "model.json")
    for other in (cdens.load(tmp_path / "model.json"), pickle.loads(pickle.dumps(estimator))):
        assert type(other) is type(estimator)
        np.testing.assert_array_equal(other.score_samples(plane), estimator.score_samples(plane))
        np.testing.assert_array_equal(other.sample(5, random_state=1),
                                      estimator.sample(5, random_state=1))
    # The loaded estimator's parameters are the chosen widths: a refit searches nothing.
    if "bandwidth" in estimator.get_params():
        refit = clone(cdens.load(tmp_path / "model.json")).fit(plane)
        np.testing.assert_array_equal(refit.score_samples(plane), estimator.score_samples(plane))


def test_bad_input_is_refused_with_a_clear_message(plane):
    with pytest.raises(ValueError, match="NaN"):
        cdens.ParzenWindow().fit(np.array([[0.0, 1.0], [np.nan, 2.0], [1.0, 3.0]]))
    with pytest.raises(ValueError, match="constant"):
        cdens.GMM().fit(np.c_[np.arange(5.0), np.ones(5)])
    with pytest.raises(ValueError, match="criterion"):
        cdens.ParzenWindow(criterion="likelihood").fit(plane)
    with pytest.raises(ValueError, match="kmeans"):
        cdens.GMM(init="random").fit(plane)
    fitted = cdens.GMM(n_components=2, random_state=0).fit(plane)
    with pytest.raises(ValueError, match="features"):
        fitted.score_samples(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="one-dimensional"):
        fitted.cdf(plane)
    with pytest.raises(ValueError, match="between 0 and 1"):
        fitted.quantiles([0.5, 1.0])
    with pytest.raises(ValueError, match="n_samples"):
        fitted.sample(0)


@pytest.mark.parametrize("method, options, estimator", [
    ("parzen", [], cdens.ParzenWindow()),
    ("parzen", ["--per-dimension"], cdens.ParzenWindow(per_dimension=True)),
    ("gmm", ["--n-components", "2", "--n-init", "2", "--seed", "4"],
     cdens.GMM(n_components=2, n_init=2, random_state=4)),
    ("rsde", ["--bandwidth", "0.3"], cdens.RSDE(bandwidth=0.3)),
    ("skd", ["--bandwidth", "0.4", "--target-bandwidth", "0.3"],
     cdens.SKD(bandwidth=0.4, target_bandwidth=0.3)),
    ("gskd", ["--generations", "2", "--iterations", "50", "--seed", "3"],
     cdens.GSKD(generations=2, iterations=50, random_state=3)),
])
def test_cli_fit_equals_python_fit(cli, faithful, tmp_path, method, options, estimator):
    waiting, eruptions = faithful
    X = np.ascontiguousarray(np.c_[eruptions, waiting[:, 0]])
    data = tmp_path / "data.csv"
    np.savetxt(data, X, delimiter=",", header="eruptions,waiting", comments="", fmt="%.17g")
    model_path = tmp_path / "model.json"
    subprocess.run([cli, "fit", str(data), "--method", method, "--out",
                    str(model_path), *options], check=True, capture_output=True)
    from_cli = cdens.load(model_path)
    estimator.fit(X)
    np.testing.assert_array_equal(from_cli.score_samples(X), estimator.score_samples(X))
    assert from_cli.model_.names == ["eruptions", "waiting"]
    # The command scores a model saved from Python with the same numbers.
    estimator.save(tmp_path / "python.json")
    scored = subprocess.run([cli, "score", str(tmp_path / "python.json"), str(data),
                             "--columns", "eruptions,waiting"],
                            check=True, capture_output=True, text=True).stdout
    total = float(scored.split("total_log_likelihood: ")[1].split()[0])
    assert total == pytest.approx(estimator.score(X), rel=1e-12)


def test_cli_answers_a_density_model_file_as_a_density(cli, faithful, tmp_path):
    waiting, _eruptions = faithful
    density = cdens.ParzenWindow(bandwidth=0.3).fit(waiting)
    density.save(tmp_path / "density.json")
    data = tmp_path / "data.csv"
    np.savetxt(data, waiting, header="x0", comments="", fmt="%.17g")
    scored = subprocess.run([cli, "score", str(tmp_path / "density.json"), str(data)],
                            check=True, capture_output=True, text=True).stdout
    total = float(scored.split("total_log_likelihood: ")[1].split()[0])
    assert total == pytest.approx(density.score(waiting), rel=1e-12)
    # A query of conditional models only is refused, naming the kind of the file.
    result = subprocess.run([cli, "predict", str(tmp_path / "density.json"), str(data)],
                            capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("cdens: error: 'cdens predict' does not apply to ")
    assert "a density model p(x) fitted by parzen" in result.stderr
    grid = subprocess.run([cli, "grid", str(tmp_path / "density.json"), "--grid",
                           "40:100:7"], check=True, capture_output=True, text=True).stdout
    values = np.loadtxt(grid.splitlines()[1:], delimiter=",")
    np.testing.assert_allclose(values[:, 1], density.pdf(values[:, :1]), rtol=1e-14)


def test_parzen_queries_honour_their_tolerance_and_say_their_path(cli, tmp_path):
    # The kernel-sum engine (docs/methods/kernel_sums.md): the dual tree or the Gauss transform
    # (whichever its cost model prefers) for many scattered queries, binned FFT sums or the
    # transform on a grid, each log-density within the tolerance of the exact one.
    rng = np.random.default_rng(4)
    X = np.ascontiguousarray(rng.standard_normal((3000, 2)) * [1.0, 0.5])
    model = cdens.ParzenWindow(bandwidth=0.15).fit(X).model_
    queries = np.ascontiguousarray(rng.standard_normal((600, 2)) * 1.5)
    exact, exact_path = model.log_pdf_with_path(queries, 0.0)
    assert exact_path == "exact"
    scattered_paths = {}
    for tolerance in (1e-6, 1e-2):
        values, scattered_paths[tolerance] = model.log_pdf_with_path(queries, tolerance)
        assert scattered_paths[tolerance] in ("tree", "gauss_transform")
        assert np.max(np.abs(values - exact)) <= tolerance + 1e-10
    line = np.ascontiguousarray(rng.standard_normal((20000, 1)))
    line_model = cdens.ParzenWindow(bandwidth=0.05).fit(line).model_
    grid = np.linspace(-4.0, 4.0, 512)[:, None]
    binned, path = line_model.log_pdf_with_path(grid, 1e-6)
    # 20,000 points: the binned FFT and the Gauss transform's direct sums per box cost about the
    # same (a few milliseconds); at 10⁶ points the grid goes to the FFT (C++ tests).
    assert path in ("binned", "gauss_transform")
    assert np.max(np.abs(binned - line_model.log_pdf(grid, tolerance=0.0))) <= 1e-6 + 1e-10
    # Components of different widths are summed one by one.
    mixture = cdens.GMM(n_components=2, random_state=0).fit(X).model_
    assert mixture.log_pdf_with_path(queries)[1] == "components"
    with pytest.raises(ValueError, match="tolerance"):
        model.log_pdf(queries, tolerance=-1.0)
    # The command line takes --tolerance and says which path its scores took.
    model_file = tmp_path / "parzen.json"
    cdens.ParzenWindow(bandwidth=0.15).fit(X).save(model_file)
    data = tmp_path / "queries.csv"
    np.savetxt(data, queries, delimiter=",", header="x0,x1", comments="", fmt="%.17g")
    scored = subprocess.run([cli, "score", str(model_file), str(data), "--tolerance",
                             "0.01"], check=True, capture_output=True, text=True).stdout
    assert f"kernel_sums: {scattered_paths[1e-2]}" in scored
    refused = subprocess.run([cli, "score", str(model_file), str(data), "--tolerance",
                              "-1"], capture_output=True, text=True)
    assert refused.returncode == 2


def test_model_scales_are_the_kernel_widths_and_the_old_spelling_warns(plane):
    estimator = cdens.GMM(n_components=2, random_state=0).fit(plane)
    scales = estimator.model_.scales
    np.testing.assert_array_equal(scales, estimator.widths_)
    # The fitted standard deviations of a Gaussian mixture: the per-cluster spread is below the
    # whole sample's in each dimension.
    assert np.all((scales > 0) & (scales < plane.std(axis=0, ddof=1)))
    with pytest.warns(DeprecationWarning, match="scales"):
        np.testing.assert_array_equal(estimator.model_.widths, scales)
