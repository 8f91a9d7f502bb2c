"""A table's log as a pure value: create it, run commands, replay what was logged.

``execute`` is the one path by which anything happens at a table:
command -> game.decide -> drafts -> stamp into the chain -> sign -> game.apply.
``runs`` runs the same game functions over a logged chain and checks that every
run of events is exactly what ``decide`` gives for the command its first event records;
the verifier's steps (10) and (11) drive it.

Before a run that starts at rest (no round open), the engine logs the table's state in
a ``table_state`` event of its own (SPEC 6.6), unless the last event is already one (or
``table_created``): a verifier can start a table's replay at any such event instead of
at its first (``started_at``), and ``runs`` checks each one it meets.
"""

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

from fairdeal import statements
from fairdeal.canonical import json_text
from fairdeal.errors import (
    EventSchemaError,
    IllegalActionError,
    OptionsError,
    ReplayMismatchError,
    StateMismatchError,
)
from fairdeal.events import VERSION, ChainHead, Draft, Event, SignedEvent, sign
from fairdeal.frozen import make
from fairdeal.game import AnyGame, Command, Game
from fairdeal.keys import Signer
from fairdeal.protocol import (
    BLIND_DEALING,
    DEALING,
    ROUND_OPENED,
    ROUND_REVEALED,
    SERVER,
    TABLE_CREATED,
    TABLE_STATE,
)
from fairdeal.statements import BLIND, NO_KEYS, NOTHING_SEEN, SIGNED, SeatKeys, Seen

S = TypeVar("S")

# Where a table stands for SPEC 6.6: at rest just after table_created or table_state (no
# snapshot due), at rest after another run (a table_state comes first), or in a round.
FRESH, RESTING, PLAYING = "fresh", "resting", "playing"


@dataclass(frozen=True)
class Standing:
    """Where a table stands, and whether its chain has logged a table_state: from then on
    every run that starts at rest must follow one (a chain logged before SPEC 6.6 has none)."""

    phase: str = FRESH
    bounded: bool = False

    def after(self, types: Iterable[str]) -> "Standing":
        """Where the table stands after events of these types, in order."""
        phase, bounded = self.phase, self.bounded
        for kind in types:
            if kind == ROUND_OPENED:
                phase = PLAYING
            elif kind == ROUND_REVEALED:
                phase = RESTING
            elif kind == TABLE_STATE:
                phase, bounded = FRESH, True
            elif phase == FRESH:
                phase = RESTING
        if phase == self.phase and bounded == self.bounded:
            return self
        return Standing(phase, bounded)


CREATED = Standing()  # a table just created


def _no_keys() -> SeatKeys:
    return NO_KEYS


@dataclass(frozen=True)
class Table(Generic[S]):
    """A game's state and its chain head: everything the next command needs."""

    game: Game[S]
    state: S
    head: ChainHead  # its version is the table's protocol version (SPEC 5.1)
    standing: Standing = CREATED
    seats: SeatKeys = field(default_factory=_no_keys)  # version 2: each seat's key and last n
    seen: Seen = NOTHING_SEEN  # version 2: the events a seat's statement may be made after


@dataclass(frozen=True)
class Replayed:
    """A table as a replay has it so far: its game, its state, where it stands, its
    protocol version and (version 2) its seats' keys."""

    game: AnyGame
    state: Any
    standing: Standing = CREATED
    version: int = VERSION
    seats: SeatKeys = field(default_factory=_no_keys)
    seen: Seen = NOTHING_SEEN


def created_draft(game: AnyGame, raw_options: Mapping[str, Any]) -> Draft:
    return Draft(TABLE_CREATED, SERVER, {"game": game.name, "options": game.options(raw_options)})


def version_for(options: Mapping[str, Any]) -> int:
    """The protocol version a table with these full options is created in (SPEC 6.2): 3
    exactly when they ask for dealer-blind dealing, else 2."""
    return BLIND if options.get(DEALING) == BLIND_DEALING else SIGNED


def created_version(game: AnyGame, raw_options: Mapping[str, Any]) -> int:
    """The version the service creates a table of ``game`` with these options in (6.2)."""
    return version_for(game.options(raw_options))


def check_version(options: Mapping[str, Any], version: int) -> None:
    """A table's version and options agree (SPEC 6.2): version 3 exactly for blind dealing;
    versions 1 and 2 for every other table. Raises OptionsError."""
    if (version >= BLIND) != (version_for(options) == BLIND):
        raise OptionsError(f"a version-{version} table does not take these options")


