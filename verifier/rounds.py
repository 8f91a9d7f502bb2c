"""Steps (5) timeouts, (6) commitment, (7) client seeds, (8) shuffle, (9) cards, (14) ends.

These are the verifier's own checks of the round protocol, independent of the game
modules: they read only the shared round events, derive each deck from the revealed
seed with the core's randomness functions, and scan every event's data for shown
cards ({position, card, salt}). A bug in a game's rules cannot hide from them.

In a version-2 table a seat may commit to its seed first (SPEC 6.4): the commitments
come before ``seeds_committed``, which opens the reveals; each reveal must open its
seat's commitment, and a reveal withheld past the deadline voids the round under the
withholding seats' names. A round in which no seat commits is a version-1 round.

In a version-3 (dealer-blind) table every seat commits, with its round key, and a commitment
missed voids the round; no deck is drawn from the shuffle key: steps (8) and (9) check the
round keys, the shuffle chain, the ciphertexts, the shares and the opened cards instead
(blind.py). A seat's event is read by its command data (SPEC 15.13.11).
"""

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fairdeal import cards, randomness
from fairdeal.blind.group import Group
from fairdeal.errors import SeedError
from fairdeal.events import Event, actor_seat
from fairdeal.protocol import (
    CARD_DEALT,
    CARD_OPENED,
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    ROUND_KEY,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEED_WITHHELD,
    SEEDS_COMMITTED,
    SERVER,
    TABLE_STATE,
    is_hex64,
)
from fairdeal.statements import BLIND, FIRST, SIGNATURE, SIGNED, command_data

from . import blind
from .blind import BlindChecks, BlindRound
from .findings import Finding
from .money import is_balances

_FACES = {"up": "card", "down": "commitment", "blind": "commitment"}


@dataclass
class _Round:
    id: str
    commitment: str
    seats: list[int]
    seed_deadline: int
    seeds: dict[int, str] = field(default_factory=dict)
    timed_out: set[int] = field(default_factory=set)
    commitments: dict[int, str] = field(default_factory=dict)
    revealing: bool = False  # seeds_committed is logged: only committed seats send seeds
    withheld: list[int] = field(default_factory=list)  # the reveals' seed_timeout named them
    voided: bool = False
    sealed: bool = False
    next_position: int = 0
    revealed: bool = False
    deck: tuple[str, ...] | None = None
    key: bytes = b""
    blind: BlindRound | None = None  # version 3: what steps (8) and (9) carry


def revealed_seeds(events: Iterable[Event]) -> dict[str, bytes]:
    """Each round's revealed server seed (well-formed ones only; the rest are findings)."""
    seeds: dict[str, bytes] = {}
    for event in events:
        seed = event.data.get("server_seed") if event.type == ROUND_REVEALED else None
        if event.round is not None and isinstance(seed, str) and is_hex64(seed):
            seeds.setdefault(event.round, bytes.fromhex(seed))
    return seeds


def snapshot_problem(table: str, event: Event) -> Finding | None:
    """(1) A table_state whose data lack what the verifier's own checks read: the game's
    name, its options (for the deck rules) and the balances (SPEC 6.6)."""
    data = event.data
    if (
        isinstance(data.get("game"), str)
        and isinstance(data.get("options"), dict)
        and is_balances(data.get("balances"))
    ):
        return None
    reason = "table_state needs game, options and balances"
    return Finding("schema.data", table, event.round, event.seq, reason)


def is_timeout(event_type: str) -> bool:
    return event_type.endswith(("_timeout", "time_up"))


