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
import random
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.harness import (  # noqa: E402 - after the path is set
    bench_server,
    free_port,
    line,
    run_inserts,
    run_threads,
    summary,
)
from bench.transport import Http, Stats  # noqa: E402


def toto21_worker(http: Http, deadline: float) -> None:
    while time.monotonic() < deadline:
        table = http.call("POST", "/v1/tables", {"game": "toto21", "options": {"target": 10}})
        table_id = table.json["table_id"]
        joined = http.call("POST", f"/v1/tables/{table_id}/seats", {"join": {}})
        tokens = {0: table.json["token"], 1: joined.json["token"]}
        http.call("POST", f"/v1/tables/{table_id}/seats/1/decision", {"accept": True}, tokens[0])
        while time.monotonic() < deadline and play_round(http, table_id, tokens):
            pass


def play_round(http: Http, table_id: str, tokens: dict[int, str]) -> bool:
    opened = http.call("POST", f"/v1/tables/{table_id}/rounds", {}, tokens[0]).json
    if "round_id" not in opened:
        return False  # the match is over
    round_id = opened["round_id"]
    http.call("POST", f"/v1/rounds/{round_id}/seeds", {"seed": "a"}, tokens[0])
    sealed = http.call("POST", f"/v1/rounds/{round_id}/seeds", {"seed": "b"}, tokens[1]).json
    chosen = next(
        e["event"]["data"] for e in sealed["events"] if e["event"]["type"] == "dealer_chosen"
    )
    replies = [sealed]
    if not _has(sealed, "round_revealed"):  # else a golden point ended the round at the deal
        for seat in (chosen["player"], chosen["dealer"]):
            path = f"/v1/rounds/{round_id}/actions"
            replies.append(http.call("POST", path, {"type": "stand"}, tokens[seat]).json)
    return not any(_has(reply, "match_won") for reply in replies)


def _has(reply: Any, kind: str) -> bool:
    return any(e["event"]["type"] == kind for e in reply.get("events", []))


def measure(which: str, seconds: float, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"bench-{which}-") as folder:
        server = bench_server(which, free_port(), folder).start()
        try:
            stats, rng = Stats(), random.Random(1)
            deadline = time.monotonic() + seconds
            if which == "bare":
                elapsed = run_inserts([server.port], stats, rng, deadline, concurrency)
            else:
                elapsed = run_threads(
                    [
                        threading.Thread(
                            target=toto21_worker, args=(Http([server.port], stats, rng), deadline)
                        )
                        for _ in range(concurrency)
                    ]
                )
        finally:
            server.stop()
    errors = {**stats.errors, **stats.refusals}
    return {**summary(stats.actions, elapsed), "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    print(f"{args.concurrency} concurrent clients, {args.seconds:g} s each, durable SQLite")
    results = {
        which: measure(which, args.seconds, args.concurrency) for which in ("bare", "fairdeal")
    }
    for which, r in results.items():
        print(line(which, r, r["errors"]))
    ratio = results["fairdeal"]["rate"] / results["bare"]["rate"]
    print(f"fairdeal / bare insert: {ratio:.1%}  (target >= 50 %)")


if __name__ == "__main__":
    main()
