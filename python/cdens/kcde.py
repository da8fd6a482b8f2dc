"""KCDE: the product-kernel conditional density estimate with one bandwidth per dimension."""

import numpy as np

from ._conditional import ConditionalDensityEstimator


class KernelCDE(ConditionalDensityEstimator):
    """Kernel conditional density estimation with one bandwidth per input and output dimension,
    chosen by maximising the leave-one-out likelihood (Hall, Racine & Li 2004; the estimator of
    R's np ``npcdens`` and statsmodels' ``KDEMultivariateConditional(bw='cv_ml')``).

    p(y|x) = sum_i K(x - x_i) N(y; y_i, diag h_y^2) / sum_i K(x - x_i) with the Gaussian product
    kernel K(u) = exp(-sum_d u_d^2 / 2 h_d^2), on standardised x and y. An input that does not
    help predict y gets a bandwidth at the upper bound (it is smoothed flat). The search is
    L-BFGS on the log-bandwidths with the analytic gradient, from the normal-reference start and
    ``restarts`` random ones. See docs/methods/kcde.md.

    Parameters
    ----------
    bandwidth : None or list of float, default=None
        Fixed bandwidths in standardised units, d_x input ones then d_y output ones; None
        chooses them by leave-one-out likelihood.
    trend : {"none", "linear"}, default="none"
        What the output kernels are centred on: the training outputs (the estimator of Hall,
        Racine & Li), or their residuals around a least-squares line, so that the kernels only
        model the spread around it.
    exact_limit : int, default=20000
        Up to this many training pairs the criterion is exact leave-one-out over every pair.
    subsample_held_out : int, default=2000
        Beyond ``exact_limit`` the criterion averages over this many random training pairs, each
        still predicted from all others (linear in n).
    screening_held_out : int, default=300
        The starts of the search run on the criterion over at most this many held-out pairs;
        the best end point is then polished on the full criterion.
    n_restarts : int, default=2
        Random starts of the search besides the normal-reference one.
    bandwidth_bounds : (float, float), default=(1e-3, 1e3)
        The box of every bandwidth in the search (standardised units).
    max_iter : int, default=200
        Criterion evaluations per start at most.
    random_state : None, int or numpy RandomState, default=None
        Seeds the random starts and the held-out draw.
    n_jobs : None or int, default=None
        OpenMP threads (None or -1: all cores). The result does not depend on it.

    Attributes
    ----------
    bandwidths_ : ndarray of shape (d_x + d_y,)
        The bandwidths, inputs then outputs (standardised units).
    loo_nll_ : float or None
        The leave-one-out NLL at the chosen bandwidths, in the units of y (None when fixed).
    linear_loo_nll_ : float or None
        The leave-one-out NLL of the linear-Gaussian model of the same data (a warning says
        when it is lower than loo_nll_).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "kcde"

    def __init__(self, bandwidth=None, trend="none", exact_limit=20000, subsample_held_out=2000,
                 screening_held_out=300, n_restarts=2, bandwidth_bounds=(1e-3, 1e3), max_iter=200,
                 random_state=None, n_jobs=None):
        self.bandwidth = bandwidth
        self.trend = trend
        self.exact_limit = exact_limit
        self.subsample_held_out = subsample_held_out
        self.screening_held_out = screening_held_out
        self.n_restarts = n_restarts
        self.bandwidth_bounds = bandwidth_bounds
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    def _set_fitted(self, model):
        super()._set_fitted(model)
        chosen = model.hyperparameters
        names = ([f"bandwidth_x{d}" for d in range(model.input_dim)]
                 + [f"bandwidth_y{d}" for d in range(model.output_dim)])
        self.bandwidths_ = np.array([chosen[name] for name in names])
        self.loo_nll_ = model.statistics.get("loo_nll")
        self.linear_loo_nll_ = model.statistics.get("linear_loo_nll")

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.bandwidth = list(estimator.bandwidths_)
        estimator.trend = "linear" if model.statistics.get("linear_trend") else "none"
        return estimator
