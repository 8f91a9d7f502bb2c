"""Dealer-blind Toto21 tables over HTTP (SPEC 15.13): two SDK seats, each a party with its own
round key, play a match to its end through a real service on loopback (SQLite, a clock that
moves only when a test moves it), and every finished round's bundle verifies.

``BlindMatch`` is the helper the other ``test_blind_*`` files drive: a seat answers what its
party owes (``SeatClient.answer_pending``), and a strategy chooses each move from the cards the
seat itself can see (its own, opened with ``own_cards``, and the up-card).
"""

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fairdeal.api.client import FairdealClient, SeatClient
from fairdeal.bundle import COMPACT
from fairdeal.games.toto21 import hands
from fairdeal.games.toto21.state import State
from fairdeal.protocol import CARD_OPENED, DECK_SHUFFLED, KEYS_DUE, ROUND_KEY
from fairdeal.verifier import verify_bundle

from .conftest import Server

OPTIONS = {"dealing": "blind", "seed_time_ms": 10_000, "target": 2}
# A strategy: the move ``seat`` makes, given the cards it can see and the moves legal for it.
Strategy = Callable[[SeatClient, State, list[str]], str]


def seen_by(seat: SeatClient, state: State) -> list[str]:
    """The cards of ``seat``'s hand it can see: its face-down ones, opened by its party, and
    any of its cards everyone sees."""
    hand = state.hand
    assert hand is not None
    own = seat.own_cards()
    cards = []
    for held in hand.held:
        if held.seat != seat.seat:
            continue
        if held.position in own:
            cards.append(own[held.position])
        elif held.position in hand.known:
            cards.append(hand.known[held.position].card)
    return cards


def careful(seat: SeatClient, state: State, legal: list[str]) -> str:
    """Draws below 17 and never at 21 or more (the rule the service cannot check)."""
    seen = seen_by(seat, state)
    if "golden_point" in legal and hands.two_aces(seen[:2]):
        return "golden_point"
    return "hit" if hands.total(seen) < 17 and "hit" in legal else "stand"


def blind_first(seat: SeatClient, state: State, legal: list[str]) -> str:
    """The player takes its blind card at once (below 21), then plays carefully."""
    if "blind" in legal and hands.total(seen_by(seat, state)) < 21:
        return "blind"
    return careful(seat, state, legal)


@dataclass
class BlindMatch:
    """Two seats of one dealer-blind table, each an SDK client of its own."""

    server: Server
    seats: dict[int, SeatClient] = field(default_factory=dict)
    round_id: str | None = None

    @classmethod
    def start(cls, server: Server, **options: Any) -> "BlindMatch":
        creator = FairdealClient(server.url).create_table("toto21", {**OPTIONS, **options})
        joiner = FairdealClient(server.url).join(creator.table_id)
        creator.decide(joiner.seat, True)
        return cls(server, {creator.seat: creator, joiner.seat: joiner})

    @property
    def table_id(self) -> str:
        return self.seats[0].table_id

    def state(self) -> State:
        state: State = self.seats[0].game_state()
        return state

    def open_round(self) -> str:
        self.round_id = self.seats[0].open_round()
        return self.round_id

    def answer(self) -> list[str]:
        """What each seat owes the round now, answered; the commands sent."""
        return [kind for seat in self.seats.values() for kind in seat.answer_pending()]

    def in_play(self) -> bool:
        current = self.state().round
        return current is not None and current.round_id == self.round_id and not current.revealed

    def step(self, strategy: Strategy = careful) -> bool:
        """Every answer owed, else one move of the seat to move; False once the round is over."""
        if not self.in_play():
            return False
        if self.answer():
            return True
        state = self.state()
        hand = state.hand
        assert hand is not None and hand.turn is not None, "a round stuck: nothing is owed"
        seat = self.seats[hand.turn]
        game = seat.client.log(self.table_id).game
        assert game is not None and self.round_id is not None
        legal = game.legal_actions(state, hand.turn, None)
        seat.act(self.round_id, strategy(seat, state, legal))
        return True

    def play(
        self, strategy: Strategy = careful, until: Callable[[State], bool] | None = None
    ) -> None:
        """Steps until the round is over, or ``until`` holds of the state between two steps."""
        while not (until is not None and until(self.state())) and self.step(strategy):
            pass

    def play_round(self, strategy: Strategy = careful) -> str:
        round_id = self.open_round()
        self.play(strategy)
        return round_id


def _bearer(seat: SeatClient) -> dict[str, str]:
    return {"Authorization": f"Bearer {seat.token}"}


def keys_due(state: State) -> bool:
    """The showdown is asked for and no key is revealed yet."""
    request = state.crypto.request if state.crypto is not None else None
    return request is not None and request.kind == KEYS_DUE and len(request.seats) == 2


def test_two_sdk_seats_play_a_blind_match_to_its_end_and_every_round_verifies(
    server: Server,
) -> None:
    match = BlindMatch.start(server)
    creator = match.seats[0]
    played = []
    while match.state().phase == "playing":
        assert len(played) < 12, "a match to 2 points takes a few rounds"
        played.append(match.play_round())
    assert max(match.state().score) >= 2
    trust = creator.client.trust()
    for round_id in played:
        bundle = creator.client.bundle(round_id)
        report = verify_bundle(bundle, trust)
        assert report.verdict == "valid", [f.code for f in report.findings]
        assert bundle["round_id"] == round_id
        # served compact (SPEC 13.1.1): the signed events without their hashes, steps packed
        assert bundle["format"] == COMPACT
        assert len(json.dumps(bundle, separators=(",", ":"))) < 100_000
        assert all("hash" not in e for e in bundle["events"])
    # each seat's answers are in the chain, signed: a step each, and a key each at a showdown
    events = creator.client.log(match.table_id)
    assert events.head.version == 3
    kinds = [kind for kind, _, _ in events.round_events]
    assert kinds.count(DECK_SHUFFLED) == 3  # the service's step and each seat's
    assert kinds.count(ROUND_KEY) in (0, 2)


def test_each_seat_sees_its_own_cards_and_the_service_never_shows_a_hidden_one(
    server: Server,
) -> None:
    match = BlindMatch.start(server)
    match.open_round()
    match.play(blind_first, until=keys_due)
    state = match.state()
    hand = state.hand
    assert hand is not None and keys_due(state)
    # each seat opens its own face-down cards, and only its own
    for number, seat in match.seats.items():
        own = seat.own_cards()
        mine = {h.position for h in hand.held if h.seat == number and h.face == "down"}
        assert set(own) == mine and all(isinstance(card, str) for card in own.values())
    # every view the service gives (each seat's, and the public one) shows the up-card alone
    public = FairdealClient(server.url)
    views = [seat.view() for seat in match.seats.values()]
    views += [
        public.request("GET", f"/v1/rounds/{match.round_id}", headers=_bearer(seat))
        for seat in match.seats.values()
    ]
    views.append(public.request("GET", f"/v1/tables/{match.table_id}"))
    for view in views:
        cards = view["view"]["round"]["cards"]
        assert len(cards) == len(hand.held)
        assert [c["position"] for c in cards if "card" in c] == [1]
        assert all("salt" not in c for c in cards)
    opened = [kind for kind, _, _ in match.seats[0].client.log(match.table_id).round_events]
    assert opened.count(CARD_OPENED) == 1
    match.play(blind_first)  # the showdown: every card is shown
    assert not match.in_play()
