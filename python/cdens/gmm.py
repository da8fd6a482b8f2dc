"""Gaussian mixture with diagonal covariances fitted by EM."""

from ._density import DensityEstimator


class GMM(DensityEstimator):
    """Diagonal-covariance Gaussian mixture fitted by EM (Chen, Hong & Harris 2010, section
    II-A), on standardised data unless standardize=False, with a floor on every variance.

    Attributes
    ----------
    n_kernels_, weights_, means_, widths_
        Components and their weights, centres and standard deviations in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
        Its statistics hold the final log_likelihood, iterations and convergence.
    """

    _method = "gmm"
