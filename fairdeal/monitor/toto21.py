"""Toto21's decisions: the seat to move choosing between a card (``hit``, ``blind``) and
``stand`` while it may draw (SPEC 11.4 step 6), read from the state before the move.

Hidden facts, good when they favour drawing:
- next card (known chance): the deck's next card keeps the seat's visible cards at 21 or
  less (not observed for a ``blind``, whose card the seat never sees before the showdown);
- blind card (known chance; the player, after taking it): its blind card would do the same;
- opponent card (known chance; the player): the dealer's hole card gives the dealer at least
  the player's visible total (a stand would lose a tie or worse);
- opponent hands (the dealer; no known chance, as what the player holds depends on how the
  player plays): the player's cards beat the dealer's total without going over.

Untouched positions (observations.py): the undealt cards and the blind card; while the
player moves, also the dealer's hole card (the dealer has not moved since the deal).
"""

from collections.abc import Callable

from fairdeal.events import Event, actor_seat
from fairdeal.games.base import AnyGame
from fairdeal.games.dealing import BLIND
from fairdeal.games.toto21.hands import LIMIT, total
from fairdeal.games.toto21.state import State, deck_of, visible_to_owner
from fairdeal.monitor.observations import (
    BLIND_CARD,
    NEXT_CARD,
    OPPONENT_CARD,
    OPPONENT_HANDS,
    Decision,
    Observation,
    untouched,
)

DRAWS = frozenset({"hit", "blind"})
STOPS = frozenset({"stand"})


def observe(
    game: AnyGame,
    state: State,
    event: Event,
    secret: bytes,
    seat_id: Callable[[int], str],
    *,
    blind_deck: tuple[str, ...] | None = None,
) -> list[Observation]:
    """The observations of ``event``, a seat's move, made from ``state``; [] where the seat
    had no choice (it could only stand) or the event is no draw or stop. A dealer-blind
    round's deck is the one it opened, ``blind_deck`` (none where a key was withheld: such a
    round is not observed)."""
    seat, hand = actor_seat(event.actor), state.hand
    if seat is None or hand is None or event.type not in DRAWS | STOPS:
        return []
    if state.crypto is not None and blind_deck is None:
        return []
    cards = blind_deck if blind_deck is not None else deck_of(state, secret).cards
    mine = [cards[held.position] for held in visible_to_owner(hand, seat)]
    if state.crypto is not None and total(mine) >= LIMIT:
        return []  # a draw the rules forbid: no choice an honest seat has (SPEC 15.13.7.2)
    legal = game.legal_actions(state, seat, secret)
    if "hit" not in legal or "stand" not in legal:
        return []
    blind = [held.position for held in hand.held if held.face == BLIND]
    hole = [h.position for h in hand.hidden(hand.dealer)] if seat == hand.player else []
    pool = untouched(cards, [*range(hand.dealt(), len(cards)), *blind, *hole])

    def keeps(card: str) -> bool:
        return total([*mine, card]) <= LIMIT

    visible = f"{'player' if seat == hand.player else 'dealer'} {total(mine)}"
    decision = Decision(seat_id(seat), event, event.type in DRAWS, visible)
    found = []
    if event.type != "blind":
        found.append(decision.known(NEXT_CARD, pool, keeps, cards[hand.dealt()]))
    if blind and seat == hand.player:
        found.append(decision.known(BLIND_CARD, pool, keeps, cards[blind[0]]))
    mine_total = total(mine)
    if seat == hand.player:
        up = cards[hand.of(hand.dealer)[0].position]

        def ahead(card: str) -> bool:
            return total([up, card]) >= mine_total

        found.append(decision.known(OPPONENT_CARD, pool, ahead, cards[hole[0]]))
    else:
        theirs = hand.of(hand.player)
        player_total = total([cards[held.position] for held in theirs])
        beaten = mine_total < player_total <= LIMIT
        stratum = f"total={mine_total} their_cards={len(theirs)} blind={hand.blind_taken}"
        found.append(decision.observe(OPPONENT_HANDS, stratum, beaten))
    return found
