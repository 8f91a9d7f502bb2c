"""The storage contract: every test runs unchanged against SQLite and PostgreSQL."""

import hashlib
import threading
from collections.abc import Callable
from typing import Any

import pytest

from fairdeal.api.storage import (
    CheckpointRow,
    ConflictError,
    HeadRow,
    IdempotencyRow,
    RoundRow,
    StorageError,
    Store,
    TableRow,
    Transaction,
    schema,
)
from fairdeal.api.storage.sql import SqlTransaction
from tests.storage.conftest import Backend

SEED = bytes(range(32))


def signed(table: str, seq: int, round_id: str | None = None) -> dict[str, Any]:
    """A signed event object as the service stores it (hash and signature are stand-ins)."""
    event = {
        "version": 1,
        "table": table,
        "round": round_id,
        "seq": seq,
        "prev": "0" * 64,
        "time": 1_000 + seq,
        "type": "note",
        "actor": "server",
        "data": {"n": seq, "text": "Kvitlach — ünïcode", "big": 2**62},
    }
    return {"event": event, "hash": f"{seq:064x}", "key_id": "k1", "signature": "ab" * 64}


def leaf(n: int) -> bytes:
    return hashlib.sha256(n.to_bytes(8, "big")).digest()


def seqs(events: list[dict[str, Any]]) -> list[int]:
    return [e["event"]["seq"] for e in events]


def with_table(store: Store, table_id: str = "t1", game: str = "toto21") -> None:
    with store.transaction() as tx:
        tx.create_table(table_id, game, created_at=100)


def with_rounds(store: Store, table_id: str, names: list[str]) -> None:
    with store.transaction() as tx:
        for number, round_id in enumerate(names):
            tx.put_round(round_id, table_id, number, SEED, opened_at=200 + number)


def run_threads(count: int, work: Callable[[int], None]) -> None:
    """Run ``work(i)`` in ``count`` threads started together; re-raise the first failure."""
    errors: list[BaseException] = []
    start = threading.Barrier(count)

    def body(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


# Schema


def test_migrate_twice_keeps_schema_and_data(store: Store) -> None:
    with_table(store)
    store.migrate()
    store.migrate()
    with store.transaction() as tx:
        assert tx.lock_table("t1") == TableRow("t1", "toto21", 100, None)
        assert tx.log_size() == 0


def test_concurrent_migrations_on_a_fresh_database(backend: Backend) -> None:
    stores = [backend.open() for _ in range(4)]
    run_threads(4, lambda i: stores[i].migrate())
    with stores[0].transaction() as tx:
        assert tx.log_size() == 0


def _migrate_to(tx: Transaction, version: int) -> None:
    """The schema as the release of ``version`` left it, in a new database."""
    assert isinstance(tx, SqlTransaction)
    schema.migrate(tx, upto=version)


def test_a_version_1_log_keeps_its_leaves_through_the_upgrade(backend: Backend) -> None:
    store = backend.open()
    with store.transaction() as tx:  # the schema as version 1 left it, with one round leaf
        _migrate_to(tx, 1)
        tx.create_table("t1", "toto21", 100)
        tx.put_round("r0", "t1", 1, SEED, 200)
        tx.finish_round("r0", leaf(0), tx.append_leaf(leaf(0), "r0"), 300)
    store.migrate()
    with store.transaction() as tx:
        assert tx.leaf_hashes(0, 1) == [leaf(0)]
        assert tx.append_leaf(leaf(1), None) == 1
        tx.put_table_head("t1", 7, leaf(1), 1, 400)
        assert [row.leaf_index for row in tx.logged_heads(None, None, None, -1, 9)] == [0, 1]
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_leaf(leaf(2), "r0")  # still one leaf a round


def test_data_survives_closing_and_reopening(backend: Backend, store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r1"])
    with store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 0), signed("t1", 1, "r1")])
        tx.append_leaf(leaf(0), "r1")
    store.close()
    reopened = backend.open()
    reopened.migrate()
    with reopened.transaction() as tx:
        assert tx.events("t1") == [signed("t1", 0), signed("t1", 1, "r1")]
        assert tx.leaf_hashes(0, 1) == [leaf(0)]


def test_a_closed_store_refuses_work(store: Store) -> None:
    store.close()
    with pytest.raises(StorageError, match="closed"), store.transaction():
        pass


