"""Sparse kernel density estimate with fixed kernels, selected by orthogonal forward regression."""

from ._density import DensityEstimator


class SKD(DensityEstimator):
    """Sparse kernel density estimator (Chen, Hong & Harris 2008; the fixed-kernel comparison
    method of Chen, Hong & Harris 2010).

    Kernels N(x; x_j, h^2 I) on training points are selected one at a time by orthogonal
    forward regression on the Parzen window's values at the training points, each stage taking
    the kernel with the smallest leave-one-out error under local regularisation, until that
    error stops falling; the weights (non-negative, summing to one) are then found by MNQP,
    which can remove more kernels. See docs/methods/skd.md.

    Parameters
    ----------
    bandwidth : None, float or list of float, default=None
        Candidate kernel widths in standardised units; None is 12 log-spaced widths in [0.1, 2].
        Several candidates are compared by K-fold held-out ISE.
    target_bandwidth : None or float, default=None
        Width of the Parzen target (standardised units); None takes the Parzen window's
        leave-one-out likelihood choice.
    cv : int, default=5
        Number of cross-validation folds for the width.
    standardize : bool, default=True
        Work on standardised data; False takes widths in the units of X (the paper's setting).
    random_state : None, int or numpy RandomState, default=None
        Seeds the folds.
    n_jobs : None or int, default=None

    Attributes
    ----------
    bandwidth_, target_bandwidth_ : float
    cv_results_ : dict or None
    n_kernels_, weights_, means_, widths_
        The kernels kept, their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "skd"

    def __init__(self, bandwidth=None, target_bandwidth=None, cv=5, standardize=True,
                 random_state=None, n_jobs=None):
        self.bandwidth = bandwidth
        self.target_bandwidth = target_bandwidth
        self.cv = cv
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs
