"""The package and the cdens command agree: same data and seed give the same model, and model
files travel both ways."""

import subprocess

import numpy as np
import pandas as pd
import pytest

import cdens

from conftest import REPO

FAITHFUL = str(REPO / "data" / "faithful.csv")


def run(cli, *arguments):
    return subprocess.run([cli, *arguments], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("method, estimator_class", [
    ("lscde", cdens.LSCDE), ("ekde", cdens.EpsilonKDE), ("nwcde", cdens.NWCDE),
    ("rkde", cdens.RKDE)])
def test_cli_fit_equals_python_fit_on_the_same_data_and_seed(cli, faithful, tmp_path, method,
                                                             estimator_class):
    x, y = faithful
    path = tmp_path / "cli.json"
    run(cli, "fit", FAITHFUL, "--method", method, "--x", "waiting", "--y", "eruptions",
        "--seed", "5", "--out", str(path))
    from_cli = cdens.load(path)
    assert type(from_cli) is estimator_class
    in_python = estimator_class(random_state=5).fit(x, y)
    assert from_cli.model_.hyperparameters == in_python.model_.hyperparameters
    np.testing.assert_array_equal(from_cli.log_pdf(x, y), in_python.log_pdf(x, y))
    np.testing.assert_array_equal(from_cli.cv_results_["mean_test_score"],
                                  in_python.cv_results_["mean_test_score"])
    assert from_cli.model_.x_names == ["waiting"] and from_cli.model_.y_names == ["eruptions"]


def test_cli_scores_a_model_saved_from_python(cli, faithful, tmp_path):
    x, y = faithful
    path = tmp_path / "python.json"
    # The CLI finds the model's variables in a CSV by the names pandas gave them.
    frame = pd.DataFrame({"waiting": x[:, 0]})
    model = cdens.LSCDE(sigma=0.3, regularization=0.1, random_state=0).fit(
        frame, pd.Series(y, name="eruptions"))
    model.save(path)
    report = run(cli, "score", str(path), FAITHFUL)
    scores = dict(line.split(": ") for line in report.splitlines())
    assert int(scores["n"]) == len(y)
    # Both average the same log-densities; only the order of summation may differ.
    assert abs(float(scores["mean_log_likelihood"]) - model.score(frame, y)) < 1e-13


def test_the_version_is_the_same_everywhere(cli):
    # VERSION is the one place it is written: CMake gives it to the command and the module,
    # setuptools to the package's metadata.
    import importlib.metadata

    version = (REPO / "VERSION").read_text().strip()
    assert cdens.__version__ == version
    assert importlib.metadata.version("cdens") == version
    assert run(cli, "--version").strip() == f"cdens {version}"
