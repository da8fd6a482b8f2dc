"""Discrete columns that hold labels (words such as "M", "F", "I"), as the command reads them.

A declared discrete column (``discrete=``/``ordered=``, by index or by name) or a pandas
``category`` column whose values are not all numbers is coded for the engine: label k becomes k,
the labels of an unordered column sorted (the model does not depend on the order of the rows,
and equals the command's on the same file), those of an ordered one in the order stated
(``ordered={"size": ["S", "M", "L"]}``) or of its pandas categories; an ordered column of words
without a stated order is refused. The labels are kept by name in the model (``model_.labels``,
the model file's ``variables.labels``), and the queries read and answer in them.

pandas is optional: a frame is recognised by its methods, never imported.
"""

import numbers

import numpy as np

from . import _core
from ._validation import column_names, first_word_in_column, refuse_ragged, words_refusal

_MISSING_TEXTS = frozenset(["", "NA", "N/A", "n/a", "#N/A", "NaN", "nan", "-nan", "NULL", "null",
                            "None", "<NA>"])


def is_missing(value):
    """None, NaN, pandas' NA or NaT, or a text the command reads as missing (docs/python.md)."""
    if value is None:
        return True
    if isinstance(value, str):
        return value.strip() in _MISSING_TEXTS
    try:
        return bool(value != value)  # NaN, pd.NA (whose comparison is NA: TypeError)
    except TypeError:
        return True


def is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def label_text(value):
    """A label's text by the command's one rule (the engine's label_of_text): a string trimmed,
    or, where it is a finite number ("1.0", " 2.50"), that number's shortest text ("1", "2.5");
    a number in its shortest text ("1" for 1.0), as the command reads the cells of a column of
    words."""
    if isinstance(value, str):
        return _core.label_of_text(value)
    if is_number(value):
        return _core.label_of_text(repr(float(value)))
    return str(value)


def columns_of(values, count_name):
    """The columns of X or Y as 1-D arrays (object dtype kept), with their pandas dtypes: a
    list of (array, categories or None, ordered)."""
    refuse_ragged(values, count_name)
    if hasattr(values, "iloc"):
        frame = values.to_frame() if values.ndim == 1 else values
        result = []
        for column in frame.columns:
            series = frame[column]
            categorical = getattr(series.dtype, "name", "") == "category"
            categories = list(series.cat.categories) if categorical else None
            ordered = bool(series.cat.ordered) if categorical else False
            array = (series.astype(object).to_numpy() if categorical
                     else series.to_numpy())
            result.append((array, categories, ordered))
        return result
    array = np.asarray(values, dtype=object if _holds_text(values) else None)
    if array.ndim == 1 and count_name != "X":  # a 1-D Y is one output
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise ValueError(f"{count_name} must be a 2-D array (n, d), got {array.ndim} dimensions")
    return [(array[:, d], None, False) for d in range(array.shape[1])]


def _holds_text(values):
    try:
        return np.asarray(values).dtype.kind in "OUS"
    except ValueError:
        return True


def needs_coding(values):
    """Whether X or Y holds text or pandas categories, which only a coding can read (a sparse
    matrix never: the checks refuse it by name)."""
    if hasattr(values, "toarray"):
        return False
    if hasattr(values, "iloc"):
        frame = values.to_frame() if values.ndim == 1 else values
        return any(getattr(dtype, "name", "") == "category" or dtype.kind in "OUS"
                   for dtype in frame.dtypes)
    return _holds_text(values)


def column_position(spec, names, parameter, among="the columns of X and Y"):
    """The position of a column given by name or index (not checked against the count)."""
    if isinstance(spec, str):
        if spec not in names:
            raise ValueError(f"{parameter}: column {spec!r} is none of {among} "
                             f"({', '.join(map(str, names))})")
        return names.index(spec)
    if isinstance(spec, numbers.Integral) and not isinstance(spec, bool):
        return int(spec)
    raise ValueError(f"{parameter}: a column is an index or a name, got {spec!r}")


