"""Core speed: the shuffle, signing events, and whole simulated rounds with every event signed.

Prints per-core rates, and each signed-event rate as a ratio of the raw Ed25519 signing
rate measured in the same run (the machine is shared: absolute rates drift, ratios hold).
Targets: simulated rounds >= 60 % of raw signing; a 48-card shuffle under 50 µs.
Run: python bench/core.py [--seconds S]
"""

import argparse
import hashlib
import random
import time
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import cards, randomness
from fairdeal.events import ChainHead, Draft, sign
from fairdeal.games import registry
from fairdeal.keys import Signer
from fairdeal.simulate import play_round, set_up

NOW = 1_767_225_600_000


def rate(work: Callable[[], int], seconds: float) -> float:
    """Units of work per second: ``work`` does some and says how many."""
    done, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def raw_signing(signer: Signer) -> Callable[[], int]:
    message = b"fairdeal/v1/event-signature\x00" + bytes(32)

    def work() -> int:
        for _ in range(100):
            signer.private_key.sign(message)
        return 100

    return work


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


def toto21_rounds(signer: Signer, rng: random.Random) -> Callable[[], int]:
    game = registry()["toto21"]
    seating = [("seat_joined", "seat:0", {}), ("seat_joined", "seat:1", {}),
               ("joiner_accepted", "seat:0", {"seat": 1})]
    return _rounds(game, {"target": 10, "stake": 10}, seating, [0, 1], signer, rng, 19)


def kvitlach_rounds(signer: Signer, rng: random.Random) -> Callable[[], int]:
    game = registry()["kvitlach"]
    seating = [("seat_joined", f"seat:{s}", {"buy_in": 10**9}) for s in range(4)]
    options = {"decks": 2, "banker_exit": "off"}
    return _rounds(game, options, seating, [0, 1, 2, 3], signer, rng, 3)


def _rounds(game, options, seating, seats, signer, rng, per_table) -> Callable[[], int]:  # noqa: ANN001
    """Tables of ``per_table`` rounds; returns events signed (setup included)."""
    def work() -> int:
        table, log = set_up(game, "tbench", options, seating, signer, NOW)
        events = len(log)
        for number in range(1, per_table + 1):
            seed = rng.randbytes(32)
            try:
                table, signed = play_round(table, f"tbench.{number}", seed, seats, rng, signer, NOW)
            except Exception:  # a finished Toto21 match opens no more rounds
                break
            events += len(signed)
        return events

    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="per measurement")
    seconds = parser.parse_args().seconds
    signer = Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
    rng = random.Random(7)
    raw = rate(raw_signing(signer), seconds)
    print(f"raw Ed25519 signing          {raw:12,.0f} /s   (baseline)")
    for size, deck in ((24, cards.kvitlach_deck(1)), (36, cards.toto21_deck()),
                       (48, cards.kvitlach_deck(2))):
        shuffles = rate(shuffling(deck), seconds)
        print(f"shuffle {size} cards             {shuffles:12,.0f} /s   "
              f"{1e6 / shuffles:6.1f} µs each")
    rows = [("sign + chain events", signing_events(signer)),
            ("toto21 rounds, events", toto21_rounds(signer, rng)),
            ("kvitlach rounds, events", kvitlach_rounds(signer, rng))]
    for label, work in rows:
        measured = rate(work, seconds)
        print(f"{label:28} {measured:12,.0f} /s   {measured / raw:6.1%} of raw signing")


if __name__ == "__main__":
    main()
