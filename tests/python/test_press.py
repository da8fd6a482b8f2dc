"""PRESSRegressor: the regressor contract, the paper's quantities, model files both ways, the
cdens command and the plots."""

import subprocess

import matplotlib
import numpy as np
import pytest
from sklearn.metrics import r2_score

import cdens

from conftest import REPO

MCYCLE = str(REPO / "data" / "mcycle.csv")

# Small enough for seconds: two starts, at most 300 evaluations each.
QUICK = dict(n_restarts=2, patience=50, max_iter=300, random_state=0)


@pytest.fixture(scope="module")
def mcycle():
    data = np.genfromtxt(MCYCLE, delimiter=",", names=True)
    return np.ascontiguousarray(data["times"].reshape(-1, 1)), np.ascontiguousarray(data["accel"])


@pytest.fixture(scope="module")
def fitted(mcycle):
    x, y = mcycle
    return cdens.PRESSRegressor(n_states=3, **QUICK).fit(x, y)


def test_score_is_r2_and_predict_is_the_state_average(fitted, mcycle):
    x, y = mcycle
    assert fitted.score(x, y) == pytest.approx(r2_score(y, fitted.predict(x)), rel=1e-12)
    weights = fitted.predict_states(x)
    assert weights.shape == (len(y), 3)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-12)
    # Eq. (20): the prediction is sum_j w_j(x) ybar_j; the training weights are W.
    np.testing.assert_allclose(fitted.predict(x), weights @ fitted.state_means_, atol=1e-9)
    np.testing.assert_allclose(weights, fitted.training_weights_, atol=1e-12)
    assert np.all(np.diff(fitted.state_means_) > 0)
    assert fitted.state_sizes_.sum() == pytest.approx(len(y))
    assert 1.0 <= fitted.degrees_of_freedom_ <= 3.0
    # nu = sum_i s_ii (eq. 35) and eta_i in [0, log2 J] (eq. 18).
    assert fitted.smoother_diagonal_.sum() == pytest.approx(fitted.degrees_of_freedom_)
    entropy = fitted.state_entropy(x)
    np.testing.assert_allclose(entropy, fitted.training_entropy_, atol=1e-9)
    assert np.all((entropy >= 0) & (entropy <= np.log2(3) + 1e-12))
    # The coefficients in the units of x give the same states.
    logits = x @ fitted.coef_.T + fitted.intercept_
    softmax = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(softmax / softmax.sum(axis=1, keepdims=True), weights, atol=1e-9)


def test_predictive_distribution_answers_the_conditional_queries(fitted, mcycle):
    x, y = mcycle
    grid = np.linspace(-200, 120, 2001)
    density = fitted.pdf_grid(x[:5], grid)
    # Each p(y|x) integrates to one (trapezoid rule on a grid much finer than the kernels).
    np.testing.assert_allclose(np.trapz(density, grid, axis=1), 1.0, atol=1e-3)
    interval = fitted.predict_interval(x, 0.9)
    assert np.all(interval[:, 0] < interval[:, 1])
    assert fitted.sample(x[:3], 4, random_state=1).shape == (3, 4)


def test_aic_selection_reports_every_j(mcycle):
    x, y = mcycle
    model = cdens.PRESSRegressor(max_states=3, **QUICK).fit(x, y)
    assert model.cv_results_["loss"] == "aic"
    assert len(model.cv_results_["params"]) == 3
    best = int(np.argmin(model.cv_results_["rank_test_score"]))
    assert model.cv_results_["params"][best]["n_states"] == model.n_states_


def test_model_file_round_trip(fitted, mcycle, tmp_path):
    x, y = mcycle
    fitted.save(tmp_path / "press.json")
    loaded = cdens.load(tmp_path / "press.json")
    assert type(loaded) is cdens.PRESSRegressor and loaded.n_states == 3
    np.testing.assert_array_equal(loaded.predict(x), fitted.predict(x))
    np.testing.assert_array_equal(loaded.state_means_, fitted.state_means_)
    np.testing.assert_array_equal(loaded.log_pdf(x, y), fitted.log_pdf(x, y))


def test_cli_fit_and_predict_agree_with_python(cli, mcycle, tmp_path):
    x, y = mcycle
    path = tmp_path / "cli.json"
    subprocess.run([cli, "fit", MCYCLE, "--method", "press", "--x", "times", "--y", "accel",
                    "--n-states", "3", "--n-restarts", "2", "--patience", "50", "--max-iter",
                    "300", "--seed", "0", "--out", str(path)], check=True, capture_output=True)
    in_python = cdens.PRESSRegressor(n_states=3, **QUICK).fit(x, y)
    from_cli = cdens.load(path)
    np.testing.assert_array_equal(from_cli.predict(x), in_python.predict(x))
    table = subprocess.run([cli, "predict", str(path), MCYCLE, "--query",
                            "point_prediction,state_weights"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    header = table[0].split(",")
    values = np.array([[float(v) for v in line.split(",")] for line in table[1:]])
    np.testing.assert_allclose(values[:, header.index("point_prediction")], in_python.predict(x),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(values[:, header.index("state_weights_1"):],
                               in_python.predict_states(x), atol=1e-12)


def test_bad_input_is_a_value_error(mcycle):
    x, y = mcycle
    with pytest.raises(ValueError, match="n_states"):
        cdens.PRESSRegressor(n_states=0).fit(x, y)
    with pytest.raises(ValueError, match="criterion"):
        cdens.PRESSRegressor(criterion="aic", **QUICK).fit(x, y)
    with pytest.raises(ValueError):
        cdens.PRESSRegressor(**QUICK).fit(x, np.column_stack([y, y]))
    with pytest.raises(ValueError, match="nu_smooth"):
        cdens.PRESSRegressor(n_states=3, smoothness_weight=1.0, target_dof=5.0, **QUICK).fit(x, y)


def test_plots(fitted, mcycle):
    matplotlib.use("Agg")
    from cdens import plot

    x, y = mcycle
    ax = plot.press_states_curve(fitted, x, y)
    # Three dotted state means, then the prediction sum_j w_j(x) ybar_j over a grid.
    *means, curve = ax.lines
    np.testing.assert_array_equal([line.get_ydata()[0] for line in means], fitted.state_means_)
    grid = np.asarray(curve.get_xdata()).reshape(-1, 1)
    np.testing.assert_allclose(curve.get_ydata(),
                               fitted.predict_states(grid) @ fitted.state_means_, rtol=1e-10)
    # Every pair drawn once, in the colour of its most probable state.
    drawn = np.vstack([points.get_offsets() for points in ax.collections[1:]])
    assert sorted(map(tuple, drawn)) == sorted(zip(x[:, 0], y))
    state_of_point = np.concatenate([np.full(len(points.get_offsets()), j)
                                     for j, points in enumerate(ax.collections[1:])])
    weights = fitted.predict_states(drawn[:, :1])
    np.testing.assert_array_equal(np.argmax(weights, axis=1), state_of_point)
    ax = plot.press_simplex(fitted, x)
    # The simplex plot puts each row at (w_1, w_3).
    weights = fitted.predict_states(x)
    drawn = np.vstack([points.get_offsets() for points in ax.collections])
    assert sorted(map(tuple, drawn)) == sorted(zip(weights[:, 0], weights[:, 2]))
    with pytest.raises(ValueError, match="J = 3"):
        plot.press_simplex(cdens.PRESSRegressor(n_states=2, **QUICK).fit(x, y), x)
