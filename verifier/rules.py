"""Steps (10) legal actions and (11) server decisions: the chain replayed through the rules.

This is table.replay's procedure (SPEC 6.3), driven here so that a failure names its
seq and its step, and so that an export can resume a table where its previous bundle
ended. Data are compared as JSON values (``true`` is not ``1``); the logged events
already passed step (2), so their compact sorted JSON is their canonical form.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from fairdeal.canonical import json_text as _encode
from fairdeal.errors import FairdealError, GameError
from fairdeal.events import Draft, Event
from fairdeal.games.base import AnyGame, Command
from fairdeal.table import created_draft, records
from fairdeal.verifier.findings import CODES, Finding


@dataclass(frozen=True)
class Replayed:
    """A table's game and its state after the events replayed so far."""

    game: AnyGame
    state: Any


def start(created: Event, data_text: str) -> tuple[Replayed | None, Finding | None]:
    """The table as ``table_created`` makes it: a known game and options in full form.
    ``data_text`` is its data's canonical text."""
    replayed, problem = _start(data_text)
    if problem is None:
        return replayed, None
    code, reason = problem
    return None, _finding(code, created, reason)


@lru_cache(maxsize=64)
def _start(data_text: str) -> tuple[Replayed | None, tuple[str, str] | None]:
    """``start`` for each distinct ``table_created`` data once: the rules are pure and a
    state is a value, so tables created alike (most of an export's) start alike."""
    from fairdeal.games import registry

    data = json.loads(data_text)  # the data as logged: canonical text is JSON
    game = registry().get(data.get("game", ""))
    options = data.get("options")
    if game is None or not isinstance(options, dict):
        return None, ("rules.unknown_game", "no known game with options")
    try:
        if _encode(created_draft(game, options).data) != data_text:
            raise GameError("options are not in their full form")
        return Replayed(game, game.new(options)), None
    except FairdealError as e:
        return None, ("rules.invalid_options", str(e))
    except Exception as e:  # a game refusing forged options in its own way
        return None, ("rules.crashed", f"{type(e).__name__}: {e}")


def replay(
    table: Replayed, events: Sequence[Event], texts: Sequence[str], seeds: Mapping[str, bytes]
) -> tuple[Replayed, Finding | None]:
    """Replay runs of ``events`` (none of them table_created), whose data ``texts`` has as
    canonical text; stop at the first failure."""
    index, state = 0, table.state
    while index < len(events):
        first = events[index]
        try:
            drafts, after = _decide(table.game, state, Command.of(first), seeds)
        except GameError as e:  # (10) a player's action refused, (11) a server's
            return Replayed(table.game, state), _refused(first, e)
        except Exception as e:  # a game crashing on forged input is still a finding
            return Replayed(table.game, state), _crashed(first, e)
        if not drafts:
            return Replayed(table.game, state), _finding(
                "rules.mismatch", first, "the rules record nothing here"
            )
        end = index + len(drafts)  # not all the rest: that is O(n^2) in all
        finding = _check_run(events[index:end], texts[index:end], drafts)
        if finding is not None:
            return Replayed(table.game, state), finding
        # Every logged event equals its draft, so the decided state is the logged one.
        state = after
        index += len(drafts)
    return Replayed(table.game, state), None


def _decide(
    game: AnyGame, state: Any, command: Command, seeds: Mapping[str, bytes]
) -> tuple[list[Draft], Any]:
    """The drafts, and the state the game reaches by applying them as it decides."""
    decision = game.step(state, command, seeds.get(command.round or ""))
    return decision.drafts, decision.state


def _check_run(
    events: Sequence[Event], texts: Sequence[str], drafts: list[Draft]
) -> Finding | None:
    first = events[0]
    for draft, event, text in zip(drafts, events, texts, strict=False):
        # (11) every event of the run is exactly what the rules decide
        if not records(event, draft, text) or event.time != first.time:
            reason = f"the rules give {draft.type} by {draft.actor} here, the log {event.type}"
            return _finding("rules.mismatch", event, _with_data(reason, event, draft))
    if len(events) < len(drafts):
        missing = drafts[len(events)].type
        return _finding("rules.mismatch", events[-1], f"the log ends before {missing}")
    return None


def _with_data(reason: str, event: Event, draft: Draft) -> str:
    if event.type != draft.type:
        return reason
    try:
        for key in sorted(set(event.data) | set(draft.data)):
            if _encode(event.data.get(key)) != _encode(draft.data.get(key)):
                return f"{event.type}: the rules give {key}={_encode(draft.data.get(key))[:60]}"
    except (TypeError, ValueError, RecursionError):
        pass
    return reason


def _refused(event: Event, error: GameError) -> Finding:
    code = f"rules.{error.code}"
    if event.actor == "server" and code not in ("rules.not_due", "rules.invalid_options"):
        code = "rules.server_refused"
    if code not in CODES:
        code = "rules.illegal_action" if event.actor != "server" else "rules.server_refused"
    return _finding(code, event, f"{event.type} by {event.actor}: {error}")


def _crashed(event: Event, error: Exception) -> Finding:
    return _finding("rules.crashed", event, f"{event.type}: {type(error).__name__}: {error}")


def _finding(code: str, event: Event, reason: str) -> Finding:
    return Finding(code, event.table, event.round, event.seq, reason[:200])
