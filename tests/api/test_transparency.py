"""The transparency log over HTTP: keys, signed checkpoints, inclusion and consistency proofs,
and the operator's JSONL export, each checked with the core's own verifiers."""

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.events import ChainHead, SignedEvent
from fairdeal.keys import KeySet, key_id, load_public_key
from fairdeal.merkle import leaf_hash, verify_consistency, verify_inclusion
from fairdeal.note import BadNoteSignatureError, NoteVerifier, UntrustedNoteError, verify_checkpoint
from fairdeal.verifier import load_trust, verify_bundle
from fairdeal.verifier.cli import main as verify_main
from tests.api.bots import (
    error_of,
    events_of,
    key_set,
    log_verifier,
    of_type,
    play_toto21_round,
    raw,
    toto21_table,
)
from tests.api.conftest import OPERATOR_TOKEN, start_server, stop_server
from tests.chains import check_chain

ORIGIN = "test.fairdeal/log"
ROUNDS = (0, 1, 0, 1, 0)  # which table plays each round, in log order
STEP_MS = 1_000


SEATING = 3  # a Toto21 table's heads at rest before its first round: created, joined, accepted


@dataclass
class Played:
    url: str
    tables: list[str]
    rounds: list[str]  # in log order
    notes: list[dict[str, Any]]  # the checkpoint after each table's seating, then each round
    finished_at: list[int]

    @property
    def seated(self) -> int:
        """The leaves before the first round's: each table's heads at rest while seating."""
        return SEATING * len(self.tables)

    def leaf_of(self, number: int) -> int:
        return self.seated + number


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    """Two tables seated, then five rounds, the clock a second on after each; a small
    export page."""
    running, http = start_server(tmp_path_factory.mktemp("log"), export_page=2)
    try:
        games, notes = [], []
        for _ in range(2):
            games.append(toto21_table(running.url, {"target": 10}))
            notes.append(raw(running.url, "GET", "/v1/log/checkpoint").json)
        rng = random.Random(9)
        rounds, times = [], []
        for which in ROUNDS:
            round_id, _ = play_toto21_round(games[which], rng)
            rounds.append(round_id)
            times.append(running.clock())
            notes.append(raw(running.url, "GET", "/v1/log/checkpoint").json)
            running.clock.advance(STEP_MS)
        yield Played(running.url, [g.table_id for g in games], rounds, notes, times)
    finally:
        stop_server(running, http)


def _sizes(played: Played) -> list[int]:
    """The size of each checkpoint in ``played.notes``."""
    return [SEATING, 2 * SEATING] + [played.leaf_of(n) + 1 for n in range(len(played.rounds))]


def test_the_key_set_lists_each_signing_key_under_its_id_and_the_log_key(played: Played) -> None:
    listed = raw(played.url, "GET", "/v1/keys").json
    for key in listed["keys"]:
        assert key["key_id"] == key_id(load_public_key(key["public_key_pem"].encode()))
    assert [k["current"] for k in listed["keys"]].count(True) == 1
    assert listed["development_key"] is True
    assert listed["log"]["origin"] == ORIGIN
    assert NoteVerifier.from_key_string(listed["log"]["verifier_key"]).name == ORIGIN
    chain = events_of(played.url, played.tables[0])
    assert {e["key_id"] for e in chain} <= {k["key_id"] for k in listed["keys"]}


def test_each_checkpoint_is_a_note_signed_by_the_log_key(played: Played) -> None:
    verifier = log_verifier(played.url)
    for size, note in zip(_sizes(played), played.notes, strict=True):
        checkpoint = verify_checkpoint(note["note"], verifier, ORIGIN)
        assert (checkpoint.size, checkpoint.root_hash.hex()) == (size, note["root_hash"])
        assert note["size"] == size


def test_a_checkpoint_note_does_not_verify_under_another_key_or_once_changed(
    played: Played,
) -> None:
    note = played.notes[-1]["note"]
    stranger = NoteVerifier(ORIGIN, Ed25519PrivateKey.generate().public_key())
    with pytest.raises(UntrustedNoteError):
        verify_checkpoint(note, stranger, ORIGIN)
    size_line = f"\n{_sizes(played)[-1]}\n"
    with pytest.raises(BadNoteSignatureError):
        verify_checkpoint(note.replace(size_line, "\n99\n", 1), log_verifier(played.url), ORIGIN)


