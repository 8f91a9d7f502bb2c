"""Bounded proofs on one long table: a round's proof costs the same on its first day and
its thousandth (the bounded-proofs issue's targets).

Plays one Kvitlach table of N rounds through the real service (``Service`` on a real
SQLite file, its clock injected, bots choosing among the legal actions), then prints,
each measured in this run:
- the bundle size (the mean over ten rounds from there) and the time of
  ``fairdeal-verify`` on one bundle (interpreter start included) at rounds 1, N/2 and N,
  and round N's against round 1's (target <= 1.5x);
- the service's export (its streaming path) and ``fairdeal-verify`` of it, for the first
  N/2 rounds' leaves and for all N (target: N at most 2.2x N/2, linear);
- peak memory of ``fairdeal-verify`` on the whole export (target < 200 MB);
- a service process new to the table: its first view, against folding the whole chain;
- beside them, the first format's bundle of round N (the whole chain from table_created),
  the baseline the bounded format replaces.
Run: python bench/long_table.py [--rounds N] [--seats S]
"""

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.simulate import BOTS_NEVER_SEND, data_for  # noqa: E402 - after the path is set
from bench.verify import _peak_of, timed_cli  # noqa: E402
from fairdeal.api.service.config import Config  # noqa: E402
from fairdeal.api.service.keystore import load_keys  # noqa: E402
from fairdeal.api.service.service import Service  # noqa: E402
from fairdeal.api.storage import open_store  # noqa: E402
from fairdeal.errors import FairdealError  # noqa: E402
from fairdeal.events import SignedEvent  # noqa: E402
from fairdeal.protocol import ROUND_REVEALED  # noqa: E402

T0 = 1_760_000_000_000
BUY_IN = 10**9
NEAR = 10  # rounds measured around each point: a round's size varies with its play


