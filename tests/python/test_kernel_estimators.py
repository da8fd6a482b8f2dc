"""EpsilonKDE, NWCDE and RKDE against their formulas written out in numpy: the densities at fixed
widths, and NW-CDE's leave-one-out table against explicit leave-one-out refits."""

import numpy as np
import pytest
from scipy.stats import norm

import cdens


def standardised(values):
    """(values - mean) / sample standard deviation per column, as the engine standardises."""
    values = np.asarray(values, dtype=float).reshape(len(values), -1)
    scale = values.std(axis=0, ddof=1)
    return (values - values.mean(axis=0)) / scale, scale


def kernel_estimate(weights, t_train, t_query, sigma, y_scale):
    """p(y|x) = sum_i w_i N(t; t_i, sigma^2) / sum_i w_i in the units of y, per query."""
    kernels = norm.pdf(t_query[:, None], loc=t_train[None, :], scale=sigma)
    return (weights * kernels).sum(axis=1) / weights.sum(axis=1) / y_scale


@pytest.fixture(scope="module")
def queries(toy):
    rng = np.random.default_rng(11)
    x, _ = toy
    return rng.uniform(-3, 3, size=(40, 1)), rng.normal(size=40)


def test_epsilon_kde_averages_the_output_kernels_inside_the_ball(toy, queries):
    x, y = toy
    x_query, y_query = queries
    epsilon, sigma = 0.3, 0.25
    model = cdens.EpsilonKDE(epsilon=epsilon, sigma=sigma).fit(x, y)
    z, x_scale = standardised(x)
    t, y_scale = standardised(y)
    z_query = (x_query - x.mean(axis=0)) / x_scale
    t_query = (y_query - y.mean()) / y_scale[0]
    inside = (np.abs(z_query - z[:, 0][None, :]) <= epsilon).astype(float)
    assert inside.sum(axis=1).min() > 0
    expected = kernel_estimate(inside, t[:, 0], t_query, sigma, y_scale[0])
    np.testing.assert_allclose(model.pdf(x_query, y_query), expected, rtol=1e-12)


def test_epsilon_kde_with_an_empty_ball_is_the_kernel_estimate_over_all_outputs(toy):
    x, y = toy
    model = cdens.EpsilonKDE(epsilon=0.1, sigma=0.4).fit(x, y)
    far = np.full((3, 1), 50.0)
    grid = np.linspace(-2, 2, 7)
    t, y_scale = standardised(y)
    expected = kernel_estimate(np.ones((len(grid), len(y))), t[:, 0],
                               (grid - y.mean()) / y_scale[0], 0.4, y_scale[0])
    np.testing.assert_allclose(model.pdf_grid(far, grid), np.tile(expected, (3, 1)),
                               rtol=1e-12)


@pytest.mark.parametrize("estimator", [cdens.NWCDE(sigma=0.3, n_centers=1000),
                                       cdens.RKDE(sigma=0.3)])
def test_nadaraya_watson_weights(estimator, toy, queries):
    # NW-CDE with all pairs as centres and RKDE (renormalised) are both the Nadaraya-Watson
    # estimate with one width for x and y.
    x, y = toy
    x_query, y_query = queries
    model = estimator.fit(x, y)
    z, x_scale = standardised(x)
    t, y_scale = standardised(y)
    z_query = (x_query - x.mean(axis=0)) / x_scale
    weights = np.exp(-(z_query - z[:, 0][None, :]) ** 2 / (2 * 0.3 ** 2))
    expected = kernel_estimate(weights, t[:, 0], (y_query - y.mean()) / y_scale[0], 0.3,
                               y_scale[0])
    np.testing.assert_allclose(model.pdf(x_query, y_query), expected, rtol=1e-10)


def test_nwcde_leave_one_out_table_equals_explicit_refits(toy):
    x, y = toy
    x, y = x[:60], y[:60]
    sigmas = [0.05, 0.2, 0.8]
    # n_centers >= n keeps every pair as a centre, in data order.
    model = cdens.NWCDE(sigma=sigmas, n_centers=60).fit(x, y)
    z, _ = standardised(x)
    t, y_scale = standardised(y)
    expected = []
    for sigma in sigmas:
        losses = []
        for left_out in range(len(y)):
            keep = np.arange(len(y)) != left_out
            weights = np.exp(-(z[left_out, 0] - z[keep, 0]) ** 2 / (2 * sigma ** 2))[None, :]
            density = kernel_estimate(weights, t[keep, 0], t[left_out], sigma, y_scale[0])
            losses.append(-np.log(density[0]))
        expected.append(np.mean(losses))
    np.testing.assert_allclose(-model.cv_results_["mean_test_score"], expected, rtol=1e-10)
    assert model.sigma_ == sigmas[int(np.argmin(expected))]


def test_rkde_selects_each_width_by_its_own_likelihood(faithful):
    # With as many folds as pairs the cross-validation is leave-one-out whatever the fold draw,
    # so both tables can be written out: the held-out log-likelihood of the joint KDE of (x, y)
    # and of the marginal KDE of x, every kernel of width sigma on standardised data, in the
    # user's units.
    x, y = faithful
    x, y = x[:90], y[:90]
    sigmas = [0.05, 0.2, 0.5, 1.5]
    model = cdens.RKDE(sigma=sigmas, cv=len(y), random_state=0).fit(x, y)
    z, x_scale = standardised(x)
    t, y_scale = standardised(y)
    others = ~np.eye(len(y), dtype=bool)

    def loo_log_likelihood(columns, scales, sigma):
        squared = sum((c[:, None] - c[None, :]) ** 2 for c in columns)
        kernels = np.exp(-squared / (2 * sigma ** 2)) / (2 * np.pi * sigma ** 2) ** (
            len(columns) / 2)
        density = np.where(others, kernels, 0.0).sum(axis=1) / (len(y) - 1)
        return np.mean(np.log(density)) - np.sum(np.log(scales))

    joint = [loo_log_likelihood([z[:, 0], t[:, 0]], [x_scale[0], y_scale[0]], s) for s in sigmas]
    marginal = [loo_log_likelihood([z[:, 0]], [x_scale[0]], s) for s in sigmas]
    np.testing.assert_allclose(model.cv_results_["mean_test_score"], joint, rtol=1e-10)
    np.testing.assert_allclose(model.marginal_cv_results_["mean_test_score"], marginal,
                               rtol=1e-10)
    assert model.sigma_ == sigmas[int(np.argmax(joint))]
    assert model.sigma_marginal_ == sigmas[int(np.argmax(marginal))]
    assert model.cv_results_["loss"] == "joint_nll"
    assert model.marginal_cv_results_["loss"] == "marginal_nll"
