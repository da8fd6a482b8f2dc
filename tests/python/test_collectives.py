"""The socket transport of Dask fits (cdens._collectives.SocketCollective) on threads of this
process: every member gives every rank the same answer, sums add in rank order (the same bits as
that sum computed here), a connection without the fit's token is never read, a rank that does
not join makes rank 0 give up with a TimeoutError, and a rank that leaves makes the others raise
PeerLost rather than wait."""

import socket
import threading

import numpy as np

from cdens._collectives import PeerLost, SocketCollective

TOKEN = b"0123456789abcdef"


def on_ranks(size, work, joining=None, timeout=5.0):
    """work(collective) on `size` threads joined as one fit (`joining`: the ranks that join, all
    by default); the results and errors by rank."""
    joining = range(size) if joining is None else joining
    published = threading.Event()
    address = []
    results, errors = [None] * size, [None] * size

    def publish(where):
        address.append(where)
        published.set()

    def rank_task(rank):
        try:
            if rank == 0:
                collective = SocketCollective.listen(size, TOKEN, "127.0.0.1", publish, timeout)
            else:
                published.wait()
                collective = SocketCollective.connect(rank, size, TOKEN, address[0], timeout)
            try:
                results[rank] = work(collective)
            finally:
                collective.close()
        except Exception as error:  # noqa: BLE001 - reported by rank
            errors[rank] = error

    threads = [threading.Thread(target=rank_task, args=(rank,)) for rank in joining]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results, errors


def test_every_member_gives_every_rank_the_same_answer():
    def work(collective):
        mine = np.random.default_rng(collective.rank).normal(size=50) * 10.0 ** collective.rank
        return (mine, collective.sum(mine), collective.max(mine), collective.broadcast(mine, 2),
                collective.allgather(collective.rank * 7),
                collective.gather_to_root(collective.rank),
                collective.scatter_from_root(list("abcd") if collective.rank == 0 else None))

    results, errors = on_ranks(4, work)
    assert errors == [None] * 4
    values = [result[0] for result in results]
    in_rank_order = ((values[0] + values[1]) + values[2]) + values[3]
    for rank, (_, total, largest, broadcast, gathered, at_root, part) in enumerate(results):
        np.testing.assert_array_equal(total, in_rank_order)
        np.testing.assert_array_equal(largest, np.max(values, axis=0))
        np.testing.assert_array_equal(broadcast, values[2])
        assert gathered == [0, 7, 14, 21]
        assert at_root == ([0, 1, 2, 3] if rank == 0 else None)
        assert part == "abcd"[rank]


def test_a_connection_without_the_token_is_never_read():
    published = threading.Event()
    address = []
    outcome = {}

    def publish(where):
        address.append(where)
        published.set()

    def root():
        collective = SocketCollective.listen(2, TOKEN, "127.0.0.1", publish, 5.0)
        outcome["sum"] = collective.sum(np.array([1.0]))
        collective.close()

    thread = threading.Thread(target=root)
    thread.start()
    published.wait()
    host, port = address[0].rsplit(":", 1)
    with socket.create_connection((host, int(port))) as stranger:
        stranger.sendall(b"not the token at all")
    member = SocketCollective.connect(1, 2, TOKEN, address[0], 5.0)
    assert member.sum(np.array([2.0]))[0] == 3.0
    member.close()
    thread.join(10)
    assert outcome["sum"][0] == 3.0


def test_a_rank_that_does_not_join_makes_rank_0_give_up():
    _, errors = on_ranks(3, lambda collective: collective.sum(np.ones(2)), joining=[0, 1],
                         timeout=0.5)
    assert isinstance(errors[0], TimeoutError)
    assert "1 of the fit's 3 tasks did not join within 0.5 s" in str(errors[0])
    assert isinstance(errors[1], PeerLost)


def test_a_rank_that_leaves_makes_the_others_raise_peerlost():
    def work(collective):
        if collective.rank == 2:
            return None  # closes its connection instead of taking part in the sum
        return collective.sum(np.ones(3))

    _, errors = on_ranks(3, work)
    assert isinstance(errors[0], PeerLost) and "rank 2 of the fit closed" in str(errors[0])
    assert isinstance(errors[1], PeerLost)
    assert errors[2] is None
