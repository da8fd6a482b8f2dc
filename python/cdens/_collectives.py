"""The collective protocol through which a fit on many processes exchanges what it sums, and its
two transports. The engine's Communicator (python/src/python_communicator.hpp) and the checks of
cdens._distributed call these members and nothing else:

- ``rank``, ``size``: this process's rank, 0 … size − 1, and the number of processes;
- ``sum(values)``, ``max(values)``: a float64 array's sum or largest value over the processes,
  element by element, the same bits on every process (decisions taken from them agree);
- ``broadcast(values, root)``: the root's array, on every process;
- ``allgather(value)``: every process's value (any picklable object), a list in rank order;
- ``gather_to_root(value)``: that list on rank 0, None on the others;
- ``scatter_from_root(parts)``: rank 0's list (ignored elsewhere), each process its entry.

MpiCollective speaks it over a duplicate of an mpi4py communicator
(``fit(..., comm=MPI.COMM_WORLD)`` under ``mpirun``); SocketCollective over TCP connections
between the tasks of a fit on a Dask cluster (cdens._dask), every process connected to rank 0,
which does every reduction in rank order and sends the result back. Every member is a collective
call: every process calls it, in the same order.
"""

import hmac
import pickle
import socket
import struct

import numpy as np


class MpiCollective:
    """The protocol over a duplicate of an mpi4py communicator, so that the fit's messages never
    meet the script's own; close() frees the duplicate. Every process must create it at the same
    point (duplicating a communicator is a collective call)."""

    def __init__(self, comm):
        from mpi4py import MPI  # only here: a Dask user needs no mpi4py

        self._operations = MPI
        self._comm = comm.Dup()
        self.rank = int(self._comm.Get_rank())
        self.size = int(self._comm.Get_size())

    def sum(self, values):
        # A reduction to rank 0, then a broadcast of its result: the same bits on every rank, as
        # the MPI communicator of the command line gives (src/parallel/mpi_session.cpp says why).
        values = np.ascontiguousarray(values, dtype=np.float64)
        total = np.empty_like(values)
        self._comm.Reduce(values, total, self._operations.SUM, 0)
        self._comm.Bcast(total, 0)
        return total

    def max(self, values):
        values = np.ascontiguousarray(values, dtype=np.float64)
        largest = np.empty_like(values)
        self._comm.Allreduce(values, largest, self._operations.MAX)
        return largest

    def broadcast(self, values, root):
        values = np.array(values, dtype=np.float64)
        self._comm.Bcast(values, root)
        return values

    def allgather(self, value):
        return self._comm.allgather(value)

    def gather_to_root(self, value):
        return self._comm.gather(value, 0)

    def scatter_from_root(self, parts):
        return self._comm.scatter(parts, 0)

    def close(self):
        self._comm.Free()


def is_mpi_communicator(comm):
    """Whether comm looks like an mpi4py communicator (recognised by its methods, so that
    mpi4py is imported only when one is given)."""
    return all(hasattr(comm, name) for name in ("Dup", "Get_rank", "Get_size", "Reduce", "Bcast"))


# Every message between the tasks of a Dask fit: its length (8 bytes, big-endian), then a pickle.
_LENGTH = struct.Struct("!Q")


class PeerLost(ConnectionError):
    """A process of the fit closed its connection in the middle of a collective call (its task
    failed or its worker stopped)."""


