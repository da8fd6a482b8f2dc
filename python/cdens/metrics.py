"""Judging fitted densities on held-out data: proper scores, calibration, and comparing models.

Every function takes a fitted estimator of cdens or the path of a model file (``cdens fit --out``,
``estimator.save``). Conditional models p(y|x) are scored on pairs (X, Y); density models p(x)
on points X alone (Y=None), as the conditional mixture of x given nothing, so each score below
that needs a one-dimensional y applies to a one-dimensional density. The numbers come from the
same engine as ``cdens evaluate`` and ``cdens compare``, so both agree to the last digit.

Per-pair scores (lower is better except the log-likelihood):

* ``log_likelihood`` -- log p(y_i|x_i);
* ``crps`` -- the continuous ranked probability score, closed form of the Gaussian mixture
  (Gneiting & Raftery 2007; Grimit et al. 2006), one-dimensional y;
* ``pinball_loss`` -- quantile losses at given levels, one-dimensional y;
* ``cde_loss`` -- int p(y|x_i)^2 dy - 2 p(y_i|x_i) (Izbicki & Lee 2017), any d_y;
* ``energy_score`` -- E||X - y|| - E||X - X'||/2 from draws, with its Monte-Carlo error, any
  continuous d_y.

A discrete y (KernelCDE with the output in ``discrete=`` or ``ordered=``) is a probability mass
function over its levels: ``log_likelihood`` is then log P(y_i|x_i), and its scores are

* ``rps`` -- the ranked probability score sum_k (F(l_k|x_i) - 1{y_i <= l_k})^2 over the levels
  (an ordered y; the CRPS of the mass function where the levels are consecutive integers);
* ``brier_score`` -- sum_l (p(l|x_i) - 1{y_i = l})^2 over the levels (any discrete y).

Calibration: ``pit`` (one-dimensional y) and ``hpd_values`` (any d_y) are uniform for a
calibrated model (for a discrete y randomised over the probability of y's own level, with
``random_state``); ``uniformity_test`` is the Kolmogorov-Smirnov test of that. ``evaluate``
gathers everything, ``compare`` compares models on the same data (paired standard errors,
shares of pairs won); ``cdens.plot.calibration`` and ``cdens.plot.comparison`` draw them. Both
leave out, with a warning naming the rows, every pair with a score that is not finite (a y far
beyond the model's reach has log-likelihood -inf), rather than average it into a NaN; the
report's ``excluded`` lists them and ``pairs`` the rows scored.

``crps_scorer`` and ``pinball_scorer(levels)`` are scikit-learn scorers (greater is better) for
``GridSearchCV(scoring=...)``.
"""

import json
import os
import warnings

import numpy as np
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._conditional import rows_kept
from ._density import DensityEstimator
from ._files import load
from ._labels import missing_refusal
from ._validation import as_probabilities, seed_of, verbosity_of

DEFAULT_PINBALL_LEVELS = (0.1, 0.5, 0.9)
DEFAULT_INTERVAL_LEVELS = (0.5, 0.9)


def _fitted(model):
    """The fitted estimator of `model`, loading it if it is a path."""
    if isinstance(model, (str, os.PathLike)):
        model = load(model)
    check_is_fitted(model, "model_")
    return model


def _engine_arguments(model, X, Y):
    """(engine model, X, Y) as the engine reads them: a conditional model's pairs, or a density
    model's points with Y = None."""
    estimator = _fitted(model)
    if isinstance(estimator, DensityEstimator):
        if Y is not None:
            raise ValueError("a density model p(x) is scored on X alone; leave Y out")
        return estimator.model_, estimator._points(X), None
    if Y is None:
        raise ValueError("a conditional model p(y|x) is scored on pairs: give Y")
    X_samples, Y_samples = estimator._pairs(X, Y)
    return estimator.model_, X_samples, Y_samples


def log_likelihood(model, X, Y=None):
    """log p(y_i|x_i) (or log p(x_i)) per pair, shape (n,)."""
    engine, X_samples, Y_samples = _engine_arguments(model, X, Y)
    if Y_samples is None:
        return engine.log_pdf(X_samples)
    return engine.log_pdf(X_samples, Y_samples)


def crps(model, X, Y=None):
    """CRPS per pair in the units of y, shape (n,): closed form of the mixture, 1-D y."""
    return _core.crps(*_engine_arguments(model, X, Y))


def rps(model, X, Y):
    """Ranked probability score per pair, shape (n,): sum_k (F(l_k|x_i) - 1{y_i <= l_k})^2 over
    the levels l_1 < ... < l_c of an ordered discrete y."""
    return _core.ranked_probability_scores(*_engine_arguments(model, X, Y))


def brier_score(model, X, Y):
    """Brier score per pair, shape (n,): sum_l (p(l|x_i) - 1{y_i = l})^2 over the levels of a
    discrete y (their combinations for several discrete outputs)."""
    return _core.brier_scores(*_engine_arguments(model, X, Y))


