"""The informed-play monitor, validated: simulated seats through the real rules and the real
signing path (version 2: every seat keyed, its commands signed, its seeds committed), one
export of bundles as the service writes them, and the monitor's verdict on it.

Honest seats play one of four strategies (``random``; ``threshold``: draw below 17;
``state``: a limit that moves with the cards seen, the opponents' moves and the hand's
size; ``tilt``: a limit that rises after each loss in a row). Cheating seats are tipped the
next card of the deck (``--tip next``: they draw exactly when it keeps their hand in play),
or, as players, the dealer's or banker's face-down card (``--tip opponent``: they draw
exactly when it is strong), or are Kvitlach partners, two at a table, showing each other
their hidden cards (``--tip partner``: they draw exactly when the partner's are high, or,
the partner being the banker, its face-down card is); they act on the tip with probability
p at each decision, playing ``threshold`` otherwise. Toto21 seats play matches in pairs (a
new table after each match, the seats known by their keys); Kvitlach seats three to a table
(classic rules).

Prints, after each number of rounds, the honest seats flagged (judged in one family with
every seat and pair, Holm's correction across all of them at the monitor's default level,
and again with each group's export judged alone) and the cheats found for each p (a pair
when either seat is flagged); then the honest seats' raw p-values, kind by kind.
Run: python bench/monitor.py [--honest N] [--cheaters N] [--rounds 50,100,200,500,1000]
    [--jobs N] [--tip next|opponent|partner] [--seed N]
or, to time the monitor: python bench/monitor.py --rounds 5000 --export FILE
"""

import argparse
import hashlib
import json
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
    banker: int | None = None  # Kvitlach: the banker's seat
    partners: dict[int, bool] = field(default_factory=dict)  # seat -> its hidden cards are high


@dataclass
class Seat:
    name: str
    strategy: str
    cheat: float = 0.0  # the chance it acts on the tip at a decision
    streak: int = 0  # losses in a row (the tilting strategy's memory)
    key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)
    partner: int | None = None  # a partner-tip seat's partner, at its table

    @property
    def key_name(self) -> str:
        return f"key:{public_key_hex(self.key)}"

    def draws(self, spot: Spot, rng: random.Random) -> bool:
        tip = self.tip(spot)
        if self.cheat and tip is not None and rng.random() < self.cheat:
            return tip
        return STRATEGIES[self.strategy](self, spot, rng)

    def tip(self, spot: Spot) -> bool | None:
        """What the seat's tip tells it to do: draw (True) or stop (False); None: no tip."""
        if self.strategy == OPPONENT_TIP or (
            self.strategy == PARTNER_TIP and self.partner == spot.banker
        ):
            return spot.opponent_good  # a banker partner shares its face-down card
        if self.strategy == PARTNER_TIP:
            return None if self.partner is None else spot.partners.get(self.partner)
        return spot.next_keeps


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
# tipped by the operator, or a dealer's or banker's partner) of the opponent's hidden card,
# or (Kvitlach partners) of the partner's hidden cards: high ones out of the deck leave
# lower ones to draw.
NEXT_TIP, OPPONENT_TIP, PARTNER_TIP = "next-tip", "opponent-tip", "partner-tip"
STRATEGIES |= {NEXT_TIP: _threshold, OPPONENT_TIP: _threshold, PARTNER_TIP: _threshold}
TIPS = {"next": NEXT_TIP, "opponent": OPPONENT_TIP, "partner": PARTNER_TIP}


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
    partners = {}
    for hand in play.hands.values():
        hidden = [int(deck.cards[p]) for p in hand.cards if p not in play.known]
        if hand.seat != seat and hidden:
            partners[hand.seat] = sum(hidden) >= 7 * len(hidden)
    return Spot(kvitlach_hands.best(own), len(own), shown, keeps, theirs, high, play.banker,
                partners)  # fmt: skip


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
    tipped = [n for n, seat in at.items() if seat.strategy == PARTNER_TIP]
    for n in tipped:
        at[n].partner = next((m for m in tipped if m != n), None)
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


