"""Reduced set density estimator: a sparse kernel density estimate fitted by MNQP."""

from ._density import DensityEstimator


class RSDE(DensityEstimator):
    """Reduced set density estimator (Girolami & He 2003; Chen, Hong & Harris 2010, eqs. 13-17).

    Kernels on every training point, their weights minimising the integrated squared error to
    the Parzen window (non-negative, summing to one, solved by MNQP); kernels whose weights are
    driven to zero are removed, which leaves a sparse mixture. See docs/methods/rsde.md.

    Parameters
    ----------
    bandwidth : None, float or list of float, default=None
        Candidate widths in standardised units; None is 12 log-spaced widths in [0.1, 2].
        Several candidates are compared by K-fold held-out ISE.
    cv : int, default=5
        Number of cross-validation folds.
    standardize : bool, default=True
        Work on standardised data; False takes widths in the units of X (the paper's setting).
    random_state : None, int or numpy RandomState, default=None
        Seeds the folds.
    n_jobs : None or int, default=None

    Attributes
    ----------
    bandwidth_ : float
    cv_results_ : dict or None
    n_kernels_, weights_, means_, widths_
        The kernels kept, their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "rsde"

    def __init__(self, bandwidth=None, cv=5, standardize=True, random_state=None, n_jobs=None):
        self.bandwidth = bandwidth
        self.cv = cv
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs
