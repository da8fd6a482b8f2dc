"""Outputs with an atom from Python and the command line (docs/methods/kcde.md, "Outputs with an
atom"): on a zero-inflated table whose truth is known, KCDE's mass P(y = 0 | x) and its
continuous part score within a stated tolerance of the truth on held-out rows and beat KCDE as
written (atom = "none") and the continuous auto pool on the CRPS, its 90 % intervals cover 90 %;
the option's values; one model file answers alike in Python and on the command line."""

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import cdens
import cdens.metrics as metrics

# The benchmark's table (bench/peers/cde/zero_inflated.py): x ~ U(-2, 2)^2, y = 0 with
# probability 1/(1 + exp(-(0.4 - 1.5 x0))), otherwise log y ~ N(0.2 + 0.6 x0 + 0.4 x1, 0.5^2).
BENCH_FILE = Path(__file__).resolve().parents[2] / "bench" / "peers" / "cde" / "zero_inflated.py"
_spec = importlib.util.spec_from_file_location("zero_inflated_bench", BENCH_FILE)
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def zero_inflated(n, seed):
    """x, y and the truth's log-likelihood per row: the mass's and the continuous part's (0 at
    y = 0)."""
    x, y, p_zero, mu = bench.zero_inflated(n, seed)
    mass, continuous = bench.truth_log_likelihood(y, p_zero, mu)
    return x, y, mass, np.nan_to_num(continuous)


def parts(model, x, y):
    """The model's log-likelihood in the truth's two parts: the mass's and the continuous
    part's, log p(y|x) = log P(y > 0|x) + log f_c(y|x) at y > 0."""
    p_zero = model.predict_atom_probability(x)
    zero = y == 0.0
    mass = np.where(zero, np.log(p_zero), np.log1p(-p_zero))
    continuous = np.where(zero, 0.0, model.log_pdf(x, y) - np.log1p(-p_zero))
    return mass, continuous


@pytest.fixture(scope="module")
def fitted():
    x, y, _, _ = zero_inflated(1500, 1)
    atom = cdens.KernelCDE(random_state=0).fit(x, y)
    plain = cdens.KernelCDE(atom="none", random_state=0).fit(x, y)
    pool = cdens.AutoCDE(atom="none", random_state=0).fit(x, y)
    return atom, plain, pool, y.max()


def test_the_mass_and_the_continuous_part_score_as_the_truth_does(fitted):
    atom, _, _, largest = fitted
    assert atom.atom_ == 0.0
    x, y, mass_truth, continuous_truth = zero_inflated(4000, 2)
    mass, continuous = parts(atom, x, y)
    # The continuous part on the rows within the training outputs' range: beyond the largest
    # (6 of the 1,742 positive rows, in the log-normal's right tail) the kernels' tails are those
    # of a Gaussian of the chosen width, and a row there loses up to hundreds of nats.
    inside = (y > 0) & (y <= largest)
    # Held-out means, paired with the truth's on the same rows. The tolerance is the estimate's
    # own excess risk at n = 1,500 pairs of two inputs (its KL divergence from the truth,
    # measured 0.004 nats for the mass and 0.083 for the continuous part on this seed) with room
    # for about half as much again, plus three paired standard errors (0.0015 and 0.010).
    for ours, truth, tolerance in ((mass, mass_truth, 0.02),
                                   (continuous[inside], continuous_truth[inside], 0.12)):
        difference = truth - ours
        error = difference.std(ddof=1) / np.sqrt(len(difference))
        assert difference.mean() < tolerance + 3 * error, (difference.mean(), error)
    # The mass itself, P(y = 0 | x), against the truth's.
    p_zero = bench.zero_inflated(4000, 2)[2]
    assert np.abs(atom.predict_atom_probability(x) - p_zero).mean() < 0.05


def test_the_atom_beats_kcde_as_written_and_the_continuous_pool_on_the_crps(fitted):
    atom, plain, pool, largest = fitted
    assert plain.atom_ is None and pool.atom_ is None
    x, y, _, _ = zero_inflated(4000, 2)
    ours = metrics.crps(atom, x, y)
    for other in (plain, pool):
        improvement = metrics.crps(other, x, y) - ours
        error = improvement.std(ddof=1) / np.sqrt(len(improvement))
        assert improvement.mean() > 3 * error, (improvement.mean(), error)
    # On the positive rows both are densities: the atom's continuous part is better there too
    # (measured 0.22 ± 0.04 nats within the training range; beyond it the plain estimate's
    # narrower kernels lose thousands of nats).
    inside = (y > 0) & (y <= largest)
    gain = atom.log_pdf(x[inside], y[inside]) - plain.log_pdf(x[inside], y[inside])
    assert gain.mean() > 3 * gain.std(ddof=1) / np.sqrt(inside.sum())


