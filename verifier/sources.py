"""What the command line names, read and dispatched: a bundle, an export, a checkpoint
or a proof. The kind is told from the content, not from the file name."""

import argparse
import io
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any, cast

from fairdeal.note import Checkpoint
from fairdeal.protocol import is_hex64

from . import export, log
from .findings import Finding, Report
from .inputs import (
    LIMITS,
    InputError,
    Line,
    loads,
    loads_noting_duplicates,
    open_input,
    read_lines,
    read_small,
    refuse_bom,
    refuse_server_error,
    text_of,
)
from .progress import Progress
from .trust import Trust, load_trust
from .witnesses import witnessing

if TYPE_CHECKING:  # explain is imported only when --explain asks for it
    from .explain import Story

_NOTE_MARK = "\n\n\u2014 "  # a signed note's blank line, then its first signature line


def run(args: argparse.Namespace) -> tuple[Report, "Story"]:
    """The report for the command line's input, and the story if --explain asked for one."""
    trust = load_trust(args.key, args.origin, args.witness, args.witness_quorum)
    report = Report()
    pinned = _pinned(args, trust, report)
    if args.input is None:
        _checkpoints_only(pinned, report)
        return report, None
    with open_input(args.input) as stream:
        head = stream.read(LIMITS.max_line_bytes + 1)
        refuse_bom(head, "the input")  # a whole export's, not its first line's alone
        if len(head) <= LIMITS.max_line_bytes:  # small enough to be one document
            return _small(head, args, trust, pinned, report)
        lines = read_lines(cast(IO[bytes], _Joined(head, stream)))
        _export(lines, args, trust, pinned, report, size=_size(args.input))
    _not_told(args, report)
    return report, None


def _pinned(args: argparse.Namespace, trust: Trust, report: Report) -> export.Pinned:
    pinned = export.Pinned(partial=args.partial)
    if args.checkpoint:
        pinned.checkpoint = _checkpoint(args.checkpoint, trust, report, "checkpoint")
    if args.previous_checkpoint:
        previous = _checkpoint(args.previous_checkpoint, trust, report, "previous checkpoint")
        pinned.previous = previous
    for path in args.consistency_proof:
        proof = log.read_consistency(_read(path, "consistency proof"))
        pinned.proofs[proof.first, proof.second] = proof
    return pinned


def _checkpoint(path: str, trust: Trust, report: Report, what: str) -> Checkpoint | None:
    found = log.read_checkpoint_file(_read(path, what), f"the {what}")
    checkpoint, problem = log.open_checkpoint_file(found, trust)
    report.checked.append(f"{what} {os.path.basename(path)}")
    if problem is not None:
        report.add([problem])
    if checkpoint is not None:
        report.add(_witnessed(found, trust))  # (18)
    return checkpoint


def _witnessed(found: log.CheckpointFile, trust: Trust) -> list[Finding]:
    """(18) A checkpoint file's note cosigned by a quorum of the given witnesses."""
    witnessed = witnessing(found.note, trust)
    return witnessed.findings(log.Place()) if witnessed else []


def _read(path: str, what: str) -> bytes:
    with open_input(path) as stream:
        return read_small(stream, what)


def _checkpoints_only(pinned: export.Pinned, report: Report) -> None:
    # (16) done when read; (17) consistency with the previous one
    if pinned.checkpoint is not None and pinned.previous is not None:
        proof = pinned.proof(pinned.previous.size, pinned.checkpoint.size)
        problem = log.check_consistency(pinned.previous, pinned.checkpoint, proof)
        report.add([problem] if problem else [])


_NOT_AN_INPUT = "not a bundle, export, checkpoint or proof"


def _not_an_input(text: str) -> str:
    """Why a text input is unusable, saying what it looks like where it looks like a key,
    which goes in an option, not as the input."""
    first = text.strip().split("\n", 1)[0]
    if first.startswith("-----BEGIN"):
        return f"a PEM key, {_NOT_AN_INPUT}: the operator's key goes in --key FILE"
    if is_hex64(first):
        return f"64 hex digits, a seat's public key, {_NOT_AN_INPUT}"
    if first.count("+") >= 2 and " " not in first:
        return f"a verifier key (name+id+key), {_NOT_AN_INPUT}: it goes in --key or --witness"
    return _NOT_AN_INPUT


def _size(path: str) -> int | None:
    try:
        return None if path == "-" else os.path.getsize(path)
    except OSError:
        return None


