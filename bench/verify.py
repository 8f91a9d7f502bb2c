"""Verifier speed and memory, against the targets of the verifier issue.

Prints, each measured in this run (the machine is shared: compare ratios, not rates):
- raw Ed25519 verifications per second on one core;
- events verified per CPU second on an export of many short tables (every event new:
  nothing shared between bundles), as a ratio of raw verifications per CPU second
  (target >= 0.8), bundle by bundle next to as many raw verifications (``interleaved``);
- the same export with --jobs 2 against --jobs 1 (target >= 1.7x), >= 10,000 rounds;
- one one-round bundle through the command, interpreter start included (target < 0.5 s),
  and in this process (the command's ``main``, no start) as a ratio of as many raw
  verifications as it holds signatures, each run next to them;
- peak memory of the command on an export of >= 1,000,000 events (target < 200 MB):
  one busy table, each bundle repeating its table's whole prefix (the first bundle format,
  the worst case for memory; bench/long_table.py measures the bounded format the service
  exports now).
Tables are played by bench/simulate.py's bots through the real rules and signed, in the
protocol the service writes (version 2): every seat has its own key and signs each of its
commands, so the raw baseline counts the seats' signatures beside the server's.
Run: python bench/verify.py [--rounds N] [--interleaved N] [--repeats N] [--memory-events N]
"""

import argparse
import contextlib
import hashlib
import io
import itertools
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.events import SignedEvent
from fairdeal.games import registry
from fairdeal.keys import Signer, key_id, public_key_pem
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.verifier.cli import main as verify_main
from fairdeal.verifier.export import LineChecker
from fairdeal.verifier.inputs import read_lines
from fairdeal.verifier.trust import load_trust

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.simulate import play_round, set_up  # noqa: E402 - after the path is set

SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"bench key").digest()))
SEAT_KEYS = {
    seat: Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"bench seat %d" % seat).digest())
    for seat in range(3)
}
ORIGIN = "bench.fairdeal/log"
NOTES = NoteSigner(ORIGIN, SIGNER.private_key)
T0 = 1_760_000_000_000
REPO = Path(__file__).resolve().parents[1]


def raw_verify_rate(seconds: float = 1.0) -> float:
    key = Ed25519PrivateKey.from_private_bytes(bytes(32))
    public, message = key.public_key(), bytes(60)
    signature = key.sign(message)
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(200):
            public.verify(signature, message)
        done += 200
    return done / (time.perf_counter() - start)


def _seating(game: str) -> list[tuple[str, str, dict[str, Any]]]:
    if game == "toto21":
        return [("seat_joined", "seat:0", {}), ("seat_joined", "seat:1", {}),
                ("joiner_accepted", "seat:0", {})]  # fmt: skip
    return [("seat_joined", f"seat:{s}", {"buy_in": 10**9}) for s in range(3)]


def play_table(
    game: str, table_id: str, rounds: int, rng: random.Random
) -> Iterator[tuple[str, list[SignedEvent]]]:
    """(round id, signed log up to its reveal) for each round of one table."""
    options = {"target": 10, "stake": 5} if game == "toto21" else {}
    table, log = set_up(
        registry()[game], table_id, options, _seating(game), signer=SIGNER, now=T0, keys=SEAT_KEYS
    )
    seats = [0, 1] if game == "toto21" else [0, 1, 2]
    for number in range(rounds):
        round_id = f"{table_id}.{number + 1}"
        seed = hashlib.sha256(round_id.encode()).digest()
        try:
            played = play_round(table, round_id, server_seed=seed, seats=seats, rng=rng,
                                signer=SIGNER, now=T0 + number, keys=SEAT_KEYS)  # fmt: skip
        except Exception:
            break  # a Toto21 match over: the table's rounds end here
        table, log = played.table, log + played.log
        yield round_id, _through_reveal(log, round_id)


def _through_reveal(log: list[SignedEvent], round_id: str) -> list[SignedEvent]:
    for i in range(len(log) - 1, -1, -1):
        if log[i].event.type == "round_revealed" and log[i].event.round == round_id:
            return log[: i + 1]
    raise AssertionError(round_id)


def write_export(path: Path, rounds: list[tuple[str, str, list[SignedEvent]]]) -> tuple[int, str]:
    """One line per round in the order given; returns the events written and the checkpoint."""
    tree = MerkleTree()
    for _, _, log in rounds:
        tree.append(log[-1].hash)
    note = sign_checkpoint(Checkpoint(ORIGIN, tree.size, tree.root()), NOTES)
    keys = [{"key_id": key_id(SIGNER.public_key), "public_key_pem": _pem(), "current": True}]
    events = 0
    with path.open("w") as out:
        for index, (table_id, round_id, log) in enumerate(rounds):
            proof = tuple(h.hex() for h in tree.inclusion_proof(index, tree.size))
            entry = LogEntry(ORIGIN, NOTES.verifier_key(), index, log[-1].hash.hex(),
                             tree.size, proof, note)  # fmt: skip
            bundle = make_bundle(table_id, round_id, [s.to_json() for s in log], keys, entry)
            out.write(json.dumps(bundle) + "\n")
            events += len(log)
    return events, note


