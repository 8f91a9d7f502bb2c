"""Storage: one small interface, with SQLite (the embedded default) and PostgreSQL behind it.

Everything the service keeps goes through a ``Transaction``; ``Store.transaction()`` commits
when its block ends and rolls back if the block raises, so a request's events, its round
records, its Merkle leaf and its idempotency record land together or not at all.

Locking: ``lock_table`` serializes writers of one table (SQLite: the whole database is
taken by BEGIN IMMEDIATE; PostgreSQL: SELECT ... FOR UPDATE on the table's row).
``append_leaf`` and ``put_checkpoint`` take the one log lock (PostgreSQL: FOR UPDATE on
the single log row). Callers lock the table before the log, never the other way.
"""

from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol


class StorageError(Exception):
    """The database refused or failed an operation."""


class ConflictError(StorageError):
    """A write that would break a uniqueness rule (a duplicate seq, table id or leaf)."""


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


class Transaction(Protocol):
    # Tables
    def create_table(self, table_id: str, game: str, created_at: int) -> None: ...
    def lock_table(self, table_id: str) -> TableRow | None: ...
    def set_deadline(self, table_id: str, deadline: int | None) -> None: ...
    def due_tables(self, now: int, limit: int) -> list[str]: ...

    # Events: signed event JSON objects, appended with seq = the table's next seq.
    def append_events(self, table_id: str, events: list[dict[str, Any]]) -> None: ...
    def events(self, table_id: str, from_seq: int = 0) -> list[dict[str, Any]]: ...
    def round_events(self, table_id: str, round_id: str) -> list[dict[str, Any]]: ...

    # Rounds: the server seed is kept from the commitment until (and after) the reveal.
    def put_round(
        self, round_id: str, table_id: str, number: int, server_seed: bytes, opened_at: int
    ) -> None: ...
    def get_round(self, round_id: str) -> RoundRow | None: ...
    def finish_round(
        self, round_id: str, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None: ...

    # Tables' heads at rest (no round open), each a leaf of the Merkle log.
    def put_table_head(
        self, table_id: str, seq: int, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None: ...
    def table_head(self, table_id: str, seq: int | None) -> HeadRow | None: ...
    def logged_heads(
        self,
        since: int | None,
        until: int | None,
        table_id: str | None,
        after_leaf: int,
        limit: int,
    ) -> list[HeadRow]: ...

    # Seat tokens, stored hashed.
    def put_token(self, table_id: str, seat: int, token_hash: bytes) -> None: ...
    def seat_for_token(self, table_id: str, token_hash: bytes) -> int | None: ...

    # Idempotency keys, per table.
    def get_idempotent(self, table_id: str, key: str) -> IdempotencyRow | None: ...
    def put_idempotent(self, table_id: str, key: str, row: IdempotencyRow) -> None: ...

    # The Merkle log of heads (RFC 9162 leaf hashes), one per deployment.
    def append_leaf(self, leaf_hash: bytes, round_id: str | None) -> int: ...
    def leaf_hashes(self, start: int, end: int) -> list[bytes]: ...
    def log_size(self) -> int: ...
    def put_checkpoint(self, row: CheckpointRow) -> None: ...
    def latest_checkpoint(self) -> CheckpointRow | None: ...


class Store(Protocol):
    def migrate(self) -> None: ...
    def transaction(self) -> AbstractContextManager[Transaction]: ...
    def close(self) -> None: ...


def open_store(url: str) -> Store:
    """A store for ``sqlite:///path`` or ``postgresql://...``."""
    if url.startswith("sqlite:///"):
        from api.storage.sqlite import SqliteStore

        return SqliteStore(url.removeprefix("sqlite:///"))
    if url.startswith(("postgresql://", "postgres://")):
        from api.storage.postgres import PostgresStore

        return PostgresStore(url)
    raise ValueError("FAIRDEAL_DATABASE_URL must start with sqlite:/// or postgresql://")
