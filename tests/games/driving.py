"""What both games' test drivers share: a fixed signer, seeds and a table driven by commands."""

import hashlib
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, table
from fairdeal.events import Event, SignedEvent
from fairdeal.games.base import Command
from fairdeal.keys import Signer
from fairdeal.protocol import TABLE_STATE

T0 = 1_700_000_000_000


def fixed_signer(first_byte: int) -> Signer:
    return Signer(Ed25519PrivateKey.from_private_bytes(bytes(range(first_byte, first_byte + 32))))


def labelled_seed(label: str, round_id: str) -> bytes:
    """A test round's server seed, anyone can recompute it."""
    return hashlib.sha256(f"{label} test server seed {round_id}".encode()).digest()


def commitment_of(seed: bytes) -> str:
    return randomness.seed_commitment(seed).hex()


@dataclass
class TableDriver:
    """A table and its log, moved on by one command at a time at a chosen time."""

    table: table.Table
    log: list[SignedEvent]
    signer: Signer
    now: int = T0
    round_id: str | None = None
    rounds: int = 0
    secrets: dict[str, bytes] = field(default_factory=dict)

    @property
    def secret(self) -> bytes | None:
        return self.secrets.get(self.round_id or "")

    def do(
        self,
        type_: str,
        actor: str,
        data: dict[str, Any] | None = None,
        round_id: str | None = None,
        at: int | None = None,
    ) -> list[Event]:
        """Run one command now (or at ``at``); return the events it caused (the log also
        keeps the table_state the engine logs before a run at rest)."""
        self.now = self.now if at is None else at
        command = Command(type_, actor, self.now, data or {}, round_id)
        self.table, signed = table.execute(self.table, command, self.secret, self.signer)
        self.log.extend(signed)
        return [s.event for s in signed if s.event.type != TABLE_STATE]
