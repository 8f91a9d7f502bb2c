"""Many threads on one table at once, on SQLite and PostgreSQL: the requests serialize, the
chain never forks or repeats a seq, and every refusal is a clean 4xx."""

import random
import threading
from pathlib import Path
from typing import Any

import pytest

from fairdeal.api.client import FairdealClient, SeatClient, ServerRefusedError
from fairdeal.merkle import leaf_hash, verify_consistency, verify_inclusion
from fairdeal.note import verify_checkpoint
from tests.api.bots import (
    Toto21Table,
    await_toto21_move,
    events_of,
    kvitlach_table,
    log_verifier,
    of_type,
    play_toto21_round,
    raw,
    run_together,
    toto21_round_state,
    toto21_table,
    types_of,
    verify_table,
)
from tests.api.conftest import Server, start_server, stop_server

THREADS_PER_SEAT = 4
# Refusals a player racing its own other threads may meet: none of them is a failure.
RACE_REFUSALS = {"out_of_turn", "illegal_action", "round_sealed", "round_not_current"}


def _racer(server: Server, game: Toto21Table, seat: int, rng: random.Random) -> int:
    """One of several threads playing one seat: look, then make what move seems due."""
    mine = game.seats[seat]
    me = SeatClient(FairdealClient(server.url), mine.table_id, seat, mine.token)
    refused = 0
    for _ in range(400):
        view = me.view()
        state = view["view"]
        current = state["round"]
        if state["phase"] == "over":
            return refused
        try:
            if current is None or current["revealed"]:
                me.open_round()
            elif not current["sealed"]:
                if seat not in current["seeded"] + current["committed"]:
                    me.seed(current["id"])  # a committed seed is revealed by a view once due
            elif current["turn"] == seat:
                mine_total = sum(1 for c in current["cards"] if c["seat"] == seat)
                hit = "hit" in view["legal_actions"] and mine_total < 3 and rng.random() < 0.7
                me.act(current["id"], "hit" if hit else "stand")
        except ServerRefusedError as e:
            assert e.status == 409 and e.code in RACE_REFUSALS, e
            refused += 1
    raise AssertionError("the match did not end")


def test_many_threads_playing_one_match_at_once_never_fork_its_chain(any_server: Server) -> None:
    # Keyless: the threads of a seat would race each other for its statements' numbers.
    game = toto21_table(any_server.url, {"target": 2}, keyless=True)
    count = 2 * THREADS_PER_SEAT
    results = run_together(count, lambda i: _racer(any_server, game, i % 2, random.Random(i)))
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sum(results) > 0, "the threads never raced"
    replayed = verify_table(any_server.url, game.table_id)
    assert replayed.state.phase == "over"
    chain = events_of(any_server.url, game.table_id)
    assert len(of_type(chain, "match_won")) == 1
    assert len({e["hash"] for e in chain}) == len(chain)


def test_threads_joining_at_once_take_distinct_seats_until_the_table_is_full(
    any_server: Server,
) -> None:
    options = {"rule_set": "classic", "decks": 2, "max_seats": 7}
    game = kvitlach_table(any_server.url, 1, options)

    def join(i: int) -> Any:
        return FairdealClient(any_server.url).join(game.table_id, {"buy_in": 10 + i}).seat

    results = run_together(10, join)
    seats = sorted(r for r in results if isinstance(r, int))
    refusals = [r for r in results if not isinstance(r, int)]
    assert seats == [1, 2, 3, 4, 5, 6]
    assert all(isinstance(r, ServerRefusedError) and r.code == "table_full" for r in refusals)
    verify_table(any_server.url, game.table_id)


def _on_turn(server: Server) -> tuple[Toto21Table, str, str]:
    game = toto21_table(server.url, keyless=True)  # raw moves
    round_id = await_toto21_move(game)
    turn = toto21_round_state(game.seats[0])["turn"]
    return game, round_id, game.seats[turn].token


def test_one_move_sent_by_many_threads_at_once_is_made_once(any_server: Server) -> None:
    game, round_id, token = _on_turn(any_server)
    path = f"/v1/rounds/{round_id}/actions"
    replies = run_together(
        8, lambda i: raw(any_server.url, "POST", path, {"type": "stand"}, token=token)
    )
    statuses = sorted(r.status for r in replies)
    assert statuses == [200] + [409] * 7
    assert {r.json["error"]["code"] for r in replies if r.status == 409} == {"out_of_turn"}
    assert types_of(events_of(any_server.url, game.table_id)).count("stand") == 1
    verify_table(any_server.url, game.table_id)


def test_retries_with_one_key_at_once_all_get_the_one_receipt(any_server: Server) -> None:
    game, round_id, token = _on_turn(any_server)
    path = f"/v1/rounds/{round_id}/actions"
    headers = {"Idempotency-Key": "together"}
    replies = run_together(
        8,
        lambda i: raw(
            any_server.url, "POST", path, {"type": "stand"}, token=token, headers=headers
        ),
    )
    assert {r.status for r in replies} == {200}
    assert len({r.text for r in replies}) == 1
    assert types_of(events_of(any_server.url, game.table_id)).count("stand") == 1


def test_rounds_ending_on_many_tables_at_once_keep_one_consistent_log(any_server: Server) -> None:
    games = [toto21_table(any_server.url, {"target": 10}) for _ in range(4)]
    # Each table's head entered the log at rest: created, joined, accepted.
    seated = raw(any_server.url, "GET", "/v1/log/checkpoint").json["size"]
    assert seated == 3 * len(games)
    notes: list[dict[str, Any]] = []
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            notes.append(raw(any_server.url, "GET", "/v1/log/checkpoint").json)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        results = run_together(
            len(games),
            lambda i: [play_toto21_round(games[i], random.Random(i))[0] for _ in range(2)],
        )
    finally:
        done.set()
        watcher.join()
    assert not [r for r in results if isinstance(r, BaseException)], results

    final = raw(any_server.url, "GET", "/v1/log/checkpoint").json
    verifier = log_verifier(any_server.url)
    assert verify_checkpoint(final["note"], verifier).size == final["size"] == seated + 8
    final_root = bytes.fromhex(final["root_hash"])
    for note in notes:
        checkpoint = verify_checkpoint(note["note"], verifier)
        if checkpoint.size == 0:
            continue
        path = f"/v1/log/consistency?from={checkpoint.size}&to={final['size']}"
        proof = [bytes.fromhex(h) for h in raw(any_server.url, "GET", path).json["proof"]]
        verify_consistency(checkpoint.size, final["size"], proof, checkpoint.root_hash, final_root)
    indexes = set()
    for round_id in (r for rounds in results for r in rounds):
        proof = raw(any_server.url, "GET", f"/v1/log/inclusion?round={round_id}").json
        hashes = [bytes.fromhex(h) for h in proof["proof"]]
        head = leaf_hash(bytes.fromhex(proof["head_hash"]))
        verify_inclusion(head, proof["leaf_index"], final["size"], hashes, final_root)
        indexes.add(proof["leaf_index"])
    assert indexes == set(range(seated, seated + 8))


@pytest.mark.postgres
def test_a_thread_per_request_server_does_not_keep_a_connection_per_request(
    postgres_schema: str, tmp_path: Path
) -> None:
    running, http = start_server(tmp_path, postgres_schema, pooled=False)
    try:
        game = toto21_table(running.url)
        for _ in range(30):
            raw(running.url, "GET", f"/v1/tables/{game.table_id}")
        store = running.service.store
        kept = store._pool._idle
        assert len(kept) <= 4, f"{len(kept)} connections kept open after 30 requests"
    finally:
        stop_server(running, http)
