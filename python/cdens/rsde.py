"""Reduced set density estimator: a sparse kernel density estimate fitted by MNQP."""

from ._density import DensityEstimator


class RSDE(DensityEstimator):
    """Reduced set density estimator (Girolami & He 2003; Chen, Hong & Harris 2010, eqs. 13-17).

    Kernels on every training point, their weights minimising the integrated squared error to
    the Parzen window (non-negative, summing to one, solved by MNQP); kernels whose weights are
    driven to zero are removed, which leaves a sparse mixture. See docs/methods/rsde.md.

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
