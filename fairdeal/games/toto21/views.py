"""What each seat may see and do. A view never holds another seat's hidden card, a
blind card before the showdown, or the server seed before the reveal."""

from typing import Any

from fairdeal.games import dealing
from fairdeal.games.dealing import DOWN
from fairdeal.games.toto21 import play
from fairdeal.games.toto21.cipher import Crypto
from fairdeal.games.toto21.options import NAME
from fairdeal.games.toto21.state import (
    DECIDING,
    OPEN,
    PLAYING,
    Held,
    State,
    deck_of,
)
from fairdeal.protocol import (
    ANSWERS,
    CLIENT_SEED,
    GOLDEN_POINT,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    SEAT_JOINED,
    SHARES_DUE,
)


def view_for(state: State, seat: int | None, secret: bytes | None) -> dict[str, Any]:
    """The table as ``seat`` sees it (None: the public)."""
    return {
        "game": NAME,
        "viewer": seat,
        "options": state.options.to_json(),
        "phase": state.phase,
        "seats": list(state.seats),
        "balances": dict(sorted(state.balances.items())),
        "score": list(state.score),
        "worth": state.worth,
        "game_deadline": state.game_deadline,
        "rounds": state.rounds,
        "round": _round_view(state, seat, secret),
    }


def legal_actions(state: State, seat: int, secret: bytes | None) -> list[str]:
    """The commands ``seat`` may send now (deadlines aside: the clock is the caller's)."""
    if state.phase == OPEN:
        return [SEAT_JOINED] if seat == len(state.seats) else []
    if state.phase == DECIDING:
        return [JOINER_ACCEPTED, JOINER_REJECTED] if seat == 0 else []
    current, hand = state.round, state.hand
    if state.phase != PLAYING or current is None or not state.in_round():
        return []
    crypto = state.crypto
    if crypto is not None and crypto.request is not None:
        return [ANSWERS[crypto.request.kind]] if seat in crypto.request.seats else []
    if not current.sealed:
        moves = dealing.seed_moves(current, seat)
        return [m for m in moves if m != CLIENT_SEED or current.revealing or crypto is None]
    if hand is None or hand.turn != seat:
        return []
    if crypto is not None:  # the service cannot see the total: the seat's client applies 21
        draws = ["hit", "blind", "stand"] if seat == hand.player and not hand.blind_taken else []
        first = seat == hand.player and all(drawer != seat for drawer, _ in crypto.draws)
        return ([GOLDEN_POINT] if first else []) + (draws or ["hit", "stand"])
    if not play.may_draw(state, secret, seat):
        return ["stand"]
    blind = seat == hand.player and not hand.blind_taken
    return ["hit", "blind", "stand"] if blind else ["hit", "stand"]


def _round_view(state: State, seat: int | None, secret: bytes | None) -> Any:
    current, hand = state.round, state.hand
    if current is None:
        return None
    view: dict[str, Any] = {
        "id": current.round_id,
        "number": current.number,
        "commitment": current.commitment,
        "seats": list(current.seats),
        **dealing.seeds_view(current),
        "revealed": current.revealed,
    }
    if current.revealed and secret is not None:
        dealing.check_secret(secret, current.commitment)
        view["server_seed"] = secret.hex()
    if state.crypto is not None:
        view.update(_crypto_view(state.crypto))
    if hand is not None:
        view["dealer"], view["player"] = hand.dealer, hand.player
        view["turn"], view["move_deadline"] = hand.turn, hand.move_deadline
        view["blind_taken"] = hand.blind_taken
        view["cards"] = [_card_view(state, held, seat, secret) for held in hand.held]
    return view


def _crypto_view(crypto: Crypto) -> dict[str, Any]:
    """A blind round's keys, steps and pending request: public (SPEC 15.13.10)."""
    request = crypto.request
    pending = None
    if request is not None:
        pending = {"type": request.kind, "deadline": request.deadline, "seats": list(request.seats)}
        if request.kind == SHARES_DUE:
            pending["positions"] = {str(s): list(p) for s, p in request.positions.items()}
    return {
        "server_key": crypto.server_key,
        "round_keys": {str(seat): key for seat, key in sorted(crypto.round_keys.items())},
        "steps": len(crypto.decks),
        "request": pending,
        "claimed": crypto.claimed,
    }


def _card_view(state: State, held: Held, seat: int | None, secret: bytes | None) -> dict[str, Any]:
    """Public cards with their code; the viewer's own face-down cards with code and salt."""
    assert state.hand is not None
    card: dict[str, Any] = {"position": held.position, "seat": held.seat, "face": held.face}
    if held.commitment is not None:
        card["commitment"] = held.commitment
    known = state.hand.known.get(held.position)
    crypto = state.crypto
    if crypto is not None:  # the service never knows a hidden card (SPEC 15.13.10)
        card["ciphertext"] = dict(crypto.deck()[held.position])
        card["shares"] = dict(crypto.shares.get(held.position, {}))
    if known is not None:
        card["card"] = known.card
        if known.salt is not None:
            card["salt"] = known.salt
    elif held.face == DOWN and crypto is None and held.seat == seat and secret is not None:
        deck = deck_of(state, secret)
        card["card"], card["salt"] = deck.card(held.position), deck.salt(held.position).hex()
    return card