def test_intervals_cover_what_their_quantiles_hold(fitted):
    atom, plain = fitted[0], fitted[1]
    x, y, _, _ = zero_inflated(4000, 2)
    report = metrics.evaluate(atom, x, y, scores=["log_likelihood", "crps", "central", "hpd"],
                              random_state=3)
    assert report["output_atom"] == 0.0
    assert report["calibration"]["pit"]["randomized"]
    # Beside the atom a pair is inside the central 90 % interval exactly when its quantiles
    # hold it; at the atom its randomised PIT decides (a calibrated model's coverage is then
    # exactly the level: tests/cpp/test_output_atom.cpp, on draws of a known model).
    pit = np.asarray(report["calibration"]["pit"]["values"])
    quantiles = atom.predict_quantiles(x, [0.05, 0.95])
    positive = y > 0
    inside = (quantiles[:, 0] <= y) & (y <= quantiles[:, 1])
    np.testing.assert_array_equal((np.abs(pit - 0.5) <= 0.45)[positive], inside[positive])
    # The fitted model's coverage: the kernels' smoothing in x widens p(y|x) at n = 1,500 (y's
    # mean moves with x0 within a bandwidth), so it over-covers — measured 0.927 on the
    # benchmark's 4,000 rows, against 0.979 for KCDE as written, which also spreads the zeros'
    # spike.
    scores = {score["name"]: score["mean"] for score in report["scores"]}
    plain_coverage = metrics.evaluate(plain, x, y, scores=["central"])["scores"]
    plain_coverage = {score["name"]: score["mean"] for score in plain_coverage}
    for level in ("central_coverage_0.9", "hpd_coverage_0.9"):
        assert abs(scores[level] - 0.9) < 0.035, (level, scores[level])
    assert abs(scores["central_coverage_0.9"] - 0.9) < abs(
        plain_coverage["central_coverage_0.9"] - 0.9)


def test_the_option_takes_auto_none_or_a_number():
    x, y, _, _ = zero_inflated(200, 4)
    fixed = dict(bandwidth=[0.5, 1.0, 0.3], random_state=0)
    assert cdens.KernelCDE(atom=0, **fixed).fit(x, y).atom_ == 0.0
    assert cdens.KernelCDE(atom=0.0, **fixed).fit(x, y).atom_ == 0.0
    assert cdens.KernelCDE(atom="none", **fixed).fit(x, y).atom_ is None
    with pytest.raises(ValueError, match="auto, none or a finite number"):
        cdens.KernelCDE(atom="zero", **fixed).fit(x, y)
    with pytest.raises(ValueError, match="rows of y are at it"):
        cdens.KernelCDE(atom=1.5, **fixed).fit(x, y)
    with pytest.raises(ValueError, match="has no atom"):
        cdens.KernelCDE(atom="none", **fixed).fit(x, y).predict_atom_probability(x)
    # Bounds truncate a continuous model; beside the atom they are refused, not dropped.
    with pytest.raises(ValueError, match="atom of y at 0 .*atom = none"):
        cdens.KernelCDE(y_lower=0.0, **fixed).fit(x, y)
    bounded = cdens.KernelCDE(atom="none", y_lower=0.0, **fixed).fit(x, y)
    assert bounded.atom_ is None and np.all(bounded.predict_quantiles(x, [0.05]) >= 0.0)


def test_auto_models_the_atom_with_the_candidates_that_can():
    x, y, _, _ = zero_inflated(300, 5)
    model = cdens.AutoCDE(random_state=0).fit(x, y)
    assert model.atom_ == 0.0
    status = dict(zip(model.selection_["candidate"], model.selection_["status"]))
    assert status["kcde"] == "scored"
    assert status["linear"].startswith("not run: it models densities")
    assert status["kcde:trend=gp"].startswith("not run: y has an atom")
    with pytest.raises(ValueError, match="auto's option"):
        cdens.AutoCDE(candidates="kcde:atom=0", random_state=0).fit(x, y)


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_one_model_file_answers_alike_in_python_and_on_the_command_line(tmp_path):
    cli = os.environ.get("CDENS_CLI")
    if not cli:
        pytest.skip("CDENS_CLI is not set")
    x, y, _, _ = zero_inflated(400, 6)
    data = tmp_path / "train.csv"
    np.savetxt(data, np.column_stack([x, y]), delimiter=",", header="a,b,y", comments="",
               fmt="%.17g")
    path = tmp_path / "model.json"
    subprocess.run([cli, "fit", str(data), "--method", "kcde", "--x", "a,b", "--y", "y",
                    "--out", str(path), "--quiet"], check=True, capture_output=True)
    assert json.loads(path.read_text())["version"] == 3
    model = cdens.load(path)
    assert model.atom_ == 0.0
    test_x, test_y, _, _ = zero_inflated(50, 7)
    test = tmp_path / "test.csv"
    np.savetxt(test, np.column_stack([test_x, test_y]), delimiter=",", header="a,b,y",
               comments="", fmt="%.17g")
    predicted = subprocess.run([cli, "predict", str(path), str(test), "--q", "0.1,0.5,0.9"],
                               check=True, capture_output=True, text=True).stdout
    table = np.genfromtxt(predicted.splitlines(), delimiter=",", names=True)
    np.testing.assert_allclose(table["atom_probability"], model.predict_atom_probability(test_x),
                               rtol=1e-15)
    np.testing.assert_allclose(table["log_density"], model.log_pdf(test_x, test_y), rtol=1e-15)
    quantiles = model.predict_quantiles(test_x, [0.1, 0.5, 0.9])
    for column, level in enumerate(["q0.1", "q0.5", "q0.9"]):
        np.testing.assert_allclose(table[level.replace(".", "")], quantiles[:, column],
                                   rtol=1e-15)
    report = tmp_path / "evaluate.json"
    subprocess.run([cli, "evaluate", str(path), str(test), "--json", str(report), "--seed", "4",
                    "--quiet"], check=True, capture_output=True)
    from_cli = json.loads(report.read_text())
    from_python = metrics.evaluate(model, test_x, test_y, random_state=4)
    assert from_cli["output_atom"] == 0.0
    for ours, theirs in zip(from_cli["scores"], from_python["scores"]):
        assert ours["name"] == theirs["name"]
        assert ours["mean"] == theirs["mean"], ours["name"]
    np.testing.assert_array_equal(from_cli["calibration"]["pit"]["values"],
                                  from_python["calibration"]["pit"]["values"])
