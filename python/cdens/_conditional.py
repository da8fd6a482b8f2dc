"""What every conditional density estimator of cdens shares: fitting plumbing, the queries on
the fitted conditional mixture p(y|x) and model files. Each estimator class only says how to
call its fit function in the engine (the library's design: estimators compute weights, queries
are written once).
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._dask import fits_dask_collections
from ._distributed import (
    agree,
    agree_on_labels,
    engine_comm,
    min_samples,
    processes_of,
    size_of,
)
from ._labels import (
    code_fit,
    code_query,
    columns_of,
    drop_missing_rows,
    fit_words_advice,
    needs_coding,
    QUERY_WORDS_ADVICE,
    recoded,
)
from ._methods import as_sample_weights, engine_options
from ._parameters import add_parameters
from ._queries import add_queries, set_extras
from ._validation import (
    FIT_MISSING_ADVICE,
    as_probabilities,
    as_samples,
    check_features,
    default_feature_names,
    output_names,
    refuse_other_columns,
    restored_feature_names,
    row_count,
    seed_of,
    verbosity_of,
)


class CdensWarning(UserWarning):
    """A fit finished but something about it deserves attention (grid edge, empty model)."""


class ExtrapolationWarning(CdensWarning):
    """Some rows of a query lie outside the inputs the model was fitted on: an input beyond its
    training range by more than a tenth of that range, or a row no component weighs (answered by
    the marginal mixture). Their answers extrapolate. Given once per call with the count of
    rows; ``warnings.simplefilter("ignore", cdens.ExtrapolationWarning)`` silences it, and
    ``estimator.model_.extrapolated_rows(X)`` lists the rows."""


def rows_kept(missing, *arrays):
    """The arrays of a fit as given (missing="error": the checks refuse a missing value) or
    without the rows that have one (missing="drop", with a CdensWarning that counts them)."""
    if not (isinstance(missing, str) and missing in ("error", "drop")):
        raise ValueError(f'missing must be "error" or "drop", got {missing!r}')
    if missing == "error":
        return arrays
    return drop_missing_rows(lambda message: warnings.warn(message, CdensWarning, stacklevel=6),
                             *arrays)


def rows_and_weights_kept(missing, sample_weight, method_name, *arrays):
    """rows_kept of the arrays of a fit, then their sample weights (None where none are given):
    a row left out for a missing value takes its weight with it."""
    if sample_weight is None:
        return (*rows_kept(missing, *arrays), None)
    rows = row_count(arrays[0])
    weights = as_sample_weights(sample_weight, rows, method_name)
    if missing == "drop" and weights.shape[0] != rows:
        raise ValueError(f"sample_weight has {weights.shape[0]} values for {rows} rows")
    return rows_kept(missing, *arrays, weights)


def cv_results_from_table(table):
    """The engine's CV table in scikit-learn's cv_results_ layout (scores = -loss); its
    parameters are named as the options (param_regularization)."""
    if table is None:
        return None
    names = table["parameter_names"]
    candidates = table["candidates"]
    mean_loss = np.asarray(table["mean_loss"])
    order = np.argsort(mean_loss, kind="stable")
    rank = np.empty(len(mean_loss), dtype=np.int64)
    rank[order] = np.arange(1, len(mean_loss) + 1)
    results = {
        "params": [dict(zip(names, map(float, row))) for row in candidates],
        "mean_test_score": -mean_loss,
        "std_error_test_score": np.asarray(table["standard_error"]),
        "rank_test_score": rank,
        "loss": table["loss"],
    }
    for column, name in enumerate(names):
        results[f"param_{name}"] = candidates[:, column].copy()
    return results


class ConditionalDensityEstimator(BaseEstimator):
    """Base of the conditional density estimators: fit(X, Y) and every query of p(y|x).

    Subclasses name their method of the engine's registry (``_method``, or ``_method_name()``
    where a parameter such as ``estimator`` chooses it, declared in ``_extra_parameters``); their
    parameters, ``__init__`` and the Parameters section of their docstring are generated from
    the options of its table (see cdens._parameters). Each value of the fit report gives the
    fitted attribute of its name (the report's "regularization" is ``regularization_``): the
    report names a chosen value as its option, the option as its parameter.
    """

    _extra_parameters = ()
    _method = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        add_parameters(cls)
        add_queries(cls)

    def _method_name(self):
        return self._method

    def _engine_options(self):
        selectors = [parameter.name for parameter in self._extra_parameters]
        options = engine_options(self, self._method_name(), selectors)
        # Columns declared by name, by a stated order or as pandas categories: their positions.
        options.update(getattr(self, "declared_columns_", None) or {})
        return options

    def _fit_model(self, X, Y, **engine_arguments):
        """The engine's fitted model; engine_arguments are the fit's inputs beyond X and Y. The
        extras the method declares become fitted attributes (cdens._queries)."""
        model, extras = _core.fit(self._method_name(), X, Y, self._engine_options(),
                                  verbose=verbosity_of(self.verbose), **engine_arguments)
        set_extras(self, extras)
        return model

    # -- fitting -----------------------------------------------------------------------------

    @fits_dask_collections
    def fit(self, X, y, sample_weight=None, comm=None, missing="error"):
        """Fits p(y|x) to the rows of X (n, d_x) and y (n, d_y) or (n,); returns self.

        sample_weight: one non-negative weight per row (n,), not all zero, or None; an integer
        weight k counts as the row repeated k times and only relative weights matter. The
        methods whose criterion is a weighted sum take them (``cdens.methods()``, docs/methods);
        the others refuse them. comm: an mpi4py communicator (``MPI.COMM_WORLD``) in a script
        run under ``mpirun``, each process passing its own rows; every process gets the model
        of all of them. The methods of docs/distributed.md run so; the others refuse more than
        one process. X, y and sample_weight may be dask collections (arrays, dataframes or
        series partitioned alike): the workers of the current distributed client fit them so.

        missing: "error" (a missing value, NaN, None or a text such as "NA", is refused) or
        "drop" (the rows with one are left out, with their weights, and a warning counts
        them)."""
        return self._fit(X, y, comm=comm, sample_weight=sample_weight, missing=missing)

    def _coded_pairs(self, X, Y):
        """X and Y with the labels of their discrete columns coded (cdens._labels), recording
        the declared positions for the engine, the labels by variable name, and the names of
        X's then Y's columns (None where nothing is coded)."""
        self.declared_columns_ = None
        discrete, ordered = getattr(self, "discrete", None), getattr(self, "ordered", None)
        by_name = any(isinstance(spec, str) for spec_list in (discrete, ordered)
                      if spec_list is not None and not isinstance(spec_list, dict)
                      for spec in np.atleast_1d(np.asarray(spec_list, object)))
        if not (needs_coding(X) or needs_coding(Y) or by_name or isinstance(ordered, dict)):
            return X, Y, {}, None
        x_names = output_names(X, len(columns_of(X, "X")), prefix="x")
        y_names = output_names(Y, len(columns_of(Y, "Y")))
        words_advice = fit_words_advice(type(self).__name__, "discrete" in self.get_params())
        X, Y, unordered, ordered_positions, labels = code_fit(
            X, Y, x_names, y_names, discrete, ordered, words_advice)
        if (unordered or ordered_positions) and "discrete" not in self.get_params():
            names = [(x_names + y_names)[d] for d in sorted(unordered + ordered_positions)]
            raise ValueError(f"{type(self).__name__} smooths every column as continuous, and "
                             f"{', '.join(map(repr, names))} are discrete (words or pandas "
                             "categories): fit KernelCDE or AutoCDE, which take discrete columns")
        self.declared_columns_ = {name: positions for name, positions in
                                  (("discrete", unordered), ("ordered", ordered_positions))
                                  if positions}
        return X, Y, labels, x_names + y_names

    def _fit(self, X, Y, comm=None, missing="error", sample_weight=None, **engine_arguments):
        with processes_of(comm) as processes:
            return self._fit_on(processes, X, Y, missing, sample_weight, engine_arguments)

    def _fit_on(self, comm, X, Y, missing, sample_weight, engine_arguments):
        """_fit on the processes of comm (a collective, or None)."""
        def checked_pairs():
            if Y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target "
                                 "y is None")
            X_rows, Y_rows, weights = rows_and_weights_kept(missing, sample_weight,
                                                            self._method_name(), X, Y)
            fewest = min_samples(comm, 2)
            X_coded, Y_coded, labels, names = self._coded_pairs(X_rows, Y_rows)
            # A coded frame is an array: its messages keep the frame's names.
            x_names, y_names = (None, None) if names is None else (
                names[:np.shape(X_coded)[1]], names[np.shape(X_coded)[1]:])
            alone = size_of(comm) == 1
            X_samples = as_samples(X_coded, "X", min_samples=fewest, names=x_names,
                                   missing_advice=FIT_MISSING_ADVICE, number_rows=alone)
            check_features(self, X_rows, reset=True)
            Y_samples = as_samples(Y_coded, "Y", allow_1d=True, min_samples=fewest,
                                   names=y_names, missing_advice=FIT_MISSING_ADVICE,
                                   number_rows=alone)
            if X_samples.shape[0] != Y_samples.shape[0]:
                raise ValueError(
                    f"X and Y have different numbers of samples: {X_samples.shape[0]} and "
                    f"{Y_samples.shape[0]}"
                )
            return X_samples, Y_samples, weights, labels, names

        X_samples, Y_samples, weights, labels, names = agree(comm, checked_pairs)
        if weights is not None:
            engine_arguments["sample_weight"] = weights
        shared = engine_comm(comm, self._method_name())
        ordered = [names[position] for position in
                   (self.declared_columns_ or {}).get("ordered", [])]
        agreed = agree_on_labels(shared, labels, ordered, X_samples.shape[0])
        X_samples, Y_samples = recoded(X_samples, Y_samples, names, labels, agreed)
        labels = agreed
        if shared is not None:
            engine_arguments["comm"] = shared
        names = getattr(self, "feature_names_in_", None)
        x_names = list(names) if names is not None else default_feature_names(X_samples.shape[1])
        y_names = output_names(Y, Y_samples.shape[1])
        # The fit's messages name the columns as the user did.
        model = self._fit_model(X_samples, Y_samples, column_names=x_names + y_names,
                                **engine_arguments)
        model.x_names = x_names
        model.y_names = y_names
        model.labels = labels
        self._set_fitted(model)
        for message in model.warnings:
            warnings.warn(message, CdensWarning, stacklevel=5)
        return self

    def _set_fitted(self, model):
        self.model_ = model
        self.n_outputs_ = model.output_dim
        for name, value in model.hyperparameters.items():
            setattr(self, name + "_", value)
        # The value of y's atom (a point mass, e.g. the zero of a zero-inflated y), or None.
        self.atom_ = model.atom
        self.cv_results_ = cv_results_from_table(model.cross_validation)

    @classmethod
    def _from_model(cls, model):
        """A fitted estimator around a loaded model; its parameters are the chosen values
        (a chosen value that is no parameter, such as RKDE's marginal width, stays an
        attribute only)."""
        estimator = cls()
        parameters = estimator.get_params()
        estimator.set_params(**{name: value for name, value in model.hyperparameters.items()
                                if name in parameters})
        # The output bounds are the model's, not the report's: a bounded model reads back bounded.
        bounds = dict(zip(("y_lower", "y_upper"), model.output_bounds))
        estimator.set_params(**{name: value for name, value in bounds.items()
                                if name in parameters and np.isfinite(value)})
        estimator.n_features_in_ = model.input_dim
        names = restored_feature_names(model.x_names)
        if names is not None:
            estimator.feature_names_in_ = names
        estimator._set_fitted(model)
        return estimator

    # -- inputs of the queries ----------------------------------------------------------------

    def _inputs(self, X):
        """The query rows X as the engine reads them, with an ExtrapolationWarning where some lie
        outside the inputs the model was fitted on: every query of X passes here once."""
        check_is_fitted(self, "model_")
        refuse_other_columns(self, X)
        X_samples = as_samples(
            code_query(X, self.model_.x_names, self.model_.labels, False, "X"), "X",
            words_advice=QUERY_WORDS_ADVICE, names=self.model_.x_names)
        check_features(self, X, reset=False)
        message = self.model_.extrapolation_warning(X_samples)
        if message:
            warnings.warn(message, ExtrapolationWarning, stacklevel=3)
        return X_samples

    def _pairs(self, X, Y):
        X_samples = self._inputs(X)
        # A label of y the model never saw is no level: probability 0, as for a number.
        Y_coded = code_query(Y, self.model_.y_names, self.model_.labels, True, "Y")
        Y_samples = as_samples(Y_coded, "Y", allow_1d=self.n_outputs_ == 1,
                               names=self.model_.y_names)
        if Y_samples.shape[1] != self.n_outputs_:
            raise ValueError(
                f"Y has {Y_samples.shape[1]} columns but the model was fitted on "
                f"{self.n_outputs_}"
            )
        if X_samples.shape[0] != Y_samples.shape[0]:
            raise ValueError(
                f"X and Y have different numbers of samples: {X_samples.shape[0]} and "
                f"{Y_samples.shape[0]}"
            )
        return X_samples, Y_samples

    def _output_labels(self):
        """The labels of a one-dimensional labelled y, else None."""
        if self.n_outputs_ != 1:
            return None
        labels = self.model_.labels.get(self.model_.y_names[0])
        return None if labels is None else np.asarray(labels, dtype=object)

    def _scalar_output(self, query):
        if self.n_outputs_ != 1:
            raise ValueError(f"{query} needs a one-dimensional y; this model has "
                             f"{self.n_outputs_} outputs")

    # -- queries ------------------------------------------------------------------------------

    def log_pdf(self, X, Y):
        """log p(y_i | x_i) in the units of Y, shape (n,)."""
        X_samples, Y_samples = self._pairs(X, Y)
        return self.model_.log_pdf(X_samples, Y_samples)

    def pdf(self, X, Y):
        """p(y_i | x_i) in the units of Y, shape (n,)."""
        return np.exp(self.log_pdf(X, Y))

    def score(self, X, Y):
        """Mean log-likelihood (1/n) sum_i log p(y_i | x_i): larger is better, so scikit-learn's
        GridSearchCV and cross_val_score use it without a custom scorer."""
        return float(np.mean(self.log_pdf(X, Y)))

    def pdf_grid(self, X, y_grid):
        """p(g | x_i) at every grid point g: shape (n, G). For one-dimensional y the grid is a
        1-D array of G values; otherwise a (G, d_y) array of points."""
        X_samples = self._inputs(X)
        grid = as_samples(y_grid, "y_grid", allow_1d=self.n_outputs_ == 1)
        if grid.shape[1] != self.n_outputs_:
            raise ValueError(f"y_grid points have {grid.shape[1]} coordinates but the model "
                             f"has {self.n_outputs_} outputs")
        return self.model_.pdf_grid(X_samples, grid)

    def sample(self, X, n_samples=1, random_state=None):
        """n_samples draws from p(y | x_i) for every row of X: shape (n, n_samples) for
        one-dimensional y, (n, n_samples, d_y) otherwise."""
        X_samples = self._inputs(X)
        if (not isinstance(n_samples, (int, np.integer)) or isinstance(n_samples, bool)
                or not 1 <= n_samples < 2**63):
            raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}")
        draws = self.model_.sample(X_samples, int(n_samples), seed_of(random_state))
        draws = draws.reshape(X_samples.shape[0], int(n_samples), self.n_outputs_)
        labels = self._output_labels()
        if labels is not None:
            return labels[draws[:, :, 0].astype(np.int64)]
        return draws[:, :, 0] if self.n_outputs_ == 1 else draws

    def predict(self, X):
        """Conditional mean E[y | x]: shape (n,) for one-dimensional y, (n, d_y) otherwise. For
        a y of labels, the most probable label (the first of ties)."""
        X_samples = self._inputs(X)
        labels = self._output_labels()
        if labels is not None:
            codes = np.arange(len(labels), dtype=np.float64)
            log_masses = np.column_stack([
                self.model_.log_pdf(X_samples, np.full((X_samples.shape[0], 1), code))
                for code in codes])
            return labels[np.argmax(log_masses, axis=1)]
        mean = self.model_.mean(X_samples)
        return mean[:, 0] if self.n_outputs_ == 1 else mean

    def predict_var(self, X):
        """Conditional variance: shape (n,) for one-dimensional y; the covariance matrices,
        shape (n, d_y, d_y), otherwise."""
        X_samples = self._inputs(X)
        covariance = self.model_.covariance(X_samples)
        if self.n_outputs_ == 1:
            return covariance[:, 0]
        return covariance.reshape(-1, self.n_outputs_, self.n_outputs_)

    def cdf(self, X, Y):
        """P(Y <= y_i | x_i) for one-dimensional y, shape (n,)."""
        X_samples, Y_samples = self._pairs(X, Y)
        self._scalar_output("cdf")
        return self.model_.cdf(X_samples, Y_samples)

    def predict_quantiles(self, X, q):
        """Conditional quantiles for one-dimensional y: shape (n, len(q)), or (n,) for one
        number q."""
        X_samples = self._inputs(X)
        self._scalar_output("predict_quantiles")
        levels = as_probabilities(q, "q")
        values = self.model_.quantiles(X_samples, levels)
        labels = self._output_labels()
        if labels is not None:
            if self.model_.output_kinds[0] != "ordered":
                raise ValueError(f"predict_quantiles needs an ordered y; "
                                 f"{self.model_.y_names[0]!r} is unordered")
            values = labels[values.astype(np.int64)]
        return values[:, 0] if np.ndim(q) == 0 else values

    def predict_atom_probability(self, X):
        """P(y = a | x_i) of y's atom a (``atom_``: the zero of a zero-inflated y), shape (n,);
        ValueError for a model whose y has no atom."""
        X_samples = self._inputs(X)
        if self.model_.atom is None:
            raise ValueError("this model's y has no atom (atom_ is None)")
        return self.model_.atom_probability(X_samples)

    def predict_interval(self, X, coverage=0.9):
        """Equal-tailed interval of probability `coverage` for one-dimensional y: shape (n, 2),
        the (1 - coverage)/2 and (1 + coverage)/2 quantiles."""
        level = float(as_probabilities(coverage, "coverage")[0])
        return self.predict_quantiles(X, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])

    def hdr(self, X, coverage=0.9):
        """Highest-density region of probability `coverage` for one-dimensional y: for each row
        of X an array of shape (k, 2) of disjoint increasing intervals (k > 1 where p(y|x) is
        multimodal)."""
        X_samples = self._inputs(X)
        self._scalar_output("hdr")
        level = float(as_probabilities(coverage, "coverage")[0])
        regions = self.model_.highest_density_regions(X_samples, level)
        return [intervals for intervals, _threshold in regions]

    # -- files --------------------------------------------------------------------------------

    def save(self, path):
        """Writes the fitted model in the CLI's model-file format (atomically)."""
        check_is_fitted(self, "model_")
        self.model_.save(str(path))

    def _more_tags(self):
        return {"requires_y": True}
