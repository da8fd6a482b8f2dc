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


def test_a_map_over_its_own_padded_grid_does_not_warn_of_extrapolation(faithful, tmp_path):
    # A model fitted on half of the rows, drawn over every row (the main job's figure): the
    # plot's own grid reaches beyond the training range by more than a tenth, which is no query
    # of the user's; a range the user gives that far out still warns.
    import warnings

    x, y = faithful
    order = np.argsort(x[:, 0])
    half = order[len(order) // 4: 3 * len(order) // 4]
    model = cdens.LSCDE(random_state=0).fit(x[half], y[half])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ax = cdens.plot.conditional_density_map(model, x, y, resolution=30)
    saved_png(ax, tmp_path / "own.png")
    with pytest.warns(cdens.ExtrapolationWarning):
        ax = cdens.plot.conditional_density_map(model, x, y, resolution=30,
                                                x_range=(float(x.min()), float(x.max())))
    saved_png(ax, tmp_path / "given.png")


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
    two_outputs = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(
        x, np.column_stack([y, y**2]))
    with pytest.raises(ValueError, match="one-dimensional y; the model has 2 outputs"):
        cdens.plot.conditional_density_map(two_outputs, x, y)
    two_inputs = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(
        np.column_stack([x, x**2]), y)
    with pytest.raises(ValueError, match=r"across: column 'z' is none of the model's inputs"):
        cdens.plot.conditional_density_map(two_inputs, np.column_stack([x, x**2]), y,
                                           across="z")
    with pytest.raises(ValueError, match=r"at: 'x0' is the input across the map"):
        cdens.plot.conditional_density_map(two_inputs, np.column_stack([x, x**2]), y,
                                           at={"x0": 1.0})


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


# -- what a new user's table asks of the plots (issue 53) ------------------------------------------


@pytest.fixture(scope="module")
def makers():
    """A frame of words and numbers, and KernelCDE fitted on it with the words declared."""
    import pandas

    rng = np.random.default_rng(53)
    n = 120
    maker = np.array(["Chrysler", "General Motors", "Westinghouse"], dtype=object)[
        rng.integers(0, 3, n)]
    income = rng.uniform(500.0, 3000.0, n)
    value = 0.002 * income + (maker == "Chrysler") + 0.3 * rng.normal(size=n)
    frame = pandas.DataFrame({"maker": maker, "income": income})
    model = cdens.KernelCDE(discrete=["maker"], random_state=0).fit(frame, value)
    return frame, value, model


def test_density_curves_take_labels_and_show_values_readably(makers):
    import pandas

    _frame, value, model = makers
    rows = pandas.DataFrame({"maker": ["Chrysler", "Westinghouse"], "income": [1e3, 2500.5]})
    grid = np.linspace(value.min(), value.max(), 50)
    ax = cdens.plot.density_curves(model, rows, grid)
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "maker = Chrysler, income = 1000", "maker = Westinghouse, income = 2500.5"]
    np.testing.assert_allclose(ax.get_lines()[1].get_ydata(), model.pdf_grid(rows, grid)[1],
                               rtol=1e-12)
    # A list of rows with words, as the fit takes them.
    ax = cdens.plot.density_curves(model, [["General Motors", 0.1]], grid)
    assert ax.get_legend().get_texts()[0].get_text() == "maker = General Motors, income = 0.1"
    plt.close("all")


