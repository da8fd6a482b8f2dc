"""Bad input raises ValueError with the library's message, never a crash or a NaN."""

import json

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.exceptions import NotFittedError

import cdens


def test_bad_training_data(toy):
    x, y = toy
    bad = x.copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cdens.LSCDE().fit(bad, y)
    with pytest.raises(ValueError, match="different numbers of samples"):
        cdens.LSCDE().fit(x, y[:-1])
    with pytest.raises(ValueError, match="constant"):
        cdens.LSCDE().fit(np.ones_like(x), y)
    with pytest.raises(ValueError):
        cdens.LSCDE().fit(x.astype(complex), y)
    with pytest.raises(ValueError):
        cdens.LSCDE().fit([["a"], ["b"]], [1.0, 2.0])


def test_bad_options(toy):
    x, y = toy
    with pytest.raises(ValueError, match="sigma"):
        cdens.LSCDE(sigma=[0.1, -1.0]).fit(x, y)
    with pytest.raises(ValueError, match="cv must be at least 2"):
        cdens.LSCDE(cv=1).fit(x, y)
    with pytest.raises(ValueError, match="kl"):
        cdens.LSCDE(cv_loss="mse").fit(x, y)
    with pytest.raises(ValueError, match="n_jobs"):
        cdens.LSCDE(n_jobs=0).fit(x, y)
    with pytest.raises(ValueError, match="random_state"):
        cdens.LSCDE(random_state=-3).fit(x, y)


def test_bad_queries(toy):
    x, y = toy
    model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(np.ones((3, 2)))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        model.predict_quantiles(x[:2], [0.5, 1.0])
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        model.hdr(x[:2], 1.5)
    with pytest.raises(ValueError, match="n_samples"):
        model.sample(x[:2], 0)
    with pytest.raises(ValueError, match="infinity|NaN"):
        model.log_pdf(x[:2], [np.inf, 0.0])
    with pytest.raises(NotFittedError):
        cdens.LSCDE().predict(x)


def test_far_away_inputs_get_the_log_space_answer(toy):
    # Far from every centre each basis function underflows, but the gate works with log weights
    # log alpha_k - |z - u_k|^2 / (2 sigma^2) (docs/design.md), so p(y|x) is still the mixture they
    # weight: nearly all of it on the outermost centre. Written out here with numpy's
    # log-sum-exp from the model file's parameters.
    x, y = toy
    model = cdens.LSCDE(sigma=0.1, regularization=0.1, random_state=0).fit(x, y)
    parameters = json.loads(model.model_.to_json())["model"]
    gate = parameters["gate"]
    alpha = np.asarray(gate["alpha"])
    basis = np.asarray(gate["centers_x"]["data"])  # d_x = 1: one row
    centers = np.asarray(parameters["centers"]["data"])  # d_y = 1: one row
    scales = np.asarray(parameters["scales"]["data"])
    x_mean, x_scale = parameters["x_scaling"]["mean"][0], parameters["x_scaling"]["scale"][0]
    y_mean, y_scale = parameters["y_scaling"]["mean"][0], parameters["y_scaling"]["scale"][0]
    outputs = np.array([-1.0, 0.0, 0.7])
    t = (outputs - y_mean) / y_scale
    for far in (1e6, -1e6):
        z = (far - x_mean) / x_scale
        with np.errstate(divide="ignore"):
            log_weights = np.log(alpha) - (z - basis) ** 2 / (2 * gate["sigma"] ** 2)
        weights = np.exp(log_weights - log_weights.max())
        weights /= weights.sum()
        expected = np.log((weights * norm.pdf(t[:, None], centers, scales)).sum(axis=1) / y_scale)
        inputs = np.full((len(outputs), 1), far)
        np.testing.assert_allclose(model.log_pdf(inputs, outputs), expected, rtol=1e-9)
        assert model.predict(inputs[:1])[0] == pytest.approx(
            y_mean + y_scale * weights @ centers, rel=1e-9)


def test_bad_model_files(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(OSError, match="cannot open"):
        cdens.load(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        cdens.load(broken)
