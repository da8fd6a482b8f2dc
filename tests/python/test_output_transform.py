"""Output transforms from Python (docs/methods/kcde.md, "Output transforms"): the estimator on a
log or Yeo-Johnson y answers in y's units, equals the fit on log y done by hand, survives a
model file and the command line, and auto stacks it."""

import os
import subprocess

import numpy as np
import pytest

import cdens


def skewed_pairs(n=150, seed=4):
    # y = exp(x0 + 0.3 e): positive, right-skewed, multiplicative noise.
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    y = np.exp(x[:, 0] + 0.3 * rng.normal(size=n))
    return x, y


def test_log_transform_equals_the_fit_on_log_y_with_the_jacobian():
    x, y = skewed_pairs()
    through = cdens.KernelCDE(y_transform="log", random_state=0).fit(x, y)
    by_hand = cdens.KernelCDE(random_state=0).fit(x, np.log(y))
    np.testing.assert_allclose(through.log_pdf(x, y), by_hand.log_pdf(x, np.log(y)) - np.log(y),
                               atol=1e-10)
    np.testing.assert_allclose(through.loo_nll_, by_hand.loo_nll_ + np.log(y).mean(), atol=1e-10)
    # Quantiles are those of log y mapped back; the CDF at them gives the levels.
    levels = [0.1, 0.5, 0.9]
    np.testing.assert_allclose(through.predict_quantiles(x[:5], levels),
                               np.exp(by_hand.predict_quantiles(x[:5], levels)), rtol=1e-9)
    q = through.predict_quantiles(x[:5], 0.9)
    np.testing.assert_allclose(through.cdf(x[:5], q), 0.9, atol=1e-10)
    assert np.all(through.sample(x[:3], 200, random_state=1) > 0)


def test_transformed_density_integrates_to_one_in_y_units():
    x, y = skewed_pairs()
    model = cdens.KernelCDE(y_transform="yeo_johnson", trend="linear", random_state=0).fit(x, y)
    grid = np.linspace(y.min() - 20 * y.std(), y.max() + 20 * y.std(), 200001)
    density = model.pdf_grid(x[:3], grid)  # (3, grid points)
    np.testing.assert_allclose(np.trapz(density, grid, axis=-1), 1.0, atol=1e-5)


def test_a_transformed_model_survives_its_model_file_and_the_command_line(tmp_path):
    x, y = skewed_pairs()
    model = cdens.KernelCDE(y_transform="yeo_johnson", random_state=0).fit(x, y)
    path = tmp_path / "model.json"
    model.save(path)
    loaded = cdens.load(path)
    np.testing.assert_array_equal(loaded.log_pdf(x, y), model.log_pdf(x, y))
    cli = os.environ.get("CDENS_CLI")
    if not cli:
        pytest.skip("CDENS_CLI is not set")
    data = tmp_path / "pairs.csv"
    np.savetxt(data, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="")
    out = tmp_path / "cli.json"
    subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "a,b", "--y", "y",
                    "--y-transform", "yeo_johnson", "--out", str(out)], check=True,
                   capture_output=True)
    np.testing.assert_array_equal(cdens.load(out).log_pdf(x, y), model.log_pdf(x, y))


def test_auto_runs_the_transformed_candidate_and_refuses_it_for_a_discrete_y():
    x, y = skewed_pairs(n=120)
    model = cdens.AutoCDE(random_state=0).fit(x, y)
    spec = "kcde:trend=gp:y_transform=yeo_johnson"
    row = model.selection_["candidate"].index(spec)
    assert model.selection_["status"][row] == "scored"
    # Few integer levels: auto's mass function, which a transform cannot map.
    levels = np.round(np.clip(y, 0, 4))
    discrete = cdens.AutoCDE(candidates="kcde,kcde:y_transform=log", random_state=0).fit(x, levels)
    assert discrete.selection_["status"] == [
        "scored", "not run: a transform maps a continuous y, and this y is discrete"]


def test_log_transform_refuses_outputs_that_are_not_positive():
    x, y = skewed_pairs()
    y[3] = -1.0
    with pytest.raises(ValueError, match="needs positive outputs"):
        cdens.KernelCDE(y_transform="log").fit(x, y)
