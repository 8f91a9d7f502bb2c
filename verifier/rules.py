"""Steps (10) legal actions and (11) server decisions: the chain replayed through the rules.

The replay is the core's (``fairdeal.table.runs``, SPEC 6.3), driven here so that a
failure becomes a finding naming its seq and its step, and so that an export can resume
a table where its previous bundle ended. Data are compared as JSON values (``true`` is
not ``1``); the logged events already passed step (2), so their compact sorted JSON is
their canonical form.
"""

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from fairdeal import statements
from fairdeal.errors import (
    EventSchemaError,
    FairdealError,
    GameError,
    OptionsError,
    ReplayMismatchError,
    SeatKeyError,
    StateMismatchError,
)
from fairdeal.events import Event
from fairdeal.games import registry
from fairdeal.games.base import AnyGame
from fairdeal.protocol import SERVER
from fairdeal.statements import NOTHING_SEEN, SIGNED
from fairdeal.table import CREATED, SEAT_KEYS, Replayed, runs, started, started_at

from .findings import CODES, Finding


def start(created: Event, data_text: str, digest: bytes) -> tuple[Replayed | None, Finding | None]:
    """The table as ``table_created`` makes it: a known game and options in full form.
    ``data_text`` is its data's canonical text, ``digest`` its hash."""
    name = created.data.get("game")
    game = registry().get(name) if isinstance(name, str) else None
    replayed, problem = _start(game, data_text, created.version)
    if replayed is not None and created.version >= SIGNED:
        replayed = replace(replayed, seen=NOTHING_SEEN.then(created, digest.hex()))
    if problem is None:
        return replayed, None
    code, reason = problem
    return None, _finding(code, created, reason)


def restart(
    snapshot: Event, data_text: str, digest: bytes
) -> tuple[Replayed | None, Finding | None]:
    """The table as the ``table_state`` a bundle starts at (of hash ``digest``) restores
    it (SPEC 6.6)."""
    data = json.loads(data_text)  # the data as logged: canonical text is JSON
    keys = _seat_keys_problem(snapshot, data)
    if keys is not None:
        return None, keys
    try:
        replayed = started_at(registry(), snapshot, data, digest)
    except EventSchemaError as e:
        # rules.unknown_game only for no known game with options, as for table_created;
        # members a known game does not restore are the operator's signed lie.
        code = "rules.crashed" if _known_game(data) else "rules.unknown_game"
        return None, _finding(code, snapshot, f"table_state: {e}")
    except OptionsError as e:
        return None, _finding("rules.invalid_options", snapshot, f"table_state: {e}")
    except Exception as e:  # a game refusing a forged snapshot in its own way
        return None, _crashed(snapshot, e)
    return replayed, None


def _known_game(data: Mapping[str, Any]) -> bool:
    name = data.get("game")
    return isinstance(name, str) and name in registry() and isinstance(data.get("options"), dict)


def _seat_keys_problem(snapshot: Event, data: dict[str, Any]) -> Finding | None:
    """(10) A version-2 table_state whose ``seat_keys``, the keys every later statement
    of its seats is checked with, are not of their logged shape (SPEC 6.6)."""
    if snapshot.version < SIGNED:
        return None
    try:
        statements.from_json(data.get(SEAT_KEYS))
    except EventSchemaError as e:
        return _finding("sig.seat_key", snapshot, f"table_state: {e}")
    return None


@lru_cache(maxsize=64)
def _start(
    game: AnyGame | None, data_text: str, version: int
) -> tuple[Replayed | None, tuple[str, str] | None]:
    """``start`` for each distinct game (as registered now) and ``table_created`` data
    once: the rules are pure and a state is a value, so tables created alike (most of an
    export's) start alike."""
    try:  # the data as logged: canonical text is JSON
        known = {game.name: game} if game is not None else {}
        game_, state = started(known, json.loads(data_text), version)
        return Replayed(game_, state, CREATED, version), None
    except EventSchemaError:  # no game of the registry, or no options (a game never raises it)
        return None, ("rules.unknown_game", "no known game with options")
    except FairdealError as e:
        return None, ("rules.invalid_options", str(e))
    except Exception as e:  # a game refusing forged options in its own way
        return None, ("rules.crashed", f"{type(e).__name__}: {e}")


def replay(
    table: Replayed,
    events: Sequence[Event],
    texts: Sequence[str],
    digests: Sequence[bytes],
    seeds: Mapping[str, bytes],
) -> tuple[Replayed | None, Finding | None]:
    """Replay runs of ``events`` (none of them table_created), whose data ``texts`` has as
    canonical text and whose hashes are ``digests``: the table after them, or the first
    failure."""
    index, replayed = 0, table
    try:
        for end, after in runs(table, events, seeds, texts, digests):
            index, replayed = end, after  # the next run starts at events[index]
    except ReplayMismatchError as e:  # (11) a run that is not the rules' drafts
        event = events[index + e.seq - events[index].seq]  # an intact chain: seq by seq
        code = "rules.state" if isinstance(e, StateMismatchError) else "rules.mismatch"
        return None, _finding(code, event, e.reason)
    except GameError as e:  # (10) a player's action refused, (11) a server's
        return None, _refused(events[index], e)
    except Exception as e:  # a game crashing on forged input is still a finding
        return None, _crashed(events[index], e)
    return replayed, None


# (10) A seat's command the engine refuses for its statement (SPEC 6.7), by the error's code.
_SEAT_SIGNATURES = {
    "signature_missing": "sig.seat_missing",
    "signature_invalid": "sig.seat_bad",
    "signature_replayed": "sig.seat_replayed",
    "signature_unexpected": "sig.seat_unexpected",
    "signature_stale": "sig.seat_stale",
}


def _refused(event: Event, error: GameError) -> Finding:
    return _finding(_refusal_code(event, error), event, f"{event.type} by {event.actor}: {error}")


def _refusal_code(event: Event, error: GameError) -> str:
    if error.code in _SEAT_SIGNATURES:
        return _SEAT_SIGNATURES[error.code]
    if isinstance(error, SeatKeyError):
        return "sig.seat_key"
    code = f"rules.{error.code}"
    if event.actor == SERVER and code not in ("rules.not_due", "rules.invalid_options"):
        code = "rules.server_refused"
    if code not in CODES:
        code = "rules.illegal_action" if event.actor != SERVER else "rules.server_refused"
    return code


def _crashed(event: Event, error: Exception) -> Finding:
    return _finding("rules.crashed", event, f"{event.type}: {type(error).__name__}: {error}")


def _finding(code: str, event: Event, reason: str) -> Finding:
    return Finding(code, event.table, event.round, event.seq, reason[:200])
