"""Queries on the heads the Merkle log covers: tables' heads at rest (``table_heads``), and
with the rounds' heads (``rounds``), every logged head by leaf index."""

from . import HeadRow, TimeBound
from .queries import Queries

# Bounds that stand in for "no bound" on a BIGINT time column.
_MIN_TIME = -(2**63)
_MAX_TIME = 2**63 - 1


class HeadQueries(Queries):
    def put_table_head(
        self, table_id: str, seq: int, head_hash: bytes, leaf_index: int, finished_at: int
    ) -> None:
        self._insert(
            "table_heads",
            leaf_index=leaf_index,
            table_id=table_id,
            seq=seq,
            head_hash=head_hash,
            finished_at=finished_at,
        )

    def table_head(self, table_id: str, seq: int | None) -> HeadRow | None:
        """The table's head logged at ``seq``, or its latest one (None)."""
        sql = "SELECT leaf_index, table_id, seq, head_hash FROM table_heads WHERE table_id = ?"
        if seq is None:
            row = self._run(sql + " ORDER BY seq DESC LIMIT 1", (table_id,)).fetchone()
        else:
            row = self._run(sql + " AND seq = ?", (table_id, seq)).fetchone()
        if row is None:
            return None
        leaf_index, table, head_seq, head_hash = row
        return HeadRow(leaf_index, table, None, head_seq, bytes(head_hash))

    def previous_head(self, table_id: str, leaf_index: int) -> HeadRow | None:
        """The table's head logged last before the leaf ``leaf_index``, if any."""
        rounds = (
            "SELECT leaf_index, table_id, round_id, NULL, head_hash FROM rounds"
            " WHERE table_id = ? AND leaf_index < ? ORDER BY leaf_index DESC LIMIT 1"
        )
        tables = (
            "SELECT leaf_index, table_id, NULL, seq, head_hash FROM table_heads"
            " WHERE table_id = ? AND leaf_index < ? ORDER BY seq DESC LIMIT 1"
        )
        found = [
            HeadRow(index, table, round_id, seq, bytes(head))
            for sql in (rounds, tables)
            for index, table, round_id, seq, head in self._run(
                sql, (table_id, leaf_index)
            ).fetchall()
        ]
        return max(found, key=lambda row: row.leaf_index, default=None)

    def logged_heads(
        self, since: TimeBound, until: TimeBound, table_id: str | None, after_leaf: int, limit: int
    ) -> list[HeadRow]:
        """Rounds' and tables' heads by leaf index after ``after_leaf``, logged in [since,
        until): the log's leaves with what each covers."""
        bounds = (
            after_leaf,
            _MIN_TIME if since is None else since,
            _MAX_TIME if until is None else until,
        )
        where = "leaf_index > ? AND finished_at >= ? AND finished_at < ?"
        where += "" if table_id is None else " AND table_id = ?"
        params = bounds if table_id is None else (*bounds, table_id)
        rounds = "SELECT leaf_index, table_id, round_id, NULL, head_hash FROM rounds"
        tables = "SELECT leaf_index, table_id, NULL, seq, head_hash FROM table_heads"
        sql = f"{rounds} WHERE {where} UNION ALL {tables} WHERE {where} ORDER BY leaf_index LIMIT ?"
        rows = self._run(sql, (*params, *params, limit)).fetchall()
        return [
            HeadRow(index, table, round_id, seq, bytes(head))
            for index, table, round_id, seq, head in rows
        ]

    def leaf_heads(self, start: int, end: int) -> list[bytes]:
        """The heads (leaf data) of leaves ``start`` to ``end - 1``; a range beyond the log
        is the caller's error."""
        rows = self._run(
            "SELECT leaf_index, head_hash FROM rounds WHERE leaf_index >= ? AND leaf_index < ?"
            " UNION ALL SELECT leaf_index, head_hash FROM table_heads"
            " WHERE leaf_index >= ? AND leaf_index < ? ORDER BY leaf_index",
            (start, end, start, end),
        ).fetchall()
        if not 0 <= start <= end or len(rows) != end - start:
            raise ValueError(f"leaf range [{start}, {end}) is not within the log's heads")
        return [bytes(head) for _, head in rows]
