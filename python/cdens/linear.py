"""The linear-Gaussian conditional density, the baseline of every conditional estimator."""

from . import _core
from ._conditional import ConditionalDensityEstimator


class LinearGaussianCDE(ConditionalDensityEstimator):
    """y | x ~ N(a + A x, diag s^2) by least squares, with the maximum-likelihood variance of
    each output's residuals. Its leave-one-out NLL (closed form, ``loo_nll_``) is what the kernel
    estimators are compared with. See docs/methods/linear.md.

    Parameters
    ----------
    random_state, n_jobs : ignored
        Accepted for a uniform interface; the fit is deterministic and cheap.

    Attributes
    ----------
    loo_nll_ : float or None
        Mean leave-one-out NLL in the units of y (None where a pair has leverage 1).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    def __init__(self, random_state=None, n_jobs=None):
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _fit_model(self, X, Y, seed):
        return _core.fit_linear_gaussian(X, Y)

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.loo_nll_ = model.statistics.get("loo_nll")
