"""The players' and the banker's moves during a round, and the move timeout."""

from collections.abc import Callable

from fairdeal.errors import IllegalActionError, LimitError, NotDueError, OutOfTurnError
from fairdeal.events import actor_seat
from fairdeal.games import dealing
from fairdeal.games.base import Command, record
from fairdeal.games.dealing import Deck
from fairdeal.games.kvitlach import hands
from fairdeal.games.kvitlach.ending import after_card, finish, showdown
from fairdeal.games.kvitlach.options import CLASSIC, PRESSBURG
from fairdeal.games.kvitlach.run import Run, cards_of, deal, deck_left, deck_of
from fairdeal.games.kvitlach.state import (
    BANKER,
    OPEN,
    OUT,
    PLAYERS,
    Hand,
    State,
    balance,
    in_round,
    uncovered,
)
from fairdeal.protocol import SERVER

PLAYER_MOVES = ("bet", "hit", "open_card", "stand", "elvaroon", "reject")
BANKER_MOVES = ("banker_draw", "banker_stop")


def stake_limit(state: State, hand: Hand) -> int:
    """The most a bet (or an Elvaroon raise) may add: the maximum bet less what is
    staked, the bank's uncovered funds and the seat's chips not yet staked."""
    max_bet: int = state.options.max_bet
    return min(max_bet - hand.bet, uncovered(state), balance(state, hand.seat) - hand.bet)


def pending_eleven(hand: Hand, deck: Deck) -> bool:
    """The card dealt after an Elvaroon is an 11 and the holder has not moved since."""
    return hand.protected is not None and deck.card(hand.protected) == "11"


def must_draw(state: State, deck: Deck) -> bool:
    """The house rule: the banker draws while the best total is at or below it."""
    assert state.play is not None
    threshold = state.options.banker_must_draw
    if threshold == "none" or not deck_left(state):
        return False
    return hands.best(cards_of(state.play.hands[state.play.banker], deck)) <= int(threshold)


# Checks: each raises unless the move is legal now; legal_actions asks the same ones.


def _is(state: State, rule_set: str) -> bool:
    return bool(state.options.rule_set == rule_set)


def _rule_set(state: State, rule_set: str, kind: str) -> None:
    if state.options.rule_set != rule_set:
        raise IllegalActionError(f"{kind} is not a move of the {state.options.rule_set} rules")


def _has_bet(hand: Hand, kind: str) -> None:
    if not hand.bet:
        raise IllegalActionError(f"bet before you {kind}")


def _drawable(state: State) -> None:
    if not deck_left(state):
        raise IllegalActionError("the deck is exhausted: no more cards this round")


def _check_bet(state: State, hand: Hand, deck: Deck) -> int:
    """Returns the stake limit it checked: the bet's handler bounds the amount by it."""
    if state.options.rule_set == CLASSIC and hand.bet:
        raise IllegalActionError("the classic bet is placed once, before drawing")
    if state.options.rule_set == PRESSBURG:
        _drawable(state)
    limit = stake_limit(state, hand)
    if limit < 1:
        raise LimitError("no bet fits the maximum, the bank's uncovered funds and your chips")
    return limit


def _check_hit(state: State, hand: Hand, deck: Deck) -> None:
    _rule_set(state, CLASSIC, "hit")
    _has_bet(hand, "hit")
    _drawable(state)


def _check_open_card(state: State, hand: Hand, deck: Deck) -> None:
    _rule_set(state, PRESSBURG, "open_card")
    _drawable(state)


def _check_stand(state: State, hand: Hand, deck: Deck) -> None:
    if state.options.rule_set == CLASSIC:
        _has_bet(hand, "stand")


def _check_elvaroon(state: State, hand: Hand, deck: Deck) -> None:
    if state.options.rule_set == CLASSIC:
        _has_bet(hand, "call Elvaroon")
    if hand.elvaroon:
        raise IllegalActionError("Elvaroon is called once per hand")
    if not hands.can_call_elvaroon(cards_of(hand, deck)):
        raise IllegalActionError("Elvaroon needs a total of exactly 11")


# Each has the hand's cards from the deck only where it needs them; the bet's returns
# its stake limit.
_CHECKS: dict[str, Callable[[State, Hand, Deck], int | None]] = {
    "bet": _check_bet,
    "hit": _check_hit,
    "open_card": _check_open_card,
    "stand": _check_stand,
    "elvaroon": _check_elvaroon,
}


def check_player(state: State, seat: int | None, kind: str, deck: Deck) -> Hand:
    hand = _player_to_move(state, seat, kind)
    _check_player_move(state, hand, kind, deck)
    return hand


def _player_to_move(state: State, seat: int | None, kind: str) -> Hand:
    """The hand of ``seat``, if a player's move is awaited and it is this seat's; checked
    before the deck is asked for (a move before the seal is out of turn)."""
    play = state.play
    if not in_round(state) or play is None or play.phase != PLAYERS or play.turn is None:
        raise OutOfTurnError(f"{kind}: no player's move is awaited")
    if play.turn != seat:
        raise OutOfTurnError(f"{kind}: it is seat:{play.turn}'s turn")
    return play.hands[play.turn]


def _check_player_move(state: State, hand: Hand, kind: str, deck: Deck) -> int | None:
    """Raises unless the move is legal now; returns a bet's stake limit (see ``_CHECKS``)."""
    pending = pending_eleven(hand, deck)
    if kind == "reject":
        if not pending:
            raise IllegalActionError("reject follows only an 11 dealt after an Elvaroon")
        return None
    if pending and hands.is_bust(cards_of(hand, deck)):
        raise IllegalActionError("the protected 11 busts this hand: reject it")
    return _CHECKS[kind](state, hand, deck)


