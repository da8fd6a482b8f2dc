"""The package and the cdens command agree: same data and seed give the same model, and model
files travel both ways."""

import json
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
    # The command and the module are built alike (make python), so they run the same copy of the
    # vector loops.
    assert run(cli, "--version").strip() == (
        f"cdens {version} (vector instructions: {cdens.vector_instruction_set()})")


def test_a_loaded_model_keeps_its_input_names_and_refuses_reordered_columns(cli, tmp_path):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.normal(size=80), "b": rng.normal(size=80)})
    y = frame["a"] - 0.5 * frame["b"] + 0.3 * rng.normal(size=80)
    # Fixed bandwidths: the test is about names, and under load the bandwidth search has been
    # seen to end 1e-8 apart in one fit of eight (noted on issue 38).
    fitted = cdens.KernelCDE(bandwidth=[0.3, 0.4, 0.5]).fit(frame, y)
    fitted.save(tmp_path / "python.json")
    csv = tmp_path / "data.csv"
    frame.assign(y=y).to_csv(csv, index=False)
    run(cli, "fit", str(csv), "--method", "kcde", "--x", "a,b", "--y", "y", "--bandwidth",
        "0.3,0.4,0.5", "--out", str(tmp_path / "cli.json"))
    for path in ("python.json", "cli.json"):
        loaded = cdens.load(tmp_path / path)
        assert list(loaded.feature_names_in_) == ["a", "b"]
        np.testing.assert_array_equal(loaded.log_pdf(frame, y), fitted.log_pdf(frame, y))
        # The columns swapped would be scored silently against the wrong inputs.
        with pytest.raises(ValueError, match=r"X has the columns of the fit in another order "
                                             r"\('b', 'a'; the model was fitted on 'a', 'b'\)"):
            loaded.log_pdf(frame[["b", "a"]], y)


def test_a_model_fitted_on_arrays_loads_without_input_names(tmp_path):
    x = np.linspace(0.0, 1.0, 50).reshape(-1, 1)
    cdens.KernelCDE().fit(x, 2.0 * x[:, 0]).save(tmp_path / "arrays.json")
    cdens.ParzenWindow().fit(x).save(tmp_path / "density.json")
    for path in ("arrays.json", "density.json"):
        assert not hasattr(cdens.load(tmp_path / path), "feature_names_in_")


def test_a_loaded_density_keeps_its_names(tmp_path):
    frame = pd.DataFrame({"u": np.linspace(0.0, 1.0, 40), "v": np.cos(np.arange(40.0))})
    cdens.ParzenWindow().fit(frame).save(tmp_path / "density.json")
    loaded = cdens.load(tmp_path / "density.json")
    assert list(loaded.feature_names_in_) == ["u", "v"]
    with pytest.raises(ValueError, match=r"X has the columns of the fit in another order "
                                         r"\('v', 'u'; the model was fitted on 'u', 'v'\)"):
        loaded.score_samples(frame[["v", "u"]])


def float_array_numbers(document):
    """The numbers in the lists of floats of a JSON document, at any depth."""
    if isinstance(document, list) and document and all(isinstance(v, float) for v in document):
        return len(document)
    items = document.values() if isinstance(document, dict) else (
        document if isinstance(document, list) else [])
    return sum(float_array_numbers(item) for item in items)


def test_a_large_model_travels_in_the_binary_encoding(cli, tmp_path):
    # A Parzen window keeps its 2 x n centres (with their widths and weights): more than the 2^20
    # numbers beyond which a model file is written in the binary encoding (CBOR, doubles as
    # bytes), 8 bytes per number against about 20 as text.
    rng = np.random.default_rng(3)
    n = 2**19 + 5000
    data = pd.DataFrame(rng.normal(size=(n, 2)), columns=["a", "b"])
    fitted = cdens.ParzenWindow(bandwidth=[0.3]).fit(data)
    path = tmp_path / "large.model"
    fitted.save(path)
    assert path.read_bytes()[:3] == b"\xd9\xd9\xf7"
    numbers = float_array_numbers(json.loads(fitted.model_.to_json()))
    assert path.stat().st_size < 8 * numbers + 10_000
    loaded = cdens.load(path)
    queries = pd.DataFrame(rng.normal(size=(50, 2)), columns=["a", "b"])
    np.testing.assert_array_equal(loaded.score_samples(queries), fitted.score_samples(queries))
    assert list(loaded.feature_names_in_) == ["a", "b"]
    # The command reads it as well.
    query_path = tmp_path / "queries.csv"
    queries.to_csv(query_path, index=False)
    rows_path = tmp_path / "log_p.csv"
    run(cli, "score", str(path), str(query_path), "--tolerance", "0", "--out", str(rows_path))
    np.testing.assert_allclose(pd.read_csv(rows_path).iloc[:, -1], fitted.score_samples(queries),
                               rtol=1e-12)
