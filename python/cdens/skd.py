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
