"""NW-CDE: the Nadaraya-Watson conditional density estimate."""

from ._conditional import ConditionalDensityEstimator


class NWCDE(ConditionalDensityEstimator):
    """Nadaraya-Watson conditional density estimation (SA-CDE paper eq. 25).

    LSCDE with every basis weight fixed: p(y|x) = sum_b N(y; y_b, sigma^2) k(x, x_b) /
    sum_b k(x, x_b) over B = min(n_centers, n) random training pairs, with one Gaussian width
    ``sigma`` for x and y chosen by leave-one-out cross-validation of the likelihood over the B
    centres, as the paper does. Inputs and outputs are standardised per dimension.
    See docs/methods/nwcde.md.

    Parameters
    ----------
    sigma : None, float or list of float, default=None
        Candidate widths in standardised units; None is twenty log-spaced values in [0.01, 2].
    n_centers : int, default=100
        Number B of kernel centres (all pairs when n_centers >= n).
    random_state : None, int or numpy RandomState, default=None
        Seeds the choice of centres.
    n_jobs : None or int, default=None
        OpenMP threads (None or -1: all cores). The result does not depend on it.

    Attributes
    ----------
    sigma_ : float
        The chosen width.
    cv_results_ : dict or None
        The leave-one-out table over sigma, scikit-learn layout.
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "nwcde"

    def __init__(self, sigma=None, n_centers=100, random_state=None, n_jobs=None):
        self.sigma = sigma
        self.n_centers = n_centers
        self.random_state = random_state
        self.n_jobs = n_jobs
