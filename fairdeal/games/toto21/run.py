"""Shared pieces of ``decide``: who may act, on which round, in time; and the run builder."""

from fairdeal.errors import IllegalActionError, OutOfTurnError
from fairdeal.events import Draft
from fairdeal.games import base
from fairdeal.games.base import Command
from fairdeal.games.dealing import RoundState
from fairdeal.games.toto21.apply import apply_at
from fairdeal.games.toto21.state import PLAYING, Hand, State
from fairdeal.protocol import SERVER

_SEAT_ACTORS = {"seat:0": 0, "seat:1": 1}


class Run(base.Run[State]):
    """The drafts one command causes, each applied as it is made so later steps see it.

    Local to one ``decide`` call; the states it passes through are the ones ``apply``
    will build from the logged events, so decide and apply cannot drift apart.
    """

    def __init__(self, state: State, command: Command) -> None:
        super().__init__(state, command.time, apply_at)
        self.table = command.table  # a dealer-blind round's proofs name it (SPEC 15.12.1)

    def round(self) -> RoundState:
        assert self.state.round is not None
        return self.state.round

    def hand(self) -> Hand:
        assert self.state.hand is not None
        return self.state.hand


def acting_seat(command: Command) -> int:
    seat = _SEAT_ACTORS.get(command.actor)
    if seat is None:
        raise OutOfTurnError(f"{command.type} is sent by seat:0 or seat:1")
    return seat


def require_server(command: Command) -> None:
    if command.actor != SERVER:
        raise IllegalActionError(f"only the server sends {command.type}")


def table_level(command: Command) -> None:
    if command.round is not None:
        raise IllegalActionError(f"{command.type} belongs to the table, not to a round")


def current_round(state: State, command: Command) -> RoundState:
    """The round in progress, which the command must name (or leave unnamed)."""
    if state.phase != PLAYING or state.round is None or not state.in_round():
        raise IllegalActionError(f"{command.type}: no round is in progress")
    if command.round not in (None, state.round.round_id):
        raise IllegalActionError(f"{command.type} names a round that is not in progress")
    return state.round


def in_time(deadline: int | None, now: int, what: str) -> None:
    """Seat commands at or after a deadline are refused: the server's timeout is due."""
    if deadline is not None and now >= deadline:
        raise IllegalActionError(f"the {what} time is up")


def move_due(round_id: str, seat: int, deadline: int) -> Draft:
    """``move_due``: the seat to move and its deadline (logged, so timeouts are checkable)."""
    return Draft("move_due", SERVER, {"seat": seat, "deadline": deadline}, round_id)


def single(state: State, command: Command, draft: Draft) -> base.Decision[State]:
    """The decision of a command that causes nothing but its own record."""
    run = Run(state, command)
    run.emit(draft)
    return run.decision()
