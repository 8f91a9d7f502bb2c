"""Many simulated tables of both games at once against a running service, on SQLite and on
PostgreSQL, each next to a baseline measured in the same run.

The baseline is a bare Flask endpoint doing one durable insert per request on the same
database (bench/api.py's, served the same way, driven at the same concurrency). fairdeal's
load is bots playing Toto21 and Kvitlach tables (half each), every move chosen at random from
the seat's legal moves as its view lists them, with an Idempotency-Key on every POST. An
action is a POST; the views the bots read between them are counted apart. On PostgreSQL the
same load also runs against two service processes at once, each request to either at random.
Prints actions/s, p50/p99 latency and errors per run, and the ratios.
Targets: two single-worker processes on one PostgreSQL >= 1.3x one (2 cores are shared with
the load generator and PostgreSQL: report the figure either way).
Run: python bench/load.py [--seconds S] [--tables N] [--postgres URL | --no-postgres]
"""

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.harness import (  # noqa: E402 - after the path is set
    Bot,
    Process,
    bench_server,
    free_port,
    line,
    postgres_schema,
    run_bots,
    run_inserts,
    summary,
)
from bench.transport import Http, Stats  # noqa: E402

POSTGRES_URL = "postgresql://127.0.0.1:5432/test"


def reachable(url: str) -> str:
    """'' if PostgreSQL answers at ``url``, else why not."""
    try:
        import psycopg

        with psycopg.connect(url, connect_timeout=3):
            return ""
    except Exception as e:  # any reason at all is reported, not raised
        return " ".join(str(e).split()) or type(e).__name__


def measure(
    which: str, database_url: str, processes: int, seconds: float, tables: int
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix=f"load-{which}-") as folder:
        servers: list[Process] = []
        try:
            for _ in range(processes):  # one folder: the processes share the dev key
                servers.append(bench_server(which, free_port(), folder, database_url).start())
            ports = [s.port for s in servers]
            stats = Stats()
            deadline = time.monotonic() + seconds
            rng = random.Random(20260101)
            if which == "bare":
                elapsed = run_inserts(ports, stats, rng, deadline, tables)
            else:
                bots = [
                    Bot(Http(ports, stats, random.Random(rng.random())), f"b{i}",
                        ("toto21", "kvitlach")[i % 2], deadline)
                    for i in range(tables)
                ]  # fmt: skip
                elapsed = run_bots(bots)
        finally:
            for server in servers:
                server.stop()
    errors = dict(stats.errors)
    return {**summary(stats.actions, elapsed), "errors": errors, "reads": len(stats.reads),
            "refusals": dict(stats.refusals), "elapsed": elapsed}  # fmt: skip


def report(label: str, result: dict[str, Any]) -> None:
    print(line(label, result, result["errors"]))
    if result["reads"]:
        print(f"{'':28} + {result['reads'] / result['elapsed']:.1f} views/s read by the bots")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tables", type=int, default=8, help="concurrent tables (bots)")
    parser.add_argument("--postgres", default=POSTGRES_URL)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    print(f"{args.tables} concurrent tables (Toto21 and Kvitlach), {args.seconds:g} s per run")

    bare = measure("bare", "", 1, args.seconds, args.tables)
    one = measure("fairdeal", "", 1, args.seconds, args.tables)
    print("\nSQLite (one file, WAL, synchronous=FULL)")
    report("bare durable insert", bare)
    report("fairdeal, 1 process", one)
    print(f"fairdeal / bare insert: {one['rate'] / bare['rate']:.1%}")

    why = "--no-postgres" if args.no_postgres else reachable(args.postgres)
    if why:
        print(f"\nPostgreSQL: skipped ({why})")
        return
    results = {}
    for label, which, processes in (("bare durable insert", "bare", 1),
                                    ("fairdeal, 1 process", "fairdeal", 1),
                                    ("fairdeal, 2 processes", "fairdeal", 2)):  # fmt: skip
        with postgres_schema(args.postgres) as url:
            results[label] = measure(which, url, processes, args.seconds, args.tables)
    print("\nPostgreSQL (one database)")
    for label, result in results.items():
        report(label, result)
    one, two = results["fairdeal, 1 process"], results["fairdeal, 2 processes"]
    print(f"fairdeal / bare insert: {one['rate'] / results['bare durable insert']['rate']:.1%}")
    print(f"2 processes / 1 process: {two['rate'] / one['rate']:.2f}x  (target >= 1.3x)")


if __name__ == "__main__":
    main()
