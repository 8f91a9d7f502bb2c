"""``apply``: the state after one logged event. Never decides; only records.

Turn order is derived here from public facts (statuses, bets, the bank), so the
service and the verifier move the turn identically without knowing hidden cards.
"""

from collections.abc import Callable, Mapping
from typing import Any

from fairdeal.events import Event, actor_seat
from fairdeal.frozen import evolve
from fairdeal.games import dealing
from fairdeal.games.kvitlach.state import (
    BANKER,
    DONE,
    LOST,
    OPEN,
    OUT,
    PLAYERS,
    PLAYING,
    SEEDING,
    SHOWDOWN,
    SKIPPED,
    WAITING,
    WON,
    Hand,
    Play,
    State,
    Term,
    bank,
    exit_condition,
    frozen,
    in_round,
    uncovered,
)


def apply(state: State, event: Event) -> State:
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"Kvitlach has no event {event.type!r}")
    state = handler(state, event)
    return _with_deadline(state, event.time)


def _with_deadline(state: State, time: int) -> State:
    """Each move has its own time: the clock restarts with every event of the play."""
    play = state.play
    if play is None:
        return state
    waiting = in_round(state) and play.phase in (PLAYERS, BANKER)
    deadline = time + state.options["move_time_ms"] if waiting else None
    return evolve(state, play=evolve(play, deadline=deadline))


def _seat(event: Event) -> int:
    seat = actor_seat(event.actor)
    assert seat is not None
    return seat


def _play(state: State) -> Play:
    assert state.play is not None
    return state.play


def _round(state: State) -> dealing.RoundState:
    assert state.round is not None
    return state.round


def _hand(state: State, seat: int, **changes: Any) -> State:
    play = _play(state)
    hand = evolve(play.hands[seat], **changes)
    return evolve(state, play=evolve(play, hands=frozen({**play.hands, seat: hand})))


def _money(state: State, event: Event) -> State:
    return evolve(state, balances=frozen(event.data["balances"]))


# Seats and the banker's term.


def _joined(state: State, event: Event) -> State:
    seats = tuple(sorted((*state.seats, _seat(event))))
    return evolve(_money(state, event), seats=seats)


def _left(state: State, event: Event) -> State:
    seats = tuple(s for s in state.seats if s != _seat(event))
    return evolve(_money(state, event), seats=seats)


def _term_ended(state: State, event: Event) -> State:
    state = _money(state, event)
    return evolve(state, term=None, banker=event.data["next_banker"], exit_offer=False)


def _bank_funded(state: State, event: Event) -> State:
    term = state.term
    assert term is not None
    paid = term.paid | frozenset(event.data["paid"])
    return evolve(_money(state, event), term=evolve(term, paid=paid))


# The round's randomness and deal.


def _opened(state: State, event: Event) -> State:
    data = event.data
    banker = data["banker"]
    if state.term is None:
        term = Term(banker, 1, frozenset())
    else:
        term = evolve(state.term, rounds=state.term.rounds + 1)
    hands = frozen({seat: Hand(seat) for seat in data["seats"]})
    play = Play(banker, tuple(data["order"]), hands)
    return evolve(
        state,
        round=dealing.apply_opened(event),
        rounds=data["number"],
        banker=banker,
        term=term,
        play=play,
        exit_offer=False,
    )


def _seeded(state: State, event: Event) -> State:
    return evolve(state, round=dealing.apply_seed(_round(state), event))


def _sealed(state: State, event: Event) -> State:
    return evolve(state, round=dealing.apply_sealed(_round(state)))


def _dealt(state: State, event: Event) -> State:
    data, play = event.data, _play(state)
    seat, position = data["seat"], data["position"]
    hand = play.hands[seat]
    state = evolve(state, round=dealing.apply_dealt(_round(state)))
    if "card" in data:
        state = _known(state, {position: data["card"]})
    protected = position if hand.armed else None
    state = _hand(state, seat, cards=(*hand.cards, position), armed=False, protected=protected)
    if play.phase == SEEDING and all(h.cards for h in _play(state).hands.values()):
        return _advance(state)
    return state


def _known(state: State, cards: Mapping[int, str]) -> State:
    play = _play(state)
    return evolve(state, play=evolve(play, known=frozen({**play.known, **cards})))


