"""Generate the protocol-version-2 vectors (tests/vectors/fairdeal-v2.json, SPEC 9.3): a
small Toto21 table whose seats hold fixed Ed25519 keys, every input fixed.

The table is played by the real rules and the real engine, as the service plays it:
version 2, the vector key of fairdeal-v1.json for the server, each seat's key seeded
with SHA-256("fairdeal vector seat " + seat), server seeds SHA-256("fairdeal vector " +
round id). Round 1: both seats commit, then reveal, and play signed moves. Round 2: both
commit, seat 1 withholds its reveal, and the seed timeout voids the round under its
name. Round 3: seat 0 sends its seed straight away (no commitment), seat 1 commits and
reveals. Besides the export (as bounded.py writes one), the file gives the values a
reimplementer checks first: the seat keys, a commitment's bytes and digest, statements'
bytes and signatures. Run ``python tests/vectors/v2.py`` to rewrite the
file; tests/test_vectors.py regenerates it in memory and fails on any difference.
"""

import json
import sys
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements, tags
from fairdeal.canonical import canonical_bytes
from fairdeal.events import Event, SignedEvent, actor_seat, seat_actor
from fairdeal.games import registry
from fairdeal.games.base import Command
from fairdeal.games.toto21.state import State
from fairdeal.note import NoteSigner
from fairdeal.protocol import SERVER, TABLE_STATE
from fairdeal.statements import SIGNED
from fairdeal.table import Table, create, execute
from tests.vectors.bounded import ORIGIN, SIGNER, export
from tests.vectors.generate import fixed_seed

OUTPUT = Path(__file__).with_name("fairdeal-v2.json")
TABLE = "tbl-v2"
T0 = 1_760_000_000_000
STEP = 1_000  # ms between two requests
SEATS = (0, 1)
# Each round's client seeds, and how each seat sends its own: "commit" (then reveal),
# "withhold" (commit, never reveal) or "plain" (the seed at once, no commitment).
ROUNDS: list[dict[int, tuple[str, str]]] = [
    {0: ("alice round 1", "commit"), 1: ("bob round 1", "commit")},
    {0: ("alice round 2", "commit"), 1: ("bob round 2", "withhold")},
    {0: ("alice round 3", "plain"), 1: ("bob round 3", "commit")},
]


def seat_private_key(seat: int) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(fixed_seed(f"fairdeal vector seat {seat}"))


class _Play:
    """The table, its chain and the log's heads, moved on one request at a time."""

    def __init__(self) -> None:
        self.table: Table[State]
        self.table, created = create(
            registry()["toto21"], TABLE, {"stake": 10}, T0, SIGNER, version=SIGNED
        )
        self.chain: list[SignedEvent] = [created]
        self.heads: list[tuple[str | None, int]] = []
        self.now = T0
        self.numbers = dict.fromkeys(SEATS, 0)
        self.secret: bytes | None = None  # the server seed of the round in progress

    def seat(self, seat: int, kind: str, data: dict[str, Any], round_id: str | None = None) -> None:
        """A keyed seat's command, signed with its next statement number after the
        table's head, the last event the seat saw."""
        self.numbers[seat] += 1
        key, n = seat_private_key(seat), self.numbers[seat]
        head = self.table.head
        after = {"seq": head.next_seq - 1, "hash": head.prev}
        signed = statements.signed_data(
            key, TABLE, round_id, seat, n=n, after=after, kind=kind, data=data
        )
        self.run(Command(kind, seat_actor(seat), self.now, signed, round_id))

    def run(self, command: Command) -> None:
        self.now = max(self.now + STEP, command.time)
        command = Command(command.type, command.actor, self.now, command.data, command.round)
        self.table, signed = execute(self.table, command, self.secret, SIGNER)
        self.chain += signed
        if not self.table.state.in_round() and signed[-1].event.type != TABLE_STATE:
            self.heads.append((command.round, self.chain[-1].event.seq))

    def seating(self) -> None:
        for seat in SEATS:
            key = statements.public_key_hex(seat_private_key(seat))
            self.run(Command("seat_joined", seat_actor(seat), self.now, {"key": key}))
        self.seat(0, "joiner_accepted", {})

    def round(self, number: int, seeds: dict[int, tuple[str, str]]) -> None:
        round_id = f"{TABLE}.{number}"
        self.secret = secret = fixed_seed(f"fairdeal vector {round_id}")
        opening = {"commitment": randomness.seed_commitment(secret).hex()}
        self.run(Command("round_opened", SERVER, self.now, opening, round_id))
        for seat, (seed, how) in seeds.items():
            if how == "plain":
                self.seat(seat, "client_seed", {"seed": seed}, round_id)
            else:
                digest = randomness.client_seed_commitment(round_id, seat, seed).hex()
                self.seat(seat, "seed_commitment", {"commitment": digest}, round_id)
        for seat, (seed, how) in seeds.items():
            if how == "commit":
                self.seat(seat, "client_seed", {"seed": seed}, round_id)
        if any(how == "withhold" for _, how in seeds.values()):
            current = self.table.state.round
            assert current is not None and current.seed_deadline is not None
            due = self.table.game.due(self.table.state, current.seed_deadline)  # reveals' end
            assert due is not None
            self.run(due)
        self.moves(round_id, secret)

    def moves(self, round_id: str, secret: bytes) -> None:
        """Signed moves to the round's end: the player hits once if it may, then each
        seat stands."""
        hit = False
        while self.table.state.in_round():
            hand = self.table.state.hand
            assert hand is not None and hand.turn is not None
            turn = hand.turn
            legal = self.table.game.legal_actions(self.table.state, turn, secret)
            move = "hit" if "hit" in legal and not hit else "stand"
            hit = hit or move == "hit"
            self.seat(turn, move, {}, round_id)


