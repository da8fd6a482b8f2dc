"""sample_weight (scikit-learn's convention) and `cdens fit --weights COLUMN`: integer weights as
repeated rows, rows of weight 0 as dropped ones, scaling every weight, the refusals, the command
against the package and the model file of a weighted kernel fit."""

import subprocess

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.validation import has_fit_parameter

import cdens
from cdens._density import DensityEstimator

SUPPORTED = [cdens.KernelCDE, cdens.LSCDE, cdens.AutoCDE, cdens.LinearGaussianCDE,
             cdens.ParzenWindow, cdens.GMM, cdens.RSDE, cdens.SKD, cdens.GSKD]
UNSUPPORTED = [cdens.EpsilonKDE, cdens.NWCDE, cdens.RKDE, cdens.LSCE, cdens.SACDE,
               cdens.PRESSRegressor]


def integer_weights(n):
    return 1.0 + np.arange(n) % 3


def repeated(values, weights):
    return np.repeat(values, weights.astype(int), axis=0)


@pytest.fixture(scope="module")
def pairs(faithful):
    x, y = faithful
    return x[:80], y[:80]


@pytest.mark.parametrize("estimator_class", SUPPORTED)
def test_supported_estimators_declare_sample_weight(estimator_class):
    assert has_fit_parameter(estimator_class(), "sample_weight")


@pytest.mark.parametrize("estimator_class", UNSUPPORTED)
def test_other_estimators_declare_none_and_refuse_it_naming_the_method(estimator_class, pairs):
    x, y = pairs
    assert not has_fit_parameter(estimator_class(), "sample_weight")
    # Named as Python names them: the classes (the command names its methods).
    with pytest.raises(ValueError, match=f"^{estimator_class.__name__} does not support sample "
                                         "weights; supported: AutoCDE, GMM, GSKD, KernelCDE, "
                                         "LinearGaussianCDE, LSCDE, ParzenWindow, RSDE, SKD$"):
        if issubclass(estimator_class, DensityEstimator):
            estimator_class().fit(x, sample_weight=np.ones(len(x)))
        else:
            estimator_class().fit(x, y, sample_weight=np.ones(len(x)))


@pytest.mark.parametrize("estimator", [cdens.LinearGaussianCDE(variance="constant"),
                                       cdens.LinearGaussianCDE(variance="log_linear")])
def test_linear_integer_weights_equal_the_rows_repeated(estimator, pairs):
    x, y = pairs
    weights = integer_weights(len(x))
    with_weights = estimator.fit(x, y, sample_weight=weights).log_pdf(x, y)
    # The repeated rows as rows: merged, they would be the weighted fit itself.
    with_rows = clone(estimator).set_params(duplicates="keep").fit(
        repeated(x, weights), repeated(y, weights)).log_pdf(x, y)
    np.testing.assert_allclose(with_weights, with_rows, rtol=0, atol=1e-8)


@pytest.mark.parametrize("estimator", [
    cdens.ParzenWindow(bandwidth=[0.4], standardize=False),
    cdens.GMM(n_components=2, init="box", box=(40.0, 100.0), initial_variance=50.0,
              standardize=False, max_iter=30, random_state=0)])
def test_density_integer_weights_equal_the_rows_repeated(estimator, pairs):
    x = np.column_stack(pairs)
    weights = integer_weights(len(x))
    with_weights = estimator.fit(x, sample_weight=weights).score_samples(x)
    with_rows = clone(estimator).set_params(duplicates="keep").fit(
        repeated(x, weights)).score_samples(x)
    np.testing.assert_allclose(with_weights, with_rows, rtol=0, atol=1e-8)


@pytest.mark.parametrize("estimator", [
    cdens.KernelCDE(random_state=0), cdens.LSCDE(random_state=0),
    cdens.AutoCDE(candidates="linear,lscde,kcde", random_state=0), cdens.LinearGaussianCDE(),
    cdens.ParzenWindow()])
def test_zero_weights_are_dropped_rows_and_equal_weights_no_weights(estimator, pairs):
    x, y = pairs
    density = isinstance(estimator, cdens.ParzenWindow)
    data = (np.column_stack(pairs),) if density else (x, y)
    query = (lambda fitted: fitted.score_samples(*data)) if density else (
        lambda fitted: fitted.log_pdf(x, y))
    weights = integer_weights(len(x))
    weights[::4] = 0.0
    kept = weights > 0
    with_zeros = query(estimator.fit(*data, sample_weight=weights))
    dropped = query(estimator.fit(*(d[kept] for d in data), sample_weight=weights[kept]))
    np.testing.assert_array_equal(with_zeros, dropped)
    equal = query(estimator.fit(*data, sample_weight=np.full(len(x), 2.5)))
    np.testing.assert_array_equal(equal, query(estimator.fit(*data)))


@pytest.mark.parametrize("estimator", [
    cdens.KernelCDE(random_state=0), cdens.LSCDE(random_state=0),
    cdens.AutoCDE(candidates="linear,lscde,kcde", random_state=0)])
