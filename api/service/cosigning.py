"""Collecting witnesses' cosignatures of the log's checkpoints, off the request path
(SPEC 10.5, 13.3).

One thread a witness. Woken when this process commits a write, and every second for the
checkpoints other processes sign, it sends the latest checkpoint with a consistency proof
from the size the witness last cosigned (C2SP tlog-witness), at most once every INTERVAL_S
(one request covers every head logged before it), checks the cosignature it gets back, and
keeps it beside the checkpoint. A witness that is down or
slow holds up only its own thread, never a request; one that refuses is logged loudly. After
a failure the thread waits longer each time before trying that witness again.
"""

import http.client
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from fairdeal.cosignature import BadCosignatureError
from fairdeal.note import parse_signature_line, read_note
from fairdeal.witnessing import (
    TLOG_SIZE_TYPE,
    MalformedResponseError,
    format_add_checkpoint,
    parse_cosignature_lines,
    parse_tlog_size,
)

from ..storage import CheckpointRow, StorageUnavailableError, Store
from .config import WitnessConfig
from .transparency import TransparencyLog

log = logging.getLogger("fairdeal.witness")
POLL_S = 1.0
INTERVAL_S = 0.2  # at most one request a witness an interval: each covers every head before it
MAX_BACKOFF_S = 30
_MAX_ANSWER = 64 * 1024


@dataclass(frozen=True)
class Answer:
    status: int
    content_type: str
    text: str


class WitnessUnreachableError(Exception):
    """No answer from the witness (refused, reset, timed out, or not HTTP)."""


class WitnessConnection:
    """One kept-alive HTTP connection to a witness's submission prefix."""

    def __init__(self, url: str, timeout_s: float) -> None:
        parts = urlsplit(url)
        kind = (
            http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        )
        self._connection = kind(parts.netloc, timeout=timeout_s)
        self._path = parts.path.rstrip("/") + "/add-checkpoint"

    def add_checkpoint(self, body: bytes) -> Answer:
        try:
            self._connection.request(
                "POST", self._path, body, {"Content-Type": "text/plain; charset=utf-8"}
            )
            response = self._connection.getresponse()
            data = response.read(_MAX_ANSWER + 1)
        except (OSError, http.client.HTTPException) as e:
            self._connection.close()  # the next request opens a new one
            raise WitnessUnreachableError(str(e) or type(e).__name__) from e
        if len(data) > _MAX_ANSWER:
            self._connection.close()
            raise WitnessUnreachableError("an answer larger than 64 KiB")
        content_type = response.getheader("Content-Type", "").split(";")[0].strip()
        return Answer(response.status, content_type, data.decode("utf-8", "replace"))

    def close(self) -> None:
        self._connection.close()


@dataclass(frozen=True)
class Counters:
    """What the collector tells the metrics: a kept cosignature, a failure by its reason."""

    cosigned: Callable[[str], None] = lambda witness: None
    failed: Callable[[str, str], None] = lambda witness, reason: None


class Collector:
    """A thread a witness, each sending the latest checkpoint when woken."""

    def __init__(
        self,
        store: Store,
        log_: TransparencyLog,
        witnesses: tuple[WitnessConfig, ...],
        timeout_s: float,
        *,
        clock: Callable[[], int],
        counters: Counters = Counters(),
    ) -> None:
        self._stopping = threading.Event()
        shared = _Shared(store, log_, timeout_s, counters, clock, self._stopping, Schedule())
        self._loops = [_WitnessLoop(w, shared) for w in witnesses]
        for loop in self._loops:
            loop.start()

    def wake(self) -> None:
        """A write was committed: the log may have a new checkpoint."""
        for loop in self._loops:
            loop.wake.set()

    def flush(self, timeout_s: float) -> bool:
        """Wake every witness's thread and wait until each has sent (or found nothing to
        send) what is committed now; False if one did not finish within ``timeout_s``."""
        targets = [loop.request_pass() for loop in self._loops]
        return all(
            loop.wait_for_pass(target, timeout_s)
            for loop, target in zip(self._loops, targets, strict=True)
        )

    def stop(self) -> None:
        self._stopping.set()
        self.wake()
        for loop in self._loops:
            loop.join()


@dataclass(frozen=True)
class _Shared:
    """What every witness's thread uses."""

    store: Store
    log: TransparencyLog
    timeout_s: float
    counters: Counters
    clock: Callable[[], int]
    stopping: threading.Event
    schedule: "Schedule"


