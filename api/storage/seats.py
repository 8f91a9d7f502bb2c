"""Queries on ``seat_tokens``: each seat's bearer token, kept hashed; a vacated seat's dropped."""

from .queries import Queries


class SeatQueries(Queries):
    def put_token(self, table_id: str, seat: int, token_hash: bytes) -> None:
        # A seat its occupant left under an older version of the service, which kept the
        # token of a vacated seat, may still hold it: the new token replaces it.
        self._run(
            "INSERT INTO seat_tokens (table_id, seat, token_hash) VALUES (?, ?, ?)"
            " ON CONFLICT (table_id, seat) DO UPDATE SET token_hash = excluded.token_hash",
            (table_id, seat, token_hash),
        )

    def drop_token(self, table_id: str, seat: int) -> None:
        self._run("DELETE FROM seat_tokens WHERE table_id = ? AND seat = ?", (table_id, seat))

    def seat_for_token(self, table_id: str, token_hash: bytes) -> int | None:
        row = self._run(
            "SELECT seat FROM seat_tokens WHERE table_id = ? AND token_hash = ?",
            (table_id, token_hash),
        ).fetchone()
        return None if row is None else int(row[0])