def test_the_scale_of_the_weights_changes_nothing(estimator, pairs):
    x, y = pairs
    weights = integer_weights(len(x))
    fit = clone(estimator).fit(x, y, sample_weight=weights).log_pdf(x, y)
    scaled = clone(estimator).fit(x, y, sample_weight=weights / 1000.0).log_pdf(x, y)
    np.testing.assert_allclose(fit, scaled, rtol=0, atol=1e-6)


@pytest.mark.parametrize("factor", [1e-200, 1e160, 2.0 ** -1000])
@pytest.mark.parametrize("estimator", [
    cdens.KernelCDE(random_state=0), cdens.LSCDE(random_state=0), cdens.LinearGaussianCDE(),
    cdens.ParzenWindow(), cdens.GMM(n_components=2, random_state=0)])
def test_weights_scaled_to_the_ends_of_the_doubles_give_one_model(estimator, factor, pairs):
    """The weights are divided by the largest wherever they enter: any positive factor gives the
    model of the unscaled weights, to rounding (a power of two, exactly: no weight is rounded)."""
    x, y = pairs
    weights = integer_weights(len(x))
    if isinstance(estimator, DensityEstimator):
        data = np.column_stack([y, x[:, 0]])
        fit = clone(estimator).fit(data, sample_weight=weights).score_samples(data)
        scaled = clone(estimator).fit(data, sample_weight=weights * factor).score_samples(data)
    else:
        fit = clone(estimator).fit(x, y, sample_weight=weights).log_pdf(x, y)
        scaled = clone(estimator).fit(x, y, sample_weight=weights * factor).log_pdf(x, y)
    if factor == 2.0 ** -1000:
        np.testing.assert_array_equal(fit, scaled)
    else:
        np.testing.assert_allclose(fit, scaled, rtol=1e-9, atol=1e-12)


def test_weights_below_the_normal_doubles_are_refused(pairs):
    x, y = pairs
    with pytest.raises(ValueError, match="the largest weight is 1e-310"):
        cdens.KernelCDE().fit(x, y, sample_weight=np.full(len(x), 1e-310))


def test_weighted_auto_lists_the_candidates_without_weights_as_not_run(pairs):
    x, y = pairs
    fit = cdens.AutoCDE(candidates="linear,nwcde,kcde:trend=gp", random_state=0).fit(
        x, y, sample_weight=integer_weights(len(x)))
    status = dict(zip(fit.selection_["candidate"], fit.selection_["status"]))
    assert status == {"linear": "scored",
                      "nwcde": "not run: it does not support sample weights",
                      "kcde:trend=gp": "not run: a Gaussian-process trend takes no sample "
                                       "weights"}


@pytest.mark.parametrize("weights, message", [
    (-np.ones(80), "the weight of row 0 is -1; weights must be non-negative"),
    (np.r_[np.ones(79), np.nan], "the weight of row 79 is nan"),
    (np.r_[np.ones(79), np.inf], "the weight of row 79 is inf"),
    (np.zeros(80), "every weight is zero"),
    (np.ones(79), "79 weights for 80 rows"),
    (np.ones((80, 1)), "sample_weight must be 1-D"),
    (["a"] * 80, "sample_weight must be numbers"),
])
def test_bad_weights_are_refused_naming_the_row(pairs, weights, message):
    x, y = pairs
    with pytest.raises(ValueError, match=message):
        cdens.KernelCDE().fit(x, y, sample_weight=weights)


def test_the_command_equals_the_package(cli, pairs, tmp_path):
    x, y = pairs
    weights = integer_weights(len(x))
    weights[3] = 0.0
    path = tmp_path / "weighted.csv"
    np.savetxt(path, np.column_stack([y, x[:, 0], weights]), delimiter=",",
               header="eruptions,waiting,w", comments="", fmt="%.17g")
    for method, estimator in [("kcde", cdens.KernelCDE(random_state=3)),
                              ("linear", cdens.LinearGaussianCDE())]:
        out = tmp_path / f"{method}.json"
        subprocess.run([cli, "fit", str(path), "--method", method, "--x", "waiting", "--y",
                        "eruptions", "--weights", "w", "--seed", "3", "--out", str(out)],
                       check=True, capture_output=True)
        from_cli = cdens.load(out)
        in_python = estimator.fit(x, y, sample_weight=weights)
        np.testing.assert_array_equal(from_cli.log_pdf(x, y), in_python.log_pdf(x, y))
    out = tmp_path / "gmm.json"
    # A density's columns are all but the weights.
    subprocess.run([cli, "fit", str(path), "--method", "gmm", "--n-components", "2", "--weights",
                    "w", "--seed", "1", "--out", str(out)], check=True, capture_output=True)
    from_cli = cdens.load(out)
    data = np.column_stack([y, x[:, 0]])
    in_python = cdens.GMM(n_components=2, random_state=1).fit(data, sample_weight=weights)
    np.testing.assert_array_equal(from_cli.score_samples(data), in_python.score_samples(data))


def test_weighted_kernel_model_file_round_trip(pairs, tmp_path):
    x, y = pairs
    fitted = cdens.KernelCDE(random_state=0).fit(x, y, sample_weight=integer_weights(len(x)))
    fitted.save(tmp_path / "model.json")
    loaded = cdens.load(tmp_path / "model.json")
    np.testing.assert_array_equal(loaded.log_pdf(x, y), fitted.log_pdf(x, y))