class RoundChecker:
    """Follows the rounds of one table's chain, event by event."""

    def __init__(
        self,
        table: str,
        deck_rules: Mapping[str, Any],
        seeds: dict[str, bytes],
        bounded: bool = False,
        version: int = FIRST,
        *,
        group: Group | None = None,
    ):
        self.table = table
        self.version = version  # the chain's: a version-1 table takes no commitments
        self.deck_rules = dict(deck_rules)
        self.seeds = seeds
        self.current: _Round | None = None
        self.finished: set[str] = set()
        self.findings: list[Finding] = []
        # (3) from a chain's first table_state on, round ids are <table>.<number>, so none
        # is used twice without a list of every id the table used (SPEC 6.6)
        self.bounded = bounded
        # version 3's steps (8) and (9); ``group``: the backend (None: libsodium, else pure)
        self.blind = BlindChecks(table, deck_rules, self._find, group)

    def _find(self, code: str, event: Event, reason: str) -> None:
        self.findings.append(Finding(code, self.table, event.round, event.seq, reason))

    def check(self, event: Event) -> None:
        """One event."""
        # (5) a timeout is stamped at or after the deadline it names
        if is_timeout(event.type):
            deadline = event.data.get("deadline")
            if type(deadline) is int and event.time < deadline:
                self._find("time.timeout_early", event, f"at {event.time}, deadline {deadline}")
        if event.round is None:
            if event.type == TABLE_STATE:
                self._table_state(event)
            return
        if event.type == ROUND_OPENED:
            self._open(event)
            return
        current = self.current
        if current is None or current.id != event.round:
            self._find("chain.misplaced", event, "an event of a round that is not in progress")
            return
        if current.revealed:
            self._find("round.after_reveal", event, "a round event after the reveal")
            return
        self._step(current, self._as_recorded(event))

    def _as_recorded(self, event: Event) -> Event:
        """A seat's event as the rules record it: in version 2, without the statement the
        seat signed (``signed``), which the replay checks (SPEC 6.7); in version 3, its
        command data, the members it signed being logged inside ``signed`` (15.13.11)."""
        if self.version < SIGNED or event.actor == SERVER or SIGNATURE not in event.data:
            return event
        logged = command_data(self.version, event.data) if self.version >= BLIND else event.data
        data = {name: value for name, value in logged.items() if name != SIGNATURE}
        return replace(event, data=data)

    def _table_state(self, event: Event) -> None:
        self.bounded = True
        problem = snapshot_problem(self.table, event)
        self.findings.extend([problem] if problem else [])

    def _open(self, event: Event) -> None:
        data, round_id = event.data, str(event.round)
        if round_id in self.finished or (self.current and self.current.id == round_id):
            self._find("chain.misplaced", event, f"round id {round_id} is used twice")
        elif self.bounded and not _numbered(self.table, round_id, data.get("number")):
            reason = f"round id {round_id} is not {self.table}.<number> after a table_state"
            self._find("chain.misplaced", event, reason)
        self._close_current(event)
        seats, commitment = data.get("seats"), data.get("commitment")
        deadline = data.get("seed_deadline")
        if not (
            isinstance(commitment, str)
            and is_hex64(commitment)
            and isinstance(seats, list)
            and all(type(s) is int for s in seats)
            and len(set(seats)) == len(seats)
            and type(deadline) is int
            and type(data.get("number")) is int
        ):
            self._find(
                "schema.data", event, "round_opened needs commitment, number, seats, deadline"
            )
            self.current = None
            return
        self.current = _Round(round_id, commitment, list(seats), deadline)
        if self.version >= BLIND:
            problem = blind.server_key_problem(data)
            if problem is not None:
                self._find("schema.data", event, problem)
            seed = self.seeds.get(round_id)
            self.current.blind = self.blind.open(event, list(seats), seed)

    def _close_current(self, event: Event) -> None:
        current = self.current
        if current is not None and not current.revealed and current.sealed:
            reason = f"round {current.id} was sealed and never settled, voided or revealed"
            self._find("round.unfinished", event, reason)

    def finish(self, last: Event | None) -> None:
        """At the end of the events: a sealed round left without its reveal."""
        if last is not None:
            self._close_current(last)

    def _step(self, current: _Round, event: Event) -> None:
        blind_handler = _BLIND_HANDLERS.get(event.type)
        handler = _HANDLERS.get(event.type)
        if current.blind is not None and blind_handler is not None:
            blind_handler(self.blind, current.blind, event)
        elif handler is not None:
            handler(self, current, event)
        if current.deck is not None:
            for shown in _shown_cards(event.data):
                self._check_shown(current, event, shown)

    # (7) client seeds before the seal
    def _client_seed(self, current: _Round, event: Event) -> None:
        seat, seed = actor_seat(event.actor), event.data.get("seed")
        problem = None
        if current.sealed:
            problem = "a client seed after the seal"
        elif seat not in current.seats:
            problem = "a client seed from a seat not in the round"
        elif seat in current.seeds or seat in current.timed_out:
            problem = "a second seed, or a seed after the seat timed out"
        elif not isinstance(seed, str) or set(event.data) != {"seed"}:
            problem = "client_seed carries exactly one text member, seed"
        elif self.version >= BLIND and not current.revealing:
            problem = "a plain client seed in a blind round's commit phase: every seat commits"
        if problem is None:
            problem = _seed_problem(str(seed))
        if problem is not None:
            self._find("seed.client", event, problem)
        elif seat is not None:
            self._check_reveal(current, event, seat, str(seed))
            current.seeds[seat] = str(seed)

    def _check_reveal(self, current: _Round, event: Event, seat: int, seed: str) -> None:
        """A committed seat's seed comes once the reveals are open, and opens its
        commitment; once they are open, only committed seats send seeds."""
        committed = current.commitments.get(seat)
        if committed is None and current.revealing:
            problem = "sent during the reveals by a seat that did not commit"
        elif committed is not None and not current.revealing:
            problem = "sent before seeds_committed opened the reveals"
        elif committed is not None and not _opens(current.id, seat, seed, committed):
            problem = "does not open the seat's commitment"
        else:
            return
        self._find("seed.reveal", event, f"seat {seat}'s seed {problem}")

    def _seed_commitment(self, current: _Round, event: Event) -> None:
        """A seat of the round commits once, before the reveals open (version 2)."""
        seat, commitment = actor_seat(event.actor), event.data.get("commitment")
        problem = None
        if self.version < SIGNED:
            problem = "a version-1 table takes no seed commitments"
        elif current.sealed or current.revealing:
            problem = "a seed commitment once the reveals are open"
        elif seat not in current.seats:
            problem = "a seed commitment from a seat not in the round"
        elif seat in current.commitments or seat in current.seeds or seat in current.timed_out:
            problem = "a second commitment, or one after the seat's seed or timeout"
        elif set(event.data) != _commitment_members(self.version) or not is_hex64(commitment):
            members = " and ".join(sorted(_commitment_members(self.version)))
            problem = f"seed_commitment carries exactly {members}, commitment 64 lowercase hex"
        if problem is not None:
            self._find("seed.client", event, problem)
        elif seat is not None:
            current.commitments[seat] = str(commitment)
            if current.blind is not None:  # (8) its round key
                self.blind.commitment(current.blind, event, seat)

    def _seeds_committed(self, current: _Round, event: Event) -> None:
        """The reveals open once no seat is pending, if a committed seed is to be revealed."""
        deadline, waiting = event.data.get("deadline"), _waiting(current)
        problem = None
        if current.sealed or current.revealing:
            problem = "seeds_committed after the seal, or twice"
        elif set(event.data) != {"deadline"} or type(deadline) is not int:
            problem = "seeds_committed carries exactly deadline, an integer"
        elif waiting:
            problem = f"seats {waiting} have neither committed, sent a seed nor timed out"
        elif not _unrevealed(current):
            problem = "no committed seed is left to reveal"
        if problem is not None:
            self._find("seed.client", event, problem)
        current.revealing = True
        if type(deadline) is int:
            current.seed_deadline = deadline  # the reveals' deadline

    def _seed_timeout(self, current: _Round, event: Event) -> None:
        """Before the reveals, the seats with neither a commitment nor a seed are out;
        during them, the committed seats that did not reveal withheld their seeds. In
        version 3 a seat that did not commit withheld its round key too: the round is void."""
        missing = _unrevealed(current) if current.revealing else _waiting(current)
        expected = {"deadline": current.seed_deadline, "seats": missing}
        if current.sealed or dict(event.data) != expected or not missing:
            self._find("seed.client", event, f"seed_timeout must be {expected} before the seal")
        elif current.revealing or self.version >= BLIND:
            current.withheld = missing
        else:
            current.timed_out.update(missing)

    def _sealed(self, current: _Round, event: Event) -> None:
        expected = [current.seeds.get(seat, "") for seat in current.seats]
        ready = not _waiting(current) and not _unrevealed(current)
        if current.withheld:
            self._find("seed.withheld", event, f"seats {current.withheld} withheld: no seal")
        elif current.sealed or not ready or dict(event.data) != {"client_seeds": expected}:
            self._find("seed.client", event, f"the seal must carry the seeds {expected}")
        current.sealed = True
        self._derive_deck(current, event, expected)
        if current.blind is not None:  # version 3: the key draws the service's step only
            self.blind.sealed(current.blind, current.key or None)

    # (6) commitment and (8) the shuffle
    def _derive_deck(self, current: _Round, event: Event, client_seeds: list[str]) -> None:
        seed = self.seeds.get(current.id)
        if seed is None:
            return  # no reveal: (14) reports it
        try:
            order = cards.canonical_deck(self.deck_rules["game"], self.deck_rules["decks"])
        except (KeyError, ValueError, TypeError):
            self._find("deck.rules", event, f"no deck for the rules {self.deck_rules}")
            return
        commitment = bytes.fromhex(current.commitment)
        rules = self.deck_rules
        current.key = randomness.shuffle_key(seed, current.id, commitment, client_seeds, rules)
        if current.blind is None:  # version 3 draws no deck from the key (blind.py)
            current.deck = tuple(randomness.shuffle(current.key, order))

    # (9) every dealt card
    def _position(self, current: _Round, event: Event, position: int, ready: bool) -> None:
        """Positions are dealt in order, none skipped or repeated, once the deck is ready."""
        if not ready or position != current.next_position:
            reason = f"position {position}, expected {current.next_position} after the seal"
            if current.blind is not None and not current.blind.complete:
                reason = f"position {position} dealt before the last shuffle step"
            self._find("card.position", event, reason)
        current.next_position = max(current.next_position, position + 1)

    def _dealt(self, current: _Round, event: Event) -> None:
        if current.blind is not None:
            self._dealt_blind(current, current.blind, event)
            return
        data, deck = event.data, current.deck
        position, face = data.get("position"), data.get("face")
        members = {"position", "seat", "face", _FACES.get(str(face), "card")}
        seat = data.get("seat")
        if (
            not isinstance(face, str)
            or face not in _FACES
            or set(data) != members
            or type(position) is not int
        ):
            self._find(
                "schema.data", event, "card_dealt needs position, seat, face, card|commitment"
            )
            return
        if not (seat is None or type(seat) is int):
            self._find("schema.data", event, "card_dealt's seat is an integer or null")
        self._position(current, event, position, current.sealed)
        if deck is None:
            return
        if not 0 <= position < len(deck):
            self._find("card.position", event, f"position {position} is past the deck's end")
        elif face == "up" and data["card"] != deck[position]:
            self._find("card.wrong_card", event, f"position {position} is {deck[position]}")
        elif face != "up" and data["commitment"] != self._commitment(current, position):
            self._find("card.commitment", event, f"not the commitment of position {position}")

    def _dealt_blind(self, current: _Round, blind_round: BlindRound, event: Event) -> None:
        """(1) a version-3 card_dealt's form, (9) its position, ciphertext and share."""
        problem = blind.card_dealt_problem(event.data)
        if problem is not None:
            self._find("schema.data", event, problem)
            return
        ready = current.sealed and blind_round.complete
        self._position(current, event, event.data["position"], ready)
        self.blind.dealt(blind_round, event)

    def _commitment(self, current: _Round, position: int) -> str:
        assert current.deck is not None
        salt = _salt(current, position)
        return randomness.card_commitment(salt, current.deck[position]).hex()

    def _check_shown(self, current: _Round, event: Event, shown: Mapping[str, Any]) -> None:
        assert current.deck is not None
        position, card, salt = shown["position"], shown["card"], shown["salt"]
        if type(position) is not int or not 0 <= position < current.next_position:
            self._find("card.shown", event, f"shows position {position!r}, never dealt")
            return
        if position >= len(current.deck):  # dealt past the deck's end: card.position's
            self._find("card.shown", event, f"shows position {position}, past the deck's end")
            return
        expected_salt = _salt(current, position).hex()
        if card != current.deck[position] or not _same_text(salt, expected_salt):
            self._find("card.shown", event, f"position {position} is not {card!r} with that salt")

    # (14) settled or voided with a reason, and revealed; (7) a withheld reveal voids the
    # round, naming exactly the seats that withheld
    def _voided(self, current: _Round, event: Event) -> None:
        reason = event.data.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            self._find("round.void_reason", event, "a voided round must say why")
        if current.withheld or reason == SEED_WITHHELD:
            expected = {"reason": SEED_WITHHELD, "seats": current.withheld}
            if not current.withheld:
                self._find(
                    "seed.withheld", event, "no seed_timeout at the reveal deadline names its seats"
                )
            elif dict(event.data) != expected:
                self._find("seed.withheld", event, f"the void must be {expected}")
        current.voided = True

    def _revealed(self, current: _Round, event: Event) -> None:
        if current.withheld and not current.voided:
            reason = f"seats {current.withheld} withheld their seeds: the round is not voided"
            self._find("seed.withheld", event, reason)
        seed = event.data.get("server_seed")
        if set(event.data) != {"server_seed"} or not isinstance(seed, str):
            self._find("schema.data", event, "round_revealed carries exactly server_seed")
        elif not is_hex64(seed):
            self._find("schema.data", event, "server_seed is not 64 lowercase hex digits")
        else:
            commitment = randomness.seed_commitment(bytes.fromhex(seed)).hex()
            if not hmac.compare_digest(commitment, current.commitment):
                self._find("seed.commitment", event, "the revealed seed is not the committed one")
        if current.blind is not None:
            self.blind.revealed(current.blind, event)
        current.revealed = True
        self.finished.add(current.id)