def write_export(path: Path, rounds: int, seed: int = 29) -> int:
    """One export (JSON Lines) of ``rounds`` rounds, half a Toto21 pair's and half a
    Kvitlach table's, with a cheat at each (p = 0.25): the monitor's timing input."""
    half = rounds // 2
    pair = Group("toto21", (("x-t0", NEXT_TIP, 0.25), ("x-t1", "state", 0.0)), "xt")
    table = Group(
        "kvitlach", (("x-k0", "tilt", 0.0), ("x-k1", NEXT_TIP, 0.25), ("x-k2", "random", 0.0)),
        "xk",
    )  # fmt: skip
    bundled = []
    for group, count in ((pair, half), (table, rounds - half)):
        rng = random.Random(f"{seed} {group.name}")
        play = toto21_group if group.game == "toto21" else kvitlach_group
        bundled += play([seat_of(*spec) for spec in group.seats], count, rng, group.name)
    with path.open("w") as out:
        for line in export(bundled):
            out.write(json.dumps(line, separators=(",", ":")) + "\n")
    return len(bundled)


def groups(honest: int, cheaters: int, tip: str = NEXT_TIP) -> list[Group]:
    """``cheaters`` cheaters for each p, each at a table of honest seats, in turn Toto21
    (with one) and Kvitlach (with two); partners (``PARTNER_TIP``): ``cheaters`` pairs for
    each p, each pair at a Kvitlach table with an honest seat (named ``c<p>-<i>/a`` and
    ``/b``: a pair is one cheat). The rest of the ``honest`` seats play among themselves,
    half in each game."""
    pool = [(f"h{i}", HONEST[i % len(HONEST)], 0.0) for i in range(honest)]
    found: list[Group] = []
    for i, (name, _, p) in enumerate((f"c{p}-{i}", tip, p) for p in P_VALUES
                                     for i in range(cheaters)):  # fmt: skip
        if len(pool) < (2 if tip != PARTNER_TIP and i % 2 else 1):
            raise ValueError(f"{honest} honest seats are too few for the cheats' tables")
        if tip == PARTNER_TIP:
            pair = ((f"{name}/a", tip, p), (f"{name}/b", tip, p))
            found.append(Group("kvitlach", (*pair, pool.pop()), f"g{len(found)}"))
        elif i % 2 == 0:
            found.append(Group("toto21", ((name, tip, p), pool.pop()), f"g{len(found)}"))
        else:
            found.append(
                Group("kvitlach", ((name, tip, p), pool.pop(), pool.pop()), f"g{len(found)}")
            )
    toto21, kvitlach = pool[0::2], pool[1::2]
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
    groups: list[GroupResult] = field(default_factory=list)

    def add(self, result: GroupResult) -> None:
        self.seats += result.seats
        self.found += result.found
        self.order.update(result.order)
        self.rounds += len(result.order)
        self.groups.append(result)


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
        population.add(result)
    return population


def verdicts(population: Population, rounds: int, alpha: float = ALPHA) -> dict[str, bool]:
    """Each seat's flag (any kind, or a pair it is in) judged on its first ``rounds``
    rounds, in one family."""
    first = [o for o in population.found if population.order[f"{o.table}/{o.round}"] <= rounds]
    flagged = judge(first, alpha).flagged_seats
    return {key: key in flagged for key, _, _ in population.seats}


def alone(population: Population, rounds: int, alpha: float = ALPHA) -> dict[str, bool]:
    """Each seat's flag judged on its own group's first ``rounds`` rounds alone: a table's
    export, a family of a few tests, where an honest seat is likeliest to be flagged."""
    flags: dict[str, bool] = {}
    for result in population.groups:
        first = [o for o in result.found if result.order[f"{o.table}/{o.round}"] <= rounds]
        flagged = judge(first, alpha).flagged_seats
        flags.update({key: key in flagged for key, _, _ in result.seats})
    return flags


