"""Steps (15) inclusion, (16) checkpoint signatures and (17) consistency.

Checkpoints are opened only with the pinned keys. ``RootBuilder`` recomputes the
tree root of an export's leaves as they stream by (log n hashes of memory), which
proves at once that every round of a checkpoint is present, in order, and nothing else.
"""

import contextlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal import merkle
from fairdeal.errors import FairdealError
from fairdeal.keys import key_id
from fairdeal.note import (
    BadNoteSignatureError,
    Checkpoint,
    CheckpointOriginError,
    MalformedNoteError,
    NoteVerifier,
    UntrustedNoteError,
    note_key_name,
    open_note,
    read_note,
)
from fairdeal.protocol import is_hex64

from .findings import Finding
from .inputs import LIMITS, InputError, loads, refuse_server_error, text_of
from .trust import Trust


@dataclass(frozen=True)
class Place:
    """Where a finding about the log belongs."""

    table: str | None = None
    round: str | None = None

    def finding(self, code: str, reason: str) -> Finding:
        return Finding(code, self.table, self.round, None, reason)


def open_checkpoint(
    note: str,
    trust: Trust,
    origin: str | None,
    place: Place = Place(),
    claimed: str | None = None,
) -> tuple[Checkpoint | None, Finding | None]:
    """(16) The checkpoint in a signed note, verified with the pinned keys. ``claimed`` is
    the log verifier key the bundle states (untrusted), by which an unknown signer of the
    note is named as the events name it."""
    if trust.origin is not None and origin not in (None, trust.origin):
        return None, place.finding("checkpoint.origin", f"log {origin!r}, not {trust.origin!r}")
    origin = trust.origin or origin or _first_line(note)
    try:
        verifiers = trust.note_verifiers(origin)
        if not verifiers:
            raise UntrustedNoteError(f"no pinned key is named {origin!r}")
        body, _ = open_note(note, verifiers, _named_by_key_id(verifiers, claimed))
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


def _named_by_key_id(
    verifiers: list[NoteVerifier], claimed: str | None
) -> Callable[[str, bytes], str]:
    """How a note key (name, key ID) is named: one known here, a pinned one or the bundle's
    own, first by its key id, as the events' findings name keys (its note key beside it)."""

    def name(note_name: str, note_key_id: bytes) -> str:
        said = note_key_name(note_name, note_key_id)
        for verifier in [*verifiers, *_readable(claimed)]:
            if (verifier.name, verifier.key_id) == (note_name, note_key_id):
                return f"key id {key_id(verifier.public_key)} ({said})"
        return said

    return name


def _readable(claimed: str | None) -> list[NoteVerifier]:
    """The bundle's own verifier key: none if it cannot be read (it names nobody)."""
    if isinstance(claimed, str):
        with contextlib.suppress(FairdealError, ValueError):
            return [NoteVerifier.from_key_string(claimed)]
    return []


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
    old: Checkpoint, new: Checkpoint, proof: "ConsistencyProof | None", place: Place = Place()
) -> Finding | None:
    """(17) ``new`` extends ``old``: same size means same root, else a proof is needed,
    and the roots it states, if any, are the checkpoints'."""
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
    if not proof.states_only(old.root_hash, new.root_hash):
        reason = f"{old.size} -> {new.size}: from_root and to_root are not the checkpoints' roots"
        return place.finding("checkpoint.inconsistent", reason)
    try:
        merkle.verify_consistency(old.size, new.size, proof.proof, old.root_hash, new.root_hash)
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
    if not all(map(is_hex64, value)):
        raise InputError("input.wrong_format", f"{what} holds 64-digit lowercase hex hashes")
    return [bytes.fromhex(h) for h in value]


def _stated(root: bytes | None, actual: bytes) -> bool:
    """Whether a root a proof file states beside its proof (unsigned) is ``actual``."""
    return root is None or hmac.compare_digest(root, actual)


@dataclass(frozen=True)
class ConsistencyProof:
    """The service's consistency answer; ``from_root`` and ``to_root`` when it states them."""

    first: int
    second: int
    proof: tuple[bytes, ...]
    from_root: bytes | None = None
    to_root: bytes | None = None

    def states_only(self, old_root: bytes, new_root: bytes) -> bool:
        return _stated(self.from_root, old_root) and _stated(self.to_root, new_root)


@dataclass(frozen=True)
class InclusionProof:
    """The service's inclusion answer, and where its head belongs."""

    place: Place
    index: int
    size: int
    head: bytes
    root: bytes | None  # root_hash, when it is stated
    proof: tuple[bytes, ...]


