"""Turning what users pass (arrays, lists, pandas frames, 1-D outputs) into what the engine reads.

The engine reads an (n, d) C-order float64 array as its d x n column-major sample matrix, so such
an array crosses without a copy. Anything else is converted once here; a conversion that would
change a value (huge integers, extended precision) is refused rather than done quietly.
"""

import numbers
import re

import numpy as np
from sklearn.utils import check_array, check_random_state

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import _check_feature_names, _check_n_features

    def check_features(estimator, X, reset):
        _check_n_features(estimator, X, reset=reset)
        _check_feature_names(estimator, X, reset=reset)

except ImportError:  # scikit-learn < 1.6 keeps them as estimator methods

    def check_features(estimator, X, reset):
        estimator._check_n_features(X, reset=reset)
        estimator._check_feature_names(X, reset=reset)


def _quoted(names):
    return ", ".join(repr(str(name)) for name in names)


def refuse_other_columns(estimator, X, name="X"):
    """ValueError where the columns of X are not those the estimator was fitted on: an array of
    another width (scikit-learn's words), a frame's columns against feature_names_in_ naming the
    unexpected ones, the missing ones, or the order, so that a frame with one column more is not
    read as numbers in the wrong places."""
    refuse_ragged(X, name)
    expected = getattr(estimator, "n_features_in_", None)
    # An array's or a list's shape (other array-likes are read first, then checked).
    shape = np.shape(X) if isinstance(X, (np.ndarray, list, tuple)) else ()
    if expected is not None and len(shape) == 2 and shape[1] != expected:
        # Before any value is read: a word in a column too many is no word in a column of
        # numbers.
        raise ValueError(f"{name} has {shape[1]} features, but {type(estimator).__name__} "
                         f"is expecting {expected} features as input")
    fitted = getattr(estimator, "feature_names_in_", None)
    columns = getattr(X, "columns", None)
    if fitted is None or columns is None or not all(isinstance(c, str) for c in columns):
        return
    fitted, given = [str(column) for column in fitted], list(columns)
    if given == fitted:
        return
    extra = [column for column in given if column not in fitted]
    missing = [column for column in fitted if column not in given]
    selection = f"pass {name}[[{_quoted(fitted)}]]"
    if not extra and not missing:
        raise ValueError(f"{name} has the columns of the fit in another order ({_quoted(given)}; "
                         f"the model was fitted on {_quoted(fitted)}): {selection}")
    said = []
    if extra:
        said.append(f"the unexpected column{'s' if len(extra) > 1 else ''} {_quoted(extra)}")
    if missing:
        said.append(f"no column{'s' if len(missing) > 1 else ''} {_quoted(missing)}")
    advice = f": {selection}" if not missing else ""
    raise ValueError(f"{name} has {' and '.join(said)} (the model was fitted on "
                     f"{_quoted(fitted)}){advice}")


def row_count(values):
    """The number of rows of an array-like (lists, arrays, frames, objects with __array__); 0
    for a scalar, which the checks of the samples then refuse."""
    if hasattr(values, "__len__"):
        return len(values)
    shape = np.asarray(values).shape  # array-likes that only convert (__array__)
    return shape[0] if shape else 0


def default_feature_names(count):
    """The names a fit gives inputs passed without names (an array): x0, x1, …"""
    return [f"x{k}" for k in range(count)]


def restored_feature_names(names):
    """feature_names_in_ of an estimator read from a model file: the file's input names where
    the fit had them (a CSV header, DataFrame columns), so that a DataFrame with its columns in
    another order is refused as after the fit; None where the fit made up x0, x1, …"""
    names = list(names)
    if names == default_feature_names(len(names)):
        return None
    return np.asarray(names, dtype=object)


_EXACT_INTEGER_LIMIT = 2**53  # every integer of smaller magnitude is exactly a float64


def _refuse_lossy_array(array, name):
    if array.dtype.kind in "iu" and array.size:
        largest = max(abs(int(array.min())), abs(int(array.max())))
        if largest > _EXACT_INTEGER_LIMIT:
            raise ValueError(
                f"{name} holds integers up to {largest}, beyond 2**53: they cannot be represented "
                "exactly as float64; convert them yourself if rounding is acceptable"
            )
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:
        raise ValueError(
            f"{name} has dtype {array.dtype}, which float64 would round; convert it yourself "
            "if that is acceptable"
        )


