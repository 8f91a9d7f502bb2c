"""Driving a Kvitlach table in tests: a fixed signer, fixed server seeds, and a search
over one client seed for a round whose deck starts with the cards a test needs.

Deal order: each player in turn order gets one face-down card, the banker last; after
that, cards leave the deck in the order they are drawn.
"""

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal import table
from fairdeal.events import Event
from fairdeal.games import dealing
from fairdeal.games.kvitlach import GAME, State
from fairdeal.games.money import MAX_TABLE_TOTAL, total
from fairdeal.protocol import SERVER
from tests.games.driving import T0, TableDriver, commitment_of, fixed_signer, labelled_seed
from tests.replay import replay

SIGNER = fixed_signer(32)
MOVE = 30_000
Want = str | Collection[str] | None  # one card, any of several, or any card
_FOUND: dict[tuple[Any, ...], str] = {}


def server_seed(round_id: str) -> bytes:
    return labelled_seed("kvitlach", round_id)


def commitment(round_id: str) -> str:
    return commitment_of(server_seed(round_id))


def deck_for(round_id: str, seeds: Sequence[str], decks: int) -> tuple[str, ...]:
    rules = {"game": "kvitlach", "decks": decks}
    return dealing.round_deck(server_seed(round_id), round_id, list(seeds), rules).cards


def fits(cards: Sequence[str], wanted: Sequence[Want]) -> bool:
    for card, want in zip(cards, wanted, strict=False):
        if want is None:
            continue
        if card != want if isinstance(want, str) else card not in want:
            return False
    return True


def other_seed(seat: int) -> str:
    return f"seat-{seat}"


def find_seeds(
    round_id: str, seats: Sequence[int], decks: int, wanted: Sequence[Want]
) -> list[str]:
    """Client seeds in seat order (the first seat's found by search) for the wanted deck."""
    key = (
        round_id,
        tuple(seats),
        decks,
        tuple(w if w is None or isinstance(w, str) else frozenset(w) for w in wanted),
    )
    rest = [other_seed(s) for s in seats[1:]]
    if key not in _FOUND:
        for i in range(300_000):
            if fits(deck_for(round_id, [f"find-{i}", *rest], decks), wanted):
                _FOUND[key] = f"find-{i}"
                break
        else:
            raise AssertionError(f"no client seed gives {wanted}")
    return [_FOUND[key], *rest]


@dataclass
class Driver(TableDriver):
    deck: tuple[str, ...] = ()

    @property
    def state(self) -> State:
        return self.table.state  # type: ignore[no-any-return]

    def seat(self, seat: int, type_: str, data: dict[str, Any] | None = None) -> list[Event]:
        """A seat's command: within the round during a round, else table-level."""
        in_round = self.state.round is not None and not self.state.round.revealed
        return self.do(type_, f"seat:{seat}", data, self.round_id if in_round else None)

    def join(self, seat: int, buy_in: int = 1_000) -> list[Event]:
        return self.do("seat_joined", f"seat:{seat}", {"buy_in": buy_in})

    def open_round(self) -> list[Event]:
        self.rounds += 1
        self.round_id = f"r{self.rounds}"
        self.secrets[self.round_id] = server_seed(self.round_id)
        data = {"commitment": commitment(self.round_id)}
        return self.do("round_opened", SERVER, data, self.round_id)

    def deal(self, *wanted: Want) -> list[Event]:
        """Open a round and seed it so that its deck starts with the wanted cards."""
        opened = self.open_round()
        assert self.round_id is not None and self.state.round is not None
        seats = self.state.round.seats
        seeds = find_seeds(self.round_id, seats, self.state.options.decks, wanted)
        self.deck = deck_for(self.round_id, seeds, self.state.options.decks)
        logged = list(opened)
        for seat, seed in zip(seats, seeds, strict=True):
            logged += self.seat(seat, "client_seed", {"seed": seed})
        return logged

    def time_out_round(self) -> None:
        """Let every deadline of the round pass, each timeout logged, until its reveal."""
        while self.state.round is not None and not self.state.round.revealed:
            command = GAME.due(self.state, self.now + 10 * MOVE)
            assert command is not None
            self.do(command.type, command.actor, dict(command.data), command.round, command.time)

    def events(self) -> list[Event]:
        return [s.event for s in self.log]

    def of_type(self, type_: str) -> list[Event]:
        return [e for e in self.events() if e.type == type_]

    def last(self, type_: str) -> Event:
        return self.of_type(type_)[-1]

    def replayed(self) -> Any:
        """The state rebuilt from the log as parsed JSON, as a verifier would read it."""
        parsed = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in self.events()]
        return replay({GAME.name: GAME}, parsed).state

    def view(self, seat: int | None) -> dict[str, Any]:
        return GAME.view_for(self.state, seat, self.secret)

    def legal(self, seat: int) -> list[str]:
        return GAME.legal_actions(self.state, seat, self.secret)

    def balance(self, account: str | int) -> int:
        name = account if isinstance(account, str) else f"seat:{account}"
        return self.state.balances.get(name, 0)

    def later(self, ms: int) -> None:
        self.now += ms


def new_table(**options: Any) -> Driver:
    created, signed = table.create(GAME, "t1", options, T0, SIGNER)
    return Driver(created, [signed], SIGNER)


def seated(
    players: int = 1, buy_in: int = 1_000, banker_buy_in: int = 1_000, **options: Any
) -> Driver:
    """The banker (seat 0) with ``banker_buy_in`` chips and ``players`` more seats with
    ``buy_in`` each."""
    driver = new_table(**options)
    driver.join(0, banker_buy_in)
    for seat in range(1, players + 1):
        driver.join(seat, buy_in)
    return driver


LARGEST = 10**12  # the largest buy-in
# Seven seats; a newcomer buying in the most pays all but one unit of it as the ante.
ANTES_PILING_UP: dict[str, Any] = {"decks": 2, "bank_funding": LARGEST, "ante": LARGEST - 1}


def fill_with_antes(driver: Driver) -> None:
    """Newcomers buy in, pay the ante, time out and leave with one unit, over and over (the
    last one out ends the term: a new ante next time). Each ante stays at the table, whose
    total climbs until another six buy-ins would take it past the bound."""
    players = range(1, driver.state.options.max_seats)
    while MAX_TABLE_TOTAL - total(driver.state.balances) >= len(players) * LARGEST:
        for seat in players:
            driver.join(seat, LARGEST)
        driver.open_round()
        driver.time_out_round()
        for seat in players:
            driver.seat(seat, "seat_left")


def money_is_conserved(driver: Driver) -> bool:
    """Sum of accounts == deposits - withdrawals, from the log alone."""
    deposits = sum(e.data["buy_in"] for e in driver.of_type("seat_joined"))
    withdrawals = sum(e.data["withdrawal"] for e in driver.of_type("seat_left"))
    return sum(driver.state.balances.values()) == deposits - withdrawals
