"""Kvitlach in the browser, every move a player or a banker can make, clicked as people would.

Three browsers sit at a two-deck table, the creator (seat 0, the first banker) and two
players (seats 2 and 4), with bots played through the SDK between them (seats 1, 3 and 5),
so that in either order of play a bot moves right before each browser player. The page
shows each move the seat view's ``legal_actions`` offers as a button; the test clicks them.
The rare ones (an Elvaroon, and rejecting the 11 dealt after it) need a particular order of
cards. The deck cannot be chosen (every seat commits to its seed before any is revealed),
so the test, which runs the service, reads the round's server seed once the round is sealed
and works out the deck with the service's own rules (``fairdeal.games``); the bot before a
browser player then draws as many cards as puts an 11 right after an Elvaroon total in that
player's hand, when the deck allows one. Rounds are played until every move has come up,
with a bound. The banker's exit (Pressburg's, offered from the term's fourth round when the
banker's first card is a 4 or a 7) comes up only by the deal: rounds are dealt until it is
offered. A player then leaves the table; every browser checked every event, and each
finished round's bundle verifies.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from fairdeal.api.client import FairdealClient, SeatClient, ServerRefusedError
from fairdeal.games import dealing
from fairdeal.games.kvitlach import hands
from tests.api.conftest import Server
from tests.browser.conftest import assert_clean_console, screenshot, serve_live, wait_for
from tests.browser.test_play import (
    _buttons,
    _checked,
    _click,
    _create,
    _get,
    _head,
    _join,
    _no_failure,
    _open,
    _revealed_rounds,
    _status,
    _verify,
)

pytest.importorskip("selenium")
from selenium.webdriver.common.by import By

DECKS = 2
MAX_ROUNDS = 60  # a bound that only stops a test that would hang: 2 to 20 rounds are usual
PLAYER_MOVES = {
    "classic": {"bet", "hit", "stand", "elvaroon", "reject"},
    "pressburg": {"bet", "open_card", "stand", "elvaroon", "reject"},
}
BANKER_MOVES = {"banker_draw", "banker_stop"}


def _deck(server: Server, round_id: str) -> list[str]:
    """The sealed round's deck, from the server seed the service keeps and the seeds logged."""
    with server.service.store.reader() as txn:
        secret = txn.get_round(round_id).server_seed
    events = _get(server, f"/v1/rounds/{round_id}/events")["events"]
    sealed = next(e["event"] for e in events if e["event"]["type"] == "round_sealed")
    rules = {"game": "kvitlach", "decks": DECKS}
    deck = dealing.round_deck(secret, round_id, sealed["data"]["client_seeds"], rules)
    return list(deck.cards)


def _next_position(round_view: dict[str, Any]) -> int:
    dealt = [c["position"] for hd in round_view["hands"] for c in hd["cards"] + hd["burned"]]
    return max(dealt) + 1


def _ended(cards: list[str]) -> bool:
    return hands.is_twenty_one(cards) or hands.is_bust(cards)


def _draws_to_reject(deck: list[str], cards: list[str], at: int) -> int | None:
    """How many more cards a hand draws before its Elvaroon so that the card dealt after
    the Elvaroon is an 11 it may reject (None: the deck allows none)."""
    cards, drawn = list(cards), 0
    while at + drawn < len(deck):
        card = deck[at + drawn]
        if (
            hands.can_call_elvaroon(cards)
            and card == "11"
            and not hands.is_twenty_one([*cards, card])
        ):
            return drawn
        cards.append(card)
        drawn += 1
        if _ended(cards):
            return None
    return None