class SocketCollective:
    """The protocol over TCP between the processes of one fit: rank 0 accepts a connection from
    every other rank (each first sends the fit's token and its rank, so that no stranger's bytes
    are ever unpickled), then gathers, reduces in rank order and sends back. Built by listen()
    on rank 0 and connect() on the others; close() closes the connections."""

    def __init__(self, rank, size, peers):
        self.rank = rank
        self.size = size
        self._peers = peers  # rank 0: the socket of every rank 1 … size − 1; others: [rank 0's]

    @classmethod
    def listen(cls, size, token, host, publish, timeout):
        """Rank 0: listens on host (a free port), calls publish("host:port") and waits up to
        `timeout` seconds for the other size − 1 ranks."""
        server = socket.create_server((host, 0))
        peers = [None] * (size - 1)
        try:
            publish(f"{host}:{server.getsockname()[1]}")
            server.settimeout(timeout)
            joined = 0
            while joined < size - 1:
                try:
                    connection, _ = server.accept()
                except socket.timeout:
                    raise TimeoutError(
                        f"{size - 1 - joined} of the fit's {size} tasks did not join within "
                        f"{timeout:g} s (a worker busy with other tasks? dask config "
                        "cdens.join-timeout sets the wait)") from None
                rank = _handshake_rank(connection, token, size, timeout)
                if rank is None or peers[rank - 1] is not None:
                    connection.close()  # a stranger, or a rank twice: not one of this fit's
                    continue
                _configure(connection)
                peers[rank - 1] = connection
                joined += 1
        except BaseException:
            for connection in peers:
                if connection is not None:
                    connection.close()
            raise
        finally:
            server.close()
        return cls(0, size, peers)

    @classmethod
    def connect(cls, rank, size, token, address, timeout):
        """Rank 1 … size − 1: connects to rank 0 at address ("host:port")."""
        host, port = address.rsplit(":", 1)
        try:
            connection = socket.create_connection((host, int(port)), timeout=timeout)
        except OSError as error:
            raise PeerLost(f"rank {rank} of the fit could not reach rank 0 at {address}: "
                           f"{error}") from None
        connection.sendall(token + struct.pack("!I", rank))
        _configure(connection)
        return cls(rank, size, [connection])

    def close(self):
        for connection in self._peers:
            connection.close()

    # -- the two moves every member is made of -------------------------------------------------

    def gather_to_root(self, value):
        if self.rank != 0:
            _send(self._peers[0], value, 0)
            return None
        return [value] + [_receive(connection, rank) for rank, connection
                          in enumerate(self._peers, start=1)]

    def scatter_from_root(self, parts):
        if self.rank != 0:
            return _receive(self._peers[0], 0)
        if len(parts) != self.size:
            raise ValueError(f"scatter_from_root: {len(parts)} parts for {self.size} processes")
        for rank, (connection, part) in enumerate(zip(self._peers, parts[1:]), start=1):
            _send(connection, part, rank)
        return parts[0]

    # -- the protocol ---------------------------------------------------------------------------

    def allgather(self, value):
        every = self.gather_to_root(value)
        return self.scatter_from_root([every] * self.size if self.rank == 0 else None)

    def sum(self, values):
        return self._reduce(values, np.add)

    def max(self, values):
        return self._reduce(values, np.maximum)

    def broadcast(self, values, root):
        mine = np.array(values, dtype=np.float64) if self.rank == root else None
        return self.allgather(mine)[root]

    def _reduce(self, values, operation):
        """operation folded over the ranks' arrays in rank order on rank 0 — one order, so the
        same bits whatever the timing — and the result sent to every rank."""
        every = self.gather_to_root(np.ascontiguousarray(values, dtype=np.float64))
        result = None
        if self.rank == 0:
            result = every[0].copy()
            for other in every[1:]:
                if other.shape != result.shape:
                    raise ValueError(f"the processes reduce arrays of different lengths: "
                                     f"{result.shape[0]} and {other.shape[0]}")
                operation(result, other, out=result)
        return self.scatter_from_root([result] * self.size if self.rank == 0 else None)


def _configure(connection):
    """Blocking, and small messages (a GMM step's sums) sent at once rather than batched."""
    connection.settimeout(None)
    connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


def _handshake_rank(connection, token, size, timeout):
    """The rank a connecting task names after the fit's token, or None for a stranger."""
    connection.settimeout(timeout)
    try:
        greeting = _exactly(connection, len(token) + 4)
    except PeerLost:
        return None
    rank = struct.unpack("!I", greeting[len(token):])[0]
    if not hmac.compare_digest(greeting[:len(token)], token) or not 1 <= rank < size:
        return None
    return rank


def _send(connection, value, rank):
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        connection.sendall(_LENGTH.pack(len(payload)) + payload)
    except OSError as error:
        raise _lost(rank, error) from None


def _receive(connection, rank):
    length = _LENGTH.unpack(_exactly(connection, _LENGTH.size, rank))[0]
    return pickle.loads(_exactly(connection, length, rank))


def _exactly(connection, count, rank=None):
    """count bytes from connection; PeerLost if it closes first."""
    buffer = bytearray(count)
    view = memoryview(buffer)
    received = 0
    while received < count:
        try:
            got = connection.recv_into(view[received:])
        except OSError as error:  # reset by the peer
            raise _lost(rank, error) from None
        if got == 0:
            raise _lost(rank, None)
        received += got
    return bytes(buffer)


def _lost(rank, error):
    who = "a process" if rank is None else f"rank {rank}"
    cause = "" if error is None else f" ({error})"
    return PeerLost(f"{who} of the fit closed its connection{cause}: its task failed or its "
                    "worker stopped")
