"""Progress of long work: the command's line on a terminal (a pseudo-terminal here), nothing on a
pipe or with --quiet, the line erased before an error message; Python's verbose=1 on sys.stderr
and verbose=0 silent, for fits and evaluations."""

import os
import pty
import re
import subprocess
import tempfile

import numpy as np
import pytest
from sklearn.base import clone

import cdens
import cdens.metrics as metrics
from cdens._methods import engine_options, methods

from conftest import REPO

FAITHFUL = str(REPO / "data" / "faithful.csv")
# The stage of an evaluation of a one-dimensional continuous y that searches every pair.
SEARCHES = "CRPS, quantiles and highest-density regions"
# A stage's line as TerminalProgress erases it: a carriage return, spaces over the line, another.
ERASED = re.compile(r"\r +\r")


def run_on_terminal(command):
    """(exit status, standard output, what the command wrote on its standard error), standard
    error being a pseudo-terminal, as a person's shell gives it."""
    controller, terminal = pty.openpty()
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=terminal)
        os.close(terminal)
        written = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # Linux: EIO once the command has closed its end
                break
            if not chunk:
                break
            written += chunk
        status = process.wait()
        os.close(controller)
        out.seek(0)
        return status, out.read().decode(), written.decode()


@pytest.fixture(scope="module")
def model_files(faithful, tmp_path_factory):
    """Two conditional models of eruptions given waiting, saved as files."""
    x, y = faithful
    directory = tmp_path_factory.mktemp("models")
    paths = []
    for name, estimator in [("lscde", cdens.LSCDE(sigma=0.3, regularization=0.1)),
                            ("linear", cdens.LinearGaussianCDE())]:
        path = directory / f"{name}.json"
        estimator.fit(x, y).save(path)
        paths.append(str(path))
    return paths


GMM_FIT = ["fit", FAITHFUL, "--method", "gmm", "--n-components", "2", "--n-init", "3"]


def test_a_fit_shows_its_stage_on_a_terminal_and_erases_it(cli):
    status, out, terminal = run_on_terminal([cli] + GMM_FIT)
    assert status == 0, terminal
    # EM's iterations are counted without a known total; the line is erased at the end.
    assert "\rEM iterations of 3 starts: 0" in terminal
    assert ERASED.search(terminal)
    # What is left on the terminal after the last carriage return is blank: nothing half-written.
    assert terminal.rsplit("\r", 1)[-1].strip() == ""
    assert "method: gmm" in out


def test_nothing_on_a_pipe_nor_with_quiet(cli):
    piped = subprocess.run([cli] + GMM_FIT, capture_output=True, text=True)
    assert piped.returncode == 0
    assert piped.stderr == ""
    status, out, terminal = run_on_terminal([cli] + GMM_FIT + ["--quiet"])
    assert status == 0
    assert terminal == ""
    assert "method: gmm" in out


def test_the_line_is_erased_before_an_error_message(cli):
    # auto's candidates of forward selection around one (σ, λ) each, which its rule refuses: each
    # fails inside its stage of fold fits, and no candidate is left.
    status, _, terminal = run_on_terminal(
        [cli, "fit", FAITHFUL, "--method", "auto", "--x", "waiting", "--y", "eruptions",
         "--candidates", "fw-lscde:sigma=0.3:regularization=0.1,fw-ekde:sigma=0.3:epsilon=0.5"])
    assert status == 2
    assert ("\rcandidate 1 of 2 (fw-lscde:sigma=0.3:regularization=0.1): fold fits: 0/5 (0%)"
            in terminal)
    assert re.search(r"\r +\rcdens: error: no candidate could be scored", terminal), \
        repr(terminal)


