"""cdens.metrics against brute force and scipy: CRPS by quadrature of the CDF, pinball losses from
the quantiles, the CDE loss by quadrature, the energy score against the CRPS, the KS p-value and
the binomial band against scipy.stats; calibration of a correct and an over-dispersed model;
the scikit-learn scorers; every model shape (conditional, PRESS, density)."""

import numpy as np
import pandas
import pytest
from scipy import integrate, stats
from sklearn.model_selection import GridSearchCV

import cdens
import cdens.metrics as metrics


@pytest.fixture(scope="module")
def fitted(faithful):
    """LSCDE with fixed sigma and lambda on Old Faithful (no CV: fast), and 12 test pairs with
    outputs spread over the range, tails included."""
    x, y = faithful
    model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    x_test = np.ascontiguousarray(x[::23][:12])
    y_test = np.linspace(1.0, 6.0, len(x_test))
    return model, x_test, y_test


def test_crps_equals_the_integral_of_the_squared_cdf_difference(fitted):
    model, x, y = fitted
    closed_form = metrics.crps(model, x, y)
    for row, value in zip(range(len(y)), closed_form):
        def cdf(t):
            return model.cdf(x[row:row + 1], np.array([t]))[0]

        below = integrate.quad(lambda t: cdf(t) ** 2, -np.inf, y[row], limit=200)[0]
        above = integrate.quad(lambda t: (1 - cdf(t)) ** 2, y[row], np.inf, limit=200)[0]
        assert value == pytest.approx(below + above, rel=1e-6, abs=1e-9)


def test_pinball_losses_come_from_the_quantiles(fitted):
    model, x, y = fitted
    levels = [0.05, 0.5, 0.9]
    quantiles = model.predict_quantiles(x, levels)
    residual = y[:, None] - quantiles
    expected = np.where(residual >= 0, levels * residual, (np.array(levels) - 1) * residual)
    np.testing.assert_allclose(metrics.pinball_loss(model, x, y, levels), expected, atol=1e-12)


def test_cde_loss_equals_quadrature(fitted):
    model, x, y = fitted
    grid = np.linspace(-4.0, 11.0, 30001)
    squared = integrate.trapezoid(model.pdf_grid(x, grid) ** 2, grid, axis=1)
    np.testing.assert_allclose(metrics.cde_loss(model, x, y), squared - 2 * model.pdf(x, y),
                               atol=1e-7)


def test_energy_score_of_a_scalar_output_is_the_crps_within_its_monte_carlo_error(fitted):
    model, x, y = fitted
    values, errors = metrics.energy_score(model, x, y, n_draws=4000, random_state=3)
    # Means of 2,000 independent terms: within 4.5 standard errors of the closed form.
    assert np.all(np.abs(values - metrics.crps(model, x, y)) < 4.5 * errors)


@pytest.mark.parametrize("n, shape", [(20, 1.0), (100, 1.0), (400, 1.0), (400, 1.3)])
def test_uniformity_test_agrees_with_scipy(n, shape):
    # Uniform values, and values from Beta(1.3, 1.3), a mild departure. Stephens' approximation
    # of the KS p-value is within 0.01 of scipy's exact one from n = 20 on.
    values = np.random.default_rng(n).beta(shape, shape, size=n)
    statistic, p_value = metrics.uniformity_test(values)
    reference = stats.kstest(values, "uniform")
    assert statistic == pytest.approx(reference.statistic, abs=1e-14)
    assert p_value == pytest.approx(reference.pvalue, abs=0.01)


@pytest.mark.parametrize("n, p", [(30, 0.1), (272, 0.5), (1000, 0.95)])
def test_binomial_band_is_scipys_binomial_interval(n, p):
    lower, upper = cdens._core.binomial_band(n, p, 0.95)
    assert lower * n == stats.binom.ppf(0.025, n, p)
    assert upper * n == stats.binom.ppf(0.975, n, p)


def linear_data(n, noise, seed):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    return x, 1.0 + 2.0 * x[:, 0] + noise * rng.normal(size=n)


def test_pit_of_a_correct_model_is_uniform_and_of_an_over_dispersed_model_is_not():
    model = cdens.LinearGaussianCDE().fit(*linear_data(500, 0.5, 1))
    correct = metrics.evaluate(model, *linear_data(1000, 0.5, 2))
    # Test data with half the noise: the model is twice as wide as the truth, so the PIT values
    # crowd around 1/2 and D ~ 0.16, against a 1 % critical value of 0.05 for n = 1,000.
    wide = metrics.evaluate(model, *linear_data(1000, 0.25, 2))
    for check in ("pit", "hpd"):
        assert correct["calibration"][check]["p_value"] > 0.01
        assert wide["calibration"][check]["p_value"] < 1e-6
    central = wide["coverage"]["central"]
    assert central[9] > wide["coverage"]["band_upper"][9]  # the 50 % interval holds far more