@dataclass
class KvTable:
    """The test's side of one table: the browsers by seat, the bots, what was clicked."""

    server: Server
    table_id: str
    rule_set: str
    tmp_path: Path
    browsers: dict[int, Any]
    bots: dict[int, SeatClient] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # moves clicked in a browser
    shots: set[str] = field(default_factory=set)
    protecting: tuple[str, int] | None = None  # (round, seat) whose Elvaroon awaits its card
    deck: list[str] = field(default_factory=list)

    def view(self) -> dict[str, Any]:
        return dict(_get(self.server, f"/v1/tables/{self.table_id}")["view"])

    def shot(self, driver: Any, name: str) -> None:
        if name not in self.shots:
            self.shots.add(name)
            screenshot(driver, self.tmp_path, f"{self.rule_set}-{name}")

    def click(self, seat: int, kind: str) -> None:
        driver = self.browsers[seat]
        self.shot(driver, kind)
        before = _checked(driver)
        wait_for(driver, lambda d, k=kind: _click(d, k))
        wait_for(driver, lambda d: _checked(d) > before)
        self.used.add(kind)

    def buttons_now(self, seat: int) -> dict[str, Any]:
        """The seat's buttons once its page has checked the chain up to the table's head."""
        driver = self.browsers[seat]
        head = _head(self.server, self.table_id)
        wait_for(driver, lambda d: _checked(d) >= head + 1)
        _no_failure(driver)
        return _buttons(driver)

    # A round.

    def play_round(self) -> str:
        opener = self.browsers[0]
        wait_for(opener, lambda d: "open_round" in self.buttons_now(0))
        self.click(0, "open_round")
        round_id = str(_get(self.server, f"/v1/tables/{self.table_id}")["current_round"])
        self.deck = []
        wait_for(opener, lambda _: self.step(round_id), 60)
        return round_id

    def step(self, round_id: str) -> bool:
        """One move by whoever is to move; True once the round is revealed."""
        current = self.view()["round"]
        if current["revealed"]:
            return True
        if current["phase"] == "seeding":
            self.seed_bots(round_id, current)
            return False
        if not self.deck:
            self.deck = _deck(self.server, round_id)
        seat = current["turn"]
        if seat is None:
            return False
        if seat in self.bots:
            self.bot_move(seat, round_id, current)
        elif current["phase"] == "banker":
            self.banker_click(seat, current)
        else:
            self.player_click(seat, round_id, current)
        return False

    def seed_bots(self, round_id: str, current: dict[str, Any]) -> None:
        for seat, bot in self.bots.items():
            if seat not in current["seats"]:
                continue
            if seat not in current["committed"] and seat not in current["seeded"]:
                bot.seed(round_id)
            else:
                bot.view()  # reveals its seed once the chain shows the reveals open

    def cards(self, current: dict[str, Any], seat: int) -> list[str]:
        hand = next(hd for hd in current["hands"] if hd["seat"] == seat)
        return [self.deck[c["position"]] for c in hand["cards"]]

    def hand(self, current: dict[str, Any], seat: int) -> dict[str, Any]:
        return dict(next(hd for hd in current["hands"] if hd["seat"] == seat))

    # Bots.

    def bot_move(self, seat: int, round_id: str, current: dict[str, Any]) -> None:
        bot = self.bots[seat]
        if current["phase"] == "banker":
            cards = self.cards(current, seat)
            kind = "banker_draw" if hands.best(cards) < 15 else "banker_stop"
            try:
                bot.act(round_id, kind)
            except ServerRefusedError:  # must-draw (classic): the stop is refused; draw then
                bot.act(round_id, "banker_draw")
            return
        draws = self.bot_draws(seat, current)
        classic = self.rule_set == "classic"
        if classic:
            bot.act(round_id, "bet", amount=1)
        for _ in range(draws):
            bot.act(round_id, "hit" if classic else "open_card")
            if self.view()["round"]["turn"] != seat:
                return
        bot.act(round_id, "stand")

    def bot_draws(self, seat: int, current: dict[str, Any]) -> int:
        """The cards this bot draws so that the next browser player in order can reject an 11
        after an Elvaroon (or, if the deck allows none, call Elvaroon at all)."""
        order = current["order"]
        later = [s for s in order[order.index(seat) + 1 :] if s in self.browsers]
        if not later:
            return 0
        target, at = later[0], _next_position(current)
        own, theirs = self.cards(current, seat), self.cards(current, target)
        fallback = None
        for shift in range(0, 8):
            if shift and _ended(own + self.deck[at : at + shift - 1]):
                break  # the bot's turn would end before drawing this many
            if _draws_to_reject(self.deck, theirs, at + shift) is not None:
                return shift
            if fallback is None and hands.can_call_elvaroon(
                theirs + self.deck[at + shift : at + shift + 1]
            ):
                fallback = shift
        return fallback if fallback is not None and "elvaroon" not in self.used else 0

    # Browsers.

    def player_click(self, seat: int, round_id: str, current: dict[str, Any]) -> None:
        buttons = self.buttons_now(seat)
        if not buttons:
            return
        self.click(seat, self.player_choice(seat, round_id, current, buttons))

    def player_choice(
        self, seat: int, round_id: str, current: dict[str, Any], buttons: dict[str, Any]
    ) -> str:
        """Reject an 11 when offered; call Elvaroon where the deck puts an 11 next (or, the
        first time, wherever it is offered) and draw the card it protects; else one bet, a
        card while low, and stand."""
        hand, cards = self.hand(current, seat), self.cards(current, seat)
        classic = self.rule_set == "classic"
        draw = "hit" if classic else ("bet" if not hand["bet"] else "open_card")
        if "reject" in buttons:
            return "reject"
        if classic and not hand["bet"]:
            return "bet"
        if self.protecting == (round_id, seat) and draw in buttons:
            self.protecting = None
            return draw  # the card the Elvaroon protects
        called = hand["elvaroon"]
        to_reject = None if called else _draws_to_reject(self.deck, cards, _next_position(current))
        if "elvaroon" in buttons and (to_reject == 0 or "elvaroon" not in self.used):
            self.protecting = (round_id, seat)
            return "elvaroon"
        if to_reject and draw in buttons:
            return draw
        if not hand["bet"] and "bet" in buttons:
            return "bet"
        low = hands.best(cards) < (13 if classic else 15)
        if low and draw in buttons and (classic or "open_card" not in self.used):
            return draw
        return "stand"

    def banker_click(self, seat: int, current: dict[str, Any]) -> None:
        buttons = self.buttons_now(seat)
        if not buttons:
            return
        best = hands.best(self.cards(current, seat))
        if "banker_stop" in buttons and ("banker_stop" not in self.used or best >= 15):
            self.click(seat, "banker_stop")
        else:
            self.click(seat, "banker_draw")


