"""What the benchmarks (and the reliability tests) share: servers in their own processes, bots
that play both games over HTTP (bench/transport.py, the SDK's transport), and the figures
they print.

A server is started as a separate process on a loopback port, so that load and service do not
share a GIL, and is ready when ``/healthz`` answers. ``python -m bench.harness serve ...`` (from
the repository root) runs the bare-Flask baseline or fairdeal itself; the reliability tests
start ``python -m fairdeal.api.cli serve`` instead, the command a deployment runs.

Bots play whole tables of Toto21 and Kvitlach with random legal moves, as ``fairdeal demo``
does: each looks at the seats' views, sends one move, and keeps every receipt. Every POST
after the table's seats carries an Idempotency-Key, so a request whose answer was lost (a
server killed mid-request) is sent again and answered once. Requests go to a random port of
the ones given: several service processes share one table. The bots do not check receipts as
they come (the SDK's ``SeatClient`` does): the load they make is the service's, not theirs;
the reliability tests check every receipt afterwards.
"""

import argparse
import contextlib
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.transport import PAUSE_S, Http, Response, Stats, Unreachable, answers
from fairdeal.protocol import JOINER_ACCEPTED, JOINER_REJECTED, SEAT_JOINED, SEAT_LEFT

ROOT = Path(__file__).resolve().parent.parent
MAX_MOVES_PER_ROUND = 300
MAX_ROUNDS_PER_TABLE = 40
TOTO21 = {"target": 10, "stake": 10}
KVITLACH = {"bank_funding": 100, "decks": 2}
KVITLACH_SEATS, KVITLACH_BUY_IN = 3, 1000
# Moves a bot never picks: seating is done once, at the start.
NOT_PLAYED = {SEAT_LEFT, SEAT_JOINED, JOINER_ACCEPTED, JOINER_REJECTED}


# Servers


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Process:
    """A server process on a loopback port."""

    argv: list[str]
    port: int
    env: dict[str, str]
    log: Path | None = None
    process: subprocess.Popen[bytes] | None = None
    ready_path: str = "/healthz"  # answers 200 once the server is up

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> "Process":
        sink = self.log.open("ab") if self.log else subprocess.DEVNULL
        try:
            # A process group of its own: under gunicorn, the server is a master and workers.
            self.process = subprocess.Popen(
                self.argv,
                cwd=ROOT,
                env=self.env,
                stdout=sink,
                stderr=sink,
                start_new_session=True,
            )
        finally:
            if self.log:
                sink.close()  # type: ignore[union-attr]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.argv} exited with {self.process.returncode}")
            if answers(self.url, self.ready_path):
                return self
            time.sleep(0.02)
        self.kill()
        raise RuntimeError(f"{self.argv} did not answer on port {self.port}")

    def kill(self) -> None:
        """SIGKILL to every process of the server: no clean-up, no flush; what was committed
        must be all that counts."""
        if self.process is not None and self.process.returncode is None:  # its group is ours
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        if self.process is not None:
            self.process.wait(timeout=30)

    def pids(self) -> list[int]:
        """The server's processes (its process group): under gunicorn, its master and its
        workers, which answer the requests."""
        assert self.process is not None
        found = []
        for entry in Path("/proc").iterdir():  # Linux
            with contextlib.suppress(ValueError, ProcessLookupError):
                if os.getpgid(int(entry.name)) == self.process.pid:
                    found.append(int(entry.name))
        return found

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def bench_server(
    which: str, port: int, folder: str, database_url: str = "", **settings: str
) -> Process:
    """The baseline ("bare") or fairdeal, as ``serve`` runs them, not yet started;
    ``settings``: fairdeal's Config fields as text (key_file, witnesses)."""
    argv = [sys.executable, "-m", "bench.harness", "serve", which, "--port", str(port)]
    argv += ["--folder", folder, "--database-url", database_url]
    for name, value in settings.items():
        argv += [f"--{name.replace('_', '-')}", value]
    return Process(argv, port, dict(os.environ))


def serve(which: str, port: int, folder: str, database_url: str, **settings: str) -> None:
    """Run one app on loopback with werkzeug's threaded server (the tests' in-process one)."""
    from werkzeug.serving import make_server

    # A thread that waits on fsync while holding the database lock should get the GIL back
    # soon after; the default 5 ms switch interval lets busy HTTP threads keep it longer.
    sys.setswitchinterval(0.0005)
    if which == "bare":
        app = bare_app(folder, database_url)
    else:
        from fairdeal.api.http.app import create_app
        from fairdeal.api.service.config import Config

        config = Config(
            instance_path=Path(folder),
            database_url=database_url,
            sweep_interval_s=0,
            rate_limit="",
            **settings,
        )
        app = create_app(config)
    make_server("127.0.0.1", port, app, threaded=True).serve_forever()


def bare_app(folder: str, database_url: str) -> Any:
    """The baseline: one durable insert per request, on SQLite (WAL, synchronous=FULL, BEGIN
    IMMEDIATE) or, given a PostgreSQL URL, in one transaction there."""
    from flask import Flask

    app = Flask("bare")
    insert = _postgres_insert(database_url) if database_url else _sqlite_insert(folder)

    @app.post("/insert")
    def endpoint() -> dict[str, int]:
        return {"id": insert("x" * 200)}

    @app.get("/healthz")
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    return app


