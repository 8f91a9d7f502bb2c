"""An export's tables replayed through the rules, and each seat decision observed.

The replay is the core's (``fairdeal.table.started``, ``started_at``, ``runs``: SPEC 6.3,
6.6), so a run that is not the rules' stops the monitor as it stops the verifier; the
export should be verified first (``fairdeal-verify``), as the monitor checks no signature
of the operator's. Each round's server seed comes from its ``round_revealed`` in the same
bundle; from it, the state before each seat's move gives the whole deck.

Bundles are taken in export order (13.2). A table's bundles follow one another, each
starting where the previous ended; events a bundle repeats (the first bundle format starts
every bundle at ``table_created``) are skipped by ``seq``. A table first met at a
``table_state`` (a filtered export), or met again after a gap, is replayed from it.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from fairdeal.blind.elgamal import server_round_key
from fairdeal.bundle import signed_events
from fairdeal.errors import FairdealError
from fairdeal.events import Event, SignedEvent, actor_seat
from fairdeal.game import AnyGame
from fairdeal.games import registry
from fairdeal.games.toto21 import cipher
from fairdeal.monitor import kvitlach, toto21
from fairdeal.monitor.observations import ONCE_A_ROUND, Observation
from fairdeal.protocol import DECK_SHUFFLED, ROUND_KEY, ROUND_REVEALED, TABLE_CREATED, TABLE_STATE
from fairdeal.statements import BLIND, NOTHING_SEEN, SIGNED, command_data
from fairdeal.table import Replayed, runs, started, started_at


class Observer(Protocol):
    """A game's observations of a seat's move. It reads the round's deck from its server
    seed, or, in a dealer-blind round, is given the deck the round opened (``blind_deck``)."""

    def __call__(
        self,
        game: AnyGame,
        state: Any,
        event: Event,
        secret: bytes,
        seat_id: Callable[[int], str],
        *,
        blind_deck: tuple[str, ...] | None = None,
    ) -> list[Observation]: ...


OBSERVERS: Mapping[str, Observer] = {"toto21": toto21.observe, "kvitlach": kvitlach.observe}


class UnreadableBundleError(FairdealError):
    """A bundle the monitor cannot replay: not a bundle's shape, or a table's bundle that
    starts neither at its previous end nor at a ``table_created`` or ``table_state``."""


@dataclass
class _Table:
    replayed: Replayed
    last_seq: int


class Replayer:
    """Replays bundles in export order and returns each one's observations."""

    def __init__(self) -> None:
        self.tables: dict[str, _Table] = {}
        self.opened: dict[str, tuple[str, ...]] = {}  # the bundle's blind rounds' decks
        self.rounds = 0
        self.decisions = 0  # seat moves with a real choice

    def add(self, bundle: Mapping[str, Any]) -> list[Observation]:
        table_id, parsed = _parsed(bundle)
        known = self.tables.get(table_id)
        fresh = [p for p in parsed if known is None or p[0].event.seq > known.last_seq]
        if not fresh:
            return []
        if known is None or fresh[0][0].event.seq != known.last_seq + 1:
            known, fresh = _start(fresh)  # a new table, or one a filtered export skips in
            self.tables[table_id] = known
        if not fresh:
            return []
        events = [signed.event for signed, _, _ in fresh]
        seeds = _seeds(events)
        self.opened = _opened_decks(events, seeds)
        texts = [text for _, _, text in fresh]
        digests = [digest for _, digest, _ in fresh]
        found: list[Observation] = []
        before, index = known.replayed, 0
        for end, after in runs(before, events, seeds, texts, digests):
            found += self._observe(before, events[index], seeds)
            before, index = after, end
        # A round's events all lie in the bundle of its reveal: its first of each is here.
        once: set[tuple[str, str, str, str]] = set()
        found = [o for o in found if o.kind not in ONCE_A_ROUND or _first(once, o)]
        self.tables[table_id] = _Table(before, events[-1].seq)
        self.rounds += sum(1 for event in events if event.type == ROUND_REVEALED)
        return found

    def _observe(
        self, table: Replayed, first: Event, seeds: Mapping[str, bytes]
    ) -> list[Observation]:
        seat = actor_seat(first.actor)
        observer = OBSERVERS.get(table.game.name)
        secret = seeds.get(first.round or "")
        if seat is None or observer is None or secret is None:
            return []

        def seat_id(number: int) -> str:
            key = table.seats.get(number)
            if key is not None and key.key is not None:
                return f"key:{key.key}"
            return f"{first.table}/seat:{number}"

        blind_deck = self.opened.get(first.round or "")
        found = observer(table.game, table.state, first, secret, seat_id, blind_deck=blind_deck)
        self.decisions += 1 if found else 0
        return found


