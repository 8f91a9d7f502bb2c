"""Folding logged events into the Toto21 state. Trusts data that ``decide`` produced."""

from collections.abc import Callable, Mapping
from typing import Any

from fairdeal.events import Event, actor_seat
from fairdeal.frozen import evolve
from fairdeal.games import dealing
from fairdeal.games.base import Logged
from fairdeal.games.dealing import BLIND, UP
from fairdeal.games.toto21.cipher import Crypto, Request
from fairdeal.games.toto21.state import (
    DECIDING,
    OPEN,
    OVER,
    PLAYING,
    Hand,
    Held,
    Known,
    State,
)
from fairdeal.protocol import (
    CARD_DEALT,
    CARD_OPENED,
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    GOLDEN_POINT,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    KEYS_DUE,
    KEYS_TIMEOUT,
    ROUND_KEY,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEAT_JOINED,
    SEAT_LEFT,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEEDS_COMMITTED,
    SHARES_DUE,
    SHARES_TIMEOUT,
    SHUFFLE_DUE,
    SHUFFLE_TIMEOUT,
)

Applier = Callable[[State, Logged], State]


def apply(state: State, event: Event) -> State:
    return apply_at(state, event, event.time)


def apply_at(state: State, event: Logged, time: int) -> State:
    """``apply`` for an event (or a draft) logged at ``time``, which Toto21 never reads:
    its deadlines are logged in the events' data."""
    applier = _APPLIERS.get(event.type)
    if applier is None:
        raise ValueError(f"toto21 logs no event {event.type!r}")
    return applier(state, event)


def _unchanged(state: State, event: Logged) -> State:
    return state


def _joined(state: State, event: Logged) -> State:
    seats = (*state.seats, event.data["seat"])
    return evolve(
        state,
        seats=seats,
        phase=DECIDING if len(seats) == 2 else OPEN,
        balances=event.data["balances"],
    )


def _left(state: State, event: Logged) -> State:
    return evolve(
        state,
        seats=tuple(seat for seat in state.seats if seat != event.data["seat"]),
        phase=OPEN,
        balances=event.data["balances"],
    )


def _started(state: State, event: Logged) -> State:
    data = event.data
    return evolve(
        state, phase=PLAYING, balances=data["balances"], game_deadline=data["game_deadline"]
    )


def _ended(state: State, event: Logged) -> State:
    return evolve(state, phase=OVER, balances=event.data["balances"])


def _round(update: Callable[[dealing.RoundState, Logged], dealing.RoundState]) -> Applier:
    def applier(state: State, event: Logged) -> State:
        assert state.round is not None
        return evolve(state, round=update(state.round, event))

    return applier


def _opened(state: State, event: Logged) -> State:
    opened = dealing.apply_opened(event)
    round_ids = state.round_ids | {opened.round_id}
    server_key = event.data.get("server_key")
    crypto = None if server_key is None else Crypto(server_key["key"])
    return evolve(
        state,
        round=opened,
        hand=None,
        crypto=crypto,
        rounds=state.rounds + 1,
        round_ids=round_ids,
    )


def _dealer_chosen(state: State, event: Logged) -> State:
    hand = Hand(dealer=event.data["dealer"], player=event.data["player"])
    if state.crypto is None:
        return evolve(state, hand=hand)
    # a blind round's first move is the player's, once the deal's shares are in
    return evolve(state, hand=hand, crypto=evolve(state.crypto, then=hand.player))


def _dealt(state: State, event: Logged) -> State:
    assert state.hand is not None
    data, hand = event.data, state.hand
    held = Held(data["seat"], data["position"], data["face"], data.get("commitment"))
    known = (
        {**hand.known, held.position: Known(data["card"], None)}
        if held.face == UP and "card" in data
        else hand.known
    )
    blind_taken = hand.blind_taken or held.face == BLIND
    hand = evolve(hand, held=(*hand.held, held), known=known, blind_taken=blind_taken)
    share = data.get("server_share")
    if state.crypto is None or share is None:
        return evolve(state, hand=hand)
    crypto = _with_shares(state.crypto, "server", {held.position: share})
    return evolve(state, hand=hand, crypto=crypto)


def _move_due(state: State, event: Logged) -> State:
    assert state.hand is not None
    hand = evolve(state.hand, turn=event.data["seat"], move_deadline=event.data["deadline"])
    return evolve(state, hand=hand)


def _turn_over(state: State, event: Logged) -> State:
    if state.hand is None:  # a round voided before its seal has no hand
        return state
    return evolve(state, hand=evolve(state.hand, turn=None, move_deadline=None))


def _shown(state: State, event: Logged) -> State:
    assert state.hand is not None
    shown = {c["position"]: Known(c["card"], c.get("salt")) for c in event.data["cards"]}
    return evolve(state, hand=evolve(state.hand, known={**state.hand.known, **shown}))


def _won(state: State, event: Logged) -> State:
    score = tuple(event.data["score"])
    assert len(score) == 2
    return evolve(_turn_over(state, event), score=(score[0], score[1]), worth=1)


def _double_bust(state: State, event: Logged) -> State:
    return evolve(_turn_over(state, event), worth=event.data["next_worth"])


# A dealer-blind round's events (SPEC 15.13)


def _crypto(update: Callable[[Crypto, Logged], Crypto]) -> Applier:
    def applier(state: State, event: Logged) -> State:
        assert state.crypto is not None
        return evolve(state, crypto=update(state.crypto, event))

    return applier


