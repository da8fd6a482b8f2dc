"""Identical rows (docs/methods/duplicates.md) on the table of issue 50, data/engel.csv (235
Belgian households, income -> food expenditure): the table written once and twice on a fixed
split, by the package and by the command; duplicates="keep" reproduces the collapse."""

import subprocess

import numpy as np
import pytest

import cdens
from conftest import REPO


@pytest.fixture(scope="module")
def engel():
    """(income (n, 1), foodexp (n,)) split into training rows and every fourth row held out."""
    data = np.genfromtxt(REPO / "data" / "engel.csv", delimiter=",", names=True)
    x = data["income"].reshape(-1, 1)
    y = data["foodexp"]
    held_out = np.arange(len(y)) % 4 == 0
    return (x[~held_out], y[~held_out]), (x[held_out], y[held_out])


def twice(x, y):
    """The rows written twice, one copy after the other (a file appended to itself)."""
    return np.vstack([x, x]), np.concatenate([y, y])


def held_out_scores(fitted, x, y):
    """Mean held-out NLL and coverage of the equal-tailed 90 % interval."""
    interval = fitted.predict_interval(x, 0.9)
    return -np.mean(fitted.log_pdf(x, y)), np.mean((y >= interval[:, 0]) & (y <= interval[:, 1]))


@pytest.mark.parametrize("estimator", [cdens.KernelCDE(random_state=0),
                                       cdens.AutoCDE(random_state=0)],
                         ids=["kcde", "auto"])
def test_engel_written_twice_scores_as_written_once(estimator, engel):
    (x, y), (x_test, y_test) = engel
    once = estimator.fit(x, y)
    once_scores = held_out_scores(once, x_test, y_test)
    once_log_pdf = once.log_pdf(x_test, y_test)
    with pytest.warns(cdens.CdensWarning, match="fitted as one row weighing their total"):
        doubled = estimator.fit(*twice(x, y))
    # The same model: the doubled table merges into the table, each row weighing 2, and equal
    # weights are no weights (the fit on the table, to the bit).
    np.testing.assert_array_equal(doubled.log_pdf(x_test, y_test), once_log_pdf)
    assert held_out_scores(doubled, x_test, y_test) == once_scores
    assert once_scores[0] < 7.0 and once_scores[1] > 0.8


def test_keep_reproduces_the_collapse(engel):
    (x, y), (x_test, y_test) = engel
    once = cdens.KernelCDE(random_state=0, duplicates="keep").fit(x, y)
    with pytest.warns(cdens.CdensWarning, match="duplicates = keep"):
        kept = cdens.KernelCDE(random_state=0, duplicates="keep").fit(*twice(x, y))
    # Every pair's twin stays in its leave-one-out sample: both bandwidths end on the lower
    # bound of the search box, 10^-3 standardised units, and the held-out pairs fall between
    # the spikes (issue 50 measured NLL 4,703, coverage 0.056 on the whole table).
    assert kept.bandwidth_x0_ == pytest.approx(1e-3) and kept.bandwidth_y0_ == pytest.approx(1e-3)
    nll, coverage = held_out_scores(kept, x_test, y_test)
    once_nll, once_coverage = held_out_scores(once, x_test, y_test)
    assert nll > 100.0 * once_nll and coverage < 0.3 < once_coverage


def test_a_fifth_written_twice_is_weight_two_on_that_fifth(engel):
    (x, y), (x_test, y_test) = engel
    rows = np.random.default_rng(5).choice(len(y), size=len(y) // 5, replace=False)
    order = np.random.default_rng(6).permutation(rows)
    x_more, y_more = np.vstack([x, x[order]]), np.concatenate([y, y[order]])
    weights = np.ones(len(y))
    weights[rows] += 1.0
    estimator = cdens.KernelCDE(random_state=0)
    merged = estimator.fit(x_more, y_more).log_pdf(x_test, y_test)
    weighted = estimator.fit(x, y, sample_weight=weights).log_pdf(x_test, y_test)
    np.testing.assert_array_equal(merged, weighted)
    once = estimator.fit(x, y).log_pdf(x_test, y_test)
    # Not collapsed: the weight of a fifth of the rows moves the held-out NLL by far less than
    # its spread over the pairs (standard error about 0.1 on 59 pairs).
    assert abs(np.mean(merged) - np.mean(once)) < 0.1


def test_the_command_scores_the_table_written_twice_as_written_once(cli, engel, tmp_path):
    (x, y), (x_test, y_test) = engel
    test_path = tmp_path / "test.csv"
    np.savetxt(test_path, np.column_stack([x_test[:, 0], y_test]), delimiter=",",
               header="income,foodexp", comments="", fmt="%.17g")
    lines = {}
    for name, (xs, ys) in {"once": (x, y), "twice": twice(x, y)}.items():
        path = tmp_path / f"{name}.csv"
        np.savetxt(path, np.column_stack([xs[:, 0], ys]), delimiter=",", header="income,foodexp",
                   comments="", fmt="%.17g")
        out = subprocess.run([cli, "fit", str(path), "--method", "kcde", "--x", "income", "--y",
                              "foodexp", "--seed", "0", "--test", str(test_path)],
                             check=True, capture_output=True, text=True).stdout
        lines[name] = dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)
    assert lines["twice"]["test_nll"] == lines["once"]["test_nll"]
    assert lines["twice"]["duplicate_rows"] == str(len(y) + int(lines["once"].get(
        "duplicate_rows", "0")))


def test_labelled_columns_written_twice_are_the_table():
    """A labelled input (words, coded to levels) and a labelled output: the rows written twice
    merge into the rows once, and rows equal in x but not in y stay apart."""
    rng = np.random.default_rng(3)
    band = rng.choice(["low", "mid", "high"], size=60).astype(object)
    size = rng.normal(size=60)
    x = np.empty((60, 2), dtype=object)
    x[:, 0], x[:, 1] = band, size
    y = np.where(size + rng.normal(scale=0.5, size=60) > 0, "yes", "no").astype(object)
    estimator = cdens.KernelCDE(discrete=[0, 2], random_state=0)
    once = estimator.fit(x, y).log_pdf(x, y)
    with pytest.warns(cdens.CdensWarning, match="60 of the 120 rows repeat an earlier row"):
        doubled = estimator.fit(np.vstack([x, x]), np.concatenate([y, y]))
    np.testing.assert_array_equal(doubled.log_pdf(x, y), once)
    # The first row again with the other answer: equal in x only, so no row repeats.
    other = np.where(y[:1] == "yes", "no", "yes").astype(object)
    fitted = estimator.fit(np.vstack([x, x[:1]]), np.concatenate([y, other]))
    assert "duplicate_rows" not in fitted.model_.statistics
