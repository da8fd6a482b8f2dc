"""LSCE and LSMI in Python: W and transform, the CLI's model, model files, bad parameters."""

import subprocess

import numpy as np
import pytest

import cdens

from conftest import REPO

SNIFFER = str(REPO / "data" / "sniffer.csv")
INPUTS = ["tank_temp", "gas_temp", "tank_pres", "gas_pres"]


def set_b(n, seed):
    """Artificial set (b) of the LSCE paper, section 3.2: y depends on x only through x_2."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4))
    v = x[:, 1]
    return x, v + v ** 2 + v ** 3 + 0.25 * rng.standard_normal(n)


@pytest.mark.parametrize("estimator_class, estimator", [
    (cdens.LSCE, "lscde"), (cdens.LSCE, "ekde"), (cdens.LSMI, "lscde"), (cdens.LSMI, "ekde")])
def test_components_are_orthonormal_and_transform_projects_standardised_inputs(
        estimator_class, estimator):
    x, y = set_b(120, 0)
    model = estimator_class(n_components=1, estimator=estimator, n_restarts=3,
                            sigma=[0.1, 0.3, 1.0], regularization=[0.01, 0.1],
                            random_state=0).fit(x, y)
    w = model.components_
    assert w.shape == (1, 4) and model.n_components_ == 1
    np.testing.assert_allclose(w @ w.T, np.eye(1), atol=1e-10)
    standardised = (x - x.mean(axis=0)) / x.std(axis=0, ddof=1)
    np.testing.assert_allclose(model.transform(x), standardised @ w.T, atol=1e-12)
    # y depends on x_2 only: the direction is found even with 120 pairs.
    assert abs(w[0, 1]) > 0.9
    assert len(model.traces_) == 3 and all(len(t) >= 1 for t in model.traces_)


def test_dimension_is_chosen_by_cross_validation():
    x, y = set_b(100, 1)
    model = cdens.LSCE(n_restarts=2, sigma=[0.2, 0.5, 1.0], regularization=[0.01, 0.1],
                       random_state=0).fit(x, y)
    results = model.n_components_cv_results_
    assert list(results["param_n_components"]) == [1, 2, 3, 4]
    best = int(np.argmin(results["rank_test_score"]))
    assert results["param_n_components"][best] == model.n_components_
    assert model.components_.shape == (model.n_components_, 4)


def test_cli_fit_equals_python_fit_and_files_travel_both_ways(cli, tmp_path):
    path = tmp_path / "cli.json"
    subprocess.run([cli, "fit", SNIFFER, "--method", "lsce", "--x", ",".join(INPUTS), "--y", "y",
                    "--n-components", "2", "--n-restarts", "3", "--seed", "4", "--out", str(path)],
                   check=True, capture_output=True)
    data = np.loadtxt(SNIFFER, delimiter=",", skiprows=1)
    x, y = data[:, :4], data[:, 4]
    from_cli = cdens.load(path)
    assert type(from_cli) is cdens.LSCE and from_cli.estimator == "lscde"
    in_python = cdens.LSCE(n_components=2, n_restarts=3, random_state=4).fit(x, y)
    np.testing.assert_array_equal(from_cli.components_, in_python.components_)
    np.testing.assert_array_equal(from_cli.log_pdf(x, y), in_python.log_pdf(x, y))
    np.testing.assert_array_equal(from_cli.transform(x), in_python.transform(x))
    in_python.save(tmp_path / "python.json")
    loaded = cdens.load(tmp_path / "python.json")
    np.testing.assert_array_equal(loaded.predict_quantiles(x, [0.1, 0.9]),
                                  in_python.predict_quantiles(x, [0.1, 0.9]))


def test_bad_parameters_are_value_errors():
    x, y = set_b(30, 2)
    with pytest.raises(ValueError, match="n_components"):
        cdens.LSCE(n_components=0).fit(x, y)
    with pytest.raises(ValueError, match="d_z"):
        cdens.LSCE(n_components=5, n_restarts=1).fit(x, y)
    with pytest.raises(ValueError, match="estimator"):
        cdens.LSMI(estimator="rkde").fit(x, y)
    with pytest.raises(ValueError, match="restarts"):
        cdens.LSCE(n_components=1, n_restarts=0).fit(x, y)


def test_max_iter_bounds_the_updates_of_every_start():
    # traces_ holds J after every update of W, so no trace is longer than max_iter.
    x, y = set_b(50, 3)
    for max_iter in (1, 3):
        model = cdens.LSCE(n_components=1, n_restarts=2, max_iter=max_iter, sigma=[0.5, 1.0],
                           regularization=0.1, random_state=0).fit(x, y)
        assert [len(trace) for trace in model.traces_] == [max_iter, max_iter]
        assert model.n_iter_ == max_iter