def _refuse_lossy_dtype(values, name):
    """ValueError where converting to float64 would change a value."""
    if hasattr(values, "iloc"):  # pandas Series or DataFrame: column by column
        frame = values.to_frame() if values.ndim == 1 else values
        for column in frame.columns:
            _refuse_lossy_array(frame[column].to_numpy(), name)
    elif isinstance(values, np.ndarray):
        _refuse_lossy_array(values, name)
    elif isinstance(values, (list, tuple)):
        try:
            array = np.asarray(values)
        except ValueError:
            return  # ragged: check_array reports it
        _refuse_lossy_array(array, name)


def _is_row(value):
    """Whether an item of a list of rows is itself a sequence (a row), not a number or a word."""
    return hasattr(value, "__len__") and not isinstance(value, (str, bytes))


def refuse_ragged(values, name):
    """ValueError naming the first row whose length differs from the first row's, for a list of
    rows (or an object array of them) of different lengths; nothing for anything else."""
    if isinstance(values, np.ndarray):
        if values.dtype != object or values.ndim != 1:
            return
    elif not isinstance(values, (list, tuple)):
        return
    if not len(values) or not any(_is_row(row) for row in values):
        return

    def told(length):
        if length is None:
            return "a single value"
        return f"{length} value" + ("" if length == 1 else "s")

    lengths = [len(row) if _is_row(row) else None for row in values]
    for row, length in enumerate(lengths):
        if length != lengths[0]:
            raise ValueError(f"{name} is ragged: its rows have different lengths (row 0 has "
                             f"{told(lengths[0])}, row {row} has {told(length)}); every row "
                             "needs one value per column")


def first_word(values):
    """(column, row, value) of the first cell of a 2-D array-like that is no number (a word),
    or None."""
    try:
        if hasattr(values, "iloc"):
            frame = values.to_frame() if values.ndim == 1 else values
            columns = [frame[column].to_numpy() for column in frame.columns]
        else:
            array = np.asarray(values, dtype=object)
            if array.ndim == 1:
                array = array.reshape(-1, 1)
            if array.ndim != 2:
                return None
            columns = [array[:, d] for d in range(array.shape[1])]
    except (TypeError, ValueError):
        return None
    for position, column in enumerate(columns):
        found = first_word_in_column(column)
        if found is not None:
            return (position, *found)
    return None


def first_word_in_column(column):
    """(row, value) of the first cell of a 1-D column that is a word, not a number, or None."""
    if getattr(column, "dtype", np.dtype(object)).kind in "biuf":
        return None
    for row, value in enumerate(column):
        if isinstance(value, (str, bytes)):
            try:
                float(value)
            except ValueError:
                return row, value
    return None


def column_names(values, name, names):
    """`names` where they are as many as the columns of `values`, else their own names (a
    frame's, else x0, … or y0, …)."""
    columns = np.shape(values)[1] if np.ndim(values) == 2 else 1
    if names is not None and len(names) == columns:
        return list(names)
    return output_names(values, columns, "x" if name.startswith("X") else "y")


def words_message(values, name, advice="", names=None, number_rows=True):
    """The refusal of a word among the numbers of X or Y: its column by the user's name, its
    row (where `number_rows`) and the word; None where no cell is a word."""
    found = first_word(values)
    if found is None:
        return None
    position, row, word = found
    return words_refusal(name, column_names(values, name, names)[position],
                         row if number_rows else None, word, advice)


def nonfinite_message(values, name, missing_advice="", names=None, number_rows=True):
    """The refusal of a NaN or an infinity in X or Y: its column by the user's name and its row
    (where `number_rows`; a NaN is a missing value, followed by `missing_advice`); None where
    every value is finite or the values are no numbers."""
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2 or np.isfinite(array).all():
        return None
    row, position = (int(index) for index in np.argwhere(~np.isfinite(array))[0])
    column = column_names(values, name, names)[position]
    value, where = array[row, position], _in_row(row if number_rows else None)
    if np.isnan(value):
        return f"{name}: column {column!r} has a missing value (NaN){where}{missing_advice}"
    return (f"{name}: column {column!r} holds an infinity ({value}){where}: every value must be "
            "a finite number")


