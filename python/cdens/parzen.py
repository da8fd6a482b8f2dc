"""Parzen window: the Gaussian kernel density estimate with a cross-validated width."""

import numpy as np

from ._density import DensityEstimator


class ParzenWindow(DensityEstimator):
    """Parzen window density estimate (Chen, Hong & Harris 2010, eq. 10).

    p(x) = (1/n) sum_k N(x; x_k, h^2 I) on standardised data, with the width h chosen by exact
    leave-one-out cross-validation of the likelihood or of the integrated squared error.
    See docs/methods/parzen.md.

    Attributes
    ----------
    bandwidth_ : float, or ndarray of shape (n_features,) with per_dimension
        The chosen width(s) (standardised units).
    cv_results_ : dict or None
        Every width scored, scikit-learn layout (scores are minus the criterion); None with
        per_dimension.
    loo_nll_ : float or None
        With per_dimension, the leave-one-out NLL per sample at the chosen widths (units of X).
    n_kernels_, weights_, means_, widths_
        Number of kernels (= n), their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "parzen"

    def _set_fitted(self, model):
        super()._set_fitted(model)
        chosen = model.hyperparameters
        if "bandwidth" not in chosen:  # per-dimension widths bandwidth_0, bandwidth_1, ...
            self.bandwidth_ = np.array([chosen[f"bandwidth_{d}"]
                                        for d in range(model.dimension)])
            for d in range(model.dimension):
                delattr(self, f"bandwidth_{d}_")
        self.loo_nll_ = model.statistics.get("loo_nll")

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        if "bandwidth" not in model.hyperparameters:
            estimator.per_dimension = True
        return estimator