def test_a_map_of_several_inputs_is_a_slice_that_says_where(toy, makers):
    x, y = toy
    rng = np.random.default_rng(5)
    other = rng.uniform(1.0, 2.0, size=(x.shape[0], 1))
    X = np.column_stack([x, other])
    model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(X, y)
    ax = cdens.plot.conditional_density_map(model, X, y, resolution=30)
    median = float(np.median(other))
    assert ax.get_title() == f"at x1 = {median!r} (median)"
    assert ax.get_xlabel() == "x0"
    # The image is p(y | x0, x1 = median) over the grid.
    values = np.asarray(ax.collections[0].get_array()).reshape(30, 30)
    x_grid = np.linspace(*ax.get_xlim(), 30)
    y_grid = np.linspace(*ax.get_ylim(), 30)
    expected = model.pdf_grid(np.column_stack([x_grid, np.full(30, median)]), y_grid)
    np.testing.assert_allclose(values, expected.T, rtol=1e-10)
    ax = cdens.plot.conditional_density_map(model, X, y, across=1, at={0: 1e3}, resolution=20)
    assert ax.get_title() == "at x0 = 1000 (given)" and ax.get_xlabel() == "x1"
    # A labelled input is held at its most frequent label, named as a label.
    frame, value, labelled = makers
    ax = cdens.plot.conditional_density_map(labelled, frame, value, across="income",
                                            resolution=20)
    most = frame["maker"].value_counts().sort_index().idxmax()
    assert ax.get_title() == f"at maker = {most} (most frequent)"
    with pytest.raises(ValueError, match="input 'maker' holds labels"):
        cdens.plot.conditional_density_map(labelled, frame, value, across="maker")
    plt.close("all")


@pytest.fixture(scope="module")
def evaluation(faithful, fitted):
    from cdens import metrics

    x, y = faithful
    return metrics.evaluate(fitted, x, y, interval_levels=[0.5, 0.9])


def test_calibration_legends_cover_no_bar_and_both_coverage_curves_show(evaluation):
    figure = cdens.plot.calibration(evaluation)
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    for ax in figure.axes:
        legend = ax.get_legend()
        # Under the axes, below everything drawn in them.
        assert legend.get_window_extent(renderer).y1 <= ax.get_window_extent(renderer).y0
    coverage = figure.axes[-1]
    lines = {line.get_label(): line for line in coverage.get_lines()}
    central, region = lines["central interval"], lines["highest-density region"]
    # Where the two coincide, the region's dashes lie on the wider solid central line.
    assert central.get_linestyle() == "-" and region.get_linestyle() == "--"
    assert central.get_linewidth() > 2 * region.get_linewidth()
    assert region.get_zorder() > central.get_zorder()
    plt.close(figure)


def test_cv_surface_resolves_the_good_region_beside_a_far_corner():
    from types import SimpleNamespace

    from matplotlib.colors import LogNorm

    sigmas, lambdas = np.meshgrid([0.01, 0.1, 0.3, 1.0], [0.001, 0.01, 0.1])
    scores = -1.0 - 0.05 * np.arange(12.0)
    scores[0] = -250.0  # sigma = 0.01 with the smallest lambda: far below the rest
    results = {"param_sigma": sigmas.ravel(), "param_regularization": lambdas.ravel(),
               "mean_test_score": scores, "rank_test_score": np.argsort(np.argsort(-scores)) + 1,
               "loss": "kl"}
    ax = cdens.plot.cv_surface(SimpleNamespace(cv_results_=results))
    mesh = ax.collections[0]
    norm = mesh.norm
    assert isinstance(norm, LogNorm)
    shortfall = scores.max() - scores
    assert norm.vmin == pytest.approx(0.05) and norm.vmax == pytest.approx(248.95)
    # The good candidates (within half a unit of the best) span most of the colour scale, not one
    # shade of it: the far corner no longer spends the colours.
    good = np.sort(shortfall[(shortfall > 0) & (shortfall < 0.6)])
    assert norm(good[-1]) - norm(good[0]) > 0.25
    assert "best mean held-out log-likelihood minus the candidate's" in \
        ax.figure.axes[-1].get_ylabel()
    plt.close("all")


def test_comparison_says_which_model_wins_which_share():
    report = {"models": ["lscde.json", "kcde.json"], "scores": ["log_likelihood"], "n": 100,
              "differences": [{"score": "log_likelihood", "first": 0, "second": 1, "mean": 0.1,
                               "standard_error": 0.02, "first_wins": 0.09, "second_wins": 0.91}]}
    figure = cdens.plot.comparison(report)
    labels = [label.get_text() for label in figure.axes[0].get_yticklabels()]
    assert labels == ["kcde.json over lscde.json\npairs won: kcde.json 91%, lscde.json 9%"]
    plt.close(figure)
