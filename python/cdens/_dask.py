"""Fits from dask collections: ``estimator.fit(X, y)`` with X and y a dask array, dataframe or
series whose partitions live on the workers of a Dask cluster (python3-distributed). One task
per worker holding rows, all running at once, each with a contiguous run of the partitions,
calls the estimator's ordinary ``fit`` on its rows with ``comm=`` a SocketCollective joining
the tasks (cdens._collectives): the fit of ``mpirun``, over another transport. Rank 0's fitted
estimator comes back to the client (docs/distributed.md, "Dask").

dask and distributed are optional: a collection is recognised through ``sys.modules`` (no dask
imported means no dask collection), and they are imported only to fit one.
"""

import contextlib
import copy
import functools
import inspect
import secrets
import sys
import uuid
import warnings

import numpy as np

from ._collectives import PeerLost, SocketCollective

# The arguments of a fit that hold one entry per row of X, partitioned as X is; and those with
# rows of their own (LSCDE's unlabelled inputs), cut into the same number of runs.
ROW_ARGUMENTS = ("X", "y", "sample_weight")
OWN_ROW_ARGUMENTS = ("X_unlabeled",)

# How long the tasks of a fit wait for each other to start, in seconds (dask config
# "cdens.join-timeout"): a task waits for a free thread of its worker.
JOIN_TIMEOUT = 120.0


def is_dask_collection(value):
    dask = sys.modules.get("dask")
    return dask is not None and dask.is_dask_collection(value)


def fits_dask_collections(fit):
    """fit, which fits on the Dask cluster of the current client when an argument is a dask
    collection (without a distributed client: on the collections' rows computed here)."""
    signature = inspect.signature(fit)

    @functools.wraps(fit)
    def fit_any(self, *args, **kwargs):
        arguments = signature.bind(self, *args, **kwargs).arguments
        given = {name: value for name, value in arguments.items() if name != "self"}
        if any(is_dask_collection(value) for value in given.values()):
            return fit_on_cluster(fit, self, given)
        return fit(self, *args, **kwargs)

    return fit_any


def fit_on_cluster(fit, estimator, arguments):
    """fit(estimator, **arguments) on the cluster holding the dask collections among the
    arguments; returns estimator, fitted as rank 0's copy."""
    import dask
    from distributed import default_client

    from ._conditional import CdensWarning  # imports this module

    if arguments.pop("comm", None) is not None:
        raise ValueError("comm is for processes started by mpirun; the rows of a dask "
                         "collection are shared by the workers of its client")
    rows = {name: arguments[name] for name in ROW_ARGUMENTS if arguments.get(name) is not None}
    own_rows = {name: arguments[name] for name in OWN_ROW_ARGUMENTS
                if arguments.get(name) is not None}
    for name, value in {**rows, **own_rows}.items():
        if not is_dask_collection(value):
            raise ValueError(f"{name} is no dask collection while "
                             f"{next(n for n, v in arguments.items() if is_dask_collection(v))} "
                             "is: pass the row-wise arguments as dask collections with the same "
                             "partitions")
    others = {name: value for name, value in arguments.items()
              if name not in rows and name not in own_rows}
    try:
        client = default_client()
    except ValueError:  # no distributed client: dask's own scheduler computes the rows here
        computed = dask.compute({**rows, **own_rows})[0]
        return fit(estimator, **computed, **others)
    partitions = aligned_partitions(rows)
    own_partitions = {name: partitions_of(value, name) for name, value in own_rows.items()}
    fitted = run_ranks(client, estimator, partitions, own_partitions, others,
                       {name: empty_like(value) for name, value in {**rows, **own_rows}.items()})
    vars(estimator).update(vars(fitted))
    for message in fitted.model_.warnings:  # given on the workers; the client's user sees them
        warnings.warn(message, CdensWarning, stacklevel=3)
    return estimator