def pinball_loss(model, X, Y=None, levels=DEFAULT_PINBALL_LEVELS):
    """Pinball losses rho_tau(y_i - q_tau(x_i)) of the model's quantiles, shape (n, len(levels))
    (1-D y)."""
    return _core.pinball_losses(*_engine_arguments(model, X, Y), as_probabilities(levels, "levels"))


def cde_loss(model, X, Y=None):
    """int p(y|x_i)^2 dy - 2 p(y_i|x_i) per pair, shape (n,); its mean estimates the integrated
    squared error of p up to a constant (Izbicki & Lee 2017)."""
    return _core.cde_losses(*_engine_arguments(model, X, Y))


def energy_score(model, X, Y=None, n_draws=1000, random_state=0):
    """Energy scores from n_draws draws per pair (paired into n_draws/2 independent couples) and
    their Monte-Carlo standard errors: two arrays of shape (n,)."""
    return _core.energy_scores(*_engine_arguments(model, X, Y), int(n_draws),
                               seed_of(random_state))


def pit(model, X, Y=None, random_state=0):
    """PIT values F(y_i|x_i), shape (n,) (1-D y): uniform for a calibrated model. For an ordered
    discrete y, and for a y at the atom of a model with one (``model.atom_``), the randomised PIT
    P(Y < y_i|x_i) + V_i P(Y = y_i|x_i), V_i ~ U(0, 1) drawn from random_state."""
    return _core.pit(*_engine_arguments(model, X, Y), seed_of(random_state))


def hpd_values(model, X, Y=None, n_draws=1000, random_state=0):
    """HPD values P(p(Y|x_i) >= p(y_i|x_i)), shape (n,): exact for 1-D y (for a discrete y the
    probability of the levels more probable than y_i plus V_i P(Y = y_i|x_i), V_i ~ U(0, 1); at
    an atom, which ranks first, V_i P(Y = y_i|x_i)), a randomised rank among n_draws draws
    otherwise; uniform for a calibrated model."""
    return _core.highest_density_values(*_engine_arguments(model, X, Y), int(n_draws),
                                        seed_of(random_state))


def uniformity_test(values):
    """Kolmogorov-Smirnov test of values in [0, 1] against the uniform law: (D, p-value)."""
    column = np.ascontiguousarray(np.asarray(values, dtype=np.float64).reshape(-1, 1))
    return _core.uniformity_test(column)


def _as_arrays(document):
    """The JSON report with its lists of numbers (and of rows of numbers) as numpy arrays."""
    if isinstance(document, dict):
        return {key: _as_arrays(value) for key, value in document.items()}
    if isinstance(document, list):
        if document and all(isinstance(item, int) for item in document):
            return np.asarray(document, dtype=np.int64)  # row indices
        if all(isinstance(item, (int, float, list)) for item in document):
            return np.asarray(document, dtype=np.float64)
        return [_as_arrays(item) for item in document]
    return document


SCORE_NAMES = tuple(_core.evaluation_score_names())


def _score_names(scores):
    """None (every score that applies) or a list of score names."""
    if scores is None:
        return []
    if isinstance(scores, str):
        scores = [scores]
    names = list(scores)
    if not names or not all(isinstance(name, str) for name in names):
        raise ValueError(f"scores must be a non-empty list of names of {', '.join(SCORE_NAMES)}, "
                         f"got {scores!r}")
    return names


def _evaluation(model, X, Y, pinball_levels, interval_levels, bins, n_draws, random_state,
                scores, label, verbose, stage):
    """The engine's evaluation; `label` starts its warning, `stage` its progress lines."""
    report = _core.evaluate(*_engine_arguments(model, X, Y),
                            as_probabilities(pinball_levels, "pinball_levels"),
                            as_probabilities(interval_levels, "interval_levels"), int(bins),
                            int(n_draws), seed_of(random_state), _score_names(scores),
                            verbose=verbosity_of(verbose), label=stage)
    excluded = json.loads(report.to_json())["excluded"]
    if excluded:
        shown = ", ".join(f"{pair['pair']} ({pair['score']} {pair['value']})"
                          for pair in excluded[:5])
        more = f" and {len(excluded) - 5} more" if len(excluded) > 5 else ""
        warnings.warn(f"{label}{len(excluded)} pairs left out, with a score that is not finite: "
                      f"rows {shown}{more} (0-based rows of X)", RuntimeWarning, stacklevel=3)
    return report


def _pairs_kept(missing, X, Y, function):
    """X and Y as given (missing="error": a missing value is refused, naming its column and row
    and advising `function`'s missing="drop") or without the rows with a missing value in
    either (missing="drop", with a CdensWarning that counts them), as
    ``cdens evaluate --missing drop``."""
    if missing == "error":
        refusal = missing_refusal(f': {function}(..., missing="drop") leaves out the rows with '
                                  "one", X=X, Y=Y)
        if refusal is not None:
            raise ValueError(refusal)
    if Y is None:
        return rows_kept(missing, X)[0], None
    return tuple(rows_kept(missing, X, Y))


