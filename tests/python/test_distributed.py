"""fit(..., comm=...): an mpi4py communicator of one process gives the model of a fit alone; a
script under mpirun on 2-4 processes fits the single-process model from each process's own rows
(tests/mpi/python_ranks.py checks that on every process); a comm that is no communicator is
refused."""

import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
from mpi4py import MPI

import cdens
from conftest import REPO

ALONE = MPI.COMM_SELF


def pairs(n=240, seed=2):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 2))
    return x, x[:, 0] + 0.3 * rng.normal(size=n)


@pytest.mark.parametrize("make", [
    lambda: cdens.LSCDE(random_state=1),
    lambda: cdens.SACDE(sigma=[0.5, 1.0], n_centers=30, cv=3, random_state=1),
    lambda: cdens.KernelCDE(random_state=1),
    # One process only: a comm of one process is no obstacle.
    lambda: cdens.KernelCDE(trend="gp", random_state=1),
], ids=["lscde", "sacde", "kcde", "kcde-gp"])
def test_a_communicator_of_one_process_fits_the_model_of_a_fit_alone(make):
    x, y = pairs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        alone = make().fit(x, y)
        shared = make().fit(x, y, comm=ALONE)
    np.testing.assert_array_equal(shared.log_pdf(x, y), alone.log_pdf(x, y))


def test_density_estimators_take_a_communicator_too():
    x, _ = pairs()
    alone = cdens.ParzenWindow().fit(x)
    shared = cdens.ParzenWindow().fit(x, comm=ALONE)
    np.testing.assert_array_equal(shared.score_samples(x), alone.score_samples(x))


@pytest.mark.parametrize("estimator", [cdens.LSCDE(), cdens.PRESSRegressor()])
def test_comm_must_be_an_mpi4py_communicator(estimator):
    x, y = pairs()
    with pytest.raises(TypeError, match="comm must be an mpi4py communicator .* got 3"):
        estimator.fit(x, y, comm=3)


def test_the_registry_says_which_methods_run_distributed():
    distributed = {name for name, entry in cdens._methods.methods().items()
                   if entry["distributed"]}
    assert {"lscde", "sacde", "salscde", "fw-lscde", "gmm", "kcde", "press", "lsce", "lsmi-lscde",
            "linear", "auto"} <= distributed
    assert not {"parzen", "fw-ekde", "fw-nwcde", "lsce-ekde", "lsmi-ekde"} & distributed


@pytest.mark.parametrize("processes", [1, 2, 3, 4])
def test_fits_under_mpirun_equal_the_fit_alone(processes):
    mpiexec = shutil.which("mpiexec")
    assert mpiexec, "mpiexec not found: scripts/install_deps.sh installs openmpi-bin"
    environment = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE",
                       OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    result = subprocess.run(
        [mpiexec, "-n", str(processes), "--oversubscribe", sys.executable,
         str(REPO / "tests" / "mpi" / "python_ranks.py")],
        capture_output=True, text=True, env=environment, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{processes} processes: the same models" in result.stdout


def test_the_command_started_after_mpi4py_runs_alone(cli, tmp_path):
    # Importing mpi4py initialised MPI in this process, which leaves PMIX_RANK in the environment
    # the command inherits; it was not started by a launcher and must fit alone.
    assert ALONE.Get_size() == 1
    result = subprocess.run([cli, "fit", str(REPO / "data" / "faithful.csv"), "--method", "parzen",
                             "--columns", "waiting", "--out", str(tmp_path / "model.json")],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
