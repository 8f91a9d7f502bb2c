"""How rounds and the match end: showdown, outcome, the pot paid out, and the reveal."""

from typing import Any

from fairdeal.events import Draft, seat_actor
from fairdeal.games import dealing, money
from fairdeal.games.dealing import Deck
from fairdeal.games.money import POT, Transfer
from fairdeal.games.toto21 import hands
from fairdeal.games.toto21.hands import Outcome
from fairdeal.games.toto21.run import Run
from fairdeal.games.toto21.state import SEATS, State, cards_of, deck_of
from fairdeal.protocol import SERVER


def showdown(run: Run, secret: bytes | None) -> None:
    """After the dealer's turn: every card counts, the blind card too."""
    deck, hand = deck_of(run.state, secret), run.hand()
    mine, theirs = cards_of(deck, hand.of(hand.player)), cards_of(deck, hand.of(hand.dealer))
    finish_round(run, deck, hands.showdown(hand.player, hand.dealer, mine, theirs), secret)


def finish_round(run: Run, deck: Deck, outcome: Outcome, secret: bytes | None) -> None:
    """Show the hidden cards, log the outcome, reveal the seed; the match may end."""
    hand = run.hand()
    for seat in (hand.player, hand.dealer):
        _show(run, deck, seat)
    totals = [hands.total(cards_of(deck, hand.of(seat))) for seat in SEATS]
    run.emit(outcome_draft(run.state, run.round().round_id, outcome, totals))
    end_round(run, secret)


def end_round(run: Run, secret: bytes | None) -> None:
    """After a round's outcome: the match's end if a seat reached the target, then the reveal."""
    leader = max(SEATS, key=lambda seat: run.state.score[seat])
    if run.state.score[leader] >= run.state.options.target:
        # Before the reveal: the round head then covers the match's settlement too.
        run.emit(match_won(run.state, leader, "target"))
    run.emit(dealing.revealed_draft(run.round(), secret))


def _show(run: Run, deck: Deck, seat: int) -> None:
    hidden = run.hand().hidden(seat)
    if not hidden:
        return
    shown = [
        {"position": h.position, "card": deck.card(h.position), "salt": deck.salt(h.position).hex()}
        for h in hidden
    ]
    run.emit(Draft("cards_shown", SERVER, {"seat": seat, "cards": shown}, run.round().round_id))


def outcome_draft(state: State, round_id: str, outcome: Outcome, totals: list[int] | None) -> Draft:
    """``round_won`` or ``round_double_bust`` with each seat's total (None: a round forfeited
    before its cards could all be opened, SPEC 15.13.7.5)."""
    if outcome.winner is None:
        bust: dict[str, Any] = {"totals": totals, "next_worth": state.worth + 1}
        return Draft("round_double_bust", SERVER, bust, round_id)
    score = [
        points + (state.worth if seat == outcome.winner else 0)
        for seat, points in zip(SEATS, state.score, strict=True)
    ]
    data: dict[str, Any] = {
        "seat": outcome.winner,
        "points": state.worth,
        "reason": outcome.reason,
        "totals": totals,
        "score": score,
    }
    return Draft("round_won", SERVER, data, round_id)


def match_won(state: State, seat: int, reason: str) -> Draft:
    """The winner takes the whole pot."""
    pot = state.balances.get(POT, 0)
    transfers = [Transfer(POT, seat_actor(seat), pot)] if pot else []
    data = {"seat": seat, "reason": reason, "score": list(state.score)}
    return Draft("match_won", SERVER, {**data, **money.settlement(state.balances, transfers)})


def match_drawn(state: State) -> Draft:
    """Equal points when the game time ends: each seat's stake comes back."""
    stake = state.options.stake
    transfers = [Transfer(POT, seat_actor(seat), stake) for seat in SEATS] if stake else []
    data = {"score": list(state.score), **money.settlement(state.balances, transfers)}
    return Draft("match_drawn", SERVER, data)


def by_points(state: State) -> Draft:
    """The match's end on time: more points wins the pot, equal points is a draw."""
    first, second = state.score
    if first == second:
        return match_drawn(state)
    return match_won(state, SEATS[0] if first > second else SEATS[1], "game_time_up")
