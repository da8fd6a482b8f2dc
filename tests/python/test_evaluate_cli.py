"""cdens evaluate and cdens compare: the same numbers as cdens.metrics, figures drawn through
the package (python -m cdens.plot), one-line errors with exit status 2."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cdens
import cdens.metrics as metrics

from conftest import REPO

FAITHFUL = str(REPO / "data" / "faithful.csv")


@pytest.fixture(scope="module")
def held_out(faithful, tmp_path_factory):
    """Rows 150-209 of Old Faithful as a CSV file (path, x, y): small, so the tests stay fast."""
    x, y = faithful
    path = tmp_path_factory.mktemp("data") / "held_out.csv"
    rows = slice(150, 210)
    np.savetxt(path, np.column_stack([x[rows, 0], y[rows]]), delimiter=",",
               header="waiting,eruptions", comments="", fmt="%.17g")
    return str(path), x[rows], y[rows]


@pytest.fixture(scope="module")
def model_files(faithful, tmp_path_factory):
    """An LSCDE and a linear-Gaussian model of eruptions given waiting, fitted on the first 150
    rows, saved as model files."""
    x, y = faithful
    directory = tmp_path_factory.mktemp("models")
    paths = []
    for name, estimator in [("lscde", cdens.LSCDE(sigma=0.3, regularization=0.1)),
                            ("linear", cdens.LinearGaussianCDE())]:
        fitted = estimator.fit(x[:150], y[:150])
        fitted.model_.x_names, fitted.model_.y_names = ["waiting"], ["eruptions"]
        paths.append(str(directory / f"{name}.json"))
        fitted.save(paths[-1])
    return paths


def run(cli, *arguments, python=sys.executable):
    environment = dict(os.environ, CDENS_PYTHON=python)
    return subprocess.run([cli, *arguments], capture_output=True, text=True, env=environment)


def test_evaluate_prints_and_writes_the_numbers_of_cdens_metrics(cli, held_out, model_files,
                                                                 tmp_path):
    data, x, y = held_out
    report_path, plot_path = tmp_path / "report.json", tmp_path / "calibration.png"
    result = run(cli, "evaluate", model_files[0], data, "--interval-levels", "0.9", "--json",
                 str(report_path), "--plot", str(plot_path))
    assert result.returncode == 0, result.stderr
    assert "crps" in result.stdout and "pit: D = " in result.stdout
    with open(report_path, encoding="utf-8") as file:
        from_cli = json.load(file)
    in_python = metrics.evaluate(model_files[0], x, y, interval_levels=[0.9])
    for cli_score, python_score in zip(from_cli["scores"], in_python["scores"]):
        assert cli_score["name"] == python_score["name"]
        assert cli_score["mean"] == pytest.approx(python_score["mean"], rel=1e-12, abs=1e-15)
    assert from_cli["calibration"]["pit"]["p_value"] == pytest.approx(
        in_python["calibration"]["pit"]["p_value"], rel=1e-12)
    assert plot_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_reports_paired_differences_and_draws_them(cli, held_out, model_files,
                                                           tmp_path):
    data, _x, y = held_out
    report_path, plot_path = tmp_path / "comparison.json", tmp_path / "comparison.png"
    result = run(cli, "compare", *model_files, data, "--interval-levels", "0.9", "--json",
                 str(report_path), "--plot", str(plot_path))
    assert result.returncode == 0, result.stderr
    assert "linear over lscde" in result.stdout
    with open(report_path, encoding="utf-8") as file:
        report = json.load(file)
    assert report["models"] == ["lscde", "linear"] and report["n"] == len(y)
    assert plot_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_evaluate_takes_density_models(cli, model_files, tmp_path):
    path = tmp_path / "gmm.json"
    fitted = subprocess.run([cli, "fit", FAITHFUL, "--method", "gmm", "--columns",
                             "eruptions", "--n-components", "2", "--out", str(path)],
                            capture_output=True, text=True)
    assert fitted.returncode == 0, fitted.stderr
    result = run(cli, "evaluate", str(path), FAITHFUL, "--interval-levels", "0.9")
    assert result.returncode == 0, result.stderr
    assert "density p(x) by gmm" in result.stdout and "crps" in result.stdout
    # A density's columns are no y.
    assert "\ncolumns: eruptions\n" in result.stdout and "\ny: " not in result.stdout
    # A density and a conditional model: refused by their kinds before either is scored.
    compared = run(cli, "compare", str(path), model_files[0], FAITHFUL)
    assert compared.returncode == 2 and compared.stdout == ""
    assert "a density p(x) and a conditional density p(y|x)" in compared.stderr
    assert compared.stderr.count("\n") == 1


def test_the_old_spelling_of_interval_levels_works_with_a_warning(cli, held_out, model_files):
    old = run(cli, "evaluate", model_files[0], held_out[0], "--levels", "0.8")
    new = run(cli, "evaluate", model_files[0], held_out[0], "--interval-levels", "0.8")
    assert old.returncode == 0 and new.returncode == 0, old.stderr + new.stderr
    assert old.stdout == new.stdout and "central_coverage_0.8" in new.stdout
    assert "--levels of evaluate and compare is deprecated: use --interval-levels" in old.stderr
    assert "deprecated" not in new.stderr


@pytest.mark.parametrize("arguments, message", [
    (["compare", "{0}", FAITHFUL], "at least two model files"),
    (["evaluate", "{0}", FAITHFUL, "--interval-levels", "1.5"], "interval levels"),
    (["evaluate", "{0}", FAITHFUL, "--y", "waiting"], "both as an x and as a y column"),
    (["evaluate", "{0}", FAITHFUL, "--x", "nothing"], "nothing"),
])
def test_bad_arguments_end_with_one_line_and_status_2(cli, model_files, arguments, message):
    result = run(cli, *[argument.format(*model_files) for argument in arguments])
    assert result.returncode == 2
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_plot_without_the_package_says_what_is_missing(cli, held_out, model_files, tmp_path):
    result = run(cli, "evaluate", model_files[1], held_out[0], "--interval-levels", "0.9",
                 "--plot", str(tmp_path / "figure.png"), python="/nonexistent/python")
    assert result.returncode == 2
    assert "CDENS_PYTHON" in result.stderr
    assert not (tmp_path / "figure.png").exists()
    # Found out before the evaluation runs: no report printed, one line.
    assert result.stdout == "" and result.stderr.count("\n") == 1


def test_plot_module_draws_report_files(tmp_path, held_out, model_files):
    _data, x, y = held_out
    report = metrics.evaluate(model_files[1], x, y, interval_levels=[0.9])
    path = tmp_path / "report.json"
    path.write_text(json.dumps(report, default=lambda array: np.asarray(array).tolist()))
    from cdens import plot

    assert plot.main(["evaluation", str(path), str(tmp_path / "out.png")]) == 0
    assert (tmp_path / "out.png").read_bytes()[:4] == b"\x89PNG"
    assert plot.main(["histogram", str(path), str(tmp_path / "out.png")]) == 2
    figure = plot.calibration(report)
    assert len(figure.axes) == 3  # PIT and HPD histograms, coverage curve


@pytest.mark.parametrize("option", ["--plot", "--json"])
def test_reports_into_a_missing_directory_are_refused_before_the_evaluation(
        cli, held_out, model_files, option):
    result = run(cli, "evaluate", model_files[0], held_out[0], option, "/nonexistent/dir/x.out")
    assert result.returncode == 2
    assert option in result.stderr and "/nonexistent/dir/x.out" in result.stderr
    assert result.stderr.count("\n") == 1 and result.stdout == ""  # no report printed first


def test_the_plotters_own_error_is_reported_in_one_line(cli, held_out, model_files, tmp_path):
    # matplotlib has no "xyz" format: the cause, not a missing package, reaches the user.
    result = run(cli, "evaluate", model_files[1], held_out[0], "--interval-levels", "0.9",
                 "--plot", str(tmp_path / "figure.xyz"))
    assert result.returncode == 2
    assert "Format 'xyz' is not supported" in result.stderr
    assert "CDENS_PYTHON" not in result.stderr and result.stderr.count("\n") == 1


def test_evaluate_names_the_rows_it_leaves_out(cli, held_out, model_files, tmp_path):
    data, x, y = held_out
    far = y.copy()
    far[4] = 1e300
    path = tmp_path / "far.csv"
    np.savetxt(path, np.column_stack([x[:, 0], far]), delimiter=",", header="waiting,eruptions",
               comments="", fmt="%.17g")
    result = run(cli, "evaluate", model_files[0], str(path), "--json", str(tmp_path / "r.json"))
    assert result.returncode == 0, result.stderr
    assert "data row 5 (log_likelihood -inf)" in result.stderr
    assert f"excluded: 1 of {len(y)} pairs" in result.stdout
    assert "nan" not in result.stdout and "inf" not in result.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["excluded"] == [{"pair": 4, "score": "log_likelihood", "value": "-inf"}]
