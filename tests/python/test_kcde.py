"""KernelCDE: the leave-one-out likelihood against statsmodels' independent implementation of
the same criterion, the chosen bandwidths against its optimum, CLI agreement and bad input."""

import subprocess

import numpy as np
import pytest
from statsmodels.nonparametric.kernel_density import KDEMultivariateConditional

import cdens

from conftest import REPO


def standardized(values):
    values = np.asarray(values, dtype=float)
    return (values - values.mean(axis=0)) / values.std(axis=0, ddof=1)


@pytest.fixture(scope="module")
def two_inputs():
    """y depends on the first of two inputs, with a spread that grows with |x_0|."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(120, 2))
    y = np.sinc(2 * x[:, 0]) + (0.1 + 0.3 * np.abs(x[:, 0])) * rng.normal(size=120)
    return x, y


def statsmodels_loo_nll(x, y, bandwidths):
    """statsmodels' cv_ml criterion (its own leave-one-out loop) at the given bandwidths, as a
    mean NLL in standardised units; bandwidths are ours, inputs first."""
    d_x = x.shape[1]
    outputs_first = np.concatenate([bandwidths[d_x:], bandwidths[:d_x]])  # statsmodels' order
    model = KDEMultivariateConditional(endog=standardized(y).reshape(-1, 1),
                                       exog=standardized(x), dep_type="c", indep_type="c" * d_x,
                                       bw=outputs_first)
    return model.loo_likelihood(outputs_first, func=np.log) / len(y)


def test_criterion_equals_statsmodels_leave_one_out(two_inputs):
    x, y = two_inputs
    # statsmodels' criterion is that of the estimator as written: no marginal mixing.
    model = cdens.KernelCDE(marginal_mixing="none", random_state=0).fit(x, y)
    ours = model.loo_nll_ - np.log(np.std(y, ddof=1))  # back to standardised units
    assert ours == pytest.approx(statsmodels_loo_nll(x, y, model.bandwidths_), abs=1e-10)


def test_optimum_is_at_least_as_good_as_statsmodels_cv_ml(two_inputs):
    x, y = two_inputs
    model = cdens.KernelCDE(random_state=0).fit(x, y)
    ours = model.loo_nll_unmixed_ - np.log(np.std(y, ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        peer = KDEMultivariateConditional(endog=standardized(y).reshape(-1, 1),
                                          exog=standardized(x), dep_type="c",
                                          indep_type="cc", bw="cv_ml")
    peer_bandwidths = np.concatenate([peer.bw[1:], peer.bw[:1]])
    assert ours <= statsmodels_loo_nll(x, y, peer_bandwidths) + 1e-9


def test_fixed_bandwidths_are_used_and_reported(two_inputs):
    x, y = two_inputs
    model = cdens.KernelCDE(bandwidth=[0.3, 2.0, 0.4]).fit(x, y)
    np.testing.assert_array_equal(model.bandwidths_, [0.3, 2.0, 0.4])
    assert model.loo_nll_ is None


def test_load_keeps_the_bandwidths(two_inputs, tmp_path):
    x, y = two_inputs
    model = cdens.KernelCDE(random_state=0).fit(x, y)
    model.save(tmp_path / "kcde.json")
    loaded = cdens.load(tmp_path / "kcde.json")
    assert type(loaded) is cdens.KernelCDE
    np.testing.assert_array_equal(loaded.bandwidth, model.bandwidths_)
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))


def test_refuses_bandwidths_of_the_wrong_count(two_inputs):
    x, y = two_inputs
    with pytest.raises(ValueError, match="bandwidths: 2 values given, the data have 3"):
        cdens.KernelCDE(bandwidth=[0.3, 0.4]).fit(x, y)
    with pytest.raises(ValueError, match="bandwidth must be greater than 0"):
        cdens.KernelCDE(bandwidth=[0.3, -1.0, 0.4]).fit(x, y)
    # A continuous column's width has its own range, and the refusal names the column.
    with pytest.raises(ValueError, match="bandwidth of continuous column x1 must lie in"):
        cdens.KernelCDE(bandwidth=[0.3, 1e-9, 0.4]).fit(x, y)


@pytest.fixture(scope="module")
def linear_data():
    """y = 2 x_0 - x_1 + noise whose spread grows with |x_0|: a line with heteroscedastic noise."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(300, 2))
    y = 2 * x[:, 0] - x[:, 1] + (0.2 + 0.3 * np.abs(x[:, 0])) * rng.normal(size=300)
    return x, y


