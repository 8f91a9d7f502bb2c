"""Finding 16 of issue 11: losing the database answers 503, never 500, and loses nothing.

PostgreSQL: bots play Toto21 and Kvitlach against ``python -m fairdeal.api.cli serve`` while the
test ends every connection of the service (``pg_terminate_backend``) again and again, and an
operator exports the log. SQLite: the kernel refuses every write of the running service for a
while (its RLIMIT_FSIZE lowered to 0 from outside; root is held to that limit too, where chmod
would not stop root, nor stop a process writing through a file it already has open). A COMMIT
whose answer is lost: a relay between the service and PostgreSQL cuts the connection at it.

A request answered 503 is sent again with its Idempotency-Key, as a client should (reads too;
creating and joining a table carry no key and are not). Afterwards every 5xx was a 503 in the
one error body with Retry-After; every receipt a 2xx carried is, byte for byte, the event
stored at its seq; every round is finished or voided; the export verifies offline.
"""

import json
import logging
import os
import random
import resource
import signal
import socket
import threading
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest
from psycopg import sql

from bench.harness import Bot, Process, Seated, free_port
from bench.transport import Http, Stats, answers
from fairdeal.api.client import ClientError, Request, Response
from fairdeal.api.http.app import _sweep_once
from fairdeal.api.service.config import Config
from fairdeal.api.service.keystore import load_keys
from fairdeal.api.service.service import Service
from fairdeal.api.storage import open_store
from tests.api.bots import (
    error_of,
    events_of,
    head_seq,
    raw,
    toto21_at_move,
)
from tests.api.conftest import OPERATOR_TOKEN, start_server, stop_server
from tests.api.relay import Listener, shut
from tests.reliability.audit import (
    Deployment,
    Findings,
    export_and_verify,
    resume_and_audit,
    wait_until,
)

BOTS = {"toto21": 2, "kvitlach": 2}
STORM_S = 6.0
EXPORT_EVERY_S = 0.5


# What the clients saw


@dataclass
class ServerErrors:
    """Every 5xx the service answered: a 503 in the one error body, with Retry-After, is how
    it must say the database is away; anything else is a problem."""

    unavailable: int = 0
    problems: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def watch(self, request: Request, reply: Response) -> None:
        if reply.status >= 500:
            self.check(f"{request.method} {request.path}", reply)

    def check(self, request: str, reply: Response) -> None:
        problem = _not_a_clean_503(reply)
        with self.lock:
            if problem:
                self.problems.append(f"{request}: {problem}")
            else:
                self.unavailable += 1


def _not_a_clean_503(reply: Response) -> str | None:
    if reply.status != 503:
        return f"{reply.status} {reply.body[:300]!r}"
    retry_after = reply.headers.get("Retry-After", "")
    if not retry_after.isdigit() or int(retry_after) < 1:
        return f"503 with Retry-After {retry_after!r}"
    try:
        error = error_of(reply)
    except (AssertionError, ValueError) as e:
        return f"503 without the one error body: {reply.body[:300]!r} ({e})"
    outcome = error["details"].get("outcome")
    if error["code"] != "database_unavailable" or outcome not in ("rolled_back", "unknown"):
        return f"503 {error}"
    return None


# Bots under a storm


@dataclass
class Players:
    """Bots playing both games on one service, each request patient with 503s."""

    service: Process
    errors: ServerErrors = field(default_factory=ServerErrors)
    stats: Stats = field(default_factory=Stats)
    stop: threading.Event = field(default_factory=threading.Event)
    tables: list[Seated] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def http(self, seed: float, stop: threading.Event | None = None) -> Http:
        """A client that sends a request answered 503 again, with the same Idempotency-Key,
        when that is safe (the SDK's rule); every 5xx of every try checked by ``errors``."""
        rng = random.Random(seed)
        port, stop = self.service.port, stop or self.stop
        return Http([port], self.stats, rng, 30.0, stop, watch=self.errors.watch)

    def keep(self, seated: Seated) -> None:
        with self.lock:
            self.tables.append(seated)

    def receipts(self) -> int:
        with self.lock:
            return sum(len(t.receipts) for t in self.tables)

    @contextmanager
    def playing(self, seed: int) -> Iterator[None]:
        rng = random.Random(seed)
        deadline = time.monotonic() + 120
        bots = [Bot(self.http(rng.random()), f"{game}-{i}", game, deadline, self.keep)
                for game, count in BOTS.items() for i in range(count)]  # fmt: skip
        threads = [threading.Thread(target=bot.run) for bot in bots]
        for thread in threads:
            thread.start()
        try:
            yield
        finally:
            self.stop.set()
            for thread in threads:
                thread.join(timeout=60)

    def audit(self, deployment: Deployment) -> Findings:
        """Once the bots stopped: resume their rounds, check every receipt, verify the export."""
        resumer = Bot(self.http(1.0, threading.Event()), "resume", "toto21", time.monotonic() + 60)
        findings = resume_and_audit(deployment, resumer, self.service.url, self.tables)
        export_and_verify(self.service.url, deployment.folder, set(), findings)
        return findings


