"""A JSONL export, streamed: one bundle a line, checked in parallel, judged in input order.

Memory does not grow with the export: lines are read one at a time, at most a few
chunks are in flight, and the checks across bundles keep O(log n) tree hashes plus
one round head per table. Bundles of one table go to one worker, which remembers the
table as verified so far and checks only what each new bundle adds (resume.py).
A new table's line is first read by the C decoder alone, and read again with the hook
that notes repeated member names unless that first reading is certainly the same.
A bundle given alone is none of this: ``verify_alone`` checks it as read, one leaf of the log.
"""

import hmac
import re
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from fairdeal import merkle
from fairdeal.note import Checkpoint

from . import bundle, log, parallel, resume
from .findings import Finding, Report
from .inputs import (
    InputError,
    Line,
    loads_noting_duplicates,
    refuse_duplicates_outside,
)
from .trust import Trust

_TABLE_HINT = re.compile(rb'"table_id"\s*:\s*"([^"\\]{1,64})"')
_MEMO_TABLES = 32


class LineChecker:
    """Checks lines one by one, remembering the last verified state of recent tables."""

    def __init__(self, trust: Trust) -> None:
        self.trust = trust
        self.memos: OrderedDict[str, resume.Memo] = OrderedDict()
        self.checkpoints: dict[tuple[str, str], bundle.Opened] = {}  # verified notes

    def check(self, line: Line) -> bundle.Result:
        if line.error is not None:
            return _unusable(line.number, line.error)
        try:
            return self._read(line)
        except InputError as e:
            return _unusable(line.number, e)

    def _read(self, line: Line) -> bundle.Result:
        obj, duplicates = loads_noting_duplicates(line.data)
        if duplicates:  # (0) in a signed event, step (2) reports it
            refuse_duplicates_outside(obj, "events")
        table = obj.get("table_id") if isinstance(obj, dict) else None
        memo = self.memos.get(table) if isinstance(table, str) else None
        checked, new_memo = self._check(line, obj, duplicates, memo)
        if isinstance(table, str):
            self._remember(table, new_memo)
        return checked.result

    def _check(
        self, line: Line, obj: Any, duplicates: bool, memo: resume.Memo | None
    ) -> tuple[bundle.Checked, resume.Memo | None]:
        """The bundle's checks (from ``memo`` if it goes on from it), and its table's memo."""
        try:
            used = resume.reusable(memo, obj, duplicates)
            since = used.verified if used else None
            context = bundle.Context(duplicates, line.number, since, self.checkpoints)
            checked = bundle.check(obj, self.trust, context)
            if len(self.checkpoints) > 64:
                self.checkpoints.clear()
            return checked, resume.remember(used, checked)
        except Exception as e:  # never a traceback, whatever the input holds
            return bundle.Checked(_failed(line.number, e), None, None), None

    def _remember(self, table: str, memo: resume.Memo | None) -> None:
        self.memos.pop(table, None)
        if memo is not None:
            self.memos[table] = memo
            while len(self.memos) > _MEMO_TABLES:
                self.memos.popitem(last=False)


def _unusable(number: int, error: InputError) -> bundle.Result:
    reason = f"line {number}: {error.reason}"
    return bundle.Result(None, None, [Finding(error.code, None, None, None, reason)], line=number)


def _failed(number: int, error: Exception) -> bundle.Result:
    """Line ``number``'s result when its checks raised ``error``."""
    reason = f"line {number} could not be checked: {type(error).__name__}: {error}"
    finding = Finding("schema.bundle", None, None, None, reason[:200])
    return bundle.Result(None, None, [finding], line=number)


def results(lines: Iterable[Line], trust: Trust, jobs: int) -> Iterator[bundle.Result]:
    """Each line's result, in input order."""
    if jobs <= 1:
        checker = LineChecker(trust)
        yield from (checker.check(line) for line in lines)
        return
    yield from parallel.results(lines, LineChecker, trust, jobs, route)


def route(line: Line) -> int:
    """A stable number per table, so that one table's bundles meet the same worker."""
    found = _TABLE_HINT.search(line.data[:512])
    return zlib.crc32(found.group(1)) if found else line.number


@dataclass
class Pinned:
    """What the command line pins besides the keys: checkpoints and consistency proofs,
    and whether the input is ``partial``, not the whole log from leaf 0 (a filtered
    export, or one bundle): then leaves missing around its lines are expected."""

    checkpoint: Checkpoint | None = None
    previous: Checkpoint | None = None
    proofs: dict[tuple[int, int], log.ConsistencyProof] = field(default_factory=dict)
    partial: bool = False

    def proof(self, first: int, second: int) -> log.ConsistencyProof | None:
        return self.proofs.get((first, second))