def play() -> _Play:
    played = _Play()
    played.seating()
    for number, seeds in enumerate(ROUNDS, start=1):
        played.round(number, seeds)
    return played


def seat_keys() -> list[dict[str, Any]]:
    return [
        {
            "seat": seat,
            "private_key_seed": fixed_seed(f"fairdeal vector seat {seat}").hex(),
            "public_key": statements.public_key_hex(seat_private_key(seat)),
        }
        for seat in SEATS
    ]


def commitment_example() -> dict[str, Any]:
    """Seat 0's commitment to its seed of round 1 (SPEC 3.9), byte by byte."""
    round_id, seat, seed = f"{TABLE}.1", 0, ROUNDS[0][0][0]
    opening = canonical_bytes({"round": round_id, "seat": seat, "seed": seed})
    return {
        "round": round_id,
        "seat": seat,
        "seed": seed,
        "canonical": opening.decode(),
        "canonical_hex": opening.hex(),
        "commitment": randomness.client_seed_commitment(round_id, seat, seed).hex(),
    }


def statement_examples(chain: list[SignedEvent]) -> list[dict[str, Any]]:
    """Three signed commands (SPEC 6.7), each with its statement's bytes and signature and
    the event that logs it: the creator's accept (round null, made at rest: after the
    event before the table_state; the event adds the member the rules derive), seat 0's
    seed commitment of round 1 and its reveal (after the seeds_committed)."""
    firsts = [
        ("joiner_accepted", None, "seat:0"),
        ("seed_commitment", f"{TABLE}.1", "seat:0"),
        ("client_seed", f"{TABLE}.1", "seat:0"),
    ]
    events = [s.event for s in chain]
    return [
        _statement(next(e for e in events if (e.type, e.round, e.actor) == first))
        for first in firsts
    ]


def _statement(event: Event) -> dict[str, Any]:
    seat = actor_seat(event.actor)
    assert seat is not None
    logged = event.data["signed"]
    message = statements.statement(
        event.table,
        event.round,
        seat,
        n=logged["n"],
        after=logged["after"],
        kind=event.type,
        data=logged["data"],
    )
    return {
        "seat": seat,
        "public_key": statements.public_key_hex(seat_private_key(seat)),
        "canonical": message.removeprefix(tags.SEAT_STATEMENT).decode(),
        "message_hex": message.hex(),
        "signature": logged["signature"],
        "event": event.to_json(),
    }


def generate() -> dict[str, Any]:
    played = play()
    lines = export(played.chain, played.heads, TABLE)
    return {
        "about": "protocol version 2: a Toto21 table with seat keys, seed commitments and a"
        " withheld reveal (SPEC 9.3); regenerate with tests/vectors/v2.py",
        "tags": {
            "CLIENT_SEED_COMMITMENT": tags.CLIENT_SEED_COMMITMENT.hex(),
            "SEAT_STATEMENT": tags.SEAT_STATEMENT.hex(),
        },
        "seat_keys": seat_keys(),
        "client_seed_commitment": commitment_example(),
        "statements": statement_examples(played.chain),
        "verifier_key": NoteSigner(ORIGIN, SIGNER.private_key).verifier_key(),
        "checkpoint": lines[-1]["log"]["checkpoint"],
        "export": lines,
    }


def render() -> str:
    return json.dumps(generate(), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
