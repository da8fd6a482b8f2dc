"""SA-CDE, SA-LSCDE and forward selection in Python: the scikit-learn contract, the selected
features on data whose relevant column is known, the CLI giving the same model, files and the
regularisation-path plot."""

import subprocess

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

import cdens  # noqa: E402
import cdens.plot  # noqa: E402

SMALL = {"sigma": [0.3, 1.0], "regularization": [0.01, 0.1]}


# Small grids: check_estimator fits dozens of times; the defaults are tested below and in C++.
@parametrize_with_checks([cdens.SACDE(random_state=0, **SMALL),
                          cdens.SALSCDE(random_state=0, **SMALL),
                          cdens.ForwardSelectionCDE(estimator="ekde", random_state=0)])
def test_scikit_learn_checks(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def relevant_first():
    """y depends on column 0 only; columns 1 and 2 are independent noise."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(150, 3))
    y = np.sin(2 * x[:, 0]) + 0.2 * rng.normal(size=150)
    return x, y


@pytest.mark.parametrize("estimator", [
    cdens.SACDE(sigma=[0.2, 0.5, 1.0], regularization=[0.01, 0.03, 0.1, 0.3], random_state=0),
    cdens.SALSCDE(sigma=[0.2, 0.5, 1.0], regularization=[0.01, 0.03, 0.1, 0.3], random_state=0),
    cdens.ForwardSelectionCDE(estimator="nwcde", random_state=0)])
def test_the_relevant_column_is_selected_and_most_important(estimator, relevant_first):
    x, y = relevant_first
    model = estimator.fit(x, y)
    assert 0 in model.selected_features_
    assert model.feature_importances_.shape == (3,)
    assert int(np.argmax(model.feature_importances_)) == 0
    unselected = np.setdiff1d(np.arange(3), model.selected_features_)
    np.testing.assert_array_equal(model.feature_importances_[unselected], 0.0)


def test_sacde_path_and_plot(relevant_first, tmp_path):
    x, y = relevant_first
    model = cdens.SACDE(sigma=0.5, regularization=[0.01, 0.03, 0.1, 0.3, 1.0],
                        random_state=0).fit(x, y)
    path = model.regularization_path_
    assert path["group_norms"].shape == (3, 5)
    assert np.all(np.diff(path["lambdas"]) < 0)
    chosen = int(np.flatnonzero(path["lambdas"] == path["chosen_lambda"])[0])
    np.testing.assert_array_equal(path["group_norms"][:, chosen], model.feature_importances_)
    ax = cdens.plot.regularization_path(model, feature_names=["a", "b", "c"])
    assert len(ax.lines) == 4  # three features and the CV line
    np.testing.assert_array_equal(ax.lines[3].get_xdata(), [path["chosen_lambda"]] * 2)
    ax.figure.savefig(tmp_path / "path.png")
    plt.close(ax.figure)
    assert (tmp_path / "path.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="no regularization path"):
        cdens.plot.regularization_path(cdens.ForwardSelectionCDE(estimator="ekde").fit(x, y))


def test_sacde_lambda_rules(relevant_first):
    x, y = relevant_first
    grid = {"sigma": [0.2, 0.5, 1.0], "regularization": [0.01, 0.03, 0.1, 0.3, 1.0]}
    paper = cdens.SACDE(lambda_rule="min", random_state=0, **grid).fit(x, y)
    results = paper.cv_results_
    best = int(np.argmin(results["rank_test_score"]))
    assert paper.regularization_ == results["param_regularization"][best]
    assert paper.sigma_ == results["param_sigma"][best]
    # One standard error: the largest lambda at the best sigma within the minimum's error.
    sparse = cdens.SACDE(random_state=0, **grid).fit(x, y)
    same_sigma = results["param_sigma"] == results["param_sigma"][best]
    within = -results["mean_test_score"] <= (-results["mean_test_score"][best]
                                             + results["std_error_test_score"][best])
    assert sparse.sigma_ == paper.sigma_
    assert sparse.regularization_ == results["param_regularization"][same_sigma & within].max()
    with pytest.raises(ValueError, match="lambda_rule"):
        cdens.SACDE(lambda_rule="smallest", **grid).fit(x, y)


def test_unknown_wrapped_estimator_is_a_value_error(relevant_first):
    x, y = relevant_first
    with pytest.raises(ValueError, match="estimator must be"):
        cdens.ForwardSelectionCDE(estimator="gmm").fit(x, y)


@pytest.mark.parametrize("method, estimator", [
    ("sacde", cdens.SACDE(random_state=4, **SMALL)),
    ("salscde", cdens.SALSCDE(random_state=4, **SMALL)),
    ("fw-nwcde", cdens.ForwardSelectionCDE(estimator="nwcde", random_state=4))])
def test_cli_fit_equals_python_fit(cli, relevant_first, tmp_path, method, estimator):
    x, y = relevant_first
    data = tmp_path / "data.csv"
    pd.DataFrame({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "y": y}).to_csv(data, index=False)
    out = tmp_path / "model.json"
    arguments = [cli, "fit", str(data), "--method", method, "--x", "a,b,c", "--y", "y",
                 "--seed", "4", "--out", str(out)]
    if method != "fw-nwcde":
        arguments += ["--sigma", "0.3,1.0", "--regularization", "0.01,0.1"]
    printed = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout
    from_cli = cdens.load(out)
    in_python = estimator.fit(x, y)
    assert type(from_cli) is type(in_python)
    np.testing.assert_array_equal(from_cli.log_pdf(x, y), in_python.log_pdf(x, y))
    np.testing.assert_array_equal(from_cli.selected_features_, in_python.selected_features_)
    names = ", ".join("abc"[d] for d in in_python.selected_features_)
    assert f"selected_features: {names}\n" in printed
    report = subprocess.run([cli, "features", str(out)], check=True, capture_output=True,
                            text=True).stdout
    assert "feature,importance,selected\n" in report
    assert f"selected_features: {names}\n" in report


def test_cli_features_refuses_a_model_without_selection(cli, relevant_first, tmp_path):
    x, y = relevant_first
    path = tmp_path / "lscde.json"
    cdens.LSCDE(sigma=0.5, regularization=0.1, random_state=0).fit(x, y).save(path)
    result = subprocess.run([cli, "features", str(path)], capture_output=True, text=True)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("cdens: error: ") and "selects no features" in result.stderr
