"""The linear-Gaussian baseline's spread (constant, log-linear, chosen per output) from Python
and the CLI: the choice against fresh data, the model file, the CLI flag, bad values."""

import subprocess
from pathlib import Path

import numpy as np
import pytest

import cdens

REPO = Path(__file__).resolve().parents[2]


def draw(n, seed):
    """y = 1 + 2 x_0 - x_1 + exp(-0.5 + 0.6 x_0) e: a log-linear spread."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = 1 + 2 * x[:, 0] - x[:, 1] + np.exp(-0.5 + 0.6 * x[:, 0]) * rng.normal(size=n)
    return x, y


def test_auto_takes_the_log_linear_spread_where_fresh_data_prefer_it():
    x, y = draw(400, 1)
    chosen = cdens.LinearGaussianCDE().fit(x, y)
    constant = cdens.LinearGaussianCDE(variance="constant").fit(x, y)
    assert chosen.log_linear_outputs_ == 1 and constant.log_linear_outputs_ == 0
    assert chosen.loo_nll_ == chosen.loo_nll_log_linear_variance_
    assert chosen.loo_nll_ < chosen.loo_nll_constant_variance_ - 0.05
    assert constant.loo_nll_ == pytest.approx(chosen.loo_nll_constant_variance_, rel=1e-12)
    # On 5,000 fresh pairs the log-linear spread is better by about the leave-one-out margin.
    x_test, y_test = draw(5000, 2)
    assert chosen.score(x_test, y_test) > constant.score(x_test, y_test) + 0.05
    # The 90 % central interval covers about 90 % of fresh pairs at every x (standard error of a
    # coverage over 1,000 pairs: 0.0095; the bound is four of them).
    quantiles = chosen.predict_quantiles(x_test, [0.05, 0.95])
    for part in (x_test[:, 0] < 0, x_test[:, 0] >= 0):
        inside = (y_test[part] > quantiles[part, 0]) & (y_test[part] < quantiles[part, 1])
        assert abs(inside.mean() - 0.9) < 0.04


def test_log_linear_model_survives_a_model_file_and_equals_the_cli_fit(cli, tmp_path):
    x, y = draw(200, 3)
    model = cdens.LinearGaussianCDE(variance="log_linear").fit(x, y)
    model.save(tmp_path / "linear.json")
    loaded = cdens.load(tmp_path / "linear.json")
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))
    np.testing.assert_array_equal(loaded.predict_quantiles(x[:5], [0.1, 0.9]),
                                  model.predict_quantiles(x[:5], [0.1, 0.9]))
    data = tmp_path / "data.csv"
    np.savetxt(data, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="")
    subprocess.run([cli, "fit", str(data), "--method", "linear", "--x", "a,b", "--y", "y",
                    "--variance", "log_linear", "--out", str(tmp_path / "cli.json")],
                   check=True, capture_output=True)
    from_cli = cdens.load(tmp_path / "cli.json")
    np.testing.assert_allclose(from_cli.log_pdf(x, y), model.log_pdf(x, y), rtol=1e-12)


def test_collapsing_spread_and_unknown_variance_are_refused():
    rng = np.random.default_rng(4)
    x = np.column_stack([rng.normal(size=100), np.arange(100) % 2])
    y = np.where(x[:, 1] == 1, 3.0, rng.normal(size=100))
    with pytest.raises(ValueError, match="output 0: the fitted spread .* use variance = constant"):
        cdens.LinearGaussianCDE(variance="log_linear").fit(x, y)
    assert cdens.LinearGaussianCDE().fit(x, y).log_linear_outputs_ == 0
    with pytest.raises(ValueError, match="variance must be one of constant, log_linear, auto"):
        cdens.LinearGaussianCDE(variance="quadratic").fit(x, y)