def partitions_of(collection, name):
    """The row blocks of a dask array (1-D or 2-D, its columns joined in one block), dataframe
    or series, as delayed objects in row order."""
    if hasattr(collection, "chunks"):
        if collection.ndim not in (1, 2):
            raise ValueError(f"{name} must be a 1-D or 2-D dask array, got {collection.ndim} "
                             "dimensions")
        if collection.ndim == 2:
            collection = collection.rechunk({1: -1})
        return list(collection.to_delayed().reshape(-1))
    return list(collection.to_delayed())


def aligned_partitions(rows):
    """{name: its row blocks} for X, y and sample_weight, which must be partitioned alike: a
    dask array is cut as X's rows are where both know their chunks (a different total is
    refused); otherwise the numbers of partitions must agree."""
    X = rows["X"]
    known = hasattr(X, "chunks") and not any(np.isnan(X.chunks[0]))
    partitions = {}
    for name, value in rows.items():
        if name != "X" and known and hasattr(value, "chunks") and not any(
                np.isnan(value.chunks[0])):
            if value.shape[0] != X.shape[0]:
                raise ValueError(f"X and {name} have different numbers of samples: "
                                 f"{X.shape[0]} and {value.shape[0]}")
            value = value.rechunk({0: X.chunks[0]})
        partitions[name] = partitions_of(value, name)
    counts = {name: len(blocks) for name, blocks in partitions.items()}
    if len(set(counts.values())) > 1:
        raise ValueError("X, y and sample_weight must have the same partitions (rows) on the "
                         f"cluster; their numbers of partitions are {counts}")
    return partitions


def empty_like(collection):
    """No rows of a collection, as its partitions are (a rank without rows passes this)."""
    if hasattr(collection, "chunks"):
        return np.empty((0, *collection.shape[1:]), dtype=collection.dtype)
    return collection._meta


def contiguous_runs(counts, runs):
    """The partitions cut into `runs` contiguous runs of nearly equal rows: each cut at the
    partition boundary nearest to its share of the rows (a run may be empty). A list of ranges."""
    bounds = np.concatenate([[0], np.cumsum(counts)])
    cuts = [0]
    for run in range(1, runs):
        later = bounds[cuts[-1]:]
        cuts.append(cuts[-1] + int(np.argmin(np.abs(later - bounds[-1] * run / runs))))
    cuts.append(len(counts))
    return [range(cuts[run], cuts[run + 1]) for run in range(runs)]


def ranks_of(counts, holders):
    """(worker, partitions) of each rank: one rank per worker that holds a partition, each with
    a contiguous run of nearly equal rows — so that the rows in rank order are the collection's
    and the model is the one of a fit of all rows in one process — the runs given to the
    workers so that the most rows stay where they are."""
    from scipy.optimize import linear_sum_assignment

    workers = sorted(set(holders))
    runs = contiguous_runs(counts, len(workers))
    held = np.zeros((len(runs), len(workers)))
    for run, partitions in enumerate(runs):
        for partition in partitions:
            held[run, workers.index(holders[partition])] += counts[partition]
    _, chosen = linear_sum_assignment(held, maximize=True)
    return [(workers[worker], list(run)) for worker, run in zip(chosen, runs)]