def declared_positions(discrete, ordered, names):
    """The positions of the unordered and ordered columns (indices or names of X then Y's
    columns), and the stated label orders of `ordered` given as {column: [labels]}."""
    unordered = [] if discrete is None else [
        column_position(spec, names, "discrete")
        for spec in np.atleast_1d(np.asarray(discrete, object))]
    stated = {}
    if isinstance(ordered, dict):
        for spec, labels in ordered.items():
            position = column_position(spec, names, "ordered")
            if isinstance(labels, (str, bytes)) or not np.iterable(labels):
                raise ValueError(f"ordered: the labels of column {spec!r} must be a list in "
                                 f"their order, got {labels!r}")
            stated[position] = [label_text(label) for label in labels]
        ordered_positions = list(stated)
    else:
        specs = [] if ordered is None else np.atleast_1d(np.asarray(ordered, object))
        ordered_positions = [column_position(spec, names, "ordered") for spec in specs]
    return unordered, ordered_positions, stated


def _missing_rows(column):
    if column.dtype.kind == "f":
        return np.isnan(column)
    return np.fromiter((is_missing(value) for value in column), bool, len(column))


def _labels_of(column, name, ordered, stated, categories):
    present = [value for value in column if not is_missing(value)]
    if all(is_number(value) for value in present) and stated is None:
        return None  # numbers: the values are the levels
    if stated is not None:
        labels = stated
    elif categories is not None and ordered:
        labels = [label_text(category) for category in categories]
    elif ordered:
        raise ValueError(f"ordered column {name!r} holds words ({present[0]!r}): state their "
                         f"order, ordered={{{name!r}: [first, second, ...]}}")
    else:
        labels = sorted({label_text(value) for value in present})
    if len(set(labels)) != len(labels):
        raise ValueError(f"the stated labels of column {name!r} repeat one: {labels}")
    return labels


def code_column(column, labels, name, unknown_is_outside):
    """The codes of a column of labels (label k -> k; missing cells NaN); a label outside
    `labels` is code len(labels), no level of the model, where `unknown_is_outside` (an output:
    probability 0), a ValueError otherwise (an input, or a fit)."""
    index = {label: code for code, label in enumerate(labels)}
    codes = np.empty(len(column))
    for row, value in enumerate(column):
        if is_missing(value):
            codes[row] = np.nan
            continue
        code = index.get(label_text(value))
        if code is None:
            if not unknown_is_outside:
                raise ValueError(f"row {row}: label {value!r} of column {name!r} is not one of "
                                 f"its levels ({', '.join(labels)})")
            code = len(labels)
        codes[row] = code
    return codes


def _numbers(column, name, side, advice):
    """The column as float64 (missing cells NaN); a word refused naming the column, its row and
    the word, followed by `advice` (what to do, which depends on who reads the column)."""
    values = [np.nan if is_missing(value) else value for value in column]
    try:
        return np.array(values, dtype=np.float64)
    except ValueError:
        found = first_word_in_column(values)
        if found is None:
            raise
        row, word = found
        raise ValueError(words_refusal(side, name, row, word, advice)) from None
    except TypeError as error:  # a dict, a list: no number and no label
        raise TypeError(f"{side}: column {name!r}: {error}") from None


def fit_words_advice(estimator_name, takes_discrete):
    """What to do with a column of words in a fit (the column's name is formatted in later):
    declare it discrete where the estimator takes discrete columns, else fit one that does."""
    if takes_discrete:
        return ": if they are labels, declare it discrete (discrete=[{name!r}])"
    return (f": {estimator_name} reads numbers only; for labels fit KernelCDE or AutoCDE with "
            "discrete=[{name!r}]")


# At a query: the model read numbers in the column.
QUERY_WORDS_ADVICE = ": the model was fitted on numbers in it"


