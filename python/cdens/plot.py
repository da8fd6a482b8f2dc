"""Figures of fitted conditional and unconditional densities (matplotlib).

Every function draws on the given Axes (or a new figure's) and returns the Axes, so figures can
be composed and saved with ``ax.figure.savefig(path)``; ``calibration`` and ``comparison`` draw
whole figures of the reports of cdens.metrics (and of ``cdens evaluate|compare --json``) and
return the Figure. ``python -m cdens.plot evaluation|comparison REPORT.json OUT.png`` draws a
report file; ``cdens evaluate --plot`` and ``cdens compare --plot`` call it.
"""

import os
import sys
import warnings

import numpy as np

from ._labels import column_position, columns_of, is_missing, is_number, label_text
from ._validation import as_samples, refuse_ragged


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _figure, new_ax = plt.subplots(figsize=(6.0, 4.5), layout="constrained")
    return new_ax


def _padded_range(values, padding=0.1):
    low, high = float(np.min(values)), float(np.max(values))
    span = high - low if high > low else 1.0
    return low - padding * span, high + padding * span


def _density_on_own_grid(estimator, inputs, y_grid, own_range):
    """pdf_grid over a map's grid. A grid the plot chose itself (the data's range, padded) is no
    query of the user's, so the ExtrapolationWarning its padding may raise (beyond the training
    range by more than a tenth, or data wider than the rows the model was fitted on) is not
    shown; a range the user gave keeps it."""
    from ._conditional import ExtrapolationWarning

    with warnings.catch_warnings():
        if own_range:
            warnings.simplefilter("ignore", ExtrapolationWarning)
        return estimator.pdf_grid(inputs, y_grid)


def _inputs_of(estimator, rows):
    """The plot's own input rows (n, d_x) as the estimator was fitted: a frame with its feature
    names when it has them (a model fitted on named columns, as every model of the command),
    so that scikit-learn's check of the names is met rather than warned about."""
    names = getattr(estimator, "feature_names_in_", None)
    try:
        import pandas
    except ImportError:  # the package does not need pandas: then the arrays, and the warning
        return rows
    return rows if names is None else pandas.DataFrame(rows, columns=list(names))


def _require_scalar_pair(estimator):
    if estimator.n_features_in_ != 1 or estimator.n_outputs_ != 1:
        raise ValueError("this plot needs one-dimensional x and y; the model has "
                         f"{estimator.n_features_in_} inputs and {estimator.n_outputs_} outputs")


def _query_rows(estimator, values, name):
    """Rows of inputs given to a plot (a frame, an array or a list, labels and all; a 1-D list
    for a model of one input) as the estimator's queries take them, and the rows as given, for
    the legend."""
    if hasattr(values, "iloc"):
        frame = values.to_frame() if values.ndim == 1 else values
        return frame, [tuple(row) for row in frame.itertuples(index=False)]
    refuse_ragged(values, name)
    array = np.asarray(values, dtype=object)
    if array.ndim == 1 and estimator.n_features_in_ == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise ValueError(f"{name} must be rows of inputs, shape (n, {estimator.n_features_in_})")
    rows = [tuple(row) for row in array]
    if all(is_number(value) for value in array.flat):
        array = array.astype(np.float64)
    return _inputs_of(estimator, array), rows


def _held_value(column, kind, labelled):
    """The value at which a plot holds an input it does not vary, and how it was chosen: the
    most frequent value of a discrete or labelled column (the first of ties in sorted order),
    the median of a continuous one."""
    present = [value for value in column if not is_missing(value)]
    if not present:
        raise ValueError("an input of X has no value to hold the plot at")
    if labelled or kind != "continuous":
        values, counts = np.unique(np.asarray(present, dtype=object if labelled else float),
                                   return_counts=True)
        return values[int(np.argmax(counts))], "most frequent"
    return float(np.median(np.asarray(present, dtype=np.float64))), "median"


def _column_position(spec, names, parameter):
    position = column_position(spec, names, parameter, among="the model's inputs")
    if not 0 <= position < len(names):
        raise ValueError(f"{parameter}: an input is a name or an index from 0 to "
                         f"{len(names) - 1}, got {spec!r}")
    return position


