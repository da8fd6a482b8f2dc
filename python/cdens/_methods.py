"""The engine's registry of methods: each method's options with their types, defaults and
spellings (declared once, in C++). Estimator classes build the engine's options from their
parameters through it, and ``cdens.load`` finds the class of a model file's method in it.
"""

import functools
import inspect
import re

import numpy as np

from . import _core
from ._validation import seed_of, threads_of

# The parameter of every estimator that is no option of the engine's tables: how much the fit
# tells while it runs (scikit-learn's convention; cdens._parameters adds it to every class).
VERBOSE = "verbose"


@functools.lru_cache(maxsize=None)
def _registry():
    return {method["name"]: method for method in _core.methods()}


def methods():
    """Every method of the engine, by name: family, model shape, Python class and options."""
    return _registry()


def method(name):
    """The description of one method; ValueError for a name the engine does not know."""
    try:
        return _registry()[name]
    except KeyError:
        raise ValueError(f"unknown method {name!r} (known: {', '.join(_registry())})") from None


def method_of(estimator):
    """The name of the registry's method an estimator fits (its class's, or the one its
    parameters choose among the class's methods)."""
    chooses = getattr(estimator, "_method_name", None)
    return chooses() if chooses is not None else estimator._method


def cheap_estimator(name):
    """An unfitted estimator of method `name` with the registry's test options (short grids,
    few centres and candidates: a fit of a few dozen rows in milliseconds) and random_state=0,
    as the conformance tests fit every method. The parameter that chooses among a class's
    methods (LSCE's ``estimator``) is set to the value that chooses this one."""
    import cdens

    entry = method(name)
    estimator_class = getattr(cdens, entry["python_class"])
    rows = {option["name"]: option for option in entry["options"]}
    parameters = {}
    for option_name, value in entry["test_options"].items():
        option = rows[option_name]
        # A name list is a list of strings in Python, comma-separated text in the engine.
        parameters[option["python_name"]] = (value.split(",") if option["type"] == "name_list"
                                             else value)
    if "random_state" in inspect.signature(estimator_class.__init__).parameters:
        parameters["random_state"] = 0
    for extra in estimator_class._extra_parameters:
        # Its type spells its values as numpydoc does: {"lscde", "ekde"}.
        for choice in re.findall(r'"([^"]+)"', extra.type or ""):
            if method_of(estimator_class(**{extra.name: choice})) == name:
                parameters[extra.name] = choice
    estimator = estimator_class(**parameters)
    if method_of(estimator) != name:
        raise ValueError(f"no parameter of {estimator_class.__name__} chooses method {name!r}")
    return estimator


def engine_options(estimator, method_name, selectors=()):
    """{option name: value} of method_name from the estimator's parameters: None leaves an
    option at the engine's default where that is its meaning, random_state becomes the seed
    and n_jobs the thread count. A parameter the method does not take (a class that serves
    several methods has the parameters of all) must be left at its default; `selectors` are the
    parameters that chose the method itself, and ``verbose`` goes to the fit, not its options."""
    parameters = estimator.get_params(deep=False)
    used = set(selectors) | {VERBOSE}
    values = {}
    for option in method(method_name)["options"]:
        name = option["python_name"]
        if not name:
            continue
        used.add(name)
        value = parameters[name]
        if option["type"] == "seed":
            values[option["name"]] = seed_of(value)
        elif option["type"] == "threads":
            values[option["name"]] = threads_of(value)
        elif value is not None:
            # The engine refuses an explicit 0 where 0 stands for the default (None here).
            values[option["name"]] = value
        elif not option["none_is_default"]:
            raise ValueError(f"{name} must not be None")
    defaults = class_defaults(type(estimator))
    for name, value in parameters.items():
        if name not in used and not _is_default(value, defaults[name]):
            raise ValueError(f"{name} does not apply to method {method_name} of "
                             f"{type(estimator).__name__}")
    return values


def class_defaults(estimator_class):
    """{parameter: default} of an estimator class's __init__."""
    parameters = inspect.signature(estimator_class.__init__).parameters
    return {name: p.default for name, p in parameters.items() if name != "self"}


def _is_default(value, default):
    if value is default:
        return True
    try:
        return type(value) is type(default) and bool(value == default)
    except (TypeError, ValueError):  # an array compares element by element
        return False


def as_sample_weights(sample_weight, n_samples, method_name):
    """The engine's sample weights: None, or a 1-D float64 array of n_samples weights (a number
    weighs every row alike). ValueError naming the method when it takes none; the engine refuses
    negative, non-finite or all-zero weights and a wrong length, naming the row."""
    if sample_weight is None:
        return None
    if not method(method_name)["sample_weights"]:
        raise ValueError(_core.no_sample_weights_message(method_name))
    try:
        weights = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"sample_weight must be numbers: {error}") from error
    if weights.ndim == 0:
        weights = np.full(n_samples, float(weights))
    if weights.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got an array of shape {weights.shape}")
    return np.ascontiguousarray(weights)