def _assert_clean(players: Players, findings: Findings) -> None:
    assert not players.errors.problems, "\n".join(players.errors.problems[:20])
    assert players.errors.unavailable > 0, "the database's loss was never felt"
    assert not findings.problems, "\n".join(findings.problems[:20])
    assert findings.receipts > 0 and findings.rounds > 0


# PostgreSQL: every connection of the service terminated, again and again


def _terminate_all(admin: psycopg.Connection[Any], name: str) -> int:
    row = admin.execute(
        "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) "
        "FROM pg_stat_activity WHERE application_name = %s",
        (name,),
    ).fetchone()
    return int(row[0]) if row else 0


def _terminating(url: str, name: str, stop: threading.Event, seed: int) -> list[int]:
    """Until ``stop``: every 50-250 ms, end every connection named ``name``; how many each time."""
    rng, ended = random.Random(seed), []
    with psycopg.connect(url, autocommit=True, application_name="finding-16-terminator") as admin:
        while not stop.wait(rng.uniform(0.05, 0.25)):
            ended.append(_terminate_all(admin, name))
    return ended


def _exporting(players: Players, stop: threading.Event) -> list[str]:
    """Until ``stop``: export the whole log (one page) again and again. Each must be a whole
    200 or a clean 503, never a stream cut short."""
    problems = []
    while not stop.wait(EXPORT_EVERY_S):
        try:
            reply = raw(players.service.url, "GET", "/v1/export", token=OPERATOR_TOKEN)
        except ClientError as e:
            problems.append(f"an export failed mid-answer: {e.__cause__!r}")
            continue
        if reply.status != 200:
            players.errors.check("GET /v1/export", reply)
    return problems


def test_finding_16_terminated_postgres_connections_answer_503_not_500(
    postgres_schema: str, tmp_path: Path
) -> None:
    name = f"fairdeal-finding-16-{uuid.uuid4().hex[:12]}"
    deployment = Deployment(tmp_path / "deployment", f"{postgres_schema}&application_name={name}")
    # One page: an export that fails can fail only before its answer starts.
    service = deployment.service(name="finding-16", FAIRDEAL_EXPORT_PAGE="1000000").start()
    players, storm_over = Players(service), threading.Event()
    ended: list[int] = []
    export_problems: list[str] = []
    terminator = threading.Thread(
        target=lambda: ended.extend(_terminating(postgres_schema, name, storm_over, 16))
    )
    exporter = threading.Thread(
        target=lambda: export_problems.extend(_exporting(players, storm_over))
    )
    try:
        with players.playing(seed=16):
            terminator.start()
            exporter.start()
            storm_over.wait(STORM_S)
            storm_over.set()
            terminator.join()
            exporter.join()
        findings = players.audit(deployment)
    finally:
        storm_over.set()
        service.stop()
    print(
        f"terminated {sum(ended)} connections in {len(ended)} rounds; "
        f"503s: {players.errors.unavailable}; {findings.receipts} receipts, "
        f"{findings.rounds} rounds"
    )
    assert sum(ended) > 0
    assert not export_problems, export_problems[:5]
    _assert_clean(players, findings)
    log = (deployment.folder / "finding-16.log").read_text()
    assert "Traceback" not in log, log[log.index("Traceback") - 500 :][:3000]


# SQLite: the kernel refuses the service's writes


@contextmanager
def writes_refused(process: Process) -> Iterator[None]:
    """Every write of the running service's processes (gunicorn's master and workers) to any
    file fails (EFBIG) until the block ends."""
    pids = process.pids()
    limits = {pid: resource.prlimit(pid, resource.RLIMIT_FSIZE) for pid in pids}
    for pid, (_, hard) in limits.items():
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (0, hard))
    try:
        yield
    finally:
        for pid, limit in limits.items():
            resource.prlimit(pid, resource.RLIMIT_FSIZE, limit)


def test_finding_16_sqlite_refusing_writes_answers_503_then_recovers(tmp_path: Path) -> None:
    deployment = Deployment(tmp_path / "deployment", "")
    service = deployment.service(name="finding-16").start()
    players = Players(service)
    try:
        with players.playing(seed=61):
            assert wait_until(lambda: players.receipts() > 50, 20)
            with writes_refused(service):
                assert wait_until(lambda: players.errors.unavailable >= 5, 10)
                refused_at = players.receipts()
            assert wait_until(lambda: players.receipts() > refused_at + 50, 20), "no recovery"
        findings = players.audit(deployment)
    finally:
        service.stop()
    _assert_clean(players, findings)