# Transactions


def test_an_exception_rolls_back_everything(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r1"])
    with pytest.raises(KeyError), store.transaction() as tx:
        tx.create_table("t2", "kvitlach", 5)
        tx.append_events("t1", [signed("t1", 0)])
        tx.append_leaf(leaf(0), "r1")
        tx.put_token("t1", 0, b"token")
        raise KeyError("boom")
    with store.transaction() as tx:
        assert tx.lock_table("t2") is None
        assert tx.events("t1") == []
        assert tx.log_size() == 0
        assert tx.seat_for_token("t1", b"token") is None


def test_a_conflict_rolls_back_the_whole_transaction(store: Store) -> None:
    with_table(store)
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 0)])
        tx.create_table("t1", "toto21", 100)
    with store.transaction() as tx:
        assert tx.events("t1") == []


def test_transactions_do_not_nest(store: Store) -> None:
    with store.transaction(), pytest.raises(RuntimeError), store.transaction():
        pass
    with_table(store)  # the store is still usable


# Tables


def test_create_and_lock_tables(store: Store) -> None:
    with_table(store, "t1", "toto21")
    with store.transaction() as tx:
        assert tx.lock_table("t1") == TableRow("t1", "toto21", 100, None)
        assert tx.lock_table("nope") is None


def test_a_duplicate_table_id_conflicts(store: Store) -> None:
    with_table(store, "t1", "toto21")
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.create_table("t1", "kvitlach", 999)
    with store.transaction() as tx:
        assert tx.lock_table("t1") == TableRow("t1", "toto21", 100, None)


def test_due_tables_by_deadline(store: Store) -> None:
    with store.transaction() as tx:
        for table_id, deadline in [("a", 30), ("b", 10), ("c", None), ("d", 20), ("e", 99)]:
            tx.create_table(table_id, "toto21", 1)
            tx.set_deadline(table_id, deadline)
    with store.transaction() as tx:
        assert tx.due_tables(now=30, limit=10) == ["b", "d", "a"]
        assert tx.due_tables(now=30, limit=2) == ["b", "d"]
        assert tx.due_tables(now=9, limit=10) == []
        tx.set_deadline("b", None)
        assert tx.due_tables(now=30, limit=10) == ["d", "a"]
        assert tx.lock_table("d") == TableRow("d", "toto21", 1, 20)


def test_set_deadline_of_a_missing_table(store: Store) -> None:
    with pytest.raises(ValueError, match="no table"), store.transaction() as tx:
        tx.set_deadline("nope", 5)


# Events


def test_events_come_back_in_seq_order(store: Store) -> None:
    with_table(store)
    with_table(store, "other")
    with store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 0), signed("t1", 1, "r1")])
        tx.append_events("other", [signed("other", 0)])
    with store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 2, "r1"), signed("t1", 3, "r2")])
        tx.append_events("t1", [])
    with store.transaction() as tx:
        assert tx.events("t1") == [
            signed("t1", n, r) for n, r in enumerate([None, "r1", "r1", "r2"])
        ]
        assert seqs(tx.events("t1", from_seq=2)) == [2, 3]
        assert tx.events("t1", from_seq=4) == []
        assert tx.round_events("t1", "r1") == [signed("t1", 1, "r1"), signed("t1", 2, "r1")]
        assert tx.round_events("other", "r1") == []
        assert tx.events("nope") == []


def test_a_duplicate_seq_conflicts_and_keeps_the_first(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 0), signed("t1", 1)])
    impostor = signed("t1", 1, "forged")
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_events("t1", [impostor])
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_events("t1", [signed("t1", 2), signed("t1", 2)])
    with store.transaction() as tx:
        assert tx.events("t1") == [signed("t1", 0), signed("t1", 1)]