def _sqlite_insert(folder: str) -> Callable[[str], int]:
    import sqlite3

    path = os.path.join(folder, "bare.sqlite3")
    local = threading.local()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY, body TEXT)")

    def insert(body: str) -> int:
        if not hasattr(local, "db"):
            local.db = sqlite3.connect(path, isolation_level=None, timeout=30)
            local.db.execute("PRAGMA journal_mode=WAL")
            local.db.execute("PRAGMA synchronous=FULL")
        local.db.execute("BEGIN IMMEDIATE")
        cursor = local.db.execute("INSERT INTO hits (body) VALUES (?)", (body,))
        local.db.execute("COMMIT")
        return cursor.lastrowid or 0

    return insert


def _postgres_insert(url: str) -> Callable[[str], int]:
    import psycopg

    local = threading.local()
    with psycopg.connect(url, autocommit=True) as db:
        db.execute("CREATE TABLE IF NOT EXISTS hits (id BIGSERIAL PRIMARY KEY, body TEXT)")

    def insert(body: str) -> int:
        if not hasattr(local, "db"):
            local.db = psycopg.connect(url, autocommit=False)
        with local.db.transaction():
            row = local.db.execute("INSERT INTO hits (body) VALUES (%s) RETURNING id", (body,))
            return int(row.fetchone()[0])

    return insert


# Bots


@dataclass
class Seated:
    """A table a bot plays: its seats' tokens, and every receipt it was given."""

    table_id: str
    game: str
    tokens: dict[int, str]
    receipts: list[dict[str, Any]] = field(default_factory=list)


Keep = Callable[[Seated], None]


class Bot:
    """Plays tables one after another until ``deadline``: seats, rounds, random legal moves."""

    def __init__(
        self, http: Http, name: str, game: str, deadline: float, keep: Keep | None = None
    ) -> None:
        self.http, self.name, self.game, self.deadline = http, name, game, deadline
        self.rng = http.rng
        self.keep = keep or (lambda seated: None)
        self.sent = 0

    def running(self) -> bool:
        return time.monotonic() < self.deadline and not self.http.stop.is_set()

    def run(self) -> None:
        try:
            while self.running():
                seated = self.seat()
                if seated is None:
                    time.sleep(PAUSE_S)  # a server away, or a table refused: try another
                else:
                    self.play(seated)
        except Unreachable:
            return  # stopped while the server was away

    def seat(self) -> Seated | None:
        """A new table with every seat taken; None if an answer was lost (a join's token
        cannot be asked for again: that table is left as it is)."""
        create: dict[str, Any] = {"game": self.game}
        create.update(
            {"options": TOTO21}
            if self.game == "toto21"
            else {"options": KVITLACH, "join": {"buy_in": KVITLACH_BUY_IN}}
        )
        try:
            created = self.http.call("POST", "/v1/tables", create)
            if created.status != 201:
                return None
            table_id = created.json["table_id"]
            seated = Seated(table_id, self.game, {0: created.json["token"]}, [])
            seated.receipts += created.json["events"]
            self.keep(seated)  # its receipts count even if a join's answer is lost
            join = {} if self.game == "toto21" else {"buy_in": KVITLACH_BUY_IN}
            for _ in range(1 if self.game == "toto21" else KVITLACH_SEATS - 1):
                # Never sent twice (it carries no key): a lost answer leaves the table as it is.
                joined = self.http.call("POST", f"/v1/tables/{table_id}/seats", {"join": join})
                seated.tokens[joined.json["seat"]] = joined.json["token"]
                seated.receipts += joined.json["events"]
        except (Unreachable, KeyError, TypeError, ValueError):
            return None
        if self.game == "toto21":
            path = f"/v1/tables/{table_id}/seats/1/decision"
            if self.post(seated, path, {"accept": True}, 0).status != 200:
                return None
        return seated

    def post(self, seated: Seated, path: str, body: Any, seat: int) -> Response:
        """A POST with a fresh Idempotency-Key, sent again (same key) if its answer is lost."""
        self.sent += 1
        key = f"{self.name}-{self.sent}"
        reply = self.http.call("POST", path, body, seated.tokens[seat], key)
        if reply.status < 300:
            seated.receipts += reply.json.get("events", [])
        return reply

    def play(self, seated: Seated) -> None:
        for _ in range(MAX_ROUNDS_PER_TABLE):
            if not self.running():
                return
            opener = min(seated.tokens)
            opened = self.post(seated, f"/v1/tables/{seated.table_id}/rounds", {}, opener)
            if opened.status != 201:
                return  # the match is over, or someone is broke: next table
            self.finish(seated, opened.json["round_id"])

    def finish(self, seated: Seated, round_id: str) -> bool:
        """Move until the round is revealed; False if it was not (time ran out, or stuck)."""
        for _ in range(MAX_MOVES_PER_ROUND):
            if not self.running():
                return False
            move = self.next_move(seated, round_id)
            if move is None:
                return self.revealed(seated, round_id)
            seat, kind = move
            self.send(seated, round_id, seat, kind)
        return False

    def next_move(self, seated: Seated, round_id: str) -> tuple[int, str] | None:
        """A seat with something to do, and one of its moves, at random."""
        seats = list(seated.tokens)
        self.rng.shuffle(seats)
        for seat in seats:
            view = self.http.call("GET", f"/v1/tables/{seated.table_id}", token=seated.tokens[seat])
            if view.status != 200 or view.json.get("current_round") != round_id:
                return None
            legal = [k for k in view.json["legal_actions"] if k not in NOT_PLAYED]
            if legal:
                return seat, self.rng.choice(legal)
        return None

    def send(self, seated: Seated, round_id: str, seat: int, kind: str) -> Response:
        table = seated.table_id
        if kind == "client_seed":
            body: dict[str, Any] = {"seed": f"{self.name}-{self.rng.getrandbits(64):x}"}
            return self.post(seated, f"/v1/rounds/{round_id}/seeds", body, seat)
        if kind == "banker_exit":
            return self.post(seated, f"/v1/tables/{table}/actions", {"type": kind}, seat)
        data = {"amount": self.rng.randint(1, 20)} if kind == "bet" else {}
        path = f"/v1/rounds/{round_id}/actions"
        reply = self.post(seated, path, {"type": kind, "data": data}, seat)
        if kind == "bet" and reply.status == 422:
            reply = self.post(seated, path, {"type": kind, "data": {"amount": 1}}, seat)
        return reply

    def revealed(self, seated: Seated, round_id: str) -> bool:
        return any(
            e["event"]["type"] == "round_revealed" and e["event"]["round"] == round_id
            for e in seated.receipts[-20:]
        )

    def resume(self, seated: Seated) -> bool:
        """Finish the table's current round, if one is under way (after a crash)."""
        view = self.http.call("GET", f"/v1/tables/{seated.table_id}", token=seated.tokens[0])
        round_id = view.json.get("current_round")
        current = (view.json.get("view") or {}).get("round") or {}
        if round_id is None or current.get("revealed"):
            return True
        return self.finish(seated, round_id)


