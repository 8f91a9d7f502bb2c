"""Witnesses for the verifier's tests: fixed Ed25519 keys that cosign checkpoints through
the real code (fairdeal.cosignature), and bundles whose checkpoint carries their lines."""

import copy
import hashlib
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.cosignature import Cosigner, with_signatures
from fairdeal.note import read_note


def cosigner(name: str, label: str | None = None) -> Cosigner:
    """A witness named ``name`` whose key is made from ``label`` (default: the name)."""
    seed = hashlib.sha256(f"witness key {label or name}".encode()).digest()
    return Cosigner(name, Ed25519PrivateKey.from_private_bytes(seed))


ALICE = cosigner("witness.alice.example")
BOB = cosigner("witness.bob.example")
CAROL = cosigner("witness.carol.example")  # never given to the verifier
IMPOSTOR = cosigner(ALICE.name, "not alice")  # Alice's name, another key


def cosign(note: str, witness: Cosigner, at: int) -> str:
    """``witness``'s cosignature line over the checkpoint ``note`` at ``at`` (seconds)."""
    body, _ = read_note(note)
    return witness.cosign(body, at)


def cosigned(note: str, *witnesses: Cosigner, at: int) -> str:
    """``note`` with each witness's cosignature at ``at`` (seconds) added."""
    return cosigned_at(note, *((w, at) for w in witnesses))


def cosigned_at(note: str, *times: tuple[Cosigner, int]) -> str:
    """``note`` with each witness's cosignature at its own time (seconds) added."""
    return with_signatures(note, [cosign(note, w, at) for w, at in times])


def head_second(bundle: dict[str, Any]) -> int:
    """The second in which the bundle's head event was logged."""
    time: int = bundle["events"][-1]["event"]["time"]
    return time // 1000


def with_checkpoint(bundle: dict[str, Any], note: str) -> dict[str, Any]:
    """A copy of ``bundle`` whose log carries the checkpoint ``note``."""
    changed = copy.deepcopy(bundle)
    changed["log"]["checkpoint"] = note
    return changed


def witnessed(bundle: dict[str, Any], *witnesses: Cosigner, late: int = 60) -> dict[str, Any]:
    """``bundle`` with its checkpoint cosigned by each witness, ``late`` seconds after its
    head's second."""
    note = cosigned(bundle["log"]["checkpoint"], *witnesses, at=head_second(bundle) + late)
    return with_checkpoint(bundle, note)
