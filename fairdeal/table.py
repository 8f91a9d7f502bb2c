"""A table's log as a pure value: create it, run commands, replay what was logged.

``execute`` is the one path by which anything happens at a table:
command -> game.decide -> drafts -> stamp into the chain -> sign -> game.apply.
``replay`` runs the same game functions over a logged chain and checks that every
run of events is exactly what ``decide`` gives for the command its first event records;
the verifier's steps (10) and (11) drive the same ``runs``.
"""

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

from fairdeal.canonical import json_text
from fairdeal.errors import EventSchemaError, OptionsError, ReplayMismatchError
from fairdeal.events import ChainHead, Draft, Event, SignedEvent, sign
from fairdeal.frozen import make
from fairdeal.games.base import AnyGame, Command, Game
from fairdeal.keys import Signer
from fairdeal.protocol import SERVER, TABLE_CREATED

S = TypeVar("S")


@dataclass(frozen=True)
class Table(Generic[S]):
    """A game's state and its chain head: everything the next command needs."""

    game: Game[S]
    state: S
    head: ChainHead


def created_draft(game: AnyGame, raw_options: Mapping[str, Any]) -> Draft:
    return Draft(TABLE_CREATED, SERVER, {"game": game.name, "options": game.options(raw_options)})


def create(
    game: Game[S], table_id: str, raw_options: Mapping[str, Any], time: int, signer: Signer
) -> tuple[Table[S], SignedEvent]:
    """A new table: ``table_created`` at seq 0 with the game's name and full options."""
    draft = created_draft(game, raw_options)
    signed = sign(ChainHead(table_id).stamp(draft, time), signer)
    table = Table(game, game.new(draft.data["options"]), ChainHead(table_id))
    return replace(table, head=table.head.advance(signed.event, signed.hash)), signed


def execute(
    table: Table[S], command: Command, secret: bytes | None, signer: Signer
) -> tuple[Table[S], list[SignedEvent]]:
    """Decide, stamp, sign and apply one command; nothing changes if the rules refuse it."""
    # Times never go back in a chain; decide at the time the events will carry, so a
    # replay that rebuilds the command from the first event decides the same way.
    if command.time < table.head.time:
        command = replace(command, time=table.head.time)
    decision = table.game.step(table.state, command, secret)
    head, receipts = table.head.extend(decision.drafts, command.time, signer)
    return make(Table, {"game": table.game, "state": decision.state, "head": head}), receipts


def started(game_of: Mapping[str, AnyGame], data: Mapping[str, Any]) -> tuple[AnyGame, Any]:
    """The game ``table_created``'s data name, and its first state: a known game, with
    options in their full form (SPEC 6.2)."""
    game = game_of.get(data.get("game", ""))
    options = data.get("options")
    if game is None or not isinstance(options, dict):
        raise EventSchemaError("table_created names no known game or has no options")
    if json_text(created_draft(game, options).data) != json_text(data):
        raise OptionsError("options are not in their full form")
    return game, game.new(options)


def runs(
    game: AnyGame,
    state: Any,
    events: Sequence[Event],
    seeds: Mapping[str, bytes],
    texts: Sequence[str | None] | None = None,
) -> Iterator[tuple[int, Any]]:
    """Replay ``events`` (none of them table_created) from ``state``, run by run (SPEC
    6.3): after each run, once it is checked, the index of the event after it and the
    state it leaves. ``texts`` are the events' data as canonical text, when the caller
    has them (``Event.parse`` gives them). A command the rules refuse raises their
    GameError as is; a run that is not exactly the rules' drafts, ReplayMismatchError."""
    index = 0
    while index < len(events):
        first = events[index]
        decision = game.step(state, Command.of(first), seeds.get(first.round or ""))
        if not decision.drafts:
            raise ReplayMismatchError(first.seq, "the rules record nothing here")
        end = index + len(decision.drafts)  # not all the rest: that is O(n^2) in all
        logged = texts[index:end] if texts is not None else [None] * (end - index)
        _check_run(events[index:end], logged, decision.drafts)
        # Every logged event equals its draft, so the decided state is the logged one.
        index, state = end, decision.state
        yield index, state


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
    and data equal as JSON text (so true is not 1, as it is in Python). ``data_text`` is
    the event's data as canonical text when the caller has it (``Event.parse`` gives it),
    which spares encoding them again."""
    if (event.type, event.actor, event.round) != (draft.type, draft.actor, draft.round):
        return False
    data = draft.data  # a game's drafts carry dicts: a copy only for another mapping
    try:
        logged = json_text(event.data) if data_text is None else data_text
        return logged == json_text(data if type(data) is dict else dict(data))
    except (TypeError, ValueError, RecursionError):  # data no JSON text can hold
        return False
