"""The informed-play monitor, validated: simulated seats through the real rules and the real
signing path (version 2: every seat keyed, its commands signed, its seeds committed), one
export of bundles as the service writes them, and the monitor's verdict on it.

Honest seats play one of four strategies (``random``; ``threshold``: draw below 17;
``state``: a limit that moves with the cards seen, the opponents' moves and the hand's
size; ``tilt``: a limit that rises after each loss in a row). Cheating seats are tipped the
next card of the deck (``--tip next``: they draw exactly when it keeps their hand in play)
or, as players, the dealer's or banker's face-down card (``--tip opponent``: they draw
exactly when it is strong), and act on it with probability p at each decision, playing
``threshold`` otherwise. Toto21 seats play matches
in pairs (a new table after each match, the seats known by their keys); Kvitlach seats
three to a table (classic rules).

Prints the fraction of honest seats flagged, and a power table: the fraction of cheaters
flagged for each p after each number of rounds, each time judged in one family with every
honest seat (Holm's correction across all of them, at the monitor's default level).
Run: python bench/monitor.py [--honest N] [--cheaters N] [--rounds 50,100,200,500]
    [--jobs N] [--tip next|opponent]
"""

import argparse
import hashlib
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness
from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.errors import GameError
from fairdeal.events import SignedEvent, seat_actor
from fairdeal.frozen import evolve
from fairdeal.games import registry
from fairdeal.games.base import Command
from fairdeal.games.kvitlach import hands as kvitlach_hands
from fairdeal.games.kvitlach.run import deck_of as kvitlach_deck
from fairdeal.games.toto21 import hands as toto21_hands
from fairdeal.games.toto21.state import deck_of as toto21_deck
from fairdeal.games.toto21.state import visible_to_owner
from fairdeal.keys import Signer, key_id, public_key_pem
from fairdeal.merkle import MerkleTree
from fairdeal.monitor import ALPHA, Observation, judge, observations
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.protocol import SERVER
from fairdeal.statements import public_key_hex
from fairdeal.table import Table

# Run as a script, this folder is first on the import path: the repository root takes its
# place, so that bench.* is found there and bench/api.py never stands in for a package.
if not __package__:
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.simulate import Played, set_up

SIGNER = Signer(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"monitor bench").digest()))
ORIGIN = "bench.fairdeal/monitor"
NOTES = NoteSigner(ORIGIN, SIGNER.private_key)
T0 = 1_760_000_000_000
MAX_STEPS = 1000
SEED_MOVES = frozenset({"client_seed", "seed_commitment"})
STOPS = frozenset({"stand", "banker_stop"})
DRAWS = frozenset({"hit", "open_card", "banker_draw", "blind"})
P_VALUES = (1.0, 0.5, 0.25, 0.1)


@dataclass(frozen=True)
class Spot:
    """What a seat sees when it chooses between a card and a stop, and (for a cheater) the
    tip: whether the deck's next card keeps its hand in play."""

    total: int  # the seat's visible total (Toto21) or best total (Kvitlach)
    cards: int  # its visible cards
    shown: tuple[int, ...]  # the values of the other cards it sees
    next_keeps: bool | None  # None: the deck is empty
    their_cards: int = 0  # the cards its opponents have taken (their moves, in public)
    opponent_good: bool | None = None  # the tip about the dealer's or banker's hidden card


@dataclass
class Seat:
    name: str
    strategy: str
    cheat: float = 0.0  # the chance it acts on the tip at a decision
    streak: int = 0  # losses in a row (the tilting strategy's memory)
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def key_name(self) -> str:
        return f"key:{public_key_hex(self.key)}"

    def draws(self, spot: Spot, rng: random.Random) -> bool:
        tip = spot.opponent_good if self.strategy == OPPONENT_TIP else spot.next_keeps
        if self.cheat and tip is not None and rng.random() < self.cheat:
            return tip
        return STRATEGIES[self.strategy](self, spot, rng)