class Clock:
    """The service's clock: a millisecond more for every command."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        self.now += 1
        return self.now


def service_on(folder: Path, clock: Clock) -> Service:
    """The real service on a SQLite file in ``folder``, with a development key."""
    config = Config(instance_path=folder, sweep_interval_s=0, rate_limit="")
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    store = open_store(config.store_url)
    store.migrate()
    return Service(store, load_keys(config), config, clock)


def seat_table(service: Service, seats: int, options: Mapping[str, Any]) -> dict[int, str]:
    """A Kvitlach table with ``seats`` seats taken; each seat's token, and the table id
    under the key -1."""
    created = service.create_table("kvitlach", options, {"buy_in": BUY_IN})
    tokens = {-1: created["table_id"], 0: created["token"]}
    for _ in range(1, seats):
        joined = service.join(created["table_id"], {"buy_in": BUY_IN})
        tokens[joined["seat"]] = joined["token"]
    return tokens


def play_rounds(
    service: Service, tokens: dict[int, str], rounds: int, rng: random.Random
) -> list[str]:
    """Play ``rounds`` rounds at random; their ids."""
    table_id = tokens[-1]
    seats = {seat: token for seat, token in tokens.items() if seat >= 0}
    played = []
    for _ in range(rounds):
        round_id = service.open_round(table_id, seats[0])["round_id"]
        while not _step(service, table_id, round_id, seats, rng):
            pass
        played.append(round_id)
    return played


def _step(
    service: Service, table_id: str, round_id: str, seats: dict[int, str], rng: random.Random
) -> bool:
    """One random legal command; whether it revealed the round."""
    live = service.live[table_id]
    with service.store.reader() as txn:
        row = txn.get_round(round_id)
    secret = row.server_seed if row is not None else None  # the bots play the operator's side
    game, state = live.table.game, live.table.state
    choices = [
        (seat, kind)
        for seat in seats
        for kind in game.legal_actions(state, seat, secret)
        if kind not in BOTS_NEVER_SEND
    ]
    seat, kind = rng.choice(choices)
    try:
        reply = service.command(table_id, seats[seat], kind, data_for(kind, rng), round_id=round_id)
    except FairdealError:
        if kind != "bet":
            raise
        # a bet the bank or the balance cannot cover is sent again as the smallest
        reply = service.command(table_id, seats[seat], kind, {"amount": 1}, round_id=round_id)
    return any(e["event"]["type"] == ROUND_REVEALED for e in reply["events"])


def _size(bundle: dict[str, Any]) -> int:
    return len(json.dumps(bundle, separators=(",", ":")))


def _verify_time(key: str, path: Path) -> float:
    """The best of three runs of fairdeal-verify on one file, start included."""
    walls = []
    for _ in range(3):
        wall, status, _ = timed_cli("--key", key, str(path))
        if status != 0:
            raise AssertionError(f"fairdeal-verify exit {status} on {path.name}")
        walls.append(wall)
    return min(walls)


def _export(service: Service, path: Path, until: int | None) -> tuple[float, int]:
    """The service's export (leaves logged before ``until``) written to ``path``: the
    seconds it took, and its lines."""
    start, lines = time.perf_counter(), 0
    with path.open("w") as out:
        for bundle in service.published.export(None, until, None):
            out.write(json.dumps(bundle, separators=(",", ":")) + "\n")
            lines += 1
    return time.perf_counter() - start, lines


def _cold_load(work: Path, clock: Clock, tokens: dict[int, str]) -> None:
    """A service process new to the table: its first view, from the table_state before
    the last round, against folding the whole chain as it was loaded before."""
    start = time.perf_counter()
    cold = service_on(work / "instance", clock)
    cold.table_view(tokens[-1], tokens[0])
    resumed = time.perf_counter() - start
    start = time.perf_counter()
    with cold.store.reader() as txn:
        folded = None
        for raw in txn.events(tokens[-1]):
            folded = cold.live._fold(folded, SignedEvent.from_json(raw))
    whole = time.perf_counter() - start
    print(f"a process new to the table: first view {resumed:.3f} s (its last round read);")
    print(f"  folding the whole chain instead, as before: {whole:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5_000)
    parser.add_argument("--seats", type=int, default=4, help="2 to 7 (7 plays with 2 decks)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="fairdeal-long-"))
    clock = Clock()
    service = service_on(work / "instance", clock)
    options = {"decks": 2} if args.seats > 4 else {}

    start = time.perf_counter()
    tokens = seat_table(service, args.seats, options)
    half_rounds = play_rounds(service, tokens, args.rounds // 2, random.Random(1))
    half_time = clock.now + 1
    rounds = half_rounds + play_rounds(
        service, tokens, args.rounds - len(half_rounds), random.Random(2)
    )
    events = service.live[tokens[-1]].table.head.next_seq
    print(f"one Kvitlach table: {args.seats} seats, {len(rounds):,} rounds, {events:,} events")
    print(f"  (played through the service in {time.perf_counter() - start:.0f} s)")

    key = work / "key.pem"
    key.write_text(service.published.key_list()["keys"][0]["public_key_pem"])
    print(f"{'':12} {'bundle bytes':>13} {'events':>7} {'fairdeal-verify':>16}")
    print(f"{'':12} (mean of the {NEAR} rounds from there)   (the first of them)")
    figures = {}
    for name, at in (("1", 0), ("N/2", len(rounds) // 2 - 1), ("N", len(rounds) - NEAR)):
        bundles = [service.published.bundle(r) for r in rounds[at : at + NEAR]]
        path = work / f"round-{name.replace('/', '')}.json"
        path.write_text(json.dumps(bundles[0]))
        size = statistics.mean(map(_size, bundles))
        events = statistics.mean(len(b["events"]) for b in bundles)
        figures[name] = (size, _verify_time(str(key), path))
        print(f"round {name:<6} {size:>13,.0f} {events:>7,.1f} {figures[name][1]:>14.3f} s")
    size = figures["N"][0] / figures["1"][0]
    wall = figures["N"][1] / figures["1"][1]
    print(f"round N / round 1: size {size:.2f} x, verify {wall:.2f} x  (target <= 1.5 x)")
    with service.store.reader() as txn:
        whole = sum(_size(e) + 1 for e in txn.events(tokens[-1]))
    print(f"  the first format's bundle of round N (the whole chain): ~{whole / 2**20:,.1f} MiB")

    _cold_load(work, clock, tokens)

    runs = {}
    for name, until in (("N/2", half_time), ("N", None)):
        path = work / f"export-{name.replace('/', '')}.jsonl"
        exported, lines = _export(service, path, until)
        verified, status, _ = timed_cli("--key", str(key), str(path))
        runs[name] = exported + verified
        mib = path.stat().st_size / 2**20
        print(f"export + verify, {name:<3} rounds: {lines:>6,} lines, {mib:>7,.1f} MiB, export"
              f" {exported:.1f} s + verify {verified:.1f} s (exit {status})")  # fmt: skip
    print(f"  N / N/2: {runs['N'] / runs['N/2']:.2f} x  (target <= 2.2 x)")
    peak = _peak_of("--key", str(key), str(work / "export-N.jsonl"))
    print(f"fairdeal-verify peak memory on the whole export: {peak / 1024:,.0f} MB"
          " (target < 200 MB)")  # fmt: skip


if __name__ == "__main__":
    main()
