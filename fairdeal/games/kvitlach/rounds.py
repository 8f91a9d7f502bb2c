"""A round's start: the banker, who plays and in which order, the bank's funding, the
client seeds, the seal and the deal."""

from typing import Any

from fairdeal.errors import IllegalActionError
from fairdeal.events import seat_actor
from fairdeal.frozen import evolve
from fairdeal.games import dealing, money
from fairdeal.games.base import Command, record
from fairdeal.games.kvitlach.ending import finish
from fairdeal.games.kvitlach.run import Run, deal, deck_of
from fairdeal.games.kvitlach.state import (
    State,
    balance,
    can_play,
    in_round,
    leftward,
    rightward,
)
from fairdeal.games.money import BANK, Transfer
from fairdeal.protocol import SERVER


def round_opened(run: Run, command: Command, secret: bytes | None) -> None:
    state = run.state
    if command.actor != SERVER:
        raise IllegalActionError("the server opens a round")
    if in_round(state):
        raise IllegalActionError("a round is in progress")
    if command.round in state.round_ids:
        raise IllegalActionError("a round id is used once per table")
    banker = _banker(state)
    paid = state.term.paid if state.term else frozenset()
    players = _players(state, banker, paid)
    term_round = state.term.rounds + 1 if state.term else 1
    order = _order(state, banker, players, term_round)
    seats = sorted((*players, banker))
    # The shared draft knows only its own fields; record() below checks the command's others.
    bare = evolve(command, data={"commitment": command.data.get("commitment")})
    draft = dealing.opened(bare, secret, state.rounds + 1, seats, state.options.seed_time_ms)
    data = {**draft.data, "banker": banker, "term_round": term_round, "order": order}
    run.emit(record(command, data))
    _fund(run, banker, [p for p in players if p not in paid])


def _banker(state: State) -> int:
    """The term's banker; between terms the next in line, passing over (to the right)
    any seat that cannot fund the bank."""
    if state.term is not None:
        return state.term.banker
    max_seats = state.options.max_seats
    line = [state.banker] if state.banker in state.seats else []
    line += rightward(state.seats, state.banker, max_seats)
    for seat in line:
        if balance(state, seat) >= state.options.bank_funding:
            return seat
    raise IllegalActionError("no seat can fund the bank")


def _players(state: State, banker: int, paid: frozenset[int]) -> list[int]:
    """Seats that play: the ante paid (or payable now) and a unit left to bet."""
    players = [seat for seat in state.seats if seat != banker and can_play(state, seat, paid)]
    if not players:
        raise IllegalActionError("nobody can play against the bank")
    return players


def _order(state: State, banker: int, players: list[int], term_round: int) -> list[int]:
    """Classic: from the banker's left. Pressburg: odd rounds of the term from the
    banker's right going right, even rounds from the left going left."""
    max_seats = state.options.max_seats
    if state.options.order == "alternate" and term_round % 2 == 1:
        return rightward(players, banker, max_seats)
    return leftward(players, banker, max_seats)


def _fund(run: Run, banker: int, payers: list[int]) -> None:
    """``bank_funded``: the banker's funding at a term's start, and each new player's ante."""
    opts, term = run.state.options, run.state.term
    assert term is not None
    transfers = []
    if term.rounds == 1:
        transfers.append(Transfer(seat_actor(banker), BANK, opts.bank_funding))
    if opts.ante:
        transfers += [Transfer(seat_actor(p), BANK, opts.ante) for p in payers]
    if not transfers and not payers:
        return
    data: dict[str, Any] = {"banker": banker, "paid": payers}
    run.server("bank_funded", {**data, **money.settlement(run.state.balances, transfers)})


# Seeds and the deal.


def seeding(run: Run, command: Command, secret: bytes | None) -> None:
    """A seat's ``client_seed`` or ``seed_commitment``, or the server's ``seed_timeout``;
    then the seal once every seed is in, or the reveal of a round a withheld seed voided
    (it moved no money: the antes paid stay in the bank for the term's next rounds)."""
    current = _current(run.state, command)
    drafts, then = dealing.seeding(current, command, run.state.options.seed_time_ms)
    for draft in drafts:
        run.emit(draft)
    if then == dealing.SEAL:
        _seal_and_deal(run, secret)
    elif then == dealing.VOID:
        run.emit(dealing.revealed_draft(run.round, secret))


def _current(state: State, command: Command) -> dealing.RoundState:
    if not in_round(state) or state.round is None or command.round != state.round.round_id:
        raise IllegalActionError(f"{command.type} belongs to the round in progress")
    return state.round


def _seal_and_deal(run: Run, secret: bytes | None) -> None:
    """Seal, then one face-down card to each player in turn order and the banker last."""
    run.emit(dealing.sealed_draft(run.round))
    deck = deck_of(run.state, secret)
    for seat in run.play.deal_order():
        deal(run, deck, seat, dealing.DOWN)
    finish(run, deck, secret)