def _random(seat: Seat, spot: Spot, rng: random.Random) -> bool:
    return rng.random() < 0.5


def _threshold(seat: Seat, spot: Spot, rng: random.Random) -> bool:
    return spot.total < 17


def _state(seat: Seat, spot: Spot, rng: random.Random) -> bool:
    """A limit that moves with what the seat sees: the opponent's strength and moves, the
    size of its own hand, and how many low cards are gone (so it depends on the cards'
    make-up, and on what the opponents' moves tell of the cards they hold)."""
    limit = 17 if any(value >= 9 for value in spot.shown) else 15
    limit -= 2 if spot.cards >= 4 else 0
    limit += 1 if spot.their_cards >= 3 else 0
    limit += 1 if sum(1 for value in spot.shown if value <= 4) >= 2 else 0
    return spot.total < limit or (spot.total == limit and rng.random() < 0.3)


def _tilt(seat: Seat, spot: Spot, rng: random.Random) -> bool:
    return spot.total < 14 + min(seat.streak, 5)


STRATEGIES: dict[str, Callable[[Seat, Spot, random.Random], bool]] = {
    "random": _random, "threshold": _threshold, "state": _state, "tilt": _tilt,
}  # fmt: skip
HONEST = tuple(STRATEGIES)
# Cheats play ``threshold`` when they do not act on their tip: of the next card, or (a player
# tipped by the operator, or a dealer's or banker's partner) of the opponent's hidden card.
NEXT_TIP, OPPONENT_TIP = "next-tip", "opponent-tip"
STRATEGIES |= {NEXT_TIP: _threshold, OPPONENT_TIP: _threshold}


# The spot each game's seat to move is in.


def toto21_spot(state: Any, seat: int, secret: bytes) -> Spot:
    hand, deck = state.hand, toto21_deck(state, secret)
    own = [deck.cards[held.position] for held in visible_to_owner(hand, seat)]
    shown = tuple(toto21_hands.value(deck.cards[p]) for p in hand.known)
    following = deck.cards[hand.dealt()]
    keeps = toto21_hands.total([*own, following]) <= toto21_hands.LIMIT
    theirs = len(hand.of(hand.dealer if seat == hand.player else hand.player))
    ahead = None
    if seat == hand.player:
        up, hole = (deck.cards[held.position] for held in hand.of(hand.dealer)[:2])
        ahead = toto21_hands.total([up, hole]) >= toto21_hands.total(own)
    return Spot(toto21_hands.total(own), len(own), shown, keeps, theirs, ahead)


def kvitlach_spot(state: Any, seat: int, secret: bytes) -> Spot:
    play, deck = state.play, kvitlach_deck(state, secret)
    own = [deck.cards[p] for p in play.hand(seat).cards]
    shown = tuple(int(card) for card in play.known.values())
    keeps = None
    if play.dealt < len(deck.cards):
        keeps = not kvitlach_hands.is_bust([*own, deck.cards[play.dealt]])
    theirs = sum(len(hand.cards) for hand in play.hands.values() if hand.seat != seat)
    first = play.hand(play.banker).cards[0]
    high = None
    if seat != play.banker and first not in play.known:
        high = int(deck.cards[first]) >= 7
    return Spot(kvitlach_hands.best(own), len(own), shown, keeps, theirs, high)


SPOTS = {"toto21": toto21_spot, "kvitlach": kvitlach_spot}