def check_banker(state: State, seat: int | None, kind: str, deck: Deck) -> None:
    _banker_to_move(state, seat, kind)
    _check_banker_move(state, kind, deck)


def _banker_to_move(state: State, seat: int | None, kind: str) -> None:
    """Raises unless the banker's move is awaited and ``seat`` is the banker (checked
    before the deck is asked for)."""
    play = state.play
    if not in_round(state) or play is None or play.phase != BANKER or play.turn != seat:
        raise OutOfTurnError(f"{kind}: it is not the banker's turn")


def _check_banker_move(state: State, kind: str, deck: Deck) -> None:
    if kind == "banker_draw":
        _drawable(state)
    elif must_draw(state, deck):
        raise IllegalActionError("the banker must draw at this total")


# Handlers.


def _amount(command: Command, key: str, low: int, high: int, default: int | None) -> int:
    value = command.data.get(key, default)
    if type(value) is not int or value < low:
        raise IllegalActionError(f"{key} must be an integer of at least {low}")
    if value > high:
        raise LimitError(f"{key} may be at most {high} now")
    return value


def raise_limit(state: State, hand: Hand) -> int:
    """The most an Elvaroon may raise the bet: classic rule 17's stake limit; nothing in
    Pressburg, whose source's Elvarun has no raise (a Pressburg bet raises, and deals a
    card)."""
    return stake_limit(state, hand) if state.options.rule_set == CLASSIC else 0


def _elvaroon_raise(state: State, hand: Hand, command: Command) -> int:
    if state.options.rule_set == PRESSBURG and command.data.get("raise", 0) != 0:
        raise IllegalActionError("a Pressburg Elvaroon raises nothing: bet to raise")
    return _amount(command, "raise", 0, raise_limit(state, hand), 0)


def player_move(run: Run, command: Command, secret: bytes | None) -> None:
    hand = _player_to_move(run.state, actor_seat(command.actor), command.type)
    deck = deck_of(run.state, secret)
    bet_limit = _check_player_move(run.state, hand, command.type, deck)
    if command.type == "bet":
        assert bet_limit is not None  # the check's, not computed a second time
        run.emit(record(command, {"amount": _amount(command, "amount", 1, bet_limit, None)}))
    elif command.type == "elvaroon":
        run.emit(record(command, {"raise": _elvaroon_raise(run.state, hand, command)}))
    else:
        run.emit(record(command, {}))
    _draw_for(run, deck, hand.seat, command.type)
    finish(run, deck, secret)


def _draw_for(run: Run, deck: Deck, seat: int, kind: str) -> None:
    if kind == "reject":
        burn_protected(run, deck, seat)
    elif kind in ("hit", "open_card") or (kind == "bet" and _is(run.state, PRESSBURG)):
        deal(run, deck, seat, dealing.UP if kind == "open_card" else dealing.DOWN)
        after_card(run, deck, seat)


def banker_move(run: Run, command: Command, secret: bytes | None) -> None:
    _banker_to_move(run.state, actor_seat(command.actor), command.type)
    deck = deck_of(run.state, secret)
    _check_banker_move(run.state, command.type, deck)
    run.emit(record(command, {}))
    if command.type == "banker_stop" or _banker_draws(run, deck):
        showdown(run, deck, secret)


def _banker_draws(run: Run, deck: Deck) -> bool:
    """One face-up card; True when it ends the banker's play (exactly 21 or bust)."""
    deal(run, deck, run.play.banker, dealing.UP)
    cards = cards_of(run.play.hands[run.play.banker], deck)
    return hands.is_twenty_one(cards) or hands.is_bust(cards)


def move_timeout(run: Run, command: Command, secret: bytes | None) -> None:
    """A player without a bet sits out; with a bet stands (a protected 11 is rejected
    first); the banker draws what the house rule forces, then stops."""
    play = run.state.play
    if command.actor != SERVER or not in_round(run.state) or play is None:
        raise IllegalActionError("no move is awaited")
    expected = {"seat": play.turn, "deadline": play.deadline}
    if play.phase not in (PLAYERS, BANKER) or dict(command.data) != expected:
        raise IllegalActionError("no such move deadline is pending")
    if play.deadline is None or command.time < play.deadline:
        raise NotDueError("the move deadline has not passed")
    run.emit(record(command, expected))
    deck = deck_of(run.state, secret)
    if play.phase == BANKER:
        while must_draw(run.state, deck) and not _banker_draws(run, deck):
            pass
        showdown(run, deck, secret)
        return
    assert play.turn is not None
    _time_out_player(run, deck, play.hands[play.turn])
    finish(run, deck, secret)


def _time_out_player(run: Run, deck: Deck, hand: Hand) -> None:
    if pending_eleven(hand, deck):
        burn_protected(run, deck, hand.seat)
    if run.play.turn == hand.seat:
        status = OPEN if run.play.hands[hand.seat].bet else OUT
        run.server("hand_closed", {"seat": hand.seat, "status": status})


def burn_protected(run: Run, deck: dealing.Deck, seat: int) -> None:
    """Reject the protected 11: burn it face up and deal the next card the same way."""
    position = run.play.hands[seat].protected
    assert position is not None
    face = dealing.UP if position in run.play.known else dealing.DOWN
    card = {"position": position, "card": deck.card(position), "salt": deck.salt(position).hex()}
    run.server("card_burned", {"seat": seat, **card})
    if deck_left(run.state):
        deal(run, deck, seat, face)
        after_card(run, deck, seat)
