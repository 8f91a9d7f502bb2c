"""What the command line names, read and dispatched: a bundle, an export, a checkpoint
or a proof. The kind is told from the content, not from the file name."""

import argparse
import io
import os
from collections.abc import Iterator
from typing import IO, Any, cast

from fairdeal.note import Checkpoint
from verifier import export, log
from verifier.findings import Report
from verifier.inputs import (
    LIMITS,
    InputError,
    Line,
    loads,
    open_input,
    read_lines,
    read_small,
)
from verifier.progress import Progress
from verifier.trust import Trust, load_trust


def run(args: argparse.Namespace) -> tuple[Report, Any]:
    """The report for the command line's input, and the story if --explain asked for one."""
    trust = load_trust(args.key, args.origin)
    report = Report()
    pinned = _pinned(args, trust, report)
    if args.input is None:
        _checkpoints_only(pinned, report)
        return report, None
    stream, whole = _open(args.input)
    with stream:
        if whole is not None:
            return _small(whole, args, trust, pinned, report)
        _export(read_lines(stream), args, trust, pinned, report, size=_size(args.input))
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
        pinned.proofs[proof.first, proof.second] = proof.proof
    return pinned


def _checkpoint(path: str, trust: Trust, report: Report, what: str) -> Checkpoint | None:
    note = log.read_checkpoint_note(_read(path, what))
    checkpoint, problem = log.open_checkpoint(note, trust, None)
    report.checked.append(f"{what} {os.path.basename(path)}")
    if problem is not None:
        report.add([problem])
    return checkpoint


def _read(path: str, what: str) -> bytes:
    with open_input(path) as stream:
        return read_small(stream, what)


def _checkpoints_only(pinned: export.Pinned, report: Report) -> None:
    # (16) done when read; (17) consistency with the previous one
    if pinned.checkpoint is not None and pinned.previous is not None:
        proof = pinned.proof(pinned.previous.size, pinned.checkpoint.size)
        problem = log.check_consistency(pinned.previous, pinned.checkpoint, proof)
        report.add([problem] if problem else [])


def _open(path: str) -> tuple[IO[bytes], bytes | None]:
    """The input, and its whole content when it is small enough to be one document."""
    stream = open_input(path)
    head = stream.read(LIMITS.max_line_bytes + 1)
    if len(head) <= LIMITS.max_line_bytes:
        return stream, head
    return cast(IO[bytes], _Joined(head, stream)), None


def _size(path: str) -> int | None:
    try:
        return None if path == "-" else os.path.getsize(path)
    except OSError:
        return None


def _small(
    data: bytes, args: argparse.Namespace, trust: Trust, pinned: export.Pinned, report: Report
) -> tuple[Report, Any]:
    text = data.lstrip()
    if not text:
        raise InputError("input.wrong_format", "the input is empty")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("input.malformed_json", "the input is not UTF-8 text") from None
    if not text.startswith((b"{", b"[")):
        if b"\n\n\xe2\x80\x94 " not in data:
            raise InputError("input.wrong_format", "not a bundle, export, checkpoint or proof")
        return _note_input(data, trust, pinned, report), None
    if text.startswith(b"["):
        loads(data)  # a JSON array is never a fairdeal input: say why it is unusable
        raise InputError("input.wrong_format", "a JSON array is not a bundle or an export")
    try:
        obj = loads(data)
    except InputError:
        obj = None  # several lines: an export
    if isinstance(obj, dict) and "format" not in obj:
        return _proof_input(obj, pinned, report), None
    if obj is None:
        _export(read_lines(io.BytesIO(data)), args, trust, pinned, report, size=len(data))
        return report, None
    _export(iter([Line(1, data)]), args, trust, pinned, report, size=None, jobs=1)
    story = None
    if args.explain and isinstance(obj, dict) and report.verdict != "unusable":
        from verifier.explain import explain

        story = explain(obj, as_json=args.json)
    return report, story


def _export(
    lines: Iterator[Line],
    args: argparse.Namespace,
    trust: Trust,
    pinned: export.Pinned,
    report: Report,
    *,
    size: int | None,
    jobs: int | None = None,
) -> None:
    progress, counter = Progress(size), _Counter()
    result = export.verify(
        counter.count(lines),
        trust,
        pinned,
        args.jobs if jobs is None else jobs,
        lambda done: progress.update(done.line, counter.bytes),
    )
    progress.close()
    report.add(result.findings)
    report.rounds, report.events = result.rounds, result.events
    report.checked.append(
        f"{'bundle' if result.rounds == 1 else 'export'} {os.path.basename(args.input)}"
    )


class _Counter:
    """Bytes of the lines read so far, for the progress bar."""

    def __init__(self) -> None:
        self.bytes = 0

    def count(self, lines: Iterator[Line]) -> Iterator[Line]:
        for line in lines:
            self.bytes += len(line.data)
            yield line


def _note_input(data: bytes, trust: Trust, pinned: export.Pinned, report: Report) -> Report:
    # (16) a checkpoint given as the input; (17) against --checkpoint / --previous-checkpoint
    note = log.read_checkpoint_note(data)
    checkpoint, problem = log.open_checkpoint(note, trust, None)
    report.checked.append("checkpoint")
    if problem is not None or checkpoint is None:
        report.add([problem] if problem else [])
        return report
    for other in (pinned.previous, pinned.checkpoint):
        if other is None:
            continue
        old, new = (other, checkpoint) if other.size <= checkpoint.size else (checkpoint, other)
        found = log.check_consistency(old, new, pinned.proof(old.size, new.size))
        report.add([found] if found else [])
    return report


def _proof_input(obj: dict[str, Any], pinned: export.Pinned, report: Report) -> Report:
    """An inclusion proof ({leaf_index, tree_size, head_hash, proof}) or a consistency one."""
    checkpoint = pinned.checkpoint
    if {"from", "to", "proof"} <= obj.keys():
        report.checked.append("consistency proof")
        proof = log.read_consistency(_dumps(obj))
        if checkpoint is None or pinned.previous is None:
            raise InputError("input.missing_proof", "a consistency proof needs both checkpoints")
        pinned.proofs[proof.first, proof.second] = proof.proof
        _checkpoints_only(pinned, report)
        return report
    if not {"leaf_index", "tree_size", "head_hash", "proof"} <= obj.keys():
        raise InputError("input.wrong_format", "not a bundle, export, checkpoint or proof")
    report.checked.append("inclusion proof")
    if checkpoint is None:
        raise InputError("input.missing_proof", "an inclusion proof needs --checkpoint")
    index, size, head = obj["leaf_index"], obj["tree_size"], obj["head_hash"]
    if type(index) is not int or type(size) is not int or not isinstance(head, str):
        raise InputError("input.wrong_format", "leaf_index, tree_size and head_hash")
    heads = log.hashes([head], "head_hash")
    table, round_id = obj.get("table_id"), obj.get("round_id")
    place = log.Place(
        table if isinstance(table, str) else None, round_id if isinstance(round_id, str) else None
    )
    if size != checkpoint.size:
        report.add(
            [
                place.finding(
                    "log.not_in_checkpoint", f"proof for size {size}, not {checkpoint.size}"
                )
            ]
        )
        return report
    found = log.check_inclusion(
        heads[0], index, size, log.hashes(obj["proof"], "proof"), checkpoint.root_hash, place=place
    )
    report.add([found] if found else [])
    return report


def _dumps(obj: dict[str, Any]) -> bytes:
    import json

    return json.dumps(obj).encode()


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