@pytest.mark.parametrize(
    ("events", "message"),
    [
        pytest.param([signed("t1", 1)], "gap", id="a-first-seq-other-than-0-leaves-a-gap"),
        pytest.param([signed("t1", 0), signed("t1", 2)], "gap", id="a-skipped-seq-leaves-a-gap"),
        pytest.param([signed("t2", 0)], "table", id="another-tables-event-is-refused"),
        pytest.param([{"event": {"seq": 0}}], "signed event", id="a-malformed-event-is-refused"),
        pytest.param([{**signed("t1", 0), "x": float("nan")}], "JSON", id="nan-is-not-json"),
    ],
)
def test_append_events_refuses_misuse(
    store: Store, events: list[dict[str, Any]], message: str
) -> None:
    with_table(store)
    with pytest.raises(ValueError, match=message), store.transaction() as tx:
        tx.append_events("t1", events)
    with store.transaction() as tx:
        assert tx.events("t1") == []


def test_events_need_their_table(store: Store) -> None:
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_events("ghost", [signed("ghost", 0)])


def test_concurrent_writers_of_one_table_get_dense_seqs(backend: Backend, store: Store) -> None:
    with_table(store)
    threads, appends = 8, 6

    def writer(i: int) -> None:
        mine = backend.open()
        for _ in range(appends):
            with mine.transaction() as tx:
                assert tx.lock_table("t1") is not None
                next_seq = len(tx.events("t1"))
                tx.append_events("t1", [signed("t1", next_seq), signed("t1", next_seq + 1)])

    run_threads(threads, writer)
    with store.transaction() as tx:
        assert seqs(tx.events("t1")) == list(range(threads * appends * 2))


def test_concurrent_threads_of_one_store_get_dense_seqs(store: Store) -> None:
    with_table(store)

    def writer(i: int) -> None:
        for _ in range(5):
            with store.transaction() as tx:
                tx.lock_table("t1")
                tx.append_events("t1", [signed("t1", len(tx.events("t1")))])

    run_threads(8, writer)
    with store.transaction() as tx:
        assert seqs(tx.events("t1")) == list(range(40))


# Rounds


def test_rounds_open_and_finish_once(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r1"])
    with store.transaction() as tx:
        assert tx.get_round("r1") == RoundRow("r1", "t1", 0, SEED, 200, None, None, None)
        assert tx.get_round("nope") is None
        tx.finish_round("r1", head_hash=b"\x01" * 32, leaf_index=0, finished_at=300)
    with store.transaction() as tx:
        assert tx.get_round("r1") == RoundRow("r1", "t1", 0, SEED, 200, 300, b"\x01" * 32, 0)
    with pytest.raises(ConflictError, match="already finished"), store.transaction() as tx:
        tx.finish_round("r1", head_hash=b"\x02" * 32, leaf_index=1, finished_at=301)
    with pytest.raises(ValueError, match="no round"), store.transaction() as tx:
        tx.finish_round("nope", head_hash=b"\x02" * 32, leaf_index=1, finished_at=301)
    with store.transaction() as tx:
        assert tx.get_round("r1") == RoundRow("r1", "t1", 0, SEED, 200, 300, b"\x01" * 32, 0)


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(
            lambda tx: tx.put_round("r1", "t1", 9, SEED, 1), id="a-duplicate-round-id-conflicts"
        ),
        pytest.param(
            lambda tx: tx.put_round("r9", "ghost", 0, SEED, 1), id="a-round-needs-its-table"
        ),
        pytest.param(
            lambda tx: tx.finish_round("r2", b"\x00" * 32, 0, 5), id="a-leaf-index-is-one-rounds"
        ),
    ],
)
def test_round_writes_that_conflict(store: Store, write: Callable[[Transaction], None]) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r1", "r2"])
    with store.transaction() as tx:
        tx.finish_round("r1", b"\x01" * 32, 0, 5)
    with pytest.raises(ConflictError), store.transaction() as tx:
        write(tx)
    with store.transaction() as tx:
        assert tx.get_round("r1") == RoundRow("r1", "t1", 0, SEED, 200, 5, b"\x01" * 32, 0)
        assert tx.get_round("r2") == RoundRow("r2", "t1", 1, SEED, 201, None, None, None)


