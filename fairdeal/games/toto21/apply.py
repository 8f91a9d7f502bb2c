"""Folding logged events into the Toto21 state. Trusts data that ``decide`` produced."""

from collections.abc import Callable

from fairdeal.events import Event
from fairdeal.frozen import evolve
from fairdeal.games import dealing
from fairdeal.games.base import Logged
from fairdeal.games.dealing import BLIND, UP
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
    CLIENT_SEED,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEAT_JOINED,
    SEAT_LEFT,
    SEED_COMMITMENT,
    SEED_TIMEOUT,
    SEEDS_COMMITTED,
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
    return evolve(state, round=opened, hand=None, rounds=state.rounds + 1, round_ids=round_ids)


def _dealer_chosen(state: State, event: Logged) -> State:
    return evolve(state, hand=Hand(dealer=event.data["dealer"], player=event.data["player"]))


def _dealt(state: State, event: Logged) -> State:
    assert state.hand is not None
    data, hand = event.data, state.hand
    held = Held(data["seat"], data["position"], data["face"], data.get("commitment"))
    known = (
        {**hand.known, held.position: Known(data["card"], None)} if held.face == UP else hand.known
    )
    blind_taken = hand.blind_taken or held.face == BLIND
    hand = evolve(hand, held=(*hand.held, held), known=known, blind_taken=blind_taken)
    return evolve(state, hand=hand)


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
    shown = {c["position"]: Known(c["card"], c["salt"]) for c in event.data["cards"]}
    return evolve(state, hand=evolve(state.hand, known={**state.hand.known, **shown}))


def _won(state: State, event: Logged) -> State:
    score = tuple(event.data["score"])
    assert len(score) == 2
    return evolve(_turn_over(state, event), score=(score[0], score[1]), worth=1)


def _double_bust(state: State, event: Logged) -> State:
    return evolve(_turn_over(state, event), worth=event.data["next_worth"])


_APPLIERS: dict[str, Applier] = {
    SEAT_JOINED: _joined,
    JOINER_ACCEPTED: _unchanged,
    JOINER_REJECTED: _unchanged,
    SEAT_LEFT: _left,
    "match_started": _started,
    ROUND_OPENED: _opened,
    SEED_COMMITMENT: _round(dealing.apply_seeding),
    SEEDS_COMMITTED: _round(dealing.apply_seeding),
    CLIENT_SEED: _round(dealing.apply_seeding),
    SEED_TIMEOUT: _round(dealing.apply_seeding),
    ROUND_SEALED: _round(lambda current, _event: dealing.apply_sealed(current)),
    "dealer_chosen": _dealer_chosen,
    CARD_DEALT: _dealt,
    "move_due": _move_due,
    "hit": _unchanged,
    "blind": _unchanged,
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
}
