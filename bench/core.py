"""Core speed: the shuffle, signing events, and whole simulated rounds with every event signed.

Prints per-core rates, and each signed-event rate as a ratio of the raw Ed25519 signing
rate measured alongside it: the machine is shared and its speed drifts within a second,
so each call of a row's work is followed by raw signing of as many events, and the row
reports the medians over those pairs.
Tables are first played by bots choosing random legal moves; the engine is then timed
re-running those whole tables (decide, stamp, hash, sign, apply: what the service does
per request), and separately with the bots choosing as they go.
Targets: simulated rounds >= 60 % of raw signing; a 48-card shuffle under 50 µs.
Run: python bench/core.py [--seconds S]
"""

import argparse
import hashlib
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import cards, randomness
from fairdeal.errors import GameError
from fairdeal.events import ChainHead, Draft, sign
from fairdeal.games import registry
from fairdeal.games.base import AnyGame, Command
from fairdeal.keys import Signer
from fairdeal.table import execute

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.simulate import play_round, set_up  # noqa: E402 - after the path is set

NOW = 1_767_225_600_000


# Rounds each replay goes through: more than any cache of round inputs holds (the rules'
# are 256 at most), so every round replayed is new to them, as every round is to a service.
DISTINCT_ROUNDS = 300


def rate(work: Callable[[], int], seconds: float) -> float:
    """Units of work per second: ``work`` does some and says how many."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def rate_against(
    work: Callable[[], int], sign: Callable[[int], None], seconds: float
) -> tuple[float, float]:
    """The median rate of ``work`` and its median ratio to raw signing, from pairs of one
    call of ``work`` and the raw signing of as many events right after it: the machine's
    speed drifts within a second, so each pair sees it in one state."""
    rates: list[float] = []
    ratios: list[float] = []
    end = time.perf_counter() + seconds
    while not rates or time.perf_counter() < end:
        start = time.perf_counter()
        done = work()
        middle = time.perf_counter()
        sign(done)
        raw = time.perf_counter() - middle
        rates.append(done / (middle - start))
        ratios.append(raw / (middle - start))
    return statistics.median(rates), statistics.median(ratios)


def raw_signing(signer: Signer) -> Callable[[int], None]:
    """Signs that many event-signature messages, and nothing else."""
    message = b"fairdeal/v1/event-signature\x00" + bytes(32)

    def sign(count: int) -> None:
        for _ in range(count):
            signer.private_key.sign(message)

    return sign


def shuffling(deck: tuple[str, ...]) -> Callable[[], int]:
    keys = [hashlib.sha256(bytes([i])).digest() for i in range(100)]

    def work() -> int:
        for key in keys:
            randomness.shuffle(key, deck)
        return len(keys)

    return work


def signing_events(signer: Signer) -> Callable[[], int]:
    draft = Draft("hit", "seat:1", {"seat": 1}, "t0.1")

    def work() -> int:
        head = ChainHead("t0")
        for _ in range(100):
            signed = sign(head.stamp(draft, NOW), signer)
            head = head.advance(signed.event, signed.hash)
        return 100

    return work


@dataclass
class Recorded:
    """A table played once by bots: what the engine is then timed re-running."""

    game: AnyGame
    options: dict[str, Any]
    seating: list[tuple[str, str, dict[str, Any]]]
    rounds: list[tuple[bytes, list[Command]]] = field(default_factory=list)
    events: int = 0


def record_table(
    name: str,
    options: dict[str, Any],
    seating: list[Any],
    seats: list[int],
    rounds: int,
    signer: Signer,
    rng: random.Random,
) -> Recorded:
    game = registry()[name]
    table, log = set_up(game, "tbench", options, seating, signer=signer, now=NOW)
    recorded = Recorded(game, options, seating, events=len(log))
    for number in range(1, rounds + 1):
        seed = rng.randbytes(32)
        try:
            played = play_round(
                table,
                f"tbench.{number}",
                server_seed=seed,
                seats=seats,
                rng=rng,
                signer=signer,
                now=NOW,
            )
        except GameError:  # a finished Toto21 match opens no more rounds
            break
        table = played.table
        recorded.rounds.append((seed, played.commands))
        recorded.events += len(played.log)
    return recorded


SETUPS: dict[str, tuple[dict[str, Any], list[Any], list[int], int]] = {
    # name: (options, seating commands, seats that play, rounds per table)
    "toto21": (
        {"target": 10},
        [
            ("seat_joined", "seat:0", {}),
            ("seat_joined", "seat:1", {}),
            ("joiner_accepted", "seat:0", {"seat": 1}),
        ],
        [0, 1],
        19,
    ),
    "kvitlach": (
        {"decks": 2, "banker_exit": "off"},
        [("seat_joined", f"seat:{s}", {"buy_in": 10**9}) for s in range(4)],
        [0, 1, 2, 3],
        5,
    ),
}


def record(name: str, signer: Signer, rng: random.Random) -> Recorded:
    options, seating, seats, rounds = SETUPS[name]
    return record_table(name, options, seating, seats, rounds, signer, rng)


def replaying(tables: list[Recorded], signer: Signer) -> Callable[[], int]:
    """The engine's work for whole tables: decide, stamp, hash, sign and apply every event."""

    def work() -> int:
        for recorded in tables:
            table, _ = set_up(
                recorded.game,
                "tbench",
                recorded.options,
                recorded.seating,
                signer=signer,
                now=NOW,
            )
            for seed, commands in recorded.rounds:
                for command in commands:
                    table, _ = execute(table, command, seed, signer)
        return sum(r.events for r in tables)

    return work


def playing(name: str, signer: Signer, rng: random.Random) -> Callable[[], int]:
    """The same with the bots choosing moves as they go (their legal_actions calls counted)."""
    return lambda: record(name, signer, rng).events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    seconds = parser.parse_args().seconds
    signer = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
    rng = random.Random(7)
    sign = raw_signing(signer)
    raw = rate(lambda: _signed(sign, 100), seconds)
    print(f"raw Ed25519 signing          {raw:12,.0f} /s   (baseline)")
    for size, deck in (
        (24, cards.kvitlach_deck(1)),
        (36, cards.toto21_deck()),
        (48, cards.kvitlach_deck(2)),
    ):
        shuffles = rate(shuffling(deck), seconds)
        print(
            f"shuffle {size} cards             {shuffles:12,.0f} /s   {1e6 / shuffles:6.1f} µs each"
        )
    rows = [("sign + chain events", signing_events(signer))]
    for name, (_, _, _, rounds) in SETUPS.items():
        tables = [record(name, signer, rng) for _ in range(-(-DISTINCT_ROUNDS // rounds))]
        rows.append((f"{name} rounds, events", replaying(tables, signer)))
    rows += [(f"{name} with bots choosing", playing(name, signer, rng)) for name in SETUPS]
    for label, work in rows:
        measured, ratio = rate_against(work, sign, seconds)
        print(f"{label:28} {measured:12,.0f} /s   {ratio:6.1%} of raw signing")


def _signed(sign: Callable[[int], None], count: int) -> int:
    sign(count)
    return count


if __name__ == "__main__":
    main()
