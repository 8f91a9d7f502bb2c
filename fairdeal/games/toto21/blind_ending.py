"""How a dealer-blind round ends (SPEC 15.13.7): every card opened with the revealed keys and
judged with the claims and draws, or a forfeit for a withheld share or key."""

from collections.abc import Mapping, Sequence

from fairdeal.events import Draft
from fairdeal.games.toto21 import cipher, hands
from fairdeal.games.toto21.ending import end_round, outcome_draft
from fairdeal.games.toto21.hands import Outcome
from fairdeal.games.toto21.run import Run
from fairdeal.games.toto21.state import SEATS, Hand
from fairdeal.protocol import ROUND_VOIDED, SERVER

FIRST_FOUR = 4  # the golden point reads the initial deal alone (SPEC 15.13.7.1)


def showdown(run: Run, secret: bytes | None) -> None:
    """Both keys are in: every hidden card shown, then the outcome (15.13.7.4)."""
    hand, crypto, round_id = run.hand(), run.state.crypto, run.round().round_id
    assert crypto is not None
    if secret is None:
        raise ValueError("the showdown opens the cards with the service's key: the seed")
    opened = cipher.cards_with_keys(crypto, secret, [held.position for held in hand.held])
    for seat in (hand.player, hand.dealer):
        hidden = [
            {"card": opened[held.position], "position": held.position} for held in hand.hidden(seat)
        ]
        if hidden:
            run.emit(Draft("cards_shown", SERVER, {"seat": seat, "cards": hidden}, round_id))
    run.emit(_judged(run, opened))
    end_round(run, secret)


def _judged(run: Run, opened: Mapping[int, str]) -> Draft:
    state, hand, round_id = run.state, run.hand(), run.round().round_id
    crypto = state.crypto
    assert crypto is not None
    first = [opened[p] for p in range(FIRST_FOUR)]
    golden = hands.golden_point(hand.player, hand.dealer, first[0::2], first[1::2])
    if golden is not None:
        totals = [_total(hand, opened, seat, FIRST_FOUR) for seat in SEATS]
        return outcome_draft(state, round_id, golden, totals)
    totals = [_total(hand, opened, seat) for seat in SEATS]
    if crypto.claimed:
        return outcome_draft(state, round_id, Outcome(hand.dealer, "false_claim"), totals)
    cheats = sorted({seat for seat, seen in crypto.draws if _over(seen, opened)})
    if len(cheats) == 1:
        other = next(seat for seat in SEATS if seat != cheats[0])
        return outcome_draft(state, round_id, Outcome(other, "illegal_draw"), totals)
    if cheats:
        return Draft(ROUND_VOIDED, SERVER, {"reason": "illegal_draw", "seats": cheats}, round_id)
    mine, theirs = (
        [opened[held.position] for held in hand.of(seat)] for seat in (hand.player, hand.dealer)
    )
    return outcome_draft(
        state, round_id, hands.showdown(hand.player, hand.dealer, mine, theirs), totals
    )


def _total(hand: Hand, opened: Mapping[int, str], seat: int, below: int | None = None) -> int:
    held = [h for h in hand.of(seat) if below is None or h.position < below]
    return hands.total([opened[h.position] for h in held])


def _over(seen: Sequence[int], opened: Mapping[int, str]) -> bool:
    """A draw made when the cards its seat could see totalled 21 or more (15.13.7.2)."""
    return not hands.may_draw([opened[p] for p in seen])


def forfeit(run: Run, seats: list[int], reason: str, secret: bytes | None) -> None:
    """A seat that withheld a share or its key loses the round; both: the round is void."""
    round_id = run.round().round_id
    if len(seats) == 1:
        winner = next(seat for seat in SEATS if seat != seats[0])
        run.emit(outcome_draft(run.state, round_id, Outcome(winner, reason), None))
    else:
        run.emit(Draft(ROUND_VOIDED, SERVER, {"reason": reason, "seats": seats}, round_id))
    end_round(run, secret)
