"""PRESS: predictive state smoothing for regression (Goerg 2017)."""

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import column_or_1d

from . import _core
from ._conditional import ConditionalDensityEstimator
from ._dask import fits_dask_collections


class PRESSRegressor(RegressorMixin, ConditionalDensityEstimator):
    """Predictive state smoothing (PRESS, Goerg 2017): regression through J predictive states.

    Each input x has state weights w(x) = softmax(B^T (1, x)) (logistic PRESS); the prediction
    is sum_j w_j(x) ybar_j with ybar_j the w-weighted mean of the training outputs of state j,
    a linear smoother y_hat = S y with S = W D(W) W^T that is never formed. B is fitted by
    minimising the closed-form GCV (default), LOOCV or in-sample MSE, optionally with the
    smoothness penalty mu (nu_smooth - nu)^2 and a LASSO penalty on the coefficients of x,
    with early stopping on an 80/20 hold-out split. The predictive distribution
    p(y|x) = sum_j w_j(x) p(y|s_j), each p(y|s_j) a weighted kernel density estimate of the
    training outputs, answers every query of the conditional estimators (log_pdf, sample,
    predict_quantiles, predict_interval, hdr, ...). ``score`` is R^2 (scikit-learn regressor).
    See docs/methods/press.md.

    Attributes
    ----------
    n_states_ : int
    coef_ : ndarray of shape (J, n_features)
        Coefficients of x of each state's logit, in the units of X (states ordered by mean).
    intercept_ : ndarray of shape (J,)
    state_means_ : ndarray of shape (J,)
        ybar_j, increasing.
    state_sizes_ : ndarray of shape (J,)
        sigma_j = sum_i W_ij (eq. 17).
    degrees_of_freedom_ : float
        nu_hat = tr S (eq. 35).
    aic_ : float
    n_iter_ : int
        Objective evaluations of all starts (0 for J = 1, which has nothing to fit).
    training_weights_, training_entropy_, smoother_diagonal_, fitted_ : ndarray
        W (n, J), eta_i (eq. 18), s_ii (eq. 33) and y-hat (eq. 24) of the training inputs (the
        fit's extras: after fit only).

    Beside ``predict_states``, the queries of the registry are methods: ``state_weights``,
    ``state_entropy`` (eta(x) in bits, eq. 18) and ``point_prediction`` (eq. 20).
    cv_results_ : dict or None
        With max_states: AIC of every J (scores are minus AIC).
    model_ : cdens._core.ConditionalModel
    """

    _method = "press"

    @fits_dask_collections
    def fit(self, X, y, sample_weight=None, comm=None, missing="error"):
        """Fits PRESS to the rows of X (n, d) and the outputs y (n,); returns self. comm and
        missing as for every conditional estimator (under comm, training_weights_,
        training_entropy_ and smoother_diagonal_ are this process's rows'); sample_weight is
        refused (PRESS's criterion is no weighted sum here)."""
        if y is not None and hasattr(y, "__len__"):
            shape = np.asarray(y).shape
            if len(shape) == 2 and shape[1] == 1:
                try:
                    y = column_or_1d(y, warn=True)
                except (ValueError, TypeError) as error:
                    raise type(error)(f"y: {error}") from error
        return self._fit(X, y, comm=comm, sample_weight=sample_weight, missing=missing)

    def _fit_model(self, X, Y, **engine_arguments):
        if Y.shape[1] != 1:
            raise ValueError(f"PRESSRegressor needs one output; y has {Y.shape[1]} columns")
        return super()._fit_model(X, Y, **engine_arguments)

    def _set_fitted(self, model):
        super()._set_fitted(model)
        self.n_states_ = int(model.hyperparameters["n_states"])
        summary = _core.press_state_summary(model)
        self.intercept_ = summary["coefficients"][:, 0].copy()
        self.coef_ = summary["coefficients"][:, 1:].copy()
        self.state_means_ = summary["state_means"]
        self.state_sizes_ = summary["state_sizes"]
        self.degrees_of_freedom_ = float(model.statistics["degrees_of_freedom"])
        self.aic_ = float(model.statistics["aic"])
        self.n_iter_ = int(model.statistics["evaluations"])

    @classmethod
    def _from_model(cls, model):
        estimator = super()._from_model(model)
        estimator.n_states = estimator.n_states_
        return estimator

    def predict_states(self, X):
        """State weights w(x) of every row of X: shape (n, J), rows on the simplex (the query
        ``state_weights``)."""
        return self.state_weights(X)

    def _more_tags(self):
        return {"requires_y": True}
