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

    Discrete columns, declared with ``discrete`` (unordered, Aitchison-Aitken kernel) or
    ``ordered`` (integer levels, Wang-van Ryzin kernel), are smoothed over their values with a
    parameter lambda searched in the same criterion. A discrete output gets a probability mass
    function: ``log_pdf`` and ``score`` then return log probability masses in it
    (``output_kinds_`` says which outputs are discrete). A column that looks discrete (at most
    10 distinct values, or at most 20 distinct integers) but is not declared gets a warning.

    Parameters
    ----------
    bandwidth : None or list of float, default=None
        Fixed bandwidths in standardised units, d_x input ones then d_y output ones (lambda for
        a discrete column); None chooses them by leave-one-out likelihood.
    discrete : None or list of int, default=None
        Unordered (categorical) columns, by index among the columns of X, then those of Y (the
        order of ``bandwidth``): with X of shape (n, 5) and one output, ``discrete=[2]`` is the
        third input and ``discrete=[5]`` the output.
    ordered : None or list of int, default=None
        Ordered discrete columns with integer levels, indexed likewise.
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
        The bandwidths, inputs then outputs (standardised units); lambda for a discrete column.
    input_kinds_, output_kinds_ : list of str
        The kernel of every input and output: "continuous", "unordered" or "ordered". Where an
        output is discrete, log_pdf is a log probability mass in it, not a log density.
    loo_nll_ : float or None
        The leave-one-out NLL at the chosen bandwidths, in the units of y (None when fixed).
    linear_loo_nll_ : float or None
        The leave-one-out NLL of the linear-Gaussian model of the same data (a warning says
        when it is lower than loo_nll_).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "kcde"

    def __init__(self, bandwidth=None, discrete=None, ordered=None, trend="none",
                 exact_limit=20000, subsample_held_out=2000, screening_held_out=300, n_restarts=2,
                 bandwidth_bounds=(1e-3, 1e3), max_iter=200, random_state=None, n_jobs=None):
        self.bandwidth = bandwidth
        self.discrete = discrete
        self.ordered = ordered
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
        columns = ([f"x{d}" for d in range(model.input_dim)]
                   + [f"y{d}" for d in range(model.output_dim)])
        self.bandwidths_ = np.array([chosen.get(f"bandwidth_{column}", chosen.get(f"lambda_{column}"))
                                     for column in columns])
        self.input_kinds_ = list(model.input_kinds)
        self.output_kinds_ = list(model.output_kinds)
        self.loo_nll_ = model.statistics.get("loo_nll")
        self.linear_loo_nll_ = model.statistics.get("linear_loo_nll")

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.bandwidth = list(estimator.bandwidths_)
        kinds = estimator.input_kinds_ + estimator.output_kinds_
        estimator.discrete = [d for d, kind in enumerate(kinds) if kind == "unordered"] or None
        estimator.ordered = [d for d, kind in enumerate(kinds) if kind == "ordered"] or None
        estimator.trend = "linear" if model.statistics.get("linear_trend") else "none"
        return estimator