class Across:
    """(15)-(17) across the bundles of an export, taken in input order."""

    def __init__(self, pinned: Pinned) -> None:
        self.pinned = pinned
        self.findings: list[Finding] = []
        self.next_leaf: int | None = None if pinned.partial else 0  # the whole log: from 0
        self.tree: log.RootBuilder | None = log.RootBuilder()
        self.roots: dict[int, bytes] = {}  # checkpoint size -> root, as signed
        self.proven: set[int] = set()  # sizes whose root the export's leaves reproduce
        self.decided: set[int] = set()  # sizes whose root was compared with the leaves
        self.last_head: dict[str, tuple[int, bytes]] = {}
        self.ends: dict[str, bundle.Link] = {}  # each table's last head, and its state
        self.outside: dict[int, bytes] = {}  # other checkpoints the bundles name
        for point in (pinned.checkpoint, pinned.previous):
            if point is not None:
                self._signed_root(point.size, point.root_hash, log.Place())

    def _find(self, code: str, result: bundle.Result | None, reason: str) -> None:
        table, round_id = (result.table, result.round) if result else (None, None)
        self.findings.append(Finding(code, table, round_id, None, reason))

    def add(self, result: bundle.Result) -> None:
        self._leaf(result)
        if result.checkpoint_size is not None and result.checkpoint_root is not None:
            place = log.Place(result.table, result.round)
            self._signed_root(result.checkpoint_size, result.checkpoint_root, place)
        if result.start is None:
            self._same_history(result)
        else:
            self._joined(result, result.start)
        if result.table is not None and result.heads:
            self.last_head[result.table] = result.heads[-1]
        if result.table is not None and result.end is not None:
            self.ends[result.table] = result.end
        pinned = self.pinned.checkpoint
        if pinned is not None and result.leaf_index is not None:
            self._in_pinned(pinned, result)

    def _in_pinned(self, pinned: Checkpoint, result: bundle.Result) -> None:
        # (15) the round is in the required checkpoint (linked to it after the stream)
        size, root = result.checkpoint_size, result.checkpoint_root
        if result.leaf_index is not None and result.leaf_index >= pinned.size:
            reason = f"leaf {result.leaf_index} is past the checkpoint's size {pinned.size}"
            self._find("log.not_in_checkpoint", result, reason)
        elif size is not None and root is not None and size != pinned.size:
            self.outside[size] = root

    def _leaf(self, result: bundle.Result) -> None:
        # (15) every leaf, in order, none missing
        index = result.leaf_index
        if index is None or result.head is None:
            self.tree = None
            return
        if self.next_leaf is None:
            self.next_leaf = index
            if index != 0:
                self.tree = None
        if index < self.next_leaf:
            self._find("log.order", result, f"leaf {index} after leaf {self.next_leaf - 1}")
            return
        if index > self.next_leaf:
            if not self.pinned.partial:
                reason = f"leaves {self.next_leaf}..{index - 1} are missing from the export"
                self._find("log.round_missing", result, reason)
            self.tree = None
        self.next_leaf = index + 1
        if self.tree is not None:
            self.tree.append(merkle.leaf_hash(result.head))
            self._compare_root(self.tree.size, result)

    def _signed_root(self, size: int, root: bytes, place: log.Place) -> None:
        # (17) two signed checkpoints of one size must agree
        known = self.roots.get(size)
        if known is not None and known != root:
            self.findings.append(place.finding("checkpoint.fork", f"two roots for size {size}"))
            return
        self.roots[size] = root
        if self.tree is not None and self.tree.size == size:
            self._compare_root(size, None)

    def _compare_root(self, size: int, result: bundle.Result | None) -> None:
        signed = self.roots.get(size)
        if signed is None or self.tree is None:
            return
        self.decided.add(size)
        if signed == self.tree.root():
            self.proven.add(size)
            return
        reason = f"the export's leaves do not make the signed root of size {size}"
        previous = self.pinned.previous
        code = (
            "checkpoint.inconsistent" if previous and previous.size == size else "log.round_missing"
        )
        self._find(code, result, reason)

    def _same_history(self, result: bundle.Result) -> None:
        # (17) a table's later bundle contains its earlier bundle's head, at the same seq
        if result.table is None or not result.heads:
            return
        earlier = self.last_head.get(result.table)
        if earlier is not None and earlier not in set(result.heads):
            reason = f"does not contain seq {earlier[0]} of the table's earlier bundle"
            self._find("export.fork", result, reason)

    def _joined(self, result: bundle.Result, start: bundle.Link) -> None:
        # (17) a bundle that starts at a table_state starts where the table's previous
        # bundle ended, with the state that bundle's replay ended in
        end = self.ends.get(result.table or "")
        if end is None:
            if not self.pinned.partial:  # the whole log: the table's events from seq 0
                reason = f"the table's first bundle starts at seq {start.seq}, not at seq 0"
                self._find("export.link", result, reason)
            return  # with --partial, it proves its round from its state
        linked = hmac.compare_digest(start.hash, end.hash)
        if start.seq != end.seq + 1 or not linked or start.time < end.time:
            reason = (
                f"starts at seq {start.seq} after hash {start.hash[:16]}, time {start.time}; the "
                f"table's previous bundle ends at seq {end.seq}, hash {end.hash[:16]}, "
                f"time {end.time}"
            )
            self._find("export.link", result, reason)
        elif end.state is not None and not hmac.compare_digest(start.state or b"", end.state):
            reason = (
                f"its table_state at seq {start.seq} is not the state of the previous bundle's end"
            )
            self._find("export.state", result, reason)

    def finish(self) -> None:
        pinned, previous = self.pinned.checkpoint, self.pinned.previous
        if pinned is not None and pinned.size not in self.proven:
            self._by_proofs(pinned)
        if pinned is not None and previous is not None:
            self._consistent(previous, pinned)

    def _by_proofs(self, pinned: Checkpoint) -> None:
        """Rounds whose bundles name another checkpoint: a consistency proof links them."""
        whole = self.tree is not None and not self.pinned.partial
        if whole and self.next_leaf is not None and self.next_leaf < pinned.size:
            reason = f"the export ends at leaf {self.next_leaf - 1} of {pinned.size}"
            self._find("log.round_missing", None, reason)
        for size, root in self.outside.items():
            own = Checkpoint(pinned.origin, size, root)
            old, new = (own, pinned) if size < pinned.size else (pinned, own)
            if old.size in self.decided and new.size in self.decided:
                continue
            problem = log.check_consistency(old, new, self.pinned.proof(old.size, new.size))
            if problem is not None:
                self.findings.append(problem)

    def _consistent(self, previous: Checkpoint, pinned: Checkpoint) -> None:
        both = previous.size in self.decided and pinned.size in self.decided
        if both and previous.size <= pinned.size:
            return  # both roots were compared with the export's own leaves
        proof = self.pinned.proof(previous.size, pinned.size)
        problem = log.check_consistency(previous, pinned, proof)
        if problem is not None:
            self.findings.append(problem)


