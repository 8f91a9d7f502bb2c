"""Driving a Toto21 table in tests: a fixed signer, fixed server seeds, and a search
over client seeds for a round whose deal has the cards a test needs."""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal import randomness, table
from fairdeal.events import Event
from fairdeal.games import dealing
from fairdeal.games.toto21 import GAME
from fairdeal.games.toto21.hands import total as toto21_total
from fairdeal.games.toto21.state import DEALER_PURPOSE, DECK_RULES, State
from fairdeal.protocol import SERVER
from tests.games.driving import T0, TableDriver, commitment_of, fixed_signer, labelled_seed
from tests.replay import replay

SIGNER = fixed_signer(0)
SEAT_1_SEED = "joiner"


def server_seed(round_id: str) -> bytes:
    return labelled_seed("toto21", round_id)


def commitment(round_id: str) -> str:
    return commitment_of(server_seed(round_id))


@dataclass(frozen=True)
class Deal:
    """A round's deck order and dealer, as the seal will fix them."""

    dealer: int
    cards: tuple[str, ...]

    @property
    def player(self) -> int:
        return 1 - self.dealer


def deal_for(round_id: str, seeds: Sequence[str]) -> Deal:
    deck = dealing.round_deck(server_seed(round_id), round_id, list(seeds), DECK_RULES)
    return Deal(randomness.choose(deck.key, DEALER_PURPOSE, 2), deck.cards)


def find_seed(
    round_id: str, wanted: Callable[[Deal], bool], start: int = 0, tries: int = 20_000
) -> str:
    """Seat 0's client seed that makes the round's deal what ``wanted`` asks for."""
    for i in range(start, start + tries):
        seed = f"creator-{i}"
        if wanted(deal_for(round_id, [seed, SEAT_1_SEED])):
            return seed
    raise AssertionError("no client seed found for the wanted deal")


@dataclass
class Driver(TableDriver):
    @property
    def state(self) -> State:
        return self.table.state  # type: ignore[no-any-return]

    def seat(self, seat: int, type_: str, data: dict[str, Any] | None = None) -> list[Event]:
        return self.do(type_, f"seat:{seat}", data, self.round_id)

    def open_round(self, at: int | None = None) -> list[Event]:
        self.rounds += 1
        self.round_id = f"r{self.rounds}"
        self.secrets[self.round_id] = server_seed(self.round_id)
        data = {"commitment": commitment(self.round_id)}
        return self.do("round_opened", SERVER, data, self.round_id, at)

    def deal(self, wanted: Callable[[Deal], bool] = lambda deal: True, start: int = 0) -> Deal:
        """Open a round and seed it so that its deal is one ``wanted`` accepts."""
        self.open_round()
        assert self.round_id is not None
        seed = find_seed(self.round_id, wanted, start)
        self.seat(0, "client_seed", {"seed": seed})
        self.seat(1, "client_seed", {"seed": SEAT_1_SEED})
        return deal_for(self.round_id, [seed, SEAT_1_SEED])

    def events(self) -> list[Event]:
        return [s.event for s in self.log]

    def of_type(self, type_: str) -> list[Event]:
        return [e for e in self.events() if e.type == type_]

    def replayed(self) -> Any:
        """The state rebuilt from the log as parsed JSON, as a verifier would read it."""
        parsed = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in self.events()]
        return replay({GAME.name: GAME}, parsed).state

    def view(self, seat: int | None) -> dict[str, Any]:
        return GAME.view_for(self.state, seat, self.secret)


def new_table(**options: Any) -> Driver:
    created, signed = table.create(GAME, "t1", options, T0, SIGNER)
    return Driver(created, [signed], SIGNER)


def seated(**options: Any) -> Driver:
    """Both seats joined; the creator has not answered yet."""
    driver = new_table(**options)
    driver.seat(0, "seat_joined")
    driver.seat(1, "seat_joined")
    return driver


def started(**options: Any) -> Driver:
    """A match in progress, no round opened."""
    driver = seated(**options)
    driver.seat(0, "joiner_accepted")
    return driver


def total(cards: Sequence[str]) -> int:
    return toto21_total(cards)


def money_is_conserved(driver: Driver) -> bool:
    """Sum of accounts == deposits - withdrawals, from the log alone."""
    deposits: int = sum(e.data["deposit"] for e in driver.of_type("seat_joined"))
    withdrawals: int = sum(e.data["withdrawal"] for e in driver.of_type("seat_left"))
    return sum(driver.state.balances.values()) == deposits - withdrawals


# Reading a deal: the player gets positions 0 and 2, the dealer 1 (up) and 3 (hole);
# later cards leave the deck in the order they are drawn (4, 5, ...).
ALL_ACES_SEED_START = 77_358  # round "r1": positions 0-3 are the four aces (found by search)


def player_two(deal: Deal) -> list[str]:
    return [deal.cards[0], deal.cards[2]]


def dealer_two(deal: Deal) -> list[str]:
    return [deal.cards[1], deal.cards[3]]


def is_ace(card: str) -> bool:
    return card.startswith("A")


def no_golden(deal: Deal) -> bool:
    return not all(is_ace(card) for card in player_two(deal))


def stand_off_winner(deal: Deal) -> int | None:
    """Who wins if both stand on their first two cards (None: no such plain round)."""
    if not no_golden(deal):
        return None
    mine, theirs = total(player_two(deal)), total(dealer_two(deal))
    return deal.player if mine > theirs else deal.dealer


def win_round(driver: Driver, winner: int) -> Deal:
    """A round that ``winner`` wins with both seats standing on their first two cards."""
    deal = driver.deal(lambda d: stand_off_winner(d) == winner)
    driver.seat(deal.player, "stand")
    driver.seat(deal.dealer, "stand")
    return deal


def double_bust(driver: Driver) -> Deal:
    """A round where each side takes one card and goes over 21."""

    def both_bust(d: Deal) -> bool:
        mine, theirs = player_two(d), dealer_two(d)
        return (
            no_golden(d)
            and total(mine) < 21
            and total(theirs) < 21
            and total([*mine, d.cards[4]]) > 21
            and total([*theirs, d.cards[5]]) > 21
        )

    deal = driver.deal(both_bust)
    for seat in (deal.player, deal.dealer):
        driver.seat(seat, "hit")
        driver.seat(seat, "stand")
    return deal