def conditional_density_map(estimator, X, Y, *, across=None, at=None, resolution=200,
                            x_range=None, y_range=None, ax=None, cmap="viridis"):
    """Heat map of p(y|x) over the (x, y) plane with the data on top (one-dimensional y).

    Each column of the image is the conditional density at one x, so the map shows how the
    whole distribution of y moves with x. Ranges default to the data's, padded by 10%. A model
    of several inputs is sliced: the horizontal axis is the input `across` (a name or an index,
    by default the first), and every other input is held at the value `at` gives for it ({name
    or index: value}, labels as labels), by default its median in X (its most frequent value
    for a discrete or labelled input); the title says where the slice lies. X may hold labels,
    as the fit did; the data drawn are every row of X, whatever its other inputs.
    """
    if estimator.n_outputs_ != 1:
        raise ValueError("this plot needs a one-dimensional y; the model has "
                         f"{estimator.n_outputs_} outputs")
    names = list(estimator.model_.x_names)
    position = _column_position(0 if across is None else across, names, "across")
    labels = estimator.model_.labels
    if names[position] in labels:
        raise ValueError(f"input {names[position]!r} holds labels: the map needs a numeric input "
                         "across (across=), or draw density_curves at each label")
    if estimator.model_.y_names[0] in labels:
        raise ValueError(f"y ({estimator.model_.y_names[0]!r}) holds labels: the map needs a "
                         "numeric y; draw density_curves instead")
    if not hasattr(X, "iloc") and np.ndim(X) == 1 and len(names) == 1:
        X = np.asarray(X, dtype=object).reshape(-1, 1)
    columns = [column for column, _, _ in columns_of(X, "X")]
    if len(columns) != len(names):
        raise ValueError(f"X has {len(columns)} columns but the model was fitted on "
                         f"{len(names)} inputs")
    x = as_samples(np.asarray(columns[position], dtype=object).reshape(-1, 1), "X",
                   names=[names[position]])[:, 0]
    y = as_samples(Y, "Y", allow_1d=True)[:, 0]
    given = {_column_position(spec, names, "at"): value for spec, value in (at or {}).items()}
    if position in given:
        raise ValueError(f"at: {names[position]!r} is the input across the map, not one held")
    kinds = estimator.model_.input_kinds
    held = []
    for d in range(len(names)):
        if d == position:
            continue
        if d in given:
            held.append((d, given[d], "given"))
        else:
            held.append((d, *_held_value(columns[d], kinds[d], names[d] in labels)))
    x_low, x_high = x_range or _padded_range(x)
    y_low, y_high = y_range or _padded_range(y)
    x_grid = np.linspace(x_low, x_high, resolution)
    y_grid = np.linspace(y_low, y_high, resolution)
    grid_rows = np.empty((resolution, len(names)), dtype=object)
    grid_rows[:, position] = x_grid
    for d, value, _how in held:
        grid_rows[:, d] = value
    if not any(names[d] in labels for d, _, _ in held):
        grid_rows = grid_rows.astype(np.float64)
    density = _density_on_own_grid(estimator, _inputs_of(estimator, grid_rows), y_grid,
                                   x_range is None)  # (x, y)
    ax = _axes(ax)
    image = ax.pcolormesh(x_grid, y_grid, density.T, shading="auto", cmap=cmap)
    ax.scatter(x, y, s=8, c="white", edgecolors="black", linewidths=0.4,
               label="data (every row)" if held else "data")
    ax.figure.colorbar(image, ax=ax, label="p(y | x)")
    ax.set_xlabel(names[position])
    ax.set_ylabel(estimator.model_.y_names[0])
    ax.set_xlim(x_low, x_high)
    ax.set_ylim(y_low, y_high)
    if held:
        ax.set_title("at " + ", ".join(f"{names[d]} = {label_text(value)} ({how})"
                                       for d, value, how in held), fontsize="medium")
    return ax