_HANDLERS = {
    SEED_COMMITMENT: RoundChecker._seed_commitment,
    SEEDS_COMMITTED: RoundChecker._seeds_committed,
    CLIENT_SEED: RoundChecker._client_seed,
    SEED_TIMEOUT: RoundChecker._seed_timeout,
    ROUND_SEALED: RoundChecker._sealed,
    CARD_DEALT: RoundChecker._dealt,
    ROUND_VOIDED: RoundChecker._voided,
    ROUND_REVEALED: RoundChecker._revealed,
}
# Events only a version-3 (blind) round's checks read; a blind round has none of
# the committed deck's salts, so the scan of shown cards does not apply to it either
_BLIND_HANDLERS = {
    DECK_SHUFFLED: BlindChecks.shuffled,
    DECRYPTION_SHARES: BlindChecks.shares,
    CARD_OPENED: BlindChecks.card_opened,
    ROUND_KEY: BlindChecks.round_key,
    blind.CARDS_SHOWN: BlindChecks.shown,
}


def _commitment_members(version: int) -> set[str]:
    """A seed_commitment's members: version 3 adds the seat's round key (SPEC 15.13.3.2)."""
    return {"commitment", "round_key"} if version >= BLIND else {"commitment"}


def _numbered(table: str, round_id: str, number: Any) -> bool:
    """(3) Whether ``round_id`` is the table id, a full stop and the integer ``number`` in
    decimal (SPEC 6.6): the service's name for the table's round of that number."""
    return type(number) is int and round_id == f"{table}.{number}"