def test_evaluate_and_compare_show_their_slow_stages(cli, model_files):
    columns = ["--x", "waiting", "--y", "eruptions"]  # the models were fitted on arrays
    status, _, terminal = run_on_terminal([cli, "evaluate", model_files[0], FAITHFUL] + columns)
    assert status == 0, terminal
    assert f"\revaluate: {SEARCHES}: 0/272 (0%)" in terminal
    assert terminal.rsplit("\r", 1)[-1].strip() == ""
    status, _, terminal = run_on_terminal([cli, "compare"] + model_files + [FAITHFUL] + columns)
    assert status == 0, terminal
    assert f"\rcompare, model 1 of 2 (lscde.json): {SEARCHES}: 0/272" in terminal
    assert f"\rcompare, model 2 of 2 (linear.json): {SEARCHES}: 0/272" in terminal
    status, _, terminal = run_on_terminal(
        [cli, "compare"] + model_files + [FAITHFUL, "-q"] + columns)
    assert status == 0 and terminal == ""


def test_verbose_fit_writes_its_stages_to_stderr(faithful, capfd):
    x, y = faithful
    cdens.LSCDE(verbose=1).fit(x, y)
    captured = capfd.readouterr()
    assert captured.out == ""
    # Each stage ends as a kept line with its steps and time.
    # (spaces cover what is left of the longer line before it)
    assert re.search(r"cross-validation: (\d+)/\1 in \d+:\d\d *\n", captured.err), captured.err
    cdens.GMM(n_components=2, verbose=True).fit(np.column_stack([x[:, 0], y]))
    assert re.search(r"EM iterations: \d+ in \d+:\d\d *\n", capfd.readouterr().err)


def test_verbose_zero_is_silent_and_the_default(faithful, capfd):
    x, y = faithful
    assert cdens.KernelCDE().get_params()["verbose"] == 0
    cdens.KernelCDE().fit(x, y)
    cdens.PRESSRegressor(n_states=2, n_restarts=2).fit(x, y)
    assert capfd.readouterr() == ("", "")


def test_verbose_reaches_every_fit_function(faithful, capsys):
    # capsys replaces sys.stderr by a Python object: the engine writes through it.
    x, y = faithful
    cdens.KernelCDE(verbose=1).fit(x, y)
    assert "bandwidth search, L-BFGS runs: 3/3 in" in capsys.readouterr().err
    cdens.PRESSRegressor(n_states=2, n_restarts=2, verbose=1).fit(x, y)
    assert "PRESS starts: 2/2 in" in capsys.readouterr().err
    cdens.LSCE(n_components=1, n_restarts=2, verbose=1).fit(np.column_stack([x, x ** 2]), y)
    assert "subspace search: 2/2 in" in capsys.readouterr().err


def test_verbose_is_no_option_of_the_engine(faithful):
    estimator = cdens.KernelCDE(verbose=1)
    assert clone(estimator).verbose == 1
    assert "verbose" not in engine_options(estimator, "kcde")
    for entry in methods().values():
        assert all(option["python_name"] != "verbose" for option in entry["options"])
    x, y = faithful
    for bad in (-1, 0.5, "yes"):
        with pytest.raises(ValueError, match="verbose must be a non-negative integer"):
            cdens.LinearGaussianCDE(verbose=bad).fit(x, y)


def test_verbose_evaluate_and_compare_name_their_stages(faithful, model_files, capsys):
    x, y = faithful
    metrics.evaluate(model_files[0], x, y, verbose=1)
    assert f"evaluate: {SEARCHES}: 272/272 in" in capsys.readouterr().err
    metrics.evaluate(model_files[0], x, y)
    assert capsys.readouterr().err == ""
    metrics.compare(model_files, x, y, verbose=1)
    err = capsys.readouterr().err
    assert f"compare, model 1 of 2 (lscde): {SEARCHES}: 272/272 in" in err
    assert f"compare, model 2 of 2 (linear): {SEARCHES}: 272/272 in" in err


def test_predict_shows_its_row_queries_and_quiet_silences_them(cli, model_files, tmp_path):
    command = [cli, "predict", model_files[0], FAITHFUL, "--x", "waiting",
               "--out", str(tmp_path / "predictions.csv")]
    status, _, terminal = run_on_terminal(command)
    assert status == 0, terminal
    for stage in ("means and variances", "quantiles"):
        assert f"\rpredict: {stage}: 0/272 (0%)" in terminal
    assert terminal.rsplit("\r", 1)[-1].strip() == ""
    status, _, terminal = run_on_terminal(command + ["--quiet"])
    assert status == 0 and terminal == ""
