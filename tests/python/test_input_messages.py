"""What Python users pass wrongly is refused with one message that says what is wrong and where:
a ragged list names its rows, a word among numbers its column (by the user's name), its row and
the word, a frame with other columns than the fit's names them, and a pair option reversed is
refused where its numbers are ordered (issue 53)."""

import numpy as np
import pandas
import pytest

import cdens
from cdens._methods import cheap_estimator, methods


@pytest.fixture(scope="module")
def cars():
    """A table as a new user has one: words beside numbers, named columns."""
    rng = np.random.default_rng(53)
    n = 80
    year = rng.integers(1935, 1955, n).astype(float)
    income = rng.uniform(500.0, 3000.0, n)
    maker = np.array(["Chrysler", "General Motors", "Westinghouse"], dtype=object)[
        rng.integers(0, 3, n)]
    value = 0.01 * income + 0.5 * (year - 1945) + rng.normal(size=n)
    return pandas.DataFrame({"year": year, "income": income, "maker": maker, "value": value})


def test_a_ragged_list_is_refused_naming_its_rows(toy):
    x, y = toy
    ragged = [[1.0, 2.0], [3.0, 4.0], [5.0]]
    message = r"X is ragged: its rows have different lengths \(row 0 has 2 values, row 2 has 1 " \
              r"value\)"
    with pytest.raises(ValueError, match=message):
        cdens.LSCDE().fit(ragged, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=message):
        cdens.KernelCDE().fit(ragged, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=message):
        cdens.ParzenWindow().fit(ragged)
    with pytest.raises(ValueError, match=r"row 0 has a single value, row 1 has 2 values"):
        cdens.LSCDE().fit([1.0, [2.0, 3.0], 4.0], [1.0, 2.0, 3.0])
    fitted = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    with pytest.raises(ValueError, match=r"X is ragged: .*row 1 has 2 values"):
        fitted.predict([[0.5], [0.1, 0.2]])


def test_a_word_among_numbers_is_named_with_its_row_and_column(toy, cars):
    x, y = toy
    words = x.astype(object)
    words[17, 0] = "abc"
    # An estimator that takes discrete columns is told to declare it; one that does not is told
    # which do.
    with pytest.raises(ValueError, match=r"^X: column 'x0' holds words where numbers are "
                                         r"expected \('abc' in row 17\): if they are labels, "
                                         r"declare it discrete \(discrete=\['x0'\]\)$"):
        cdens.KernelCDE().fit(words, y)
    with pytest.raises(ValueError, match=r"^X: column 'x0' holds words where numbers are "
                                         r"expected \('abc' in row 17\): LSCDE reads numbers "
                                         r"only; for labels fit KernelCDE or AutoCDE with "
                                         r"discrete=\['x0'\]$"):
        cdens.LSCDE().fit(words, y)
    # A frame's column by its name; a density by its class.
    with pytest.raises(ValueError, match=r"column 'maker' holds words where numbers are "
                                         r"expected \('[A-Za-z ]+' in row 0\): "
                                         r"LinearGaussianCDE reads numbers only"):
        cdens.LinearGaussianCDE().fit(cars[["year", "maker"]], cars["value"])
    with pytest.raises(ValueError, match=r"^X: column 'maker' holds words where numbers are "
                                         r"expected \('[A-Za-z ]+' in row 0\): ParzenWindow "
                                         r"reads numbers only$"):
        cdens.ParzenWindow().fit(cars[["year", "maker"]])
    # At a query, the model read numbers there.
    fitted = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    with pytest.raises(ValueError, match=r"^X: column 'x0' holds words where numbers are "
                                         r"expected \('abc' in row 17\): the model was fitted "
                                         r"on numbers in it$"):
        fitted.predict(words)