class Schedule:
    """The size every witness is sent in one interval of INTERVAL_S (the latest when the
    interval's first request is made), so that while the log grows the witnesses cosign
    the same checkpoints, and a quorum's cosignatures meet on one of them."""

    def __init__(self, seconds: Callable[[], float] = time.monotonic) -> None:
        self._seconds = seconds
        self._lock = threading.Lock()
        self._interval, self._size = -1, 0

    def size(self, latest: int) -> int:
        interval = int(self._seconds() // INTERVAL_S)
        with self._lock:
            if interval != self._interval:
                self._interval, self._size = interval, latest
            return self._size


class _WitnessLoop(threading.Thread):
    def __init__(self, witness: WitnessConfig, shared: _Shared) -> None:
        super().__init__(name=f"fairdeal-witness-{witness.verifier.name}", daemon=True)
        self.witness, self.name_ = witness, witness.verifier.name
        self.store, self.log, self.counters = shared.store, shared.log, shared.counters
        self.stopping, self.clock, self.schedule = shared.stopping, shared.clock, shared.schedule
        self.connection = WitnessConnection(witness.url, shared.timeout_s)
        self.wake = threading.Event()
        self.passes = threading.Condition()
        self.requested = self.done = 0  # passes asked for by flush(), and the last one run
        self.at: int | None = None  # the size the witness last cosigned, as it said
        self.behind: int | None = None  # a size it cosigned with its clock behind the log's
        self.cosigned: int | None = None  # the size whose cosignature by it is kept
        self.failures = 0  # in a row: each doubles the wait before the next try, up to MAX
        self.retry_at = 0.0  # time.monotonic() before which only flush() sends
        self.sent_at = -INTERVAL_S  # when the last request was sent (time.monotonic())

    def run(self) -> None:
        timeout = POLL_S
        while not self.stopping.is_set():
            self.wake.wait(timeout)
            self.wake.clear()
            if self.stopping.is_set():
                break
            with self.passes:
                serving = self.requested
                forced = serving > self.done
            next_interval = (self.sent_at // INTERVAL_S + 1) * INTERVAL_S
            hold = max(self.retry_at, next_interval) - time.monotonic()
            if hold > 0 and not forced:
                timeout = min(hold, POLL_S)  # back when the hold ends (flush() sooner)
                continue
            timeout = POLL_S
            try:
                self.submit_latest(now=forced)
            except StorageUnavailableError as e:
                log.warning("witness %s: the database is unavailable: %s", self.name_, e)
            except Exception:
                self.counters.failed(self.name_, "bug")
                log.exception("witness %s: submitting a checkpoint failed", self.name_)
            with self.passes:
                self.done = serving
                self.passes.notify_all()
        with self.passes:  # no pass will run again: nobody waits for one
            self.done = self.requested
            self.passes.notify_all()
        self.connection.close()

    def request_pass(self) -> int:
        with self.passes:
            self.requested += 1
            self.wake.set()
            return self.requested

    def wait_for_pass(self, target: int, timeout_s: float) -> bool:
        with self.passes:
            return self.passes.wait_for(lambda: self.done >= target, timeout_s)

    def submit_latest(self, now: bool = False) -> None:
        """Send the checkpoint of this interval (``now``: the latest) unless the witness has
        cosigned it for us; after a 409 that says where the witness stands, again from there
        (a fork is a 422, or, from a witness of tlog-witness v1.0.0, a 409 at the size just
        sent: either is a refusal)."""
        for _ in range(3):
            with self.store.reader() as txn:
                latest = txn.latest_checkpoint()
                if latest is None:
                    return
                size = latest.size if now else self.schedule.size(latest.size)
                if self.behind is not None:  # the same again, until the witness's clock passes it
                    latest = txn.checkpoint(self.behind) or latest
                elif (self.at or 0) < size < latest.size:
                    latest = txn.checkpoint(size) or latest
                if latest.size == self.cosigned:
                    return
                old = self.at or 0
                if old > latest.size:
                    self._refused("ahead", f"it cosigned size {old}; this log has {latest.size}")
                    return
                tree = self.log.tree(txn)
                proof = tree.consistency_proof(old, latest.size) if 0 < old < latest.size else []
            self.sent_at = time.monotonic()
            try:
                answer = self.connection.add_checkpoint(
                    format_add_checkpoint(old, proof, latest.note)
                )
            except WitnessUnreachableError as e:
                self._failed("unreachable", str(e), logging.WARNING)
                return
            if answer.status == 200:
                self._keep(latest, answer.text)
                return
            if answer.status == 503:  # busy a moment (its database locked): not a refusal
                self._failed("busy", answer.text.strip()[:200], logging.WARNING)
                return
            at = self._size_in(answer) if answer.status == 409 else None
            if at is None or at == old:
                self._refused(str(answer.status), answer.text.strip()[:200])
                return
            self.at = at

    def _size_in(self, answer: Answer) -> int | None:
        """The witness's size in a 409 that states it, else None."""
        if answer.content_type != TLOG_SIZE_TYPE:
            return None
        try:
            return parse_tlog_size(answer.text)
        except MalformedResponseError:
            return None

    def _keep(self, checkpoint: CheckpointRow, text: str) -> None:
        """Keep the witness's valid cosignatures of ``checkpoint``: those of a time at or
        after the checkpoint was signed (so at or after every head it covers was logged).
        A witness whose clock runs behind the log's is asked again, after a backoff, until
        its clock has passed that time: its cosignature would otherwise say that it vouched
        for the heads before they were logged, and every bundle would fail `witness.time`."""
        size = checkpoint.size
        lines = self._cosignatures(checkpoint.note, text)
        if not lines:
            self._refused("200", "no valid cosignature by its key in the answer")
            return
        self.at = size  # the witness holds this size now, whatever its clock
        timely = [(line, t) for line, t in lines if t * 1000 + 999 >= checkpoint.signed_at]
        if not timely:
            behind_ms = checkpoint.signed_at - max(t for _, t in lines) * 1000
            detail = (
                f"its cosignature of size {size} is timed {behind_ms} ms before the log signed "
                "that checkpoint: its clock is behind the log's; asking again"
            )
            self.behind = size
            self._failed("clock_behind", detail, logging.WARNING)
            return
        self.behind = None
        with self.store.transaction() as txn:
            for line, timestamp in timely:
                txn.put_cosignature(size, self.name_, line, timestamp, self.clock())
        self.cosigned = size
        self.counters.cosigned(self.name_)
        if self.failures:
            log.info("witness %s cosigns again after %d failures", self.name_, self.failures)
        self.failures, self.retry_at = 0, 0.0

    def _cosignatures(self, note: str, text: str) -> list[tuple[str, int]]:
        """The lines of ``text`` that are this witness's valid cosignatures of ``note``,
        with their times."""
        try:
            lines = parse_cosignature_lines(text)
        except MalformedResponseError as e:
            log.error("witness %s answered 200 with no signature lines: %s", self.name_, e)
            return []
        body, _ = read_note(note)
        verifier = self.witness.verifier
        valid = []
        for line in lines:
            name, key_id, signature = parse_signature_line(line[:-1])
            if (name, key_id) != (verifier.name, verifier.key_id):
                continue  # another key's: C2SP says to ignore it
            try:
                timestamp = verifier.verify(body, key_id + signature)
            except BadCosignatureError as e:
                log.error("witness %s sent a bad cosignature: %s", self.name_, e)
                continue
            if timestamp == 0:  # tlog-witness: a witness's cosignature MUST NOT omit its time
                log.error("witness %s sent a cosignature of time 0: not kept", self.name_)
                continue
            valid.append((line, timestamp))
        return valid

    def _refused(self, reason: str, detail: str) -> None:
        """A refusal is evidence: the log and the witness disagree, or are misconfigured."""
        self._failed(reason, f"refused the log's checkpoint: {detail}", logging.ERROR)

    def _failed(self, reason: str, detail: str, level: int) -> None:
        """Count and log a failure, and wait longer before the next try: 1 s, 2 s, 4 s ...
        up to MAX_BACKOFF_S, so a witness down or refusing is logged a few times a minute,
        not once a write."""
        self.failures += 1
        self.retry_at = time.monotonic() + min(2 ** (self.failures - 1), MAX_BACKOFF_S)
        self.counters.failed(self.name_, reason)
        log.log(
            level, "witness %s (%s, %d in a row): %s", self.name_, reason, self.failures, detail
        )