def test_reading_the_checkpoint_again_signs_nothing_new(played: Played) -> None:
    first = raw(played.url, "GET", "/v1/log/checkpoint").json
    assert raw(played.url, "GET", "/v1/log/checkpoint").json == first == played.notes[-1]


def test_every_pair_of_signed_checkpoints_is_consistent(played: Played) -> None:
    roots = {
        size: bytes.fromhex(note["root_hash"])
        for size, note in zip(_sizes(played), played.notes, strict=True)
    }
    for first, first_root in roots.items():
        for second in (size for size in roots if size >= first):
            path = f"/v1/log/consistency?from={first}&to={second}"
            proof = raw(played.url, "GET", path).json
            assert (proof["from"], proof["to"]) == (first, second)
            assert proof["from_root"] == first_root.hex()
            assert proof["to_root"] == roots[second].hex()
            hashes = [bytes.fromhex(h) for h in proof["proof"]]
            verify_consistency(first, second, hashes, first_root, roots[second])


def test_every_round_is_included_at_every_size_since_it_finished(played: Played) -> None:
    roots = {
        size: bytes.fromhex(note["root_hash"])
        for size, note in zip(_sizes(played), played.notes, strict=True)
    }
    heads = {
        e["event"]["round"]: e["hash"]
        for table_id in played.tables
        for e in of_type(events_of(played.url, table_id), "round_revealed")
    }
    for number, round_id in enumerate(played.rounds):
        index = played.leaf_of(number)
        for size in (size for size in roots if size > index):
            proof = raw(played.url, "GET", f"/v1/log/inclusion?round={round_id}&size={size}").json
            assert (proof["leaf_index"], proof["tree_size"]) == (index, size)
            assert (proof["round_id"], proof["seq"]) == (round_id, None)
            assert proof["head_hash"] == heads[round_id]
            assert proof["root_hash"] == roots[size].hex()
            hashes = [bytes.fromhex(h) for h in proof["proof"]]
            verify_inclusion(
                leaf_hash(bytes.fromhex(heads[round_id])), index, size, hashes, roots[size]
            )
        beyond = raw(played.url, "GET", f"/v1/log/inclusion?round={round_id}&size={index}")
        assert beyond.status == 409 and error_of(beyond)["code"] == "conflict"


def test_each_table_s_seating_is_in_the_log_as_heads_at_rest(played: Played) -> None:
    final = played.notes[-1]
    root, size = bytes.fromhex(final["root_hash"]), final["size"]
    for number, table_id in enumerate(played.tables):
        chain = events_of(played.url, table_id)
        # Created with seat 0; seat 1 joined; the joiner accepted (the match started).
        rests = [e for e in chain if e["event"]["type"] in ("seat_joined", "match_started")]
        for offset, head in enumerate(rests):
            seq = head["event"]["seq"]
            path = f"/v1/log/inclusion?table={table_id}&seq={seq}"
            proof = raw(played.url, "GET", path).json
            index = SEATING * number + offset
            assert (proof["leaf_index"], proof["round_id"], proof["seq"]) == (index, None, seq)
            assert (proof["table_id"], proof["head_hash"]) == (table_id, head["hash"])
            hashes = [bytes.fromhex(h) for h in proof["proof"]]
            verify_inclusion(leaf_hash(bytes.fromhex(head["hash"])), index, size, hashes, root)
        latest = raw(played.url, "GET", f"/v1/tables/{table_id}/bundle").json
        assert latest["round_id"] is None
        assert latest["events"][-1] == rests[-1]
        _check_bundle(latest, played.url)
        first = raw(
            played.url, "GET", f"/v1/tables/{table_id}/bundle?seq={rests[0]['event']['seq']}"
        )
        assert first.json["events"] == chain[: rests[0]["event"]["seq"] + 1]


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("/v1/tables/{table}/bundle?seq=0", 404, "not_found"),
        ("/v1/tables/t0000000000000000/bundle", 404, "not_found"),
        ("/v1/log/inclusion?table={table}&seq=0", 404, "not_found"),
        ("/v1/log/inclusion?table={table}", 422, "invalid_input"),
        ("/v1/log/inclusion?round={round}&table={table}&seq=1", 422, "invalid_input"),
        ("/v1/log/inclusion", 422, "invalid_input"),
    ],
    ids=[
        "a seq that is no head at rest",
        "a table with no head in the log",
        "an inclusion proof of a seq that is no head",
        "a table without a seq",
        "a round and a table at once",
        "no head named",
    ],
)
def test_a_head_at_rest_that_is_not_in_the_log_is_refused(
    played: Played, path: str, status: int, code: str
) -> None:
    url = path.format(table=played.tables[0], round=played.rounds[0])
    reply = raw(played.url, "GET", url)
    assert reply.status == status, reply.text
    assert error_of(reply)["code"] == code


