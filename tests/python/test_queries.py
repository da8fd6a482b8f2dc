"""The queries of a fitted estimator against each other and against direct computations."""

import numpy as np
import pytest

import cdens


@pytest.fixture(scope="module")
def fitted(toy):
    x, y = toy
    return cdens.LSCDE(random_state=3).fit(x, y)


@pytest.fixture(scope="module")
def queries():
    return np.array([[-2.5], [-0.7], [0.0], [1.3], [2.8]])


def test_density_integrates_to_one_and_matches_log_pdf(fitted, queries):
    grid = np.linspace(-6.0, 6.0, 4001)
    density = fitted.pdf_grid(queries, grid)
    assert density.shape == (len(queries), grid.size)
    np.testing.assert_allclose(np.trapz(density, grid, axis=1), 1.0, atol=1e-6)
    x_repeated = np.repeat(queries, 7, axis=0)
    y_points = np.tile(grid[::600][:7], len(queries))
    np.testing.assert_allclose(fitted.pdf(x_repeated, y_points),
                               density[:, ::600][:, :7].ravel(), rtol=1e-12)


def test_moments_match_numerical_integration(fitted, queries):
    grid = np.linspace(-8.0, 8.0, 8001)
    density = fitted.pdf_grid(queries, grid)
    mean = np.trapz(density * grid, grid, axis=1)
    variance = np.trapz(density * (grid - mean[:, None]) ** 2, grid, axis=1)
    np.testing.assert_allclose(fitted.predict(queries), mean, atol=1e-6)
    np.testing.assert_allclose(fitted.predict_var(queries), variance, atol=1e-6)


def test_quantiles_invert_the_cdf_and_intervals_are_central_quantiles(fitted, queries):
    levels = [0.05, 0.25, 0.5, 0.75, 0.95]
    quantiles = fitted.predict_quantiles(queries, levels)
    assert quantiles.shape == (len(queries), len(levels))
    for column, level in enumerate(levels):
        np.testing.assert_allclose(fitted.cdf(queries, quantiles[:, column]), level, atol=1e-8)
    # Each level is solved on its own, to rounding.
    np.testing.assert_allclose(fitted.predict_interval(queries, 0.9),
                               fitted.predict_quantiles(queries, [0.05, 0.95]), rtol=1e-12)
    np.testing.assert_allclose(fitted.predict_quantiles(queries, 0.5), quantiles[:, 2],
                               rtol=1e-12)


def test_highest_density_region_has_its_coverage(fitted, queries):
    grid = np.linspace(-8.0, 8.0, 16001)
    density = fitted.pdf_grid(queries, grid)
    for row, intervals in enumerate(fitted.hdr(queries, 0.8)):
        assert intervals.ndim == 2 and intervals.shape[1] == 2
        inside = np.zeros(grid.size, dtype=bool)
        for lower, upper in intervals:
            inside |= (grid >= lower) & (grid <= upper)
        assert np.trapz(density[row] * inside, grid) == pytest.approx(0.8, abs=2e-3)


def test_sample_moments_agree_with_the_model(fitted, queries):
    # 20,000 draws: the standard error of the mean is sd / 141, of the variance about
    # var * sqrt(2 / 20,000) * (kurtosis factor) -- 6 standard errors are allowed.
    n = 20000
    draws = fitted.sample(queries, n, random_state=11)
    assert draws.shape == (len(queries), n)
    sd = np.sqrt(fitted.predict_var(queries))
    np.testing.assert_array_less(np.abs(draws.mean(axis=1) - fitted.predict(queries)),
                                 6 * sd / np.sqrt(n))
    np.testing.assert_allclose(draws.var(axis=1), sd**2, rtol=6 * np.sqrt(3.0 / n))
    np.testing.assert_array_equal(fitted.sample(queries, 5, random_state=4),
                                  fitted.sample(queries, 5, random_state=4))


def test_score_is_the_mean_log_likelihood(fitted, toy):
    # The density from the CDF by central differences (the CDF is computed from the components'
    # normal CDFs, not from log_pdf): its error is O(h^2) relative, below 1e-8 here.
    x, y = toy
    h = 1e-4 * np.std(y)
    density = (fitted.cdf(x, y + h) - fitted.cdf(x, y - h)) / (2 * h)
    assert fitted.score(x, y) == pytest.approx(np.mean(np.log(density)), rel=1e-7)


def test_two_dimensional_outputs(toy):
    x, y = toy
    outputs = np.column_stack([y, 0.5 * y + np.cos(x[:, 0])])
    model = cdens.LSCDE(sigma=0.5, regularization=0.1, random_state=0).fit(x, outputs)
    assert model.n_outputs_ == 2
    assert model.predict(x[:4]).shape == (4, 2)
    covariance = model.predict_var(x[:4])
    assert covariance.shape == (4, 2, 2)
    np.testing.assert_allclose(covariance, covariance.transpose(0, 2, 1))
    assert model.sample(x[:3], 6, random_state=0).shape == (3, 6, 2)
    assert model.pdf_grid(x[:3], outputs[:10]).shape == (3, 10)
    with pytest.raises(ValueError, match="one-dimensional y"):
        model.predict_quantiles(x[:3], [0.5])