def choose(
    table: Table[Any], seats: dict[int, Seat], secret: bytes, rng: random.Random
) -> tuple[int, str] | None:
    """The next move: a seed where one is due, else the move of the seat to act."""
    game, state = table.game, table.state
    moving = [(n, game.legal_actions(state, n, secret)) for n in seats]
    for number, legal in moving:
        if SEED_MOVES & set(legal):
            return number, "client_seed"
    for number, legal in moving:
        if not legal:
            continue
        draws, stops = [k for k in legal if k in DRAWS], [k for k in legal if k in STOPS]
        if not draws or not stops:
            return number, legal[0]  # a classic opening bet, a forced reject, a forced stand
        seat = seats[number]
        if not seat.draws(SPOTS[game.name](state, number, secret), rng):
            return number, stops[0]
        takes_blind = "blind" in draws and seat.strategy == "random" and rng.random() < 0.3
        return number, "blind" if takes_blind else draws[0]
    return None


def play_round(
    table: Table[Any], round_id: str, seats: dict[int, Seat], rng: random.Random, now: int
) -> Played:
    secret = hashlib.sha256(f"monitor bench {round_id}".encode()).digest()
    played = Played(table, keys={n: seat.key for n, seat in seats.items()})
    commitment = randomness.seed_commitment(secret).hex()
    played.run(Command("round_opened", SERVER, now, {"commitment": commitment}, round_id),
               secret, SIGNER)  # fmt: skip
    for _ in range(MAX_STEPS):
        if played.revealed:
            _settle_streaks(played.log, seats)
            return played
        move = choose(played.table, seats, secret, rng)
        if move is None:
            raise RuntimeError(f"round {round_id}: nobody may act and it has not ended")
        number, kind = move
        data: dict[str, Any] = {}
        if kind == "client_seed":
            data = {"seed": f"bot-{rng.getrandbits(64):016x}"}
        elif kind == "bet":
            data = {"amount": rng.randint(1, 5)}
        command = Command(kind, seat_actor(number), now, data, round_id)
        try:
            played.run(command, secret, SIGNER)
        except GameError:
            if kind != "bet":
                raise
            played.run(evolve(command, data={"amount": 1}), secret, SIGNER)
    raise RuntimeError(f"round {round_id} did not end in {MAX_STEPS} steps")


def _settle_streaks(log: Sequence[SignedEvent], seats: dict[int, Seat]) -> None:
    """Each seat's run of losses, from the round's results (the tilting seats' memory)."""
    won: dict[int, bool] = {}
    for signed in log:
        event = signed.event
        if event.type == "round_won":
            won = {n: n == event.data["seat"] for n in seats}
        elif event.type in ("hand_won", "hand_lost"):
            won[event.data["seat"]] = event.type == "hand_won"
        elif event.type == "round_settled":
            won.update({r["seat"]: r["outcome"] == "win" for r in event.data["results"]})
    for number, did in won.items():
        if number in seats:
            seats[number].streak = 0 if did else seats[number].streak + 1


# A group of seats plays its rounds; each finished round is one bundle's events.


@dataclass
class Bundled:
    table: str
    round: str
    events: list[SignedEvent]


TOTO21 = {"target": 10}
KVITLACH = {"max_seats": 3}


def toto21_group(
    seats: Sequence[Seat], rounds: int, rng: random.Random, name: str
) -> list[Bundled]:
    """Matches between two seats until they have played ``rounds`` rounds."""
    done: list[Bundled] = []
    match = 0
    while len(done) < rounds:
        match += 1
        order = list(seats)
        rng.shuffle(order)
        at = {n: seat for n, seat in enumerate(order)}
        table_id = f"{name}-m{match}"
        seating: list[tuple[str, str, dict[str, Any]]] = [
            ("seat_joined", "seat:0", {}), ("seat_joined", "seat:1", {}),
            ("joiner_accepted", "seat:0", {}),
        ]  # fmt: skip
        keys = {n: seat.key for n, seat in at.items()}
        table, log = set_up(registry()["toto21"], table_id, TOTO21, seating, signer=SIGNER,
                            now=T0, keys=keys)  # fmt: skip
        number = 0
        while table.state.phase != "over" and len(done) < rounds:
            number += 1
            played = play_round(table, f"{table_id}.{number}", at, rng, T0 + number * 1000)
            table = played.table
            done.append(Bundled(table_id, f"{table_id}.{number}", log + played.log))
            log = []
    return done


