"""The engine's registry of methods seen from Python: every estimator class takes the options of
its methods' tables under their names with the engine's defaults, and model files written before
the registry load and predict as they did."""

import inspect
import json
import re
import subprocess

import numpy as np
import pytest

import cdens
from cdens import _core
from cdens._conditional import ConditionalDensityEstimator
from cdens._methods import VERBOSE, methods
from cdens._parameters import Parameter

from conftest import REPO

WRITTEN_BEFORE = REPO / "tests" / "data" / "models_ed836a3"


def init_defaults(estimator_class):
    parameters = inspect.signature(estimator_class.__init__).parameters
    return {name: p.default for name, p in parameters.items() if name != "self"}


def classes_and_methods():
    by_class = {}
    for entry in methods().values():
        by_class.setdefault(entry["python_class"], []).append(entry)
    return sorted(by_class.items())


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_every_python_default_is_the_engines(class_name, entries):
    defaults = init_defaults(getattr(cdens, class_name))
    for entry in entries:
        for option in entry["options"]:
            name = option["python_name"]
            if not name:
                continue
            assert name in defaults, f"{class_name} lacks {name} of {entry['name']}"
            default = defaults[name]
            where = f"{class_name}.{name} ({entry['name']}.{option['name']})"
            if option["type"] in ("seed", "threads"):
                # scikit-learn's random_state=None draws a seed; n_jobs=None is the engine's 0.
                assert default is None, where
            elif option["none_is_default"]:
                assert default is None, where
            elif option["type"] in ("real_list", "real_pair"):
                assert list(default) == option["default"], where
            else:
                # The exact type: a default of True is not the engine's 1.
                same_type = type(default) is type(option["default"])  # noqa: E721
                assert default == option["default"] and same_type, (
                    f"{where}: Python {default!r}, engine {option['default']!r}")


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_every_python_parameter_is_an_option_of_the_class_methods(class_name, entries):
    estimator_class = getattr(cdens, class_name)
    # verbose is every class's and no option: it asks the fit for its progress.
    spelled = {parameter.name for parameter in estimator_class._extra_parameters} | {VERBOSE}
    for entry in entries:
        for option in entry["options"]:
            spelled.add(option["python_name"])
    assert set(init_defaults(estimator_class)) <= spelled


# scikit-learn's names, the only Python parameters that are not their option's name.
SCIKIT_LEARN_NAMES = {"folds": "cv", "seed": "random_state", "threads": "n_jobs"}


def test_every_flag_and_python_name_is_spelt_from_the_options_name():
    for entry in methods().values():
        for option in entry["options"]:
            where = f"{entry['name']}.{option['name']}"
            if not option["python_name"]:  # a setting of C++ callers only
                assert not option["cli_flag"], where
                continue
            switch_off = option["type"] == "boolean" and option["default"] is True
            flag = ("--no-" if switch_off else "--") + option["name"].replace("_", "-")
            assert option["cli_flag"] == flag, where
            assert option["python_name"] == SCIKIT_LEARN_NAMES.get(option["name"],
                                                                   option["name"]), where


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_what_scikit_learn_sees_is_the_tables_and_the_declared_extras(class_name, entries):
    estimator_class = getattr(cdens, class_name)
    expected = [parameter.name for parameter in estimator_class._extra_parameters]
    for entry in entries:
        for option in entry["options"]:
            name = option["python_name"]
            if name and name not in expected:
                expected.append(name)
    expected.append(VERBOSE)
    estimator = estimator_class()
    assert sorted(estimator.get_params(deep=False)) == sorted(expected)
    assert sorted(estimator_class._get_param_names()) == sorted(expected)
    # __init__ stores every value unchanged (scikit-learn's clone relies on it).
    values = {name: object() for name in expected}
    assert estimator_class(**values).get_params(deep=False) == values
    for parameter in estimator_class._extra_parameters:
        assert init_defaults(estimator_class)[parameter.name] == parameter.default