@dataclass(frozen=True)
class CheckpointFile:
    """A checkpoint as a file holds it: its signed note, and in the service's JSON form
    the size and root stated beside the note (unsigned: they must be the note's)."""

    note: str
    stated: tuple[int, bytes] | None = None


_CHECKPOINT_JSON = {"size", "root_hash", "note"}


def read_checkpoint_file(data: bytes, what: str) -> CheckpointFile:
    """(0) A checkpoint file: the signed note itself (line feeds after it are the file's,
    as ``jq -r .note`` writes them), or the service's {"size", "root_hash", "note"};
    InputError unless it holds a signed note's text. Its signatures are step (16)'s."""
    text = text_of(data, what)
    if text.lstrip().startswith("{"):
        found = _checkpoint_json(loads(data), what)
    else:  # a signature line is never empty: a note ends at its first line feed of two
        found = CheckpointFile(text.rstrip("\n") + "\n" if text.endswith("\n\n") else text)
    try:
        read_note(found.note)
    except MalformedNoteError as e:
        raise InputError("input.wrong_format", f"{what} is not a signed note: {e}") from None
    return found


def _checkpoint_json(obj: Any, what: str) -> CheckpointFile:
    refuse_server_error(obj, what)
    if not (
        isinstance(obj, dict)
        and set(obj) == _CHECKPOINT_JSON
        and type(obj["size"]) is int
        and is_hex64(obj["root_hash"])
        and isinstance(obj["note"], str)
    ):
        reason = f"{what} in JSON is exactly size, root_hash (64 lowercase hex) and note"
        raise InputError("input.wrong_format", reason)
    return CheckpointFile(obj["note"], (obj["size"], bytes.fromhex(obj["root_hash"])))


def open_checkpoint_file(
    found: CheckpointFile, trust: Trust
) -> tuple[Checkpoint | None, Finding | None]:
    """(16) A checkpoint file's note opened with the pinned keys; the size and root stated
    beside it, if any, are its checkpoint's."""
    checkpoint, problem = open_checkpoint(found.note, trust, None)
    if checkpoint is None or found.stated in (None, (checkpoint.size, checkpoint.root_hash)):
        return checkpoint, problem
    reason = "its size and root_hash are not its signed note's"
    return checkpoint, Place().finding("checkpoint.malformed", reason)


def read_consistency(data: bytes) -> ConsistencyProof:
    """(0) The service's consistency answer: {from, to, proof[, from_root, to_root]}."""
    obj = loads(data)
    refuse_server_error(obj, "the consistency proof")
    if (
        not isinstance(obj, dict)
        or type(obj.get("from")) is not int
        or type(obj.get("to")) is not int
    ):
        raise InputError("input.wrong_format", "a consistency proof has integer from and to")
    proof = tuple(hashes(obj.get("proof"), "proof"))
    first, second = _optional_hash(obj, "from_root"), _optional_hash(obj, "to_root")
    return ConsistencyProof(obj["from"], obj["to"], proof, first, second)


def read_inclusion(obj: dict[str, Any]) -> InclusionProof:
    """(0) The service's inclusion answer: {leaf_index, tree_size, head_hash, proof
    [, root_hash, round_id, table_id, seq]}."""
    index, size = obj["leaf_index"], obj["tree_size"]
    if type(index) is not int or type(size) is not int:
        raise InputError("input.wrong_format", "leaf_index and tree_size are integers")
    head = hashes([obj["head_hash"]], "head_hash")[0]
    table, round_id = obj.get("table_id"), obj.get("round_id")
    place = Place(
        table if isinstance(table, str) else None, round_id if isinstance(round_id, str) else None
    )
    proof = tuple(hashes(obj["proof"], "proof"))
    return InclusionProof(place, index, size, head, _optional_hash(obj, "root_hash"), proof)


def _optional_hash(obj: dict[str, Any], member: str) -> bytes | None:
    return hashes([obj[member]], member)[0] if member in obj else None


def check_inclusion_proof(proof: InclusionProof, checkpoint: Checkpoint) -> list[Finding]:
    """(15) An inclusion proof given as the input, against the pinned --checkpoint."""
    place = proof.place
    if proof.size != checkpoint.size:
        reason = f"proof for size {proof.size}, not {checkpoint.size}"
        return [place.finding("log.not_in_checkpoint", reason)]
    if not _stated(proof.root, checkpoint.root_hash):
        return [place.finding("log.inclusion", "root_hash is not the checkpoint's root")]
    found = check_inclusion(
        proof.head, proof.index, proof.size, proof.proof, checkpoint.root_hash, place=place
    )
    return [found] if found else []
