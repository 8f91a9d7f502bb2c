"""Joining the table and the creator's answer to the joiner; money in and out.

A seat's deposit (its stake) is the only way money enters the table, a returned
deposit the only way it leaves before the match: conservation is checked against both.
"""

from fairdeal.errors import IllegalActionError, OutOfTurnError
from fairdeal.events import Draft, seat_actor
from fairdeal.games import money
from fairdeal.games.base import Command, Decision, record
from fairdeal.games.money import POT, Transfer
from fairdeal.games.toto21.run import Run, acting_seat, single, table_level
from fairdeal.games.toto21.state import DECIDING, OPEN, SEATS, State
from fairdeal.protocol import SEAT_LEFT, SERVER

JOINER = 1


def join(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """``seat_joined``: the next free seat takes its place and deposits the stake."""
    seat = acting_seat(command)
    table_level(command)
    if state.phase != OPEN or seat != len(state.seats):
        raise OutOfTurnError(f"{command.actor} is not the next free seat")
    stake = state.options.stake
    balances = money.after_deposit(state.balances, seat_actor(seat), stake)
    return single(
        state, command, record(command, {"seat": seat, "deposit": stake, "balances": balances})
    )


def accept(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """``joiner_accepted``: both stakes go into the pot and the game clock starts."""
    _creator_deciding(state, command)
    run = Run(state, command)
    run.emit(record(command, {"seat": JOINER}))
    stake = state.options.stake
    escrow = [Transfer(seat_actor(seat), POT, stake) for seat in SEATS] if stake else []
    data = {
        **money.settlement(state.balances, escrow),
        "game_deadline": command.time + state.options.game_time_ms,
    }
    run.emit(Draft("match_started", SERVER, data))
    return run.decision()


def reject(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """``joiner_rejected``: the joiner leaves with its deposit; the seat is free again."""
    _creator_deciding(state, command)
    run = Run(state, command)
    run.emit(record(command, {"seat": JOINER}))
    account = seat_actor(JOINER)
    balances = {name: amount for name, amount in state.balances.items() if name != account}
    data = {"seat": JOINER, "withdrawal": state.balances[account], "balances": balances}
    run.emit(Draft(SEAT_LEFT, SERVER, data))
    return run.decision()


def _creator_deciding(state: State, command: Command) -> None:
    table_level(command)
    if acting_seat(command) != 0:
        raise OutOfTurnError("only the table's creator (seat:0) decides on the joiner")
    if state.phase != DECIDING:
        raise IllegalActionError("no joiner is waiting for the creator's answer")
