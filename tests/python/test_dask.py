"""Fits from dask collections on a LocalCluster: LSCDE, KCDE, GMM, PRESS and LSCE fitted from a dask
array or dataframe whose partitions lie on 1-4 workers (uneven, some empty, a rank without rows, a
label missing from one rank's rows) give the model of one process fitted to all rows, within the
tolerances of the MPI tests (tests/mpi/cli_ranks.py), as do sample weights and unlabelled inputs
given as dask collections, rows left out for missing values, and collections fitted without a
distributed client; an error in one partition reaches the client as the ValueError of one process;
methods that do not run distributed refuse rows on several workers, and fit rows on one; partitions
of X and y that do not match are refused.

One cluster of four workers (threads of this process: it starts in 0.3 s, where four worker
processes took 6 s here, bench/mpi/dask_fits.py) serves every test; a test places each
partition on the worker it names by scattering it there."""

import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import cdens
from conftest import REPO

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

sys.path.insert(0, str(REPO / "tests" / "mpi"))
from cli_ranks import (RANK_TOLERANCE, expect_same_kcde, model_difference,  # noqa: E402
                       same_model_difference)

# Partitions of 300 rows, uneven, one empty; with the workers named for each partition below,
# the runs of equal rows leave a rank without rows where the first partition is large.
SIZES = [130, 0, 45, 70, 55]


