"""The linear-Gaussian conditional density, the baseline of every conditional estimator."""

from ._conditional import ConditionalDensityEstimator


class LinearGaussianCDE(ConditionalDensityEstimator):
    """y | x ~ N(a + A x, diag s^2) by least squares, with the maximum-likelihood variance of
    each output's residuals. Its leave-one-out NLL (closed form, ``loo_nll_``) is what the kernel
    estimators are compared with. See docs/methods/linear.md.

    The fit has no parameters: least squares has nothing to tune.

    Attributes
    ----------
    loo_nll_ : float or None
        Mean leave-one-out NLL in the units of y (None where a pair has leverage 1).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "linear"

    def __init__(self):
        pass

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.loo_nll_ = model.statistics.get("loo_nll")