def _export(played: Played, query: str = "") -> tuple[Any, list[dict[str, Any]]]:
    reply = raw(played.url, "GET", f"/v1/export{query}", token=OPERATOR_TOKEN)
    assert reply.status == 200, reply.text
    lines = reply.text.splitlines()
    assert reply.text.endswith("\n") or not lines
    return reply, [json.loads(line) for line in lines]


def _check_bundle(bundle: dict[str, Any], url: str) -> None:
    """A bundle stands alone: its chain, its head (a round's reveal, or the table's last
    event at rest), its place in the signed log."""
    keys = KeySet(load_public_key(k["public_key_pem"].encode()) for k in bundle["keys"])
    assert keys.ids() == key_set(url).ids()
    signed = [SignedEvent.from_json(e) for e in bundle["events"]]
    first = signed[0].event
    assert first.seq == 0 or first.type == "table_state"  # where a bundle may start
    start = ChainHead(first.table, first.seq, first.prev, first.time)
    check_chain(signed, keys, start if first.seq else None)
    last = signed[-1].event
    if bundle["round_id"] is None:
        assert last.round is None and last.type in ("seat_joined", "match_started")
    else:
        assert (last.type, last.round) == ("round_revealed", bundle["round_id"])
    log = bundle["log"]
    assert log["head_hash"] == signed[-1].hash.hex()
    verifier = NoteVerifier.from_key_string(log["verifier_key"])
    checkpoint = verify_checkpoint(log["checkpoint"], verifier, log["origin"])
    proof = [bytes.fromhex(h) for h in log["inclusion_proof"]]
    head = leaf_hash(bytes.fromhex(log["head_hash"]))
    verify_inclusion(head, log["leaf_index"], checkpoint.size, proof, checkpoint.root_hash)
    pinned = load_trust([raw(url, "GET", "/v1/keys").json["log"]["verifier_key"]])
    assert verify_bundle(bundle, pinned).verdict == "valid"  # and the offline verifier agrees


def test_the_export_streams_every_leaf_as_a_jsonl_bundle_in_log_order(played: Played) -> None:
    reply, bundles = _export(played)
    assert reply.headers["Content-Type"].startswith("application/jsonl")
    assert "Content-Length" not in reply.headers  # streamed, a page of leaves at a time
    seating = [(table_id, None) for table_id in played.tables for _ in range(SEATING)]
    playing = [(r.rsplit(".", 1)[0], r) for r in played.rounds]
    assert [(b["table_id"], b["round_id"]) for b in bundles] == seating + playing
    assert [b["log"]["leaf_index"] for b in bundles] == list(range(len(bundles)))
    for bundle in bundles:
        assert bundle["format"] == "fairdeal-bundle/2"
        _check_bundle(bundle, played.url)


def test_the_export_selects_by_table_and_by_finishing_time(played: Played) -> None:
    _, first_table = _export(played, f"?table={played.tables[0]}")
    expected = [r for r, which in zip(played.rounds, ROUNDS, strict=True) if which == 0]
    assert [b["round_id"] for b in first_table] == [None] * SEATING + expected
    since, until = played.finished_at[1], played.finished_at[4]
    _, window = _export(played, f"?since={since}&until={until}")
    assert [b["round_id"] for b in window] == played.rounds[1:4]
    _, nothing = _export(played, "?table=t0000000000000000")
    assert nothing == []


