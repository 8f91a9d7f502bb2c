"""Toto21's table at rest as JSON members (a ``table_state`` snapshot), and back.

A snapshot holds what the rules read between rounds and nothing that grows with the
table's age: not the round ids used (a round id cannot come back), nor the last round's
cards. Of the last round the rules read one thing at rest: a client seed naming it is
refused as ``round_sealed`` if it was sealed (``rounds.client_seed``), so its id is kept
when it was. A round voided before its seal (only ever by the game clock, which ends the
match) leaves no id: a seed naming it is refused as naming no round in progress, as any.
"""

import re
from collections.abc import Mapping
from typing import Any

from fairdeal.canonical import MAX_SAFE_INTEGER, json_text
from fairdeal.errors import EventSchemaError, OptionsError
from fairdeal.events import seat_actor
from fairdeal.games.dealing import RoundState
from fairdeal.games.money import MAX_TABLE_TOTAL, POT
from fairdeal.games.toto21.options import Options, parse
from fairdeal.games.toto21.state import DECIDING, OPEN, OVER, PLAYING, SEATS, State

MEMBERS = frozenset(
    ("balances", "game_deadline", "last_round", "options", "phase", "rounds", "score", "seats",
     "worth")
)  # fmt: skip
PHASES = (OPEN, DECIDING, PLAYING, OVER)
_MATCH = (PLAYING, OVER)  # phases after the match started: clock, score and rounds
_ROUND_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")  # as an event's round (fairdeal.events)


def snapshot(state: State) -> dict[str, Any] | None:
    """The table at rest as JSON data members, or None while a round is open."""
    if state.in_round():
        return None
    return {
        "balances": dict(sorted(state.balances.items())),
        "game_deadline": state.game_deadline,
        "last_round": _sealed_round(state),
        "options": state.options.to_json(),
        "phase": state.phase,
        "rounds": state.rounds,
        "score": list(state.score),
        "seats": list(state.seats),
        "worth": state.worth,
    }


def restore(members: Mapping[str, Any]) -> State:
    """The state ``snapshot`` described; EventSchemaError for anything else."""
    if not isinstance(members, Mapping) or set(members) != MEMBERS:
        raise EventSchemaError(f"a toto21 snapshot has exactly the members {sorted(MEMBERS)}")
    options = _options(members["options"])
    phase = members["phase"]
    if phase not in PHASES:
        raise EventSchemaError(f"phase must be one of {PHASES}")
    seats = _seats(members["seats"], phase)
    started = phase in _MATCH
    rounds = _integer(members["rounds"], "rounds", 0, MAX_SAFE_INTEGER if started else 0)
    state = State(
        options=options,
        phase=phase,
        seats=seats,
        balances=_balances(members["balances"], seats, options.stake, phase),
        score=_score(members["score"], options.target, phase),
        worth=_integer(members["worth"], "worth", 1, MAX_SAFE_INTEGER if started else 1),
        game_deadline=_deadline(members["game_deadline"], started),
        rounds=rounds,
        round=_last_round(members["last_round"], rounds, phase),
    )
    return state  # the engine refuses it unless its snapshot is exactly ``members``


def _sealed_round(state: State) -> str | None:
    last = state.round
    return last.round_id if last is not None and last.sealed else None


def _last_round(value: Any, rounds: int, phase: str) -> RoundState | None:
    """The last round as the rules read it at rest: its id, sealed and revealed. Its
    commitment, seats, seeds and deadline are not kept (no rule reads them at rest)."""
    if value is None:
        if rounds and phase != OVER:
            raise EventSchemaError("only the game clock's end leaves a last round unsealed")
        return None
    if type(value) is not str or not _ROUND_ID.fullmatch(value):
        raise EventSchemaError("last_round is null or a round id")
    if rounds == 0:
        raise EventSchemaError("last_round names a round of a table that opened none")
    return RoundState(value, rounds, "", SEATS, None, sealed=True, revealed=True)


def _options(raw: Any) -> Options:
    if not isinstance(raw, dict):
        raise EventSchemaError("options is an object")
    try:
        options = parse(raw)
    except OptionsError as e:
        raise EventSchemaError(f"options: {e}") from e
    if json_text(options.to_json()) != json_text(raw):
        raise EventSchemaError("options are not in their full form")
    return options


def _integer(value: Any, name: str, low: int, high: int = MAX_SAFE_INTEGER) -> int:
    if type(value) is not int or not low <= value <= high:  # bool is refused too
        raise EventSchemaError(f"{name} must be an integer from {low} to {high}")
    return value


def _seats(value: Any, phase: str) -> tuple[int, ...]:
    """Seats are taken in order; both once the creator answers the joiner, and after."""
    allowed = ([], [0]) if phase == OPEN else ([0, 1],)
    if (
        not isinstance(value, list)
        or value not in allowed
        or any(type(s) is not int for s in value)
    ):
        raise EventSchemaError(f"seats in phase {phase} must be one of {list(allowed)}")
    return tuple(value)


def _balances(value: Any, seats: tuple[int, ...], stake: int, phase: str) -> dict[str, int]:
    """The pot and each seat's account; the stakes are all there is (escrowed while the
    match is played), so the table holds exactly one stake a seat."""
    accounts = {POT, *(seat_actor(seat) for seat in seats)}
    if not isinstance(value, dict) or set(value) != accounts:
        raise EventSchemaError(f"balances has exactly the accounts {sorted(accounts)}")
    balances = {name: _integer(value[name], name, 0, MAX_TABLE_TOTAL) for name in sorted(value)}
    if sum(balances.values()) != stake * len(seats):
        raise EventSchemaError("the balances hold one stake for each seat, no more or less")
    if balances[POT] != (stake * len(seats) if phase == PLAYING else 0):
        raise EventSchemaError("the pot holds both stakes during the match, else nothing")
    return balances


def _score(value: Any, target: int, phase: str) -> tuple[int, int]:
    """Points: none before the match, below the target while it is played."""
    high = {OPEN: 0, DECIDING: 0, PLAYING: target - 1}.get(phase, MAX_SAFE_INTEGER)
    if not isinstance(value, list) or len(value) != len(SEATS):
        raise EventSchemaError("score is a list of two integers")
    first, second = (_integer(points, "score", 0, high) for points in value)
    return first, second


def _deadline(value: Any, started: bool) -> int | None:
    """The game clock's end: set when the match starts, never before."""
    if not started:
        if value is not None:
            raise EventSchemaError("game_deadline is null until the match starts")
        return None
    return _integer(value, "game_deadline", 0)