def _revealed(state: State, event: Event) -> State:
    play = evolve(_play(state), phase=DONE, turn=None)
    return evolve(state, round=dealing.apply_revealed(_round(state)), play=play)


# Players' moves.


def _advance(state: State) -> State:
    """The turn passes to the next waiting player; once the bank is all set aside
    (or nobody waits), the rest are skipped and the banker plays."""
    play = _play(state)
    waiting = [s for s in play.order if play.hands[s].status == WAITING]
    if waiting and uncovered(state) > 0:
        state = _hand(state, waiting[0], status=PLAYING)
        return evolve(state, play=evolve(_play(state), phase=PLAYERS, turn=waiting[0]))
    for seat in waiting:
        state = _hand(state, seat, status=SKIPPED)
    return evolve(state, play=evolve(_play(state), phase=BANKER, turn=play.banker))


def _moved(state: State, event: Event) -> State:
    """Any move of the holder ends the protection of the card dealt after an Elvaroon."""
    return _hand(state, _seat(event), protected=None)


def _bet(state: State, event: Event) -> State:
    seat = _seat(event)
    bet = _play(state).hands[seat].bet + event.data["amount"]
    return _hand(state, seat, bet=bet, protected=None)


def _elvaroon(state: State, event: Event) -> State:
    seat = _seat(event)
    bet = _play(state).hands[seat].bet + event.data["raise"]
    return _hand(state, seat, bet=bet, elvaroon=True, armed=True, protected=None)


def _close(state: State, seat: int) -> State:
    status = OPEN if _play(state).hands[seat].bet else OUT
    return _advance(_hand(state, seat, status=status, protected=None))


def _stand(state: State, event: Event) -> State:
    return _close(state, _seat(event))


def _hand_closed(state: State, event: Event) -> State:
    return _close(state, event.data["seat"])


def _burned(state: State, event: Event) -> State:
    data = event.data
    hand = _play(state).hands[data["seat"]]
    cards = tuple(p for p in hand.cards if p != data["position"])
    burned = (*hand.burned, data["position"])
    state = _hand(state, hand.seat, cards=cards, burned=burned, protected=None)
    return _known(state, {data["position"]: data["card"]})


def _shown(state: State, event: Event) -> State:
    state = _known(state, {c["position"]: c["card"] for c in event.data["cards"]})
    play = _play(state)
    if event.data["seat"] == play.banker:
        return evolve(state, play=evolve(play, phase=SHOWDOWN, turn=None))
    return state


def _resolved(status: str) -> Callable[[State, Event], State]:
    def resolve(state: State, event: Event) -> State:
        seat = event.data["seat"]
        state = _hand(_money(state, event), seat, status=status, protected=None)
        return _advance(state) if _play(state).turn == seat else state

    return resolve


def _settled(state: State, event: Event) -> State:
    state = _money(state, event)
    for result in event.data["results"]:
        state = _hand(state, result["seat"], status=WON if result["outcome"] == "win" else LOST)
    optional = state.options["banker_exit"] == "optional"
    return evolve(state, exit_offer=optional and exit_condition(state) and bank(state) > 0)


def _nothing(state: State, event: Event) -> State:
    return state


_HANDLERS: dict[str, Callable[[State, Event], State]] = {
    "seat_joined": _joined,
    "seat_left": _left,
    "banker_exit": _nothing,
    "term_ended": _term_ended,
    "round_opened": _opened,
    "bank_funded": _bank_funded,
    "client_seed": _seeded,
    "seed_timeout": _nothing,
    "round_sealed": _sealed,
    "card_dealt": _dealt,
    "bet": _bet,
    "hit": _moved,
    "open_card": _moved,
    "stand": _stand,
    "elvaroon": _elvaroon,
    "reject": _nothing,
    "card_burned": _burned,
    "move_timeout": _nothing,
    "hand_closed": _hand_closed,
    "cards_shown": _shown,
    "hand_won": _resolved(WON),
    "hand_lost": _resolved(LOST),
    "banker_draw": _nothing,
    "banker_stop": _nothing,
    "round_settled": _settled,
    "round_revealed": _revealed,
}
