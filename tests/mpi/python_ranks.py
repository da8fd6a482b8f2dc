"""The Python package under mpirun: estimators fitted with comm=MPI.COMM_WORLD, each process
passing its own rows, give the single-process model of all rows on every process (within the
tolerance of tests/mpi/test_lscde_ranks.cpp); an error in one process's rows is raised on every
process with one message; a method that does not run distributed refuses on every process.
Run by tests/python/test_distributed.py:

    mpirun -n K python3 tests/mpi/python_ranks.py
"""

import json
import os
import sys
import tempfile
import warnings

import numpy as np
from mpi4py import MPI

import cdens
from cli_ranks import (RANK_TOLERANCE, check, expect_same_kcde, model_difference,
                       same_model_difference)

COMM = MPI.COMM_WORLD


def generated_pairs(n, seed):
    """y = sin(2 x0) + x1 / 2 + noise, x2 irrelevant, in units far from standard."""
    generator = np.random.default_rng(seed)
    x = generator.normal(size=(n, 3))
    y = np.sin(2 * x[:, 0]) + 0.5 * x[:, 1] + 0.3 * generator.normal(size=n)
    return np.column_stack([40 + 10 * x[:, 0], -3 + 0.01 * x[:, 1], 1e3 * x[:, 2]]), 7 + 2 * y


