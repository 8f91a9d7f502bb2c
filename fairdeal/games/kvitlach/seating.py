"""Taking and leaving seats between rounds, and the banker's optional exit; money in
and out."""

from fairdeal.errors import IllegalActionError, LimitError, OutOfTurnError
from fairdeal.events import actor_seat, seat_actor
from fairdeal.games import money
from fairdeal.games.base import Command, record
from fairdeal.games.kvitlach.ending import end_term
from fairdeal.games.kvitlach.options import MAX_AMOUNT
from fairdeal.games.kvitlach.run import Run
from fairdeal.games.kvitlach.state import State, balance, in_round, players_able


def next_free_seat(state: State) -> int | None:
    """Joiners take the lowest free seat number (a seat is a place at the table)."""
    free = [s for s in range(state.options.max_seats) if s not in state.seats]
    return free[0] if free else None


def _between_rounds(state: State, command: Command) -> int:
    """The acting seat of a table-level command, which only comes between rounds."""
    if in_round(state):
        raise IllegalActionError(f"{command.type} only between rounds")
    if command.round is not None:
        raise IllegalActionError(f"{command.type} names no round")
    seat = actor_seat(command.actor)
    if seat is None:
        raise IllegalActionError(f"{command.type} is a seat's command")
    return seat


def seat_joined(run: Run, command: Command) -> None:
    seat = _between_rounds(run.state, command)
    if seat != next_free_seat(run.state):
        raise OutOfTurnError(f"the next free seat is {next_free_seat(run.state)}")
    buy_in = command.data.get("buy_in")
    if type(buy_in) is not int or not 1 <= buy_in <= MAX_AMOUNT:
        raise LimitError(f"buy_in must be an integer from 1 to {MAX_AMOUNT}")
    balances = money.after_deposit(run.state.balances, seat_actor(seat), buy_in)
    run.emit(record(command, {"buy_in": buy_in, "balances": balances}))


def seat_left(run: Run, command: Command) -> None:
    state = run.state
    seat = _between_rounds(state, command)
    if seat not in state.seats:
        raise OutOfTurnError("this seat is not taken")
    if state.term is not None and state.term.banker == seat:
        raise IllegalActionError("the banker stays until the term ends")
    balances = {k: v for k, v in state.balances.items() if k != seat_actor(seat)}
    run.emit(record(command, {"withdrawal": balance(state, seat), "balances": balances}))
    if run.state.term is not None and not players_able(run.state):
        end_term(run, "no_players", None)


def banker_exit(run: Run, command: Command) -> None:
    seat = _between_rounds(run.state, command)
    if not run.state.exit_offer or seat != run.state.banker:
        raise IllegalActionError("no 4-or-7 exit is open to this seat")
    run.emit(record(command, {}))
    end_term(run, "banker_exit", None)