def test_logged_heads_page_by_leaf_index(store: Store) -> None:
    with_table(store, "a")
    with_table(store, "b")
    # Leaf i is logged at 1000 + 10 * i, on table a for even i, b for odd: a round's head,
    # except every third leaf, which is a table's head at rest (seq 100 + i).
    with store.transaction() as tx:
        for i in range(10):
            tx.put_round(f"r{i}", "ab"[i % 2], i, SEED, opened_at=i)
        tx.put_round("open", "a", 99, SEED, opened_at=0)
        for i in [3, 0, 7, 1, 9, 2, 8, 4, 6, 5]:  # logged out of leaf order
            if i % 3 == 0:
                tx.put_table_head("ab"[i % 2], 100 + i, leaf(i), i, 1000 + 10 * i)
            else:
                tx.finish_round(f"r{i}", leaf(i), leaf_index=i, finished_at=1000 + 10 * i)

    def export(since: int | None, until: int | None, table: str | None, page: int) -> list[int]:
        found: list[int] = []
        after = -1
        while True:
            with store.transaction() as tx:
                rows = tx.logged_heads(since, until, table, after_leaf=after, limit=page)
            assert len(rows) <= page
            for row in rows:
                found.append(row.leaf_index)
                after = row.leaf_index
            if len(rows) < page:
                return found

    assert export(None, None, None, 3) == list(range(10))
    assert export(None, None, None, 100) == list(range(10))
    assert export(1020, 1070, None, 2) == [2, 3, 4, 5, 6]
    assert export(1020, None, "b", 1) == [3, 5, 7, 9]
    assert export(None, 1020, "a", 4) == [0]
    assert export(5000, None, None, 3) == []
    with store.transaction() as tx:
        assert tx.logged_heads(None, None, "b", after_leaf=5, limit=2) == [
            HeadRow(7, "b", "r7", None, leaf(7)),
            HeadRow(9, "b", None, 109, leaf(9)),
        ]


def test_a_heads_previous_head_is_its_tables_last_leaf_before_it(store: Store) -> None:
    """What a bundle starts after (SPEC 13.1): rounds' and tables' heads alike, of one table."""
    with_table(store, "a")
    with_table(store, "b")
    with store.transaction() as tx:
        tx.put_round("a.1", "a", 1, SEED, opened_at=1)
        tx.put_round("b.1", "b", 1, SEED, opened_at=1)
        tx.put_table_head("a", 1, leaf(0), 0, 100)  # a seated
        tx.finish_round("b.1", leaf(1), leaf_index=1, finished_at=110)
        tx.finish_round("a.1", leaf(2), leaf_index=2, finished_at=120)
        tx.put_table_head("a", 30, leaf(3), 3, 130)  # a seat leaves after a.1
    with store.transaction() as tx:
        assert tx.previous_head("a", 0) is None
        assert tx.previous_head("a", 2) == HeadRow(0, "a", None, 1, leaf(0))
        assert tx.previous_head("a", 3) == HeadRow(2, "a", "a.1", None, leaf(2))
        assert tx.previous_head("a", 99) == HeadRow(3, "a", None, 30, leaf(3))
        assert tx.previous_head("b", 1) is None
        assert tx.previous_head("b", 99) == HeadRow(1, "b", "b.1", None, leaf(1))


