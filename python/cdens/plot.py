"""Figures of fitted conditional densities (matplotlib).

Every function draws on the given Axes (or a new figure's) and returns the Axes, so figures can
be composed and saved with ``ax.figure.savefig(path)``.
"""

import numpy as np

from ._validation import as_samples


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


def _require_scalar_pair(estimator):
    if estimator.n_features_in_ != 1 or estimator.n_outputs_ != 1:
        raise ValueError("this plot needs one-dimensional x and y; the model has "
                         f"{estimator.n_features_in_} inputs and {estimator.n_outputs_} outputs")


def conditional_density_map(estimator, X, Y, *, resolution=200, x_range=None, y_range=None,
                            ax=None, cmap="viridis"):
    """Heat map of p(y|x) over the (x, y) plane with the data on top (one-dimensional x and y).

    Each column of the image is the conditional density at one x, so the map shows how the
    whole distribution of y moves with x. Ranges default to the data's, padded by 10%.
    """
    _require_scalar_pair(estimator)
    x = as_samples(X, "X", allow_1d=True)[:, 0]
    y = as_samples(Y, "Y", allow_1d=True)[:, 0]
    x_low, x_high = x_range or _padded_range(x)
    y_low, y_high = y_range or _padded_range(y)
    x_grid = np.linspace(x_low, x_high, resolution)
    y_grid = np.linspace(y_low, y_high, resolution)
    density = estimator.pdf_grid(x_grid.reshape(-1, 1), y_grid)  # (x, y)
    ax = _axes(ax)
    image = ax.pcolormesh(x_grid, y_grid, density.T, shading="auto", cmap=cmap)
    ax.scatter(x, y, s=8, c="white", edgecolors="black", linewidths=0.4, label="data")
    ax.figure.colorbar(image, ax=ax, label="p(y | x)")
    ax.set_xlabel(estimator.model_.x_names[0])
    ax.set_ylabel(estimator.model_.y_names[0])
    ax.set_xlim(x_low, x_high)
    ax.set_ylim(y_low, y_high)
    return ax


def density_curves(estimator, x_values, y_grid, *, ax=None):
    """Curves of p(y | x) over y_grid, one per row of x_values (one-dimensional y)."""
    if estimator.n_outputs_ != 1:
        raise ValueError("density curves need a one-dimensional y")
    inputs = as_samples(x_values, "x_values", allow_1d=estimator.n_features_in_ == 1)
    grid = np.asarray(y_grid, dtype=np.float64)
    density = estimator.pdf_grid(inputs, grid)
    ax = _axes(ax)
    x_names = estimator.model_.x_names
    for row, curve in zip(inputs, density):
        label = ", ".join(f"{name} = {value:.3g}" for name, value in zip(x_names, row))
        ax.plot(grid, curve, label=label)
    ax.set_xlabel(estimator.model_.y_names[0])
    ax.set_ylabel("p(y | x)")
    ax.legend(fontsize="small")
    return ax


def cv_surface(estimator, *, ax=None, cmap="magma"):
    """The cross-validation score over the (sigma, regularization) grid, chosen pair marked.

    Needs a fit that cross-validated two hyper-parameters over a full grid (LSCDE's default).
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
    image = ax.pcolormesh(first_values, second_values, score, shading="nearest", cmap=cmap)
    best = int(np.argmin(results["rank_test_score"]))
    ax.plot(first[best], second[best], marker="*", markersize=14, color="cyan",
            markeredgecolor="black", linestyle="none", label="chosen")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    label = "mean held-out log-likelihood" if results["loss"] == "kl" else "minus SQ loss"
    ax.figure.colorbar(image, ax=ax, label=label)
    ax.legend(loc="lower left", fontsize="small")
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