def test_linear_trend_beats_plain_kernels_on_a_line_and_the_report_compares(linear_data):
    x, y = linear_data
    plain = cdens.KernelCDE(random_state=0).fit(x, y)
    around_line = cdens.KernelCDE(trend="linear", random_state=0).fit(x, y)
    assert around_line.loo_nll_ < plain.loo_nll_
    linear = cdens.LinearGaussianCDE().fit(x, y)
    assert plain.linear_loo_nll_ == pytest.approx(linear.loo_nll_, rel=1e-12)
    # The spread grows with |x_0|, which the kernels around the line capture and one Gaussian
    # does not.
    assert around_line.loo_nll_ < linear.loo_nll_
    # Fresh data agree with the leave-one-out ranking.
    rng = np.random.default_rng(6)
    x_test = rng.normal(size=(2000, 2))
    y_test = 2 * x_test[:, 0] - x_test[:, 1] + (0.2 + 0.3 * np.abs(x_test[:, 0])) * rng.normal(
        size=2000)
    assert around_line.score(x_test, y_test) > max(plain.score(x_test, y_test),
                                                   linear.score(x_test, y_test))


def test_linear_trend_survives_a_model_file(linear_data, tmp_path):
    x, y = linear_data
    model = cdens.KernelCDE(trend="linear", random_state=0).fit(x, y)
    model.save(tmp_path / "trend.json")
    loaded = cdens.load(tmp_path / "trend.json")
    assert loaded.trend == "linear"
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))
    np.testing.assert_array_equal(loaded.predict(x), model.predict(x))


def test_plain_kernels_warn_where_a_line_is_better():
    rng = np.random.default_rng(8)
    x = rng.normal(size=(200, 3))
    y = x @ np.array([1.0, -2.0, 0.5]) + 0.3 * rng.normal(size=200)
    with pytest.warns(cdens.CdensWarning, match="linear-Gaussian model of the same data"):
        cdens.KernelCDE(random_state=0).fit(x, y)


def test_linear_gaussian_survives_a_model_file(linear_data, tmp_path):
    x, y = linear_data
    model = cdens.LinearGaussianCDE().fit(x, y)
    model.save(tmp_path / "linear.json")
    loaded = cdens.load(tmp_path / "linear.json")
    assert type(loaded) is cdens.LinearGaussianCDE
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))
    np.testing.assert_array_equal(loaded.predict_quantiles(x[:5], [0.1, 0.9]),
                                  model.predict_quantiles(x[:5], [0.1, 0.9]))


def test_unknown_trend_is_refused(two_inputs):
    x, y = two_inputs
    with pytest.raises(ValueError, match="trend must be one of none, linear, gp, not 'quadratic'"):
        cdens.KernelCDE(trend="quadratic").fit(x, y)


def test_cli_fit_equals_python_fit(cli, faithful, tmp_path):
    x, y = faithful
    path = tmp_path / "cli.json"
    subprocess.run([cli, "fit", str(REPO / "data" / "faithful.csv"), "--method", "kcde", "--x",
                    "waiting", "--y", "eruptions", "--seed", "5", "--out", str(path)],
                   check=True, capture_output=True)
    from_cli = cdens.load(path)
    in_python = cdens.KernelCDE(random_state=5).fit(x, y)
    assert from_cli.model_.hyperparameters == in_python.model_.hyperparameters
    np.testing.assert_array_equal(from_cli.log_pdf(x, y), in_python.log_pdf(x, y))


