"""Dealer-blind Toto21 tables (SPEC 15.13) played through the real engine: two keyed seats,
each a ``Party`` with its own round key, answering every request the log makes; a strategy
chooses each move from the cards the seat itself can open. Nothing here imports the service.

``BlindTable.play_round`` plays one round to its end; ``answer`` and ``move`` let a test stop
anywhere, act out of turn, withhold, or send what an honest party would not.
"""

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import cards, randomness, statements, table
from fairdeal.blind import rounds
from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER
from fairdeal.events import SignedEvent, actor_seat, seat_actor
from fairdeal.games import registry
from fairdeal.games.base import Command
from fairdeal.games.toto21 import cipher, hands
from fairdeal.games.toto21.party import Logged, Party
from fairdeal.games.toto21.state import DECK_RULES, State
from fairdeal.protocol import (
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    KEYS_DUE,
    ROUND_KEY,
    ROUND_OPENED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SHARES_DUE,
    SHUFFLE_DUE,
)
from fairdeal.statements import BLIND, KEY

from .verifier.helpers import SIGNER, T0, server_seed

# A strategy: the move a seat makes, given the cards it can see (its own and the up-card)
# and the moves legal for it.
Strategy = Callable[[int, list[str], list[str]], str]


def seat_key(seat: int, label: str = "blind") -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(f"{label}-{seat}".encode()).digest())


class Seeded:
    """A fixed stream of scalars (SHA-512 of a label and a counter): parties whose every draw
    is the same in each run, for the conformance suite and vectors (never for play)."""

    def __init__(self, label: str) -> None:
        self.label, self.count = label, 0

    def below(self, bound: int) -> int:
        self.count += 1
        digest = hashlib.sha512(f"{self.label}:{self.count}".encode()).digest()
        return int.from_bytes(digest, "little") % bound


def careful(seat: int, seen: list[str], legal: list[str]) -> str:
    """Draws below 17 and never at 21 or more (the rule the service cannot check)."""
    if "golden_point" in legal and hands.two_aces(seen[:2]):
        return "golden_point"
    total = hands.total(seen)
    return "hit" if total < 17 and "hit" in legal else "stand"


def to_twenty(seat: int, seen: list[str], legal: list[str]) -> str:
    """Draws until the cards it sees reach 20: with ``LONG`` arranged, a long round."""
    return "hit" if "hit" in legal and hands.total(seen) < 20 else "stand"


# A long legal round (``arrange`` it, and play it ``to_twenty``): the player draws eight small
# cards to 20, the dealer eight to 20: 16 cards, near the most a round deals (SPEC 15.13.13).
LONG = dict(
    enumerate(
        ["JS", "KS", "JH", "KH", "JD", "JC", "QS", "QH", "QD", "QC", "KD", "KC", "AS", "AH",
         "AD", "AC"]
    )
)  # fmt: skip


