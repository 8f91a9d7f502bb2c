"""Version-2 tables for the verifier's tests: seats with keys of their own sign every
command (fairdeal.statements), keyless seats send theirs bare, and each seat commits to
its seed before any seed is revealed. Driven through table.execute, as in helpers."""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.events import actor_seat
from fairdeal.protocol import CLIENT_SEED, SEAT_JOINED, SEED_COMMITMENT, SEED_TIMEOUT
from fairdeal.statements import KEY, SIGNED

from . import helpers


def seat_key(label: str) -> Ed25519PrivateKey:
    """A fixed seat key pair, made from ``label``."""
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(label.encode()).digest())


@dataclass
class SignedDriver(helpers.TableDriver):
    """A version-2 table. ``keys``: each seat's private key (None or absent: keyless);
    ``plain``: seats that send their seed at once instead of committing to it;
    ``withheld``: seats that commit and then do not reveal, in the next round played."""

    keys: dict[int, Ed25519PrivateKey | None] = field(default_factory=dict)
    plain: frozenset[int] = frozenset()
    withheld: frozenset[int] = frozenset()
    numbers: dict[int, int] = field(default_factory=dict)  # each seat's last statement's n
    version: int = SIGNED

    def do(self, type_: str, actor: str, data: dict[str, Any], round_id: str | None) -> None:
        seat = actor_seat(actor)
        sent = data if seat is None else self.sent(seat, type_, data, round_id)
        super().do(type_, actor, sent, round_id)

    def sent(
        self, seat: int, kind: str, data: dict[str, Any], round_id: str | None
    ) -> dict[str, Any]:
        """A command's data as the seat sends them: its key when it sits down, else
        signed when it has a key, after the table's head as the seat sees it."""
        key = self.keys.get(seat)
        if kind == SEAT_JOINED:
            self.numbers[seat] = 0
            return {**data, KEY: statements.public_key_hex(key) if key else None}
        if key is None:
            return data
        n = self.numbers[seat] = self.numbers.get(seat, 0) + 1
        head = self.table.head
        after = {"seq": head.next_seq - 1, "hash": head.prev}  # the last event the seat saw
        return statements.signed_data(
            key, self.table_id, round_id, seat, n=n, after=after, kind=kind, data=data
        )

    def seed(self, round_id: str, seats: Sequence[int], seeds: Sequence[str | None]) -> None:
        """Commit, then reveal: a seat whose seed is None times out before committing, and
        the seats ``withheld`` never reveal, so the round is voided under their names."""
        given = zip(seats, seeds, strict=False)
        chosen = {seat: f"{seed}-{seat}" for seat, seed in given if seed is not None}
        for seat, seed in chosen.items():
            if seat in self.plain:
                self.do(CLIENT_SEED, f"seat:{seat}", {"seed": seed}, round_id)
            else:
                commitment = randomness.client_seed_commitment(round_id, seat, seed).hex()
                self.do(SEED_COMMITMENT, f"seat:{seat}", {"commitment": commitment}, round_id)
        committed = [seat for seat in chosen if seat not in self.plain]
        if committed and not self.table.state.round.revealing:
            self.time_out()  # the seats that sent nothing
        for seat in committed:
            if seat not in self.withheld:
                self.do(CLIENT_SEED, f"seat:{seat}", {"seed": chosen[seat]}, round_id)
        if self.withheld:
            self.time_out()  # the reveals' deadline: the round is voided
            self.withheld = frozenset()

    def time_out(self) -> None:
        """Let the round's seed (or reveal) deadline pass: the server's seed_timeout."""
        self.now = max(self.now, self.table.state.round.seed_deadline)
        due = self.game.due(self.table.state, self.now)
        assert due is not None and due.type == SEED_TIMEOUT, due
        self.do(due.type, due.actor, dict(due.data), due.round)


KEYED = {0: seat_key("seat 0"), 2: seat_key("seat 2")}  # seat 1 is keyless


def toto21_table(table_id: str = "v2t21", rounds: int = 3) -> SignedDriver:
    """Seat 0 keyed and committing, seat 1 keyless and sending its seed at once; round 2
    is voided: seat 0 withholds its reveal."""
    options = {"stake": 5, "target": 10}
    driver = SignedDriver("toto21", table_id, options, keys=dict(KEYED), plain=frozenset({1}))
    driver.seat(0, "seat_joined")
    driver.seat(1, "seat_joined")
    driver.seat(0, "joiner_accepted")
    for number in range(1, rounds + 1):
        driver.withheld = frozenset({0}) if number == 2 else frozenset()
        driver.play_round()
    return driver


def kvitlach_table(
    table_id: str = "v2kv", rounds: int = 3, silent: int | None = None, **options: Any
) -> SignedDriver:
    """Seats 0 and 2 keyed, seat 1 keyless; all commit, but seat ``silent`` sends nothing
    in round 1 and times out; round 2 is voided: seat 2 withholds its reveal."""
    driver = SignedDriver("kvitlach", table_id, dict(options), keys=dict(KEYED))
    for seat in range(3):
        driver.seat(seat, "seat_joined", {"buy_in": 1_000})
    for number in range(1, rounds + 1):
        driver.withheld = frozenset({2}) if number == 2 else frozenset()
        quiet = silent if number == 1 else None
        driver.play_round([None if seat == quiet else "s" for seat in range(3)])
    return driver
