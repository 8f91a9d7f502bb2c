"""C2SP tlog-witness (c2sp.org/tlog-witness): the add-checkpoint exchange, both sides.

The text followed is the current one (C2SP's main after its v1.0.0 tag, as amended on
2026-07-06): a size-0 checkpoint must carry the empty tree's root, and a checkpoint of the
cosigned size with another root is a 422 (v1.0.0 said 409).

A log POSTs "old <size>\\n", its consistency proof one base64 hash a line, an empty line, then
its signed checkpoint. The witness cosigns only a checkpoint that extends the latest one it
cosigned for that log. This module reads and writes the messages and makes the witness's
decision; keeping the state and signing is the caller's. Each refusal carries its HTTP status.
"""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from hmac import compare_digest
from typing import NamedTuple

from fairdeal.errors import FairdealError
from fairdeal.merkle import EMPTY_ROOT, MerkleError, verify_consistency
from fairdeal.note import (
    MAX_SIGNATURES,
    BadNoteSignatureError,
    Checkpoint,
    NoteError,
    NoteVerifier,
    UntrustedNoteError,
    b64decode,
    b64encode,
    open_note,
    parse_signature_line,
    parse_size,
    read_note,
)

MAX_BODY_BYTES = 64 * 1024
MAX_PROOF_LINES = 63
HASH_SIZE = 32
TLOG_SIZE_TYPE = "text/x.tlog.size"
_OLD_PREFIX = "old "


class WitnessError(FairdealError):
    """Base of the witness protocol's errors."""


class WitnessRequestError(WitnessError):
    """An add-checkpoint request the witness refuses, with the HTTP status that says so."""

    status = 400


class BadRequestError(WitnessRequestError):
    """400: a request the protocol forbids."""


class MalformedRequestError(BadRequestError):
    """400: a body that is not an add-checkpoint request (lines, base64, the note)."""


class OldSizeBeyondCheckpointError(BadRequestError):
    """400: an old size larger than the checkpoint's: a request to roll the witness back."""


class UntrustedCheckpointError(WitnessRequestError):
    """403: no signature by a key trusted for the origin, or a bad one by such a key."""

    status = 403


class UnknownLogError(WitnessRequestError):
    """404: a checkpoint of an origin the witness does not witness."""

    status = 404


class MisbehaviourError(WitnessRequestError):
    """A signed checkpoint that contradicts the one cosigned: kept as evidence."""


class ConflictError(WitnessRequestError):
    """409: the answer's body is the size of the latest cosigned checkpoint."""

    status = 409

    def __init__(self, reason: str, latest_size: int) -> None:
        super().__init__(reason, latest_size)  # both, so that it pickles
        self.reason, self.latest_size = reason, latest_size

    def __str__(self) -> str:
        return self.reason


class StaleOldSizeError(ConflictError):
    """409: the old size is not the size of the latest cosigned checkpoint."""


class InconsistentTreeError(MisbehaviourError):
    """422: the proof does not show that the checkpoint extends the cosigned one."""

    status = 422


class ConflictingRootError(InconsistentTreeError):
    """422: a checkpoint of the cosigned size with another root: a fork."""


class NotTheEmptyRootError(InconsistentTreeError):
    """422: a checkpoint of size 0 whose root is not the empty tree's."""


class MalformedResponseError(WitnessError):
    """A witness's answer that is not what the protocol says it sends."""


@dataclass(frozen=True)
class AddCheckpoint:
    """An add-checkpoint request, well-formed; its checkpoint's signatures are not checked."""

    old_size: int
    proof: tuple[bytes, ...]
    note: str
    checkpoint: Checkpoint


class TreeHead(NamedTuple):
    """The size and root hash of the latest checkpoint the witness cosigned for a log."""

    size: int
    root_hash: bytes


def format_add_checkpoint(old_size: int, proof: Sequence[bytes], note: str) -> bytes:
    """The body of a request to cosign the signed checkpoint ``note``."""
    if len(proof) > MAX_PROOF_LINES or any(len(h) != HASH_SIZE for h in proof):
        raise ValueError(f"a proof is at most {MAX_PROOF_LINES} hashes of {HASH_SIZE} bytes")
    lines = [f"{_OLD_PREFIX}{old_size}", *(b64encode(h) for h in proof)]
    body = ("".join(f"{line}\n" for line in lines) + "\n" + note).encode()
    try:
        parse_add_checkpoint(body)  # never send what a strict witness would refuse
    except MalformedRequestError as e:
        raise ValueError(f"not a request to send: {e}") from e
    return body


