"""Service speed over HTTP on durable SQLite, next to a bare Flask baseline in the same run.

The baseline is a Flask endpoint that does one durable SQLite insert per request (WAL,
synchronous=FULL, BEGIN IMMEDIATE), served the same way and driven by the same load
generator at the same concurrency. fairdeal's load is Toto21 matches played by bots, each
on its own table: open a round, two client seeds, the player's and the dealer's stand;
every one of those POSTs is an action. Prints actions/s, p50/p99 latency and the ratio.
Target: fairdeal >= 50 % of the baseline.
Run: python bench/api.py [--seconds S] [--concurrency N]
"""

import argparse
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# This script is bench/api.py: keep its own folder off the import path, so that
# "api" is the service package and not this file.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]


def bare_app(db_path: str) -> Any:
    from flask import Flask

    app = Flask("bare")
    local = threading.local()

    def connection() -> sqlite3.Connection:
        if not hasattr(local, "db"):
            local.db = sqlite3.connect(db_path, isolation_level=None, timeout=30)
            local.db.execute("PRAGMA journal_mode=WAL")
            local.db.execute("PRAGMA synchronous=FULL")
        return local.db

    with sqlite3.connect(db_path) as db:
        db.execute("CREATE TABLE IF NOT EXISTS hits (id INTEGER PRIMARY KEY, body TEXT)")

    @app.post("/insert")
    def insert() -> dict[str, int]:
        db = connection()
        db.execute("BEGIN IMMEDIATE")
        cursor = db.execute("INSERT INTO hits (body) VALUES (?)", ("x" * 200,))
        db.execute("COMMIT")
        return {"id": cursor.lastrowid or 0}

    return app


def serve(which: str, port: int, folder: str) -> None:
    """Run one app on loopback (a separate process, so load and server do not share a GIL)."""
    from werkzeug.serving import make_server

    # A thread that waits on fsync while holding the database lock should get the GIL back
    # soon after; the default 5 ms switch interval lets busy HTTP threads keep it longer.
    sys.setswitchinterval(0.0005)
    if which == "bare":
        app = bare_app(os.path.join(folder, "bare.sqlite3"))
    else:
        from api.app import create_app
        from api.config import Config

        app = create_app(Config(instance_path=Path(folder), sweep_interval_s=0))
    make_server("127.0.0.1", port, app, threaded=True).serve_forever()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(which: str, folder: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", which, "--port", str(port), "--folder", folder],
        cwd=ROOT,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process, port
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{which} server did not start")


class Load:
    """A request loop per thread; records each action's latency."""

    def __init__(self, port: int, seconds: float) -> None:
        self.port, self.deadline = port, time.perf_counter() + seconds
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self._lock = threading.Lock()

    def post(self, path: str, body: Any, token: str | None = None) -> Any:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        started = time.perf_counter()
        connection.request("POST", path, json.dumps(body), headers)
        response = connection.getresponse()
        payload = json.loads(response.read())
        elapsed = time.perf_counter() - started
        connection.close()
        with self._lock:
            self.latencies.append(elapsed)
            if response.status >= 400:
                self.errors[payload.get("error", {}).get("code", "?")] += 1
        return payload

    def running(self) -> bool:
        return time.perf_counter() < self.deadline


def bare_worker(load: Load) -> None:
    while load.running():
        load.post("/insert", {"x": 1})


def toto21_worker(load: Load) -> None:
    while load.running():
        table = load.post("/v1/tables", {"game": "toto21", "options": {"target": 10}})
        joined = load.post(f"/v1/tables/{table['table_id']}/seats", {"join": {}})
        tokens = {0: table["token"], 1: joined["token"]}
        load.post(f"/v1/tables/{table['table_id']}/seats/1/decision", {"accept": True}, tokens[0])
        while load.running() and play_round(load, table["table_id"], tokens):
            pass


def play_round(load: Load, table_id: str, tokens: dict[int, str]) -> bool:
    opened = load.post(f"/v1/tables/{table_id}/rounds", {}, tokens[0])
    if "round_id" not in opened:
        return False  # the match is over
    round_id = opened["round_id"]
    load.post(f"/v1/rounds/{round_id}/seeds", {"seed": "a"}, tokens[0])
    sealed = load.post(f"/v1/rounds/{round_id}/seeds", {"seed": "b"}, tokens[1])
    chosen = next(
        e["event"]["data"] for e in sealed["events"] if e["event"]["type"] == "dealer_chosen"
    )
    replies = [sealed]
    if not _has(sealed, "round_revealed"):  # else a golden point ended the round at the deal
        for seat in (chosen["player"], chosen["dealer"]):
            replies.append(
                load.post(f"/v1/rounds/{round_id}/actions", {"type": "stand"}, tokens[seat])
            )
    return not any(_has(reply, "match_won") for reply in replies)


def _has(reply: Any, kind: str) -> bool:
    return any(e["event"]["type"] == kind for e in reply.get("events", []))


def measure(which: str, seconds: float, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"bench-{which}-") as folder:
        process, port = start(which, folder)
        try:
            load = Load(port, seconds)
            worker = bare_worker if which == "bare" else toto21_worker
            threads = [threading.Thread(target=worker, args=(load,)) for _ in range(concurrency)]
            started = time.perf_counter()
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.perf_counter() - started
        finally:
            process.terminate()
            process.wait()
    latencies = sorted(load.latencies)
    return {
        "rate": len(latencies) / elapsed,
        "p50": statistics.median(latencies) * 1000,
        "p99": latencies[int(len(latencies) * 0.99) - 1] * 1000,
        "count": len(latencies),
        "errors": dict(load.errors),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--serve", choices=("bare", "fairdeal"), help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.port, args.folder)
        return
    print(f"{args.concurrency} concurrent clients, {args.seconds:g} s each, durable SQLite")
    results = {
        which: measure(which, args.seconds, args.concurrency) for which in ("bare", "fairdeal")
    }
    for which, r in results.items():
        print(
            f"{which:9} {r['rate']:8.1f} actions/s  p50 {r['p50']:6.1f} ms  "
            f"p99 {r['p99']:6.1f} ms  ({r['count']:.0f} requests, errors: {r['errors'] or 'none'})"
        )
    ratio = results["fairdeal"]["rate"] / results["bare"]["rate"]
    print(f"fairdeal / bare insert: {ratio:.1%}  (target >= 50 %)")


if __name__ == "__main__":
    main()
