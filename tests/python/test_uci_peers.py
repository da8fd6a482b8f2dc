"""The UCI benchmark's peers (bench/peers/uci/peers.py): the Gaussian-mixture queries against
direct computations, and both peers on a line with known Gaussian noise. Needs PyTorch and XGBoost
(Debian's python3-torch, python3-xgboost), not cdens; skipped without them."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

pytest.importorskip("torch")
pytest.importorskip("xgboost")

PEERS_FILE = Path(__file__).resolve().parents[2] / "bench" / "peers" / "uci" / "peers.py"
_spec = importlib.util.spec_from_file_location("uci_peers", PEERS_FILE)
peers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peers)

NOISE = 0.1


def line(rows, seed):
    """y = 2x + N(0, NOISE²), x uniform on [−1, 1]."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-1.0, 1.0, size=(rows, 1))
    return x, 2.0 * x[:, 0] + NOISE * rng.normal(size=rows)


@pytest.fixture(scope="module")
def mixture():
    """Three rows of a 3-component mixture with unequal spreads, and points in and between the
    components and in a tail."""
    means = np.array([[0.0, 1.0, 4.0], [-2.0, -2.5, 3.0], [10.0, 10.0, 10.0]])
    sds = np.array([[0.5, 1.0, 2.0], [0.3, 0.7, 1.5], [1.0, 2.0, 0.2]])
    y = np.array([0.7, 6.0, 9.0])
    return y, means, sds


def test_mixture_log_pdf_matches_the_direct_sum(mixture):
    y, means, sds = mixture
    direct = np.log(norm.pdf(y[:, None], means, sds).mean(axis=1))
    np.testing.assert_allclose(peers.gaussian_mixture_log_pdf(y, means, sds), direct, rtol=1e-12)


def test_mixture_crps_matches_numeric_integration(mixture):
    """∫ (F(t) − 1{t ≥ y})² dt by adaptive quadrature, split at y where the step jumps; the
    bounds are 12 of the largest standard deviations beyond the outermost means, where the
    integrand is below 1e-60."""
    y, means, sds = mixture
    for row in range(len(y)):
        def squared_gap(t):
            cdf = norm.cdf(t, means[row], sds[row]).mean()
            return (cdf - (t >= y[row])) ** 2

        low = means[row].min() - 12 * sds[row].max()
        high = means[row].max() + 12 * sds[row].max()
        numeric = (integrate.quad(squared_gap, low, y[row], epsabs=1e-12, limit=200)[0]
                   + integrate.quad(squared_gap, y[row], high, epsabs=1e-12, limit=200)[0])
        closed = peers.gaussian_mixture_crps(y[row:row + 1], means[row:row + 1],
                                             sds[row:row + 1])[0]
        assert closed == pytest.approx(numeric, rel=1e-8)


def test_one_component_crps_is_the_gaussian_formula():
    y, mean, sd = np.array([1.3]), np.array([[0.2]]), np.array([[0.7]])
    z = (y - mean[0]) / sd[0]
    gaussian = sd[0] * (z * (2 * norm.cdf(z) - 1) + 2 * norm.pdf(z) - 1 / np.sqrt(np.pi))
    np.testing.assert_allclose(peers.gaussian_mixture_crps(y, mean, sd), gaussian, rtol=1e-12)


@pytest.fixture(scope="module", params=sorted(peers.PEERS))
def fitted(request):
    """Each peer fitted on 400 rows of the line, and the same peer on y in other units."""
    x, y = line(400, seed=1)
    model = peers.PEERS[request.param](random_state=0).fit(x, y)
    rescaled = peers.PEERS[request.param](random_state=0).fit(x, 10.0 * y + 3.0)
    return model, rescaled


def test_peer_recovers_the_noise_of_a_line(fitted):
    """Scored on 2,000 fresh rows against the true N(2x, 0.1²) on the same rows (the paired
    difference cancels the rows' own noise, about ±0.02 nats at this size).

    The predicted σ is within 25 % of 0.1: a peer that lost the noise level sits near y's
    spread (1.15). The excess NLL is below 0.2 nats: with σ right, a mean off by e costs
    e²/2σ², so 0.2 allows a mean error of 0.63σ; depth-3 trees' staircase along a line costs
    about 0.1 here (a mean error near 0.45σ), the networks about 0.02."""
    model, _ = fitted
    x_test, y_test = line(2000, seed=2)
    log_density = model.log_pdf(x_test, y_test)
    assert log_density.shape == (2000,)
    _, sds = model.components(x_test)
    assert np.median(sds) == pytest.approx(NOISE, rel=0.25)
    excess = np.mean(norm.logpdf(y_test, 2.0 * x_test[:, 0], NOISE)) - np.mean(log_density)
    assert -0.05 < excess < 0.2


def test_peer_answers_in_the_units_of_y(fitted):
    """Standardising y makes the fit the same for y and 10y + 3, so the density falls by log 10,
    the mean moves with y and the CRPS scales by 10; a log s_y left out or applied twice fails."""
    model, rescaled = fitted
    x_test, y_test = line(50, seed=3)
    np.testing.assert_allclose(rescaled.log_pdf(x_test, 10.0 * y_test + 3.0),
                               model.log_pdf(x_test, y_test) - np.log(10.0), atol=1e-4)
    np.testing.assert_allclose(rescaled.predict(x_test), 10.0 * model.predict(x_test) + 3.0,
                               atol=1e-3)
    np.testing.assert_allclose(rescaled.crps(x_test, 10.0 * y_test + 3.0),
                               10.0 * model.crps(x_test, y_test), rtol=1e-4, atol=1e-5)
    # The components answer the mixture's queries: log_pdf is their direct mixture density.
    means, sds = model.components(x_test)
    direct = np.log(norm.pdf(y_test[:, None], means, sds).mean(axis=1))
    np.testing.assert_allclose(model.log_pdf(x_test, y_test), direct, rtol=1e-10)
