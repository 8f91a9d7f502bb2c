"""The tables both backends keep: their DDL, and ``migrate()``, which brings a database to it.

The DDL is written once, in the subset SQLite and PostgreSQL agree on; the byte type is the
one place the dialects differ (``BLOB`` / ``BYTEA``). Every schema change is a new step at the
end of ``_MIGRATIONS``; a released step is never edited. ``migrate`` runs the missing steps
inside one transaction that the backend has already made exclusive, so two processes starting
at once apply each step once. The queries that read and write these tables are in the modules
named for what they keep (``tables``, ``events``, ``rounds``, ``heads``, ``seats``,
``idempotency``, ``log``).
"""

from . import StorageError
from .queries import Dialect, Queries

_BYTES_TYPE: dict[Dialect, str] = {"sqlite": "BLOB", "postgresql": "BYTEA"}

# Step n of this tuple brings the schema from version n - 1 to version n.
_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """CREATE TABLE tables (
            table_id TEXT PRIMARY KEY,
            game TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            next_deadline BIGINT
        )""",
        "CREATE INDEX tables_next_deadline ON tables (next_deadline)",
        """CREATE TABLE events (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seq BIGINT NOT NULL,
            round_id TEXT,
            time BIGINT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (table_id, seq)
        )""",
        "CREATE INDEX events_round ON events (table_id, round_id, seq)",
        """CREATE TABLE rounds (
            round_id TEXT PRIMARY KEY,
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            number BIGINT NOT NULL,
            server_seed {bytes} NOT NULL,
            opened_at BIGINT NOT NULL,
            finished_at BIGINT,
            head_hash {bytes},
            leaf_index BIGINT UNIQUE
        )""",
        "CREATE INDEX rounds_table_leaf ON rounds (table_id, leaf_index)",
        """CREATE TABLE seat_tokens (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seat INTEGER NOT NULL,
            token_hash {bytes} NOT NULL,
            PRIMARY KEY (table_id, seat),
            UNIQUE (table_id, token_hash)
        )""",
        """CREATE TABLE idempotency (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            key TEXT NOT NULL,
            request_hash {bytes} NOT NULL,
            status INTEGER NOT NULL,
            response TEXT NOT NULL,
            PRIMARY KEY (table_id, key)
        )""",
        """CREATE TABLE leaves (
            leaf_index BIGINT PRIMARY KEY,
            leaf_hash {bytes} NOT NULL,
            round_id TEXT NOT NULL UNIQUE REFERENCES rounds (round_id)
        )""",
        """CREATE TABLE checkpoints (
            size BIGINT PRIMARY KEY,
            root_hash {bytes} NOT NULL,
            note TEXT NOT NULL,
            signed_at BIGINT NOT NULL
        )""",
        """CREATE TABLE log_state (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            size BIGINT NOT NULL
        )""",
        "INSERT INTO log_state (id, size) VALUES (1, 0)",
    ),
    (
        # A leaf is a round's head or a table's head at rest (no round open): round_id may
        # be null, and table heads get their own rows.
        """CREATE TABLE leaves_v2 (
            leaf_index BIGINT PRIMARY KEY,
            leaf_hash {bytes} NOT NULL,
            round_id TEXT UNIQUE REFERENCES rounds (round_id)
        )""",
        "INSERT INTO leaves_v2 (leaf_index, leaf_hash, round_id)"
        " SELECT leaf_index, leaf_hash, round_id FROM leaves",
        "DROP TABLE leaves",
        "ALTER TABLE leaves_v2 RENAME TO leaves",
        """CREATE TABLE table_heads (
            leaf_index BIGINT PRIMARY KEY,
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            seq BIGINT NOT NULL,
            head_hash {bytes} NOT NULL,
            finished_at BIGINT NOT NULL,
            UNIQUE (table_id, seq)
        )""",
    ),
    (
        # Idempotency keys are each caller's own: the caller is the hash of the seat token
        # that sent the request. Keys kept before have the empty caller (LEGACY_CALLER).
        """CREATE TABLE idempotency_v3 (
            table_id TEXT NOT NULL REFERENCES tables (table_id),
            caller {bytes} NOT NULL,
            key TEXT NOT NULL,
            request_hash {bytes} NOT NULL,
            status INTEGER NOT NULL,
            response TEXT NOT NULL,
            PRIMARY KEY (table_id, caller, key)
        )""",
        "INSERT INTO idempotency_v3 (table_id, caller, key, request_hash, status, response)"
        " SELECT table_id, CAST('' AS {bytes}), key, request_hash, status, response"
        " FROM idempotency",
        "DROP TABLE idempotency",
        "ALTER TABLE idempotency_v3 RENAME TO idempotency",
    ),
    (
        # Witnesses' cosignatures of signed checkpoints (SPEC 10.5): one line a witness a size,
        # its time (the witness's, POSIX seconds) and when the service kept it (ms).
        """CREATE TABLE cosignatures (
            size BIGINT NOT NULL REFERENCES checkpoints (size),
            witness TEXT NOT NULL,
            line TEXT NOT NULL,
            cosigned_at BIGINT NOT NULL,
            kept_at BIGINT NOT NULL,
            PRIMARY KEY (size, witness)
        )""",
    ),
)
VERSION = len(_MIGRATIONS)
# The caller of idempotency keys kept before schema version 3, when keys were per table.
LEGACY_CALLER = b""


def migrate(tx: Queries, upto: int = VERSION) -> None:
    """Bring the schema to version ``upto`` (by default the latest) inside ``tx``, which the
    caller has made exclusive."""
    tx._run("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY)")
    found = tx._run("SELECT MAX(version) FROM schema_version").fetchone()[0] or 0
    if found > VERSION:
        raise StorageError(f"the database has schema version {found}; this code knows {VERSION}")
    for version in range(found + 1, upto + 1):
        for statement in _MIGRATIONS[version - 1]:
            tx._run(statement.format(bytes=_BYTES_TYPE[tx.DIALECT]))
        tx._run("INSERT INTO schema_version (version) VALUES (?)", (version,))
