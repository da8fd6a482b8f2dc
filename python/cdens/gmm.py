"""Gaussian mixture with diagonal covariances fitted by EM."""

from ._density import DensityEstimator


class GMM(DensityEstimator):
    """Diagonal-covariance Gaussian mixture fitted by EM (Chen, Hong & Harris 2010, section
    II-A), on standardised data unless standardize=False, with a floor on every variance.

    Parameters
    ----------
    n_components : int, default=1
        Number of mixture components.
    init : {"kmeans++", "box"}, default="kmeans++"
        k-means++ seeding, or the paper's start: centres uniform in the box [a, b]^d, equal
        weights, every variance initial_variance.
    box : (float, float), default=(-3.0, 3.0)
        The paper's [a, b] of the box start.
    initial_variance : float, default=0.1
        The paper's gamma^2_ini of the box start.
    n_init : int, default=1
        EM runs from different starts; the one of largest likelihood is kept.
    variance_floor : float, default=1e-6
        Lower bound on every variance (standardised units), the paper's gamma^2_min.
    tol : float, default=1e-8
        EM stops when the mean log-likelihood rises by less than this.
    max_iter : int, default=1000
    standardize : bool, default=True
        Work on standardised data; False takes the box and variances in the units of X (the
        paper's setting).
    random_state : None, int or numpy RandomState, default=None
    n_jobs : None or int, default=None

    Attributes
    ----------
    n_kernels_, weights_, means_, widths_
        Components and their weights, centres and standard deviations in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
        Its statistics hold the final log_likelihood, iterations and convergence.
    """

    _method = "gmm"

    def __init__(self, n_components=1, init="kmeans++", n_init=1, variance_floor=1e-6, tol=1e-8,
                 max_iter=1000, box=(-3.0, 3.0), initial_variance=0.1, standardize=True,
                 random_state=None, n_jobs=None):
        self.n_components = n_components
        self.init = init
        self.n_init = n_init
        self.variance_floor = variance_floor
        self.tol = tol
        self.max_iter = max_iter
        self.box = box
        self.initial_variance = initial_variance
        self.standardize = standardize
        self.random_state = random_state
        self.n_jobs = n_jobs