def test_a_new_row_of_a_table_is_a_parameter_with_its_default_and_doc(monkeypatch):
    import cdens._parameters

    entry = dict(methods()["nwcde"])
    row = dict(entry["options"][1], name="max_neighbours", python_name="max_neighbours",
               type="integer", default=7, doc="Neighbours of every query at most")
    entry["options"] = [*entry["options"], row]
    entry["python_class"] = "WithNewOption"
    monkeypatch.setattr(cdens._parameters, "methods", lambda: {"new": entry})

    class WithNewOption(ConditionalDensityEstimator):
        """Prose the class keeps.

        Attributes
        ----------
        model_ : cdens._core.ConditionalModel
        """

        _extra_parameters = (Parameter("flavour", "mild", '{"mild", "hot"}', "How hot."),)

    defaults = init_defaults(WithNewOption)
    assert list(defaults) == ["flavour", "sigma", "n_centers", "random_state", "y_lower",
                              "y_upper", "n_jobs", "duplicates", "max_neighbours", "verbose"]
    assert defaults["max_neighbours"] == 7 and defaults["flavour"] == "mild"
    assert WithNewOption(max_neighbours=3).get_params()["max_neighbours"] == 3
    doc = inspect.cleandoc(WithNewOption.__doc__)
    assert doc.index("Prose the class keeps.") < doc.index("Parameters") < doc.index("Attributes")
    assert "\nmax_neighbours : int, default=7\n    Neighbours of every query at most.\n" in doc
    with pytest.raises(TypeError, match="unexpected keyword argument .max_neighbors"):
        WithNewOption(max_neighbors=3)


def parameter_docs(estimator_class):
    """{name: the doc of its entry in the Parameters section}."""
    doc = inspect.cleandoc(estimator_class.__doc__)
    section = doc[doc.index("Parameters\n----------\n"):]
    section = section[:section.find("Attributes\n----------") % (len(section) + 1)] + "\n"
    entries = re.findall(r"^(\w+) : [^\n]*\n((?:    [^\n]*\n)*)", section, flags=re.M)
    return {name: " ".join(text.split()) for name, text in entries}


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_every_option_is_documented_with_the_tables_doc(class_name, entries):
    docs = parameter_docs(getattr(cdens, class_name))
    for entry in entries:
        for option in entry["options"]:
            if option["python_name"]:
                assert " ".join(option["doc"].split()) in docs[option["python_name"]], (
                    f"{class_name}.{option['python_name']}")
    if len(entries) > 1:  # what only some of the class's methods take says which
        for name, doc in docs.items():
            taking = [entry["name"] for entry in entries
                      if any(option["python_name"] == name for option in entry["options"])]
            assert ("Only for" in doc) == (0 < len(taking) < len(entries)), f"{class_name}.{name}"
    assert docs.keys() == set(inspect.signature(getattr(cdens, class_name)).parameters)


def test_a_class_of_the_registry_cannot_write_its_own_init():
    with pytest.raises(TypeError, match="writes its own __init__"):
        class LSCDE(ConditionalDensityEstimator):
            def __init__(self, sigma=None):
                self.sigma = sigma


@pytest.mark.parametrize("name", sorted(json.loads(
    (WRITTEN_BEFORE / "expected.json").read_text())))
def test_model_files_written_before_the_registry_load_as_before(name):
    expected = json.loads((WRITTEN_BEFORE / "expected.json").read_text())[name]
    data = np.loadtxt(WRITTEN_BEFORE / "crabs60.csv", delimiter=",", skiprows=1)
    estimator = cdens.load(WRITTEN_BEFORE / f"{name}.json")
    assert type(estimator).__name__ == expected["class"]
    if hasattr(estimator, "score_samples"):
        values = estimator.score_samples(data[:, :2])
    else:
        values = estimator.log_pdf(data[:, :3], data[:, 3])
    # The expected values come from a -march=native build (the Makefile's); other builds round
    # some sums differently in the last bits.
    np.testing.assert_allclose(values, expected["log_pdf"], rtol=1e-12, atol=1e-12)
    # The parameters a loaded model gets are those it got before, under today's names.
    params = estimator.get_params()
    renamed = {"restarts": "n_restarts", "lasso": "lasso_weight"}
    for old_name, value in expected["params"].items():
        new_name = renamed.get(old_name, old_name)
        got = params[new_name]
        assert (list(got) if isinstance(got, tuple) else got) == value, new_name


