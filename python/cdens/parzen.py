"""Parzen window: the Gaussian kernel density estimate with a cross-validated width."""

from ._density import DensityEstimator


class ParzenWindow(DensityEstimator):
    """Parzen window density estimate (Chen, Hong & Harris 2010, eq. 10).

    p(x) = (1/n) sum_k N(x; x_k, h^2 I) on standardised data, with the width h chosen by exact
    leave-one-out cross-validation of the likelihood or of the integrated squared error.
    See docs/methods/parzen.md.

    Parameters
    ----------
    bandwidth : None, float or list of float, default=None
        Candidate widths in standardised units. None searches 25 log-spaced widths in
        [0.01, 3] and refines the best by golden section; a list is a plain grid search.
    criterion : {"loo_likelihood", "least_squares"}, default="loo_likelihood"
        Leave-one-out log-likelihood or least-squares cross-validation (leave-one-out ISE).
    standardize : bool, default=True
        Work on standardised data; False takes widths in the units of X (the paper's setting).
    n_jobs : None or int, default=None
        OpenMP threads (None or -1: all cores). The result does not depend on it.

    Attributes
    ----------
    bandwidth_ : float
        The chosen width (standardised units).
    cv_results_ : dict
        Every width scored, scikit-learn layout (scores are minus the criterion).
    n_kernels_, weights_, means_, widths_
        Number of kernels (= n), their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "parzen"

    def __init__(self, bandwidth=None, criterion="loo_likelihood", standardize=True, n_jobs=None):
        self.bandwidth = bandwidth
        self.criterion = criterion
        self.standardize = standardize
        self.n_jobs = n_jobs