def projected_density_map(estimator, X, Y, *, resolution=200, z_range=None, y_range=None,
                          ax=None, cmap="viridis"):
    """Heat map of p(y | x) along the first direction of a fitted LSCE or LSMI model, with the
    data projected on that direction (one-dimensional y).

    The horizontal axis is z_1 = (W x)_1 for the standardised x; the density at z_1 is that of
    the input x = inverse_transform((z_1, 0, ..., 0)), i.e. the other projected coordinates at 0,
    their training mean. With n_components_ = 1 the map is the whole fitted p(y | x).
    """
    if not hasattr(estimator, "components_"):
        raise ValueError("this plot needs a model with a projection (LSCE or LSMI)")
    if estimator.n_outputs_ != 1:
        raise ValueError("this plot needs a one-dimensional y")
    z = estimator.transform(X)[:, 0]
    y = as_samples(Y, "Y", allow_1d=True)[:, 0]
    z_low, z_high = z_range or _padded_range(z)
    y_low, y_high = y_range or _padded_range(y)
    z_grid = np.linspace(z_low, z_high, resolution)
    y_grid = np.linspace(y_low, y_high, resolution)
    points = np.zeros((resolution, estimator.n_components_))
    points[:, 0] = z_grid
    inputs = _inputs_of(estimator, estimator.inverse_transform(points))
    density = _density_on_own_grid(estimator, inputs, y_grid, z_range is None)
    ax = _axes(ax)
    image = ax.pcolormesh(z_grid, y_grid, density.T, shading="auto", cmap=cmap)
    ax.scatter(z, y, s=8, c="white", edgecolors="black", linewidths=0.4, label="data")
    ax.figure.colorbar(image, ax=ax, label="p(y | x)")
    names = estimator.model_.x_names
    weights = estimator.components_[0]
    largest = np.argsort(-np.abs(weights))[:3]
    ax.set_xlabel("z1 = " + " ".join(f"{weights[k]:+.2f} {names[k]}" for k in largest)
                  + (" ..." if weights.size > 3 else "") + " (standardised)")
    ax.set_ylabel(estimator.model_.y_names[0])
    ax.set_xlim(z_low, z_high)
    ax.set_ylim(y_low, y_high)
    return ax


def density_curves(estimator, x_values, y_grid, *, ax=None):
    """Curves of p(y | x) over y_grid, one per row of x_values (one-dimensional y). x_values
    are inputs as the fit took them (a frame, an array or a list of rows, labels as labels; a
    1-D list for a model of one input); the legend shows each row's values as given."""
    if estimator.n_outputs_ != 1:
        raise ValueError("density curves need a one-dimensional y")
    inputs, rows = _query_rows(estimator, x_values, "x_values")
    grid = np.asarray(y_grid, dtype=np.float64)
    density = estimator.pdf_grid(inputs, grid)
    ax = _axes(ax)
    x_names = estimator.model_.x_names
    for row, curve in zip(rows, density):
        label = ", ".join(f"{name} = {label_text(value)}" for name, value in zip(x_names, row))
        ax.plot(grid, curve, label=label)
    ax.set_xlabel(estimator.model_.y_names[0])
    ax.set_ylabel("p(y | x)")
    ax.legend(fontsize="small")
    return ax


def _shortfall_norm(shortfall):
    """The colour scale of a CV surface: logarithmic in each candidate's shortfall from the best
    score, from the smallest positive shortfall to the largest, so that a far-off corner hundreds
    of units below the best does not spend the colours and the good region stays resolved (the
    best candidate, 0, takes the smallest's colour). Linear where nothing falls short."""
    from matplotlib.colors import LogNorm, Normalize

    positive = shortfall[np.isfinite(shortfall) & (shortfall > 0)]
    if positive.size == 0 or positive.min() == positive.max():
        return Normalize(vmin=0.0, vmax=float(positive.max()) if positive.size else 1.0)
    return LogNorm(vmin=float(positive.min()), vmax=float(positive.max()), clip=True)


def cv_surface(estimator, *, ax=None, cmap="magma"):
    """The cross-validation score over the (sigma, regularization) grid, chosen pair marked.

    Needs a fit that cross-validated two hyper-parameters over a full grid (LSCDE's default).
    The colour is each candidate's shortfall from the best mean score on a logarithmic scale
    (the best brightest): one candidate far below the rest, as a tiny sigma with a large
    regularization gives, would otherwise leave the good region a single shade.
    """
    results = getattr(estimator, "cv_results_", None)
    if results is None:
        raise ValueError("the estimator selected no hyper-parameter by cross-validation")
    names = [key[len("param_"):] for key in results if key.startswith("param_")]
    if len(names) != 2:
        raise ValueError(f"a CV surface needs two hyper-parameters, the fit has {names}")
    first, second = (np.asarray(results[f"param_{name}"]) for name in names)
    first_values, second_values = np.unique(first), np.unique(second)
    if first_values.size * second_values.size != first.size:
        raise ValueError("the CV candidates do not form a full grid")
    score = np.full((second_values.size, first_values.size), np.nan)
    mean_score = np.asarray(results["mean_test_score"])
    score[np.searchsorted(second_values, second), np.searchsorted(first_values, first)] = (
        np.where(np.isfinite(mean_score), mean_score, np.nan))
    ax = _axes(ax)
    import matplotlib

    shortfall = np.nanmax(score) - score
    colormap = matplotlib.colormaps[cmap].reversed()
    image = ax.pcolormesh(first_values, second_values, shortfall, shading="nearest",
                          cmap=colormap, norm=_shortfall_norm(shortfall))
    best = int(np.argmin(results["rank_test_score"]))
    ax.plot(first[best], second[best], marker="*", markersize=14, color="cyan",
            markeredgecolor="black", linestyle="none", label="chosen")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    label = "mean held-out log-likelihood" if results["loss"] == "kl" else "minus SQ loss"
    ax.figure.colorbar(image, ax=ax, label=f"best {label} minus the candidate's")
    ax.legend(loc="lower left", fontsize="small")
    return ax


