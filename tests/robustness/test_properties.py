"""Properties of the Python API over arbitrary arrays and parameters (python3-hypothesis).

Every estimator, fitted on arrays of any dtype, memory layout, scale and shape, and queried with
any such array, must either refuse with a ValueError or TypeError that names the parameter, or
answer with finite numbers: log-densities, means, variances, draws, quantiles, and densities on a
grid that integrate to 1. Every parameter, given a hostile value (a fraction for a count, a
negative or non-finite number, a bound beyond what the kernels can take, the wrong type), must be
refused the same way or give such an answer.

The examples are derandomised (the same on every run) and few per test, so that the file runs in
well under a minute; tests/robustness/README.md explains the choice of strategies.
"""

import functools
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cdens
from cdens._methods import cheap_estimator, method_of, methods

SETTINGS = settings(derandomize=True, max_examples=80, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


# Every estimator class of the registry, each with the cheap test options of its default method
# (the registry's test_options: a handful of candidates, so that an example costs milliseconds).
# The properties do not depend on them.
def _classes(density):
    chosen = {}
    for _, entry in sorted(methods().items()):
        if (entry["family"] == "density") != density or entry["python_class"] in chosen:
            continue
        default_method = method_of(getattr(cdens, entry["python_class"])())
        chosen[entry["python_class"]] = functools.partial(cheap_estimator, default_method)
    return chosen


CONDITIONAL = _classes(density=False)
DENSITY = _classes(density=True)

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.uint8, np.bool_,
          np.complex128, np.longdouble, object]


def names_parameter(error, *names):
    """Whether the message of `error` names one of `names` as a word (or its plural)."""
    message = str(error)
    return any(re.search(rf"(?<![A-Za-z_]){re.escape(name)}s?(?![A-Za-z_])", message,
                         re.IGNORECASE) for name in names)


@st.composite
def arrays(draw, min_rows=0, max_rows=40, columns=(0, 3), allow_1d=True):
    """An array of any dtype, shape, layout and scale, and the scale it was drawn at."""
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(*columns))
    one_d = allow_1d and d == 1 and draw(st.booleans())
    dtype = draw(st.sampled_from(DTYPES))
    exponent = draw(st.sampled_from([0, 0, -300, -150, -14, 14, 150, 250, 300]))
    base = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).normal(size=(n, d))
    # Some columns with ties, as integer scores have.
    if d and draw(st.booleans()):
        base[:, 0] = np.round(base[:, 0] * 2)
    with np.errstate(all="ignore"):
        values = base * 10.0**exponent
        if dtype is object:
            array = values.astype(object)
        elif np.dtype(dtype).kind in "iub":
            array = (base * 5).astype(dtype)
        else:
            array = values.astype(dtype)
    special = draw(st.sampled_from([None, None, None, "nan", "inf", "fortran", "strided"]))
    if special in ("nan", "inf") and array.size and np.dtype(array.dtype).kind in "fc":
        array = array.copy()
        array.flat[draw(st.integers(0, array.size - 1))] = np.nan if special == "nan" else np.inf
    elif special == "fortran":
        array = np.asfortranarray(array)
    elif special == "strided" and n >= 2:
        array = np.repeat(array, 2, axis=0)[::2]
    if one_d:
        array = array[:, 0]
    return array


def finite(values, what):
    values = np.asarray(values, dtype=float)
    assert np.all(np.isfinite(values)), f"{what} is not finite: {values}"