@pytest.mark.parametrize("query", ["table", "window", "from_leaf"])
def test_every_filtered_export_verifies_with_partial_each_tables_lines_linked(
    played: Played, query: str, tmp_path: Path
) -> None:
    """A filter keeps a table's heads in a row (SPEC 7, step 17): its bounded lines link
    one to the next, and only each table's first line there stands on its own state."""
    queries = {
        "table": f"?table={played.tables[1]}",
        "window": f"?since={played.finished_at[1]}&until={played.finished_at[4]}",
        "from_leaf": f"?from_leaf={played.leaf_of(2)}",
    }
    reply, bundles = _export(played, queries[query])
    assert bundles
    path = tmp_path / "filtered.jsonl"
    path.write_text(reply.text)
    key = ["--key", raw(played.url, "GET", "/v1/keys").json["log"]["verifier_key"]]
    assert verify_main([*key, "--partial", str(path)]) == 0
    assert verify_main([*key, str(path)]) == 1  # without --partial, its gaps are findings


@pytest.mark.parametrize(
    ("token", "status", "code"),
    [(None, 401, "token_missing"), ("a-guess", 403, "operator_only")],
    ids=["without a token", "with a wrong token"],
)
def test_the_export_is_closed_without_the_operator_token(
    played: Played, token: str | None, status: int, code: str
) -> None:
    reply = raw(played.url, "GET", "/v1/export", token=token)
    assert reply.status == status and error_of(reply)["code"] == code
    assert "needs the operator token" in error_of(reply)["message"]
    assert played.rounds[0] not in reply.text


def test_the_export_is_closed_when_no_operator_token_is_configured(tmp_path: Path) -> None:
    running, http = start_server(tmp_path, operator_token="")
    try:
        for token in ("", "anything"):
            reply = raw(running.url, "GET", "/v1/export", token=token or None)
            assert reply.status in (401, 403)
            assert error_of(reply)["code"] in ("token_missing", "operator_only")
            assert "operator token" in error_of(reply)["message"].replace("_", " ").lower()
    finally:
        stop_server(running, http)


def test_a_checkpoint_read_before_any_round_ends_does_not_break_the_first_round(
    tmp_path: Path,
) -> None:
    running, http = start_server(tmp_path)
    try:
        empty = raw(running.url, "GET", "/v1/log/checkpoint").json
        assert empty["size"] == 0
        game = toto21_table(running.url)
        round_id, _ = play_toto21_round(game, random.Random(4))
        after = raw(running.url, "GET", "/v1/log/checkpoint").json
        assert after["size"] == SEATING + 1
        proof = raw(running.url, "GET", f"/v1/log/inclusion?round={round_id}").json
        assert proof["leaf_index"] == SEATING
        assert raw(running.url, "GET", f"/v1/rounds/{round_id}/bundle").status == 200
    finally:
        stop_server(running, http)


def test_a_seat_cannot_send_the_engines_own_events_as_commands(tmp_path: Path) -> None:
    """table_state and table_created are logged by the engine alone (SPEC 6.1, 6.6): a seat
    that sends one, a forged state of the table among them, is refused and nothing is logged."""
    running, http = start_server(tmp_path)
    try:
        game = toto21_table(running.url, {"stake": 10})
        before = events_of(running.url, game.table_id)
        forged = {"game": "toto21", "balances": {"pot": 0, "seat:0": 20, "seat:1": 0}}
        path, token = f"/v1/tables/{game.table_id}/actions", game.seats[0].token
        for kind in ("table_state", "table_created"):
            reply = raw(running.url, "POST", path, {"type": kind, "data": forged}, token=token)
            assert (reply.status, error_of(reply)["code"]) == (409, "illegal_action"), reply.text
            assert "engine alone" in error_of(reply)["message"]
        assert events_of(running.url, game.table_id) == before
    finally:
        stop_server(running, http)