def run_bots(bots: Sequence[Bot]) -> float:
    """Run every bot on its own thread; the seconds they took together."""
    return run_threads([threading.Thread(target=bot.run, name=bot.name) for bot in bots])


def run_inserts(
    ports: list[int], stats: Stats, rng: random.Random, deadline: float, threads: int
) -> float:
    """``threads`` loops of baseline inserts until ``deadline``; the seconds they took."""

    def work(seed: float) -> None:
        http = Http(ports, stats, random.Random(seed))
        while time.monotonic() < deadline:
            http.call("POST", "/insert", {"x": 1})

    return run_threads(
        [threading.Thread(target=work, args=(rng.random(),)) for _ in range(threads)]
    )


def run_threads(threads: Sequence[threading.Thread]) -> float:
    """Start every thread, then wait for them all; the seconds they took together."""
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


# Figures


def summary(latencies: Sequence[float], elapsed: float) -> dict[str, float]:
    ordered = sorted(latencies) or [0.0]
    return {
        "rate": len(latencies) / elapsed,
        "p50": statistics.median(ordered) * 1000,
        "p99": ordered[max(0, int(len(ordered) * 0.99) - 1)] * 1000,
        "count": len(latencies),
    }


def line(label: str, figures: Mapping[str, float], errors: Mapping[str, int] | None) -> str:
    return (
        f"{label:28} {figures['rate']:8.1f} actions/s  p50 {figures['p50']:6.1f} ms  "
        f"p99 {figures['p99']:6.1f} ms  ({figures['count']:.0f} requests, "
        f"errors: {dict(errors or {}) or 'none'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="serve one benchmark app (internal)")
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve")
    run.add_argument("which", choices=("bare", "fairdeal"))
    run.add_argument("--port", type=int, required=True)
    run.add_argument("--folder", required=True)
    run.add_argument("--database-url", default="")
    run.add_argument("--key-file", default="")
    run.add_argument("--witnesses", default="")
    args = parser.parse_args()
    serve(
        args.which,
        args.port,
        args.folder,
        args.database_url,
        key_file=args.key_file,
        witnesses=args.witnesses,
    )


if __name__ == "__main__":
    main()


@contextmanager
def postgres_schema(url: str, prefix: str = "fairdeal_bench") -> Iterator[str]:
    """A URL whose search_path is a fresh schema, dropped afterwards."""
    import psycopg
    from psycopg import sql

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(name)))
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{name}"
    finally:
        drop_schema(url, name)


def drop_schema(url: str, name: str, attempts: int = 3) -> None:
    """Drop the schema ``name``, on a new connection if one is lost under it (a loaded
    server, or a test that ends connections, once cut a teardown's drop short)."""
    import psycopg
    from psycopg import sql

    for attempt in range(1, attempts + 1):
        try:
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute(
                    sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name))
                )
            return
        except psycopg.OperationalError:
            if attempt == attempts:
                raise
