"""Storage: one small interface, with SQLite (the embedded default) and PostgreSQL behind it.

Everything the service keeps goes through a ``Transaction``; ``Store.transaction()`` commits
when its block ends and rolls back if the block raises, so a request's events, its round
records, its Merkle leaf and its idempotency record land together or not at all.

Locking: ``lock_table`` serializes writers of one table (SQLite: the whole database is
taken by BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE on the table's row).
``append_leaf`` and ``put_checkpoint`` take the one log lock (PostgreSQL: FOR UPDATE on
the single log row). Callers lock the table before the log, never the other way.

Reads go through ``Store.reader()``: a read-only snapshot (SQLite: a deferred transaction
in WAL mode; PostgreSQL: REPEATABLE READ, READ ONLY) that takes no lock, so a reader never
waits for a writer and no writer waits for a reader.

Below this interface: ``schema`` (the DDL and ``migrate``), a query module for each thing kept
(``tables``, ``events``, ``rounds``, ``heads``, ``seats``, ``idempotency``, ``log``, on the
base in ``queries``), put together as ``sql.SqlTransaction``, which the backends ``sqlite``
and ``postgres`` run.
"""

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol


class StorageError(Exception):
    """The database refused or failed an operation."""


class ConflictError(StorageError):
    """A write that would break a uniqueness rule (a duplicate seq, table id or leaf)."""


class StorageUnavailableError(StorageError):
    """The database cannot do the work for now: its connection was lost or refused, its disk
    is full or read-only, or its lock was held past the busy timeout. The transaction was
    rolled back (unless the failure came at its COMMIT: the subclass below); the same work may
    succeed later."""


class CommitOutcomeUnknownError(StorageUnavailableError):
    """The database became unavailable during COMMIT: the transaction may have been stored
    or not."""


@contextmanager
def committing() -> Iterator[None]:
    """Around a COMMIT: any failure there but a conflict leaves the outcome unknown (the
    connection lost before the answer came; SQLite failing the checkpoint that follows a
    commit)."""
    try:
        yield
    except ConflictError:
        raise
    except StorageError as e:
        raise CommitOutcomeUnknownError(f"during COMMIT: {first_line(e)}") from e


@contextmanager
def mapped_errors(
    integrity: type[Exception], error: type[Exception], unavailable: Callable[[Any], bool]
) -> Iterator[None]:
    """A driver's errors as this module's: ``integrity`` ones as conflicts, the others as
    unavailability where ``unavailable`` says so, else as plain storage errors."""
    try:
        yield
    except integrity as e:
        raise ConflictError(str(e)) from e
    except error as e:
        if unavailable(e):
            raise StorageUnavailableError(first_line(e)) from e
        raise StorageError(str(e)) from e


def first_line(error: Exception) -> str:
    """A driver's message, often several lines of hints, as one line for a log."""
    return next(iter(str(error).strip().splitlines()), type(error).__name__)


# A time in ms since the epoch, or None: no bound.
TimeBound = int | None


@dataclass(frozen=True)
class TableRow:
    table_id: str
    game: str
    created_at: int
    next_deadline: int | None


@dataclass(frozen=True)
class RoundRow:
    round_id: str
    table_id: str
    number: int
    server_seed: bytes
    opened_at: int
    finished_at: int | None
    head_hash: bytes | None
    leaf_index: int | None


@dataclass(frozen=True)
class HeadRow:
    """A leaf of the Merkle log and what it covers: a round's head (``round_id``) or a
    table's head at rest (``round_id`` None, ``seq`` the head event's seq)."""

    leaf_index: int
    table_id: str
    round_id: str | None
    seq: int | None
    head_hash: bytes


@dataclass(frozen=True)
class IdempotencyRow:
    request_hash: bytes
    status: int
    response: dict[str, Any]


@dataclass(frozen=True)
class CheckpointRow:
    size: int
    root_hash: bytes
    note: str
    signed_at: int


