"""How hands, rounds and terms end: an immediate win or bust, the showdown and its
settlement, the banker's term and the reveal."""

from fairdeal.events import Draft, seat_actor
from fairdeal.games import dealing, money
from fairdeal.games.kvitlach import hands
from fairdeal.games.kvitlach.run import Run, cards_of
from fairdeal.games.kvitlach.state import (
    BANKER,
    Hand,
    bank,
    exit_condition,
    open_hands,
    players_able,
    rightward,
)
from fairdeal.games.money import BANK, Transfer
from fairdeal.protocol import SERVER


def show(run: Run, deck: dealing.Deck, seat: int) -> None:
    """``cards_shown``: the hand turned face up, each card with its salt."""
    shown = [
        {"position": p, "card": deck.card(p), "salt": deck.salt(p).hex()}
        for p in run.play.hands[seat].cards
    ]
    run.server("cards_shown", {"seat": seat, "cards": shown})


def after_card(run: Run, deck: dealing.Deck, seat: int) -> None:
    """An immediate 21 wins, a bust loses; a protected 11 waits for the holder's word."""
    hand = run.play.hands[seat]
    cards = cards_of(hand, deck)
    if hands.is_twenty_one(cards):
        show(run, deck, seat)
        _resolve(run, "hand_won", hand, {"reason": hands.win_reason(cards)})
    elif (hand.protected is None or cards[-1] != "11") and hands.is_bust(cards):
        show(run, deck, seat)
        _resolve(run, "hand_lost", hand, {})


def _resolve(run: Run, kind: str, hand: Hand, extra: dict[str, object]) -> None:
    seat = seat_actor(hand.seat)
    pays = [
        Transfer(BANK, seat, hand.bet) if kind == "hand_won" else Transfer(seat, BANK, hand.bet)
    ]
    transfers = pays if hand.bet else []
    data = {"seat": hand.seat, "bet": hand.bet, **extra}
    run.server(kind, {**data, **money.settlement(run.state.balances, transfers)})


def finish(run: Run, deck: dealing.Deck, secret: bytes | None) -> None:
    """The banker does not play when no bet is open: straight to the showdown."""
    play = run.play
    if play.phase == BANKER and not open_hands(play):
        showdown(run, deck, secret)


def showdown(run: Run, deck: dealing.Deck, secret: bytes | None) -> None:
    """Cards up, one settlement of every open bet, the term's end if due, the reveal."""
    show(run, deck, run.play.banker)
    for hand in open_hands(run.play):
        show(run, deck, hand.seat)
    banker = cards_of(run.play.hands[run.play.banker], deck)
    settled = settlement(run, banker, deck)
    earlier: tuple[dict[str, object], ...] = ()
    if hands.is_framed_pair(banker) and hands.best(banker) != hands.TWENTY_ONE:
        # Services before 7.19's correction logged the pair's own best total here.
        earlier = ({**settled, "banker_total": hands.best(banker)},)
    run.server("round_settled", settled, earlier)
    round_id = run.round.round_id
    if bank(run.state) == 0:
        end_term(run, "bank_empty", round_id)
    elif run.state.options.banker_exit == "mandatory" and exit_condition(run.state):
        end_term(run, "four_or_seven", round_id)
    elif not players_able(run.state):
        end_term(run, "no_players", round_id)
    run.emit(dealing.revealed_draft(run.round, secret))


def settlement(run: Run, banker: list[str], deck: dealing.Deck) -> dict[str, object]:
    """``round_settled`` against the banker's ``banker`` cards: a framed pair counts as
    exactly 21, and its total is logged as 21."""
    twenty_one = hands.is_twenty_one(banker)
    total = hands.TWENTY_ONE if twenty_one else hands.best(banker)
    result = "21" if twenty_one else "bust" if hands.is_bust(banker) else "below"
    results, transfers = [], []
    for hand in open_hands(run.play):
        player = hands.best(cards_of(hand, deck))
        wins = result == "bust" or (result == "below" and player > total)
        seat = seat_actor(hand.seat)
        transfers.append(Transfer(BANK, seat, hand.bet) if wins else Transfer(seat, BANK, hand.bet))
        outcome = "win" if wins else "lose"
        results.append({"seat": hand.seat, "bet": hand.bet, "total": player, "outcome": outcome})
    head = {"banker_total": total, "banker_result": result, "results": results}
    return {**head, **money.settlement(run.state.balances, transfers)}


def end_term(run: Run, reason: str, round_id: str | None) -> None:
    """``term_ended``: the banker takes what is left in the bank; the role passes right."""
    state = run.state
    old = state.banker
    others = rightward(state.seats, old, state.options.max_seats)
    funds = bank(state)
    transfers = [Transfer(BANK, seat_actor(old), funds)] if funds else []
    data = {"banker": old, "next_banker": others[0] if others else old, "reason": reason}
    data = {**data, **money.settlement(state.balances, transfers)}
    run.emit(Draft("term_ended", SERVER, data, round_id))
