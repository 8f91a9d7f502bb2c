"""Queries on ``rounds``: each round's server seed from its commitment on, and its end."""

from typing import Any

from . import ConflictError, RoundRow
from .queries import Queries, optional_bytes

_ROUND_COLUMNS = (
    "round_id, table_id, number, server_seed, opened_at, finished_at, head_hash, leaf_index"
)


class RoundQueries(Queries):
    def put_round(
        self, round_id: str, table_id: str, number: int, server_seed: bytes, opened_at: int
    ) -> None:
        self._insert(
            "rounds",
            round_id=round_id,
            table_id=table_id,
            number=number,
            server_seed=server_seed,
            opened_at=opened_at,
        )

    def get_round(self, round_id: str) -> RoundRow | None:
        row = self._run(
            "SELECT " + _ROUND_COLUMNS + " FROM rounds WHERE round_id = ?",  # noqa: S608
            (round_id,),
        ).fetchone()
        return None if row is None else _round_row(row)

    def finish_round(
        self, round_id: str, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None:
        """Record a round's end once; finishing it again is a conflict, never an overwrite."""
        cursor = self._run(
            "UPDATE rounds SET head_hash = ?, leaf_index = ?, finished_at = ?"
            " WHERE round_id = ? AND finished_at IS NULL",
            (head_hash, leaf_index, finished_at, round_id),
        )
        if cursor.rowcount == 0:
            if self.get_round(round_id) is None:
                raise ValueError(f"no round {round_id!r}")
            raise ConflictError(f"round {round_id!r} is already finished")


def _round_row(row: Any) -> RoundRow:
    round_id, table_id, number, seed, opened_at, finished_at, head_hash, leaf_index = row
    head = optional_bytes(head_hash)
    return RoundRow(
        round_id, table_id, number, bytes(seed), opened_at, finished_at, head, leaf_index
    )
