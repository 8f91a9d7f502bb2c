"""What the monitor records of one seat decision: for each kind of hidden information, the
stratum the seat's view puts it in, whether it drew, and whether the hidden fact was good.

For the kinds with a known chance, the chance is exact, whatever every seat's strategy. The
positions of a round's deck that no seat has looked at and then acted on (the undealt
cards, a Toto21 blind card, a face-down card whose holder has not moved since the deal) hold
their cards in a uniformly random order, given everything else that happened: the shuffle
is uniform and fresh each round, and no action depended on that order. So a hidden card
at one of them is good with chance g / n, g of the n cards there being good, and an honest
seat's decision, made from what it saw, is independent of it given that chance. A seat's
own view would not do: what its opponents did tells about the cards they hold, and so about
what is left, and an honest seat may read their moves.

For the other kinds (an opponent's hand, or a Kvitlach partner's, whose cards their holder
looked at and played on), the stratum is a coarse summary of the seat's view, and the test
is only approximate.

The partner kinds are about a pair of seats: a Kvitlach player's choice against another
player's hidden cards (``partner``: whose), and the banker's against each player's. They are
judged per unordered pair, both seats' choices in one test (report.py).

A kind about a card fixed for the round with a known chance (the blind card, the opponent's
face-down card, a waiting partner's) is observed at every choice, each with the chance at
that choice, and scored a round at a time (stats.round_score); an approximate kind (the
opponent's or a partner's hand) once a round, at the seat's first choice that round (the
replay keeps the first), so that its observations are independent. The next card is another
card at every decision.
"""

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from math import gcd

from fairdeal.events import Event

NEXT_CARD = "next_card"  # the deck's next card keeps the seat's hand in play (known chance)
BLIND_CARD = "blind_card"  # Toto21: the seat's own blind card does (known chance)
OPPONENT_CARD = "opponent_card"  # the dealer's or banker's face-down card (known chance)
OPPONENT_HANDS = "opponent_hands"  # the dealer's or banker's opponents' hidden hands
PARTNER_CARD = "partner_card"  # Kvitlach: a waiting player's face-down card (known chance)
PARTNER_HANDS = "partner_hands"  # Kvitlach: the hidden cards of a seat that has played them
KINDS = (NEXT_CARD, BLIND_CARD, OPPONENT_CARD, OPPONENT_HANDS, PARTNER_CARD, PARTNER_HANDS)
# the approximate kinds: observed once a round, at the seat's first choice (the replay's)
ONCE_A_ROUND = frozenset({OPPONENT_HANDS, PARTNER_HANDS})
# the exact kinds about a card fixed for the round: observed at every choice, scored a round
# at a time (stats.round_score)
BY_ROUND = frozenset({BLIND_CARD, OPPONENT_CARD, PARTNER_CARD})
PAIRS = frozenset({PARTNER_CARD, PARTNER_HANDS})  # judged per pair of seats


@dataclass(frozen=True)
class Observation:
    """One seat decision seen through one kind of hidden information."""

    seat: str  # the seat's identity: its key in version 2, else table/seat:N
    kind: str
    stratum: str  # the visible state, as the kind's stratum
    drew: bool  # the seat took a card (or bet for one) rather than stopping
    good: bool  # the hidden fact favoured drawing
    table: str
    round: str
    seq: int  # the decision's event
    chance: float | None = None  # the fact's chance of being good, where it is known
    visible: str = ""  # the seat's role and visible total: where its draw rate is learnt
    partner: str = ""  # a partner kind's: the seat whose hidden cards these are
    # what the seat saw of the other seats' moves: with ``visible``, where its draw rate is
    # learnt for a card fixed for the round (docs/monitor.md, "A card fixed for the round")
    public: str = ""


def untouched(cards: Sequence[str], positions: Iterable[int]) -> Counter[str]:
    """The cards of a round's deck (``cards``, in deck order) at ``positions``: those no
    seat has looked at and acted on (module docstring)."""
    return Counter(cards[position] for position in set(positions))


def chance(cards: Counter[str], good: Callable[[str], bool]) -> tuple[str, float]:
    """The chance that a card drawn uniformly from ``cards`` is good: as an exact fraction
    (the stratum) and as a number."""
    total = sum(cards.values())
    favourable = sum(count for card, count in cards.items() if good(card))
    if not total:
        return "p=?", 0.0
    common = gcd(favourable, total)
    return f"p={favourable // common}/{total // common}", favourable / total


@dataclass(frozen=True)
class Decision:
    """What every observation of one seat decision (``event``) shares; each game's reader
    makes one and observes it kind by kind."""

    seat: str
    event: Event
    drew: bool
    visible: str
    public: str = ""

    def observe(
        self, kind: str, stratum: str, good: bool, p: float | None = None, partner: str = ""
    ) -> Observation:
        event = self.event
        assert event.round is not None
        return Observation(self.seat, kind, stratum, self.drew, good, event.table,
                           event.round, event.seq, p, self.visible, partner,
                           self.public)  # fmt: skip

    def known(
        self,
        kind: str,
        pool: Counter[str],
        good: Callable[[str], bool],
        card: str,
        partner: str = "",
    ) -> Observation:
        """A hidden ``card`` at an untouched position, against its exact chance in ``pool``."""
        stratum, p = chance(pool, good)
        return self.observe(kind, stratum, good(card), p, partner)