@pytest.fixture(scope="module")
def client():
    # The default client: the workers' tasks use it too (a client of their own would outlive the
    # cluster of threads and log its failures to reconnect).
    with distributed.LocalCluster(n_workers=4, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        yield client


# The futures of the partitions scattered by a test: a dask collection built on a future does not
# keep its data alive; these do until the test ends.
SCATTERED = []


@pytest.fixture(autouse=True)
def scattered_data_released():
    yield
    SCATTERED.clear()


def generated(n=300, seed=3):
    """y = sin(2 x0) + x1 / 2 + noise, in units far from standard."""
    generator = np.random.default_rng(seed)
    x = generator.normal(size=(n, 2))
    y = np.sin(2 * x[:, 0]) + 0.5 * x[:, 1] + 0.3 * generator.normal(size=n)
    return np.column_stack([40 + 10 * x[:, 0], -3 + 0.01 * x[:, 1]]), 7 + 2 * y


def placed(client, values, workers, kind, sizes=SIZES):
    """values (an array or a pandas object) as a dask array ("array") or dataframe/series
    ("frame") of partitions of `sizes` rows, partition i scattered to workers[i % len(workers)]."""
    addresses = sorted(client.scheduler_info()["workers"])
    bounds = np.cumsum([0] + sizes)
    parts = [values[start:stop] for start, stop in zip(bounds[:-1], bounds[1:])]
    futures = [client.scatter(part, workers=[addresses[workers[i % len(workers)]]], hash=False)
               for i, part in enumerate(parts)]
    SCATTERED.extend(futures)
    if kind == "array":
        return da.concatenate([da.from_delayed(future, part.shape, part.dtype)
                               for future, part in zip(futures, parts)])
    return dd.from_delayed(futures, meta=values[:0], divisions=None)


def document(estimator, path):
    estimator.save(path)
    with open(path) as file:
        return json.load(file)


ESTIMATORS = {
    "lscde": (lambda: cdens.LSCDE(random_state=4, n_jobs=1), True),
    "kcde": (lambda: cdens.KernelCDE(random_state=4, n_jobs=1), True),
    "gmm": (lambda: cdens.GMM(n_components=3, n_init=2, random_state=4, n_jobs=1), False),
    "press": (lambda: cdens.PRESSRegressor(n_states=3, n_restarts=2, max_iter=200,
                                           learning_rate=0.02, random_state=4, n_jobs=1), True),
    "lsce": (lambda: cdens.LSCE(n_components=1, n_restarts=2, max_iter=8, sigma=[0.3, 1.0],
                                regularization=[0.1, 1.0], n_centers=30, cv=3, random_state=4,
                                n_jobs=1), True),
}


@pytest.fixture(scope="module")
def fitted_alone(tmp_path_factory):
    """The model document of every estimator fitted in this process to all rows."""
    x, y = generated()
    directory = tmp_path_factory.mktemp("alone")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        return {name: document(make().fit(x, y) if conditional else make().fit(x),
                               directory / f"{name}.json")
                for name, (make, conditional) in ESTIMATORS.items()}


def expect_same(name, shared, alone):
    if name == "kcde":
        expect_same_kcde(shared, alone, name)
    else:
        same_model_difference(name, alone, shared, name)


def test_without_a_distributed_client_the_rows_are_computed_here(fitted_alone, tmp_path):
    # The first test of the module: no client exists yet.
    with pytest.raises(ValueError, match="No clients found"):
        distributed.default_client()
    x, y = generated()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        estimator = cdens.LSCDE(random_state=4, n_jobs=1).fit(da.from_array(x, chunks=70),
                                                              da.from_array(y, chunks=70))
    assert model_difference(fitted_alone["lscde"], document(estimator, tmp_path / "s.json")) == 0


@pytest.mark.parametrize("name", list(ESTIMATORS))
@pytest.mark.parametrize("workers", [[0], [1, 0], [2, 0, 1], [3, 2, 1, 0]],
                         ids=["1-worker", "2-workers", "3-workers", "4-workers"])
def test_a_dask_array_fits_the_model_of_one_process(client, fitted_alone, tmp_path, name,
                                                    workers):
    x, y = generated()
    make, conditional = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        X = placed(client, x, workers, "array")
        estimator = make()
        returned = (estimator.fit(X, placed(client, y, workers, "array")) if conditional
                    else estimator.fit(X))
    assert returned is estimator
    expect_same(name, document(estimator, tmp_path / "shared.json"), fitted_alone[name])


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_a_dask_dataframe_fits_the_model_of_one_process_and_keeps_its_names(
        client, fitted_alone, tmp_path, name):
    x, y = generated()
    frame = pd.DataFrame(x, columns=["waiting", "depth"])
    make, conditional = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        X = placed(client, frame, [3, 1, 3, 1, 0], "frame")
        estimator = (make().fit(X, placed(client, pd.Series(y, name="y"), [3, 1, 3, 1, 0],
                                          "frame"))
                     if conditional else make().fit(X))
    assert list(estimator.feature_names_in_) == ["waiting", "depth"]
    shared = document(estimator, tmp_path / "shared.json")
    assert shared["variables"]["x"] == ["waiting", "depth"]
    # The one-process fit was of an array: the names are all that differs.
    shared["variables"] = fitted_alone[name]["variables"]
    expect_same(name, shared, fitted_alone[name])


def test_the_runs_of_the_ranks_are_contiguous_balanced_and_stay_where_they_lie():
    from cdens._dask import contiguous_runs, ranks_of

    assert contiguous_runs(SIZES, 3) == [range(0, 1), range(1, 3), range(3, 5)]
    # The first partition holds most rows: the first rank has no rows.
    assert contiguous_runs([500, 50, 50], 3) == [range(0, 0), range(0, 1), range(1, 3)]
    assert ranks_of([100, 100, 100, 100], ["b", "b", "a", "a"]) == [("b", [0, 1]), ("a", [2, 3])]
    assert ranks_of([100, 100, 100, 100], ["a", "b", "a", "b"]) in (
        [("a", [0, 1]), ("b", [2, 3])], [("b", [0, 1]), ("a", [2, 3])])


def test_a_rank_without_rows_takes_part(client, tmp_path):
    # Partitions of 250, 25 and 25 rows on three workers: the runs of equal rows give the first
    # rank none.
    x, y = generated()
    addresses = sorted(client.scheduler_info()["workers"])
    bounds = [0, 250, 275, 300]
    futures = [client.scatter((x[a:b], y[a:b]), workers=[addresses[i]], hash=False)
               for i, (a, b) in enumerate(zip(bounds[:-1], bounds[1:]))]
    X = da.concatenate([da.from_delayed(dask.delayed(lambda p: p[0])(f), (b - a, 2), float)
                        for f, a, b in zip(futures, bounds[:-1], bounds[1:])])
    Y = da.concatenate([da.from_delayed(dask.delayed(lambda p: p[1])(f), (b - a,), float)
                        for f, a, b in zip(futures, bounds[:-1], bounds[1:])])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        shared = cdens.LSCDE(random_state=4, n_jobs=1).fit(X, Y)
        alone = cdens.LSCDE(random_state=4, n_jobs=1).fit(x, y)
    difference = model_difference(document(alone, tmp_path / "a.json"),
                                  document(shared, tmp_path / "s.json"))
    assert difference <= RANK_TOLERANCE


def test_a_nan_in_one_partition_raises_the_valueerror_of_one_process(client):
    x, y = generated()
    x[290, 1] = np.nan
    with pytest.raises(ValueError) as alone:
        cdens.LSCDE(n_jobs=1).fit(x, y)
    with pytest.raises(ValueError) as shared:
        cdens.LSCDE(n_jobs=1).fit(placed(client, x, [0, 1, 2, 3], "array"),
                                  placed(client, y, [0, 1, 2, 3], "array"))
    assert type(shared.value) is ValueError
    # The row is said by the one process holding them all: a worker's rows are some of them.
    assert str(alone.value).startswith("X: column 'x1' has a missing value (NaN) in row 290: ")
    assert str(shared.value) == str(alone.value).replace(" in row 290", "")


def test_methods_that_need_every_row_in_one_place_refuse_several_workers(client):
    x, y = generated(n=120)
    with pytest.raises(ValueError, match="method NWCDE runs on one process only"):
        cdens.NWCDE(n_jobs=1).fit(da.from_array(x, chunks=60), da.from_array(y, chunks=60))


# Partitions of auto's 120 rows, uneven, one empty.
AUTO_SIZES = [50, 0, 20, 30, 20]


@pytest.fixture(scope="module")
def auto_alone():
    """AutoCDE with its default candidates fitted in this process to 120 rows, and test rows."""
    x, y = generated(n=120, seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        return cdens.AutoCDE(random_state=2, n_jobs=1).fit(x, y), x, y, generated(n=50, seed=7)


@pytest.mark.parametrize("workers", [[0], [1, 0], [2, 0, 1], [3, 2, 1, 0]],
                         ids=["1-worker", "2-workers", "3-workers", "4-workers"])
def test_auto_on_workers_chooses_and_stacks_as_one_process(client, auto_alone, workers):
    # The default candidates scored by 5-fold refits of every worker's rows. Tolerance: that of
    # tests/mpi/test_auto_ranks.cpp (kScoreTolerance, 1e-3, from KCDE's search tolerance), for
    # the mean NLLs, the stacking weights and the model's log-densities.
    alone, x, y, (test_x, test_y) = auto_alone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        shared = cdens.AutoCDE(random_state=2, n_jobs=1).fit(
            placed(client, x, workers, "array", AUTO_SIZES),
            placed(client, y, workers, "array", AUTO_SIZES))
    assert list(shared.selection_["status"]) == list(alone.selection_["status"])
    assert shared.weights_.keys() == alone.weights_.keys()
    for candidate, weight in alone.weights_.items():
        assert abs(shared.weights_[candidate] - weight) <= 1e-3
    np.testing.assert_allclose(shared.selection_["mean_nll"], alone.selection_["mean_nll"],
                               rtol=0, atol=1e-3)
    np.testing.assert_allclose(shared.log_pdf(test_x, test_y), alone.log_pdf(test_x, test_y),
                               rtol=0, atol=1e-3)


def test_a_method_that_does_not_run_distributed_fits_rows_on_one_worker(client):
    x, y = generated()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        alone = cdens.NWCDE(random_state=1, n_jobs=1).fit(x, y)
        shared = cdens.NWCDE(random_state=1, n_jobs=1).fit(placed(client, x, [2], "array"),
                                                           placed(client, y, [2], "array"))
    np.testing.assert_array_equal(shared.log_pdf(x, y), alone.log_pdf(x, y))


def test_partitions_of_x_and_y_must_agree(client):
    x, y = generated(n=120)
    with pytest.raises(ValueError, match="X and y have different numbers of samples: 120 and 100"):
        cdens.LSCDE().fit(da.from_array(x, chunks=60), da.from_array(y[:100], chunks=50))
    with pytest.raises(ValueError, match="the same partitions"):
        cdens.LSCDE().fit(dd.from_pandas(pd.DataFrame(x), npartitions=3),
                          dd.from_pandas(pd.Series(y), npartitions=2))
    with pytest.raises(ValueError, match="y is no dask collection while X is"):
        cdens.LSCDE().fit(da.from_array(x, chunks=60), y)


def test_sample_weights_and_unlabelled_inputs_may_be_dask_collections(client, tmp_path):
    x, y = generated()
    weights = np.random.default_rng(5).uniform(0.5, 2.0, size=len(y))
    unlabeled = generated(n=120, seed=8)[0]
    make = ESTIMATORS["gmm"][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        # The engine takes sample weights on one process only: rows on one worker.
        alone = make().fit(x, sample_weight=weights)
        shared = make().fit(placed(client, x, [1], "array"),
                            sample_weight=placed(client, weights, [1], "array"))
        np.testing.assert_array_equal(shared.score_samples(x), alone.score_samples(x))
        with pytest.raises(ValueError, match="sample weights are supported on one process only"):
            make().fit(placed(client, x, [0, 1], "array"),
                       sample_weight=placed(client, weights, [0, 1], "array"))
        alone = cdens.LSCDE(random_state=4, n_jobs=1).fit(x, y, X_unlabeled=unlabeled)
        shared = cdens.LSCDE(random_state=4, n_jobs=1).fit(
            placed(client, x, [3, 2], "array"), placed(client, y, [3, 2], "array"),
            X_unlabeled=da.from_array(unlabeled, chunks=50))
    assert model_difference(document(alone, tmp_path / "a.json"),
                            document(shared, tmp_path / "s.json")) <= RANK_TOLERANCE


def test_a_discrete_column_of_words_in_a_dask_dataframe_lacking_a_label_in_a_partition(
        client, tmp_path):
    x, y = generated()
    tercile = np.digitize(x[:, 1], np.quantile(x[:, 1], [1 / 3, 2 / 3]))
    frame = pd.DataFrame({"waiting": x[:, 0], "size": np.array(["low", "mid", "high"])[tercile]})
    # The last two partitions (the last rank's) lack a label: every rank codes the labels of all
    # rows all the same.
    frame.loc[175:, "size"] = frame.loc[175:, "size"].replace("high", "mid")
    make = lambda: cdens.KernelCDE(discrete=["size"], random_state=4, n_jobs=1)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        alone = make().fit(frame, y)
        shared = make().fit(placed(client, frame, [2, 3, 0], "frame"),
                            placed(client, pd.Series(y), [2, 3, 0], "frame"))
    assert shared.model_.labels == {"size": ["high", "low", "mid"]}
    expect_same_kcde(document(shared, tmp_path / "s.json"), document(alone, tmp_path / "a.json"),
                     "words")


def test_missing_drop_leaves_out_the_same_rows_as_one_process(client, tmp_path):
    x, y = generated()
    x_missing = np.vstack([x[:100], [[np.nan, 1.0]], x[100:200], [[2.0, np.nan]], x[200:]])[:300]
    y_missing = np.concatenate([y[:100], [0.0], y[100:200], [0.0], y[200:]])[:300]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cdens.CdensWarning)
        alone = cdens.LSCDE(random_state=4, n_jobs=1).fit(x_missing, y_missing, missing="drop")
        shared = cdens.LSCDE(random_state=4, n_jobs=1).fit(
            placed(client, x_missing, [0, 1, 2], "array"),
            placed(client, y_missing, [0, 1, 2], "array"), missing="drop")
    assert model_difference(document(alone, tmp_path / "a.json"),
                            document(shared, tmp_path / "s.json")) <= RANK_TOLERANCE
