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
from fairdeal.api.service import Service
from fairdeal.verifier import load_trust, verify_bundle
from fairdeal.verifier.cli import main as verify_main
from fairdeal.verifier.inputs import LIMITS

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