def evaluate(model, X, Y=None, *, pinball_levels=DEFAULT_PINBALL_LEVELS,
             interval_levels=DEFAULT_INTERVAL_LEVELS, bins=10, n_draws=1000, random_state=0,
             scores=None, verbose=0, missing="error"):
    """Every score, interval width and coverage, and the calibration of `model` on (X, Y): the
    report ``cdens evaluate --json`` writes, as a dict. ``scores`` lists per score its name,
    ``values`` per pair, ``mean`` and ``standard_error``; ``calibration`` holds ``pit`` (1-D y)
    and ``hpd`` with their values, KS ``statistic`` and ``p_value`` and ``histogram``;
    ``coverage`` the coverage curve with its binomial band.

    ``scores`` selects what to compute (default: everything that applies), by the names in
    ``SCORE_NAMES``: log_likelihood, crps, rps, pinball, cde_loss, brier, energy_score, central
    (central intervals and PIT values) and hpd (highest-density regions and HPD values, the
    slowest). A name that does not apply to the model's y is refused naming those that do;
    ``not_applicable`` lists them with the reason, ``output_kinds`` says what y is. For a
    discrete y the intervals are sets of levels (``hpd_size_0.9``: how many levels,
    ``hpd_mass_0.9``: their probability, ``hpd_coverage_0.9``: whether y is in the set) and the
    calibration values are randomised (``calibration["pit"]["randomized"]``), from
    ``random_state``. For a y with an atom (``output_atom``: its value, e.g. the zero of a
    zero-inflated y) the log-likelihood is log P(y = a | x) at it and a log-density elsewhere,
    and the PIT and HPD values of the pairs at it are randomised over its probability.
    A pair with a score that is not finite is left out with a RuntimeWarning; ``excluded`` names
    it (``pair``: its 0-based row, ``score``, ``value``) and ``pairs`` gives the rows scored.
    ``verbose=1`` writes the progress of the slow stages (highest-density regions, draws) to
    sys.stderr, as the estimators' fits do. ``missing="drop"`` leaves out the rows with a missing
    value in X or Y (NaN, None, "NA", …) with a CdensWarning; the default refuses them."""
    X, Y = _pairs_kept(missing, X, Y, "evaluate")
    report = _evaluation(model, X, Y, pinball_levels, interval_levels, bins, n_draws,
                         random_state, scores, "", verbose, "evaluate: ")
    return _as_arrays(json.loads(report.to_json()))


def compare(models, X, Y=None, *, names=None, pinball_levels=DEFAULT_PINBALL_LEVELS,
            interval_levels=DEFAULT_INTERVAL_LEVELS, n_draws=1000, random_state=0, scores=None,
            verbose=0, missing="error"):
    """Two or more models on the same data: the report ``cdens compare --json`` writes, as a
    dict with ``models``, ``scores`` (the proper scores all share), ``means``,
    ``standard_errors`` and ``best_shares`` (scores x models) and ``differences`` (every pair of
    models on every score: the mean improvement of the second over the first (the first's loss
    minus the second's; for the log-likelihood the second's minus the first's: > 0, the second
    is better), its paired standard error, shares won).
    ``scores`` selects the scores as in ``evaluate``. The models are compared on the pairs every
    one of them scores: ``excluded`` lists the rows some model left out. ``verbose=1`` writes
    the progress of each model's evaluation to sys.stderr, naming the model. ``missing`` as in
    ``evaluate``: every model is scored on the same rows."""
    X, Y = _pairs_kept(missing, X, Y, "compare")
    models = list(models)
    if len(models) < 2:
        raise ValueError(f"a comparison needs at least two models, got {len(models)}")
    if names is None:
        names = [os.path.splitext(os.path.basename(m))[0] if isinstance(m, (str, os.PathLike))
                 else type(m).__name__ for m in models]
    if len(set(names)) != len(names):
        names = [f"{name} ({k + 1})" for k, name in enumerate(names)]
    evaluations = [_evaluation(model, X, Y, pinball_levels, interval_levels, 10, n_draws,
                               random_state, scores, f"{name}: ", verbose,
                               f"compare, model {k + 1} of {len(models)} ({name}): ")
                   for k, (model, name) in enumerate(zip(models, names))]
    return _as_arrays(json.loads(_core.compare(evaluations, list(names))))


def crps_scorer(estimator, X, y):
    """Minus the mean CRPS: a scikit-learn scorer (greater is better) for GridSearchCV."""
    return -float(np.mean(crps(estimator, X, y)))


def pinball_scorer(levels=DEFAULT_PINBALL_LEVELS):
    """A scikit-learn scorer: minus the mean pinball loss over the pairs and the levels."""
    levels = as_probabilities(levels, "levels")

    def scorer(estimator, X, y):
        return -float(np.mean(pinball_loss(estimator, X, y, levels)))

    return scorer