@dataclass
class BlindTable:
    table_id: str = "blind-t"
    options: dict[str, Any] = field(default_factory=dict)
    strategy: Strategy = careful
    now: int = T0
    log: list[SignedEvent] = field(default_factory=list)
    numbers: dict[int, int] = field(default_factory=dict)
    secrets: dict[str, bytes] = field(default_factory=dict)
    parties: dict[int, Party] = field(default_factory=dict)
    round_id: str | None = None
    seeded: bool = False  # every party's draws fixed (Seeded), so each run logs the same bytes

    def __post_init__(self) -> None:
        game = registry()["toto21"]
        options = {"dealing": "blind", "seed_time_ms": 10_000, **self.options}
        self.table, created = table.create(game, self.table_id, options, self.now, SIGNER)
        assert self.table.head.version == BLIND
        self.log.append(created)
        for seat in (0, 1):
            self.send(seat, SEAT_JOINED, {})
        self.send(0, "joiner_accepted", {})

    @property
    def state(self) -> State:
        return self.table.state  # type: ignore[no-any-return]

    @property
    def secret(self) -> bytes | None:
        return None if self.round_id is None else self.secrets.get(self.round_id)

    def server(self, kind: str, data: dict[str, Any], round_id: str | None = None) -> None:
        self._execute(Command(kind, "server", self.now, data, round_id or self.round_id))

    def send(self, seat: int, kind: str, data: dict[str, Any], round_id: str | None = None) -> None:
        """A seat's command, signed after the table's head as the seat sees it."""
        key = seat_key(seat)
        if kind == SEAT_JOINED:
            sent = {**data, KEY: statements.public_key_hex(key)}
            round_id = None
        else:
            round_id = round_id if round_id is not None else self.round_id
            n = self.numbers[seat] = self.numbers.get(seat, 0) + 1
            head = self.table.head
            after = {"seq": head.next_seq - 1, "hash": head.prev}
            sent = statements.signed_data(
                key, self.table_id, round_id, seat, n=n, after=after, kind=kind, data=data
            )
        self._execute(Command(kind, seat_actor(seat), self.now, sent, round_id))

    def _execute(self, command: Command) -> None:
        self.table, signed = table.execute(self.table, command, self.secret, SIGNER)
        self.log.extend(signed)

    def open_round(self) -> str:
        number = self.state.rounds + 1
        round_id = self.round_id = f"{self.table_id}.{number}"
        secret = self.secrets[round_id] = server_seed(round_id)
        commitment = randomness.seed_commitment(secret).hex()
        self.server(ROUND_OPENED, {"commitment": commitment}, round_id)
        self.parties = {seat: self.party(seat, round_id) for seat in (0, 1)}
        return round_id

    def party(self, seat: int, round_id: str) -> Party:
        if not self.seeded:
            return Party(seat, self.table_id, round_id)
        return Party(seat, self.table_id, round_id, Seeded(f"{self.table_id}:{round_id}:{seat}"))

    def commit_and_reveal(self, seats: tuple[int, ...] = (0, 1)) -> None:
        assert self.round_id is not None
        for seat in seats:
            seed = f"seed-{seat}-{self.round_id}"
            commitment = randomness.client_seed_commitment(self.round_id, seat, seed).hex()
            self.send(seat, SEED_COMMITMENT, self.parties[seat].commitment_data(commitment))
        if len(seats) == 2:
            for seat in seats:
                self.send(seat, CLIENT_SEED, {"seed": f"seed-{seat}-{self.round_id}"})

    def round_events(self) -> list[Logged]:
        """The round's events as a party reads them: type, actor, command data."""
        return [
            (e.event.type, e.event.actor, statements.command_data(BLIND, e.event.data))
            for e in self.log
            if e.event.round == self.round_id
        ]

    def answer(self, seat: int) -> None:
        """What ``seat``'s party sends for the request pending."""
        request = self.state.crypto.request if self.state.crypto else None
        assert request is not None and seat in request.seats
        party = self.parties[seat]
        if request.kind == SHUFFLE_DUE:
            self.send(seat, DECK_SHUFFLED, party.step(self.state, self.round_events()))
        elif request.kind == SHARES_DUE:
            self.send(seat, DECRYPTION_SHARES, party.shares(self.state, self.round_events()))
        else:
            assert request.kind == KEYS_DUE
            self.send(seat, ROUND_KEY, party.reveal(self.state, self.round_events()))

    def arrange(self, cards_at: dict[int, str]) -> None:
        """Seat 0 then seat 1 shuffle so that position p holds ``cards_at[p]``: the test
        knows the service's step (from the seed it gave) and chooses seat 0's permutation;
        seat 1 keeps the order. Each step is a true shuffle with a valid proof."""
        state, secret = self.state, self.secret
        assert state.crypto is not None and state.round is not None and secret is not None
        group = cipher.group()
        joint = cipher.joint_key(state.crypto, state.round.seats)
        of = rounds.RoundDeck(self.table_id, state.round.round_id, "toto21", 1)
        shuffle_key = state.round.deck(secret, DECK_RULES).key
        served = rounds.server_witness(rounds.step_key(group, shuffle_key, joint, of), 36)
        order = cards.canonical_deck("toto21", 1)
        at_server = [order[i] for i in served.permutation]  # the card at each step-0 output
        wanted = [at_server.index(card) for _, card in sorted(cards_at.items())]
        rest = [i for i in range(36) if i not in wanted]
        permutation = [wanted.pop(0) if p in cards_at else rest.pop(0) for p in range(36)]
        draw = self.parties[0].rng
        fresh = tuple(1 + draw.below(ORDER - 1) for _ in range(36))
        first = tw.ShuffleWitness(tuple(permutation), fresh)
        self.send(0, DECK_SHUFFLED, self.parties[0].step(state, self.round_events(), first))
        again = tuple(1 + self.parties[1].rng.below(ORDER - 1) for _ in range(36))
        keep = tw.ShuffleWitness(tuple(range(36)), again)
        self.send(1, DECK_SHUFFLED, self.parties[1].step(self.state, self.round_events(), keep))

    def seen_by(self, seat: int) -> list[str]:
        """The cards ``seat`` can see: its own face-down ones, opened, and the up-card."""
        hand = self.state.hand
        assert hand is not None
        own = self.parties[seat].own_cards(self.state, self.round_events())
        cards = []
        for held in hand.held:
            if held.position in own:
                cards.append(own[held.position])
            elif held.seat == seat and held.position in hand.known:
                cards.append(hand.known[held.position].card)
        return cards

    def move(self, seat: int) -> None:
        legal = registry()["toto21"].legal_actions(self.state, seat, None)
        choice = self.strategy(seat, self.seen_by(seat), legal)
        self.send(seat, choice, {})

    def step(self) -> bool:
        """One command of the round in play: an answer or a move. False once it is over."""
        state = self.state
        if state.round is None or state.round.revealed:
            return False
        crypto = state.crypto
        if crypto is not None and crypto.request is not None:
            self.answer(crypto.request.seats[0])
            return True
        hand = state.hand
        assert hand is not None and hand.turn is not None
        self.move(hand.turn)
        return True

    def play_round(self) -> str:
        round_id = self.open_round()
        self.commit_and_reveal()
        while self.step():
            pass
        return round_id

    def seat_of(self, actor: str) -> int:
        seat = actor_seat(actor)
        assert seat is not None
        return seat
