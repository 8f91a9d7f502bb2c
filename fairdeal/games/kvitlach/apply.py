"""``apply``: the state after one logged event. Never decides; only records.

Turn order is derived here from public facts (statuses, bets, the bank), so the
service and the verifier move the turn identically without knowing hidden cards.

Each handler gathers its changes to the play and to the state and ``_next`` makes them
at once, the move clock included: every copy of a play or a state costs more than the
rest of applying an event.
"""

from collections.abc import Callable, Mapping
from operator import attrgetter
from types import MappingProxyType
from typing import Any

from fairdeal.events import Event, actor_seat
from fairdeal.frozen import evolve
from fairdeal.games import dealing
from fairdeal.games.base import Logged
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
    changed,
    exit_condition,
    frozen,
    staked,
)
from fairdeal.games.money import BANK
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
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

_Changes = Mapping[str, Any]
_UNCHANGED: _Changes = MappingProxyType({})
_MOVING = frozenset((PLAYERS, BANKER))  # phases in which a move (and its deadline) is awaited
_cards = attrgetter("cards")  # in C: no generator to resume for each hand at each deal


def apply(state: State, event: Event) -> State:
    return apply_at(state, event, event.time)


def apply_at(state: State, event: Logged, time: int) -> State:
    """``apply`` for an event (or a draft) logged at ``time``."""
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"Kvitlach has no event {event.type!r}")
    return handler(state, event, time)


def _next(state: State, time: int, play: _Changes = _UNCHANGED, **changes: Any) -> State:
    """The state with the play's ``play`` changes and its own ``changes`` made.

    Each move has its own time: the clock restarts with every event of the play while
    a player or the banker is to move.
    """
    old = state.play
    if old is not None:
        current = changes.get("round", state.round)
        phase = play.get("phase", old.phase)
        waiting = current is not None and not current.revealed and phase in _MOVING
        deadline = time + state.options.move_time_ms if waiting else None
        # Unchanged on most events after a command's first: then the play is kept.
        if play or deadline != old.deadline:
            changes["play"] = evolve(old, **play, deadline=deadline)
    return evolve(state, **changes) if changes else state


def _seat(event: Logged) -> int:
    seat = actor_seat(event.actor)
    assert seat is not None
    return seat


def _play(state: State) -> Play:
    assert state.play is not None
    return state.play


def _round(state: State) -> dealing.RoundState:
    assert state.round is not None
    return state.round


def _hands(
    hands: MappingProxyType[int, Hand], changes: Mapping[int, _Changes]
) -> MappingProxyType[int, Hand]:
    """The hands with some seats' hands changed (copied once, like ``changed``, in a loop:
    a comprehension and a call of ``changed`` cost more on events that change one hand)."""
    new = hands.copy()
    for seat, fields in changes.items():
        new[seat] = evolve(hands[seat], **fields)
    return MappingProxyType(new)


def _hand(state: State, time: int, seat: int, **changes: Any) -> State:
    return _next(state, time, {"hands": _hands(_play(state).hands, {seat: changes})})


def _balances(event: Logged) -> MappingProxyType[str, int]:
    return frozen(event.data["balances"])


# Seats and the banker's term.


def _joined(state: State, event: Logged, time: int) -> State:
    seats = tuple(sorted((*state.seats, _seat(event))))
    return _next(state, time, balances=_balances(event), seats=seats)


def _left(state: State, event: Logged, time: int) -> State:
    """The seat is free again; its ante stays in the bank but is no newcomer's: whoever
    takes the seat next in this term pays the ante at its first round."""
    seat = _seat(event)
    seats = tuple(s for s in state.seats if s != seat)
    term = state.term
    if term is not None:
        term = evolve(term, paid=term.paid - {seat})
    return _next(state, time, balances=_balances(event), seats=seats, term=term)


def _term_ended(state: State, event: Logged, time: int) -> State:
    banker = event.data["next_banker"]
    return _next(state, time, balances=_balances(event), term=None, banker=banker, exit_offer=False)


def _bank_funded(state: State, event: Logged, time: int) -> State:
    term = state.term
    assert term is not None
    paid = term.paid | frozenset(event.data["paid"])
    return _next(state, time, balances=_balances(event), term=evolve(term, paid=paid))


# The round's randomness and deal.


def _opened(state: State, event: Logged, time: int) -> State:
    # A new play, its players still seeding: no move and so no move deadline yet.
    data = event.data
    banker = data["banker"]
    if state.term is None:
        term = Term(banker, 1, frozenset())
    else:
        term = evolve(state.term, rounds=state.term.rounds + 1)
    hands = frozen({seat: Hand(seat) for seat in data["seats"]})
    play = Play(banker, tuple(data["order"]), hands)
    opened = dealing.apply_opened(event)
    return evolve(
        state,
        round=opened,
        round_ids=state.round_ids | {opened.round_id},
        rounds=data["number"],
        banker=banker,
        term=term,
        play=play,
        exit_offer=False,
    )


def _seeded(state: State, event: Logged, time: int) -> State:
    return _next(state, time, round=dealing.apply_seeding(_round(state), event))


def _sealed(state: State, event: Logged, time: int) -> State:
    return _next(state, time, round=dealing.apply_sealed(_round(state)))


