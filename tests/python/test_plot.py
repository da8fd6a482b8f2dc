"""Plots render to PNG on a headless machine and draw what they say."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import cdens  # noqa: E402
import cdens.plot  # noqa: E402


@pytest.fixture(scope="module")
def fitted(faithful):
    x, y = faithful
    return cdens.LSCDE(random_state=0).fit(x, y)


def saved_png(ax, path):
    ax.figure.savefig(path)
    plt.close(ax.figure)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_conditional_density_map(fitted, faithful, tmp_path):
    x, y = faithful
    ax = cdens.plot.conditional_density_map(fitted, x, y, resolution=60)
    mesh = ax.collections[0]
    # The image holds p(y|x) on the grid: each column integrates to about one over the
    # padded data range (the density is negligible outside it).
    values = np.asarray(mesh.get_array()).reshape(60, 60)
    y_grid = np.linspace(*ax.get_ylim(), 60)
    assert np.trapz(values, y_grid, axis=0) == pytest.approx(np.ones(60), abs=0.05)
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "y0"
    saved_png(ax, tmp_path / "map.png")


def test_a_map_of_a_model_of_named_columns_warns_of_no_feature_names(faithful, tmp_path):
    # A model of the command (or of a dataframe) knows its inputs' names; the map's own grid of
    # inputs is passed with them, so scikit-learn has nothing to warn about.
    import warnings

    import pandas

    x, y = faithful
    named = cdens.LSCDE(random_state=0).fit(pandas.DataFrame({"waiting": x[:, 0]}), y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = cdens.plot.conditional_density_map(named, x, y, resolution=30)
    assert ax.get_xlabel() == "waiting"
    saved_png(ax, tmp_path / "named.png")


def test_density_curves(fitted, tmp_path):
    grid = np.linspace(1.0, 6.0, 200)
    ax = cdens.plot.density_curves(fitted, [55.0, 70.0, 85.0], grid)
    assert len(ax.get_lines()) == 3
    # One input alone or in a batch: the same curve up to the rounding of the batched GEMM.
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), fitted.pdf_grid([[70.0]], grid)[0],
                               rtol=1e-12)
    saved_png(ax, tmp_path / "curves.png")


def test_cv_surface(fitted, tmp_path):
    ax = cdens.plot.cv_surface(fitted)
    chosen = ax.get_lines()[0]
    assert (chosen.get_xdata()[0], chosen.get_ydata()[0]) == (fitted.sigma_,
                                                              fitted.regularization_)
    saved_png(ax, tmp_path / "cv.png")


def test_plots_refuse_what_they_cannot_draw(toy):
    x, y = toy
    fixed = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    with pytest.raises(ValueError, match="no hyper-parameter"):
        cdens.plot.cv_surface(fixed)
    two_inputs = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(
        np.column_stack([x, x**2]), y)
    with pytest.raises(ValueError, match="one-dimensional x and y"):
        cdens.plot.conditional_density_map(two_inputs, x, y)


def test_density_fit_draws_the_fitted_density_over_its_data(tmp_path):
    rng = np.random.default_rng(3)
    one_d = np.r_[rng.normal(-2, 0.5, 150), rng.normal(1, 1, 150)].reshape(-1, 1)
    estimator = cdens.GSKD(generations=2, iterations=50, random_state=0).fit(one_d)
    ax = cdens.plot.density_fit(estimator, one_d, resolution=100)
    curve = ax.get_lines()[0]
    # The curve is the fitted density on the padded data range.
    np.testing.assert_allclose(curve.get_ydata(),
                               estimator.pdf(curve.get_xdata().reshape(-1, 1)), rtol=1e-12)
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "p(x)"
    saved_png(ax, tmp_path / "density_1d.png")
    two_d = np.ascontiguousarray(rng.normal(size=(200, 2)))
    plane = cdens.SKD(bandwidth=0.5).fit(two_d)
    ax = cdens.plot.density_fit(plane, two_d, resolution=60)
    assert ax.get_xlabel() == "x0" and ax.get_ylabel() == "x1"
    saved_png(ax, tmp_path / "density_2d.png")
    with pytest.raises(ValueError, match="one- or two-dimensional"):
        cdens.plot.density_fit(cdens.ParzenWindow(bandwidth=0.5).fit(rng.normal(size=(30, 3))),
                               rng.normal(size=(30, 3)))


def test_projected_density_map(tmp_path):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((150, 3))
    y = x[:, 0] + 0.3 * rng.standard_normal(150)
    model = cdens.LSCE(n_components=1, n_restarts=2, sigma=[0.2, 0.5, 1.0],
                       regularization=[0.01, 0.1], random_state=0).fit(x, y)
    ax = cdens.plot.projected_density_map(model, x, y, resolution=40)
    # The points are the data projected on W: transform(X)[:, 0] against y.
    offsets = ax.collections[1].get_offsets()
    np.testing.assert_allclose(offsets[:, 0], model.transform(x)[:, 0])
    # inverse_transform is a right inverse of transform on the subspace.
    z = np.linspace(-2, 2, 5).reshape(-1, 1)
    np.testing.assert_allclose(model.transform(model.inverse_transform(z)), z, atol=1e-12)
    values = np.asarray(ax.collections[0].get_array()).reshape(40, 40)
    y_grid = np.linspace(*ax.get_ylim(), 40)
    assert np.trapz(values, y_grid, axis=0) == pytest.approx(np.ones(40), abs=0.05)
    saved_png(ax, tmp_path / "projected.png")
    with pytest.raises(ValueError, match="projection"):
        cdens.plot.projected_density_map(cdens.LSCDE(sigma=0.3, regularization=0.1).fit(x, y),
                                         x, y)
