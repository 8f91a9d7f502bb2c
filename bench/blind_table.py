"""Dealer-blind Toto21 tables (SPEC 15.13) against the issue's targets: the service's time to
the first card and to each further card, a round's bundle size, and fairdeal-verify's time on
one round with libsodium and with the pure-Python fallback.

Rounds are played through the engine (``table.execute``, as the service runs it) by two seat
parties (``fairdeal.games.toto21.party``); the service's time is the CPU time of its
``execute`` calls alone, the parties' work apart (a seat's shuffle step, its shares). Every
figure is a median over the rounds played, and each is also printed as a multiple of one
Ed25519 signature verification timed in the same run (the machine is shared: ratios carry
over, times drift). HTTP is not in these figures: bench/api.py measures the service's HTTP
overhead per request.
Run: python bench/blind_table.py [--rounds N]
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.blind import best  # noqa: E402
from fairdeal import table  # noqa: E402 - after the path is set
from fairdeal.blind import group as blind_group  # noqa: E402
from fairdeal.blind import shuffle  # noqa: E402
from fairdeal.bundle import FORMAT, signed_events  # noqa: E402
from fairdeal.games.toto21 import cipher  # noqa: E402
from fairdeal.verifier import load_trust, verify_bundle  # noqa: E402
from tests import blind_table  # noqa: E402
from tests.verifier import helpers  # noqa: E402

TARGETS = {
    "first card (service)": 2.0,
    "each further card (service)": 0.150,
    "verify one round, libsodium": 0.5,
    "verify one round, pure Python": 5.0,
}


class Timed(blind_table.BlindTable):
    """A blind table whose service time is counted: each ``execute``'s CPU time, by the type
    of the command that started the run."""

    def __post_init__(self) -> None:
        self.spent: dict[str, list[float]] = {}
        super().__post_init__()

    def _execute(self, command: Any) -> None:  # the service's part: timed
        start = time.process_time()
        self.table, signed = table.execute(self.table, command, self.secret, helpers.SIGNER)
        self.spent.setdefault(command.type, []).append(time.process_time() - start)
        self.log.extend(signed)


def play(rounds: int) -> tuple[Timed, list[str], dict[str, list[float]]]:
    """``rounds`` rounds; per round, the service's time to the first card the player can
    open (from the round's opening to the deal's last share, the parties' work apart) and
    to each card dealt by a hit (the hit and the other seat's share)."""
    t = Timed("bench-blind", {"target": 10, "game_time_ms": 86_400_000})
    played, figures = [], {"first": [], "further": []}
    while len(played) < rounds and t.state.phase == "playing":
        t.spent.clear()
        round_id = t.open_round()
        t.commit_and_reveal()
        while (t.state.hand is None or t.state.hand.turn is None) and t.step():
            pass
        first = sum(sum(times) for times in t.spent.values())
        figures["first"].append(first)
        hits_before = len(t.spent.get("hit", []))
        shares_before = len(t.spent.get("decryption_shares", []))
        while t.step():
            pass
        hits = t.spent.get("hit", [])[hits_before:]
        shares = t.spent.get("decryption_shares", [])[shares_before:]
        figures["further"] += [h + s for h, s in zip(hits, shares, strict=False)]
        played.append(round_id)
    return t, played, figures


def long_round() -> tuple[int, int, int]:
    """The cards dealt and the bundle's size (compact, in full) of the long round above (a
    deck the test arranges through the seats' own shuffles, as tests/blind_table.py does)."""
    t = Timed("bench-long", {"target": 10}, strategy=blind_table.to_twenty)
    t.open_round()
    t.commit_and_reveal()
    t.arrange(blind_table.LONG)
    while t.step():
        pass
    bundle = bundles(t, [str(t.round_id)])[0]
    return _dealt(bundle), _size(bundle), _full_size(bundle)


def _dealt(bundle: dict[str, Any]) -> int:
    return sum(1 for e in bundle["events"] if e["type"] == "card_dealt")


def _size(bundle: dict[str, Any]) -> int:
    """A bundle's bytes as compact JSON, as a file of it holds it."""
    return len(json.dumps(bundle, separators=(",", ":")).encode())


def _full_size(bundle: dict[str, Any]) -> int:
    """The same bundle's bytes in the second format (every event written in full)."""
    return _size({**bundle, "format": FORMAT, "events": signed_events(bundle)})


def bundles(t: Timed, played: list[str]) -> list[dict[str, Any]]:
    log = helpers.Log()
    for round_id in played:
        log.add(t, round_id)
    return [log.bundle(i, bounded=True, compact=True) for i in range(len(played))]  # as served


def verify_time(bundle: dict[str, Any], pure: bool) -> float:
    """CPU seconds of one verify_bundle, libsodium or pure Python (the verifier's group
    chosen afresh, its memos cleared)."""
    saved = blind_group._sodium
    if pure:
        blind_group._sodium = _no_sodium  # type: ignore[assignment]
    _forget()
    try:
        trust = load_trust([helpers.VERIFIER_KEY])
        start = time.process_time()
        report = verify_bundle(bundle, trust)
        spent = time.process_time() - start
        assert report.verdict == "valid", [f.code for f in report.findings]
        return spent
    finally:
        blind_group._sodium = saved
        _forget()


def _forget() -> None:
    """A cold verifier: the group chosen again, and nothing remembered of the proofs the
    service checked while the rounds were played (one process plays and verifies)."""
    cipher.group.cache_clear()
    cipher.server_group.cache_clear()
    shuffle._VERIFIED.clear()


def _no_sodium() -> Any:
    raise OSError("libsodium left out for the bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20, help="rounds played (default 20)")
    args = parser.parse_args()
    signer = Ed25519PrivateKey.from_private_bytes(bytes(32))
    public, message = signer.public_key(), b"fairdeal bench" * 8
    signature = signer.sign(message)
    baseline = best(lambda: public.verify(signature, message), 5, 2000)
    print(f"baseline: one Ed25519 verify (cryptography) {baseline * 1e6:.1f} µs")
    t, played, figures = play(args.rounds)
    made = bundles(t, played)
    sizes = [_size(b) for b in made]
    full = [_full_size(b) for b in made]
    cards = [_dealt(b) for b in made]
    typical = made[sizes.index(sorted(sizes)[len(sizes) // 2])]
    rows = {
        "first card (service)": statistics.median(figures["first"]),
        "each further card (service)": statistics.median(figures["further"] or [0.0]),
        "verify one round, libsodium": min(verify_time(typical, False) for _ in range(3)),
        "verify one round, pure Python": verify_time(typical, True),
    }
    print(f"{len(played)} rounds played; {len(figures['further'])} cards dealt by a hit")
    print(f"{'row':34} {'median':>10} {'x baseline':>11} {'target':>9}")
    for label, seconds in rows.items():
        ok = "ok" if seconds <= TARGETS[label] else "OVER"
        print(
            f"{label:34} {seconds * 1e3:8.1f} ms {seconds / baseline:10.0f}x"
            f" {TARGETS[label] * 1e3:7.0f} ms {ok}"
        )
    print("bundle of one round (a table_state to its reveal) as served (compact, SPEC 13.1.1),")
    print("bytes by cards dealt, next to the same events in full (the second format):")
    for count in sorted(set(cards)):
        of = [(s, w) for c, s, w in zip(cards, sizes, full, strict=True) if c == count]
        size, whole = (statistics.median(values) for values in zip(*of, strict=True))
        print(f"  {count:2} cards: {size:8.0f} bytes  (in full {whole:8.0f}; {len(of)} rounds)")
    dealt, size, whole = long_round()
    print(f"  a long round, {dealt} cards: {size} bytes  (in full {whole})")
    print(f"  largest played: {max(sizes)} bytes; target: 100 KB a round")


if __name__ == "__main__":
    main()
