"""Fits from the rows of many processes: ``fit(X, Y, comm=MPI.COMM_WORLD)`` in a script run under
``mpirun -n K``, each process passing its own rows (mpi4py, python3-mpi4py), or the tasks of a
fit on a Dask cluster (cdens._dask). The engine sums the statistics of the methods that run
distributed over the processes through a collective of cdens._collectives, and every process
gets the same model (docs/distributed.md). The functions below take that collective (None: the
process alone).
"""

import contextlib
import pickle

from . import _core
from ._collectives import MpiCollective, SocketCollective, is_mpi_communicator
from ._methods import method


@contextlib.contextmanager
def processes_of(comm):
    """The collective of a fit's `comm`: None for None; for an mpi4py communicator an
    MpiCollective over its duplicate, freed at the end; a collective (a Dask task's, or one
    already made by an outer fit) as it is. TypeError for anything else."""
    if comm is None or isinstance(comm, (MpiCollective, SocketCollective)):
        yield comm
        return
    if not is_mpi_communicator(comm):
        raise TypeError(f"comm must be an mpi4py communicator (such as MPI.COMM_WORLD), got "
                        f"{comm!r}")
    collective = MpiCollective(comm)
    try:
        yield collective
    finally:
        collective.close()


def size_of(comm):
    """The number of processes of a collective (1 for None)."""
    return 1 if comm is None else comm.size


def engine_comm(comm, method_name):
    """The communicator to hand the engine's fit of method_name: comm for a method that runs
    distributed, None for none given or for one process and a method that does not (it fits
    alone, as without comm); ValueError, on every process alike, for several processes and such
    a method."""
    if comm is None:
        return None
    processes = size_of(comm)
    if method(method_name)["distributed"]:
        return comm
    if processes > 1:
        raise ValueError(_core.not_distributed_message(method_name))
    return None


def min_samples(comm, alone):
    """The fewest rows one process may pass: `alone` for a fit on one process; none on one of
    several (the engine checks the rows of all of them)."""
    return alone if size_of(comm) == 1 else 0


def agree(comm, step):
    """step() on every process of comm: if it raised anywhere, every process raises the error of
    the lowest failing one, so that none waits in the fit's collective calls for a process that
    stopped. Without comm, or with one process, step() alone."""
    if size_of(comm) == 1:
        return step()
    try:
        result, error = step(), None
    except Exception as caught:  # noqa: BLE001 - every error is shared, then raised again
        result, error = None, caught
    errors = comm.allgather(None if error is None else _shareable(error))
    failing = [rank for rank, shared in enumerate(errors) if shared is not None]
    if failing:
        raise error if failing[0] == comm.rank else errors[failing[0]]
    return result


def agree_on_labels(comm, labels, ordered, rows):
    """The labels of the discrete columns, the same on every process of comm: `labels` are this
    process's (by column name), coded from its own rows; `ordered`, the names of its ordered
    columns; `rows`, its row count. An unordered column's labels are the sorted labels of every
    process's rows — those one process holding all rows codes (cdens._labels) — so a label
    missing from some process's rows is no obstacle; an ordered column's (stated, or its pandas
    categories) must be the same on every process holding rows. ValueError on every process
    alike for those that differ, or a column of labels on some processes and numbers on others.
    Without comm, or on one process, `labels` as they are."""
    if size_of(comm) == 1:
        return labels
    coded = [(every, every_ordered) for every, every_ordered, held
             in comm.allgather((labels, ordered, rows)) if held > 0]
    agreed = {}
    for name in sorted(set().union(*(every for every, _ in coded))):
        lists = [every.get(name) for every, _ in coded]
        if any(labels_of is None for labels_of in lists):
            raise ValueError(f"discrete column {name!r} holds labels on some processes and "
                             "numbers only on others: give it the same kind of values on every "
                             "process (or code it as integers)")
        if any(name in every_ordered for _, every_ordered in coded):
            if len({tuple(labels_of) for labels_of in lists}) > 1:
                raise ValueError(f"the labels of ordered column {name!r} differ between the "
                                 "processes: state them (ordered={{{name!r}: [...]}}) or give "
                                 "every process a pandas Categorical with the same categories")
            agreed[name] = lists[0]
        else:
            agreed[name] = sorted(set().union(*lists))
    return agreed


def _shareable(error):
    """error, or a ValueError with its type and message when it cannot be pickled."""
    try:
        pickle.dumps(error)
        return error
    except Exception:  # noqa: BLE001 - any failure to pickle
        return ValueError(f"{type(error).__name__}: {error}")