class Reader(Protocol):
    """What a read-only snapshot answers."""

    def table_row(self, table_id: str) -> TableRow | None: ...
    def due_tables(self, now: int, limit: int) -> list[str]: ...

    # Events: signed event JSON objects, by seq.
    def events(
        self, table_id: str, from_seq: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]: ...
    def events_between(
        self, table_id: str, first_seq: int, last_seq: int
    ) -> list[dict[str, Any]]: ...
    def last_seq(self, table_id: str) -> int | None: ...
    def round_events(
        self, table_id: str, round_id: str, from_seq: int = 0, limit: int | None = None
    ) -> list[dict[str, Any]]: ...
    def round_last_seq(self, table_id: str, round_id: str) -> int | None: ...
    def last_round_start(self, table_id: str) -> tuple[int, int] | None: ...

    # Rounds: the server seed is kept from the commitment until (and after) the reveal.
    def get_round(self, round_id: str) -> RoundRow | None: ...

    # Tables' heads at rest (no round open), each a leaf of the Merkle log.
    def table_head(self, table_id: str, seq: int | None) -> HeadRow | None: ...
    def previous_head(self, table_id: str, leaf_index: int) -> HeadRow | None: ...
    def logged_heads(
        self, since: TimeBound, until: TimeBound, table_id: str | None, after_leaf: int, limit: int
    ) -> list[HeadRow]: ...

    # Seat tokens, stored hashed; a vacated seat's is dropped.
    def seat_for_token(self, table_id: str, token_hash: bytes) -> int | None: ...

    # The Merkle log of heads (RFC 9162 leaf hashes), one per deployment.
    def leaf_hashes(self, start: int, end: int) -> list[bytes]: ...
    def leaf_heads(self, start: int, end: int) -> list[bytes]: ...  # each leaf's data
    def log_size(self) -> int: ...
    def latest_checkpoint(self) -> CheckpointRow | None: ...

    def checkpoint(self, size: int) -> CheckpointRow | None: ...

    def most_cosigned_size(self, min_size: int) -> int | None:
        """Of the cosigned checkpoints of ``min_size`` leaves or more, the size of the one
        with the most cosignatures (the largest of those); None when none is cosigned."""
        ...

    def cosignature_lines(self, size: int) -> list[str]:
        """The witnesses' cosignature lines kept for the checkpoint of ``size``."""
        ...


class Transaction(Reader, Protocol):
    """A read-write transaction: everything a ``Reader`` answers, and the writes."""

    # Tables
    def create_table(self, table_id: str, game: str, created_at: int) -> None: ...
    def lock_table(self, table_id: str) -> TableRow | None: ...
    def set_deadline(self, table_id: str, deadline: int | None) -> None: ...

    # Events, appended with seq = the table's next seq.
    def append_events(self, table_id: str, events: list[dict[str, Any]]) -> None: ...

    # Rounds
    def put_round(
        self, round_id: str, table_id: str, number: int, server_seed: bytes, opened_at: int
    ) -> None: ...
    def finish_round(
        self, round_id: str, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None: ...

    # Tables' heads at rest
    def put_table_head(
        self, table_id: str, seq: int, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None: ...

    # Seat tokens
    def put_token(self, table_id: str, seat: int, token_hash: bytes) -> None: ...
    def drop_token(self, table_id: str, seat: int) -> None: ...

    # Idempotency keys, each caller's own (the caller: its seat token's hash) at a table.
    def get_idempotent(self, table_id: str, caller: bytes, key: str) -> IdempotencyRow | None: ...
    def put_idempotent(
        self, table_id: str, caller: bytes, key: str, row: IdempotencyRow
    ) -> None: ...

    # The Merkle log
    def append_leaf(self, leaf_hash: bytes, round_id: str | None) -> int: ...
    def put_checkpoint(self, row: CheckpointRow) -> None: ...

    def put_cosignature(
        self, size: int, witness: str, line: str, cosigned_at: int, kept_at: int
    ) -> None:
        """Keep a witness's cosignature line of the checkpoint of ``size``, its time
        (``cosigned_at``, POSIX seconds) and when it was kept (``kept_at``, ms); a witness's
        later line for the same size is not kept (its first is the earliest)."""
        ...


class Store(Protocol):
    def migrate(self) -> None: ...
    def transaction(self) -> AbstractContextManager[Transaction]: ...
    def reader(self) -> AbstractContextManager[Reader]: ...
    def close(self) -> None: ...


def open_store(url: str) -> Store:
    """A store for ``sqlite:///path`` or ``postgresql://...``."""
    if url.startswith("sqlite:///"):
        from .sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:///"))
    if url.startswith(("postgresql://", "postgres://")):
        from .postgres import PostgresStore

        return PostgresStore(url)
    raise ValueError("FAIRDEAL_DATABASE_URL must start with sqlite:/// or postgresql://")