def run_ranks(client, estimator, partitions, own_partitions, arguments, empties):
    """The fitted estimator of rank 0."""
    from distributed import Queue, as_completed, wait

    names = list(partitions)
    blocks = client.compute([_rows_of_partition(*parts) for parts in zip(*partitions.values())])
    counts = client.gather(client.map(_row_count, blocks, pure=False))
    for partition, lengths in enumerate(counts):
        if len(set(lengths)) > 1:
            raise ValueError(f"{' and '.join(names)} have different numbers of samples in "
                             f"partition {partition}: {', '.join(map(str, lengths))}")
    counts = [lengths[0] for lengths in counts]
    where = client.who_has(blocks)
    holders = [sorted(where[block.key])[0] for block in blocks]
    ranks = ranks_of(counts, holders)
    own_blocks = {}
    for name, parts in own_partitions.items():
        futures = client.compute(parts)
        runs = contiguous_runs(client.gather(client.map(len, futures, pure=False)), len(ranks))
        own_blocks[name] = [[futures[partition] for partition in run] for run in runs]

    fit_id = uuid.uuid4().hex
    meeting = {"queue": f"cdens-fit-{fit_id}", "token": secrets.token_bytes(16),
               "timeout": float(_dask_config("cdens.join-timeout", JOIN_TIMEOUT))}
    # Rank 0's address reaches the others through a queue (a distributed.Variable can miss the
    # moment it is set, distributed 2022.12: its getters are woken before the value is stored).
    addresses = Queue(meeting["queue"], client=client)
    tasks = [client.submit(
        _fit_rank, estimator, rank, len(ranks), meeting, names,
        [blocks[partition] for partition in run],
        {name: runs_of[rank] for name, runs_of in own_blocks.items()}, arguments, empties,
        key=f"cdens-fit-{fit_id}-rank-{rank}", workers=[worker], allow_other_workers=False,
        pure=False) for rank, (worker, run) in enumerate(ranks)]
    try:
        for task in as_completed(tasks):
            if task.status == "error":
                # The others end soon (the fit's errors are agreed, a lost peer closes the
                # connections): wait a little, to report the cause rather than a lost connection.
                with contextlib.suppress(TimeoutError):
                    wait(tasks, timeout=meeting["timeout"] / 10 + 1)
                raise _first_cause([task.exception() for task in tasks
                                    if task.status == "error"])
        return tasks[0].result()
    finally:
        for task in tasks:
            task.cancel()
        addresses.close()


def _dask_config(key, default):
    import dask

    return dask.config.get(key, default)


def _first_cause(errors):
    """The error of the lowest rank that is no consequence of another rank's failure."""
    causes = [error for error in errors if not isinstance(error, PeerLost)]
    return (causes or errors)[0]


def _rows_of_partition(*parts):
    import dask

    return dask.delayed(tuple, pure=True)(list(parts))


def _row_count(parts):
    return [len(part) for part in parts]


def _joined(rank, size, meeting):
    """The SocketCollective of this task: rank 0 listens on its worker's host and puts its
    address in the fit's queue once for every other rank, which takes it and connects."""
    if size == 1:
        return contextlib.nullcontext(SocketCollective(0, 1, []))
    from distributed import Queue, get_worker
    from distributed.comm import get_address_host

    addresses = Queue(meeting["queue"])
    if rank == 0:
        host = get_address_host(get_worker().address)
        collective = SocketCollective.listen(
            size, meeting["token"], host,
            lambda address: [addresses.put(address) for _ in range(size - 1)], meeting["timeout"])
    else:
        try:
            address = addresses.get(timeout=meeting["timeout"])
        except TimeoutError:
            raise TimeoutError(f"rank 0 of the fit did not start within {meeting['timeout']:g} "
                               "s (its worker busy with other tasks? dask config "
                               "cdens.join-timeout sets the wait)") from None
        collective = SocketCollective.connect(rank, size, meeting["token"], address,
                                              meeting["timeout"])
    return contextlib.closing(collective)


def _joined_rows(parts, empty):
    """One rank's rows: its partitions in order, or none."""
    if not parts:
        return empty
    if isinstance(parts[0], np.ndarray):
        return np.concatenate(parts)
    import pandas

    return pandas.concat(parts)


def _fit_rank(estimator, rank, size, meeting, names, blocks, own_blocks, arguments, empties):
    """One rank's task: its rows, joined to the other ranks, through the estimator's ordinary
    fit. Returns the fitted estimator on rank 0, None on the others."""
    estimator = copy.deepcopy(estimator)  # a cluster of threads passes the client's object
    rows = {name: _joined_rows([block[column] for block in blocks], empties[name])
            for column, name in enumerate(names)}
    rows.update({name: _joined_rows(parts, empties[name]) for name, parts in own_blocks.items()})
    with _joined(rank, size, meeting) as collective:
        estimator.fit(**rows, **arguments, comm=collective)
    return estimator if rank == 0 else None