def create(
    game: Game[S],
    table_id: str,
    raw_options: Mapping[str, Any],
    time: int,
    signer: Signer,
    *,
    version: int | None = None,
) -> tuple[Table[S], SignedEvent]:
    """A new table: ``table_created`` at seq 0 with the game's name and full options, in
    the protocol ``version`` its whole chain keeps (by default version 1, or 3 for options
    that ask for blind dealing; the service creates every table in ``version_for``'s)."""
    draft = created_draft(game, raw_options)
    if version is None:
        version = BLIND if version_for(draft.data["options"]) == BLIND else VERSION
    check_version(draft.data["options"], version)
    head = ChainHead(table_id, version=version)
    signed = sign(head.stamp(draft, time), signer)
    seen = Seen(0, (signed.hash.hex(),)) if version >= SIGNED else NOTHING_SEEN
    table = Table(game, game.new(draft.data["options"]), head, seen=seen)
    return replace(table, head=table.head.advance(signed.event, signed.hash)), signed


def execute(
    table: Table[S], command: Command, secret: bytes | None, signer: Signer
) -> tuple[Table[S], list[SignedEvent]]:
    """Decide, stamp, sign and apply one command, after the table's state if it is due
    (SPEC 6.6); nothing changes if the rules refuse the command."""
    if command.type in (TABLE_STATE, TABLE_CREATED):
        raise IllegalActionError(f"{command.type} is logged by the engine alone")
    # Times never go back in a chain; decide at the time the events will carry, so a
    # replay that rebuilds the command from the first event decides the same way.
    if command.time < table.head.time:
        command = replace(command, time=table.head.time)
    receipts: list[SignedEvent] = []
    if table.standing.phase == RESTING:
        table, receipts = _log_state(table, command.time, signer)
    version, seats, seen = table.head.version, table.seats, table.seen
    at = Replayed(table.game, table.state, table.standing, version, seats, seen)
    drafts, state = _decided(at, table.head.table, command, secret)
    head, signed = table.head.extend(drafts, command.time, signer)
    if version >= SIGNED:
        seats = statements.after(seats, drafts)
        seen = _seen_after(seen, [(s.event, s.hash) for s in signed])
    values = {
        "game": table.game,
        "state": state,
        "head": head,
        "standing": table.standing.after([draft.type for draft in drafts]),
        "seats": seats,
        "seen": seen,
    }
    return make(Table, values), receipts + signed


def _seen_after(seen: Seen, logged: Iterable[tuple[Event, bytes]]) -> Seen:
    for event, event_hash in logged:
        seen = seen.then(event, event_hash.hex())
    return seen


def _decided(
    at: Replayed, table_id: str, command: Command, secret: bytes | None
) -> tuple[list[Draft], Any]:
    """The drafts a command causes and the state they lead to: the engine's members (a
    seat's key, its checked signature: SPEC 6.7) around what the game decides."""
    bare, members = statements.admit(at.version, at.seats, at.seen, table_id, command)
    if bare.table != table_id:
        bare = replace(bare, table=table_id)
    decision = at.game.step(at.state, bare, secret)
    if not members or not decision.drafts:
        return decision.drafts, decision.state
    first = decision.drafts[0]
    if statements.SIGNATURE in members and first.round != command.round:
        raise IllegalActionError(f"a signed {command.type} names the round its event does")
    return [statements.logged(first, members, at.version), *decision.drafts[1:]], decision.state


def _log_state(table: Table[S], time: int, signer: Signer) -> tuple[Table[S], list[SignedEvent]]:
    """The table after its ``table_state``. The state goes on as it is: the snapshot's
    restored state decides every later command alike (the game's contract), and this one
    keeps what views show of the last round."""
    draft = state_draft(table.game, table.state, _keys_of(table.head.version, table.seats))
    if draft is None:
        raise IllegalActionError("the game has a round open where the engine has none")
    head, signed = table.head.extend([draft], time, signer)
    seen = table.seen
    if head.version >= SIGNED:
        seen = _seen_after(seen, [(s.event, s.hash) for s in signed])
    standing = table.standing.after([TABLE_STATE])
    return replace(table, head=head, standing=standing, seen=seen), signed


SEAT_KEYS = "seat_keys"  # the engine's own member of a version-2 table_state


