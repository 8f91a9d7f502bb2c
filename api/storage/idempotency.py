"""Queries on ``idempotency``: the first answer to each caller's Idempotency-Key at a table."""

import json

from . import IdempotencyRow
from .queries import Queries, dump_json
from .schema import LEGACY_CALLER


class IdempotencyQueries(Queries):
    def get_idempotent(self, table_id: str, caller: bytes, key: str) -> IdempotencyRow | None:
        """The answer kept under the caller's key. A key kept while keys were per table
        answers any caller, as it did then; its request hash covers its caller."""
        row = self._run(
            "SELECT request_hash, status, response FROM idempotency"
            " WHERE table_id = ? AND key = ? AND caller IN (?, ?)",
            (table_id, key, caller, LEGACY_CALLER),
        ).fetchone()
        return None if row is None else IdempotencyRow(bytes(row[0]), row[1], json.loads(row[2]))

    def put_idempotent(self, table_id: str, caller: bytes, key: str, row: IdempotencyRow) -> None:
        self._insert(
            "idempotency",
            table_id=table_id,
            caller=caller,
            key=key,
            request_hash=row.request_hash,
            status=row.status,
            response=dump_json(row.response),
        )
