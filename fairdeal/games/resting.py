"""What both games' ``rest.py`` read alike from a snapshot's members (SPEC 6.6)."""

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from fairdeal.canonical import MAX_SAFE_INTEGER
from fairdeal.errors import EventSchemaError, OptionsError
from fairdeal.events import is_id
from fairdeal.games.dealing import RoundState
from fairdeal.games.money import MAX_TABLE_TOTAL

Opts = TypeVar("Opts")


def options(parse: Callable[[Mapping[str, Any]], Opts], raw: Any) -> Opts:
    """The game's options (the engine has checked they are in full form)."""
    if not isinstance(raw, dict):
        raise EventSchemaError("options is an object")
    try:
        return parse(raw)
    except OptionsError as e:
        raise EventSchemaError(f"options: {e}") from e


def integer(value: Any, name: str, low: int, high: int = MAX_SAFE_INTEGER) -> int:
    if type(value) is not int or not low <= value <= high:  # bool is refused too
        raise EventSchemaError(f"{name} must be an integer from {low} to {high}")
    return value


def balances(value: Any, accounts: set[str]) -> dict[str, int]:
    """Exactly these accounts, each holding what a table can (6.5), all within its bound."""
    if not isinstance(value, dict) or set(value) != accounts:
        raise EventSchemaError(f"balances has exactly the accounts {sorted(accounts)}")
    held = {name: integer(value[name], name, 0, MAX_TABLE_TOTAL) for name in sorted(value)}
    if sum(held.values()) > MAX_TABLE_TOTAL:
        raise EventSchemaError(f"a table holds at most {MAX_TABLE_TOTAL} in all")
    return held


def sealed_round(value: Any, rounds: int, seats: Sequence[int]) -> RoundState:
    """The last round as the rules read it at rest: its id, sealed and revealed. Its
    commitment, seeds and deadline are not kept: no rule reads them at rest."""
    if not is_id(value):
        raise EventSchemaError("last_round is null or a round id")
    if not rounds:
        raise EventSchemaError("last_round names a round of a table that opened none")
    return RoundState(value, rounds, "", tuple(seats), None, sealed=True, revealed=True)