def _with_shares(crypto: Crypto, party: str, shares: Mapping[int, Mapping[str, Any]]) -> Crypto:
    published = dict(crypto.shares)
    for position, share in shares.items():
        published[position] = {**published.get(position, {}), party: share}
    return evolve(crypto, shares=published)


def _answered(crypto: Crypto, seat: int) -> Request | None:
    """The pending request once ``seat`` answered it: None once every seat has."""
    request = crypto.request
    assert request is not None
    seats = tuple(s for s in request.seats if s != seat)
    return evolve(request, seats=seats) if seats else None


def _seat(event: Logged) -> int:
    seat = actor_seat(event.actor)
    assert seat is not None
    return seat


def _committed(state: State, event: Logged) -> State:
    state = evolve(state, round=dealing.apply_seeding(_current(state), event))
    key = event.data.get("round_key")
    if state.crypto is None or key is None:
        return state
    keys = {**state.crypto.round_keys, _seat(event): key["key"]}
    return evolve(state, crypto=evolve(state.crypto, round_keys=keys))


def _current(state: State) -> dealing.RoundState:
    assert state.round is not None
    return state.round


def _shuffled(crypto: Crypto, event: Logged) -> Crypto:
    return evolve(crypto, decks=(*crypto.decks, tuple(event.data["deck"])), request=None)


def _requested(state: State, event: Logged) -> State:
    """A ``*_due`` of the round's cryptography: no move runs while it is pending."""
    assert state.crypto is not None
    data, seats = event.data, _current(state).seats
    if event.type == SHARES_DUE:
        owed = {r["seat"]: tuple(r["positions"]) for r in data["requests"]}
        request = Request(event.type, data["deadline"], tuple(s for s in seats if s in owed), owed)
    elif event.type == SHUFFLE_DUE:
        request = Request(event.type, data["deadline"], (data["seat"],))
    else:
        request = Request(event.type, data["deadline"], tuple(data["seats"]))
    return evolve(_turn_over(state, event), crypto=evolve(state.crypto, request=request))


def _shares(crypto: Crypto, event: Logged) -> Crypto:
    seat = _seat(event)
    given = {
        e["position"]: {"proof": e["proof"], "share": e["share"]} for e in event.data["shares"]
    }
    crypto = _with_shares(crypto, f"seat:{seat}", given)
    return evolve(crypto, request=_answered(crypto, seat))


def _key(crypto: Crypto, event: Logged) -> Crypto:
    seat = _seat(event)
    secret = int.from_bytes(bytes.fromhex(event.data["secret"]), "little")
    return evolve(crypto, secrets={**crypto.secrets, seat: secret}, request=_answered(crypto, seat))


def _timed_out(crypto: Crypto, event: Logged) -> Crypto:
    return evolve(crypto, request=None)


def _claimed(crypto: Crypto, event: Logged) -> Crypto:
    return evolve(crypto, claimed=True)


def _drew(state: State, event: Logged) -> State:
    """A blind table's hit or blind card: the drawing seat's cards it could see then (for
    the draw limit, checked at the showdown) and that it moves again once the card is in."""
    if state.crypto is None:
        return state
    assert state.hand is not None
    seat = _seat(event)
    seen = tuple(h.position for h in state.hand.of(seat) if h.face != BLIND)
    crypto = state.crypto
    return evolve(state, crypto=evolve(crypto, draws=(*crypto.draws, (seat, seen)), then=seat))


def _card_opened(state: State, event: Logged) -> State:
    assert state.hand is not None
    known = {**state.hand.known, event.data["position"]: Known(event.data["card"], None)}
    return evolve(state, hand=evolve(state.hand, known=known))


_APPLIERS: dict[str, Applier] = {
    SEAT_JOINED: _joined,
    JOINER_ACCEPTED: _unchanged,
    JOINER_REJECTED: _unchanged,
    SEAT_LEFT: _left,
    "match_started": _started,
    ROUND_OPENED: _opened,
    SEED_COMMITMENT: _committed,
    SEEDS_COMMITTED: _round(dealing.apply_seeding),
    CLIENT_SEED: _round(dealing.apply_seeding),
    SEED_TIMEOUT: _round(dealing.apply_seeding),
    ROUND_SEALED: _round(lambda current, _event: dealing.apply_sealed(current)),
    "dealer_chosen": _dealer_chosen,
    CARD_DEALT: _dealt,
    "move_due": _move_due,
    "hit": _drew,
    "blind": _drew,
    "stand": _turn_over,
    "move_timeout": _turn_over,
    "cards_shown": _shown,
    "round_won": _won,
    "round_double_bust": _double_bust,
    ROUND_VOIDED: _turn_over,
    ROUND_REVEALED: _round(lambda current, _event: dealing.apply_revealed(current)),
    "game_time_up": _unchanged,
    "match_won": _ended,
    "match_drawn": _ended,
    DECK_SHUFFLED: _crypto(_shuffled),
    SHUFFLE_DUE: _requested,
    SHUFFLE_TIMEOUT: _crypto(_timed_out),
    SHARES_DUE: _requested,
    DECRYPTION_SHARES: _crypto(_shares),
    SHARES_TIMEOUT: _crypto(_timed_out),
    CARD_OPENED: _card_opened,
    GOLDEN_POINT: _crypto(_claimed),
    KEYS_DUE: _requested,
    ROUND_KEY: _crypto(_key),
    KEYS_TIMEOUT: _crypto(_timed_out),
}