def calibration(population: Population, rounds: int) -> str:
    """The honest seats' and pairs' raw p-values, kind by kind: how many fall below 0.05,
    0.01 and 0.001 (a sound test's at most 5 %, 1 % and 0.1 % of them)."""
    honest = {key for key, _, cheat in population.seats if not cheat}
    first = [o for o in population.found if population.order[f"{o.table}/{o.round}"] <= rounds]
    by_kind: dict[str, list[float]] = {}
    for test in judge(first).tests:
        if set(test.seats) <= honest:
            by_kind.setdefault(f"{test.kind} ({test.method})", []).append(test.p)
    head = " ".join(f"{'p<' + str(level):>8}" for level in LEVELS)
    lines = [f"{'kind (test)':>24} {'tests':>6} {head}  smallest"]
    for kind, ps in sorted(by_kind.items()):
        cells = " ".join(f"{sum(p < level for p in ps) / len(ps):>8.2%}" for level in LEVELS)
        lines.append(f"{kind:>24} {len(ps):>6} {cells}  {min(ps):.1e}")
    return "\n".join(lines)


LEVELS = (0.05, 0.01, 0.001)


def cheats(population: Population, p: float) -> dict[str, list[str]]:
    """The cheats acting at ``p``, each with its seats' keys: a seat, or a pair of partners
    (named ``c<p>-<i>/a`` and ``/b``)."""
    found: dict[str, list[str]] = {}
    for key, name, cheat in population.seats:
        if cheat == p:
            found.setdefault(name.split("/")[0], []).append(key)
    return found


def power_table(population: Population, checkpoints: Sequence[int]) -> str:
    """Per number of rounds: honest seats flagged, and cheats found for each p (a pair is
    found when either of its seats is flagged, alone or as the pair)."""
    head = " ".join(f"{'p=' + str(p):>9}" for p in P_VALUES)
    lines = [f"{'rounds':>7}  {'honest flagged':>15}  {'(table alone)':>15}  {head}"]
    for rounds in checkpoints:
        flags, apart = verdicts(population, rounds), alone(population, rounds)
        honest = [key for key, _, cheat in population.seats if not cheat]
        wrong, wrong_apart = sum(flags[key] for key in honest), sum(apart[key] for key in honest)
        cells = []
        for p in P_VALUES:
            found = [any(flags[key] for key in keys) for keys in cheats(population, p).values()]
            cells.append(f"{sum(found):>4}/{len(found):<4}")
        lines.append(
            f"{rounds:>7}  {wrong:>7}/{len(honest):<7}  {wrong_apart:>7}/{len(honest):<7}  "
            + " ".join(cells)
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--honest", type=int, default=200, help="honest seats (default 200)")
    parser.add_argument("--cheaters", type=int, default=10, help="cheaters per p (default 10)")
    parser.add_argument(
        "--rounds", default="50,100,200,500", help="rounds after which seats are judged"
    )
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--jobs", type=int, default=1, help="processes playing the groups")
    parser.add_argument(
        "--tip", choices=tuple(TIPS), default="next",
        help="what the cheats are tipped: the next card, the dealer's or banker's hidden card, "
        "or (Kvitlach pairs) the partner's hidden cards",
    )  # fmt: skip
    parser.add_argument(
        "--export", type=Path, metavar="FILE",
        help="only write one export of the largest --rounds rounds, to time the monitor on",
    )  # fmt: skip
    args = parser.parse_args(argv)
    checkpoints = sorted(int(r) for r in args.rounds.split(","))
    start = time.perf_counter()
    if args.export:
        count = write_export(args.export, checkpoints[-1], args.seed)
        print(f"{count} rounds written to {args.export} in {time.perf_counter() - start:.0f} s")
        return 0
    tip = TIPS[args.tip]
    population = simulate(args.honest, args.cheaters, checkpoints[-1], args.seed, args.jobs, tip)
    print(
        f"{len(population.seats)} seats, {population.rounds} rounds played, signed, exported "
        f"and monitored in {time.perf_counter() - start:.0f} s "
        f"({len(population.found)} observations)"
    )
    print(f"seats flagged at family-wise level {ALPHA} (Holm, every seat in one family;")
    print("and each group's export judged alone, its few tests a family):")
    print(power_table(population, checkpoints))
    print(f"honest seats' and pairs' raw p-values after {checkpoints[-1]} rounds:")
    print(calibration(population, checkpoints[-1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
