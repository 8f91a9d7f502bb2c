"""The service with witnesses (SPEC 10.5, 13.3): real ``fairdeal witness`` apps and services on
loopback, each with its own SQLite file. Every checkpoint is cosigned off the request path; a
witness that is down or hangs never holds up play; and an operator that shows two different,
individually valid logs under one key gets at most one of them cosigned by an honest witness,
the other refused by the verifier when it requires that witness."""

import io
import json
import logging
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from fairdeal.api.service.cosigning import INTERVAL_S, Schedule
from fairdeal.api.witness.app import create_witness_app
from fairdeal.cosignature import CosignatureVerifier, cosignatures
from fairdeal.keys import load_private_key
from fairdeal.note import NoteSigner, NoteVerifier
from fairdeal.verifier.cli import main as verify_main
from tests.api.bots import play_toto21_round, raw, toto21_table
from tests.api.conftest import OPERATOR_TOKEN, ManualClock, Server, serving

ORIGIN = "test.fairdeal/log"
WITNESS_TIME = 1_767_225_600  # the witnesses' clock, POSIX seconds
FLUSH_S = 10.0


class _Quiet(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


@dataclass
class RunningWitness:
    url: str
    verifier: CosignatureVerifier
    app: Any

    def state(self) -> dict[str, Any]:
        return raw(self.url, "GET", "/").json  # type: ignore[no-any-return]


@contextmanager
def witness(
    folder: Path,
    name: str,
    log: NoteVerifier,
    port: int = 0,
    gate: threading.Event | None = None,
    clock: Callable[[], int] = lambda: WITNESS_TIME,
    busy: int = 0,
) -> Iterator[RunningWitness]:
    """A witness of ``log`` on loopback; with ``gate``, each request waits until it is set;
    the first ``busy`` requests are answered 503, as a witness whose database is locked."""
    app = create_witness_app(folder, [log], name=name, clock=clock)
    wsgi: Callable[..., Any] = app
    refusals = [busy]
    if gate is not None or busy:

        def wsgi(environ: Any, start_response: Any) -> Any:
            if gate is not None:
                gate.wait()
            if refusals[0] > 0:
                refusals[0] -= 1
                start_response("503 Service Unavailable", [("Retry-After", "1")])
                return [b"the witness's database is locked: try again\n"]
            return app(environ, start_response)

    http: BaseWSGIServer = make_server(
        "127.0.0.1", port, wsgi, threaded=True, request_handler=_Quiet
    )
    thread = threading.Thread(target=http.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield RunningWitness(
            f"http://127.0.0.1:{http.server_port}",
            CosignatureVerifier.from_key_string(app.extensions["witness"].cosigner.verifier_key()),
            app,
        )
    finally:
        http.shutdown()
        http.server_close()


def log_key(key_file: Path) -> NoteVerifier:
    return NoteSigner(ORIGIN, load_private_key(key_file.read_bytes())).verifier


def entries(*witnesses: RunningWitness) -> str:
    return ",".join(f"{w.url} {w.verifier.key_string()}" for w in witnesses)


def witnessed_service(
    folder: Path, key_file: Path, *witnesses: RunningWitness, **settings: Any
) -> AbstractContextManager[Server]:
    """The service on ``key_file`` and ORIGIN, sending its checkpoints to ``witnesses``."""
    return serving(
        folder, key_file=str(key_file), log_origin=ORIGIN, witnesses=entries(*witnesses), **settings
    )


def flush(server: Server) -> None:
    assert server.app.extensions["fairdeal.collector"].flush(FLUSH_S)


def play_rounds(server: Server, rounds: int, seed: int) -> list[str]:
    game = toto21_table(server.url, {"target": 10})
    rng = random.Random(seed)
    return [play_toto21_round(game, rng)[0] for _ in range(rounds)]


def cosigners(note: str, *witnesses: RunningWitness) -> dict[str, int]:
    return {c.name: c.timestamp for c in cosignatures(note, [w.verifier for w in witnesses])}


def verify(bundle: dict[str, Any], folder: Path, key: NoteVerifier, *args: str) -> tuple[int, str]:
    """fairdeal-verify's exit status and its report's finding codes, on the bundle."""
    path = folder / "bundle.json"
    path.write_text(json.dumps(bundle))
    out = io.StringIO()
    with redirect_stdout(out):
        status = verify_main([str(path), "--key", key.key_string(), "--json", *args])
    return status, " ".join(sorted({f["code"] for f in json.loads(out.getvalue())["findings"]}))


def test_both_witnesses_cosign_the_checkpoint_and_every_bundle_carries_it(
    tmp_path: Path, key_file: Path
) -> None:
    log = log_key(key_file)
    with (
        witness(tmp_path / "w1", "w1.test/witness", log) as w1,
        witness(tmp_path / "w2", "w2.test/witness", log) as w2,
        witnessed_service(tmp_path / "service", key_file, w1, w2) as server,
    ):
        rounds = play_rounds(server, 3, seed=1)
        flush(server)
        checkpoint = raw(server.url, "GET", "/v1/log/checkpoint").json
        with server.service.store.reader() as txn:
            assert checkpoint["size"] == txn.latest_checkpoint().size  # the latest, cosigned
        assert cosigners(checkpoint["note"], w1, w2) == {
            "w1.test/witness": WITNESS_TIME,
            "w2.test/witness": WITNESS_TIME,
        }
        for round_id in rounds:
            bundle = raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
            assert bundle["log"]["checkpoint"] == checkpoint["note"]
            for w in (w1, w2):
                assert w.state()["logs"][0]["size"] == checkpoint["size"]
        quorum = ["--witness", w1.verifier.key_string(), "--witness", w2.verifier.key_string()]
        assert verify(bundle, tmp_path, log, *quorum) == (0, "")
        export = tmp_path / "export.jsonl"
        export.write_bytes(raw(server.url, "GET", "/v1/export", token=OPERATOR_TOKEN).body)
        status = verify_main([str(export), "--key", log.key_string(), "--jobs", "1", *quorum])
        assert status == 0  # every line of the export under a checkpoint both cosigned


def test_a_witness_that_is_down_or_hangs_never_holds_up_play(
    tmp_path: Path, key_file: Path
) -> None:
    log = log_key(key_file)
    gate = threading.Event()
    with (
        witness(tmp_path / "w1", "w1.test/witness", log, gate=gate) as hanging,
        witnessed_service(tmp_path / "service", key_file, hanging, witness_timeout_s=60) as server,
    ):
        collector = server.app.extensions["fairdeal.collector"]
        rounds = play_rounds(server, 2, seed=2)  # every request answered while it hangs
        assert not collector.flush(0.2)  # its thread is still waiting for the witness
        before = raw(server.url, "GET", "/v1/log/checkpoint").json
        assert cosigners(before["note"], hanging) == {}
        gate.set()
        flush(server)
        after = raw(server.url, "GET", f"/v1/rounds/{rounds[-1]}/bundle").json
        assert cosigners(after["log"]["checkpoint"], hanging) == {"w1.test/witness": WITNESS_TIME}


def test_a_witness_down_is_retried_and_caught_up_once_it_answers(
    tmp_path: Path, key_file: Path
) -> None:
    log = log_key(key_file)
    with witness(tmp_path / "probe", "w1.test/witness", log) as probe:  # its port and key
        port, verifier = int(probe.url.rsplit(":", 1)[1]), probe.verifier
    down = RunningWitness(f"http://127.0.0.1:{port}", verifier, None)
    with witnessed_service(tmp_path / "service", key_file, down) as server:
        play_rounds(server, 1, seed=3)
        flush(server)  # a pass ran: the witness is unreachable
        metrics = raw(server.url, "GET", "/metrics").text
        assert (
            'fairdeal_witness_failures_total{reason="unreachable",witness="w1.test/witness"}'
            in metrics
        )
        with witness(tmp_path / "probe", "w1.test/witness", log, port=port) as back:
            flush(server)
            note = raw(server.url, "GET", "/v1/log/checkpoint").json["note"]
            assert cosigners(note, back) == {"w1.test/witness": WITNESS_TIME}


def test_a_witness_whose_clock_runs_behind_is_asked_again_until_it_has_passed_the_checkpoint(
    tmp_path: Path, key_file: Path
) -> None:
    """A witness 2 s slow cosigns each checkpoint 2 s before the log signed it: kept, every
    fresh bundle would say that the witness vouched for its round before it was logged
    (witness.time). The service keeps none of those, and asks again until it has one."""
    log, service_clock = log_key(key_file), ManualClock()
    behind = {"ms": 2_000}

    def slow() -> int:
        return (service_clock() - behind["ms"]) // 1000

    with (
        witness(tmp_path / "w1", "w1.test/witness", log, clock=slow) as w1,
        witnessed_service(tmp_path / "service", key_file, w1, clock=service_clock) as server,
    ):
        (round_id,) = play_rounds(server, 1, seed=5)
        flush(server)
        assert w1.state()["logs"][0]["size"] >= 1  # it cosigned, behind the log's clock
        bundle = raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
        assert cosigners(bundle["log"]["checkpoint"], w1) == {}  # not kept: not published
        required = ("--witness", w1.verifier.key_string())
        assert verify(bundle, tmp_path, log, *required) == (1, "witness.quorum")
        metrics = raw(server.url, "GET", "/metrics").text
        assert 'reason="clock_behind",witness="w1.test/witness"' in metrics
        behind["ms"] = 0  # its clock set right (or the log's idle time passing)
        flush(server)
        flush(server)  # the retry comes after the first backoff, 1 s
        bundle = raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
        assert set(cosigners(bundle["log"]["checkpoint"], w1)) == {"w1.test/witness"}
        assert verify(bundle, tmp_path, log, *required) == (0, "")


def test_a_busy_witness_is_asked_again_and_not_taken_for_a_refusal(
    tmp_path: Path, key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    log = log_key(key_file)
    with (
        witness(tmp_path / "w1", "w1.test/witness", log, busy=1) as w1,
        witnessed_service(tmp_path / "service", key_file, w1) as server,
    ):
        (round_id,) = play_rounds(server, 1, seed=7)
        flush(server)
        metrics = raw(server.url, "GET", "/metrics").text
        assert 'reason="busy",witness="w1.test/witness"' in metrics
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        flush(server)
        flush(server)  # after the first backoff, 1 s
        bundle = raw(server.url, "GET", f"/v1/rounds/{round_id}/bundle").json
        assert set(cosigners(bundle["log"]["checkpoint"], w1)) == {"w1.test/witness"}


def test_a_cosignature_of_time_0_is_never_kept(tmp_path: Path, key_file: Path) -> None:
    """tlog-witness: a witness's cosignature MUST NOT omit its time (a zero one)."""
    log = log_key(key_file)
    with (
        witness(tmp_path / "w1", "w1.test/witness", log, clock=lambda: 0) as w1,
        witnessed_service(tmp_path / "service", key_file, w1) as server,
    ):
        play_rounds(server, 1, seed=6)
        flush(server)
        assert w1.state()["logs"][0]["size"] >= 1
        with server.service.store.reader() as txn:
            latest = txn.latest_checkpoint().size
            assert txn.cosignature_lines(latest) == []
        note = raw(server.url, "GET", "/v1/log/checkpoint").json["note"]
        assert cosigners(note, w1) == {}


def test_a_split_view_gets_one_view_cosigned_and_the_other_refused_by_the_verifier(
    tmp_path: Path, key_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """One key, one origin, two databases: two logs each valid alone, shown to two players.
    The one honest witness cosigns the first it sees and refuses the other (a fork)."""
    log = log_key(key_file)
    with witness(tmp_path / "w1", "w1.test/witness", log) as honest:
        settings = {"key_file": str(key_file), "log_origin": ORIGIN, "witnesses": entries(honest)}
        with serving(tmp_path / "a", **settings) as a, serving(tmp_path / "b", **settings) as b:
            shown_to_alice = play_rounds(a, 2, seed=4)
            flush(a)
            with caplog.at_level(logging.ERROR, logger="fairdeal.witness"):
                shown_to_bob = play_rounds(b, 2, seed=5)
                flush(b)
            assert any("refused" in r.getMessage() for r in caplog.records)
            assert honest.state()["logs"][0]["refusals"] >= 1  # kept as evidence
            alice = raw(a.url, "GET", f"/v1/rounds/{shown_to_alice[-1]}/bundle").json
            bob = raw(b.url, "GET", f"/v1/rounds/{shown_to_bob[-1]}/bundle").json
    # Each log alone is valid under the operator's key ...
    assert verify(alice, tmp_path, log) == (0, "")
    assert verify(bob, tmp_path, log) == (0, "")
    # ... but only one of them was witnessed.
    required = ("--witness", honest.verifier.key_string(), "--witness-quorum", "1")
    assert verify(alice, tmp_path, log, *required) == (0, "")
    assert verify(bob, tmp_path, log, *required) == (1, "witness.quorum")


def test_every_witness_is_sent_the_same_size_within_an_interval() -> None:
    """While the log grows, witnesses asked at slightly different moments of one interval
    are sent one size, so that their cosignatures meet on one checkpoint (a quorum)."""
    now = [10.1]  # inside an interval, away from its edges
    schedule = Schedule(lambda: now[0])
    assert schedule.size(100) == 100  # the interval's first request fixes it
    now[0] += INTERVAL_S / 4
    assert schedule.size(103) == 100  # another witness, the log grown since
    now[0] += INTERVAL_S
    assert schedule.size(103) == 103  # the next interval: the latest again
    assert schedule.size(110) == 103
