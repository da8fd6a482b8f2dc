"""NW-CDE: the Nadaraya-Watson conditional density estimate."""

from ._conditional import ConditionalDensityEstimator


class NWCDE(ConditionalDensityEstimator):
    """Nadaraya-Watson conditional density estimation (SA-CDE paper eq. 25).

    LSCDE with every basis weight fixed: p(y|x) = sum_b N(y; y_b, sigma^2) k(x, x_b) /
    sum_b k(x, x_b) over B = min(n_centers, n) random training pairs, with one Gaussian width
    ``sigma`` for x and y chosen by leave-one-out cross-validation of the likelihood over the B
    centres, as the paper does. Inputs and outputs are standardised per dimension.
    See docs/methods/nwcde.md.

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