def verify(
    lines: Iterable[Line],
    trust: Trust,
    pinned: Pinned,
    jobs: int = 1,
    on_result: Callable[[bundle.Result], Any] | None = None,
) -> Report:
    """Every line's bundle, then the checks across bundles; findings in input order."""
    report, across = Report(), Across(pinned)
    for result in results(lines, trust, jobs):
        report.add(result.findings)
        report.rounds += 1
        report.events += result.events
        across.add(result)
        if on_result is not None:
            on_result(result)
    across.finish()
    report.add(across.findings)
    return report


def verify_alone(obj: Any, duplicates: bool, trust: Trust, pinned: Pinned, report: Report) -> None:
    """A bundle read whole (``duplicates``: its reader noted a member name twice), not as a
    line of an export, into ``report``: every step, then (15)-(17) against the pinned
    checkpoints, the bundle one leaf of the log. A problem that stops its checks is told
    as of an export's line 1."""
    result = _alone(obj, duplicates, trust)
    across = Across(replace(pinned, partial=True))
    across.add(result)
    across.finish()
    report.add([*result.findings, *across.findings])
    report.rounds += 1
    report.events += result.events


def _alone(obj: Any, duplicates: bool, trust: Trust) -> bundle.Result:
    if duplicates:  # (0) in a signed event, step (2) reports it
        try:
            refuse_duplicates_outside(obj, "events")
        except InputError as e:
            return _unusable(1, e)
    try:
        return bundle.check(obj, trust, bundle.Context(duplicates)).result
    except Exception as e:  # never a traceback, whatever the input holds
        return _failed(1, e)
