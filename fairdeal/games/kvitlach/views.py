"""What each seat may see and send.

A view never holds another seat's face-down card, nor any card before it is
public, nor the server seed: hidden cards appear as positions only.
"""

from collections.abc import Callable
from typing import Any

from fairdeal.errors import GameError
from fairdeal.games import dealing
from fairdeal.games.dealing import Deck
from fairdeal.games.kvitlach.options import NAME
from fairdeal.games.kvitlach.play import BANKER_MOVES, PLAYER_MOVES, check_banker, check_player
from fairdeal.games.kvitlach.run import deck_of
from fairdeal.games.kvitlach.seating import next_free_seat
from fairdeal.games.kvitlach.state import (
    PLAYERS,
    SEEDING,
    Hand,
    Play,
    State,
    Term,
    bank,
    covered,
    in_round,
)
from fairdeal.protocol import SEAT_JOINED, SEAT_LEFT


def legal_actions(state: State, seat: int, secret: bytes | None) -> list[str]:
    if seat not in state.seats:
        joinable = not in_round(state) and seat == next_free_seat(state)
        return [SEAT_JOINED] if joinable else []
    if not in_round(state):
        return _between_rounds(state, seat)
    play, current = state.play, state.round
    assert play is not None and current is not None
    if play.phase == SEEDING:
        return dealing.seed_moves(current, seat)
    if play.turn != seat or secret is None:
        return []
    deck = deck_of(state, secret)
    if play.phase == PLAYERS:
        return [k for k in PLAYER_MOVES if _allowed(check_player, state, seat, k, deck)]
    return [k for k in BANKER_MOVES if _allowed(check_banker, state, seat, k, deck)]


def _between_rounds(state: State, seat: int) -> list[str]:
    actions = []
    if state.term is None or state.term.banker != seat:
        actions.append(SEAT_LEFT)
    if state.exit_offer and seat == state.banker:
        actions.append("banker_exit")
    return actions


def _allowed(
    check: Callable[[State, int, str, Deck], object], state: State, seat: int, kind: str, deck: Deck
) -> bool:
    try:
        check(state, seat, kind, deck)
    except GameError:
        return False
    return True


# Views.


def view_for(state: State, seat: int | None, secret: bytes | None) -> dict[str, Any]:
    term = state.term
    view: dict[str, Any] = {
        "game": NAME,
        "options": state.options.to_json(),
        "seats": list(state.seats),
        "balances": dict(sorted(state.balances.items())),
        "banker": state.banker,
        "term": None if term is None else _term_view(term),
        "rounds": state.rounds,
        "exit_offer": state.exit_offer,
        "round": _round_view(state),
        "you": seat,
    }
    if seat is not None:
        view["legal_actions"] = legal_actions(state, seat, secret)
        view["your_cards"] = _own_cards(state, seat, secret)
    return view


def _own_cards(state: State, seat: int, secret: bytes | None) -> list[dict[str, Any]]:
    """The seat's own cards with their salts, so it can check each card's commitment."""
    play, current = state.play, state.round
    if secret is None or play is None or current is None or not current.sealed:
        return []
    if seat not in play.hands:
        return []
    deck = deck_of(state, secret)
    return [
        {"position": p, "card": deck.card(p), "salt": deck.salt(p).hex()}
        for p in play.hands[seat].cards
    ]


def _term_view(term: Term) -> dict[str, Any]:
    return {"banker": term.banker, "round": term.rounds, "paid": sorted(term.paid)}


def _round_view(state: State) -> dict[str, Any] | None:
    current, play = state.round, state.play
    if current is None or play is None:
        return None
    return {
        "id": current.round_id,
        "number": current.number,
        "commitment": current.commitment,
        "seats": list(current.seats),
        **dealing.seeds_view(current),
        "revealed": current.revealed,
        "banker": play.banker,
        "order": list(play.order),
        "phase": play.phase,
        "turn": play.turn,
        "deadline": play.deadline,
        "bank": bank(state),
        "covered": covered(play) if in_round(state) else 0,
        "hands": [_hand_view(play, play.hands[s]) for s in (*play.order, play.banker)],
    }


def _hand_view(play: Play, hand: Hand) -> dict[str, Any]:
    return {
        "seat": hand.seat,
        "cards": [{"position": p, "card": play.known.get(p)} for p in hand.cards],
        "burned": [{"position": p, "card": play.known[p]} for p in hand.burned],
        "bet": hand.bet,
        "status": hand.status,
        "elvaroon": hand.elvaroon,
        "protected": hand.protected,
    }
