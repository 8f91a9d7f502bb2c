"""Queries on the Merkle log of heads: its leaves (``leaves``, dense by index under the one
``log_state`` row, the log lock), its signed checkpoints (``checkpoints``) and the
witnesses' cosignatures of them (``cosignatures``)."""

from typing import Any, ClassVar

from . import CheckpointRow
from .queries import Queries

LOG_SIZE = "SELECT size FROM log_state WHERE id = 1"
_CHECKPOINT = "SELECT size, root_hash, note, signed_at FROM checkpoints"


class LogQueries(Queries):
    _LOCK_LOG: ClassVar[str] = LOG_SIZE

    def append_leaf(self, leaf_hash: bytes, round_id: str | None) -> int:
        """Add a leaf at the next index, under the log lock, so indexes stay dense."""
        (size,) = self._run(self._LOCK_LOG).fetchone()
        self._insert("leaves", leaf_index=size, leaf_hash=leaf_hash, round_id=round_id)
        self._run("UPDATE log_state SET size = ? WHERE id = 1", (size + 1,))
        return int(size)

    def leaf_hashes(self, start: int, end: int) -> list[bytes]:
        """Leaves ``start`` to ``end - 1``; a range beyond the log is the caller's error."""
        size = self.log_size()
        if not 0 <= start <= end <= size:
            raise ValueError(f"leaf range [{start}, {end}) is not within a log of size {size}")
        rows = self._run(
            "SELECT leaf_hash FROM leaves WHERE leaf_index >= ? AND leaf_index < ?"
            " ORDER BY leaf_index",
            (start, end),
        ).fetchall()
        return [bytes(leaf_hash) for (leaf_hash,) in rows]

    def log_size(self) -> int:
        (size,) = self._run(LOG_SIZE).fetchone()
        return int(size)

    def put_checkpoint(self, row: CheckpointRow) -> None:
        """Keep a signed checkpoint; one per size, and never for a tree the log has not reached."""
        (size,) = self._run(self._LOCK_LOG).fetchone()
        if row.size > size:
            raise ValueError(f"a checkpoint of size {row.size} for a log of size {size}")
        self._insert(
            "checkpoints",
            size=row.size,
            root_hash=row.root_hash,
            note=row.note,
            signed_at=row.signed_at,
        )

    def latest_checkpoint(self) -> CheckpointRow | None:
        row = self._run(f"{_CHECKPOINT} ORDER BY size DESC LIMIT 1").fetchone()
        return None if row is None else _checkpoint_row(row)

    def checkpoint(self, size: int) -> CheckpointRow | None:
        row = self._run(f"{_CHECKPOINT} WHERE size = ?", (size,)).fetchone()
        return None if row is None else _checkpoint_row(row)

    def put_cosignature(
        self, size: int, witness: str, line: str, cosigned_at: int, kept_at: int
    ) -> None:
        self._run(
            "INSERT INTO cosignatures (size, witness, line, cosigned_at, kept_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (size, witness) DO NOTHING",
            (size, witness, line, cosigned_at, kept_at),
        )

    def most_cosigned_size(self, min_size: int) -> int | None:
        row = self._run(
            "SELECT size FROM cosignatures WHERE size >= ? GROUP BY size"
            " ORDER BY COUNT(*) DESC, size DESC LIMIT 1",
            (min_size,),
        ).fetchone()
        return None if row is None else int(row[0])

    def cosignature_lines(self, size: int) -> list[str]:
        rows = self._run(
            "SELECT line FROM cosignatures WHERE size = ? ORDER BY witness", (size,)
        ).fetchall()
        return [str(line) for (line,) in rows]


def _checkpoint_row(row: Any) -> CheckpointRow:
    size, root_hash, note, signed_at = row
    return CheckpointRow(size, bytes(root_hash), note, signed_at)
