"""Sparse kernel density estimate with tunable kernels (GSKD)."""

from ._density import DensityEstimator


class GSKD(DensityEstimator):
    """Generalised sparse kernel density estimator with tunable kernels (Chen, Hong & Harris
    2010).

    Kernels N(x; c_l, diag(g_l^2)) are constructed one at a time by orthogonal forward
    regression on the Parzen window's values at the training points: each stage places and
    shapes one kernel (centre and per-dimension width) by minimising the leave-one-out error
    with repeated weighted boosting search (RWBS), and construction stops when that error stops
    falling. The weights (non-negative, summing to one) are then found by MNQP, which can
    remove more kernels. See docs/methods/gskd.md.

    Parameters
    ----------
    target_bandwidth : None or float, default=None
        Width of the Parzen target (standardised units); None takes the Parzen window's
        leave-one-out likelihood choice.
    population, generations, iterations : None or int, default=None
        RWBS settings P_S, N_G, M_I; None takes the paper's setting for the dimension
        (P_S = 10, 20, 40 for 1-D, 2-D and more; N_G = 10; M_I = 200, or 400 above 2-D).
    variance_bounds : (float, float), default=(1.0, 1.0)
        The box of every kernel variance: at least the first number times the Parzen target's
        variance target_bandwidth_^2, at most the second times the dimension's sample variance
        (the second is used by stopping="paper" only).
    stopping : {"holdout", "paper"}, default="holdout"
        "holdout" chooses the number of construction stages and the upper variance bound by
        K-fold hold-out of the integrated squared error (a departure from the paper, whose
        eq. (38) rarely stops on its noise-free Parzen target; docs/methods/gskd.md);
        "paper" stops by eq. (38).
    variance_upper_grid : None or list of float, default=None
        stopping="holdout": candidate upper bounds, times each dimension's sample variance
        (None: 0.25, 1, 4).
    stage_rule : {"min", "1se"}, default="min"
        stopping="holdout": "min" takes the (upper bound, stage count) of the smallest mean
        held-out error; "1se" the upper bound of the minimum and there the fewest stages whose
        mean is within one standard error of it (the sparsest mixture the hold-out cannot tell
        from the best: about half the kernels, at a higher L1 error in 1-D and 2-D).
    cv : int, default=5
        Folds of the hold-out.
    standardize : bool, default=True
        Work on standardised data; False takes lengths in the units of X (the paper's setting).
    random_state : None, int or numpy RandomState, default=None
        Seeds RWBS.
    n_jobs : None or int, default=None
        OpenMP threads over RWBS population members; the result does not depend on it.

    Attributes
    ----------
    target_bandwidth_ : float
    n_kernels_, weights_, means_, widths_
        The kernels kept, their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "gskd"

    def __init__(self, target_bandwidth=None, population=None, generations=None, iterations=None,
                 variance_bounds=(1.0, 1.0), stopping="holdout", variance_upper_grid=None,
                 stage_rule="min", cv=5, standardize=True, random_state=None, n_jobs=None):
        self.target_bandwidth = target_bandwidth
        self.population = population
        self.generations = generations
        self.iterations = iterations
        self.variance_bounds = variance_bounds
        self.stopping = stopping
        self.variance_upper_grid = variance_upper_grid
        self.stage_rule = stage_rule
        self.cv = cv
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs
