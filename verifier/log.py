"""Steps (15) inclusion, (16) checkpoint signatures and (17) consistency.

Checkpoints are opened only with the pinned keys. ``RootBuilder`` recomputes the
tree root of an export's leaves as they stream by (log n hashes of memory), which
proves at once that every round of a checkpoint is present, in order, and nothing else.
"""

import hmac
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal import merkle
from fairdeal.errors import FairdealError
from fairdeal.note import (
    BadNoteSignatureError,
    Checkpoint,
    CheckpointOriginError,
    UntrustedNoteError,
    open_note,
)
from verifier.findings import Finding
from verifier.inputs import LIMITS, InputError, loads
from verifier.trust import Trust

_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Place:
    """Where a finding about the log belongs."""

    table: str | None = None
    round: str | None = None

    def finding(self, code: str, reason: str) -> Finding:
        return Finding(code, self.table, self.round, None, reason)


def open_checkpoint(
    note: str, trust: Trust, origin: str | None, place: Place = Place()
) -> tuple[Checkpoint | None, Finding | None]:
    """(16) The checkpoint in a signed note, verified with the pinned keys."""
    if trust.origin is not None and origin not in (None, trust.origin):
        return None, place.finding("checkpoint.origin", f"log {origin!r}, not {trust.origin!r}")
    origin = trust.origin or origin or _first_line(note)
    try:
        verifiers = trust.note_verifiers(origin)
        if not verifiers:
            raise UntrustedNoteError(f"no pinned key is named {origin!r}")
        body, _ = open_note(note, verifiers)
        checkpoint = Checkpoint.parse(body)
        if checkpoint.origin != origin:
            raise CheckpointOriginError(f"checkpoint of {checkpoint.origin!r}, not {origin!r}")
        return checkpoint, None
    except (UntrustedNoteError, BadNoteSignatureError) as e:
        return None, place.finding("checkpoint.signature", str(e))
    except CheckpointOriginError as e:
        return None, place.finding("checkpoint.origin", str(e))
    except (FairdealError, ValueError) as e:
        return None, place.finding("checkpoint.malformed", str(e))


def _first_line(note: str) -> str:
    return note.split("\n", 1)[0] if isinstance(note, str) else ""


def check_inclusion(
    head: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes, *, place: Place
) -> Finding | None:
    """(15) The round head's leaf is leaf ``index`` of the tree with ``root``."""
    try:
        merkle.verify_inclusion(merkle.leaf_hash(head), index, size, proof, root)
    except merkle.MerkleError as e:
        return place.finding("log.inclusion", f"leaf {index} of {size}: {e}")
    return None


def check_consistency(
    old: Checkpoint, new: Checkpoint, proof: Sequence[bytes] | None, place: Place = Place()
) -> Finding | None:
    """(17) ``new`` extends ``old``: same size means same root, else a proof is needed."""
    if new.size < old.size:
        return place.finding("checkpoint.rollback", f"size {new.size} after size {old.size}")
    if new.size == old.size:
        if hmac.compare_digest(old.root_hash, new.root_hash):
            return None
        return place.finding("checkpoint.fork", f"two roots signed for size {new.size}")
    if old.size == 0:
        return None  # every tree extends the empty one
    if proof is None:
        reason = f"no consistency proof from size {old.size} to {new.size}"
        return place.finding("input.missing_proof", reason)
    try:
        merkle.verify_consistency(old.size, new.size, proof, old.root_hash, new.root_hash)
    except merkle.MerkleError as e:
        return place.finding("checkpoint.inconsistent", f"{old.size} -> {new.size}: {e}")
    return None


class RootBuilder:
    """The RFC 9162 root of the leaves appended so far, from O(log n) full subtrees."""

    def __init__(self) -> None:
        self._stack: list[tuple[int, bytes]] = []  # (leaf count, hash), largest first
        self.size = 0

    def append(self, leaf: bytes) -> None:
        width, node = 1, leaf
        while self._stack and self._stack[-1][0] == width:
            _, left = self._stack.pop()
            node, width = merkle.node_hash(left, node), width * 2
        self._stack.append((width, node))
        self.size += 1

    def root(self) -> bytes:
        if not self._stack:
            return merkle.EMPTY_ROOT
        node = self._stack[-1][1]
        for _, left in reversed(self._stack[:-1]):
            node = merkle.node_hash(left, node)
        return node


def hashes(value: Any, what: str) -> list[bytes]:
    """A list of hex hashes from untrusted JSON (InputError if it is not one)."""
    if not isinstance(value, list) or len(value) > LIMITS.max_proof_hashes:
        raise InputError("input.wrong_format", f"{what} is a list of at most 128 hashes")
    if not all(isinstance(h, str) and _HEX64.fullmatch(h) for h in value):
        raise InputError("input.wrong_format", f"{what} holds 64-digit lowercase hex hashes")
    return [bytes.fromhex(h) for h in value]


@dataclass(frozen=True)
class ConsistencyProof:
    first: int
    second: int
    proof: tuple[bytes, ...]


def read_checkpoint_note(data: bytes) -> str:
    """A checkpoint file: the signed note itself, or the service's {size, root_hash, note}."""
    text = data.decode("utf-8", "replace")
    if text.lstrip().startswith("{"):
        obj = loads(data)
        note = obj.get("note") if isinstance(obj, dict) else None
        if not isinstance(note, str):
            raise InputError("input.wrong_format", "a checkpoint JSON has a note member")
        return note
    return text


def read_consistency(data: bytes) -> ConsistencyProof:
    """The service's consistency answer: {from, to, proof[, from_root, to_root]}."""
    obj = loads(data)
    if (
        not isinstance(obj, dict)
        or type(obj.get("from")) is not int
        or type(obj.get("to")) is not int
    ):
        raise InputError("input.wrong_format", "a consistency proof has integer from and to")
    return ConsistencyProof(obj["from"], obj["to"], tuple(hashes(obj.get("proof"), "proof")))
