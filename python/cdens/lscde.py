"""LSCDE: least-squares conditional density estimation (Sugiyama et al. 2010)."""

from ._conditional import ConditionalDensityEstimator
from ._validation import as_samples


class LSCDE(ConditionalDensityEstimator):
    """Least-squares conditional density estimation (Sugiyama et al. 2010).

    p(y|x) is the density ratio p(x, y)/p(x) fitted by least squares on b Gaussian basis
    functions centred on random training pairs, with the width ``sigma`` and the ridge
    parameter ``regularization`` (the paper's lambda) chosen by K-fold cross-validation.
    Inputs and outputs are standardised per dimension; densities are in the units of Y.
    See docs/methods/lscde.md.

    Parameters
    ----------
    sigma : None, float or list of float, default=None
        Candidate basis widths in standardised units; None is the paper's grid
        (0.01 ... 10). More than one candidate of sigma or regularization turns on CV.
    regularization : None, float or list of float, default=None
        Candidate lambda of the ridge term; None is the paper's grid.
    n_centers : int, default=100
        Number b of basis centres (all pairs when n_centers >= n).
    cv : int, default=5
        Number of cross-validation folds.
    cv_loss : {"kl", "sq"}, default="kl"
        Held-out negative log-likelihood ("kl") or the squared loss of the paper ("sq").
    random_state : None, int or numpy RandomState, default=None
        Seeds the choice of centres and folds.
    n_jobs : None or int, default=None
        OpenMP threads (None or -1: all cores). The result does not depend on it.

    Attributes
    ----------
    sigma_, regularization_ : float
        The chosen width and lambda.
    cv_results_ : dict or None
        The cross-validation table (scikit-learn layout; scores are minus the loss, in the
        units of Y); None when no hyper-parameter was selected.
    n_features_in_ : int
    feature_names_in_ : ndarray of str (only for pandas input with string column names)
    n_outputs_ : int
    model_ : cdens._core.ConditionalModel
        The fitted conditional mixture with its fit report.
    """

    _method = "lscde"

    def __init__(self, sigma=None, regularization=None, n_centers=100, cv=5, cv_loss="kl",
                 random_state=None, n_jobs=None):
        self.sigma = sigma
        self.regularization = regularization
        self.n_centers = n_centers
        self.cv = cv
        self.cv_loss = cv_loss
        self.random_state = random_state
        self.n_jobs = n_jobs

    def fit(self, X, Y, X_unlabeled=None):
        """Fits p(y|x) to the rows of X (n, d_x) and Y (n, d_y) or (n,). X_unlabeled, inputs
        without outputs, join the basis matrix H (semi-supervised LSCDE, paper section 2.7)."""
        unlabeled = None if X_unlabeled is None else as_samples(X_unlabeled, "X_unlabeled")
        if unlabeled is not None and unlabeled.shape[1] != as_samples(X, "X").shape[1]:
            raise ValueError(f"X_unlabeled has {unlabeled.shape[1]} features, X has "
                             f"{as_samples(X, 'X').shape[1]}")
        return self._fit(X, Y, X_unlabeled=unlabeled)
