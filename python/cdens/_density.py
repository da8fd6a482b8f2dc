"""What every unconditional density estimator of cdens shares: fitting plumbing, the queries on
the fitted diagonal Gaussian mixture p(x) and model files. Each estimator class only says how to
call its fit function in the engine. The contract is scikit-learn's for densities (as
``sklearn.neighbors.KernelDensity``): ``fit(X)``, ``score_samples`` is log p(x), ``score`` the
total log-likelihood, ``sample(n_samples)``.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._conditional import CdensWarning, cv_results_from_table, rows_and_weights_kept
from ._dask import fits_dask_collections
from ._distributed import agree, engine_comm, min_samples, processes_of, size_of
from ._methods import engine_options
from ._parameters import add_parameters
from ._queries import set_extras
from ._validation import (
    FIT_MISSING_ADVICE,
    as_probabilities,
    as_samples,
    check_features,
    default_feature_names,
    refuse_other_columns,
    restored_feature_names,
    seed_of,
    verbosity_of,
)


class DensityEstimator(BaseEstimator):
    """Base of the unconditional density estimators: fit(X) and every query of p(x).

    Subclasses name their method of the engine's registry (``_method``); their parameters,
    ``__init__`` and the Parameters section of their docstring are generated from the options
    of its table (see cdens._parameters). Each value of the fit report gives the fitted
    attribute of its name (the report's "bandwidth" is ``bandwidth_``).
    """

    _extra_parameters = ()
    _method = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        add_parameters(cls)

    def _fit_model(self, X, comm=None, sample_weight=None, column_names=()):
        model, extras = _core.fit(self._method, X, None, engine_options(self, self._method),
                                  comm=comm, sample_weight=sample_weight,
                                  verbose=verbosity_of(self.verbose),
                                  column_names=list(column_names))
        set_extras(self, extras)
        return model

    # -- fitting -----------------------------------------------------------------------------

    @fits_dask_collections
    def fit(self, X, y=None, sample_weight=None, comm=None, missing="error"):
        """Fits p(x) to the rows of X (n, d); y is ignored (scikit-learn's API). Returns self.

        sample_weight: one non-negative weight per row (n,), not all zero, or None, as for the
        conditional estimators (Parzen window and GMM take them, the others refuse them).
        comm: an mpi4py communicator, each process passing its own rows, dask collections as X
        and sample_weight, and missing ("error" or "drop"), as for the conditional estimators
        (docs/distributed.md says which methods run on many processes)."""
        with processes_of(comm) as processes:
            return self._fit_on(processes, X, sample_weight, missing)

    def _fit_on(self, comm, X, sample_weight, missing):
        """fit on the processes of comm (a collective, or None)."""
        def checked_samples():
            X_rows, weights = rows_and_weights_kept(missing, sample_weight, self._method, X)
            X_samples = as_samples(X_rows, "X", min_samples=min_samples(comm, 2),
                                   words_advice=f": {type(self).__name__} reads numbers only",
                                   missing_advice=FIT_MISSING_ADVICE,
                                   number_rows=size_of(comm) == 1)
            check_features(self, X_rows, reset=True)
            return X_samples, weights

        X_samples, weights = agree(comm, checked_samples)
        names = getattr(self, "feature_names_in_", None)
        names = list(names) if names is not None else default_feature_names(X_samples.shape[1])
        # The fit's messages name the columns as the user did.
        model = self._fit_model(X_samples, comm=engine_comm(comm, self._method),
                                sample_weight=weights, column_names=names)
        model.names = names
        self._set_fitted(model)
        for message in model.warnings:
            warnings.warn(message, CdensWarning, stacklevel=4)
        return self

    def _set_fitted(self, model):
        self.model_ = model
        for name, value in model.hyperparameters.items():
            setattr(self, name + "_", value)
        self.cv_results_ = cv_results_from_table(model.cross_validation)
        self.n_kernels_ = model.n_components
        self.weights_ = model.weights
        self.means_ = model.centers
        self.widths_ = model.scales

    @classmethod
    def _from_model(cls, model):
        """A fitted estimator around a loaded model; parameters that the fit chose (a width)
        are set to the chosen value, so a refit reproduces it."""
        estimator = cls()
        chosen = model.hyperparameters
        parameters = estimator.get_params()
        # The report holds numbers as floats; a count (GMM's n_components) goes back as an int.
        estimator.set_params(**{
            name: int(value) if isinstance(parameters[name], int) else value
            for name, value in chosen.items() if name in parameters})
        estimator.n_features_in_ = model.dimension
        names = restored_feature_names(model.names)
        if names is not None:
            estimator.feature_names_in_ = names
        estimator._set_fitted(model)
        return estimator

    # -- queries ------------------------------------------------------------------------------

    def _points(self, X):
        check_is_fitted(self, "model_")
        refuse_other_columns(self, X)
        X_samples = as_samples(X, "X", allow_1d=self.n_features_in_ == 1,
                               words_advice=f": {type(self).__name__} reads numbers only",
                               names=self.model_.names)
        check_features(self, X, reset=False)
        return X_samples

    def _one_dimensional(self, query):
        check_is_fitted(self, "model_")
        if self.n_features_in_ != 1:
            raise ValueError(f"{query} needs a one-dimensional density; this model has "
                             f"{self.n_features_in_} dimensions")

    def score_samples(self, X):
        """log p(x_i) in the units of X, shape (n,)."""
        return self.model_.log_pdf(self._points(X))

    def pdf(self, X):
        """p(x_i) in the units of X, shape (n,)."""
        return np.exp(self.score_samples(X))

    def score(self, X, y=None):
        """Total log-likelihood sum_i log p(x_i) (scikit-learn's KernelDensity convention), so
        GridSearchCV and cross_val_score use it without a custom scorer."""
        return float(np.sum(self.score_samples(X)))

    def sample(self, n_samples=1, random_state=None):
        """n_samples draws from p(x), shape (n_samples, d)."""
        check_is_fitted(self, "model_")
        if (not isinstance(n_samples, (int, np.integer)) or isinstance(n_samples, bool)
                or not 1 <= n_samples < 2**63):
            raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
        return self.model_.sample(int(n_samples), seed_of(random_state))

    def mean(self):
        """E[x], shape (d,)."""
        check_is_fitted(self, "model_")
        return self.model_.mean()

    def covariance(self):
        """Cov[x], shape (d, d)."""
        check_is_fitted(self, "model_")
        return self.model_.covariance()

    def cdf(self, X):
        """P(X <= x_i) of a one-dimensional density, shape (n,)."""
        self._one_dimensional("cdf")
        return self.model_.cdf(self._points(X))

    def quantiles(self, q):
        """Marginal quantiles of every dimension: shape (len(q), d), or (d,) for one number q."""
        check_is_fitted(self, "model_")
        values = self.model_.quantiles(as_probabilities(q, "q"))
        return values[0] if np.ndim(q) == 0 else values

    def hdr(self, coverage=0.9):
        """Highest-density region of probability `coverage` of a one-dimensional density: an
        array of shape (k, 2) of disjoint increasing intervals (k > 1 where p is multimodal)."""
        self._one_dimensional("hdr")
        level = float(as_probabilities(coverage, "coverage")[0])
        intervals, _threshold = self.model_.highest_density_region(level)
        return intervals

    # -- files --------------------------------------------------------------------------------

    def save(self, path):
        """Writes the fitted model in the CLI's model-file format (atomically)."""
        check_is_fitted(self, "model_")
        self.model_.save(str(path))