def state_draft(game: Game[S], state: S, seats: SeatKeys | None = None) -> Draft | None:
    """The ``table_state`` that logs ``state`` at rest: the game's name and its snapshot
    (None while a round is open), and in version 2 the seats' keys (``seats``)."""
    members = game.snapshot(state)
    if members is None:
        return None
    data = {"game": game.name, **members}
    if seats is not None:
        data[SEAT_KEYS] = statements.to_json(seats)
    return Draft(TABLE_STATE, SERVER, data)


def _keys_of(version: int, seats: SeatKeys) -> SeatKeys | None:
    return seats if version >= SIGNED else None


def resting_draft(table: Replayed) -> Draft | None:
    """The ``table_state`` the engine would log of a replayed table now (None mid-round)."""
    return state_draft(table.game, table.state, _keys_of(table.version, table.seats))


def restored(game: Game[S], data: Mapping[str, Any], version: int = VERSION) -> tuple[S, SeatKeys]:
    """The state and seat keys a ``table_state``'s data describe, if they are exactly what
    the engine would log of them (SPEC 6.6): options in full form, every member as the
    game writes it, and in version 2 the seat keys. Raises EventSchemaError or OptionsError."""
    members = {key: value for key, value in data.items() if key not in ("game", SEAT_KEYS)}
    options = members.get("options")
    if data.get("game") != game.name or not isinstance(options, dict):
        raise EventSchemaError("table_state names another game or has no options")
    if json_text(game.options(options)) != json_text(options):
        raise OptionsError("options are not in their full form")
    check_version(options, version)
    seats = statements.from_json(data.get(SEAT_KEYS)) if version >= SIGNED else NO_KEYS
    state = game.restore(members)
    again = state_draft(game, state, _keys_of(version, seats))
    if again is None or json_text(again.data) != json_text(data):
        raise EventSchemaError("table_state is not a table at rest as the game logs it")
    return state, seats


def follow(table: Table[S], event: Event, event_hash: bytes) -> Table[S]:
    """The table after one more event of its own log, trusted (the service's cache), as
    ``execute`` leaves it: a table_state changes nothing but where the table stands."""
    state = table.state
    if event.type != TABLE_STATE:
        recorded = replace(event, data=statements.command_data(event.version, event.data))
        state = table.game.apply(state, recorded)
    head = table.head.advance(event, event_hash)
    seats, seen = table.seats, table.seen
    if head.version >= SIGNED:
        seats = statements.after(seats, [event.draft])
        seen = seen.then(event, event_hash.hex())
    return Table(table.game, state, head, table.standing.after([event.type]), seats, seen)


def started(
    game_of: Mapping[str, AnyGame], data: Mapping[str, Any], version: int
) -> tuple[AnyGame, Any]:
    """The game ``table_created``'s data name, and its first state: a known game, with
    options in their full form that the chain's protocol ``version`` takes (SPEC 6.2)."""
    game = game_of.get(data.get("game", ""))
    options = data.get("options")
    if game is None or not isinstance(options, dict):
        raise EventSchemaError("table_created names no known game or has no options")
    if json_text(created_draft(game, options).data) != json_text(data):
        raise OptionsError("options are not in their full form")
    check_version(options, version)
    return game, game.new(options)


def started_at(
    game_of: Mapping[str, AnyGame], event: Event, data: Mapping[str, Any], event_hash: bytes
) -> Replayed:
    """The table a ``table_state`` (``event``, its ``data`` as parsed from the log, its
    hash) describes, to replay the events after it (SPEC 6.6)."""
    game = game_of.get(data.get("game", ""))
    if game is None:
        raise EventSchemaError("table_state names no known game")
    state, seats = restored(game, data, event.version)
    seen = NOTHING_SEEN
    if event.version >= SIGNED:
        seen = seen.then(event, event_hash.hex())
    return Replayed(game, state, CREATED.after([TABLE_STATE]), event.version, seats, seen)