def kvitlach_group(
    seats: Sequence[Seat], rounds: int, rng: random.Random, name: str
) -> list[Bundled]:
    at = dict(enumerate(seats))
    seating = [("seat_joined", f"seat:{n}", {"buy_in": 10**9}) for n in at]
    keys = {n: seat.key for n, seat in at.items()}
    table, log = set_up(registry()["kvitlach"], name, KVITLACH, seating, signer=SIGNER, now=T0,
                        keys=keys)  # fmt: skip
    done: list[Bundled] = []
    for number in range(1, rounds + 1):
        played = play_round(table, f"{name}.{number}", at, rng, T0 + number * 1000)
        table = played.table
        done.append(Bundled(name, f"{name}.{number}", log + played.log))
        log = []
    return done


def export(rounds: Iterable[Bundled]) -> list[dict[str, Any]]:
    """The bundles of an export in leaf order (SPEC 13.2), each with its inclusion proof
    and the one checkpoint: what the service's export route writes."""
    rounds = list(rounds)
    tree = MerkleTree()
    for bundled in rounds:
        tree.append(bundled.events[-1].hash)
    note = sign_checkpoint(Checkpoint(ORIGIN, tree.size, tree.root()), NOTES)
    pem = public_key_pem(SIGNER.public_key).decode()
    keys = [{"key_id": key_id(SIGNER.public_key), "public_key_pem": pem, "current": True}]
    lines = []
    for index, bundled in enumerate(rounds):
        proof = tuple(h.hex() for h in tree.inclusion_proof(index, tree.size))
        entry = LogEntry(ORIGIN, NOTES.verifier_key(), index, bundled.events[-1].hash.hex(),
                         tree.size, proof, note)  # fmt: skip
        events = [signed.to_json() for signed in bundled.events]
        lines.append(make_bundle(bundled.table, bundled.round, events, keys, entry))
    return lines


# The population, and the verdicts.


@dataclass(frozen=True)
class Group:
    """Seats that play together: a Toto21 pair, or three at a Kvitlach table."""

    game: str
    seats: tuple[tuple[str, str, float], ...]  # (name, strategy, cheat) each
    name: str


@dataclass
class GroupResult:
    seats: list[tuple[str, str, float]]  # (key name, seat name, cheat)
    found: list[Observation]
    order: dict[str, int]  # "table/round" -> the group's round number


def seat_of(name: str, strategy: str, cheat: float) -> Seat:
    key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(name.encode()).digest())
    return Seat(name, strategy, cheat, key=key)


def run_group(group: Group, rounds: int, seed: int) -> GroupResult:
    """One group's rounds, played and signed, written as an export of its own log, and
    read by the monitor."""
    rng = random.Random(f"{seed} {group.name}")
    seats = [seat_of(*spec) for spec in group.seats]
    play = toto21_group if group.game == "toto21" else kvitlach_group
    bundled = play(seats, rounds, rng, group.name)
    found = list(observations(export(bundled)))
    order = {f"{b.table}/{b.round}": i + 1 for i, b in enumerate(bundled)}
    return GroupResult([(s.key_name, s.name, s.cheat) for s in seats], found, order)