def density_fit(estimator, X, *, truth=None, resolution=400, x_range=None, y_range=None,
                ax=None, cmap="viridis"):
    """A fitted density p(x) over its data, for one- or two-dimensional x.

    1-D: the density curve over a normalised histogram of X, the kernel centres marked on the
    axis (so a sparse fit shows where its kernels sit), and ``truth`` (a callable taking an
    (n, 1) array) dashed when given. 2-D: contours of p over a scatter of X, centres marked.
    Ranges default to the data's, padded by 10%.
    """
    data = as_samples(X, "X", allow_1d=estimator.n_features_in_ == 1)
    ax = _axes(ax)
    centres = estimator.means_
    if estimator.n_features_in_ == 1:
        low, high = x_range if x_range is not None else _padded_range(data[:, 0])
        grid = np.linspace(low, high, resolution).reshape(-1, 1)
        ax.hist(data[:, 0], bins="auto", density=True, color="0.85", label="data")
        ax.plot(grid[:, 0], estimator.pdf(grid), color="C0",
                label=f"{type(estimator).__name__} ({estimator.n_kernels_} kernels)")
        if truth is not None:
            ax.plot(grid[:, 0], truth(grid), color="C3", linestyle="--", label="true density")
        ax.plot(centres[:, 0], np.zeros(len(centres)), "|", color="C0", markersize=12)
        ax.set_xlabel(estimator.model_.names[0])
        ax.set_ylabel("p(x)")
    elif estimator.n_features_in_ == 2:
        x_low, x_high = x_range if x_range is not None else _padded_range(data[:, 0])
        y_low, y_high = y_range if y_range is not None else _padded_range(data[:, 1])
        u = np.linspace(x_low, x_high, resolution // 2)
        v = np.linspace(y_low, y_high, resolution // 2)
        points = np.array(np.meshgrid(u, v)).reshape(2, -1).T
        density = estimator.pdf(np.ascontiguousarray(points)).reshape(v.size, u.size)
        ax.contour(u, v, density, levels=12, cmap=cmap)
        ax.scatter(data[:, 0], data[:, 1], s=4, color="0.5", label="data")
        ax.plot(centres[:, 0], centres[:, 1], "+", color="C3", markersize=10,
                label=f"{estimator.n_kernels_} kernel centres")
        ax.set_xlabel(estimator.model_.names[0])
        ax.set_ylabel(estimator.model_.names[1])
    else:
        raise ValueError("this plot needs a one- or two-dimensional density; the model has "
                         f"{estimator.n_features_in_} dimensions")
    ax.legend(fontsize="small")
    return ax


def regularization_path(estimator, *, feature_names=None, ax=None):
    """||alpha_d|| of every feature against lambda (SA-CDE paper, Figure 4), the
    cross-validated lambda marked by a dashed vertical line.

    Needs a fitted SACDE or SALSCDE (``regularization_path_``).
    """
    path = getattr(estimator, "regularization_path_", None)
    if path is None:
        raise ValueError("the estimator has no regularization path (fit SACDE or SALSCDE)")
    lambdas = np.asarray(path["lambdas"])
    norms = np.asarray(path["group_norms"])
    if feature_names is None:
        feature_names = [f"x{d + 1}" for d in range(norms.shape[0])]
    if len(feature_names) != norms.shape[0]:
        raise ValueError(f"{len(feature_names)} feature names for {norms.shape[0]} features")
    ax = _axes(ax)
    for d, name in enumerate(feature_names):
        ax.plot(lambdas, norms[d], marker=".", label=name)
    ax.axvline(path["chosen_lambda"], color="black", linestyle="--", label="CV choice")
    ax.set_xscale("log")
    ax.set_xlabel("lambda")
    ax.set_ylabel("||alpha_d||")
    ax.legend(fontsize="small")
    return ax


def press_states_curve(estimator, X, Y, *, resolution=400, ax=None, cmap="tab10"):
    """PRESS fit of one-dimensional x (Goerg 2017, Figure 2): the data coloured by their most
    probable state, the prediction sum_j w_j(x) ybar_j as a curve, the state means ybar_j as
    dotted lines and a 90% equal-tailed band of p(y|x)."""
    _require_scalar_pair(estimator)
    x = as_samples(X, "X", allow_1d=True)[:, 0]
    y = as_samples(Y, "Y", allow_1d=True)[:, 0]
    grid = np.linspace(*_padded_range(x, 0.02), resolution).reshape(-1, 1)
    colors = _state_colors(estimator.n_states_, cmap)
    ax = _axes(ax)
    band = estimator.predict_interval(grid, 0.9)
    ax.fill_between(grid[:, 0], band[:, 0], band[:, 1], color="0.85", label="90% interval")
    state = np.argmax(estimator.predict_states(x.reshape(-1, 1)), axis=1)
    for j in range(estimator.n_states_):
        chosen = state == j
        ax.scatter(x[chosen], y[chosen], s=14, color=colors[j],
                   label=f"state {j + 1} (mean {estimator.state_means_[j]:.3g})")
        ax.axhline(estimator.state_means_[j], color=colors[j], linestyle=":", linewidth=0.8)
    ax.plot(grid[:, 0], estimator.predict(grid), color="black", linewidth=1.5,
            label=f"PRESS({estimator.n_states_}), nu = {estimator.degrees_of_freedom_:.2f}")
    ax.set_xlabel(estimator.model_.x_names[0])
    ax.set_ylabel(estimator.model_.y_names[0])
    ax.legend(fontsize="small")
    return ax


def press_simplex(estimator, X, *, groups=None, ax=None, cmap="tab10"):
    """State weights of a 3-state PRESS model on the probability simplex (Goerg 2017, Figure
    5): w_1 against w_3 for every row of X (w_2 = 1 - w_1 - w_3), coloured by `groups` (e.g.
    abalone's sex) when given, else by the most probable state."""
    if estimator.n_states_ != 3:
        raise ValueError(f"the simplex plot needs J = 3 states; the model has "
                         f"{estimator.n_states_}")
    weights = estimator.predict_states(X)
    ax = _axes(ax)
    ax.plot([0, 1, 0, 0], [0, 0, 1, 0], color="black", linewidth=0.8)
    if groups is None:
        groups = np.array([f"state {j + 1}" for j in np.argmax(weights, axis=1)])
    groups = np.asarray(groups)
    names = list(dict.fromkeys(groups.tolist()))
    colors = _state_colors(len(names), cmap)
    for color, name in zip(colors, names):
        chosen = groups == name
        ax.scatter(weights[chosen, 0], weights[chosen, 2], s=6, alpha=0.6, color=color,
                   label=str(name))
    ax.set_xlabel("w_1 (lowest mean)")
    ax.set_ylabel("w_3 (highest mean)")
    ax.set_aspect("equal")
    ax.set_title(f"nu = {estimator.degrees_of_freedom_:.2f}")
    ax.legend(fontsize="small", markerscale=2)
    return ax


def _state_colors(count, cmap):
    import matplotlib

    colormap = matplotlib.colormaps[cmap]
    return [colormap(k % colormap.N) for k in range(count)]


# -- reports of cdens.metrics -----------------------------------------------------------------

_CHECK_TITLES = {"pit": "PIT values", "hpd": "HPD values"}


def _randomized(evaluation, check):
    """Whether the report's values of `check` are randomised (a discrete y)."""
    return bool(evaluation["calibration"][check].get("randomized", False))


def calibration_histogram(evaluation, check="pit", *, ax=None):
    """Histogram of the PIT (``check="pit"``) or HPD values of an evaluation report, with the
    band in which a calibrated model's count falls with 95 % probability in each bin (for a
    discrete y the randomised values, uniform for a calibrated model as well)."""
    checks = evaluation["calibration"]
    if check not in checks:
        raise ValueError(f"the evaluation has no {check} values (it has {sorted(checks)})")
    histogram = checks[check]["histogram"]
    edges = np.asarray(histogram["edges"], dtype=float)
    counts = np.asarray(histogram["counts"], dtype=float)
    ax = _axes(ax)
    ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="C0", alpha=0.75,
           edgecolor="white", label="pairs")
    # The band behind the bars and its edges in front, so that a bar leaving it shows.
    ax.axhspan(histogram["band_lower"], histogram["band_upper"], color="C1", alpha=0.15,
               zorder=0, label="95% band if calibrated")
    for bound in (histogram["band_lower"], histogram["band_upper"]):
        ax.axhline(bound, color="C1", linewidth=0.9, zorder=3)
    ax.axhline(counts.sum() / counts.size, color="C1", linestyle="--", linewidth=0.9, zorder=3)
    ax.set_xlim(0.0, 1.0)
    name = ("randomised " if _randomized(evaluation, check) else "") + _CHECK_TITLES[check]
    ax.set_xlabel(name.rstrip("s").lower())
    ax.set_ylabel("pairs per bin")
    ax.set_title(f"{name}: KS D = {checks[check]['statistic']:.3f}, "
                 f"p = {checks[check]['p_value']:.3g}", fontsize="medium")
    _legend_below(ax)
    return ax


def _legend_below(ax, columns=2):
    """The legend under the axes (below the x label), where it covers no bar or curve."""
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=columns,
              frameon=False)