def test_a_parameter_the_chosen_method_does_not_take_is_refused(faithful):
    x, y = faithful
    with pytest.raises(ValueError, match="epsilon does not apply to method lsce"):
        cdens.LSCE(epsilon=0.5, n_components=1).fit(x, y)
    with pytest.raises(ValueError, match="n_centers does not apply to method fw-ekde"):
        cdens.ForwardSelectionCDE(estimator="ekde", n_centers=20).fit(x, y)


def test_forward_selection_takes_the_grids_the_command_takes(cli, tmp_path):
    data = np.loadtxt(WRITTEN_BEFORE / "crabs60.csv", delimiter=",", skiprows=1)
    path = tmp_path / "fw.json"
    subprocess.run([cli, "fit", str(WRITTEN_BEFORE / "crabs60.csv"), "--method", "fw-lscde",
                    "--x", "fl,rw,cl", "--y", "cw", "--sigma", "0.3,1", "--regularization", "0.1",
                    "--n-centers", "20", "--seed", "4", "--out", str(path)],
                   check=True, capture_output=True)
    in_python = cdens.ForwardSelectionCDE(sigma=[0.3, 1.0], regularization=0.1, n_centers=20,
                                          random_state=4).fit(data[:, :3], data[:, 3])
    from_cli = cdens.load(path)
    np.testing.assert_array_equal(from_cli.selected_features_, in_python.selected_features_)
    np.testing.assert_array_equal(from_cli.log_pdf(data[:, :3], data[:, 3]),
                                  in_python.log_pdf(data[:, :3], data[:, 3]))


def test_the_registry_lists_every_estimator_class_of_the_package():
    classes = {entry["python_class"] for entry in _core.methods()}
    estimators = {name for name in cdens.__all__
                  if isinstance(getattr(cdens, name), type)
                  and name not in ("CdensWarning", "ConditionalDensityEstimator",
                                   "DensityEstimator", "ExtrapolationWarning")}
    assert classes == estimators


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_every_documented_default_is_the_engines(class_name, entries):
    # numpydoc lines "name[, name] : type, default=value" of the class docstring (generated from
    # the tables, and the extras' declared defaults).
    import ast

    estimator_class = getattr(cdens, class_name)
    documented = {}
    for names, value in re.findall(r"^\s*([a-z_, ]+) : [^\n]*default=([^\n]+)$",
                                   estimator_class.__doc__ or "", flags=re.M):
        for name in names.split(","):
            documented[name.strip()] = ast.literal_eval(value.strip())
    defaults = init_defaults(estimator_class)
    for name, value in documented.items():
        assert name in defaults, f"{class_name} documents {name}, which it does not take"
        default = defaults[name]
        assert (list(default) if isinstance(default, tuple) else default) == (
            list(value) if isinstance(value, tuple) else value), f"{class_name}.{name}"


@pytest.mark.parametrize("class_name, entries", classes_and_methods())
def test_a_thread_count_beyond_the_machine_is_refused_naming_n_jobs(class_name, entries):
    estimator_class = getattr(cdens, class_name)
    if "n_jobs" not in init_defaults(estimator_class):
        pytest.skip(f"{class_name} has no n_jobs")
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 2)), rng.normal(size=40)
    estimator = estimator_class(n_jobs=100000)
    with pytest.raises(ValueError, match="n_jobs must be at most"):
        estimator.fit(x) if hasattr(estimator, "score_samples") else estimator.fit(x, y)


def test_the_one_fit_of_the_engine_takes_y_for_p_y_given_x_only():
    x = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match="gmm fits a density p\\(x\\): Y must be None"):
        _core.fit("gmm", x, x[:, :1], {})
    with pytest.raises(ValueError, match="lscde fits p\\(y\\|x\\): Y is required"):
        _core.fit("lscde", x, None, {})
    with pytest.raises(ValueError, match="gmm takes no X_unlabeled"):
        _core.fit("gmm", x, None, {}, X_unlabeled=x)
    model, extras = _core.fit("gmm", x, None, {"n_components": 1})
    assert extras == {} and model.method == "gmm"
