"""epsilon-KDE: kernel density estimate of y over the training points near x."""

from ._conditional import ConditionalDensityEstimator


class EpsilonKDE(ConditionalDensityEstimator):
    """epsilon-neighbour kernel density estimation (LSCDE paper section 3.1, SA-CDE paper eq. 23).

    p(y|x) is the Gaussian kernel density estimate of y over the training pairs whose input lies
    in the ball ||x_i - x|| <= epsilon; the radius ``epsilon`` and the width ``sigma`` are chosen
    together by K-fold cross-validation of the held-out negative log-likelihood. Inputs and
    outputs are standardised per dimension. Where the ball holds no training input, the estimate
    is the kernel density estimate over all training outputs. See docs/methods/ekde.md.

    Attributes
    ----------
    epsilon_, sigma_ : float
        The chosen radius and width.
    cv_results_ : dict or None
        The cross-validation table over (epsilon, sigma), scikit-learn layout (scores are minus
        the held-out NLL in the units of Y).
    n_features_in_, n_outputs_, model_, feature_names_in_
        As for LSCDE.
    """

    _method = "ekde"