def check_conditional_answers(estimator, X, Y):
    """Every query of a fitted conditional estimator gives finite, normalised answers."""
    n_outputs = estimator.n_outputs_
    finite(estimator.predict(X), "predict")
    variance = np.asarray(estimator.predict_var(X), dtype=float)
    # Outputs near 1e250 have variances near 1e500, beyond any double: only there may they be
    # infinite.
    if Y is None or np.max(np.abs(Y), initial=0.0) < 1e150:
        finite(variance, "predict_var")
    if variance.ndim == 3 and np.all(np.isfinite(variance)):
        variance = np.linalg.eigvalsh(variance)  # covariance matrices: positive semi-definite
    assert not np.any(variance < -1e-9 * np.max(np.abs(variance), initial=1.0))
    finite(estimator.sample(X[:3], n_samples=4, random_state=1), "sample")
    if Y is not None:
        log_density = estimator.log_pdf(X, Y)
        assert not np.any(np.isnan(log_density)), "log_pdf is NaN"
    if n_outputs == 1 and not getattr(estimator, "discrete_outputs_", False):
        q = estimator.predict_quantiles(X[:3], [0.1, 0.5, 0.9])
        finite(q, "predict_quantiles")
        assert np.all(np.diff(q, axis=-1) >= -1e-9 * np.maximum(1.0, np.abs(q[..., :-1])))
        # The density of y given x integrates to 1 over a grid wide enough for its spread.
        mean = np.asarray(estimator.predict(X[:2]), dtype=float).reshape(-1)
        spread = np.sqrt(np.asarray(estimator.predict_var(X[:2]), dtype=float).reshape(-1))
        for j in range(len(mean)):
            if not spread[j] > 0:
                continue
            grid = np.linspace(q[j, 0] - 40 * spread[j], q[j, -1] + 40 * spread[j], 20001)
            if not np.all(np.isfinite(grid)) or np.ptp(grid) == 0:
                continue
            density = estimator.pdf_grid(X[j:j + 1], grid)[0]
            finite(density, "pdf_grid")
            with np.errstate(all="ignore"):
                mass = np.trapz(density, grid)
            # A narrow model (spikes on tied outputs) is resolved only by a finer grid: the check
            # applies where the grid resolves the smallest kernel.
            if np.isfinite(mass) and spread[j] / (grid[1] - grid[0]) > 50:
                assert abs(mass - 1.0) < 0.02, f"the density integrates to {mass}"