def _pem() -> str:
    return public_key_pem(SIGNER.public_key).decode()


def many_tables(rounds: int) -> Iterator[tuple[str, str, list[SignedEvent]]]:
    """One round per table, so that every event of the export is new to the verifier."""
    rng = random.Random(5)
    for number in range(rounds):
        game = "kvitlach" if number % 2 else "toto21"
        for round_id, log in play_table(game, f"t{number}", 1, rng):
            yield f"t{number}", round_id, log


def timed_cli(*args: str) -> tuple[float, int, float]:
    """Wall time, exit status and CPU time (all its processes) of one fairdeal-verify run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    command = [sys.executable, "-m", "fairdeal.verifier", *args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if done.returncode != 0:
        print(done.stdout[-2000:], done.stderr[-2000:])
    return wall, done.returncode, cpu


def interleaved(
    export: Path, key: str, bundles: int, block: int = 100
) -> tuple[list[float], float, float]:
    """Events per CPU second as a ratio of raw verifications per CPU second, measured
    bundle by bundle in this process: each bundle is verified as ``--jobs 1`` verifies
    it (one LineChecker for the whole export), then as many distinct signatures raw as it
    holds: one per event, and one per seat's signed command.
    On a shared host Ed25519's speed alone can drift by a third within a second, so a
    baseline taken before and after a long run does not describe the run; taken this
    way both see the same moments. The ratio of each block of ``block`` bundles, and the
    events verified and raw verifications per CPU second over all of them."""
    raw_verify = _raw_verifier()
    checker = LineChecker(load_trust([key]))
    clock, ratios, spent, raw, events, findings = time.process_time, [], 0.0, 0.0, 0, 0
    totals = [0, 0.0, 0.0]  # events, verifier CPU, raw CPU: over the whole blocks
    with export.open("rb") as stream:
        for line in itertools.islice(read_lines(stream), bundles):
            start = clock()
            result = checker.check(line)
            spent += clock() - start
            signatures = result.events + _seat_signatures(line.data)
            raw += raw_verify(signatures)
            findings += len(result.findings)
            events += result.events
            if line.number % block == 0:
                ratios.append(raw / spent)
                totals = [totals[0] + events, totals[1] + spent, totals[2] + raw]
                spent, raw, events = 0.0, 0.0, 0
    if findings:
        raise AssertionError(f"{findings} findings in the bench's own export")
    return ratios, totals[0] / totals[1], totals[0] / totals[2]


def _raw_verifier() -> Callable[[int], float]:
    """A function that verifies ``n`` distinct signatures and returns the CPU time taken."""
    signer = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"raw").digest())
    public = signer.public_key()
    pairs = [(signer.sign(m), m) for m in (os.urandom(60) for _ in range(1024))]

    def verify(n: int) -> float:
        start = time.process_time()
        for signature, message in itertools.islice(itertools.cycle(pairs), n):
            public.verify(signature, message)
        return time.process_time() - start

    return verify


def _one_bundle(bundle: Path, key: str, runs: int = 40) -> None:
    """The command's main on one bundle in this process, each run next to as many raw
    verifications as the bundle holds signatures: its CPU time, and the ratio."""
    data = bundle.read_bytes()
    signatures = len(json.loads(data)["events"]) + _seat_signatures(data)
    raw_verify, spent, raw = _raw_verifier(), 0.0, 0.0
    for _ in range(runs):
        start = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            status = verify_main(["--key", key, str(bundle)])
        spent += time.process_time() - start
        raw += raw_verify(signatures)
        if status != 0:
            raise AssertionError(f"the bench's own bundle: exit {status}")
    print(f"  in process: {spent / runs * 1000:.1f} ms CPU, {signatures} signatures")
    print(f"  = {raw / spent:.2f} x raw per CPU second (mean of {runs} runs)")


def _seat_signatures(line: bytes) -> int:
    """The seats' signatures a bundle holds: one per signed command's event."""
    events = json.loads(line)["events"]
    return sum("signed" in item["event"]["data"] for item in events)


def _speed(export: Path, key: str, bundles: int) -> None:
    ratios, rate, raw = interleaved(export, key, bundles)
    print(f"events verified per CPU second:   {rate:>10,.0f} /s, raw {raw:,.0f} /s")
    print(f"  = {statistics.median(ratios):.2f} x raw per CPU second")
    print(f"  (target >= 0.80; median of {len(ratios)} blocks of 100 bundles, each bundle")
    print("  verified in-process as --jobs 1 does, then as many raw verifications;")
    print(f"  blocks {min(ratios):.2f} to {max(ratios):.2f})")


def _jobs(many: tuple[str, ...], events: int, repeats: int) -> None:
    """--jobs 2 against --jobs 1 on the whole export, taken in turn."""
    walls, cpus = [], []
    statuses: set[int] = set()
    for _ in range(repeats):
        one, status1, cpu1 = timed_cli(*many, "--jobs", "1")
        two, status2, cpu2 = timed_cli(*many, "--jobs", "2")
        walls.append((one / two, one, two))
        cpus.append((cpu2 / cpu1, cpu1, cpu2))
        statuses.update((status1, status2))
    speedup, one, two = _middle(walls)
    extra, cpu1, cpu2 = _middle(cpus)
    exits = ",".join(map(str, sorted(statuses)))
    print(f"--jobs 2 vs --jobs 1, wall:       {one:.1f} s -> {two:.1f} s = {speedup:.2f} x")
    print(f"  (target >= 1.70 x; exit {exits}; each run: {_each(w[0] for w in walls)})")
    print(f"  {os.cpu_count()} cores, load {_load()}: the wall ratio follows what else runs")
    print(f"  per CPU second, the command: {events / cpu1:,.0f} /s -> {events / cpu2:,.0f} /s")
    print(f"  CPU time {cpu1:.1f} s -> {cpu2:.1f} s: the work a second process adds is")
    print(f"  {extra - 1:+.0%}, so on two idle cores --jobs 2 would be ~{2 / extra:.2f} x")


def _middle(runs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The run with the median first figure (the upper one of an even count)."""
    return sorted(runs)[len(runs) // 2]


def _each(values: Iterable[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10_000)
    parser.add_argument("--memory-events", type=int, default=1_000_000)
    parser.add_argument(
        "--repeats", type=int, default=3, help="--jobs 1 and --jobs 2 runs each (medians)"
    )
    parser.add_argument(
        "--interleaved",
        type=int,
        default=3_000,
        help="bundles verified in-process, each next to as many raw verifications",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fairdeal-bench-"))
    (work / "key.pem").write_text(_pem())
    key = str(work / "key.pem")

    raw = raw_verify_rate()
    print(f"raw Ed25519 verify, one core:     {raw:>10,.0f} /s")

    start = time.perf_counter()
    rows = list(many_tables(args.rounds))
    events, note = write_export(work / "many.jsonl", rows)
    (work / "many.cp").write_text(note)
    made = time.perf_counter() - start
    print(f"export: {len(rows):,} rounds, {events:,} events (made in {made:.0f} s)")
    many = ("--key", key, str(work / "many.jsonl"), "--checkpoint", str(work / "many.cp"))
    _speed(work / "many.jsonl", key, args.interleaved)
    _jobs(many, events, args.repeats)

    bundle = work / "one.json"
    bundle.write_text((work / "many.jsonl").read_text().splitlines()[1])
    walls = sorted(timed_cli("--key", key, str(bundle))[0] for _ in range(5))
    print(f"one-round bundle, start included: {walls[0]:.3f} s best, {walls[2]:.3f} s median of 5")
    print("  (target < 0.5 s)")
    _one_bundle(bundle, key)

    start = time.perf_counter()
    rows = _busy_rows(args.memory_events)
    events, note = write_export(work / "busy.jsonl", rows)
    (work / "busy.cp").write_text(note)
    made = time.perf_counter() - start
    busy = ("--key", key, str(work / "busy.jsonl"), "--checkpoint", str(work / "busy.cp"))
    wall, status, _ = timed_cli(*busy, "--jobs", "1")
    peak = _peak_of(*busy, "--jobs", "1")
    size = (work / "busy.jsonl").stat().st_size / 2**20
    print(f"busy export: {len(rows)} rounds, {events:,} events, {size:,.0f} MiB")
    print(f"  (one table, each bundle its whole prefix; made in {made:.0f} s)")
    print(f"  verified in {wall:.1f} s ({events / wall:,.0f} events/s), exit {status}")
    print(f"  peak memory {peak / 1024:,.0f} MB (target < 200 MB)")


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _busy_rows(events: int) -> list[tuple[str, str, list[SignedEvent]]]:
    """Rounds of one table until the export (each bundle its whole prefix) holds ``events``."""
    rng = random.Random(9)
    rows, total = [], 0
    for round_id, log in play_table("kvitlach", "busy", 100_000, rng):
        rows.append(("busy", round_id, log))
        total += len(log)
        if total >= events:
            break
    return rows


def _peak_of(*args: str) -> int:
    """Peak resident memory (KiB) of a fresh process running the command: VmHWM, which
    (unlike ru_maxrss) does not count the memory of the bench it was forked from."""
    code = (
        "import resource, runpy, sys; sys.argv = ['verifier', *sys.argv[1:]];\n"
        "try: runpy.run_module('fairdeal.verifier', run_name='__main__')\n"
        "except SystemExit: pass\n"
        "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
        "print(hwm[0].split()[1] if hwm else resource.getrusage(0).ru_maxrss, file=sys.stderr)"
    )
    command = [sys.executable, "-c", code, *args]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    return int(done.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
