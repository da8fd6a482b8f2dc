"""Every message that reaches a Python user names the columns as the user did (the DataFrame's
names; x0, x1, ... only for an input without names) and advises Python's classes and parameters,
never the command's flags; the command keeps its own words (issue 53). The library learns both
from the front end: the binding passes the column names with every fit, and the Python module
gives the library its spelling of advice (cdens/core/spelling.hpp)."""

import subprocess
import warnings

import numpy as np
import pandas
import pytest

import cdens
from cdens._conditional import CdensWarning


def fit_warnings(estimator, *data):
    """The texts of the CdensWarnings of a fit."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.fit(*data)
    return [str(w.message) for w in caught if issubclass(w.category, CdensWarning)]


@pytest.fixture(scope="module")
def homes():
    """A frame whose first column is constant and whose third takes few integer levels."""
    rng = np.random.default_rng(53)
    frame = pandas.DataFrame({"const": 1.0, "income": rng.uniform(1.0, 5.0, 200),
                              "rooms": rng.integers(1, 5, 200).astype(float)})
    price = np.sin(frame["income"]) + 0.3 * frame["rooms"] + 0.2 * rng.normal(size=200)
    return frame, price.rename("price")


def test_warnings_name_the_columns_of_the_frame(homes):
    frame, price = homes
    messages = fit_warnings(cdens.KernelCDE(random_state=0), frame, price)
    assert "input 'const' is constant on the training rows (1): ignored" in messages
    # The fit after the constant input is dropped still names the columns as the frame does (it
    # named 'rooms' x1, its position among the kept inputs).
    assert any(message.startswith("column rooms looks discrete") for message in messages)
    assert not any(name in message for message in messages for name in ("x0", "x1", "x2"))


def test_inputs_without_names_are_named_by_their_own_position(homes):
    frame, price = homes
    messages = fit_warnings(cdens.KernelCDE(random_state=0), frame.to_numpy(), price.to_numpy())
    assert "input 'x0' is constant on the training rows (1): ignored" in messages
    # rooms is the third input, x2, even though the fit of the kept inputs saw it second.
    assert any(message.startswith("column x2 looks discrete") for message in messages)


def test_advice_is_spelt_in_python(homes):
    frame, price = homes
    messages = fit_warnings(cdens.KernelCDE(random_state=0), frame, price)
    discrete = next(m for m in messages if m.startswith("column rooms looks discrete"))
    assert discrete.endswith("declare it ordered (integer levels) or discrete (unordered): "
                             "ordered=['rooms'] or discrete=['rooms']")
    # The advice works as written.
    followed = fit_warnings(cdens.KernelCDE(ordered=["rooms"], random_state=0), frame, price)
    assert not any("looks discrete" in message for message in followed)
    # A linear relation: the linear baseline is advised by its class and the trend by keyword.
    rng = np.random.default_rng(1)
    x = rng.uniform(0.0, 10.0, size=(150, 1))
    y = 2.0 * x[:, 0] + rng.normal(size=150)
    linear = fit_warnings(cdens.KernelCDE(random_state=0), x, y)
    assert any(message.endswith("try LinearGaussianCDE(), or trend='linear'")
               for message in linear), linear
    # Spikes of a tied output: KernelCDE with the output declared, by its name.
    scores = pandas.Series(rng.integers(0, 5, 150).astype(float), name="score")
    spikes = fit_warnings(cdens.LSCDE(sigma=[0.01, 0.02], regularization=0.1, random_state=0),
                          x, scores)
    assert any("declare it (KernelCDE(ordered=['score'])) for a probability mass function; "
               "otherwise keep sigma at the data's resolution (sigma candidates from" in message
               for message in spikes), spikes
    for message in messages + linear + spikes:
        assert "--" not in message, message


def test_errors_are_spelt_in_python(toy):
    x, y = toy
    with pytest.raises(ValueError, match=r"^the hold-out fraction \(holdout_fraction\) 0\.001 "):
        cdens.PRESSRegressor(holdout_fraction=0.001).fit(x[:40], y[:40])
    levels = pandas.Series(np.round(y * 2.0), name="grade")
    with pytest.raises(ValueError, match=r"^trend = linear needs continuous outputs: 'grade' is "
                                         r"declared discrete"):
        cdens.KernelCDE(trend="linear", ordered=["grade"]).fit(x, levels)


def test_the_command_keeps_its_flags(cli, homes, tmp_path):
    frame, price = homes
    path = tmp_path / "homes.csv"
    frame.assign(price=price).to_csv(path, index=False)
    result = subprocess.run([cli, "fit", str(path), "--method", "kcde", "--x", "const,income,rooms",
                             "--y", "price", "--seed", "0", "--out", str(tmp_path / "m.json")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "declare it ordered (integer levels) or discrete (unordered): --ordered rooms or " \
           "--discrete rooms" in result.stderr + result.stdout


def test_a_warning_names_the_parameter_that_stopped_the_fit():
    points = np.random.default_rng(2).normal(size=(80, 1))
    messages = fit_warnings(cdens.GMM(n_components=3, max_iter=1, random_state=0), points)
    assert "EM stopped at max_iter = 1 iterations before reaching the tolerance tol" in messages
    assert {"max_iter", "tol"} <= set(cdens.GMM().get_params())
