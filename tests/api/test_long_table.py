"""One long Kvitlach table through the real service (a real SQLite file): every round's
proof stays the same size however long the table has run (bounded proofs), each verifies
offline, and the whole export verifies with each event checked once."""

import json
import random
import statistics
from pathlib import Path
from typing import Any

import pytest

from bench.long_table import Clock, play_rounds, seat_table, service_on
from fairdeal.api.service.keystore import load_keys
from fairdeal.api.service.service import Service
from fairdeal.api.storage import open_store
from fairdeal.verifier import load_trust, verify_bundle
from fairdeal.verifier.cli import main as verify_main
from fairdeal.verifier.inputs import LIMITS
from tests.api.bots import play_toto21_round, toto21_table
from tests.api.conftest import Server

SEATS = 4
# A Kvitlach round of 4 seats logs a few dozen events (at most ~45 seen); with the
# table_state it starts at, a round's bundle stays under this whatever its number.
MAX_BUNDLE_EVENTS = 80


def _compact(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"))


def _long_table(tmp_path: Path, rounds: int) -> tuple[Service, str, list[str]]:
    """The service with one Kvitlach table of ``rounds`` rounds: the service, the table
    id and the round ids."""
    service = service_on(tmp_path / "instance", Clock())
    tokens = seat_table(service, SEATS, {})
    played = play_rounds(service, tokens, rounds, random.Random(1))
    assert len(played) == rounds
    return service, tokens[-1], played


def _check_long_table(
    service: Service,
    table_id: str,
    rounds: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    keys = service.published.key_list()
    trust = load_trust([keys["log"]["verifier_key"]])
    table_events = service.live[table_id].table.head.next_seq
    with service.store.reader() as txn:
        assert len(list(txn.events(table_id))) == table_events

    # Every round's bundle: from the table_state after the previous round's reveal (round
    # 1's after the last seat's join), a bounded number of events, valid on its own.
    sizes = []
    for number, round_id in enumerate(rounds, 1):
        bundle = service.published.bundle(round_id)
        events = bundle["events"]
        first, head = events[0]["event"], events[-1]["event"]
        assert bundle["format"] == "fairdeal-bundle/2"
        assert first["type"] == "table_state", (number, first)
        assert (head["type"], head["round"]) == ("round_revealed", round_id)
        assert len(events) <= MAX_BUNDLE_EVENTS, (number, len(events))
        assert len(_compact(bundle).encode()) <= LIMITS.max_line_bytes
        report = verify_bundle(bundle, trust)
        assert report.verdict == "valid", (number, report.codes())
        assert report.events == len(events)
        sizes.append(len(_compact(bundle).encode()))
    # No growth with the round number: a round's size varies with its play, so compare
    # the median of the last rounds with the first's, and the table_state each starts at.
    first, last = statistics.median(sizes[:20]), statistics.median(sizes[-20:])
    assert last <= 1.5 * first, (first, last)
    states = [len(_compact(service.published.bundle(r)["events"][0])) for r in rounds]
    assert max(states) <= states[0] + 64, (states[0], max(states))  # digits, not entries

    # The whole export: every leaf's bundle (the seats' heads, then the rounds'), each
    # event of the table in exactly one line, every line within the verifier's limits.
    path = tmp_path / "export.jsonl"
    seqs: list[int] = []
    lines = 0
    with path.open("w") as out:
        for bundle in service.published.export(None, None, None):
            line = _compact(bundle)
            assert len(line.encode()) + 1 <= LIMITS.max_line_bytes
            assert len(bundle["events"]) <= min(MAX_BUNDLE_EVENTS, LIMITS.max_events)
            assert len(bundle["keys"]) <= LIMITS.max_keys
            assert len(bundle["log"]["inclusion_proof"]) <= LIMITS.max_proof_hashes
            seqs.extend(e["event"]["seq"] for e in bundle["events"])
            out.write(line + "\n")
            lines += 1
    assert lines == SEATS + len(rounds)  # a head per seat joined, then per round
    assert seqs == list(range(table_events))  # each event once, in order

    checkpoint = service.published.checkpoint()
    assert checkpoint["size"] == lines
    (tmp_path / "checkpoint.txt").write_text(checkpoint["note"])
    (tmp_path / "key.pem").write_text(keys["keys"][0]["public_key_pem"])
    args = ["--key", str(tmp_path / "key.pem"), "--key", keys["log"]["verifier_key"]]
    args += ["--checkpoint", str(tmp_path / "checkpoint.txt"), "--json", "--jobs", "1"]
    capsys.readouterr()
    status = verify_main([*args, str(path)])
    report = json.loads(capsys.readouterr().out)
    assert (status, report["verdict"], report["findings"]) == (0, "valid", [])
    assert report["events"] == table_events
    assert report["rounds"] == lines


def test_a_table_of_150_rounds_has_bounded_proofs_and_a_verifying_export(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    service, table_id, rounds = _long_table(tmp_path, 150)
    _check_long_table(service, table_id, rounds, tmp_path, capsys)


@pytest.mark.slow
def test_a_table_of_5000_rounds_has_bounded_proofs_and_a_verifying_export(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    service, table_id, rounds = _long_table(tmp_path, 5_000)
    _check_long_table(service, table_id, rounds, tmp_path, capsys)


def _views(service: Service, tokens: dict[int, str]) -> list[Any]:
    table_id = tokens[-1]
    return [service.table_view(table_id, tokens.get(seat)) for seat in (-2, *range(SEATS))]


def test_a_process_new_to_a_long_table_reads_its_last_round_not_its_past(tmp_path: Path) -> None:
    """A second service process on the same database loads the table from the table_state
    before its last round (SPEC 6.6), and shows exactly what the first shows: at rest after
    a round, and in the middle of one."""
    clock = Clock()
    first = service_on(tmp_path / "instance", clock)
    tokens = seat_table(first, SEATS, {})
    rounds = play_rounds(first, tokens, 40, random.Random(3))
    table_id = tokens[-1]
    second = service_on(tmp_path / "instance", clock)
    with second.store.reader() as txn:
        resumed = second.live._resumed(txn, table_id)
        assert resumed is not None
        opened = txn.last_round_start(table_id)
    assert opened is not None and opened[0] == len(rounds)
    assert resumed.table.head.next_seq == opened[1]  # from there on: one round's events
    assert _views(second, tokens) == _views(first, tokens)
    with second.store.reader() as txn:
        assert second.live.load(txn, table_id).table.head == first.live[table_id].table.head

    round_id = first.open_round(table_id, tokens[0])["round_id"]
    first.command(table_id, tokens[1], "client_seed", {"seed": "mid-round"}, round_id=round_id)
    third = service_on(tmp_path / "instance", clock)
    assert _views(third, tokens) == _views(first, tokens)
    with third.store.reader() as txn:
        loaded = third.live.load(txn, table_id)
    assert (loaded.current_round, loaded.rounds_opened) == (round_id, len(rounds) + 1)


def test_a_process_new_to_a_toto21_table_shows_what_the_first_shows(server: Server) -> None:
    game = toto21_table(server.url, {"target": 10})
    for seed in range(3):
        play_toto21_round(game, random.Random(seed))
    table_id = game.table_id
    tokens = {-1: table_id, **{seat: client.token for seat, client in game.seats.items()}}
    config = server.config
    fresh = Service(open_store(config.store_url), load_keys(config), config, server.clock)
    with fresh.store.reader() as txn:
        assert fresh.live._resumed(txn, table_id) is not None
    running = server.service
    assert _views(fresh, tokens) == _views(running, tokens)