def _dealt(state: State, event: Logged, time: int) -> State:
    data, play = event.data, _play(state)
    seat, position = data["seat"], data["position"]
    hand = play.hands[seat]
    protected = position if hand.armed else None
    hand = evolve(hand, cards=(*hand.cards, position), armed=False, protected=protected)
    hands = changed(play.hands, {seat: hand})
    changes: dict[str, Any] = {"hands": hands, "dealt": play.dealt + 1}
    if "card" in data:
        changes["known"] = changed(play.known, {position: data["card"]})
    if play.phase == SEEDING and all(map(_cards, hands.values())):
        changes.update(_advanced(play, hands, bank(state)))
    return _next(state, time, changes)


def _revealed(state: State, event: Logged, time: int) -> State:
    revealed = dealing.apply_revealed(_round(state))
    return _next(state, time, {"phase": DONE, "turn": None}, round=revealed)


# Players' moves.


def _advanced(play: Play, hands: MappingProxyType[int, Hand], funds: int) -> _Changes:
    """The play's changes that pass the turn (``hands`` being its next hands, ``funds``
    the bank) to the next waiting player; once the bank is all set aside (or nobody
    waits), the rest are skipped and the banker plays."""
    waiting = [s for s in play.order if hands[s].status == WAITING]
    if waiting and funds - staked(hands) > 0:  # uncovered funds, with these hands
        turn = waiting[0]
        return {"hands": _hands(hands, {turn: {"status": PLAYING}}), "phase": PLAYERS, "turn": turn}
    skipped = {seat: {"status": SKIPPED} for seat in waiting}
    return {"hands": _hands(hands, skipped), "phase": BANKER, "turn": play.banker}


def _moved(state: State, event: Logged, time: int) -> State:
    """Any move of the holder ends the protection of the card dealt after an Elvaroon."""
    return _hand(state, time, _seat(event), protected=None)


def _bet(state: State, event: Logged, time: int) -> State:
    seat = _seat(event)
    bet = _play(state).hands[seat].bet + event.data["amount"]
    return _hand(state, time, seat, bet=bet, protected=None)


def _elvaroon(state: State, event: Logged, time: int) -> State:
    seat = _seat(event)
    bet = _play(state).hands[seat].bet + event.data["raise"]
    return _hand(state, time, seat, bet=bet, elvaroon=True, armed=True, protected=None)


def _close(state: State, seat: int, time: int) -> State:
    play = _play(state)
    status = OPEN if play.hands[seat].bet else OUT
    hands = _hands(play.hands, {seat: {"status": status, "protected": None}})
    return _next(state, time, _advanced(play, hands, bank(state)))


def _stand(state: State, event: Logged, time: int) -> State:
    return _close(state, _seat(event), time)


def _hand_closed(state: State, event: Logged, time: int) -> State:
    return _close(state, event.data["seat"], time)


def _burned(state: State, event: Logged, time: int) -> State:
    data, play = event.data, _play(state)
    hand = play.hands[data["seat"]]
    cards = tuple(p for p in hand.cards if p != data["position"])
    burned = (*hand.burned, data["position"])
    hands = _hands(play.hands, {hand.seat: {"cards": cards, "burned": burned, "protected": None}})
    known = changed(play.known, {data["position"]: data["card"]})
    return _next(state, time, {"hands": hands, "known": known})


def _shown(state: State, event: Logged, time: int) -> State:
    play = _play(state)
    known = changed(play.known, {c["position"]: c["card"] for c in event.data["cards"]})
    if event.data["seat"] == play.banker:
        return _next(state, time, {"known": known, "phase": SHOWDOWN, "turn": None})
    return _next(state, time, {"known": known})


def _resolved(status: str) -> Callable[[State, Logged, int], State]:
    def resolve(state: State, event: Logged, time: int) -> State:
        seat, play, balances = event.data["seat"], _play(state), _balances(event)
        hands = _hands(play.hands, {seat: {"status": status, "protected": None}})
        if play.turn == seat:
            changes = _advanced(play, hands, balances.get(BANK, 0))
        else:
            changes = {"hands": hands}
        return _next(state, time, changes, balances=balances)

    return resolve


def _settled(state: State, event: Logged, time: int) -> State:
    results, balances = event.data["results"], _balances(event)
    statuses = {r["seat"]: {"status": WON if r["outcome"] == "win" else LOST} for r in results}
    hands = _hands(_play(state).hands, statuses)
    # The banker's first card (for the exit) is the same in the play before and after.
    exit_offer = (
        state.options.banker_exit == "optional"
        and exit_condition(state)
        and balances.get(BANK, 0) > 0
    )
    return _next(state, time, {"hands": hands}, balances=balances, exit_offer=exit_offer)


def _nothing(state: State, event: Logged, time: int) -> State:
    return _next(state, time)


_HANDLERS: dict[str, Callable[[State, Logged, int], State]] = {
    SEAT_JOINED: _joined,
    SEAT_LEFT: _left,
    "banker_exit": _nothing,
    "term_ended": _term_ended,
    ROUND_OPENED: _opened,
    "bank_funded": _bank_funded,
    SEED_COMMITMENT: _seeded,
    SEEDS_COMMITTED: _seeded,
    CLIENT_SEED: _seeded,
    SEED_TIMEOUT: _seeded,
    ROUND_VOIDED: _nothing,
    ROUND_SEALED: _sealed,
    CARD_DEALT: _dealt,
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
    ROUND_REVEALED: _revealed,
}