def test_cli_refuses_options_of_other_methods(cli):
    result = subprocess.run([cli, "fit", str(REPO / "data" / "faithful.csv"), "--method", "kcde",
                             "--x", "waiting", "--y", "eruptions", "--sigma", "0.3"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "--sigma does not apply to --method kcde" in result.stderr


def test_marginal_mixing_density_and_model_file(two_inputs, tmp_path):
    # A y outlier among the training pairs makes the mixing weight exceed its floor 1/n; the
    # mixed model's density is (1 - eps) times the unmixed one plus eps times the kernel density
    # of y, here checked at the training pairs through the model file.
    x, y = two_inputs
    y = y.copy()
    y[0] += 8 * np.std(y)
    mixed = cdens.KernelCDE(random_state=0).fit(x, y)
    plain = cdens.KernelCDE(bandwidth=list(mixed.bandwidths_), marginal_mixing="none").fit(x, y)
    eps = mixed.marginal_weight_
    assert 1 / len(y) < eps < 0.5
    assert plain.marginal_weight_ is None and plain.loo_nll_unmixed_ is None
    assert mixed.loo_nll_ < mixed.loo_nll_unmixed_
    scale = np.std(y, ddof=1)
    h = mixed.bandwidths_[-1] * scale
    kernels = np.exp(-0.5 * ((y[:, None] - y[None, :]) / h) ** 2)
    marginal = kernels.mean(1) / (np.sqrt(2 * np.pi) * h)
    expected = np.log((1 - eps) * np.exp(plain.log_pdf(x, y)) + eps * marginal)
    mixed.save(tmp_path / "mixed.json")
    np.testing.assert_allclose(cdens.load(tmp_path / "mixed.json").log_pdf(x, y), expected,
                               rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="marginal_mixing"):
        cdens.KernelCDE(marginal_mixing="always").fit(x, y)


def test_around_the_gaussian_process_trend_the_model_keeps_its_input_kinds_and_refits(tmp_path):
    rng = np.random.default_rng(11)
    x = np.column_stack([rng.normal(size=200), rng.integers(0, 3, size=200)])
    y = 3 * np.sin(2 * x[:, 0]) + x[:, 1] + 0.2 * rng.normal(size=200)
    model = cdens.KernelCDE(trend="gp", discrete=[1], random_state=0).fit(x, y)
    assert model.input_kinds_ == ["continuous", "unordered"]
    # A saved model loads as the same estimator, trend included, with the same densities.
    path = tmp_path / "gp.json"
    model.save(path)
    loaded = cdens.load(path)
    assert loaded.trend == "gp"
    np.testing.assert_array_equal(loaded.log_pdf(x[:20], y[:20]), model.log_pdf(x[:20], y[:20]))


def test_tied_survey_shaped_table_is_scored_in_python_and_on_the_command_line(cli, tmp_path):
    # Issue 50: integer-coded inputs of few levels and an output that is 0 on most rows. Its
    # held-out log-densities take the dual tree of blocks, whose leaves of more than 256 tied
    # points once overran their GEMM block: the interpreter died, `cdens score` aborted. Both must
    # now give the density written out as a kernel ratio, for each held-out row.
    rng = np.random.default_rng(50)
    x = np.column_stack([rng.integers(0, k, 3000) for k in (2, 3)]).astype(float)
    zero = rng.random(3000) < 0.55 + 0.1 * x[:, 0]
    y = np.where(zero, 0.0, np.exp(1.0 + 0.2 * x[:, 1] + 0.5 * rng.normal(size=3000)))
    train, test = slice(0, 2100), slice(2100, None)
    _, ties = np.unique(x[train], axis=0, return_counts=True)
    assert ties.max() > 256  # more tied inputs than a block holds
    # As written (no atom) and with every row kept, so the tree holds the ties.
    model = cdens.KernelCDE(bandwidth=[0.3, 0.3, 0.05], marginal_mixing="none", atom="none",
                            duplicates="keep")
    model.fit(x[train], y[train])
    log_density = model.log_pdf(x[test], y[test])
    # The kernel ratio in standardised units, then in y's (÷ the output scale).
    sx, sy = x[train].std(axis=0, ddof=1), y[train].std(ddof=1)
    h = np.array(model.bandwidths_)
    qx, tx = x[test] / sx / h[:2], x[train] / sx / h[:2]
    gate = -0.5 * ((qx[:, None, :] - tx[None, :, :]) ** 2).sum(-1)
    output = -0.5 * ((y[test, None] - y[None, train]) / (sy * h[2])) ** 2
    expected = (np.logaddexp.reduce(gate + output, axis=1) - np.logaddexp.reduce(gate, axis=1)
                - np.log(np.sqrt(2 * np.pi) * sy * h[2]))
    np.testing.assert_allclose(log_density, expected, rtol=0, atol=1e-6)
    path = tmp_path / "survey.json"
    model.save(path)
    table = tmp_path / "test.csv"
    np.savetxt(table, np.column_stack([x[test], y[test]]), delimiter=",", header="a,b,y",
               comments="")
    result = subprocess.run([cli, "score", str(path), str(table), "--x", "a,b", "--y", "y"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert f"{-expected.mean():.6g}" in result.stdout
