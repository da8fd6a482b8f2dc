"""Evaluating a model of a discrete y (KernelCDE with the output ordered or unordered): the scores
against brute-force sums over the probability mass function read from pdf_grid, cdens evaluate
and compare on such models (numbers equal to cdens.metrics, words as labels), the refusal of a
score that does not apply, and the figures."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import cdens
import cdens.metrics as metrics

GRADES = ["low", "mid", "high"]  # stated order: codes 0, 1, 2


@pytest.fixture(scope="module")
def grades(tmp_path_factory):
    """x continuous, y ordered on 0 ... 4 and its word version (three grades), and a category
    (unordered words); 300 rows written to train.csv and 100 to test.csv."""
    rng = np.random.default_rng(5)
    n = 400
    x = rng.normal(size=n)
    y = np.clip(np.round(2.0 + 0.9 * x + 0.6 * rng.normal(size=n)), 0, 4)
    grade = np.array(GRADES, dtype=object)[np.clip(np.round(1 + x + 0.5 * rng.normal(size=n)),
                                                   0, 2).astype(int)]
    side = np.where(x + 0.8 * rng.normal(size=n) > 0, "up", "down").astype(object)
    directory = tmp_path_factory.mktemp("grades")
    for name, rows in [("train.csv", slice(0, 300)), ("test.csv", slice(300, n))]:
        lines = ["x,y,grade,side"] + [f"{a!r},{b:g},{g},{s}" for a, b, g, s in
                                      zip(x[rows], y[rows], grade[rows], side[rows])]
        (directory / name).write_text("\n".join(lines) + "\n")
    return {"dir": directory, "x": x.reshape(-1, 1), "y": y, "grade": grade, "side": side}


def fit_file(cli, data, path, *arguments):
    subprocess.run([cli, "fit", str(data["dir"] / "train.csv"), "--method", "kcde", "--x", "x",
                    *arguments, "--out", str(path)], capture_output=True, text=True, check=True)
    return str(path)


def run(cli, *arguments):
    environment = dict(os.environ, CDENS_PYTHON=sys.executable)
    return subprocess.run([cli, *arguments], capture_output=True, text=True, env=environment)


def masses(model, X, levels):
    """p(l | x_i) at every level l (columns) from log_pdf, pair by pair."""
    return np.column_stack([np.exp(model.log_pdf(X, np.full(len(X), level, dtype=object)))
                            for level in levels])


@pytest.fixture(scope="module")
def ordered_model(grades):
    estimator = cdens.KernelCDE(ordered=[1], bandwidth=[0.6, 0.4])
    return estimator.fit(grades["x"][:300], grades["y"][:300])


def test_scores_are_the_sums_over_the_mass_function(ordered_model, grades):
    X, y = grades["x"][300:], grades["y"][300:]
    levels = np.unique(grades["y"][:300])
    assert levels.tolist() == [0, 1, 2, 3, 4]
    p = masses(ordered_model, X, levels)
    np.testing.assert_allclose(p, ordered_model.pdf_grid(X, levels), rtol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)
    cdf = np.cumsum(p, axis=1)
    rps = ((cdf - (y[:, None] <= levels)) ** 2).sum(axis=1)
    brier = ((p - (y[:, None] == levels)) ** 2).sum(axis=1)
    np.testing.assert_allclose(metrics.rps(ordered_model, X, y), rps, rtol=0, atol=1e-12)
    np.testing.assert_allclose(metrics.brier_score(ordered_model, X, y), brier, rtol=0,
                               atol=1e-12)
    own = p[np.arange(len(y)), np.searchsorted(levels, y)]
    # The log-likelihood is a log-probability, and the randomised PIT lies on y's own step.
    np.testing.assert_allclose(metrics.log_likelihood(ordered_model, X, y), np.log(own),
                               rtol=1e-12)
    pit = metrics.pit(ordered_model, X, y, random_state=3)
    below = np.where(levels < y[:, None], p, 0.0).sum(axis=1)
    assert np.all(pit >= below - 1e-12) and np.all(pit <= below + own + 1e-12)
    assert not np.array_equal(pit, metrics.pit(ordered_model, X, y, random_state=4))
    report = metrics.evaluate(ordered_model, X, y, random_state=3)
    by_name = {score["name"]: score for score in report["scores"]}
    np.testing.assert_array_equal(by_name["rps"]["values"], metrics.rps(ordered_model, X, y))
    np.testing.assert_array_equal(report["calibration"]["pit"]["values"], pit)
    assert report["calibration"]["pit"]["randomized"] is True
    assert list(report["output_kinds"]) == ["ordered"]
    assert [entry["score"] for entry in report["not_applicable"]] == [
        "crps", "pinball", "cde_loss", "energy_score"]


def test_a_score_that_does_not_apply_is_refused_naming_those_that_do(ordered_model, grades):
    X, y = grades["x"][300:], grades["y"][300:]
    with pytest.raises(ValueError, match=r"'crps' does not apply.*rps.*log_likelihood, rps, "
                                         r"brier, central, hpd"):
        metrics.evaluate(ordered_model, X, y, scores=["crps"])
    with pytest.raises(ValueError, match="discrete"):
        metrics.crps(ordered_model, X, y)


def test_evaluate_and_compare_on_the_command_line_equal_python(cli, grades, tmp_path):
    sharp = fit_file(cli, grades, tmp_path / "sharp.json", "--y", "y", "--ordered", "y",
                     "--bandwidth", "0.6,0.4")
    smooth = fit_file(cli, grades, tmp_path / "smooth.json", "--y", "y", "--ordered", "y",
                      "--bandwidth", "0.6,0.8")
    data = str(grades["dir"] / "test.csv")
    X, y = grades["x"][300:], grades["y"][300:]
    report_path = tmp_path / "report.json"
    result = run(cli, "evaluate", sharp, data, "--seed", "9", "--json", str(report_path))
    assert result.returncode == 0, result.stderr
    assert "discrete y: y ordered (5 levels); log_likelihood is log P(y|x)" in result.stdout
    assert "not applicable to this y, left out:" in result.stdout
    assert "  crps " in result.stdout and "  rps " in result.stdout
    from_cli = json.loads(report_path.read_text())
    in_python = metrics.evaluate(sharp, X, y, random_state=9)
    assert [s["name"] for s in from_cli["scores"]] == [s["name"] for s in in_python["scores"]]
    for cli_score, python_score in zip(from_cli["scores"], in_python["scores"]):
        np.testing.assert_array_equal(cli_score["values"], python_score["values"])
    for check in ("pit", "hpd"):
        np.testing.assert_array_equal(from_cli["calibration"][check]["values"],
                                      in_python["calibration"][check]["values"])
    comparison_path = tmp_path / "comparison.json"
    result = run(cli, "compare", sharp, smooth, data, "--json", str(comparison_path))
    assert result.returncode == 0, result.stderr
    from_cli = json.loads(comparison_path.read_text())
    in_python = metrics.compare([sharp, smooth], X, y)
    assert list(from_cli["scores"]) == list(in_python["scores"]) == ["log_likelihood", "rps",
                                                                     "brier"]
    np.testing.assert_array_equal(from_cli["means"], in_python["means"])
    assert [d["mean"] for d in from_cli["differences"]] == [
        d["mean"] for d in in_python["differences"]]
    refused = run(cli, "evaluate", sharp, data, "--scores", "crps,log_likelihood")
    assert refused.returncode == 2
    assert refused.stderr.startswith("cdens: error: the score 'crps' does not apply")
    assert "(the scores that apply: log_likelihood, rps, brier, central, hpd)" in refused.stderr
    linear = str(tmp_path / "linear.json")
    subprocess.run([cli, "fit", str(grades["dir"] / "train.csv"), "--method", "linear", "--x",
                    "x", "--y", "y", "--out", linear], capture_output=True, check=True)
    mixed = run(cli, "compare", sharp, linear, data)
    assert mixed.returncode == 2 and "log-probability" in mixed.stderr


def test_a_y_of_words_is_evaluated_in_its_labels(cli, grades, tmp_path):
    """An ordered y of words (--levels) and an unordered one: the command reads the words of the
    file, Python the same words; both give the same numbers."""
    data = str(grades["dir"] / "test.csv")
    X = grades["x"][300:]
    ordered = fit_file(cli, grades, tmp_path / "grade.json", "--y", "grade", "--ordered",
                       "grade", "--levels", "grade=low,mid,high", "--bandwidth", "0.6,0.4")
    unordered = fit_file(cli, grades, tmp_path / "side.json", "--y", "side", "--discrete",
                         "side", "--bandwidth", "0.6,0.3")
    for path, words, names in [(ordered, grades["grade"][300:], ["rps", "brier"]),
                               (unordered, grades["side"][300:], ["brier"])]:
        report_path = tmp_path / "words.json"
        result = run(cli, "evaluate", path, data, "--json", str(report_path))
        assert result.returncode == 0, result.stderr
        from_cli = json.loads(report_path.read_text())
        in_python = metrics.evaluate(path, X, words)
        assert from_cli["n"] == in_python["n"] == len(words)  # every word is a level
        for cli_score, python_score in zip(from_cli["scores"], in_python["scores"]):
            np.testing.assert_array_equal(cli_score["values"], python_score["values"])
        assert [s["name"] for s in from_cli["scores"]][1:1 + len(names)] == names
    words = grades["grade"][300:]
    codes = np.array([GRADES.index(word) for word in words])
    model = cdens.load(ordered)
    p = masses(model, X, GRADES)
    np.testing.assert_allclose(metrics.brier_score(model, X, words),
                               ((p - (codes[:, None] == np.arange(3))) ** 2).sum(axis=1),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(metrics.rps(model, X, words),
                               ((np.cumsum(p, axis=1) - (codes[:, None] <= np.arange(3))) ** 2)
                               .sum(axis=1), rtol=0, atol=1e-12)


def test_the_calibration_figure_of_a_discrete_y(cli, grades, tmp_path):
    sharp = fit_file(cli, grades, tmp_path / "sharp.json", "--y", "y", "--ordered", "y",
                     "--bandwidth", "0.6,0.4")
    plot_path = tmp_path / "discrete_calibration.png"
    result = run(cli, "evaluate", sharp, str(grades["dir"] / "test.csv"), "--plot",
                 str(plot_path))
    assert result.returncode == 0, result.stderr
    assert plot_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib

    matplotlib.use("Agg")
    import cdens.plot

    report = metrics.evaluate(sharp, grades["x"][300:], grades["y"][300:])
    figure = cdens.plot.calibration(report)
    titles = [ax.get_title() for ax in figure.axes]
    assert titles[0].startswith("randomised PIT values") and titles[1].startswith(
        "randomised HPD values")
    labels = figure.axes[2].get_legend_handles_labels()[1]
    assert labels[-2:] == ["central sets", "most probable sets"]