def _in_row(row):
    """" in row 7", or nothing for a row whose number would mislead: on one of several
    processes, which holds some of the rows only."""
    return "" if row is None else f" in row {row}"


def words_refusal(side, column, row, word, advice):
    """The message refusing `word` in row `row` (None: not said) of a column of numbers."""
    return (f"{side}: column {column!r} holds words where numbers are expected "
            f"({word!r}{_in_row(row)}){advice}")


def as_samples(values, name, *, allow_1d=False, min_samples=1, words_advice="",
               missing_advice="", names=None, number_rows=True):
    """(n, d) C-order float64 array of finite values; a 1-D input is (n, 1) when allowed. A word
    among the numbers is refused naming its column (by `names`, else the frame's or x0, …), its
    row and the word, followed by `words_advice`; a NaN or an infinity naming its column and row
    (a NaN followed by `missing_advice`). number_rows=False leaves the row unsaid: the rows of one
    of several processes are not numbered as the user's."""
    refuse_ragged(values, name)
    _refuse_lossy_dtype(values, name)
    try:
        array = check_array(
            values,
            dtype=np.float64,
            order="C",
            ensure_2d=not allow_1d,
            ensure_min_samples=min_samples,
            input_name=name,
        )
    except (ValueError, TypeError) as error:
        told = (words_message(values, name, words_advice, names, number_rows)
                or nonfinite_message(values, name, missing_advice, names, number_rows))
        if told is not None:
            raise ValueError(told) from None
        # scikit-learn names the input in some messages only ("Found array with 0 sample(s)"
        # does not say which); every refusal here names the parameter.
        if re.search(rf"\b{re.escape(name)}\b", str(error)):
            raise
        raise type(error)(f"{name}: {error}") from error
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    return array


def as_probabilities(values, name):
    """A 1-D float64 array of numbers strictly between 0 and 1."""
    array = np.atleast_1d(np.asarray(values, dtype=np.float64))
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"{name} must be a number or a 1-D list of numbers")
    if not np.all((array > 0.0) & (array < 1.0)):
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {array.tolist()}")
    return array


def seed_of(random_state):
    """The engine's 64-bit seed: an int is used as given, None or a RandomState draws one."""
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if not 0 <= random_state < 2**64:
            raise ValueError(f"random_state must be an integer from 0 to 2**64 - 1, got "
                             f"{random_state}")
        return int(random_state)
    try:
        state = check_random_state(random_state)
    except (ValueError, TypeError) as error:
        raise ValueError(f"random_state must be None, an integer or a numpy RandomState: "
                         f"{error}") from None
    return int(state.randint(np.iinfo(np.int32).max))


def verbosity_of(verbose):
    """The engine's verbosity, 0 (silent) or 1 (progress on sys.stderr), from a non-negative
    integer: a bool counts as 0 or 1, as in scikit-learn, and a larger number says no more than
    1 (the engine has no more detail to give)."""
    if not isinstance(verbose, numbers.Integral) or verbose < 0:
        raise ValueError(f"verbose must be a non-negative integer (0: silent, 1: progress), "
                         f"got {verbose!r}")
    return 1 if verbose > 0 else 0


def threads_of(n_jobs):
    """OpenMP threads: None or -1 use every core other processes leave free (0 tells the engine),
    k > 0 uses k."""
    if n_jobs is None or n_jobs == -1:
        return 0
    if not isinstance(n_jobs, numbers.Integral) or n_jobs < 1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}")
    return int(n_jobs)


# What a fit's refusal of a missing value adds (the queries answer every row).
FIT_MISSING_ADVICE = ": fit(..., missing=\"drop\") leaves out the rows with one"


def output_names(Y, count, prefix="y"):
    """Column names of a pandas output (or input, prefix "x"), else y0, y1, ..."""
    name = getattr(Y, "name", None)
    if count == 1 and isinstance(name, str):
        return [name]
    columns = getattr(Y, "columns", None)
    if columns is not None and all(isinstance(column, str) for column in columns):
        return list(columns)
    return [f"{prefix}{k}" for k in range(count)]