def test_events_between_two_seqs_and_a_rounds_page(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        tx.append_events("t1", [signed("t1", n, "r1" if n % 2 else None) for n in range(8)])
    with store.transaction() as tx:
        assert seqs(tx.events_between("t1", 2, 5)) == [2, 3, 4, 5]
        assert seqs(tx.events_between("t1", 6, 20)) == [6, 7]
        assert tx.events_between("t1", 5, 4) == []
        assert seqs(tx.round_events("t1", "r1", from_seq=3, limit=2)) == [3, 5]
        assert seqs(tx.round_events("t1", "r1", from_seq=6)) == [7]


def test_the_last_rounds_start_is_its_first_event(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        assert tx.last_round_start("t1") is None
        tx.put_round("t1.1", "t1", 1, SEED, opened_at=1)
        tx.put_round("t1.2", "t1", 2, SEED, opened_at=2)
        rounds = [None, "t1.1", "t1.1", None, "t1.2", "t1.2"]
        tx.append_events("t1", [signed("t1", n, r) for n, r in enumerate(rounds)])
    with store.transaction() as tx:
        assert tx.last_round_start("t1") == (2, 4)
        assert tx.last_round_start("other") is None


def test_a_table_head_is_logged_once_per_seq(store: Store) -> None:
    with_table(store, "t1")
    with store.transaction() as tx:
        assert tx.table_head("t1", None) is None
        tx.put_table_head("t1", 3, leaf(0), 0, 500)
        tx.put_table_head("t1", 8, leaf(1), 1, 600)
    with store.transaction() as tx:
        assert tx.table_head("t1", None) == HeadRow(1, "t1", None, 8, leaf(1))
        assert tx.table_head("t1", 3) == HeadRow(0, "t1", None, 3, leaf(0))
        assert tx.table_head("t1", 4) is None
        assert tx.table_head("t2", None) is None
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.put_table_head("t1", 3, leaf(2), 2, 700)
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.put_table_head("ghost", 1, leaf(2), 2, 700)


# Seat tokens


def test_seat_tokens(store: Store) -> None:
    with_table(store, "t1")
    with_table(store, "t2")
    with store.transaction() as tx:
        tx.put_token("t1", 0, b"alice")
        tx.put_token("t1", 1, b"bob")
        tx.put_token("t2", 0, b"bob")  # the same hash may seat someone at another table
    with store.transaction() as tx:
        assert tx.seat_for_token("t1", b"alice") == 0
        assert tx.seat_for_token("t1", b"bob") == 1
        assert tx.seat_for_token("t2", b"bob") == 0
        assert tx.seat_for_token("t2", b"alice") is None


def test_one_token_seats_one_seat_per_table(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        tx.put_token("t1", 0, b"alice")
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.put_token("t1", 5, b"alice")
    with store.transaction() as tx:
        assert tx.seat_for_token("t1", b"alice") == 0


def test_a_seat_taken_again_gets_a_new_token_and_the_old_one_stops_working(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        tx.put_token("t1", 0, b"alice")
    with store.transaction() as tx:
        tx.put_token("t1", 0, b"carol")
    with store.transaction() as tx:
        assert tx.seat_for_token("t1", b"carol") == 0
        assert tx.seat_for_token("t1", b"alice") is None


def test_a_dropped_token_seats_nobody_and_the_seat_takes_a_new_one(store: Store) -> None:
    with_table(store)
    with store.transaction() as tx:
        tx.put_token("t1", 0, b"alice")
        tx.put_token("t1", 1, b"bob")
    with store.transaction() as tx:
        tx.drop_token("t1", 1)
        tx.drop_token("t1", 5)  # a seat with no token: nothing to drop
    with store.transaction() as tx:
        assert tx.seat_for_token("t1", b"bob") is None
        assert tx.seat_for_token("t1", b"alice") == 0
        tx.put_token("t1", 1, b"bob")  # the departed seat's next occupant
        assert tx.seat_for_token("t1", b"bob") == 1


# Idempotency

ALICE, BOB = b"\xa1" * 32, b"\xb0" * 32


def test_idempotency_records(store: Store) -> None:
    with_table(store)
    first = IdempotencyRow(b"\x07" * 32, 201, {"events": [signed("t1", 0)], "ok": True})
    with store.transaction() as tx:
        assert tx.get_idempotent("t1", ALICE, "k") is None
        tx.put_idempotent("t1", ALICE, "k", first)
    with store.transaction() as tx:
        assert tx.get_idempotent("t1", ALICE, "k") == first
        assert tx.get_idempotent("t1", ALICE, "other") is None
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.put_idempotent("t1", ALICE, "k", IdempotencyRow(b"\x08" * 32, 409, {}))
    with store.transaction() as tx:
        assert tx.get_idempotent("t1", ALICE, "k") == first


def test_idempotency_keys_are_each_callers_own(store: Store) -> None:
    with_table(store)
    alices, bobs = (
        IdempotencyRow(b"\x07" * 32, 200, {"a": 1}),
        IdempotencyRow(b"\x08" * 32, 200, {}),
    )
    with store.transaction() as tx:
        tx.put_idempotent("t1", ALICE, "move-1", alices)
        assert tx.get_idempotent("t1", BOB, "move-1") is None
        tx.put_idempotent("t1", BOB, "move-1", bobs)
    with store.transaction() as tx:
        assert tx.get_idempotent("t1", ALICE, "move-1") == alices
        assert tx.get_idempotent("t1", BOB, "move-1") == bobs


def test_finding_8_keys_kept_per_table_before_the_upgrade_still_answer_retries(
    backend: Backend,
) -> None:
    store = backend.open()
    kept = IdempotencyRow(b"\x07" * 32, 200, {"events": []})
    with store.transaction() as tx:  # the schema as version 2 left it, with one key kept
        _migrate_to(tx, 2)
        tx.create_table("t1", "toto21", 100)
        tx._run(
            "INSERT INTO idempotency (table_id, key, request_hash, status, response)"
            " VALUES (?, ?, ?, ?, ?)",
            ("t1", "move-1", kept.request_hash, 200, '{"events":[]}'),
        )
    store.migrate()
    with store.transaction() as tx:
        assert tx.get_idempotent("t1", ALICE, "move-1") == kept  # its hash names its caller
        tx.put_idempotent("t1", ALICE, "move-2", kept)
        assert tx.get_idempotent("t1", BOB, "move-2") is None


# The Merkle log


def test_leaves_are_numbered_from_zero(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", [f"r{i}" for i in range(5)])
    with store.transaction() as tx:
        assert tx.log_size() == 0
        assert tx.leaf_hashes(0, 0) == []
        assert [tx.append_leaf(leaf(i), f"r{i}") for i in range(3)] == [0, 1, 2]
    with store.transaction() as tx:
        assert tx.append_leaf(leaf(3), "r3") == 3
        assert tx.log_size() == 4
        assert tx.leaf_hashes(0, 4) == [leaf(i) for i in range(4)]
        assert tx.leaf_hashes(1, 3) == [leaf(1), leaf(2)]
        assert tx.leaf_hashes(4, 4) == []


@pytest.mark.parametrize(
    ("start", "end"),
    [
        pytest.param(0, 2, id="past-the-end"),
        pytest.param(1, 0, id="backwards"),
        pytest.param(-1, 1, id="negative"),
    ],
)
def test_leaf_ranges_outside_the_log(store: Store, start: int, end: int) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r0"])
    with pytest.raises(ValueError, match="leaf range"), store.transaction() as tx:
        tx.append_leaf(leaf(0), "r0")
        tx.leaf_hashes(start, end)


def test_a_round_has_one_leaf(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r0"])
    with store.transaction() as tx:
        tx.append_leaf(leaf(0), "r0")
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_leaf(leaf(1), "r0")
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.append_leaf(leaf(1), "ghost")
    with store.transaction() as tx:
        assert tx.append_leaf(leaf(1), None) == 1  # a table's head: no round
        assert tx.append_leaf(leaf(2), None) == 2
    with store.transaction() as tx:
        assert tx.log_size() == 3
        assert tx.leaf_hashes(0, 3) == [leaf(0), leaf(1), leaf(2)]


def test_leaf_heads_are_each_leafs_data_by_index(store: Store) -> None:
    """Rounds' and tables' heads alike, by leaf index, whatever order they were logged in."""
    with_table(store, "a")
    with_rounds(store, "a", ["r0", "r2"])
    with store.transaction() as tx:
        tx.append_leaf(leaf(100), None)
        tx.put_table_head("a", 1, leaf(1), 1, 500)
        tx.append_leaf(leaf(101), None)
        tx.finish_round("r2", leaf(2), leaf_index=2, finished_at=600)
        tx.append_leaf(leaf(102), "r2")
        tx.finish_round("r0", leaf(0), leaf_index=0, finished_at=400)
        tx.append_leaf(leaf(103), None)
        tx.put_table_head("a", 9, leaf(3), 3, 700)
    with store.reader() as reader:
        assert reader.leaf_heads(0, 4) == [leaf(i) for i in range(4)]
        assert reader.leaf_heads(1, 3) == [leaf(1), leaf(2)]
        assert reader.leaf_heads(4, 4) == []


@pytest.mark.parametrize(
    ("start", "end"),
    [
        pytest.param(0, 3, id="past-the-end"),
        pytest.param(1, 0, id="backwards"),
        pytest.param(-1, 1, id="negative"),
    ],
)
def test_leaf_heads_outside_the_log(store: Store, start: int, end: int) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r0"])
    with store.transaction() as tx:
        tx.finish_round("r0", leaf(0), leaf_index=0, finished_at=400)
        tx.append_leaf(leaf(100), "r0")
        tx.put_table_head("t1", 5, leaf(1), 1, 500)
        tx.append_leaf(leaf(101), None)
    with pytest.raises(ValueError, match="leaf range"), store.reader() as reader:
        reader.leaf_heads(start, end)


def test_concurrent_leaves_are_dense(backend: Backend, store: Store) -> None:
    threads, per_thread = 8, 6
    with_table(store)
    with_rounds(store, "t1", [f"r{i}-{j}" for i in range(threads) for j in range(per_thread)])
    got: list[list[int]] = [[] for _ in range(threads)]

    def writer(i: int) -> None:
        mine = backend.open()
        for j in range(per_thread):
            with mine.transaction() as tx:
                got[i].append(tx.append_leaf(leaf(i * 100 + j), f"r{i}-{j}"))

    run_threads(threads, writer)
    indexes = sorted(index for mine in got for index in mine)
    assert indexes == list(range(threads * per_thread))
    with store.transaction() as tx:
        assert tx.log_size() == threads * per_thread
        hashes = tx.leaf_hashes(0, threads * per_thread)
    for i, mine in enumerate(got):
        assert [hashes[index] for index in mine] == [leaf(i * 100 + j) for j in range(per_thread)]


def test_checkpoints(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r0", "r1"])
    one = CheckpointRow(1, b"\x01" * 32, "origin\n1\nAQEB\n\n— sig\n", 500)
    two = CheckpointRow(2, b"\x02" * 32, "origin\n2\nAgIC\n\n— sig\n", 600)
    with store.transaction() as tx:
        assert tx.latest_checkpoint() is None
        tx.put_checkpoint(CheckpointRow(0, b"\x00" * 32, "empty", 400))
        tx.append_leaf(leaf(0), "r0")
        tx.put_checkpoint(one)
        tx.append_leaf(leaf(1), "r1")
        tx.put_checkpoint(two)
    with store.transaction() as tx:
        assert tx.latest_checkpoint() == two
    with pytest.raises(ConflictError), store.transaction() as tx:
        tx.put_checkpoint(CheckpointRow(2, b"\x09" * 32, "another", 700))
    with pytest.raises(ValueError, match="log of size 2"), store.transaction() as tx:
        tx.put_checkpoint(CheckpointRow(3, b"\x03" * 32, "ahead of the log", 700))
    with store.transaction() as tx:
        assert tx.latest_checkpoint() == two


def test_cosignatures_choose_the_most_cosigned_checkpoint_then_the_largest(store: Store) -> None:
    with_table(store)
    with_rounds(store, "t1", ["r0", "r1", "r2"])
    rows = [
        CheckpointRow(n, bytes([n]) * 32, f"origin\n{n}\n\n— sig\n", 500 + n) for n in (1, 2, 3)
    ]
    with store.transaction() as tx:
        for n, row in enumerate(rows):
            tx.append_leaf(leaf(n), f"r{n}")
            tx.put_checkpoint(row)
        assert tx.most_cosigned_size(0) is None  # nothing cosigned: no choice
        tx.put_cosignature(1, "w1", "— w1 a\n", 10, 1000)
        tx.put_cosignature(1, "w2", "— w2 b\n", 11, 1001)
        tx.put_cosignature(2, "w1", "— w1 c\n", 12, 1002)
        tx.put_cosignature(2, "w1", "— w1 later\n", 13, 1003)  # a witness's second: not kept
    with store.reader() as txn:
        assert txn.most_cosigned_size(0) == 1  # two cosignatures beat one
        assert txn.most_cosigned_size(2) == 2  # of those covering leaf 1
        assert txn.most_cosigned_size(3) is None
        assert txn.cosignature_lines(1) == ["— w1 a\n", "— w2 b\n"]
        assert txn.cosignature_lines(2) == ["— w1 c\n"]
        assert txn.cosignature_lines(3) == []
        assert txn.checkpoint(2) == rows[1]
        assert txn.checkpoint(4) is None
    with store.transaction() as tx:
        tx.put_cosignature(3, "w1", "— w1 d\n", 14, 1004)
        tx.put_cosignature(3, "w2", "— w2 e\n", 15, 1005)
    with store.reader() as txn:
        assert txn.most_cosigned_size(0) == 3  # as many as size 1's: the larger wins
    with pytest.raises(StorageError), store.transaction() as tx:
        tx.put_cosignature(9, "w1", "— w1 f\n", 16, 1006)  # no checkpoint of size 9
