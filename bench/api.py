"""Service speed over HTTP on durable SQLite, next to a bare Flask baseline in the same run.

The baseline is a Flask endpoint that does one durable SQLite insert per request (WAL,
synchronous=FULL, BEGIN IMMEDIATE), served the same way and driven by the same load
generator at the same concurrency. fairdeal's load is Toto21 matches played by bots, each
on its own table: open a round, two client seeds, the player's and the dealer's stand;
every one of those POSTs is an action. It is played twice: by keyless seats, whose
requests are the first protocol's (a plain seed each, nothing signed), and by keyed seats
(SPEC 6.7), which commit to their seeds, reveal them and sign every command, so that the
service checks one seat signature per action. Prints actions/s, p50/p99 latency and the
ratios. Targets: fairdeal >= 50 % of the baseline; signed >= 85 % of keyless.
Run: python bench/api.py [--seconds S] [--concurrency N]
"""

import argparse
import itertools
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

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from bench.harness import (  # noqa: E402 - after the path is set
    bench_server,
    free_port,
    line,
    run_inserts,
    run_threads,
    summary,
)
from bench.transport import Http, Stats  # noqa: E402
from fairdeal import randomness, statements  # noqa: E402

SEEDS = {0: "a", 1: "b"}


class Seats:
    """A match's two seats as a bot plays them: tokens, and for keyed seats their keys and
    statement numbers (each command signed, each seed committed before it is revealed)."""

    def __init__(self, http: Http, keyed: bool) -> None:
        self.http = http
        self.keys = {seat: Ed25519PrivateKey.generate() for seat in SEEDS} if keyed else {}
        self.numbers = itertools.count(1)  # one counter serves both seats: n only rises
        self.head: dict[str, Any] = {}  # the last event seen: both seats' statements name it
        created = self.post("/v1/tables", {"game": "toto21", "options": {"target": 10}}, 0)
        self.table_id = created["table_id"]
        joined = self.post(f"/v1/tables/{self.table_id}/seats", {}, 1)
        self.tokens = {0: created["token"], 1: joined["token"]}
        self.command(0, "joiner_accepted", {"seat": 1}, None, {"accept": True})

    def post(self, path: str, body: dict[str, Any], seat: int) -> Any:
        """A create or join: the seat's public key beside the rest, when it has one."""
        key = self.keys.get(seat)
        extra = {"key": statements.public_key_hex(key)} if key else {}
        return self.seen(self.http.call("POST", path, {**body, **extra}).json)

    def seen(self, reply: Any) -> Any:
        """The reply, its last event now the head the seats' statements name."""
        events = reply.get("events") or []
        if events:
            self.head = {"seq": events[-1]["event"]["seq"], "hash": events[-1]["hash"]}
        return reply

    def command(
        self, seat: int, kind: str, data: dict[str, Any], round_id: str | None, body: Any
    ) -> Any:
        """Send ``body`` for the command ``kind`` with ``data``, signed if the seat is keyed."""
        key = self.keys.get(seat)
        if key is not None:
            n = next(self.numbers)
            signed = statements.signed_data(
                key, self.table_id, round_id, seat, n=n, after=self.head, kind=kind, data=data
            )
            body = {**body, "signed": signed["signed"]}
        path = {
            "joiner_accepted": f"/v1/tables/{self.table_id}/seats/1/decision",
            "seed_commitment": f"/v1/rounds/{round_id}/seeds",
            "client_seed": f"/v1/rounds/{round_id}/seeds",
            "stand": f"/v1/rounds/{round_id}/actions",
        }[kind]
        return self.seen(self.http.call("POST", path, body, self.tokens[seat]).json)

    def seed(self, round_id: str) -> Any:
        """Both seats' seeds: committed, then revealed, by keyed seats; else sent plainly."""
        for seat, seed in SEEDS.items():
            if self.keys:
                commitment = randomness.client_seed_commitment(round_id, seat, seed).hex()
                data = {"commitment": commitment}
                self.command(seat, "seed_commitment", data, round_id, data)
        for seat, seed in SEEDS.items():
            reply = self.command(seat, "client_seed", {"seed": seed}, round_id, {"seed": seed})
        return reply


def toto21_worker(http: Http, deadline: float, keyed: bool) -> None:
    while time.monotonic() < deadline:
        seats = Seats(http, keyed)
        while time.monotonic() < deadline and play_round(seats):
            pass


def play_round(seats: Seats) -> bool:
    opened = seats.seen(
        seats.http.call("POST", f"/v1/tables/{seats.table_id}/rounds", {}, seats.tokens[0]).json
    )
    if "round_id" not in opened:
        return False  # the match is over
    round_id = opened["round_id"]
    sealed = seats.seed(round_id)
    chosen = next(
        e["event"]["data"] for e in sealed["events"] if e["event"]["type"] == "dealer_chosen"
    )
    replies = [sealed]
    if not _has(sealed, "round_revealed"):  # else a golden point ended the round at the deal
        for seat in (chosen["player"], chosen["dealer"]):
            replies.append(seats.command(seat, "stand", {}, round_id, {"type": "stand"}))
    return not any(_has(reply, "match_won") for reply in replies)


def _has(reply: Any, kind: str) -> bool:
    return any(e["event"]["type"] == kind for e in reply.get("events", []))


def measure(which: str, seconds: float, concurrency: int) -> dict[str, Any]:
    """``which``: "bare", or fairdeal played by "keyless" or "signed" seats."""
    server_kind = "bare" if which == "bare" else "fairdeal"
    with tempfile.TemporaryDirectory(prefix=f"bench-{which}-") as folder:
        server = bench_server(server_kind, free_port(), folder).start()
        try:
            stats, rng = Stats(), random.Random(1)
            deadline = time.monotonic() + seconds
            if which == "bare":
                elapsed = run_inserts([server.port], stats, rng, deadline, concurrency)
            else:
                elapsed = run_threads(
                    [
                        threading.Thread(
                            target=toto21_worker,
                            args=(Http([server.port], stats, rng), deadline, which == "signed"),
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
    kinds = ("bare", "keyless", "signed")
    results = {which: measure(which, args.seconds, args.concurrency) for which in kinds}
    for which, r in results.items():
        print(line(which, r, r["errors"]))
    keyless, signed = results["keyless"]["rate"], results["signed"]["rate"]
    print(f"fairdeal (keyless seats) / bare insert: {keyless / results['bare']['rate']:.1%}")
    print(f"fairdeal (signed seats) / bare insert:  {signed / results['bare']['rate']:.1%}")
    print("  (target >= 50 %)")
    print(f"signed / keyless seats: {signed / keyless:.1%}  (target >= 85 %)")


if __name__ == "__main__":
    main()
