"""The words of the fit report (cdens fit, cdens info, the model's report in Python) and of cdens
score: what a fit without a cross-validation table chose and how, GMM's likelihood in the data's
units, what the kernel-sum path did, and auto's time budget."""

import re
import subprocess

import numpy as np
import pytest

import cdens

from conftest import REPO

FAITHFUL = str(REPO / "data" / "faithful.csv")


def run(cli, *arguments):
    result = subprocess.run([cli, *arguments], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def value(report, key):
    """The value of `key: value` in a report."""
    match = re.search(rf"^{re.escape(key)}: (.*)$", report, flags=re.M)
    assert match, f"no {key} in:\n{report}"
    return match.group(1)


def test_gmm_says_its_components_are_given_and_its_likelihood_is_in_data_units(cli, tmp_path):
    path = str(tmp_path / "gmm.json")
    fitted = run(cli, "fit", FAITHFUL, "--method", "gmm", "--n-components", "2", "--out", path)
    assert value(fitted, "cross-validation") == (
        "none: n_components = 2 is given, not selected (compare the held-out scores of fits "
        "with several); EM from one start")
    # The same mean log-likelihood as cdens score of the training data, in the data's units
    # (the report prints 6 significant digits).
    scored = run(cli, "score", path, FAITHFUL)
    assert float(value(fitted, "mean_log_likelihood")) == pytest.approx(
        float(value(scored, "mean_log_likelihood")), rel=1e-5)
    assert not re.search(r"^log_likelihood:", fitted, flags=re.M)
    assert value(run(cli, "info", path), "cross-validation") == value(fitted, "cross-validation")
    assert value(scored, "kernel_sums") == (
        "components (the mixture's kernels differ in width, so each sample's density summed "
        "every component exactly, no approximation (--tolerance applies to Parzen windows only))")


def test_kcde_says_it_searched_the_leave_one_out_likelihood(cli, tmp_path):
    path = str(tmp_path / "kcde.json")
    fitted = run(cli, "fit", FAITHFUL, "--method", "kcde", "--x", "waiting", "--y", "eruptions",
                 "--out", path)
    choice = value(fitted, "cross-validation")
    evaluations = value(fitted, "evaluations")
    assert choice == (f"leave-one-out likelihood of the bandwidths, maximised by L-BFGS "
                      f"({evaluations} evaluations from 3 starts): a search, not a grid, so no "
                      f"table; marginal_weight by the same leave-one-out likelihood")
    assert value(run(cli, "info", path), "cross-validation") == choice
    # A grid method given one candidate still says so.
    single = run(cli, "fit", FAITHFUL, "--method", "lscde", "--x", "waiting", "--y", "eruptions",
                 "--sigma", "0.3", "--regularization", "0.1")
    assert value(single, "cross-validation") == "none (a single candidate)"


def test_the_kernel_sums_of_a_parzen_window_say_what_they_did(cli, tmp_path):
    path = str(tmp_path / "parzen.json")
    run(cli, "fit", FAITHFUL, "--method", "parzen", "--out", path)
    assert value(run(cli, "score", path, FAITHFUL, "--tolerance", "0"), "kernel_sums") == (
        "exact (every kernel of every sample summed, no approximation)")


def test_auto_names_the_budget_that_left_a_candidate_out(cli):
    fitted = run(cli, "fit", FAITHFUL, "--method", "auto", "--x", "waiting", "--y", "eruptions",
                 "--candidates", "linear,kcde", "--time-budget", "1e-9")
    row = next(line for line in fitted.splitlines() if line.strip().startswith("kcde"))
    match = re.fullmatch(r"\s*kcde\s+not run: the candidates before it used up the time budget "
                         r"\((\S+) s of 1e-09 s\)", row)
    assert match, row
    # The time the first candidate took, not the skipped one's nothing.
    linear = next(line for line in fitted.splitlines() if line.strip().startswith("linear"))
    assert float(match.group(1)) >= float(linear.split()[6])
    assert value(fitted, "time_budget") == (
        "1e-09 s (no candidate starts after it is used up; the first always runs)")


def test_python_models_carry_the_same_words_and_units(faithful):
    x, y = faithful
    points = np.column_stack([x[:, 0], y])
    gmm = cdens.GMM(n_components=2, random_state=0).fit(points)
    assert gmm.model_.parameter_choice.startswith("none: n_components = 2 is given")
    # Python's score is the total log-likelihood in the data's units.
    assert gmm.model_.statistics["mean_log_likelihood"] == pytest.approx(
        gmm.score(points) / len(points), abs=1e-10)
    kcde = cdens.KernelCDE().fit(x, y)
    assert kcde.model_.parameter_choice.startswith("leave-one-out likelihood of the bandwidths")
    assert kcde.model_.cross_validation is None
    assert cdens.LSCDE(sigma=0.3, regularization=0.1).fit(x, y).model_.parameter_choice is None
    linear = cdens.LinearGaussianCDE().fit(x, y)
    assert linear.model_.parameter_choice.startswith(
        "the variance of each output, constant or log-linear in x, by leave-one-out likelihood")
