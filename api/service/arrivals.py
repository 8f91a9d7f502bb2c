"""When the requests now in progress on each table arrived, in this process.

A write may wait for its table's lock: behind the table's other writers, and on SQLite behind
any writer. Each write acts at the time the earliest request still in progress on its table
arrived, so a move sent before its deadline is not refused because it waited for the lock,
and no other request or the sweeper logs that deadline's timeout while the move is waiting.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Arrivals:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._times: dict[str, list[int]] = {}

    @contextmanager
    def waiting(self, table_id: str, arrived: int) -> Iterator[None]:
        """Count a request that arrived at ``arrived`` as in progress on the table."""
        with self._lock:
            self._times.setdefault(table_id, []).append(arrived)
        try:
            yield
        finally:
            with self._lock:
                times = self._times[table_id]
                times.remove(arrived)
                if not times:
                    del self._times[table_id]

    def table_time(self, table_id: str, now: int) -> int:
        """The time a write on the table acts at: ``now``, or the arrival of the earliest
        request still in progress on it."""
        with self._lock:
            return min([now, *self._times.get(table_id, [])])

    def in_progress(self, table_id: str) -> int:
        """How many requests on the table are in progress."""
        with self._lock:
            return len(self._times.get(table_id, ()))
