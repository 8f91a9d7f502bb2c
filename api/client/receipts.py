"""Checking receipts: one table's chain as the client has checked it (``TableLog``, with
what the engine checks a seat's statement against, SPEC 6.7), the receipt that records a
request, and the private cards a view shows against their signed commitments."""

import hmac
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fairdeal import randomness, statements
from fairdeal.canonical import json_text
from fairdeal.errors import FairdealError, GameError, HashMismatchError, SignatureError
from fairdeal.events import ChainHead, Event, SignedEvent, actor_seat
from fairdeal.games import registry
from fairdeal.games.base import AnyGame, Command
from fairdeal.protocol import (
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEEDS_COMMITTED,
    TABLE_CREATED,
    TABLE_STATE,
)
from fairdeal.statements import BLIND, NO_KEYS, NOTHING_SEEN, SIGNED, SeatKeys, Seen
from fairdeal.table import SEAT_KEYS, started

from .errors import (
    ReceiptChainError,
    ReceiptError,
    ReceiptMismatchError,
    ReceiptSignatureError,
    SeatStatementError,
)


@dataclass
class TableLog:
    """One table's chain as this client has checked it, its card commitments, and what
    the engine checks a seat's statement against (SPEC 6.7)."""

    head: ChainHead
    commitments: dict[tuple[str | None, int], str] = field(default_factory=dict)
    hashes: list[bytes] = field(default_factory=list)  # by seq, as checked
    seeding: str | None = None  # the round opened and not yet sealed (nor voided)
    reveals_open: str | None = None  # that round, once seeds_committed opened its reveals
    version: int = SIGNED  # the chain's, its table_created's: a later event cannot lower it
    # version 2: each seat's bound key and last n, and the events a statement may name
    seats: SeatKeys = field(default_factory=lambda: NO_KEYS)
    seen: Seen = NOTHING_SEEN
    # version 3 (a dealer-blind table): the game's state, folded from the checked chain with
    # the rules, and the current round's events as a seat's party reads them (type, actor,
    # command data, SPEC 15.13.11)
    game: AnyGame | None = None
    state: Any = None
    round_events: list[tuple[str, str, Mapping[str, Any]]] = field(default_factory=list)

    @property
    def after(self) -> dict[str, Any]:
        """The last checked event, as a seat's statement names the log it saw: {seq, hash}."""
        return {"seq": self.head.next_seq - 1, "hash": self.head.prev}

    def admit(self, event: Event) -> None:
        """Check the next event as the engine checked its command before logging it: a
        seat's statement (or key) by ``statements.admit``, as a replay does (``table.runs``),
        and logged exactly as the engine logs it; a table_state's seat keys, the ones the
        chain binds. A seat's event is always the first of its command's run."""
        if event.type == TABLE_STATE:
            listed = json_text(event.data.get(SEAT_KEYS))
            if self.version >= SIGNED and listed != json_text(statements.to_json(self.seats)):
                raise ReceiptChainError(
                    f"table {event.table} seq {event.seq}: table_state lists seat keys "
                    "other than the ones the chain binds"
                )
            return
        seat = actor_seat(event.actor)
        if seat is None:
            return
        command = Command.of(event)
        try:
            if self.version >= SIGNED:
                command = statements.as_sent(command)
            _, members = statements.admit(self.version, self.seats, self.seen, event.table, command)
        except GameError as e:
            raise SeatStatementError(event, seat, e.code, str(e)) from e
        for name, value in (members or {}).items():
            if name not in event.data or json_text(event.data[name]) != json_text(value):
                reason = f"its {name} is not logged as the engine logs it"
                raise SeatStatementError(event, seat, "mismatch", reason)

    def follow(self, event: Event, event_hash: bytes) -> None:
        """Where the table's seeding, and its seats' keys, stand after ``event``."""
        if self.version >= SIGNED:
            self.seats = statements.after(self.seats, [event.draft])
            self.seen = self.seen.then(event, event_hash.hex())
        if event.type == ROUND_OPENED:
            self.seeding, self.reveals_open = event.round, None
        elif event.type == SEEDS_COMMITTED:
            self.reveals_open = event.round
        elif event.type in (ROUND_SEALED, ROUND_VOIDED, ROUND_REVEALED):
            self.seeding = self.reveals_open = None
        if self.version >= BLIND:
            self._fold(event)

    def _fold(self, event: Event) -> None:
        """The game's state after ``event`` (the rules' ``apply``, on its command data): what a
        dealer-blind seat's party answers from. The chain is checked; nothing here is trusted
        that the party does not check again (every key, step and share proof)."""
        try:
            if event.type == TABLE_CREATED:
                self.game, self.state = started(registry(), event.data, event.version)
                return
            if self.game is None or event.type == TABLE_STATE:
                return
            recorded = replace(event, data=statements.command_data(event.version, event.data))
            self.state = self.game.apply(self.state, recorded)
        except FairdealError as e:
            raise ReceiptChainError(
                f"table {event.table} seq {event.seq}: the rules cannot follow {event.type}: {e}"
            ) from e
        if event.type == ROUND_OPENED:
            self.round_events = []
        if event.round is not None:
            self.round_events.append((event.type, event.actor, recorded.data))


def receipt_error(error: FairdealError, message: str) -> ReceiptError:
    """A receipt the core refused, as the client says it: a hash or signature that does not
    verify, else one that does not extend the chain."""
    if isinstance(error, (SignatureError, HashMismatchError)):
        return ReceiptSignatureError(message)
    return ReceiptChainError(message)


def expect_receipt(
    signed: list[SignedEvent], kind: str, actor: str, round_id: str | None = None
) -> Event:
    """The receipt that records the request: the first (after the table_state the engine
    logs first at rest, SPEC 6.6), of its type, its actor and (if named) its round."""
    own = [s.event for s in signed if s.event.type != TABLE_STATE]
    first = own[0] if own else None
    if first is None or (first.type, first.actor) != (kind, actor):
        raise ReceiptMismatchError(f"the reply has no receipt of {kind} by {actor}")
    if round_id is not None and first.round != round_id:
        raise ReceiptMismatchError(f"the receipt of {kind} is for round {first.round}")
    return first


def opens_commitment(
    commitments: Mapping[tuple[str | None, int], str], round_id: str | None, shown: Any
) -> bool:
    """The shown card is the face-up card dealt there, or opens the commitment dealt there."""
    try:
        expected = commitments.get((round_id, shown["position"]), "")
        if expected.startswith("card:"):
            actual = "card:" + str(shown["card"])
        else:
            salt = bytes.fromhex(shown["salt"])
            actual = randomness.card_commitment(salt, shown["card"]).hex()
    except (TypeError, ValueError, AttributeError):
        return False  # an unhashable position, a salt that is not 32 bytes of hex, no card text
    return hmac.compare_digest(expected, actual)


def private_cards(value: Any) -> Iterator[dict[str, Any]]:
    """Every {position, card, salt} a view shows, wherever it is in the view."""
    if isinstance(value, dict):
        if {"position", "card", "salt"} <= value.keys():
            yield value
        for item in value.values():
            yield from private_cards(item)
    elif isinstance(value, list):
        for item in value:
            yield from private_cards(item)