def _small(
    data: bytes, args: argparse.Namespace, trust: Trust, pinned: export.Pinned, report: Report
) -> tuple[Report, "Story"]:
    start = data.lstrip()[:1]
    if not start:
        raise InputError("input.wrong_format", "the input is empty")
    if start not in (b"{", b"["):
        text = text_of(data, "the input")
        if _NOTE_MARK not in text:
            raise InputError("input.wrong_format", _not_an_input(text))
        found = log.read_checkpoint_file(data, "the checkpoint")
        return _checkpoint_input(found, trust, pinned, report), None
    if start == b"[":
        loads(data)  # a JSON array is never a fairdeal input: say why it is unusable
        raise InputError("input.wrong_format", "a JSON array is not a bundle or an export")
    try:
        obj, duplicates = loads_noting_duplicates(data)
    except InputError:  # several lines: an export
        _export(read_lines(io.BytesIO(data)), args, trust, pinned, report, size=len(data))
        _not_told(args, report)
        return report, None
    if "format" not in obj:
        return _object_input(data, obj, trust, pinned, report), None
    export.verify_alone(obj, duplicates, trust, pinned, report)
    report.checked.append(f"bundle {os.path.basename(args.input)}")
    story = None
    if args.explain and report.verdict != "unusable":
        from .explain import explain

        story = explain(obj, as_json=args.json, trust=trust)
    return report, story


def _export(
    lines: Iterator[Line],
    args: argparse.Namespace,
    trust: Trust,
    pinned: export.Pinned,
    report: Report,
    *,
    size: int | None,
) -> None:
    progress, counter = Progress(size), _Counter()
    result = export.verify(
        counter.count(lines),
        trust,
        pinned,
        args.jobs,
        lambda done: progress.update(done.line, counter.bytes),
    )
    progress.close()
    report.add(result.findings)
    report.rounds, report.events = result.rounds, result.events
    report.checked.append(
        f"{'bundle' if result.rounds == 1 else 'export'} {os.path.basename(args.input)}"
    )


def _not_told(args: argparse.Namespace, report: Report) -> None:
    """--explain tells one bundle; an export's rounds are verified, not told: say so."""
    if args.explain:
        print(
            f"fairdeal-verify: --explain tells a single bundle, and {args.input} is an export "
            f"of {report.rounds} bundle(s): nothing told (a line of it saved as a file of its "
            "own is a bundle that --explain tells)",
            file=sys.stderr,
        )


class _Counter:
    """Bytes of the lines read so far, for the progress bar."""

    def __init__(self) -> None:
        self.bytes = 0

    def count(self, lines: Iterator[Line]) -> Iterator[Line]:
        for line in lines:
            self.bytes += len(line.data)
            yield line


def _checkpoint_input(
    found: log.CheckpointFile, trust: Trust, pinned: export.Pinned, report: Report
) -> Report:
    # (16) a checkpoint given as the input; (17) against --checkpoint / --previous-checkpoint;
    # (18) its witnesses
    checkpoint, problem = log.open_checkpoint_file(found, trust)
    report.checked.append("checkpoint")
    report.add([problem] if problem else [])
    if checkpoint is None:
        return report
    report.add(_witnessed(found, trust))
    for other in (pinned.previous, pinned.checkpoint):
        if other is None:
            continue
        old, new = (other, checkpoint) if other.size <= checkpoint.size else (checkpoint, other)
        broken = log.check_consistency(old, new, pinned.proof(old.size, new.size))
        report.add([broken] if broken else [])
    return report


def _object_input(
    data: bytes, obj: dict[str, Any], trust: Trust, pinned: export.Pinned, report: Report
) -> Report:
    """A JSON object other than a bundle: a proof, or a checkpoint in its JSON form."""
    refuse_server_error(obj, "the input")
    if {"from", "to", "proof"} <= obj.keys():
        return _consistency_input(data, pinned, report)
    if "note" in obj:
        found = log.read_checkpoint_file(data, "the checkpoint")
        return _checkpoint_input(found, trust, pinned, report)
    if {"leaf_index", "tree_size", "head_hash", "proof"} <= obj.keys():
        return _inclusion_input(data, pinned, report)
    raise InputError("input.wrong_format", _NOT_AN_INPUT)


def _consistency_input(data: bytes, pinned: export.Pinned, report: Report) -> Report:
    report.checked.append("consistency proof")
    proof = log.read_consistency(data)
    if pinned.checkpoint is None or pinned.previous is None:
        raise InputError("input.missing_proof", "a consistency proof needs both checkpoints")
    pinned.proofs[proof.first, proof.second] = proof
    _checkpoints_only(pinned, report)
    return report


def _inclusion_input(data: bytes, pinned: export.Pinned, report: Report) -> Report:
    report.checked.append("inclusion proof")
    proof = log.read_inclusion(loads(data))
    if pinned.checkpoint is None:
        raise InputError("input.missing_proof", "an inclusion proof needs --checkpoint")
    report.add(log.check_inclusion_proof(proof, pinned.checkpoint))
    return report


class _Joined(io.RawIOBase):
    """Bytes already read, then the rest of the stream: one readable stream again."""

    def __init__(self, head: bytes, rest: IO[bytes]) -> None:
        self._head = io.BytesIO(head)
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readline(self, size: int | None = -1) -> bytes:
        limit = -1 if size is None else size
        line = self._head.readline(limit)
        if line.endswith(b"\n") or (limit >= 0 and len(line) >= limit):
            return line
        more = self._rest.readline(-1 if limit < 0 else limit - len(line))
        return line + more

    def close(self) -> None:
        self._rest.close()
        super().close()
