"""Bad input raises ValueError with the library's message, never a crash or a NaN."""

import numpy as np
import pytest
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
    with pytest.raises(ValueError, match="fold"):
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


def test_far_away_inputs_give_finite_answers(toy):
    x, y = toy
    model = cdens.LSCDE(sigma=0.1, regularization=0.1, random_state=0).fit(x, y)
    far = np.array([[1e6], [-1e6]])
    assert np.all(np.isfinite(model.log_pdf(far, [0.0, 0.0])))
    assert np.all(np.isfinite(model.predict(far)))


def test_bad_model_files(tmp_path):
    missing = tmp_path / "missing.json"
    with pytest.raises(OSError, match="cannot open"):
        cdens.load(missing)
    broken = tmp_path / "broken.json"
    broken.write_text("{ not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        cdens.load(broken)
