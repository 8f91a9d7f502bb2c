"""Reads never take the write lock, and a move that waited for the lock keeps its time
(issue 11, finding 1: anonymous readers of old bundles stalled every writer)."""

import json
import random
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fairdeal.api.client import Response
from fairdeal.api.service.service import wall_clock
from tests.api.bots import (
    Toto21Table,
    events_of,
    kvitlach_table,
    of_type,
    play_kvitlach_round,
    play_toto21_match,
    play_toto21_round,
    raw,
    run_together,
    toto21_at_move,
    toto21_table,
    types_of,
)
from tests.api.conftest import OPERATOR_TOKEN, Server, start_server, stop_server

LONG_CLOCKS = {"move_time_ms": 600_000, "seed_time_ms": 600_000, "game_time_ms": 86_400_000}


class _Undo(Exception):
    """Ends the held transaction by rolling it back."""


@contextmanager
def writer_holding_the_locks(server: Server, table_id: str) -> Iterator[None]:
    """A write transaction that holds the table's lock and the log's lock until the block
    ends, then rolls back (on SQLite it holds the database's one write lock)."""
    try:
        with server.service.store.transaction() as txn:
            txn.lock_table(table_id)
            txn.append_leaf(bytes(32), None)
            yield
            raise _Undo
    except _Undo:
        pass


def _every_read(server: Server, game: Toto21Table, round_id: str) -> dict[str, dict[str, str]]:
    table_id = game.table_id
    size = raw(server.url, "GET", "/v1/log/checkpoint").json["size"]
    return {
        "public view": {"path": f"/v1/tables/{table_id}"},
        "seat view": {"path": f"/v1/tables/{table_id}", "token": game.seats[0].token},
        "table events": {"path": f"/v1/tables/{table_id}/events?from_seq=1&limit=5"},
        "table bundle": {"path": f"/v1/tables/{table_id}/bundle"},
        "round view": {"path": f"/v1/rounds/{round_id}"},
        "round events": {"path": f"/v1/rounds/{round_id}/events"},
        "round bundle": {"path": f"/v1/rounds/{round_id}/bundle"},
        "checkpoint": {"path": "/v1/log/checkpoint"},
        "inclusion": {"path": f"/v1/log/inclusion?round={round_id}"},
        "consistency": {"path": f"/v1/log/consistency?from=1&to={size}"},
        "keys": {"path": "/v1/keys"},
        "export": {"path": "/v1/export", "token": OPERATOR_TOKEN},
    }


def test_finding_1_every_read_answers_while_a_writer_holds_the_locks(any_server: Server) -> None:
    game = toto21_table(any_server.url, LONG_CLOCKS)
    round_id, _ = play_toto21_round(game, random.Random(1))
    reads = _every_read(any_server, game, round_id)
    before = {name: raw(any_server.url, "GET", **read) for name, read in reads.items()}

    with writer_holding_the_locks(any_server, game.table_id):
        names = list(reads)
        during: list[Response] = run_together(
            len(names), lambda i: raw(any_server.url, "GET", **reads[names[i]])
        )

    for name, reply in zip(names, during, strict=True):
        assert isinstance(reply, Response), f"{name}: {reply!r}"
        assert reply.status == 200, f"{name}: {reply.status} {reply.text[:200]}"
        assert reply.text == before[name].text, name  # the rolled-back write is not seen


def test_finding_1_table_events_come_in_pages(server: Server) -> None:
    game = toto21_table(server.url, LONG_CLOCKS)
    play_toto21_round(game, random.Random(2))
    whole = events_of(server.url, game.table_id)
    pages, since = [], 0
    while since is not None:
        page = raw(server.url, "GET", f"/v1/tables/{game.table_id}/events?from_seq={since}&limit=4")
        assert page.status == 200
        assert len(page.json["events"]) <= 4
        pages += page.json["events"]
        since = page.json["next_from_seq"]
    assert pages == whole and len(whole) > 8
    over = raw(server.url, "GET", f"/v1/tables/{game.table_id}/events?limit=1001")
    assert over.status == 422


def test_a_rounds_events_come_in_pages_with_a_stable_cursor(server: Server) -> None:
    game = toto21_table(server.url, LONG_CLOCKS)
    round_id, _ = play_toto21_round(game, random.Random(2))
    whole = [e for e in events_of(server.url, game.table_id) if e["event"]["round"] == round_id]
    pages, since = [], 0
    while since is not None:
        page = raw(server.url, "GET", f"/v1/rounds/{round_id}/events?from_seq={since}&limit=3")
        assert page.status == 200 and len(page.json["events"]) <= 3
        pages += page.json["events"]
        since = page.json["next_from_seq"]
    assert pages == whole and len(whole) > 6
    assert raw(server.url, "GET", f"/v1/rounds/{round_id}/events?limit=0").status == 422