def parse_add_checkpoint(body: bytes) -> AddCheckpoint:
    """The request in ``body``; MalformedRequestError for anything else."""
    if len(body) > MAX_BODY_BYTES:
        raise MalformedRequestError(f"the body is over {MAX_BODY_BYTES} bytes")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MalformedRequestError("the body is not UTF-8") from e
    split = text.find("\n\n")  # neither the old size line nor a proof line is empty
    if split < 0:
        raise MalformedRequestError("no empty line before the checkpoint")
    old_line, *proof_lines = text[:split].split("\n")
    if len(proof_lines) > MAX_PROOF_LINES:
        raise MalformedRequestError(f"more than {MAX_PROOF_LINES} consistency proof lines")
    note = text[split + 2 :]
    return AddCheckpoint(
        _old_size(old_line), tuple(map(_proof_hash, proof_lines)), note, _checkpoint(note)
    )


def _old_size(line: str) -> int:
    if not line.startswith(_OLD_PREFIX):
        raise MalformedRequestError('the first line is not "old <size>"')
    return parse_size(line[len(_OLD_PREFIX) :], MalformedRequestError)


def _proof_hash(line: str) -> bytes:
    digest = b64decode(line, MalformedRequestError)
    if len(digest) != HASH_SIZE:
        raise MalformedRequestError(f"a proof hash is {HASH_SIZE} bytes, not {len(digest)}")
    return digest


def _checkpoint(note: str) -> Checkpoint:
    try:
        return Checkpoint.parse(read_note(note)[0])
    except NoteError as e:
        raise MalformedRequestError(f"not a signed checkpoint: {e}") from e


def trusted_logs(verifiers: Iterable[NoteVerifier]) -> dict[str, tuple[NoteVerifier, ...]]:
    """The logs' keys by origin: a log's verifier key is named for its origin."""
    logs: dict[str, tuple[NoteVerifier, ...]] = {}
    for verifier in verifiers:
        logs[verifier.name] = (*logs.get(verifier.name, ()), verifier)
    return logs


def check_add_checkpoint(
    request: AddCheckpoint,
    trusted: Mapping[str, Sequence[NoteVerifier]],
    latest: TreeHead | None,
) -> Checkpoint:
    """The checkpoint to cosign, if ``request`` extends ``latest`` (the latest checkpoint
    cosigned for its origin; None if none was), checked in the order the protocol lists."""
    checkpoint = request.checkpoint
    _check_signed(request.note, trusted.get(checkpoint.origin))
    if request.old_size > checkpoint.size:
        raise OldSizeBeyondCheckpointError(
            f"old size {request.old_size} is beyond the checkpoint's size {checkpoint.size}"
        )
    latest_size = latest.size if latest else 0
    if request.old_size != latest_size:
        raise StaleOldSizeError(
            f"old size {request.old_size} is not the cosigned size {latest_size}", latest_size
        )
    if checkpoint.size == 0 and not compare_digest(checkpoint.root_hash, EMPTY_ROOT):
        raise NotTheEmptyRootError("a checkpoint of size 0 must carry the empty tree's root")
    if (
        latest is not None
        and checkpoint.size == latest.size
        and not compare_digest(checkpoint.root_hash, latest.root_hash)
    ):
        raise ConflictingRootError(f"another root for the cosigned size {latest.size}")
    if latest is None or latest.size == 0:
        if request.proof:  # the empty tree is extended by every tree, with no proof at all
            raise InconsistentTreeError("a proof from size 0 must be empty")
        return checkpoint
    try:
        verify_consistency(
            latest.size, checkpoint.size, request.proof, latest.root_hash, checkpoint.root_hash
        )
    except MerkleError as e:
        raise InconsistentTreeError(f"the checkpoint does not extend the cosigned one: {e}") from e
    return checkpoint


def _check_signed(note: str, verifiers: Sequence[NoteVerifier] | None) -> None:
    if not verifiers:
        raise UnknownLogError("this witness does not witness the checkpoint's origin")
    try:
        open_note(note, verifiers)
    except (UntrustedNoteError, BadNoteSignatureError) as e:
        raise UntrustedCheckpointError(str(e)) from e


def tlog_size_body(size: int) -> str:
    """A 409's body: the size of the latest cosigned checkpoint."""
    return f"{size}\n"


def parse_tlog_size(text: str) -> int:
    """The size in a 409's body (``text/x.tlog.size``): canonical decimal, then a newline."""
    if not text.endswith("\n"):
        raise MalformedResponseError("a tree size ends with a newline")
    return parse_size(text[:-1], MalformedResponseError)


def parse_cosignature_lines(text: str) -> list[str]:
    """The signature lines of a 200's body, each with its final newline; their signatures are
    not checked (``fairdeal.cosignature.cosignatures`` does, once they are in the note)."""
    if not text.endswith("\n"):
        raise MalformedResponseError("a signature line ends with a newline")
    lines = text[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise MalformedResponseError(f"more than {MAX_SIGNATURES} signature lines")
    try:
        for line in lines:
            parse_signature_line(line)
    except NoteError as e:
        raise MalformedResponseError(f"not a signature line: {e}") from e
    return [f"{line}\n" for line in lines]