def _level_sets(evaluation, prefix):
    """(mean probability, mean coverage, its standard error) of the sets of levels of a discrete
    y named prefix_mass_* and prefix_coverage_*, one per interval level; None without them."""
    scores = {score["name"]: score for score in evaluation["scores"]}
    masses = [name for name in scores if name.startswith(f"{prefix}_mass_")]
    if not masses:
        return None
    coverages = [scores[name.replace("_mass_", "_coverage_")] for name in masses]
    return (np.array([scores[name]["mean"] for name in masses]),
            np.array([c["mean"] for c in coverages]),
            np.array([c["standard_error"] for c in coverages]))


def coverage_curve(evaluation, *, ax=None):
    """Observed share of pairs inside the central and highest-density intervals against the
    nominal level, over the binomial 95 % band of a calibrated model. For a discrete y the
    curves are those of the randomised PIT and HPD values, and the sets of levels scored
    (``--levels``) are added as points: the share of pairs inside each set against the set's
    mean probability, which a calibrated model's sets match (95 % intervals)."""
    coverage = evaluation["coverage"]
    levels = np.asarray(coverage["levels"], dtype=float)
    randomized = any(_randomized(evaluation, check) for check in evaluation["calibration"])
    ax = _axes(ax)
    ax.fill_between(levels, coverage["band_lower"], coverage["band_upper"], color="C1",
                    alpha=0.25, label="95% band if calibrated")
    ax.plot([0, 1], [0, 1], color="0.5", linestyle="--", linewidth=0.8)
    drew_sets = False
    # Where the two coincide (a symmetric unimodal p(y|x)) the central curve stays visible: wide
    # and solid under the region's narrow dashed one.
    for key, marker, label, sets_label, color, style in (
            ("central", "o", "central interval", "central sets", "C0",
             {"linestyle": "-", "linewidth": 3.0, "markersize": 5, "zorder": 2}),
            ("hpd", "s", "highest-density region", "most probable sets", "C1",
             {"linestyle": "--", "linewidth": 1.3, "markersize": 3, "zorder": 3})):
        if key not in coverage:
            continue
        ax.plot(levels, coverage[key], marker=marker, color=color, **style,
                label=f"{label} (randomised)" if randomized else label)
        sets = _level_sets(evaluation, key)
        if sets is not None:
            drew_sets = True
            mass, share, error = sets
            ax.errorbar(mass, share, yerr=1.96 * error, fmt=marker, markersize=7, capsize=3,
                        color=color, markerfacecolor="none", label=sets_label)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("nominal level (sets of levels: their mean probability)" if drew_sets
                  else "nominal level")
    ax.set_ylabel("observed coverage")
    ax.set_title(f"coverage on {int(evaluation['n'])} pairs", fontsize="medium")
    _legend_below(ax, columns=1 if drew_sets or randomized else 2)
    return ax


