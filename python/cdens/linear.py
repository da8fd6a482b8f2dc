"""The linear-Gaussian conditional density, the baseline of every conditional estimator."""

from ._conditional import ConditionalDensityEstimator


class LinearGaussianCDE(ConditionalDensityEstimator):
    """y | x ~ N(a + A x, diag s(x)^2) with each output's spread s_d(x) constant (least squares
    and the maximum-likelihood variance of its residuals) or log-linear in x,
    log s_d(x) = c_d + g_d^T x (maximum likelihood), by default whichever has the lower
    leave-one-out NLL. Its leave-one-out NLL (``loo_nll_``) is what the kernel estimators are
    compared with. See docs/methods/linear.md.

    Attributes
    ----------
    loo_nll_ : float or None
        Mean leave-one-out NLL of the fitted model in the units of y (None where a pair has
        leverage 1). The constant spread's is exact (closed form); the log-linear one's takes one
        Newton step from the full fit per pair.
    loo_nll_constant_variance_, loo_nll_log_linear_variance_ : float or None
        The same for each kind of spread, where defined.
    log_linear_outputs_ : int
        How many outputs got a log-linear spread.
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "linear"

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.loo_nll_ = model.statistics.get("loo_nll")
        self.loo_nll_constant_variance_ = model.statistics.get("loo_nll_constant_variance")
        self.loo_nll_log_linear_variance_ = model.statistics.get("loo_nll_log_linear_variance")
        self.log_linear_outputs_ = int(model.statistics.get("log_linear_outputs", 0))