def my_rows(n, layout):
    """This process's rows: equal shares ("equal"), or none on rank 0 and the rest shared
    ("first_empty")."""
    ranks, rank = COMM.Get_size(), COMM.Get_rank()
    if layout == "first_empty" and ranks > 1:
        if rank == 0:
            return slice(0, 0)
        ranks, rank = ranks - 1, rank - 1
    return slice(n * rank // ranks, n * (rank + 1) // ranks)


def model_document(estimator, directory, name):
    path = os.path.join(directory, f"{name}-{COMM.Get_rank()}.json")
    estimator.save(path)
    with open(path) as file:
        return json.load(file)


def fitted_alone(make, directory, name, *arguments, **keywords):
    """The model document of make() fitted by rank 0 to all rows, on every process."""
    document = None
    if COMM.Get_rank() == 0:
        document = model_document(make().fit(*arguments, **keywords), directory, name)
    return COMM.bcast(document)


def same_error_everywhere(fit):
    """The message of the ValueError fit() raises, checked to be raised on every process with
    the same text."""
    try:
        fit()
    except ValueError as error:
        message = str(error)
    else:
        message = None
    messages = COMM.allgather(message)
    check(all(m is not None for m in messages), f"raised on some processes only: {messages}")
    check(len(set(messages)) == 1, f"different messages: {messages}")
    return message


def main():
    warnings.simplefilter("ignore", cdens.CdensWarning)
    x, y = generated_pairs(600, 3)
    unlabeled = generated_pairs(200, 5)[0]
    estimators = {
        "lscde": lambda: cdens.LSCDE(random_state=4),
        "lscde-sq": lambda: cdens.LSCDE(cv_loss="sq", random_state=4),
        # Smaller grids than the defaults: SA-CDE's solver is the slow part of this test.
        "sacde": lambda: cdens.SACDE(sigma=[0.5, 1.0], n_centers=40, cv=3, random_state=4),
        "salscde": lambda: cdens.SALSCDE(sigma=[0.5, 1.0], n_centers=40, cv=3, random_state=4),
        "fw-lscde": lambda: cdens.ForwardSelectionCDE(sigma=[0.5, 1.0], regularization=[0.01, 0.1],
                                                      n_centers=40, cv=3, random_state=4),
        "kcde": lambda: cdens.KernelCDE(random_state=4),
        # Short searches: a few hundred criterion evaluations each.
        "press": lambda: cdens.PRESSRegressor(n_states=3, n_restarts=2, max_iter=200,
                                              learning_rate=0.02, random_state=4),
        "lsce": lambda: cdens.LSCE(n_components=1, n_restarts=2, max_iter=8, sigma=[0.3, 1.0],
                                   regularization=[0.1, 1.0], n_centers=30, cv=3,
                                   random_state=4),
    }
    largest = 0.0
    with tempfile.TemporaryDirectory() as directory:
        for name, make in estimators.items():
            single = fitted_alone(make, directory, f"{name}-alone", x, y)
            for layout in ("equal", "first_empty"):
                rows = my_rows(len(y), layout)
                shared = model_document(make().fit(x[rows], y[rows], comm=COMM), directory, name)
                if name == "kcde":
                    difference = expect_same_kcde(shared, single, f"{name}, {layout}")
                else:
                    difference = same_model_difference(name, single, shared, f"{name}, {layout}")
                if COMM.Get_size() == 1:
                    check(difference == 0.0, f"{name}: one process differs by {difference}")
                largest = max(largest, difference)

        # A density: GMM of the inputs, two k-means++ starts.
        single = fitted_alone(lambda: cdens.GMM(n_components=3, n_init=2, random_state=4),
                              directory, "gmm-alone", x)
        for layout in ("equal", "first_empty"):
            rows = my_rows(len(y), layout)
            shared = model_document(
                cdens.GMM(n_components=3, n_init=2, random_state=4).fit(x[rows], comm=COMM),
                directory, "gmm")
            difference = model_difference(single, shared)
            check(difference <= RANK_TOLERANCE and (COMM.Get_size() > 1 or difference == 0.0),
                  f"gmm, {layout}: {difference}")
            largest = max(largest, difference)

        # Semi-supervised: each process passes its own unlabelled inputs too.
        single = fitted_alone(lambda: cdens.LSCDE(random_state=4), directory, "semi-alone", x, y,
                              X_unlabeled=unlabeled)
        shared = model_document(
            cdens.LSCDE(random_state=4).fit(x[my_rows(600, "equal")], y[my_rows(600, "equal")],
                                            X_unlabeled=unlabeled[my_rows(200, "equal")],
                                            comm=COMM), directory, "semi")
        largest = max(largest, model_difference(single, shared))
        check(model_difference(single, shared) <= RANK_TOLERANCE, "semi-supervised LSCDE")

        # A discrete input of words: every process codes the labels of its own rows, the same
        # three here, which is the single process's coding.
        tercile = np.digitize(x[:, 1], np.quantile(x[:, 1], [1 / 3, 2 / 3]))
        x_words = np.column_stack([x[:, 0], np.array(["low", "mid", "high"])[tercile]])
        x_words = x_words.astype(object)
        x_words[:, 0] = x[:, 0]
        single = fitted_alone(lambda: cdens.KernelCDE(discrete=[1], random_state=4), directory,
                              "words-alone", x_words, y)
        for layout in ("equal", "first_empty"):
            rows = my_rows(len(y), layout)
            shared = model_document(cdens.KernelCDE(discrete=[1], random_state=4).fit(
                x_words[rows], y[rows], comm=COMM), directory, "words")
            largest = max(largest, expect_same_kcde(shared, single, f"words, {layout}"))

        # The last process's rows lack a label the others have: every process codes the labels
        # of all rows, as one process holding them does.
        lacking = x_words.copy()
        last = slice(len(y) * (COMM.Get_size() - 1) // COMM.Get_size(), len(y))
        lacking[last][lacking[last][:, 1] == "high", 1] = "mid"
        single = fitted_alone(lambda: cdens.KernelCDE(discrete=[1], random_state=4), directory,
                              "lacking-alone", lacking, y)
        rows = my_rows(len(y), "equal")
        shared = model_document(cdens.KernelCDE(discrete=[1], random_state=4).fit(
            lacking[rows], y[rows], comm=COMM), directory, "lacking")
        largest = max(largest, expect_same_kcde(shared, single, "a label lacking on one process"))

    # An ordered column whose stated labels differ between the processes: refused on every one.
    rows = my_rows(len(y), "equal")
    if COMM.Get_size() > 1:
        stated = ["low", "mid", "high"] if COMM.Get_rank() == 0 else ["high", "mid", "low"]
        message = same_error_everywhere(lambda: cdens.KernelCDE(ordered={1: stated}).fit(
            x_words[rows], y[rows], comm=COMM))
        check(message.startswith("the labels of ordered column 'x1' differ between the "
                                 "processes"), message)

    # A non-finite value in the last process's rows.
    bad_x = x[rows].copy()
    if COMM.Get_rank() == COMM.Get_size() - 1:
        bad_x[-1, 1] = np.nan
    message = same_error_everywhere(lambda: cdens.LSCDE().fit(bad_x, y[rows], comm=COMM))
    check("X" in message and "NaN" in message, message)

    # Methods that need every row in one place refuse several processes.
    if COMM.Get_size() > 1:
        message = same_error_everywhere(lambda: cdens.ParzenWindow().fit(x[rows], comm=COMM))
        check(message.startswith("method ParzenWindow runs on one process only"), message)

    if COMM.Get_rank() == 0:
        print(f"python under mpirun, {COMM.Get_size()} processes: the same models "
              f"(largest relative difference {largest:.1e}); errors and refusals on every process")
    return 0


if __name__ == "__main__":
    sys.exit(main())
