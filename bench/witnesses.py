"""Witnessed logging over HTTP: fairdeal with two witnesses on loopback, next to fairdeal with
none, in the same run.

Both play Toto21 matches with keyed seats (bench/api.py's bots: commit, reveal, a signed
command each action) on durable SQLite. The witnessed service sends every new checkpoint to
two ``fairdeal witness`` processes from its background threads and keeps their
cosignatures. Prints actions/s for each (target: witnessed >= 90 % of none), and, from the
witnessed service's database afterwards, the time from each head's logging (a round's
reveal, a table's rest) to the first checkpoint covering it that both witnesses had
cosigned, as the service kept them: p50 and p99 (target: p99 < 2 s). The runs alternate
(none, witnessed, ...), --repeats times.
Run: python bench/witnesses.py [--seconds S] [--concurrency N] [--repeats R]
"""

import argparse
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey  # noqa: E402

from bench.api import toto21_worker  # noqa: E402
from bench.harness import ROOT, Process, bench_server, free_port, line, run_threads, summary  # noqa: E402
from bench.transport import Http, Stats  # noqa: E402
from fairdeal.keys import private_key_pem  # noqa: E402
from fairdeal.note import NoteSigner  # noqa: E402

ORIGIN = "fairdeal.example/log"
WITNESSES = ("w1.bench.example/witness", "w2.bench.example/witness")
CATCH_UP_S = 5.0  # after the load: time for the witnesses to cosign the last checkpoint


def witness_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "fairdeal.api.cli", "witness", *args]


def start_witnesses(folder: Path, log_key: str) -> tuple[list[Process], str]:
    """Two witnesses of the log, running; and FAIRDEAL_WITNESSES naming them."""
    processes, entries = [], []
    for name in WITNESSES:
        state = str(folder / name.split(".")[0])
        printed = subprocess.run(
            witness_command("--state", state, "--name", name, "--print-key"),
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        port = free_port()
        argv = witness_command("--state", state, "--log", log_key, "--port", str(port))
        processes.append(Process(argv, port, dict(os.environ), ready_path="/").start())
        entries.append(f"http://127.0.0.1:{port} {printed.stdout.strip()}")
    return processes, ",".join(entries)


def measure(witnessed: bool, seconds: float, concurrency: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-witnesses-") as name:
        folder = Path(name)
        key = Ed25519PrivateKey.generate()
        key_file = folder / "signing.pem"
        key_file.write_bytes(private_key_pem(key))
        key_file.chmod(0o600)
        witnesses: list[Process] = []
        entries = ""
        if witnessed:
            witnesses, entries = start_witnesses(folder, NoteSigner(ORIGIN, key).verifier_key())
        server = bench_server(
            "fairdeal", free_port(), str(folder), key_file=str(key_file), witnesses=entries
        )
        try:
            server.start()
            stats, rng = Stats(), random.Random(1)
            deadline = time.monotonic() + seconds
            elapsed = run_threads(
                [
                    threading.Thread(
                        target=toto21_worker, args=(Http([server.port], stats, rng), deadline, True)
                    )
                    for _ in range(concurrency)
                ]
            )
            delays = cosigned_delays(server, folder) if witnessed else []
        finally:
            server.stop()
            for witness in witnesses:
                witness.stop()
    errors = {**stats.errors, **stats.refusals}
    return {**summary(stats.actions, elapsed), "errors": errors, "delays": delays}


def cosigned_delays(server: Process, folder: Path) -> list[int]:
    """Per head, ms from its logging to a covering checkpoint cosigned by both witnesses,
    once the witnesses have caught up with the last checkpoint (or CATCH_UP_S passed)."""
    database = folder / "fairdeal.sqlite3"
    until = time.monotonic() + CATCH_UP_S
    while time.monotonic() < until and not _caught_up(database):
        time.sleep(0.05)
    with sqlite3.connect(database) as db:
        heads = db.execute(
            "SELECT leaf_index, finished_at FROM rounds WHERE leaf_index IS NOT NULL"
            " UNION ALL SELECT leaf_index, finished_at FROM table_heads"
        ).fetchall()
        both = db.execute(
            "SELECT size, MAX(kept_at) FROM cosignatures GROUP BY size HAVING COUNT(*) = 2"
        ).fetchall()
    # The earliest time a checkpoint of size > i had both cosignatures, for each leaf i.
    earliest: dict[int, int] = {}
    best = None
    sizes = dict(both)
    for size in sorted(sizes, reverse=True):
        best = sizes[size] if best is None else min(best, sizes[size])
        earliest[size] = best
    covering = sorted(earliest)
    delays = []
    for leaf, logged_at in heads:
        first = next((earliest[s] for s in covering if s > leaf), None)
        if first is not None:
            delays.append(first - logged_at)
    return delays


def _caught_up(database: Path) -> bool:
    with sqlite3.connect(database) as db:
        (size,) = db.execute("SELECT MAX(size) FROM checkpoints").fetchone()
        (count,) = db.execute(
            "SELECT COUNT(*) FROM cosignatures WHERE size = ?", (size,)
        ).fetchone()
    return bool(count == len(WITNESSES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.concurrency} concurrent clients, {args.seconds:g} s each, durable SQLite,")
    print("Toto21 with keyed seats; two witnesses on loopback, or none")
    ratios, delays = [], []
    for _ in range(args.repeats):
        none = measure(False, args.seconds, args.concurrency)
        witnessed = measure(True, args.seconds, args.concurrency)
        print(line("no witness", none, none["errors"]))
        print(line("two witnesses", witnessed, witnessed["errors"]))
        ratios.append(witnessed["rate"] / none["rate"])
        delays += witnessed["delays"]
        print(f"  witnessed / none: {ratios[-1]:.1%}")
    print(
        f"witnessed / none, mean of {len(ratios)}: {statistics.mean(ratios):.1%}  (target >= 90 %)"
    )
    ordered = sorted(delays) or [0]
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    print(
        f"head logged -> checkpoint cosigned by both: p50 {statistics.median(ordered):.0f} ms, "
        f"p99 {p99} ms, max {ordered[-1]} ms over {len(delays)} heads  (target p99 < 2000 ms)"
    )


if __name__ == "__main__":
    main()
