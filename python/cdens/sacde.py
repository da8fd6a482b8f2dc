"""SA-CDE, SA-LSCDE and forward feature selection (Shiga, Tangkaratt & Sugiyama 2015)."""

import numpy as np

from ._conditional import ConditionalDensityEstimator
from ._parameters import Parameter


class _FeatureSelectingEstimator(ConditionalDensityEstimator):
    """Adds the fitted feature selection: ``selected_features_`` (column indices),
    ``feature_importances_`` and, for SA-CDE and SA-LSCDE, ``regularization_path_``."""

    def _set_fitted(self, model):
        super()._set_fitted(model)
        selection = model.feature_selection
        self.selected_features_ = np.asarray(selection["selected"], dtype=np.int64)
        self.feature_importances_ = np.asarray(selection["importances"])
        self.regularization_path_ = selection["path"]


class SACDE(_FeatureSelectingEstimator):
    """Sparse additive conditional density estimation, SA-CDE (Shiga et al. 2015).

    p(y|x) is an additive model sum_d r_d(y, x_d) on B = min(n_centers, n) Gaussian basis
    functions per feature, fitted by least squares with a non-negative group-lasso penalty
    lambda * sum_d ||alpha_d|| that switches whole features off, then renormalised in y. The
    width ``sigma`` and ``regularization`` (the paper's lambda) are chosen by K-fold
    cross-validation of the held-out negative log-likelihood. See docs/methods/sacde.md.

    Attributes
    ----------
    sigma_, regularization_ : float
        The chosen width and lambda.
    selected_features_ : ndarray of int
        Columns of X with ||alpha_d|| > 0.
    feature_importances_ : ndarray of shape (n_features,)
        ||alpha_d||_2 of every feature at the chosen lambda.
    regularization_path_ : dict
        ``lambdas`` (decreasing), ``group_norms`` (n_features, n_lambdas) and
        ``chosen_lambda``: the path of the chosen sigma on the whole training set.
    cv_results_, n_features_in_, n_outputs_, model_
        As for LSCDE.
    """

    _method = "sacde"


class SALSCDE(_FeatureSelectingEstimator):
    """SA-LSCDE (Shiga et al. 2015, section 3.1): SA-CDE selects the features, LSCDE (with its
    own cross-validation) estimates p(y|x) on them. Both stages take the candidate grids given
    (None: the SA-CDE paper's twenty values in [0.01, 2]).

    Attributes
    ----------
    sigma_, regularization_ : float
        LSCDE's chosen width and lambda.
    selection_sigma_, selection_regularization_ : float
        SA-CDE's.
    selected_features_, feature_importances_, regularization_path_
        SA-CDE's, as for SACDE.
    """

    _method = "salscde"


class ForwardSelectionCDE(_FeatureSelectingEstimator):
    """Forward feature selection around LSCDE, epsilon-KDE or NW-CDE (FW-LSCDE, FW-eKDE,
    FW-NWCDE of Shiga et al. 2015, section 3.1): add the feature whose addition gives the
    smallest cross-validated NLL until no addition lowers it. The wrapped estimator uses the
    SA-CDE paper's grids and its own cross-validation.

    Attributes
    ----------
    selected_features_ : ndarray of int
        The selected columns, increasing.
    feature_importances_ : ndarray of shape (n_features,)
        The decrease of the cross-validated NLL when the feature was added (the first feature:
        against the least useful single feature); 0 for the others.
    regularization_path_ : None
    """

    _extra_parameters = (
        Parameter("estimator", "lscde", '{"lscde", "ekde", "nwcde"}',
                  "The wrapped estimator: it chooses the method of the registry (fw-lscde, "
                  "fw-ekde or fw-nwcde), whose options the other parameters are; a parameter "
                  "the chosen one does not take must keep its default."),
    )

    def _method_name(self):
        if self.estimator not in ("lscde", "ekde", "nwcde"):
            raise ValueError(f"estimator must be 'lscde', 'ekde' or 'nwcde', got "
                             f"{self.estimator!r}")
        return f"fw-{self.estimator}"

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.estimator = model.method.removeprefix("fw-")
        return estimator
