"""The ids the service makes, and their shapes (SPEC 13.3): an id of any other shape names
nothing, and is answered so before any database sees it (PostgreSQL refuses a NUL byte in
text where SQLite finds no row)."""

import re
import secrets

TABLE_ID = re.compile(r"t[0-9a-f]{16}")
ROUND_ID = re.compile(TABLE_ID.pattern + r"\.[1-9][0-9]*")  # <table id>.<n>, n >= 1


def new_table_id() -> str:
    return "t" + secrets.token_hex(8)


def new_round_id(table_id: str, number: int) -> str:
    return f"{table_id}.{number}"


def table_of(round_id: str) -> str:
    """The table of a round id of the round's shape."""
    return round_id.rpartition(".")[0]
