"""The turns: the player first, then the dealer; hit, blind card, stand, move timeout."""

from fairdeal.errors import IllegalActionError, OutOfTurnError
from fairdeal.games import dealing
from fairdeal.games.base import Command, Decision, record
from fairdeal.games.dealing import BLIND, DOWN
from fairdeal.games.toto21 import blind_round, hands, timing
from fairdeal.games.toto21.ending import showdown
from fairdeal.games.toto21.run import (
    Run,
    acting_seat,
    current_round,
    in_time,
    move_due,
    require_server,
)
from fairdeal.games.toto21.state import Hand, State, cards_of, deck_of, visible_to_owner


def hit(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """A card face down to the seat to move; the turn goes on."""
    return _draw(state, command, secret, DOWN)


def blind(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """The round's player only, once a round: a card nobody sees until the showdown."""
    hand = _on_turn(state, command)
    if hand.turn != hand.player:
        raise OutOfTurnError("only the round's player takes a blind card")
    if hand.blind_taken:
        raise IllegalActionError("the blind card was already taken this round")
    return _draw(state, command, secret, BLIND)


def stand(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    hand = _on_turn(state, command)
    run = Run(state, command)
    run.emit(record(command, {}, _round_id(state)))
    _end_turn(run, hand, secret)
    return run.decision()


def move_timeout(state: State, command: Command, secret: bytes | None) -> Decision[State]:
    """The seat to move let its move time run out: it stands."""
    require_server(command)
    current_round(state, command)
    timing.check_due(state, command)
    hand = state.hand
    assert hand is not None  # check_due found a move deadline
    run = Run(state, command)
    data = {"seat": hand.turn, "deadline": hand.move_deadline}
    run.emit(record(command, data, _round_id(state)))
    _end_turn(run, hand, secret)
    return run.decision()


def may_draw(state: State, secret: bytes | None, seat: int) -> bool:
    """While the cards the seat can see (its blind card not among them) total below 21."""
    assert state.hand is not None
    deck = deck_of(state, secret)
    return hands.may_draw(cards_of(deck, visible_to_owner(state.hand, seat)))


def _round_id(state: State) -> str:
    assert state.round is not None
    return state.round.round_id


def _draw(state: State, command: Command, secret: bytes | None, face: str) -> Decision[State]:
    hand = _on_turn(state, command)
    assert hand.turn is not None
    if state.options.blind:
        return blind_round.draw(state, command, secret, face)
    if not may_draw(state, secret, hand.turn):
        raise IllegalActionError("a participant draws only while the cards they see total below 21")
    run = Run(state, command)
    run.emit(record(command, {}, _round_id(state)))
    deck = deck_of(state, secret)
    run.emit(dealing.deal_draft(run.round(), deck, hand.dealt(), hand.turn, face))
    run.emit(move_due(_round_id(state), hand.turn, command.time + state.options.move_time_ms))
    return run.decision()


def _on_turn(state: State, command: Command) -> Hand:
    """The hand, if the command's seat is the one to move and within its move time (the
    game's end does not cut a dealt round short)."""
    current_round(state, command)
    seat, hand = acting_seat(command), state.hand
    if hand is None:
        raise OutOfTurnError("the round is not dealt yet: its seeds are still coming in")
    if hand.turn != seat:
        raise OutOfTurnError(f"it is seat:{hand.turn}'s move, not {command.actor}'s")
    in_time(hand.move_deadline, command.time, "move")
    return hand


def _end_turn(run: Run, hand: Hand, secret: bytes | None) -> None:
    """The player's turn passes to the dealer; the dealer's ends in the showdown."""
    if hand.turn == hand.player:
        deadline = run.time + run.state.options.move_time_ms
        run.emit(move_due(_round_id(run.state), hand.dealer, deadline))
    elif run.state.options.blind:
        blind_round.ask_keys(run)
    else:
        showdown(run, secret)