def code_fit(X, Y, x_names, y_names, discrete, ordered, words_advice=None):
    """X and Y as float arrays with their labels coded, the positions of the unordered and
    ordered columns (declared, or pandas categories), and the labels by variable name.
    words_advice: fit_words_advice's text for an undeclared column of words (by default,
    declare it discrete)."""
    if words_advice is None:
        words_advice = fit_words_advice("", True)
    names = list(x_names) + list(y_names)
    unordered, ordered_positions, stated = declared_positions(discrete, ordered, names)
    x_columns = columns_of(X, "X")
    y_columns = columns_of(Y, "Y")
    columns = x_columns + y_columns
    if not x_columns or not y_columns or not len(columns[0][0]):
        return X, Y, sorted(unordered), sorted(ordered_positions), {}  # the checks refuse them
    declared = set(unordered) | set(ordered_positions)
    labels = {}
    coded = []
    for position, (column, categories, category_ordered) in enumerate(columns):
        name = names[position] if position < len(names) else str(position)
        if categories is not None and position not in declared:
            (ordered_positions if category_ordered else unordered).append(position)
            declared.add(position)
        if position in declared:
            column_labels = _labels_of(column, name, position in ordered_positions,
                                       stated.get(position), categories)
            if column_labels is not None:
                labels[name] = column_labels
                coded.append(code_column(column, column_labels, name, False))
                continue
        coded.append(_numbers(column, name, "X" if position < len(x_columns) else "Y",
                              words_advice.format(name=name)))
    X_coded = np.column_stack(coded[:len(x_columns)])
    Y_coded = np.column_stack(coded[len(x_columns):])
    return X_coded, Y_coded, sorted(unordered), sorted(ordered_positions), labels


def code_query(values, names, labels, unknown_is_outside, count_name):
    """X or Y of a query as a float array, coding the columns that `labels` (the model's, by
    name) has; `values` unchanged when nothing needs coding."""
    if not (needs_coding(values) or any(name in labels for name in names)):
        return values
    columns = columns_of(values, count_name)
    if len(columns) != len(names) or not len(columns[0][0]):
        return values  # the checks of the query name the mismatch
    coded = [code_column(column, labels[name], name, unknown_is_outside) if name in labels
             else _numbers(column, name, count_name, QUERY_WORDS_ADVICE)
             for (column, _, _), name in zip(columns, names)]
    return np.column_stack(coded)


def recoded(X, Y, names, labels, agreed):
    """X and Y coded with `labels` (by variable name; `names`, those of X's then Y's columns),
    coded with the `agreed` labels instead: each code k becomes the position of labels[k] in
    agreed. X and Y as they are where nothing changes."""
    changed = [name for name, own in labels.items() if agreed[name] != own]
    if not changed:
        return X, Y
    X, Y = X.copy(), Y.copy()
    for name in changed:
        position = names.index(name)
        values, column = (X, position) if position < X.shape[1] else (Y, position - X.shape[1])
        codes = np.array([agreed[name].index(label) for label in labels[name]], dtype=float)
        known = ~np.isnan(values[:, column])
        values[known, column] = codes[values[known, column].astype(np.int64)]
    return X, Y


def drop_missing_rows(warn, *arrays):
    """The arrays (X, Y) without the rows that have a missing value in any; `warn(message)`
    says how many, naming the first rows (0-based)."""
    columns = [column for values, name in zip(arrays, "XY") for column, _, _ in
               columns_of(values, name)]
    missing = np.zeros(len(columns[0]) if columns else 0, bool)
    for column in columns:
        missing |= _missing_rows(column)
    if not missing.any():
        return arrays
    rows = np.flatnonzero(missing)
    if rows.size == missing.size:
        raise ValueError("every row has a missing value")
    more = f" and {rows.size - 10} more" if rows.size > 10 else ""
    shown = ", ".join(map(str, rows[:10])) + more
    warn(f"left out {rows.size} of {missing.size} rows with a missing value (rows {shown})")
    return tuple(_take(values, ~missing) for values in arrays)


def missing_refusal(advice, **arrays):
    """The refusal of the first missing value among `arrays` (keyword: the name of each, X or Y,
    None where not given), naming its column by the user's name and its row, followed by
    `advice`; None where no value is missing."""
    for name, values in arrays.items():
        if values is None:
            continue
        names = column_names(values, name, None)
        for position, (column, _, _) in enumerate(columns_of(values, name)):
            rows = np.flatnonzero(_missing_rows(column))
            if rows.size:
                return (f"{name}: column {names[position]!r} has a missing value in row "
                        f"{rows[0]}{advice}")
    return None


def _take(values, keep):
    if hasattr(values, "iloc"):
        return values.iloc[np.flatnonzero(keep)]
    return np.asarray(values, dtype=object if _holds_text(values) else None)[keep]
