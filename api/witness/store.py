"""The witness's SQLite file: the latest checkpoint it cosigned for each log, and the signed
checkpoints it refused as contradicting them (evidence of a log's misbehaviour)."""

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from fairdeal.note import Checkpoint
from fairdeal.witnessing import TreeHead

from ..storage import private_files

DATABASE_FILE = "witness.sqlite3"
_BUSY_TIMEOUT_S = 10
# Sizes go up to 2**64 - 1, past SQLite's integers: they are kept as decimal text.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS cosigned (
    origin TEXT PRIMARY KEY,
    size TEXT NOT NULL,
    root_hash BLOB NOT NULL,
    note TEXT NOT NULL,
    cosignature TEXT NOT NULL,
    cosigned_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS refused (
    id INTEGER PRIMARY KEY,
    origin TEXT NOT NULL,
    request BLOB NOT NULL,
    status INTEGER NOT NULL,
    reason TEXT NOT NULL,
    refused_at INTEGER NOT NULL
);
"""


class StoreBusyError(Exception):
    """The SQLite file stayed locked (by another process, a backup) past the busy timeout:
    nothing was done, and the same request may succeed later."""


@dataclass(frozen=True)
class Cosigned:
    """A checkpoint the witness cosigned: the note it was sent, its cosignature line, when."""

    checkpoint: Checkpoint
    note: str
    cosignature: str
    time: int


@dataclass(frozen=True)
class Refusal:
    """A signed request refused as evidence against its log."""

    origin: str
    request: bytes
    status: int
    reason: str
    time: int


class WitnessStore:
    def __init__(self, state_dir: Path) -> None:
        private_files.make_folder(state_dir)
        self.path = state_dir / DATABASE_FILE
        private_files.create_file(self.path)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # A connection per use: requests come on many threads, and each use is short.
        try:
            db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S, isolation_level=None)
            try:
                yield db
            finally:
                db.close()
        except sqlite3.OperationalError as e:
            if e.sqlite_errorcode & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise StoreBusyError(f"the witness's database is busy: {e}") from e
            raise

    def advance(self, origin: str, cosign: Callable[[TreeHead | None], Cosigned]) -> Cosigned:
        """Read the latest record of ``origin``, let ``cosign`` decide on it, and store what it
        returns, in one write transaction: two requests can never interleave and roll the
        witness back. Whatever ``cosign`` raises leaves the record as it was."""
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                record = cosign(_latest(db, origin))
                _store(db, record)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return record

    def keep_refusal(self, refusal: Refusal) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT INTO refused (origin, request, status, reason, refused_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (refusal.origin, refusal.request, refusal.status, refusal.reason, refusal.time),
            )

    def witnessed(self) -> dict[str, tuple[TreeHead, int]]:
        """Each log's latest cosigned tree head and the time it was cosigned."""
        with self._connect() as db:
            rows = db.execute("SELECT origin, size, root_hash, cosigned_at FROM cosigned")
            return {row[0]: (TreeHead(int(row[1]), row[2]), row[3]) for row in rows}

    def refusal_counts(self) -> dict[str, int]:
        with self._connect() as db:
            rows = db.execute("SELECT origin, count(*) FROM refused GROUP BY origin")
            return dict(rows.fetchall())


def _latest(db: sqlite3.Connection, origin: str) -> TreeHead | None:
    row = db.execute("SELECT size, root_hash FROM cosigned WHERE origin = ?", (origin,)).fetchone()
    return None if row is None else TreeHead(int(row[0]), row[1])


def _store(db: sqlite3.Connection, record: Cosigned) -> None:
    checkpoint = record.checkpoint
    db.execute(
        "INSERT INTO cosigned (origin, size, root_hash, note, cosignature, cosigned_at)"
        " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (origin) DO UPDATE SET size = excluded.size,"
        " root_hash = excluded.root_hash, note = excluded.note,"
        " cosignature = excluded.cosignature, cosigned_at = excluded.cosigned_at",
        (
            checkpoint.origin,
            str(checkpoint.size),
            checkpoint.root_hash,
            record.note,
            record.cosignature,
            record.time,
        ),
    )