def test_an_export_resumes_from_the_leaf_after_the_last_line_read(server: Server) -> None:
    game = toto21_table(server.url, LONG_CLOCKS)
    play_toto21_round(game, random.Random(2))
    play_toto21_round(game, random.Random(3))
    whole = raw(server.url, "GET", "/v1/export", token=OPERATOR_TOKEN).text.splitlines()
    cut = len(whole) // 2
    resume_at = json.loads(whole[cut - 1])["log"]["leaf_index"] + 1
    rest = raw(server.url, "GET", f"/v1/export?from_leaf={resume_at}", token=OPERATOR_TOKEN)
    assert rest.status == 200
    assert whole[:cut] + rest.text.splitlines() == whole and len(whole) > 3


def test_finding_1_a_move_that_waited_for_the_lock_past_its_deadline_is_kept(
    any_server: Server,
) -> None:
    game, round_id, state = toto21_at_move(
        any_server.url, {"move_time_ms": 5_000, "seed_time_ms": 5_000}
    )
    turn = state["turn"]
    deadline = of_type(events_of(any_server.url, game.table_id), "move_due")[-1]["event"]["data"][
        "deadline"
    ]
    sent_at = any_server.clock()
    assert sent_at < deadline
    arrivals = any_server.service.arrivals
    replies: list[Response] = []

    with writer_holding_the_locks(any_server, game.table_id):
        move = threading.Thread(
            target=lambda: replies.append(
                raw(
                    any_server.url,
                    "POST",
                    f"/v1/rounds/{round_id}/actions",
                    {"type": "stand"},
                    token=game.seats[turn].token,
                )
            )
        )
        move.start()
        while arrivals.in_progress(game.table_id) == 0:  # the move is waiting for the lock
            move.join(0.001)
        any_server.clock.advance(deadline - sent_at + 1_000)  # the deadline passes meanwhile
        sweeper = threading.Thread(target=any_server.service.sweep)
        sweeper.start()
        while arrivals.in_progress(game.table_id) < 2:  # the sweeper waits too
            sweeper.join(0.001)
    move.join(30)
    sweeper.join(30)

    (reply,) = replies
    assert reply.status == 200, reply.text
    chain = events_of(any_server.url, game.table_id)
    stand = next(e for e in chain if e["event"]["type"] == "stand")
    assert stand["event"]["time"] == sent_at  # the time it arrived, before the deadline
    assert not [e for e in of_type(chain, "move_timeout") if e["event"]["data"]["seat"] == turn]


@pytest.mark.parametrize("readers", [4])
def test_finding_1_a_one_second_table_plays_on_while_readers_hammer_old_bundles(
    tmp_path: Path, readers: int
) -> None:
    """Real time: a table with 1 s to move plays rounds while readers loop over another
    table's old bundles and events; no move times out and nobody gets a 5xx."""
    running, http = start_server(tmp_path, clock=wall_clock)
    try:
        rng = random.Random(3)
        old_rounds: list[str] = []
        while len(old_rounds) < 40:
            old_rounds += play_toto21_match(toto21_table(running.url, LONG_CLOCKS), rng)
        stop = threading.Event()
        statuses: list[int] = []

        def hammer(index: int) -> None:
            picks = random.Random(index)
            while not stop.is_set():
                round_id = picks.choice(old_rounds)
                table_id = round_id.rpartition(".")[0]
                for path in (f"/v1/rounds/{round_id}/bundle", f"/v1/tables/{table_id}/events"):
                    statuses.append(raw(running.url, "GET", path).status)

        threads = [threading.Thread(target=hammer, args=(i,)) for i in range(readers)]
        for thread in threads:
            thread.start()
        try:
            fast = kvitlach_table(
                running.url, 3, {"move_time_ms": 1_000, "seed_time_ms": 1_000}, buy_in=10**6
            )
            kinds = [kind for _ in range(6) for kind in play_kvitlach_round(fast)[1]]
        finally:
            stop.set()
            for thread in threads:
                thread.join(60)
        chain = types_of(events_of(running.url, fast.table_id))
        assert "move_timeout" not in chain and "seed_timeout" not in chain, kinds
        assert statuses and set(statuses) == {200}
    finally:
        stop_server(running, http)


def test_a_snapshot_older_than_the_cached_tree_proves_against_its_own_size(
    any_server: Server,
) -> None:
    """A reader that took its snapshot before a head was appended uses the first leaves of
    the tree this process has cached since (found by the hammer test: it once answered 500)."""
    game = toto21_table(any_server.url, LONG_CLOCKS)
    play_toto21_round(game, random.Random(4))
    service = any_server.service
    with service.store.reader() as snapshot:
        size = snapshot.log_size()  # the snapshot is taken here
        old_root = service.log.tree(snapshot).root()
        play_toto21_round(game, random.Random(5))  # more heads, committed after the snapshot
        newer = run_together(1, lambda _: service.published.checkpoint()["size"])  # another thread
        assert newer[0] > size  # the writes grew the cached tree past the snapshot
        tree = service.log.tree(snapshot)
        assert (tree.size, tree.root()) == (size, old_root)
        assert snapshot.latest_checkpoint().root_hash == old_root