def fit_or_refuse(estimator, X, Y, names):
    """The fitted estimator, or None when it refused with an error naming one of `names`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return estimator.fit(X, Y) if Y is not None else estimator.fit(X)
    except (ValueError, TypeError) as error:
        assert names_parameter(error, *names), f"{type(error).__name__} names none of " \
                                               f"{names}: {error}"
        return None


@pytest.mark.parametrize("name", sorted(CONDITIONAL))
@SETTINGS
@given(data=st.data())
def test_conditional_fit_any_arrays(name, data):
    X = data.draw(arrays(columns=(0, 2)), label="X")
    Y = data.draw(arrays(min_rows=len(X), max_rows=len(X), columns=(0, 2)), label="Y")
    # The engine's errors call a column by position ("x dimension 0") or name ("column 'y0'").
    estimator = fit_or_refuse(CONDITIONAL[name](), X, Y, ["X", "Y", "x", "y", "y0", "y1"])
    if estimator is None:
        return
    X_query = np.asarray(X, dtype=float).reshape(len(X), -1)
    Y_query = np.asarray(Y, dtype=float)
    check_conditional_answers(estimator, X_query, Y_query)


@pytest.mark.parametrize("name", sorted(DENSITY))
@SETTINGS
@given(data=st.data())
def test_density_fit_any_arrays(name, data):
    X = data.draw(arrays(columns=(0, 2)), label="X")
    estimator = fit_or_refuse(DENSITY[name](), X, None, ["X", "x"])
    if estimator is None:
        return
    X_query = np.asarray(X, dtype=float).reshape(len(X), -1)
    assert not np.any(np.isnan(estimator.score_samples(X_query)))
    finite(estimator.sample(5, random_state=0), "sample")
    finite(estimator.mean(), "mean")
    # Data near 1e250 have a variance near 1e500, beyond any double: only there may it be inf.
    if np.max(np.abs(X_query)) < 1e150:
        finite(estimator.covariance(), "covariance")
    quantiles = estimator.quantiles([0.1, 0.9])
    finite(quantiles, "quantiles")
    if estimator.n_features_in_ == 1:
        # The density integrates to 1 over a grid wide enough for its spread, where the grid
        # resolves its narrowest kernel.
        spread = float(np.sqrt(estimator.covariance()[0, 0]))
        if not (spread > 0 and np.isfinite(spread)):
            return  # a variance beyond what a double holds (data near 1e±300)
        low, high = quantiles[0, 0] - 40 * spread, quantiles[1, 0] + 40 * spread
        grid = np.linspace(low, high, 20001)
        if np.all(np.isfinite(grid)) and np.min(estimator.widths_) / (grid[1] - grid[0]) > 50:
            mass = np.trapz(estimator.pdf(grid.reshape(-1, 1)), grid)
            assert abs(mass - 1.0) < 0.02, f"the density integrates to {mass}"


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2))
    Y = X[:, :1] + 0.3 * rng.normal(size=(80, 1))
    models = {name: make().fit(X, Y[:, 0]) for name, make in CONDITIONAL.items()}
    densities = {name: make().fit(X) for name, make in DENSITY.items()}
    return models, densities


@pytest.mark.parametrize("name", sorted(CONDITIONAL))
@SETTINGS
@given(data=st.data())
def test_conditional_queries_any_arrays(fitted, name, data):
    estimator = fitted[0][name]
    X = data.draw(arrays(min_rows=1, columns=(1, 3), allow_1d=False), label="X")
    query = data.draw(st.sampled_from(["log_pdf", "predict", "predict_var", "cdf",
                                       "predict_quantiles", "sample", "pdf_grid", "hdr"]))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if query in ("log_pdf", "cdf"):
                answer = getattr(estimator, query)(X, np.zeros(len(X)))
            elif query == "predict_quantiles":
                answer = estimator.predict_quantiles(X, [0.25, 0.75])
            elif query == "sample":
                answer = estimator.sample(X, n_samples=2, random_state=0)
            elif query == "pdf_grid":
                answer = estimator.pdf_grid(X, np.linspace(-3, 3, 7))
            elif query == "hdr":
                answer = estimator.hdr(X[:2])
                return  # a list of intervals per point; refusing or answering is enough
            else:
                answer = getattr(estimator, query)(X)
    except (ValueError, TypeError) as error:
        assert names_parameter(error, "X", "x", "Y", "y"), str(error)
        return
    values = np.asarray(answer, dtype=float)
    if query == "log_pdf":
        assert not np.any(np.isnan(values))
    else:
        finite(values, query)
    if query == "cdf":
        assert np.all((values >= 0) & (values <= 1))


HOSTILE = [2.5, -1, 0, 0.0, np.nan, np.inf, -np.inf, 1e300, 1e-300, 2**70, -(2**70), "abc", "",
           True, [], [0.5, np.nan], (3.0, 1.0), [1e-300, 1.0], {"a": 1}, np.float32(2.5),
           np.int64(3), None]


@pytest.mark.parametrize("name", sorted(CONDITIONAL) + sorted(DENSITY))
@settings(derandomize=True, max_examples=100, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_hostile_parameters(name, data):
    make = CONDITIONAL.get(name) or DENSITY[name]
    estimator = make()
    if not estimator.get_params():
        return  # LinearGaussianCDE has no parameter
    parameters = sorted(estimator.get_params())
    parameter = data.draw(st.sampled_from(parameters), label="parameter")
    value = data.draw(st.sampled_from(HOSTILE), label="value")
    estimator.set_params(**{parameter: value})
    rng = np.random.default_rng(5)
    X = rng.normal(size=(40, 1))
    Y = X[:, 0] + 0.3 * rng.normal(size=40)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if name in DENSITY:
                estimator.fit(X)
            else:
                estimator.fit(X, Y)
    except (ValueError, TypeError) as error:
        assert names_parameter(error, parameter), f"refusing {parameter}={value!r}: {error}"
        return
    # Accepted: the value must have been meant (no rounding of a fraction into a count) and the
    # answers must be finite.
    if isinstance(value, (float, np.floating)) and np.isfinite(value) and value != int(value):
        assert not isinstance(make().get_params()[parameter], int), \
            f"{parameter}={value!r} was accepted by an integer parameter"
    if name in DENSITY:
        assert not np.any(np.isnan(estimator.score_samples(X)))
        finite(estimator.sample(3, random_state=0), "sample")
    else:
        check_conditional_answers(estimator, X, Y)


@pytest.mark.parametrize("n_samples", [0, -1, 2.5, 10**12, 2**70, True, "3"])
def test_sample_sizes_are_refused_naming_n_samples(fitted, n_samples):
    models, densities = fitted
    X = np.zeros((2, 2))
    with pytest.raises((ValueError, TypeError), match="n_samples"):
        models["LSCDE"].sample(X, n_samples=n_samples)
    with pytest.raises((ValueError, TypeError), match="n_samples"):
        densities["ParzenWindow"].sample(n_samples)


@pytest.mark.parametrize("seed", [2**64, 2**70, -1])
def test_seed_out_of_range_is_refused(seed):
    X = np.random.default_rng(0).normal(size=(30, 1))
    with pytest.raises(ValueError, match="random_state"):
        CONDITIONAL["LSCDE"]().set_params(random_state=seed).fit(X, X[:, 0] ** 2)


def test_largest_seed_is_accepted():
    X = np.random.default_rng(0).normal(size=(30, 1))
    CONDITIONAL["LSCDE"]().set_params(random_state=2**64 - 1).fit(X, X[:, 0] ** 2)
