"""AutoCDE: the conditional estimator with the smallest cross-validated NLL among candidates."""

import numpy as np

from ._conditional import ConditionalDensityEstimator


class AutoCDE(ConditionalDensityEstimator):
    """Chooses among conditional estimators by K-fold cross-validated NLL of y given x, within a
    time budget, and refits the chosen one on every pair (the CLI's ``--method auto``). Every
    candidate is scored on the same folds, so the table gives each one's difference from the
    chosen one with its paired standard error. See docs/methods/auto.md.

    Parameters
    ----------
    candidates : str or list of str, default="linear,lscde,kcde:trend=linear,kcde"
        The candidates, cheapest first: a conditional method of ``cdens._methods.methods()``,
        optionally with option settings after colons (``"kcde:trend=linear:n_restarts=4"``).
    discrete, ordered : None or list of int, default=None
        Unordered and ordered discrete columns, by index among X's columns then Y's, passed to
        the candidates that take them (KernelCDE). With a discrete y the scores are
        probability masses, and only those candidates are run.
    cv : int, default=5
        Folds K, shared by every candidate.
    time_budget : float, default=300.0
        Seconds for scoring the candidates. Once one candidate is scored, a later one is not
        started when the budget is spent, and is stopped after its first fold when its folds
        would overrun. The final refit is not counted.
    random_state : None, int or numpy RandomState, default=None
        Draws the folds; also seeds every candidate's own random choices.
    n_jobs : None or int, default=None
        OpenMP threads of every fit (None or -1: all cores).

    Attributes
    ----------
    method_ : str
        The chosen candidate, as written in ``candidates``.
    selection_ : dict
        The table: ``candidate``, ``mean_nll``, ``standard_error``, ``difference``,
        ``difference_standard_error``, ``seconds`` (arrays, one entry per candidate, NaN where
        one was not scored) and ``status`` ("scored", or why not).
    model_, n_features_in_, n_outputs_, feature_names_in_
        As for LSCDE; ``model_`` is the chosen method's model, so a saved file loads as that
        method's estimator class.
    """

    _method = "auto"

    def __init__(self, candidates="linear,lscde,kcde:trend=linear,kcde", discrete=None,
                 ordered=None, cv=5, time_budget=300.0, random_state=None, n_jobs=None):
        self.candidates = candidates
        self.discrete = discrete
        self.ordered = ordered
        self.cv = cv
        self.time_budget = time_budget
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _set_fitted(self, model):
        super()._set_fitted(model)
        table = model.method_selection
        rows = table["candidates"]
        chosen = rows[table["chosen"]]

        def column(key):
            return np.array([np.nan if row[key] is None else row[key] for row in rows], dtype=float)

        self.method_ = chosen["candidate"]
        self.selection_ = {
            "candidate": [row["candidate"] for row in rows],
            "mean_nll": column("mean_nll"),
            "standard_error": column("standard_error"),
            "difference": column("mean_nll") - chosen["mean_nll"],
            "difference_standard_error": column("difference_standard_error"),
            "seconds": column("seconds"),
            "status": [row["status"] for row in rows],
        }