def runs(
    table: Replayed,
    events: Sequence[Event],
    seeds: Mapping[str, bytes],
    texts: Sequence[str | None] | None = None,
    hashes: Sequence[bytes] | None = None,
) -> Iterator[tuple[int, Replayed]]:
    """Replay ``events`` (none of them table_created) from ``table``, run by run (SPEC
    6.3, 6.6): after each run, once it is checked, the index of the event after it and
    the table it leaves. ``texts`` are the events' data as canonical text, when the
    caller has them (``Event.parse`` gives them). A command the rules refuse raises their
    GameError as is; a run that is not exactly the rules' drafts, ReplayMismatchError
    (StateMismatchError for a table_state)."""
    game, state, standing = table.game, table.state, table.standing
    version, seats, seen = table.version, table.seats, table.seen
    index = 0
    while index < len(events):
        first = events[index]
        text = texts[index] if texts is not None else None
        if first.type == TABLE_STATE:
            # the state goes on as execute's does
            _check_state(game, state, _keys_of(version, seats), first, text)
            end = index + 1
            standing = standing.after([TABLE_STATE])
            if version >= SIGNED:
                seen = seen.then(first, _hash_of(events, hashes, index))
        else:
            if standing.bounded and standing.phase == RESTING:
                reason = f"the rules give table_state before {first.type} here"
                raise ReplayMismatchError(first.seq, reason)
            command = Command.of(first)
            if version >= SIGNED:
                command = statements.as_sent(command)
            secret = seeds.get(first.round or "")
            at = Replayed(game, state, standing, version, seats, seen)
            drafts, state = _decided(at, first.table, command, secret)
            if not drafts:
                raise ReplayMismatchError(first.seq, "the rules record nothing here")
            end = index + len(drafts)  # not all the rest: that is O(n^2) in all
            logged = texts[index:end] if texts is not None else [None] * (end - index)
            _check_run(events[index:end], logged, drafts)
            # Every logged event equals its draft, so the decided state is the logged one.
            standing = standing.after([draft.type for draft in drafts])
            if version >= SIGNED:
                seats = statements.after(seats, drafts)
                for at_index in range(index, end):
                    seen = seen.then(events[at_index], _hash_of(events, hashes, at_index))
        index = end
        yield index, Replayed(game, state, standing, version, seats, seen)


def _hash_of(events: Sequence[Event], hashes: Sequence[bytes] | None, index: int) -> str:
    """The hash of ``events[index]``: from ``hashes`` where the caller has them."""
    return (hashes[index] if hashes is not None else events[index].hash()).hex()


def _check_state(
    game: AnyGame, state: Any, seats: SeatKeys | None, event: Event, text: str | None
) -> None:
    """A logged ``table_state`` must be the snapshot of ``state``, the table at rest."""
    draft = state_draft(game, state, seats)
    if draft is None:
        raise ReplayMismatchError(event.seq, "a table_state while a round is open")
    if not records(event, draft, text):
        raise StateMismatchError(event.seq, _with_data("not the table at rest", event, draft))


def _check_run(
    events: Sequence[Event], texts: Sequence[str | None], drafts: Sequence[Draft]
) -> None:
    first = events[0]
    for draft, event, text in zip(drafts, events, texts, strict=False):
        if not records(event, draft, text) or event.time != first.time:
            reason = f"the rules give {draft.type} by {draft.actor} here, the log {event.type}"
            raise ReplayMismatchError(event.seq, _with_data(reason, event, draft))
    if len(events) < len(drafts):
        missing = drafts[len(events)].type
        raise ReplayMismatchError(events[-1].seq, f"the log ends before {missing}")


def _with_data(reason: str, event: Event, draft: Draft) -> str:
    """``reason``, or for an event of the draft's type, the first member its data differ in."""
    if event.type != draft.type:
        return reason
    try:
        for key in sorted(set(event.data) | set(draft.data)):
            if json_text(event.data.get(key)) != json_text(draft.data.get(key)):
                return f"{event.type}: the rules give {key}={json_text(draft.data.get(key))[:60]}"
    except (TypeError, ValueError, RecursionError):
        pass
    return reason


def records(event: Event, draft: Draft, data_text: str | None = None) -> bool:
    """Whether a logged event is the draft the rules give: the same type, actor and round,
    and data equal as JSON text (so true is not 1, as it is in Python) to the draft's or
    to one of its earlier forms (7.19). ``data_text`` is the event's data as canonical
    text when the caller has it (``Event.parse`` gives it), which spares encoding them
    again."""
    if (event.type, event.actor, event.round) != (draft.type, draft.actor, draft.round):
        return False
    try:
        logged = json_text(event.data) if data_text is None else data_text
        if logged == _text(draft.data):
            return True
        return any(logged == _text(data) for data in draft.earlier)
    except (TypeError, ValueError, RecursionError):  # data no JSON text can hold
        return False


def _text(data: Mapping[str, Any]) -> str:
    # a game's drafts carry dicts: a copy only for another mapping
    return json_text(data if type(data) is dict else dict(data))