def _sit(server: Server, browsers: Callable[[], Any], tmp_path: Path, rule_set: str) -> KvTable:
    """The creator (seat 0) and two players (seats 2 and 4) in browsers, a bot before each
    player in either order of play (seats 1, 3 and 5)."""
    creator, players = browsers(), {2: browsers(), 4: browsers()}
    _open(creator, server)
    table_id = _create(creator, "kvitlach", rule_set=rule_set, decks=str(DECKS), buy_in="300")
    table = KvTable(server, table_id, rule_set, tmp_path, {0: creator, **players})
    client = FairdealClient(server.url)
    for seat in range(1, 6):
        if seat in players:
            _join(players[seat], server, table_id)
        else:
            table.bots[seat] = client.join(table_id, {"buy_in": 300})
            assert table.bots[seat].seat == seat
    return table


def _until(table: KvTable, goals: Callable[[], bool]) -> list[str]:
    rounds = []
    while not goals():
        assert len(rounds) < MAX_ROUNDS, f"moves never clicked: {table.used}"
        rounds.append(table.play_round())
    print(f"{table.rule_set}: {len(rounds)} rounds, moves clicked: {sorted(table.used)}")
    return rounds


def _finish(table: KvTable) -> None:
    for driver in table.browsers.values():
        wait_for(driver, lambda d: _checked(d) == _head(table.server, table.table_id) + 1)
        _no_failure(driver)
        assert_clean_console(driver)
    _verify(table.server, _revealed_rounds(table.server, table.table_id))


@pytest.mark.ci
def test_kvitlach_pressburg_every_move_the_banker_exit_and_a_seat_leaving(
    browsers: Callable[[], Any], tmp_path: Path
) -> None:
    with serve_live(tmp_path) as server:
        table = _sit(server, browsers, tmp_path, "pressburg")
        moves = PLAYER_MOVES["pressburg"] | BANKER_MOVES
        _until(table, lambda: moves <= table.used)
        creator = table.browsers[0]

        def exit_offered() -> bool:
            return "banker_exit" in table.buttons_now(0)

        _until(table, exit_offered)
        table.click(0, "banker_exit")
        head = _head(server, table.table_id)
        path = f"/v1/tables/{table.table_id}/events?from_seq={head - 1}"
        exit_run = [e["event"] for e in _get(server, path)["events"]]
        assert [e["type"] for e in exit_run] == ["banker_exit", "term_ended"]
        assert exit_run[-1]["data"]["reason"] == "banker_exit"
        wait_for(creator, lambda d: "(you) — banker" not in d.find_element(By.ID, "scores").text)
        # The term's end is announced on every page, with who banks next.
        next_banker = exit_run[-1]["data"]["next_banker"]
        for seat, driver in table.browsers.items():
            said = wait_for(driver, lambda d: d.find_element(By.ID, "result-headline").text)
            wait_for(driver, lambda d: "term is over" in d.find_element(By.ID, "result").text)
            told = driver.find_element(By.ID, "result").text
            assert "the banker stepped down" in told, told
            assert ("You are" if seat == next_banker else f"Seat {next_banker} is") in told, said
        table.shot(creator, "after-exit")

        player = table.browsers[4]
        wait_for(player, lambda d: "seat_left" in table.buttons_now(4))
        table.click(4, "seat_left")
        notice = wait_for(
            player,
            lambda d: (
                d.find_element(By.ID, "notice").get_attribute("data-gone") == "left"
                and d.find_element(By.ID, "notice")
            ),
        )
        assert "You left the table" in notice.text
        table.shot(player, "left")
        _finish(table)


@pytest.mark.ci
def test_kvitlach_classic_every_move(browsers: Callable[[], Any], tmp_path: Path) -> None:
    with serve_live(tmp_path) as server:
        table = _sit(server, browsers, tmp_path, "classic")
        moves = PLAYER_MOVES["classic"] | BANKER_MOVES
        _until(table, lambda: moves <= table.used)
        for seat, driver in table.browsers.items():
            wait_for(driver, lambda d: "settled" in _status(d))
            table.shot(driver, f"end-seat-{seat}")
        _finish(table)