def _opens(round_id: str, seat: int, seed: str, commitment: str) -> bool:
    opened = randomness.client_seed_commitment(round_id, seat, seed).hex()
    return hmac.compare_digest(opened, commitment)


def _waiting(current: _Round) -> list[int]:
    """The seats yet to commit or send a seed, none timed out: in seats order."""
    return [
        seat
        for seat in current.seats
        if seat not in current.seeds
        and seat not in current.commitments
        and seat not in current.timed_out
    ]


def _unrevealed(current: _Round) -> list[int]:
    """The committed seats that have not revealed their seeds: in seats order."""
    return [s for s in current.seats if s in current.commitments and s not in current.seeds]


def _salt(current: _Round, position: int) -> bytes:
    """The card salt (3.8) of a position of the round's deck."""
    return randomness.card_salt(current.key, position)


def _seed_problem(seed: str) -> str | None:
    try:
        randomness.check_client_seed(seed)
    except SeedError as e:
        return str(e)
    return None


def _same_text(value: Any, expected: str) -> bool:
    return isinstance(value, str) and hmac.compare_digest(value.encode(), expected.encode())


def _shown_cards(
    value: Any, found: list[Mapping[str, Any]] | None = None
) -> list[Mapping[str, Any]]:
    """Every {position, card, salt} object anywhere in an event's data, in document order."""
    found = [] if found is None else found
    if isinstance(value, dict):
        if {"position", "card", "salt"} <= value.keys():
            found.append(value)
        value = value.values()
    elif not isinstance(value, list):
        return found
    for item in value:
        if isinstance(item, dict | list):
            _shown_cards(item, found)
    return found