def test_a_frame_with_other_columns_than_the_fit_is_refused_naming_them(cars):
    inputs = cars[["year", "income"]]
    model = cdens.LinearGaussianCDE().fit(inputs, cars["value"])
    with pytest.raises(ValueError, match=r"^X has the unexpected column 'maker' \(the model was "
                                         r"fitted on 'year', 'income'\): pass "
                                         r"X\[\['year', 'income'\]\]$"):
        model.predict(cars[["year", "income", "maker"]])
    with pytest.raises(ValueError, match=r"^X has no column 'income' \(the model was fitted on "
                                         r"'year', 'income'\)$"):
        model.predict(cars[["year"]])
    with pytest.raises(ValueError, match=r"^X has the unexpected column 'maker' and no column "
                                         r"'income'"):
        model.log_pdf(cars[["year", "maker"]], cars["value"])
    with pytest.raises(ValueError, match=r"^X has the columns of the fit in another order "
                                         r"\('income', 'year'; the model was fitted on 'year', "
                                         r"'income'\): pass X\[\['year', 'income'\]\]$"):
        model.predict(cars[["income", "year"]])
    # Selected as the message says, the frame is answered as at the fit.
    np.testing.assert_array_equal(model.predict(cars[["year", "income", "maker"]][
        ["year", "income"]]), model.predict(inputs))
    density = cdens.ParzenWindow(bandwidth=0.5).fit(inputs)
    with pytest.raises(ValueError, match=r"X has the unexpected column 'maker'"):
        density.score_samples(cars[["year", "income", "maker"]])
    # An array of words with a column too many: the width is what is wrong, not the words.
    extra = cars[["year", "income", "maker"]].to_numpy()
    for fitted, query in ((cdens.LinearGaussianCDE().fit(inputs.to_numpy(), cars["value"]),
                           "predict"),
                          (cdens.ParzenWindow(bandwidth=0.5).fit(inputs.to_numpy()),
                           "score_samples")):
        with pytest.raises(ValueError, match=rf"^X has 3 features, but "
                                             rf"{type(fitted).__name__} is expecting 2 features "
                                             r"as input$"):
            getattr(fitted, query)(extra)


def test_every_ordered_pair_option_refuses_reversed_bounds_at_fit(toy):
    x, y = toy
    rng = np.random.default_rng(0)
    checked = []
    for name, entry in methods().items():
        for option in entry["options"]:
            if option["type"] != "real_pair" or not option["python_name"]:
                continue
            if not option["ordered"]:
                # An unordered pair says so in its doc, and is taken in either order.
                assert "either may be the larger" in option["doc"], (name, option["name"])
                continue
            estimator = cheap_estimator(name)
            lower, upper = option["default"]
            estimator.set_params(**{option["python_name"]: (upper, lower)})
            data = (x,) if entry["family"] == "density" else (x, y)
            with pytest.raises(ValueError, match=rf"{option['python_name']}: the lower bound "
                                                 r"\S+ must be smaller than the upper bound"):
                estimator.fit(*data)
            checked.append((name, option["name"]))
    assert ("kcde", "bandwidth_bounds") in checked and ("gmm", "box") in checked
    # GSKD's bounds multiply two different variances: (2, 0.5) is a box like any other, as its
    # documentation says.
    assert "either may be the larger" in cdens.GSKD.__doc__
    points = rng.normal(size=(60, 1))
    for bounds in ((2.0, 0.5), (0.5, 2.0)):
        fitted = cdens.GSKD(variance_bounds=bounds, stopping="paper", generations=2,
                            iterations=30, random_state=0).fit(points)
        assert np.all(np.isfinite(fitted.score_samples(points)))


def test_a_missing_or_infinite_value_is_named_by_column_and_row(cars):
    inputs = cars[["year", "income"]].copy()
    inputs.loc[7, "income"] = np.nan
    value = cars["value"]
    with pytest.raises(ValueError, match=r"^X: column 'income' has a missing value \(NaN\) in row "
                                         r"7: fit\(\.\.\., missing=\"drop\"\) leaves out the rows "
                                         r"with one$"):
        cdens.LinearGaussianCDE().fit(inputs, value)
    # The advice holds: the row is left out, with a warning that counts it.
    with pytest.warns(cdens.CdensWarning, match=r"left out 1 of 80 rows with a missing value "
                                                r"\(rows 7\)"):
        cdens.LinearGaussianCDE().fit(inputs, value, missing="drop")
    with pytest.raises(ValueError, match=r"^Y: column 'value' has a missing value \(NaN\) in row "
                                         r"3"):
        cdens.LSCDE().fit(cars[["year"]], value.where(value.index != 3))
    with pytest.raises(ValueError, match=r"^X: column 'income' has a missing value \(NaN\) in row "
                                         r"7: fit"):
        cdens.ParzenWindow().fit(inputs)
    # Labels coded for the engine keep the frame's names in the message.
    with pytest.raises(ValueError, match=r"^X: column 'income' has a missing value \(NaN\) in row "
                                         r"7"):
        cdens.KernelCDE(discrete=["maker"]).fit(inputs.assign(maker=cars["maker"]), value)
    infinite = cars[["year", "income"]].copy()
    infinite.loc[9, "year"] = -np.inf
    model = cdens.LinearGaussianCDE().fit(cars[["year", "income"]], value)
    with pytest.raises(ValueError, match=r"^X: column 'year' holds an infinity \(-inf\) in row 9: "
                                         r"every value must be a finite number$"):
        model.predict(infinite)
    # At a query a NaN is no missing row to drop: the message stops at where it is.
    with pytest.raises(ValueError, match=r"^X: column 'income' has a missing value \(NaN\) in row "
                                         r"7$"):
        model.predict(inputs)