def test_evaluate_reports_every_score_with_its_mean(fitted):
    model, x, y = fitted
    report = metrics.evaluate(model, x, y, pinball_levels=[0.25], interval_levels=[0.8])
    names = [score["name"] for score in report["scores"]]
    assert names == ["log_likelihood", "crps", "pinball_0.25", "cde_loss", "central_width_0.8",
                     "central_coverage_0.8", "hpd_width_0.8", "hpd_coverage_0.8"]
    by_name = {score["name"]: score for score in report["scores"]}
    np.testing.assert_array_equal(by_name["crps"]["values"], metrics.crps(model, x, y))
    assert by_name["crps"]["mean"] == pytest.approx(by_name["crps"]["values"].mean(), rel=1e-14)
    assert by_name["crps"]["standard_error"] == pytest.approx(
        stats.sem(by_name["crps"]["values"]), rel=1e-12)
    np.testing.assert_array_equal(report["calibration"]["pit"]["values"], model.cdf(x, y))
    # The HPD region never is wider than the central interval of the same level.
    assert np.all(by_name["hpd_width_0.8"]["values"]
                  <= by_name["central_width_0.8"]["values"] + 1e-9)


def test_compare_gives_paired_standard_errors_and_wins(faithful):
    x, y = faithful
    lscde = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x[:136], y[:136])
    linear = cdens.LinearGaussianCDE().fit(x[:136], y[:136])
    report = metrics.compare([lscde, linear], x[200:], y[200:], pinball_levels=[0.5],
                             interval_levels=[0.9])
    assert report["models"] == ["LSCDE", "LinearGaussianCDE"]
    assert report["scores"] == ["log_likelihood", "crps", "pinball_0.5", "cde_loss"]
    first = metrics.crps(lscde, x[200:], y[200:])
    second = metrics.crps(linear, x[200:], y[200:])
    crps_row = [d for d in report["differences"] if d["score"] == "crps"][0]
    # The improvement of the second over the first: the first's loss minus the second's.
    assert crps_row["mean"] == pytest.approx(np.mean(first - second), rel=1e-12)
    assert crps_row["standard_error"] == pytest.approx(stats.sem(first - second), rel=1e-12)
    assert crps_row["first_wins"] == pytest.approx(np.mean(first < second))
    np.testing.assert_allclose(report["best_shares"].sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="at least two models"):
        metrics.compare([lscde], x, y)


def test_scorers_work_in_grid_search(faithful):
    x, y = faithful
    search = GridSearchCV(cdens.LSCDE(regularization=0.1, random_state=0),
                          {"sigma": [0.1, 0.3, 1.0]}, scoring=metrics.crps_scorer, cv=3)
    search.fit(x, y)
    assert search.best_score_ < 0
    model = cdens.LSCDE(sigma=0.3, regularization=0.1).fit(x, y)
    assert metrics.crps_scorer(model, x, y) == -np.mean(metrics.crps(model, x, y))
    pinball = metrics.pinball_scorer([0.1, 0.9])
    assert pinball(model, x, y) == -np.mean(metrics.pinball_loss(model, x, y, [0.1, 0.9]))


def test_model_files_and_every_shape_are_accepted(faithful, tmp_path):
    x, y = faithful
    path = tmp_path / "model.json"
    model = cdens.LSCDE(sigma=0.3, regularization=0.1).fit(x, y)
    model.save(path)
    np.testing.assert_array_equal(metrics.crps(str(path), x, y), metrics.crps(model, x, y))
    press = cdens.PRESSRegressor(n_states=3, random_state=0, n_restarts=1, max_iter=300).fit(x, y)
    assert np.all(metrics.crps(press, x[:20], y[:20]) > 0)
    density = cdens.GMM(n_components=2, random_state=0).fit(y.reshape(-1, 1))
    report = metrics.evaluate(density, y.reshape(-1, 1))
    assert "crps" in [score["name"] for score in report["scores"]]
    np.testing.assert_allclose(metrics.log_likelihood(density, y.reshape(-1, 1)),
                               density.score_samples(y.reshape(-1, 1)), rtol=1e-14)
    joint = cdens.GMM(n_components=2, random_state=0).fit(np.column_stack([x[:, 0], y]))
    report = metrics.evaluate(joint, np.column_stack([x[:, 0], y]), n_draws=200)
    assert "energy_score" in [score["name"] for score in report["scores"]]
    assert list(report["calibration"]) == ["hpd"]


