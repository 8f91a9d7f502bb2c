"""A small connection pool shared by the backends.

A thread holds a connection only for the length of one transaction, then gives it back,
so a server that starts a thread per request reuses a few connections instead of
opening one per thread (PostgreSQL would run out of connection slots). A transaction
inside another one on the same thread is refused rather than deadlocked.

A connection whose transaction failed is closed, never reused; an idle one the backend finds
no longer usable (the database dropped it meanwhile) is closed instead of handed out.
"""

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

from . import StorageError

C = TypeVar("C")
IDLE_KEPT = 16


class Pool(Generic[C]):
    def __init__(
        self,
        connect: Callable[[], C],
        close: Callable[[C], None],
        usable: Callable[[C], bool] = lambda conn: True,
    ) -> None:
        self._connect, self._close, self._usable = connect, close, usable
        self._idle: list[C] = []
        self._lock = threading.Lock()
        self._busy = threading.local()
        self._closed = False

    @contextmanager
    def connection(self) -> Iterator[C]:
        """A connection for one transaction; a failed one is dropped, not reused."""
        if getattr(self._busy, "held", False):
            raise RuntimeError("transaction() is not re-entrant")
        conn = self._take()
        self._busy.held = True
        try:
            yield conn
        except BaseException:
            self._close(conn)
            raise
        else:
            self._give_back(conn)
        finally:
            self._busy.held = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for conn in idle:
            self._close(conn)

    def _take(self) -> C:
        while (idle := self._idle_one()) is not None:
            if self._usable(idle):
                return idle
            self._close(idle)
        return self._connect()

    def _idle_one(self) -> C | None:
        with self._lock:
            if self._closed:
                raise StorageError("the store is closed")
            return self._idle.pop() if self._idle else None

    def _give_back(self, conn: C) -> None:
        with self._lock:
            if not self._closed and len(self._idle) < IDLE_KEPT:
                self._idle.append(conn)
                return
        self._close(conn)
