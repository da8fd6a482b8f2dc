"""AutoCDE: the stacked pool of candidate conditional estimators, or the one of the smallest
held-out NLL."""

import numpy as np

from ._conditional import ConditionalDensityEstimator


class AutoCDE(ConditionalDensityEstimator):
    """Scores conditional estimators by their held-out NLL of y given x, within a time budget,
    and returns the linear pool of their fits on every pair with the weights of the pool's best
    held-out log score (stacking; ``combine="selection"``: the one of the smallest NLL). The
    CLI's ``--method auto``. With ``validation="loo"`` a candidate is fitted once and scored by
    its fit's own leave-one-out log-densities where it has them (KCDE, the line), by K-fold
    refits otherwise; ``validation="kfold"`` refits every candidate; the default, ``"auto"``,
    is "kfold" up to 1,000 pairs and "loo" beyond. Every candidate is scored on the same pairs,
    so the table gives each one's difference from the one of the largest weight with its paired
    standard error. ``fit(X, y, sample_weight=w)`` weighs every fit, held-out score and the
    stacking; candidates that take no weights are listed as not run. See docs/methods/auto.md.

    Attributes
    ----------
    method_ : str
        The candidate of the largest weight, as written in ``candidates``.
    weights_ : dict
        The pool: candidate → weight, for the candidates of positive weight.
    selection_ : dict
        The table: ``candidate``, ``mean_nll``, ``standard_error``, ``difference``,
        ``difference_standard_error``, ``weight``, ``seconds`` (arrays, one entry per candidate,
        NaN where one was not scored), ``status`` ("scored", or why not) and ``validation``
        ("loo" or "kfold": how each was scored); ``scored_pairs``, the pairs the scores average
        over; ``pooled_mean_nll``, the pool's held-out NLL with its weights chosen on the same
        scores (NaN for one candidate).
    model_, n_features_in_, n_outputs_, feature_names_in_
        As for LSCDE. A pool of several candidates is a model of method "auto"; one candidate's
        model is that method's, so a saved file loads as that method's estimator class.
    """

    _method = "auto"

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
            "weight": column("weight"),
            "seconds": column("seconds"),
            "status": [row["status"] for row in rows],
            "validation": [row.get("validation") or "kfold" for row in rows],
            "scored_pairs": table.get("scored_pairs", 0),
            "pooled_mean_nll": (np.nan if table.get("pooled_mean_nll") is None
                                else table["pooled_mean_nll"]),
        }
        self.weights_ = {row["candidate"]: row["weight"] for row in rows if row["weight"] > 0}