def groups(honest: int, cheaters: int, tip: str = NEXT_TIP) -> list[Group]:
    """``honest`` honest seats, half in each game, and ``cheaters`` cheaters for each p, each
    at a table of honest seats (counted among the ``honest``), in turn Toto21 and Kvitlach."""
    honest_seats = [(f"h{i}", HONEST[i % len(HONEST)], 0.0) for i in range(honest)]
    toto21, kvitlach = honest_seats[0::2], honest_seats[1::2]
    cheats = [(f"c{p}-{i}", tip, p) for p in P_VALUES for i in range(cheaters)]
    found: list[Group] = []
    for i, cheat in enumerate(cheats):
        if i % 2 == 0 and toto21:
            found.append(Group("toto21", (cheat, toto21.pop()), f"g{len(found)}"))
        elif len(kvitlach) >= 2:
            found.append(
                Group("kvitlach", (cheat, kvitlach.pop(), kvitlach.pop()), f"g{len(found)}")
            )
    for i in range(0, len(toto21) - 1, 2):
        found.append(Group("toto21", tuple(toto21[i : i + 2]), f"g{len(found)}"))
    for i in range(0, len(kvitlach) - 2, 3):
        found.append(Group("kvitlach", tuple(kvitlach[i : i + 3]), f"g{len(found)}"))
    return found


@dataclass
class Population:
    seats: list[tuple[str, str, float]] = field(default_factory=list)  # key name, name, cheat
    found: list[Observation] = field(default_factory=list)
    order: dict[str, int] = field(default_factory=dict)
    rounds: int = 0


def simulate(
    honest: int, cheaters: int, rounds: int, seed: int = 29, jobs: int = 1, tip: str = NEXT_TIP
) -> Population:
    """Every group played and monitored (``jobs`` processes), gathered in one population."""
    work = groups(honest, cheaters, tip)
    population = Population()
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(run_group, work, repeat(rounds), repeat(seed)))
    else:
        results = [run_group(group, rounds, seed) for group in work]
    for result in results:
        population.seats += result.seats
        population.found += result.found
        population.order.update(result.order)
        population.rounds += len(result.order)
    return population


def verdicts(population: Population, rounds: int, alpha: float = ALPHA) -> dict[str, bool]:
    """Each seat's flag (any kind) judged on its first ``rounds`` rounds, in one family."""
    first = [o for o in population.found if population.order[f"{o.table}/{o.round}"] <= rounds]
    flagged = {test.seat for test in judge(first, alpha).flagged}
    return {key: key in flagged for key, _, _ in population.seats}


def power_table(population: Population, checkpoints: Sequence[int]) -> str:
    head = " ".join(f"{'p=' + str(p):>9}" for p in P_VALUES)
    lines = [f"{'rounds':>7}  {'honest flagged':>15}  {head}"]
    for rounds in checkpoints:
        flags = verdicts(population, rounds)
        honest = [key for key, _, cheat in population.seats if not cheat]
        wrong = sum(flags[key] for key in honest)
        cells = []
        for p in P_VALUES:
            group = [key for key, _, cheat in population.seats if cheat == p]
            cells.append(f"{sum(flags[key] for key in group):>4}/{len(group):<4}")
        lines.append(f"{rounds:>7}  {wrong:>7}/{len(honest):<7}  " + " ".join(cells))
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--honest", type=int, default=200, help="honest seats (default 200)")
    parser.add_argument("--cheaters", type=int, default=10, help="cheaters per p (default 10)")
    parser.add_argument(
        "--rounds", default="50,100,200,500", help="rounds after which seats are judged"
    )
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing the groups")
    parser.add_argument(
        "--tip", choices=("next", "opponent"), default="next",
        help="what the cheats are tipped: the next card, or the dealer's or banker's hidden card",
    )  # fmt: skip
    args = parser.parse_args(argv)
    checkpoints = sorted(int(r) for r in args.rounds.split(","))
    start = time.perf_counter()
    tip = NEXT_TIP if args.tip == "next" else OPPONENT_TIP
    population = simulate(args.honest, args.cheaters, checkpoints[-1], args.seed, args.jobs, tip)
    print(
        f"{len(population.seats)} seats, {population.rounds} rounds played, signed, exported "
        f"and monitored in {time.perf_counter() - start:.0f} s "
        f"({len(population.found)} observations)"
    )
    print(f"seats flagged at family-wise level {ALPHA} (Holm, every seat in one family):")
    print(power_table(population, checkpoints))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