# A COMMIT whose answer is lost


class CommitCutter(Listener):
    """A TCP relay to PostgreSQL. Once armed, it cuts the connection that sends the next
    COMMIT: after passing it on and before its answer comes back (the server commits, and the
    service cannot know it), or before passing it on (the server rolls back)."""

    COMMIT = b"Q\x00\x00\x00\x0bCOMMIT\x00"  # the simple-query message psycopg sends

    def __init__(self, upstream: tuple[str, int], reaches_server: bool) -> None:
        self.upstream, self.reaches_server = upstream, reaches_server
        self.armed, self.cut = threading.Event(), threading.Event()
        super().__init__()

    def serve(self, client: socket.socket) -> None:
        pair = _Pair(client, socket.create_connection(self.upstream))
        threading.Thread(target=self._to_client, args=(pair,), daemon=True).start()
        self._to_server(pair)

    def _to_server(self, pair: "_Pair") -> None:
        for data in _received(pair.client):
            if self.armed.is_set() and self.COMMIT in data:
                self.armed.clear()
                if not self.reaches_server:
                    self._cut(pair)
                    return
                pair.cut_at_answer = True
            pair.server.sendall(data)
        pair.close()

    def _to_client(self, pair: "_Pair") -> None:
        for data in _received(pair.server):
            if pair.cut_at_answer:
                self._cut(pair)
                return
            pair.client.sendall(data)
        pair.close()

    def _cut(self, pair: "_Pair") -> None:
        self.cut.set()  # before the service can see it and answer
        pair.close()


@dataclass
class _Pair:
    client: socket.socket
    server: socket.socket
    cut_at_answer: bool = False

    def close(self) -> None:
        shut(self.client)
        shut(self.server)


def _received(end: socket.socket) -> Iterator[bytes]:
    while True:
        try:
            data = end.recv(65536)
        except OSError:
            return
        if not data:
            return
        yield data


def _through(url: str, port: int) -> str:
    """``url`` with its host and port replaced by the relay's, in plain TCP."""
    parts = urllib.parse.urlsplit(url)
    user, at, _ = parts.netloc.rpartition("@")
    query = f"{parts.query}&sslmode=disable" if parts.query else "sslmode=disable"
    return parts._replace(netloc=f"{user}{at}127.0.0.1:{port}", query=query).geturl()


def _upstream(url: str) -> tuple[str, int]:
    info = psycopg.conninfo.conninfo_to_dict(url)
    return str(info.get("host") or "127.0.0.1"), int(info.get("port") or 5432)


def _text(events: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(e, sort_keys=True, separators=(",", ":")) for e in events]


@pytest.mark.parametrize(
    "reaches_server", [True, False], ids=["the commit was made", "the commit never arrived"]
)
def test_finding_16_a_commit_whose_answer_was_lost_is_answered_once_when_sent_again(
    postgres_schema: str, tmp_path: Path, reaches_server: bool
) -> None:
    cutter = CommitCutter(_upstream(postgres_schema), reaches_server)
    running, server = start_server(tmp_path, _through(postgres_schema, cutter.port))
    try:
        game, round_id, state = toto21_at_move(running.url)
        seat = game.seats[state["turn"]]
        before = head_seq(running.url, game.table_id)
        stand: dict[str, Any] = {"url": running.url, "method": "POST",
                                 "path": f"/v1/rounds/{round_id}/actions",
                                 "body": {"type": "stand"}, "token": seat.token,
                                 "headers": {"Idempotency-Key": "stand-once"}}  # fmt: skip
        cutter.armed.set()
        lost = raw(**stand)
        assert cutter.cut.is_set()
        assert lost.status == 503, lost.text
        assert lost.headers["Retry-After"] == "1"
        error = error_of(lost)
        assert error["code"] == "database_unavailable"
        assert error["details"] == {"outcome": "unknown"}
        assert (head_seq(running.url, game.table_id) > before) == reaches_server

        again = raw(**stand)
        assert again.status == 200, again.text
        receipts = again.json["events"]
        chain = events_of(running.url, game.table_id)
        assert receipts[0]["event"]["seq"] == before + 1
        assert _text(chain[before + 1 :]) == _text(receipts)  # stored once, as answered
        assert raw(**stand).json == again.json
    finally:
        stop_server(running, server)
        cutter.close()


# A worker started again while PostgreSQL is away


@pytest.fixture
def postgres_database(postgres_url: str) -> Iterator[str]:
    """The URL of a database of the test's own, dropped afterwards: one it may close to every
    connection without touching the databases of other tests."""
    name = f"fairdeal_boot_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        try:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        except psycopg.errors.InsufficientPrivilege as e:
            pytest.skip(f"the test's PostgreSQL user may not create a database: {e}")
    try:
        yield urllib.parse.urlsplit(postgres_url)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            drop = sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)")
            admin.execute(drop.format(sql.Identifier(name)))


