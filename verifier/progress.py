"""A one-line progress bar on standard error, drawn only when it is a terminal."""

import sys
import time
from typing import TextIO


class Progress:
    """Rounds and bytes done; redrawn at most ten times a second."""

    def __init__(self, total_bytes: int | None, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self.total = total_bytes
        self._last = 0.0
        self._start = time.monotonic()

    def update(self, rounds: int, done_bytes: int) -> None:
        now = time.monotonic()
        if not self.enabled or now - self._last < 0.1:
            return
        self._last = now
        rate = rounds / max(now - self._start, 1e-9)
        if self.total:
            share = min(done_bytes / self.total, 1.0)
            bar = "#" * int(share * 30)
            text = f"[{bar:<30}] {share:6.1%}  {rounds} rounds  {rate:,.0f}/s"
        else:
            text = f"{rounds} rounds  {rate:,.0f}/s"
        self.stream.write("\r" + text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self._last:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
