"""The contract every registered method keeps in Python, checked for each method of the engine's
registry with the registry's own cheap test options (``test_options``): the cdens command and the
package fit the same model from the same data and seed (bit-identical log-densities), and the
estimator keeps scikit-learn's clone / get_params / set_params contract; every extra the method
declares is a fitted attribute of its declared shape, and every query it declares is a method of
its class that answers as ``cdens predict --query`` does, to the bit. Registering a method is
enough to have it checked here; tests/cpp/test_conformance.cpp checks the rest of the contract
on the C++ side."""

import subprocess

import numpy as np
import pytest
from sklearn.base import clone

import cdens
from cdens._methods import cheap_estimator, methods

N = 60


def cli_arguments(name):
    """The flags of `cdens fit` that give method `name` its test options and seed 0."""
    entry = methods()[name]
    rows = {option["name"]: option for option in entry["options"]}
    arguments = ["--method", name]
    for option_name, value in entry["test_options"].items():
        if isinstance(value, list):
            text = ",".join(repr(float(number)) for number in value)
        else:
            text = str(value)
        arguments += [rows[option_name]["cli_flag"], text]
    if any(option["type"] == "seed" for option in entry["options"]):
        arguments += ["--seed", "0"]
    return arguments


def data_file(tmp_path, density):
    """A CSV of 60 rows, written with 17 significant digits, and its columns as the command
    reads them: (X, y) of two inputs and one output, or the two columns of a density's X."""
    rng = np.random.default_rng(12)
    x = rng.normal(size=(N, 2)) * [2.0, 0.5] + [1.0, -3.0]
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=N)
    path = tmp_path / "data.csv"
    columns = x if density else np.column_stack([x, y])
    header = "a,b" if density else "a,b,y"
    np.savetxt(path, columns, delimiter=",", header=header, comments="", fmt="%.17g")
    values = np.loadtxt(path, delimiter=",", skiprows=1)
    return path, values[:, :2].copy(), None if density else values[:, 2].copy()


# The command's model knows its columns by name; the arrays here have none.
@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("name", sorted(methods()))
def test_the_command_and_the_package_fit_the_same_model(cli, tmp_path, name):
    density = methods()[name]["family"] == "density"
    path, x, y = data_file(tmp_path, density)
    model_path = tmp_path / "cli.json"
    columns = ["--columns", "a,b"] if density else ["--x", "a,b", "--y", "y"]
    subprocess.run([cli, "fit", str(path), *columns, *cli_arguments(name), "--out",
                    str(model_path)], check=True, capture_output=True, text=True)
    from_cli = cdens.load(model_path)
    estimator = cheap_estimator(name)
    assert type(from_cli) is type(estimator)
    if density:
        np.testing.assert_array_equal(from_cli.score_samples(x), estimator.fit(x).score_samples(x))
    else:
        np.testing.assert_array_equal(from_cli.log_pdf(x, y), estimator.fit(x, y).log_pdf(x, y))


@pytest.mark.parametrize("name", sorted(methods()))
def test_clone_get_params_and_set_params_keep_scikit_learns_contract(tmp_path, name):
    estimator = cheap_estimator(name)
    parameters = estimator.get_params(deep=False)
    copy = clone(estimator)
    assert copy is not estimator and copy.get_params(deep=False) == parameters
    fresh = type(estimator)()
    assert fresh.set_params(**parameters) is fresh
    assert fresh.get_params(deep=False) == parameters
    # A clone of a fitted estimator is unfitted, with the same parameters.
    _, x, y = data_file(tmp_path, methods()[name]["family"] == "density")
    fitted = estimator.fit(x) if methods()[name]["family"] == "density" else estimator.fit(x, y)
    unfitted = clone(fitted)
    assert not hasattr(unfitted, "model_")
    assert unfitted.get_params(deep=False) == parameters
    with pytest.raises(ValueError, match="not_a_parameter"):
        fresh.set_params(not_a_parameter=1)


def declared_size(dimension, rows, model):
    """The size a dimension of a declared shape stands for: the rows, d_x, d_y or a count of
    the fit report."""
    if dimension == "n":
        return rows
    if dimension == "d_x":
        return len(model.x_names)
    if dimension == "d_y":
        return len(model.y_names)
    counts = {**model.statistics, **model.hyperparameters}
    return int(counts[dimension])


@pytest.mark.parametrize("name", sorted(name for name, entry in methods().items()
                                        if entry["extras"]))
def test_extras_are_fitted_attributes_of_their_declared_shapes(tmp_path, name):
    density = methods()[name]["family"] == "density"
    _, x, y = data_file(tmp_path, density)
    estimator = cheap_estimator(name)
    fitted = estimator.fit(x) if density else estimator.fit(x, y)
    for extra in methods()[name]["extras"]:
        value = getattr(fitted, extra["name"] + "_")
        sizes = [declared_size(dimension, N, fitted.model_)
                 for dimension in extra["shape"] if dimension != "*"]
        if extra["shape"][-1] == "*":
            assert isinstance(value, list) and len(value) == sizes[0]
            assert all(item.ndim == 1 and np.all(np.isfinite(item)) for item in value)
        else:
            assert value.shape == tuple(sizes), extra["name"]
            assert np.all(np.isfinite(value))
        assert not hasattr(clone(fitted), extra["name"] + "_")


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
@pytest.mark.parametrize("name", sorted(name for name, entry in methods().items()
                                        if entry["queries"]))
def test_queries_answer_in_python_as_on_the_command_line(cli, tmp_path, name):
    path, x, y = data_file(tmp_path, False)
    model_path = tmp_path / "cli.json"
    subprocess.run([cli, "fit", str(path), "--x", "a,b", "--y", "y", *cli_arguments(name),
                    "--out", str(model_path)], check=True, capture_output=True, text=True)
    queries = methods()[name]["queries"]
    names = [query["name"] for query in queries]
    table = subprocess.run([cli, "predict", str(model_path), str(path), "--query", ",".join(names)],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    header = table[0].split(",")
    values = np.array([[float(v) for v in line.split(",")] for line in table[1:]])
    from_cli = cdens.load(model_path)
    for query in queries:
        answer = getattr(from_cli, query["name"])(x)
        sizes = [declared_size(dimension, N, from_cli.model_) for dimension in query["shape"]]
        assert answer.shape == tuple(sizes), query["name"]
        if len(sizes) == 1:
            columns = [query["name"]]
        else:
            columns = [f"{query['name']}_{k + 1}" for k in range(sizes[1])]
        written = values[:, [header.index(column) for column in columns]]
        np.testing.assert_array_equal(written, answer.reshape(N, -1), err_msg=query["name"])