def _first(seen: set[tuple[str, str, str, str]], observation: Observation) -> bool:
    """Whether this is the seat's first observation of its kind (and partner) in its round
    (an approximate kind is observed once a round: observations.py)."""
    key = (observation.seat, observation.kind, observation.partner, observation.round)
    if key in seen:
        return False
    seen.add(key)
    return True


def observations(bundles: Iterable[Mapping[str, Any]]) -> Iterator[Observation]:
    """Every observation of an export's bundles, in export order."""
    replayer = Replayer()
    for bundle in bundles:
        yield from replayer.add(bundle)


Parsed = tuple[SignedEvent, bytes, str]


def _parsed(bundle: Mapping[str, Any]) -> tuple[str, list[Parsed]]:
    if not isinstance(bundle, Mapping):
        raise UnreadableBundleError("a bundle is a JSON object")
    table_id, events = bundle.get("table_id"), bundle.get("events")
    if not isinstance(table_id, str) or not isinstance(events, list) or not events:
        raise UnreadableBundleError("a bundle has a table_id and a list of events")
    return table_id, [SignedEvent.parse(obj) for obj in signed_events(bundle)]


def _start(parsed: Sequence[Parsed]) -> tuple[_Table, list[Parsed]]:
    """The table at a table's first bundle's first event, and the events after it."""
    signed, digest, _ = parsed[0]
    event = signed.event
    if event.type == TABLE_CREATED:
        game, state = started(registry(), event.data, event.version)
        replayed = Replayed(game, state, version=event.version)
        if event.version >= SIGNED:
            replayed = replace(replayed, seen=NOTHING_SEEN.then(event, digest.hex()))
    elif event.type == TABLE_STATE:
        replayed = started_at(registry(), event, event.data, digest)
    else:
        raise UnreadableBundleError(f"table {event.table} starts at seq {event.seq}: {event.type}")
    return _Table(replayed, event.seq), list(parsed[1:])


def _seeds(events: Sequence[Event]) -> dict[str, bytes]:
    seeds = {}
    for event in events:
        if event.type == ROUND_REVEALED and event.round is not None:
            seeds[event.round] = bytes.fromhex(event.data["server_seed"])
    return seeds


def _opened_decks(
    events: Sequence[Event], seeds: Mapping[str, bytes]
) -> dict[str, tuple[str, ...]]:
    """Each dealer-blind round's whole deck (SPEC 15.13.12): every position opened with the
    three private round keys, the service's from its revealed seed. A round in which a seat
    withheld its key has no open deck (its decisions are not observed)."""
    decks: dict[str, list[Mapping[str, str]]] = {}
    keys: dict[str, list[int]] = {}
    for event in events:
        if event.version < BLIND or event.round is None:
            continue
        data = command_data(event.version, event.data)
        if event.type == DECK_SHUFFLED:
            decks[event.round] = list(data["deck"])
        elif event.type == ROUND_KEY:
            keys.setdefault(event.round, []).append(
                int.from_bytes(bytes.fromhex(data["secret"]), "little")
            )
    opened = {}
    for round_id, deck in decks.items():
        secret = seeds.get(round_id)
        if secret is None or len(keys.get(round_id, [])) != 2:
            continue
        every = [server_round_key(secret), *keys[round_id]]
        opened[round_id] = tuple(cipher.open_with_keys(entry, every) for entry in deck)
    return opened
