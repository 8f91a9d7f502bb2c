"""--jobs N: worker processes, each with its own bounded queue of chunks of lines.

A line goes to the worker its table routes to (so the worker's memo of that table
is reused); results come back tagged with their index and leave in input order.
At most ``_QUEUED`` chunks wait per worker, which bounds memory whatever the input.
"""

import contextlib
import multiprocessing
import queue
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from .bundle import Result
from .inputs import InputError, Line
from .trust import Trust

_CHUNK = 16
_QUEUED = 4
_Chunk = list[tuple[int, Line]]


class Checker(Protocol):
    """What a worker checks its lines with: export.LineChecker, made in the worker."""

    def check(self, line: Line) -> Result: ...


def _worker(
    new_checker: Callable[[Trust], Checker],
    trust: Trust,
    tasks: "multiprocessing.Queue[_Chunk | None]",
    done: "multiprocessing.Queue[list[tuple[int, Result]]]",
) -> None:
    checker = new_checker(trust)
    while (chunk := tasks.get()) is not None:
        done.put([(index, checker.check(line)) for index, line in chunk])


def results(
    lines: Iterable[Line],
    new_checker: Callable[[Trust], Checker],
    trust: Trust,
    jobs: int,
    route: Callable[[Line], int],
) -> Iterator[Result]:
    """Each line's result in input order, checked by ``jobs`` processes, each with a checker
    of its own, ``new_checker(trust)``."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    context: Any = multiprocessing.get_context(method)  # fork: workers start at once
    done: multiprocessing.Queue[list[tuple[int, Result]]] = context.Queue()
    tasks = [context.Queue(_QUEUED) for _ in range(jobs)]
    args = [(new_checker, trust, t, done) for t in tasks]
    workers = [context.Process(target=_worker, args=a, daemon=True) for a in args]
    for worker in workers:
        worker.start()
    try:
        yield from _dispatch(lines, tasks, _Done(done, workers), route)
    finally:
        for t in tasks:
            with contextlib.suppress(queue.Full):
                t.put(None, timeout=1)
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()


def _dispatch(
    lines: Iterable[Line],
    tasks: "list[multiprocessing.Queue[_Chunk | None]]",
    done: "_Done",
    route: Callable[[Line], int],
) -> Iterator[Result]:
    pending: dict[int, Result] = {}
    chunks: list[_Chunk] = [[] for _ in tasks]
    window = len(tasks) * _CHUNK * (_QUEUED + 2)  # lines in flight, at most
    sent = next_out = 0
    for index, line in enumerate(lines):
        slot = route(line) % len(tasks)
        chunks[slot].append((index, line))
        sent = index + 1
        if len(chunks[slot]) >= _CHUNK:
            _put(tasks[slot], chunks[slot], done, pending)
            chunks[slot] = []
        if sent - next_out >= window:
            _flush(tasks, chunks, done, pending)
            while sent - next_out >= window:
                if next_out not in pending:
                    _collect(done, pending, block=True)
                while next_out in pending:
                    yield pending.pop(next_out)
                    next_out += 1
        while next_out in pending:
            yield pending.pop(next_out)
            next_out += 1
    _flush(tasks, chunks, done, pending)
    while next_out < sent:
        while next_out not in pending:
            _collect(done, pending, block=True)
        yield pending.pop(next_out)
        next_out += 1


def _flush(
    tasks: "list[multiprocessing.Queue[_Chunk | None]]",
    chunks: list[_Chunk],
    done: "_Done",
    pending: dict[int, Result],
) -> None:
    for slot, chunk in enumerate(chunks):
        if chunk:
            _put(tasks[slot], chunk, done, pending)
            chunks[slot] = []


def _put(
    task: "multiprocessing.Queue[_Chunk | None]",
    chunk: _Chunk,
    done: "_Done",
    pending: dict[int, Result],
) -> None:
    """Queue a chunk, collecting finished results while the worker's queue is full."""
    while True:
        try:
            task.put(chunk, timeout=0.05)
            break
        except queue.Full:
            _collect(done, pending, block=False)
    _collect(done, pending, block=False)


def _collect(done: "_Done", pending: dict[int, Result], block: bool) -> None:
    for index, result in done.get(block):
        pending[index] = result


class _Done:
    """The shared result queue; a blocking read notices a worker that died."""

    def __init__(self, results: Any, workers: list[Any]) -> None:
        self.results = results
        self.workers = workers

    def get(self, block: bool) -> list[tuple[int, Result]]:
        try:
            batch: list[tuple[int, Result]] = (
                self.results.get(timeout=1.0) if block else self.results.get_nowait()
            )
        except queue.Empty:
            if block and not all(worker.is_alive() for worker in self.workers):
                raise InputError("input.unreadable", "a verifier worker process died") from None
            return []
        return batch
