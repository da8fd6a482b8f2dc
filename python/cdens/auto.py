"""AutoCDE: the conditional estimator with the smallest cross-validated NLL among candidates."""

import numpy as np

from ._conditional import ConditionalDensityEstimator


class AutoCDE(ConditionalDensityEstimator):
    """Chooses among conditional estimators by K-fold cross-validated NLL of y given x, within a
    time budget, and refits the chosen one on every pair (the CLI's ``--method auto``). Every
    candidate is scored on the same folds, so the table gives each one's difference from the
    chosen one with its paired standard error. See docs/methods/auto.md.

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