def test_bad_input_is_a_value_error(fitted):
    model, x, y = fitted
    with pytest.raises(ValueError, match="give Y"):
        metrics.crps(model, x)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        metrics.pinball_loss(model, x, y, [0.5, 1.5])
    with pytest.raises(ValueError, match="at least 2 pairs"):
        metrics.evaluate(model, x[:1], y[:1])
    with pytest.raises(ValueError, match="different numbers of samples"):
        metrics.cde_loss(model, x, y[:-1])
    with pytest.raises(ValueError, match="NaN"):
        metrics.crps(model, x, np.where(np.arange(len(y)) == 2, np.nan, y))
    with pytest.raises(ValueError, match="even number"):
        metrics.energy_score(model, x, y, n_draws=5)
    density = cdens.ParzenWindow().fit(y.reshape(-1, 1))
    with pytest.raises(ValueError, match="X alone"):
        metrics.crps(density, y.reshape(-1, 1), y)


def test_a_pair_with_a_score_that_is_not_finite_is_left_out_with_a_warning(fitted):
    model, x, y = fitted
    far = y.copy()
    far[3] = 1e300  # log-likelihood -inf, CRPS near 5e299: never averaged into the means
    with pytest.warns(RuntimeWarning, match=r"1 pairs left out.*rows 3 \(log_likelihood -inf\)"):
        report = metrics.evaluate(model, x, far, interval_levels=[0.8])
    assert report["n"] == len(y) - 1 and report["pairs_given"] == len(y)
    assert [pair["pair"] for pair in report["excluded"]] == [3]
    np.testing.assert_array_equal(report["pairs"], np.delete(np.arange(len(y)), 3))
    kept = np.delete(np.arange(len(y)), 3)
    expected = metrics.evaluate(model, x[kept], y[kept], interval_levels=[0.8])
    for score, reference in zip(report["scores"], expected["scores"]):
        assert np.isfinite(score["mean"]) and np.isfinite(score["standard_error"])
        assert score["mean"] == pytest.approx(reference["mean"], rel=1e-12, abs=1e-15)
    with pytest.warns(RuntimeWarning, match="LSCDE: 1 pairs left out"):
        comparison = metrics.compare([model, cdens.LinearGaussianCDE().fit(x, y)], x, far)
    assert comparison["n"] == len(y) - 1 and list(comparison["excluded"]) == [3]
    assert np.all(np.isfinite(comparison["means"]))


def test_scores_selects_what_is_computed(fitted):
    model, x, y = fitted
    whole = metrics.evaluate(model, x, y)
    chosen = metrics.evaluate(model, x, y, scores=["crps", "hpd"])
    assert [score["name"] for score in chosen["scores"]] == [
        "crps", "hpd_width_0.5", "hpd_width_0.9", "hpd_coverage_0.5", "hpd_coverage_0.9"]
    by_name = {score["name"]: score for score in whole["scores"]}
    for score in chosen["scores"]:
        np.testing.assert_array_equal(score["values"], by_name[score["name"]]["values"])
    assert list(chosen["calibration"]) == ["hpd"]
    assert "central" not in chosen["coverage"]
    assert "crps" in metrics.SCORE_NAMES and "hpd" in metrics.SCORE_NAMES
    with pytest.raises(ValueError, match="unknown score 'crsp'"):
        metrics.evaluate(model, x, y, scores=["crsp"])
    with pytest.raises(ValueError, match="non-empty list"):
        metrics.evaluate(model, x, y, scores=[])


def test_evaluate_and_compare_leave_out_rows_with_a_missing_value_when_asked(faithful):
    x, y = faithful
    x, y = x[:120], y[:120]
    fitted = [cdens.LinearGaussianCDE().fit(x, y),
              cdens.KernelCDE(bandwidth=[0.3, 0.3]).fit(x, y)]
    holed = y.astype(float).copy()
    holed[[3, 50]] = np.nan
    kept = ~np.isnan(holed)
    with pytest.raises(ValueError, match=r"^Y: column 'y0' has a missing value in row 3: "
                                         r'evaluate\(\.\.\., missing="drop"\) leaves out'):
        metrics.evaluate(fitted[0], x, holed, scores=["log_likelihood", "crps"])
    framed = pandas.DataFrame(x, columns=["waiting"]).astype(object)
    framed.iloc[7, 0] = None
    with pytest.raises(ValueError, match=r"^X: column 'waiting' has a missing value in row 7: "
                                         r'compare\(\.\.\., missing="drop"\)'):
        metrics.compare(fitted, framed, y, scores=["log_likelihood"])
    with pytest.warns(cdens.CdensWarning, match="left out 2 of 120 rows"):
        dropped = metrics.evaluate(fitted[0], x, holed, scores=["log_likelihood", "crps"],
                                   missing="drop")
    clean = metrics.evaluate(fitted[0], x[kept], y[kept], scores=["log_likelihood", "crps"])
    assert dropped["scores"][0]["mean"] == clean["scores"][0]["mean"]
    with pytest.warns(cdens.CdensWarning, match="left out 2 of 120 rows"):
        compared = metrics.compare(fitted, x, holed, scores=["log_likelihood"], missing="drop")
    clean = metrics.compare(fitted, x[kept], y[kept], scores=["log_likelihood"])
    np.testing.assert_array_equal(compared["means"], clean["means"])
