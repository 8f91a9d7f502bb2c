"""``apply``: the state after one logged event. Never decides; only records.

Turn order is derived here from public facts (statuses, bets, the bank), so the
service and the verifier move the turn identically without knowing hidden cards.
"""

from collections.abc import Callable, Mapping
from types import MappingProxyType
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
    covered,
    exit_condition,
    frozen,
    in_round,
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
    if deadline == play.deadline:  # the usual case after a command's first event
        return state
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
    return evolve(state, play=_hands(_play(state), {seat: changes}))


def _hands(play: Play, changes: Mapping[int, Mapping[str, Any]], **play_changes: Any) -> Play:
    """The play with some seats' hands (and its own fields) changed: one new play for
    them all, since each copy costs more than the rest of applying an event."""
    hands = dict(play.hands)
    for seat, fields in changes.items():
        hands[seat] = evolve(hands[seat], **fields)
    return evolve(play, hands=MappingProxyType(hands), **play_changes)


def _known(play: Play, cards: Mapping[int, str], **play_changes: Any) -> Play:
    """The play with more cards public (and its own fields changed)."""
    return evolve(play, known=MappingProxyType({**play.known, **cards}), **play_changes)


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
    protected = position if hand.armed else None
    hand = evolve(hand, cards=(*hand.cards, position), armed=False, protected=protected)
    hands = MappingProxyType({**play.hands, seat: hand})
    if "card" in data:
        play = _known(play, {position: data["card"]}, hands=hands)
    else:
        play = evolve(play, hands=hands)
    if play.phase == SEEDING and all(h.cards for h in play.hands.values()):
        play = _advanced(state, play)
    return evolve(state, round=dealing.apply_dealt(_round(state)), play=play)


def _revealed(state: State, event: Event) -> State:
    play = evolve(_play(state), phase=DONE, turn=None)
    return evolve(state, round=dealing.apply_revealed(_round(state)), play=play)


# Players' moves.


def _advanced(state: State, play: Play) -> Play:
    """``play`` (the state's next) with the turn passed to the next waiting player; once
    the bank is all set aside (or nobody waits), the rest are skipped and the banker plays."""
    waiting = [s for s in play.order if play.hands[s].status == WAITING]
    if waiting and bank(state) - covered(play) > 0:  # uncovered funds, with this play
        return _hands(play, {waiting[0]: {"status": PLAYING}}, phase=PLAYERS, turn=waiting[0])
    skipped = {seat: {"status": SKIPPED} for seat in waiting}
    return _hands(play, skipped, phase=BANKER, turn=play.banker)


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
    play = _play(state)
    status = OPEN if play.hands[seat].bet else OUT
    play = _hands(play, {seat: {"status": status, "protected": None}})
    return evolve(state, play=_advanced(state, play))


def _stand(state: State, event: Event) -> State:
    return _close(state, _seat(event))


def _hand_closed(state: State, event: Event) -> State:
    return _close(state, event.data["seat"])


def _burned(state: State, event: Event) -> State:
    data = event.data
    hand = _play(state).hands[data["seat"]]
    cards = tuple(p for p in hand.cards if p != data["position"])
    burned = (*hand.burned, data["position"])
    play = _hands(_play(state), {hand.seat: {"cards": cards, "burned": burned, "protected": None}})
    return evolve(state, play=_known(play, {data["position"]: data["card"]}))


def _shown(state: State, event: Event) -> State:
    play = _play(state)
    cards = {c["position"]: c["card"] for c in event.data["cards"]}
    if event.data["seat"] == play.banker:
        return evolve(state, play=_known(play, cards, phase=SHOWDOWN, turn=None))
    return evolve(state, play=_known(play, cards))


def _resolved(status: str) -> Callable[[State, Event], State]:
    def resolve(state: State, event: Event) -> State:
        seat, state = event.data["seat"], _money(state, event)
        play = _hands(_play(state), {seat: {"status": status, "protected": None}})
        return evolve(state, play=_advanced(state, play) if play.turn == seat else play)

    return resolve


def _settled(state: State, event: Event) -> State:
    results = event.data["results"]
    statuses = {r["seat"]: {"status": WON if r["outcome"] == "win" else LOST} for r in results}
    state = evolve(state, play=_hands(_play(state), statuses))
    state = _money(state, event)
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
