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

    Attributes
    ----------
    target_bandwidth_ : float
    n_kernels_, weights_, means_, widths_
        The kernels kept, their weights, centres and widths in the units of X.
    n_features_in_ : int
    model_ : cdens._core.DensityModel
    """

    _method = "gskd"
