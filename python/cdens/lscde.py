"""LSCDE: least-squares conditional density estimation (Sugiyama et al. 2010)."""

from ._conditional import ConditionalDensityEstimator
from ._dask import fits_dask_collections
from ._distributed import agree, min_samples, processes_of
from ._validation import as_samples


class LSCDE(ConditionalDensityEstimator):
    """Least-squares conditional density estimation (Sugiyama et al. 2010).

    p(y|x) is the density ratio p(x, y)/p(x) fitted by least squares on b Gaussian basis
    functions centred on random training pairs, with the width ``sigma`` and the ridge
    parameter ``regularization`` (the paper's lambda) chosen by K-fold cross-validation.
    Inputs and outputs are standardised per dimension; densities are in the units of Y.
    See docs/methods/lscde.md.

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

    @fits_dask_collections
    def fit(self, X, y, X_unlabeled=None, comm=None, sample_weight=None, missing="error"):
        """Fits p(y|x) to the rows of X (n, d_x) and y (n, d_y) or (n,). X_unlabeled, inputs
        without outputs, join the basis matrix H (semi-supervised LSCDE, paper section 2.7).
        comm (an mpi4py communicator, each process passing its own rows and unlabelled inputs;
        or X, y and X_unlabeled as dask collections), sample_weight and missing ("error" or
        "drop") as for every conditional estimator; sample weights make H and h weighted means,
        the cross-validation losses weighted means per fold (on one process, without
        X_unlabeled)."""
        with processes_of(comm) as processes:
            return self._fit(X, y, comm=processes, sample_weight=sample_weight, missing=missing,
                             X_unlabeled=agree(processes, lambda: self._unlabeled_inputs(
                                 processes, X, X_unlabeled)))

    @staticmethod
    def _unlabeled_inputs(comm, X, X_unlabeled):
        """X_unlabeled checked (None stays None); comm: the fit's collective, or None."""
        if X_unlabeled is None:
            return None
        fewest = min_samples(comm, 1)
        unlabeled = as_samples(X_unlabeled, "X_unlabeled", min_samples=fewest)
        features = as_samples(X, "X", min_samples=fewest).shape[1]
        if unlabeled.shape[1] != features:
            raise ValueError(f"X_unlabeled has {unlabeled.shape[1]} features, X has {features}")
        return unlabeled
