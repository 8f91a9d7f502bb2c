"""Kvitlach's decisions: a player choosing between a card (``hit``; in Pressburg ``bet``,
which deals one, and ``open_card``) and ``stand``, and the banker choosing between
``banker_draw`` and ``banker_stop`` where must-draw leaves the choice (SPEC 12.5, 12.6).
A classic ``bet`` (the turn's only first move), ``elvaroon`` and ``reject`` are no such choice.

Hidden facts, good when they favour drawing:
- next card (known chance): the deck's next card does not bust the seat's hand;
- opponent card (known chance; a player): the banker's face-down first card is a 7 or more;
- opponent hands (the banker; no known chance, as the players' hands depend on how they
  play): the open hands it would pay if it stopped now stake more than those it would take;
- partner card (known chance; a player, for each player still waiting): that player's
  face-down card is a 7 or more (it is out of the deck, which leaves lower cards to draw);
- partner hands (no known chance; a player or the banker, for each player that has played):
  that player's hidden cards are 7 or more on average. Partners sharing their hidden cards
  act on these; an honest seat cannot see them. (A player's partner who is the banker tips
  the banker's card: the opponent card.)

Untouched positions (observations.py): the undealt cards, and the face-down cards of the
seats that have not moved since the deal (players still waiting or skipped; the banker,
while the players move).
"""

from collections import Counter
from collections.abc import Callable

from fairdeal.events import Event, actor_seat
from fairdeal.games.base import AnyGame
from fairdeal.games.kvitlach.hands import best, is_bust, number
from fairdeal.games.kvitlach.options import PRESSBURG
from fairdeal.games.kvitlach.run import deck_of
from fairdeal.games.kvitlach.state import OPEN, SKIPPED, WAITING, Play, State
from fairdeal.monitor.observations import (
    NEXT_CARD,
    OPPONENT_CARD,
    OPPONENT_HANDS,
    PARTNER_CARD,
    PARTNER_HANDS,
    Decision,
    Observation,
    untouched,
)

STOPS = frozenset({"stand", "banker_stop"})
HIGH = 7  # a banker's first card this high or higher asks a player to draw


def draws(state: State) -> frozenset[str]:
    moves = {"hit", "open_card", "banker_draw"}
    return frozenset(moves | {"bet"} if state.options.rule_set == PRESSBURG else moves)


def observe(
    game: AnyGame,
    state: State,
    event: Event,
    secret: bytes,
    seat_id: Callable[[int], str],
    *,
    blind_deck: tuple[str, ...] | None = None,  # Kvitlach has no dealer-blind tables
) -> list[Observation]:
    """The observations of ``event``, a seat's move, made from ``state``; [] where the seat
    had no choice between a card and a stop, or the event is neither."""
    seat, play, drawing = actor_seat(event.actor), state.play, draws(state)
    if seat is None or play is None or event.type not in drawing | STOPS:
        return []
    legal = set(game.legal_actions(state, seat, secret))
    if not legal & drawing or not legal & STOPS:
        return []
    deck = deck_of(state, secret)
    mine = [deck.cards[position] for position in play.hand(seat).cards]
    pool = untouched(deck.cards, [*range(play.dealt, len(deck.cards)), *_resting(play, seat)])

    def keeps(card: str) -> bool:
        return not is_bust([*mine, card])

    visible = f"{'banker' if seat == play.banker else 'player'} {best(mine)}"
    others = [hand for hand in play.hands.values() if hand.seat != seat]
    public = " ".join(f"{hand.status}:{len(hand.cards)}" for hand in others)
    decision = Decision(seat_id(seat), event, event.type in drawing, visible, public)
    found = []
    if play.dealt < len(deck.cards):
        found.append(decision.known(NEXT_CARD, pool, keeps, deck.cards[play.dealt]))
    if seat != play.banker:
        first = play.hand(play.banker).cards[0]
        if first not in play.known:
            found.append(decision.known(OPPONENT_CARD, pool, _high, deck.cards[first]))
    else:
        mine_best = best(mine)
        opened = [h for h in play.hands.values() if h.seat != seat and h.status == OPEN]
        owed = sum(
            h.bet if best([deck.cards[p] for p in h.cards]) > mine_best else -h.bet for h in opened
        )
        cards = sum(len(h.cards) for h in opened)
        stratum = f"total={mine_best} open={len(opened)} their_cards={cards}"
        found.append(decision.observe(OPPONENT_HANDS, stratum, owed > 0))
    return found + _partners(decision, play, seat, cards=deck.cards, pool=pool, seat_id=seat_id)


def _high(card: str) -> bool:
    return number(card) >= HIGH


def _partners(
    decision: Decision,
    play: Play,
    seat: int,
    *,
    cards: tuple[str, ...],
    pool: Counter[str],
    seat_id: Callable[[int], str],
) -> list[Observation]:
    """The seat's choice against each other player's hidden cards: with their exact chance
    while that player waits (its face-down card untouched), approximate once it has played."""
    found = []
    for hand in play.hands.values():
        hidden = [position for position in hand.cards if position not in play.known]
        if hand.seat in (seat, play.banker) or not hidden:
            continue
        partner = seat_id(hand.seat)
        if seat != play.banker and hand.status in (WAITING, SKIPPED):
            card = cards[hidden[0]]
            found.append(decision.known(PARTNER_CARD, pool, _high, card, partner))
            continue
        values = [number(cards[position]) for position in hidden]
        stratum = f"{decision.visible} {hand.status} {len(hand.cards)}/{len(hidden)}"
        good = sum(values) >= HIGH * len(values)
        found.append(decision.observe(PARTNER_HANDS, stratum, good, partner=partner))
    return found


def _resting(play: Play, seat: int) -> list[int]:
    """The face-down cards of seats that have not moved since the deal: players waiting
    or skipped, and the banker while a player moves."""
    resting = [
        position
        for hand in play.hands.values()
        if hand.seat != seat and (hand.status in (WAITING, SKIPPED) or hand.seat == play.banker)
        for position in hand.cards
        if position not in play.known
    ]
    return resting if seat != play.banker else []
