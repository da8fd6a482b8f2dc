"""Arrays across the boundary: no copy for C-order float64, one exact conversion otherwise."""

import numpy as np
import pandas as pd
import pytest

import cdens
from cdens import _core
from cdens._validation import as_samples


def test_c_order_float64_input_reaches_the_engine_without_a_copy(toy):
    x, _ = toy
    converted = as_samples(x, "X")
    assert converted is x
    assert _core.buffer_address(converted) == x.ctypes.data


def test_engine_refuses_layouts_it_would_have_to_copy():
    with pytest.raises(TypeError, match="C-order float64"):
        _core.buffer_address(np.asfortranarray(np.ones((4, 3))))
    with pytest.raises(TypeError, match="C-order float64"):
        _core.buffer_address(np.ones((4, 3), dtype=np.float32))


def test_results_own_their_memory_without_a_copy(toy):
    x, y = toy
    model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    mean = model.model_.mean(as_samples(x, "X"))
    # The array views the Eigen matrix the engine returned (a capsule owns it).
    assert mean.base is not None and not mean.flags.owndata


def test_other_dtypes_and_layouts_give_the_same_model(toy):
    x, y = toy
    x32 = x.astype(np.float32)
    exact = x32.astype(np.float64)  # float32 -> float64 is exact
    reference = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(exact, y)
    for variant in (x32, np.asfortranarray(exact), exact.tolist(), pd.DataFrame(exact)):
        fitted = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(variant, y)
        np.testing.assert_array_equal(fitted.log_pdf(exact, y), reference.log_pdf(exact, y))


def test_integer_inputs_convert_exactly_and_huge_ones_are_refused():
    small = np.arange(12, dtype=np.int64).reshape(6, 2)
    np.testing.assert_array_equal(as_samples(small, "X"), small.astype(np.float64))
    huge = small.copy()
    huge[0, 0] = 2**53 + 1
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        as_samples(huge, "X")
    with pytest.raises(ValueError, match="beyond 2\\*\\*53"):
        as_samples(pd.DataFrame(huge), "X")


def test_extended_precision_is_refused_rather_than_rounded():
    values = np.ones((5, 1), dtype=np.longdouble)
    if np.finfo(np.longdouble).eps >= np.finfo(np.float64).eps:
        pytest.skip("long double is float64 on this platform")
    with pytest.raises(ValueError, match="would round"):
        as_samples(values, "X")


def test_one_dimensional_and_column_outputs_are_the_same_fit(toy):
    x, y = toy
    flat = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y)
    column = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(x, y.reshape(-1, 1))
    series = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(
        pd.DataFrame(x, columns=["x"]), pd.Series(y, name="response"))
    np.testing.assert_array_equal(flat.log_pdf(x, y), column.log_pdf(x, y))
    frame = pd.DataFrame(x, columns=["x"])
    np.testing.assert_array_equal(flat.log_pdf(x, y), series.log_pdf(frame, y))
    assert series.model_.x_names == ["x"] and series.model_.y_names == ["response"]
    assert list(series.feature_names_in_) == ["x"]
