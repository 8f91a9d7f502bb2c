"""SPEC 12.8: within the seat limits a Kvitlach round cannot run out of cards. Counted at its
lowest value (a 12 as 9), a deck holds 150 points; a hand keeps at most 31 and a player burns
at most one 11, so a round deals at most 31 × seats + 11 × min(players, 11s in the deck):
146 < 150 on one deck, 261 < 300 on two. Checked as arithmetic over the decks the options
allow, and on the engine: the fullest tables, every seat drawing whenever it may (Elvaroon,
rejecting the 11, hitting, open cards, Pressburg bets and the banker's draws first)."""

import pytest

from fairdeal.cards import kvitlach_deck
from fairdeal.errors import GameError
from fairdeal.events import Event
from fairdeal.games.dealing import round_deck
from fairdeal.games.kvitlach import hands
from fairdeal.games.kvitlach.options import SEAT_LIMITS
from tests.verifier.helpers import TableDriver

HAND_KEEPS = 31  # a lowest total of 20 at most before the last card, which adds 11 at most
BURNED = 11  # the protected 11 an Elvaroon rejects, once a hand
DRAWING_FIRST = ("elvaroon", "reject", "hit", "open_card", "bet", "banker_draw")


def lowest(card: str) -> int:
    return min(hands.totals([card]))


def bound(decks: int) -> int:
    seats = SEAT_LIMITS[decks]
    elevens = kvitlach_deck(decks).count("11")
    return HAND_KEEPS * seats + BURNED * min(seats - 1, elevens)


@pytest.mark.parametrize(("decks", "points", "most"), [(1, 150, 146), (2, 300, 261)])
def test_the_deck_holds_more_points_than_a_full_table_can_be_dealt(
    decks: int, points: int, most: int
) -> None:
    assert sum(map(lowest, kvitlach_deck(decks))) == points
    assert bound(decks) == most < points


class Greedy(TableDriver):
    """Every seat makes a drawing move whenever one is legal; bets of 1, so that no bet
    covers the bank and skips the players after it."""

    def _step(self, round_id: str) -> None:
        for seat in sorted(self.table.state.seats):
            legal = self.game.legal_actions(self.table.state, seat, self.secret)
            for action in [a for a in DRAWING_FIRST if a in legal] + legal:
                if action in ("client_seed", "seat_left", "banker_exit", "seat_joined"):
                    continue
                data = {"amount": 1} if action == "bet" else {}
                if self._try_with(action, f"seat:{seat}", round_id, data):
                    return
        super()._step(round_id)

    def _try_with(self, action: str, actor: str, round_id: str, data: dict[str, int]) -> bool:
        try:
            self.do(action, actor, data, round_id)
        except GameError:
            return False
        return True


def _dealt_points(driver: TableDriver, round_id: str) -> tuple[int, int]:
    """The points of the cards the round dealt (burned ones too), and how many cards."""
    events: list[Event] = [s.event for s in driver.log if s.event.round == round_id]
    sealed = next(e for e in events if e.type == "round_sealed")
    revealed = next(e for e in events if e.type == "round_revealed")
    deck = round_deck(
        bytes.fromhex(revealed.data["server_seed"]),
        round_id,
        sealed.data["client_seeds"],
        {"game": "kvitlach", "decks": driver.options.get("decks", 1)},
    )
    positions = {e.data["position"] for e in events if e.type == "card_dealt"}
    assert positions == set(range(len(positions)))  # dealt in order, none twice
    return sum(lowest(card) for card in deck.cards[: len(positions)]), len(positions)


@pytest.mark.parametrize("decks", [1, 2])
@pytest.mark.parametrize("rule_set", ["classic", "pressburg"])
def test_the_fullest_tables_drawing_all_they_may_never_run_out(decks: int, rule_set: str) -> None:
    options = {"decks": decks, "rule_set": rule_set, "bank_funding": 10_000, "max_bet": 5_000}
    driver = Greedy("kvitlach", f"kvb{decks}{rule_set[0]}", options)
    for seat in range(SEAT_LIMITS[decks]):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000_000})
    most = 0
    for _ in range(40):
        round_id = driver.play_round()
        points, cards = _dealt_points(driver, round_id)
        assert points <= bound(decks) and cards < len(kvitlach_deck(decks))
        most = max(most, points)
    assert most > 0.5 * bound(decks)  # the greedy seats drew deep into the deck