@contextmanager
def database_away(admin_url: str, url: str) -> Iterator[None]:
    """Until the block ends, PostgreSQL refuses every new connection to the database of
    ``url`` (ALLOW_CONNECTIONS false holds superusers out too), having ended those it had."""
    name = urllib.parse.urlsplit(url).path.lstrip("/")
    with psycopg.connect(admin_url, autocommit=True) as admin:
        allow = sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS {}")
        admin.execute(allow.format(sql.Identifier(name), sql.SQL("false")))
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        try:
            yield
        finally:
            admin.execute(allow.format(sql.Identifier(name), sql.SQL("true")))


def _workers(service: Process) -> set[int]:
    """The server's gunicorn workers: its processes but the master."""
    assert service.process is not None
    return set(service.pids()) - {service.process.pid}


def _gone(service: Process, log: Path) -> str | None:
    """Why the server is gone (its master exited), with its log's end; None while it runs."""
    assert service.process is not None
    if service.process.poll() is None:
        return None
    return f"the server exited with {service.process.returncode}:\n{log.read_text()[-3000:]}"


@pytest.mark.postgres
def test_finding_16_a_worker_started_again_while_postgres_is_away_answers_503_then_recovers(
    postgres_url: str, postgres_database: str, tmp_path: Path
) -> None:
    """gunicorn starts a worker again (one was killed) while PostgreSQL refuses connections.
    The worker boots all the same and answers 503 in the one error body; the master stays up;
    once the database is back, the service answers 200. (A worker's boot failing on the
    database made gunicorn stop the whole service: "Worker failed to boot".)"""
    deployment = Deployment(tmp_path / "deployment", postgres_database)
    log = deployment.folder / "respawn.log"
    service = deployment.service(name="respawn").start()  # two workers
    paused: int | None = None
    try:
        assert wait_until(lambda: len(_workers(service)) == 2, 30), _workers(service)
        assert wait_until(lambda: answers(service.url, "/readyz"), 30)
        paused, killed = sorted(_workers(service))
        os.kill(paused, signal.SIGSTOP)  # so that only the worker started again may answer
        with database_away(postgres_url, postgres_database):
            os.kill(killed, signal.SIGKILL)
            assert wait_until(lambda: _gone(service, log) or answers(service.url), 30), (
                "no worker answers"
            )
            assert not _gone(service, log), _gone(service, log)
            (respawned,) = _workers(service) - {paused}
            assert respawned != killed
            ready = raw(service.url, "GET", "/readyz", timeout=10)
            assert ready.status == 503 and error_of(ready)["code"] == "not_ready", ready.text
            assert ready.headers["Retry-After"].isdigit()
            read = raw(service.url, "GET", "/v1/log/checkpoint", timeout=10)
            assert _not_a_clean_503(read) is None, _not_a_clean_503(read)
        # The database is back: the worker started during its absence answers alone first.
        assert wait_until(lambda: answers(service.url, "/readyz"), 30), "no recovery"
        os.kill(paused, signal.SIGCONT)
        paused = None
        assert raw(service.url, "GET", "/v1/log/checkpoint", timeout=10).status == 200
        assert not _gone(service, log), _gone(service, log)
        assert respawned in _workers(service) and len(_workers(service)) == 2
    finally:
        if paused is not None:
            with suppress(ProcessLookupError):  # gone with a master that gave up
                os.kill(paused, signal.SIGCONT)
        service.stop()
    text = log.read_text()
    assert "Worker failed to boot" not in text and "Traceback" not in text, text[-3000:]


# The sweeper


def test_finding_16_the_sweeper_logs_one_line_when_the_database_is_away(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    refused = f"postgresql://127.0.0.1:{free_port()}/test?connect_timeout=3"
    config = Config(instance_path=tmp_path / "instance", database_url=refused)
    service = Service(open_store(refused), load_keys(config), config)
    caplog.clear()  # the development key's warning
    with caplog.at_level(logging.WARNING, logger="fairdeal"):
        _sweep_once(service)
        _sweep_once(service)  # and it keeps going
    assert [r.levelname for r in caplog.records] == ["WARNING", "WARNING"]
    assert all(r.exc_info is None for r in caplog.records)
    assert "the database is unavailable: connection failed" in caplog.records[0].getMessage()


def test_finding_16_serve_with_the_database_away_exits_with_one_line(tmp_path: Path) -> None:
    refused = f"postgresql://127.0.0.1:{free_port()}/test?connect_timeout=3"
    service = Deployment(tmp_path / "deployment", refused).service(name="away")
    with pytest.raises(RuntimeError, match="exited with 1"):
        service.start()
    log = (tmp_path / "deployment" / "away.log").read_text()
    assert log.startswith("fairdeal: error: connection failed:"), log
    assert "Traceback" not in log
