"""A table's log as a pure value: create it, run commands, replay what was logged.

``execute`` is the one path by which anything happens at a table:
command -> game.decide -> drafts -> stamp into the chain -> sign -> game.apply.
``replay`` runs the same game functions over a logged chain and checks that every
run of events is exactly what ``decide`` gives for the command its first event records.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from fairdeal.canonical import json_text
from fairdeal.errors import EventSchemaError, OptionsError, ReplayMismatchError
from fairdeal.events import ChainHead, Draft, Event, SignedEvent, sign
from fairdeal.frozen import make
from fairdeal.games.base import Command, Game
from fairdeal.keys import Signer
from fairdeal.protocol import ROUND_REVEALED, SERVER, TABLE_CREATED

_SEED_HEX = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Table:
    """A game's state and its chain head: everything the next command needs."""

    game: Game
    state: Any
    head: ChainHead


def created_draft(game: Game, raw_options: Mapping[str, Any]) -> Draft:
    return Draft(TABLE_CREATED, SERVER, {"game": game.name, "options": game.options(raw_options)})


def create(
    game: Game, table_id: str, raw_options: Mapping[str, Any], time: int, signer: Signer
) -> tuple[Table, SignedEvent]:
    """A new table: ``table_created`` at seq 0 with the game's name and full options."""
    draft = created_draft(game, raw_options)
    signed = sign(ChainHead(table_id).stamp(draft, time), signer)
    table = Table(game, game.new(draft.data["options"]), ChainHead(table_id))
    return replace(table, head=table.head.advance(signed.event, signed.hash)), signed


def execute(
    table: Table, command: Command, secret: bytes | None, signer: Signer
) -> tuple[Table, list[SignedEvent]]:
    """Decide, stamp, sign and apply one command; nothing changes if the rules refuse it."""
    # Times never go back in a chain; decide at the time the events will carry, so a
    # replay that rebuilds the command from the first event decides the same way.
    if command.time < table.head.time:
        command = replace(command, time=table.head.time)
    decision = table.game.step(table.state, command, secret)
    head, receipts = table.head.extend(decision.drafts, command.time, signer)
    return make(Table, {"game": table.game, "state": decision.state, "head": head}), receipts


def revealed_seeds(events: Iterable[Event]) -> dict[str, bytes]:
    """Each round's server seed, from its one ``round_revealed`` event."""
    seeds: dict[str, bytes] = {}
    for event in events:
        if event.type != ROUND_REVEALED:
            continue
        seed = event.data.get("server_seed")
        if event.round is None or event.round in seeds:
            raise EventSchemaError(f"seq {event.seq}: a second or roundless reveal")
        if not isinstance(seed, str) or not _SEED_HEX.fullmatch(seed):
            raise EventSchemaError(f"seq {event.seq}: server_seed is not 64 lowercase hex digits")
        seeds[event.round] = bytes.fromhex(seed)
    return seeds


def replay(game_of: Mapping[str, Game], events: list[Event]) -> Table:
    """Rebuild a table from its whole logged chain, checking every decided run.

    Rounds not yet revealed replay without their seed: hidden cards stay unknown, so
    the rules refuse the runs that need the deck (IllegalActionError).
    """
    if not events or events[0].type != TABLE_CREATED or events[0].seq != 0:
        raise EventSchemaError("a table's chain starts with table_created at seq 0")
    table = _table_from_created(game_of, events[0])
    seeds = revealed_seeds(events)
    index = 1
    while index < len(events):
        first = events[index]
        table, taken = _replay_run(table, events[index:], seeds.get(first.round or ""))
        index += taken
    return table


def _table_from_created(game_of: Mapping[str, Game], event: Event) -> Table:
    game = game_of.get(event.data.get("game", ""))
    options = event.data.get("options")
    if game is None or not isinstance(options, dict):
        raise EventSchemaError("table_created names no known game or has no options")
    if event.data != created_draft(game, options).data:
        raise OptionsError("table_created's options are not in their full form")
    return Table(game, game.new(options), ChainHead(event.table).advance(event, event.hash()))


def _replay_run(table: Table, events: list[Event], secret: bytes | None) -> tuple[Table, int]:
    first = events[0]
    decision = table.game.step(table.state, Command.of(first), secret)
    drafts = decision.drafts
    if not drafts:
        raise ReplayMismatchError(f"seq {first.seq}: the rules record no event for this command")
    logged = events[: len(drafts)]
    head = table.head
    for draft, event in zip(drafts, logged, strict=False):
        if not records(event, draft) or event.time != first.time:
            raise ReplayMismatchError(f"seq {event.seq}: the rules give {draft.type} here")
        head = head.advance(event, event.hash())
    if len(logged) < len(drafts):
        raise ReplayMismatchError(f"seq {first.seq}: the log ends before the rules' events do")
    # The logged events equal the drafts, so the decided state is the state they give.
    return Table(table.game, decision.state, head), len(drafts)


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
