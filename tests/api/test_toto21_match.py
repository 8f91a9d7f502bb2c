"""A whole Toto21 match over HTTP, on SQLite and on PostgreSQL, every receipt checked."""

import random

from fairdeal.games.toto21.state import OVER
from fairdeal.merkle import leaf_hash, verify_inclusion
from fairdeal.note import verify_checkpoint
from fairdeal.verifier import load_trust, verify_bundle
from tests.api.bots import (
    events_of,
    log_verifier,
    of_type,
    play_toto21_match,
    raw,
    toto21_table,
    verify_table,
)
from tests.api.conftest import Server

TARGET = 4
STAKE = 100


def test_a_toto21_match_is_played_to_its_target_and_the_winner_takes_the_pot(
    any_server: Server,
) -> None:
    game = toto21_table(any_server.url, {"target": TARGET, "stake": STAKE})
    rounds = play_toto21_match(game, random.Random(21))

    final = game.seats[0].view()["view"]
    assert final["phase"] == OVER
    (ended,) = of_type(events_of(any_server.url, game.table_id), "match_won")
    winner = ended["event"]["data"]["seat"]
    assert ended["event"]["data"]["reason"] == "target"
    assert final["score"][winner] >= TARGET > final["score"][1 - winner]
    assert final["balances"] == {"pot": 0, f"seat:{winner}": 2 * STAKE, f"seat:{1 - winner}": 0}
    assert len(rounds) >= TARGET // 2

    replayed = verify_table(any_server.url, game.table_id)
    assert replayed.state.phase == OVER
    assert tuple(replayed.state.score) == tuple(final["score"])


def test_every_round_of_a_match_has_a_bundle_that_verifies_offline_and_is_in_the_log(
    any_server: Server,
) -> None:
    game = toto21_table(any_server.url, {"target": 2})
    rounds = play_toto21_match(game, random.Random(2))
    chain = events_of(any_server.url, game.table_id)
    verifier = log_verifier(any_server.url)
    trust = load_trust([raw(any_server.url, "GET", "/v1/keys").json["log"]["verifier_key"]])

    previous = None  # the last seq of the previous round's bundle
    for round_id in rounds:
        bundle = raw(any_server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
        (revealed,) = [
            e for e in of_type(chain, "round_revealed") if e["event"]["round"] == round_id
        ]
        last = revealed["event"]["seq"]
        first = bundle["events"][0]["event"]
        assert bundle["format"] == "fairdeal-bundle/2"
        # bounded: from the table_state logged right after the table's previous head
        assert first["type"] == "table_state"
        assert bundle["events"] == chain[first["seq"] : last + 1]
        assert previous is None or first["seq"] == previous + 1
        previous = last
        log = bundle["log"]
        assert log["head_hash"] == revealed["hash"]
        checkpoint = verify_checkpoint(log["checkpoint"], verifier, "test.fairdeal/log")
        assert checkpoint.size == log["tree_size"]
        verify_inclusion(
            leaf_hash(bytes.fromhex(log["head_hash"])),
            log["leaf_index"],
            log["tree_size"],
            [bytes.fromhex(h) for h in log["inclusion_proof"]],
            checkpoint.root_hash,
        )
        report = verify_bundle(bundle, trust)  # the offline verifier, keys pinned
        assert (report.verdict, report.findings) == ("valid", [])


def test_the_sdk_has_checked_every_event_of_the_match_by_its_end(any_server: Server) -> None:
    game = toto21_table(any_server.url, {"target": 2})
    play_toto21_match(game, random.Random(3))
    logged = len(events_of(any_server.url, game.table_id))
    for seat in game.seats.values():
        seat.view()
        assert seat.client.tables[game.table_id].head.next_seq == logged
