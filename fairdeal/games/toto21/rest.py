"""Toto21's table at rest as JSON members (a ``table_state`` snapshot), and back.

A snapshot holds what the rules read between rounds and nothing that grows with the
table's age: not the round ids used (a round id cannot come back), nor the last round's
cards. Of the last round the rules read one thing at rest: a client seed naming it is
refused as ``round_sealed`` if it was sealed (``rounds.seeding``), so its id is kept
when it was. A round voided before its seal (by the game clock, which ends the match, or
for a withheld seed) leaves no id: a seed naming it is refused as naming no round in
progress, as any.
"""

from collections.abc import Mapping
from typing import Any

from fairdeal.canonical import MAX_SAFE_INTEGER
from fairdeal.errors import EventSchemaError
from fairdeal.events import seat_actor
from fairdeal.games import resting
from fairdeal.games.dealing import RoundState
from fairdeal.games.money import POT
from fairdeal.games.toto21.options import parse
from fairdeal.games.toto21.state import DECIDING, OPEN, OVER, PLAYING, SEATS, State

MEMBERS = frozenset(
    ("balances", "game_deadline", "last_round", "options", "phase", "rounds", "score", "seats",
     "worth")
)  # fmt: skip
PHASES = (OPEN, DECIDING, PLAYING, OVER)
_MATCH = (PLAYING, OVER)  # phases after the match started: clock, score and rounds


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
    options = resting.options(parse, members["options"])
    phase = members["phase"]
    if phase not in PHASES:
        raise EventSchemaError(f"phase must be one of {PHASES}")
    seats = _seats(members["seats"], phase)
    started = phase in _MATCH
    rounds = resting.integer(members["rounds"], "rounds", 0, MAX_SAFE_INTEGER if started else 0)
    state = State(
        options=options,
        phase=phase,
        seats=seats,
        balances=_balances(members["balances"], seats, options.stake, phase),
        score=_score(members["score"], options.target, phase),
        worth=resting.integer(members["worth"], "worth", 1, MAX_SAFE_INTEGER if started else 1),
        game_deadline=_deadline(members["game_deadline"], started),
        rounds=rounds,
        round=_last_round(members["last_round"], rounds),
    )
    return state  # the engine refuses it unless its snapshot is exactly ``members``


def _sealed_round(state: State) -> str | None:
    last = state.round
    return last.round_id if last is not None and last.sealed else None


def _last_round(value: Any, rounds: int) -> RoundState | None:
    """The last round as the rules read it at rest: its id, sealed and revealed. Its
    commitment, seats, seeds and deadline are not kept (no rule reads them at rest). A
    round voided before its seal (by the game clock's end, or for a withheld seed) is
    none: no rule reads a round that dealt nothing once it is over."""
    if value is None:
        return None
    return resting.sealed_round(value, rounds, SEATS)


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
    balances = resting.balances(value, accounts)
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
    first, second = (resting.integer(points, "score", 0, high) for points in value)
    return first, second


def _deadline(value: Any, started: bool) -> int | None:
    """The game clock's end: set when the match starts, never before."""
    if not started:
        if value is not None:
            raise EventSchemaError("game_deadline is null until the match starts")
        return None
    return resting.integer(value, "game_deadline", 0)