def calibration(evaluation, *, title=None):
    """The calibration figure of an evaluation report (cdens.metrics.evaluate): the histogram of
    each of its PIT and HPD values and the coverage curve, side by side. Returns the Figure."""
    import matplotlib.pyplot as plt

    checks = [check for check in ("pit", "hpd") if check in evaluation["calibration"]]
    if "coverage" not in evaluation:
        raise ValueError("the evaluation has no calibration to draw: it was computed without the "
                         "central and hpd scores")
    figure, axes = plt.subplots(1, len(checks) + 1, figsize=(4.4 * (len(checks) + 1), 4.8),
                                layout="constrained")
    for ax, check in zip(axes, checks):
        calibration_histogram(evaluation, check, ax=ax)
    coverage_curve(evaluation, ax=axes[-1])
    if title:
        figure.suptitle(title)
    return figure


def comparison(report, *, title=None):
    """The comparison figure of a report of cdens.metrics.compare: one panel per score, each
    pair of models as the mean improvement of the second over the first (the first's loss minus
    the second's; for the log-likelihood the second's minus the first's) with its 95 % paired
    interval and the shares of pairs each wins. Right of zero the second model is better.
    Returns the Figure."""
    import matplotlib.pyplot as plt

    models = list(report["models"])
    scores = list(report["scores"])
    columns = min(3, len(scores))
    rows = -(-len(scores) // columns)
    pairs = len(report["differences"]) // max(1, len(scores))
    figure, axes = plt.subplots(rows, columns, figsize=(4.8 * columns, (1.0 + 0.55 * pairs) * rows
                                                        + 0.6),
                                layout="constrained", squeeze=False)
    for ax, score in zip(axes.flat, scores):
        differences = [d for d in report["differences"] if d["score"] == score]
        positions = np.arange(len(differences))[::-1]
        gains = np.array([d["mean"] for d in differences])
        errors = 1.96 * np.array([d["standard_error"] for d in differences])
        ax.errorbar(gains, positions, xerr=errors, fmt="o", color="C0", capsize=4)
        ax.axvline(0.0, color="0.5", linestyle="--", linewidth=0.8)
        labels = []
        for d in differences:
            first, second = models[int(d["first"])], models[int(d["second"])]
            labels.append(f"{second} over {first}\npairs won: {second} {d['second_wins']:.0%}, "
                          f"{first} {d['first_wins']:.0%}")
        ax.set_yticks(positions, labels, fontsize="small")
        ax.set_ylim(-0.6, len(differences) - 0.4)
        ax.set_title(score, fontsize="medium")
        ax.locator_params(axis="x", nbins=5)
        ax.set_xlabel("improvement (> 0: the second is better)", fontsize="small")
    for ax in list(axes.flat)[len(scores):]:
        ax.set_visible(False)
    figure.suptitle(title or f"paired differences on {int(report['n'])} pairs, 95% intervals")
    return figure


def _save_atomically(figure, path):
    """Saves the figure through a temporary file in the target's directory and a rename, as the
    command writes every file."""
    directory = os.path.dirname(os.path.abspath(path))
    extension = os.path.splitext(path)[1].lstrip(".") or "png"
    temporary = os.path.join(directory, f".{os.path.basename(path)}.{os.getpid()}.tmp")
    try:
        figure.savefig(temporary, format=extension, dpi=120)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def main(arguments=None):
    """python -m cdens.plot evaluation|comparison REPORT.json OUT.png"""
    import json

    import matplotlib

    arguments = sys.argv[1:] if arguments is None else arguments
    try:
        if len(arguments) != 3 or arguments[0] not in ("evaluation", "comparison"):
            raise ValueError("usage: python -m cdens.plot evaluation|comparison REPORT.json "
                             "OUT.png")
        kind, report_path, out_path = arguments
        with open(report_path, encoding="utf-8") as file:
            report = json.load(file)
        matplotlib.use("Agg")
        draw = calibration if kind == "evaluation" else comparison
        title = report.get("model") if kind == "evaluation" else None
        _save_atomically(draw(report, title=title), out_path)
    except (OSError, ValueError, KeyError) as error:
        print(f"cdens.plot: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
