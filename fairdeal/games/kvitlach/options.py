"""Kvitlach table options: validated, with every default filled in.

The filled options are what ``table_created`` logs, so ``options(options(x)) ==
options(x)``. Defaults that differ by rule set follow the chosen ``rule_set``.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from fairdeal import cards
from fairdeal.errors import OptionsError

NAME = "kvitlach"
CLASSIC, PRESSBURG = "classic", "pressburg"
MAX_AMOUNT = 10**12
# Seats (banker included) per number of decks: enough cards that running out is rare.
SEAT_LIMITS = {1: 4, 2: 7}
MIN_TIME_MS, MAX_TIME_MS, DEFAULT_TIME_MS = 1_000, 3_600_000, 30_000

_CHOICES: dict[str, tuple[str, ...]] = {
    "rule_set": (CLASSIC, PRESSBURG),
    "banker_must_draw": ("none", "15", "16"),
    "banker_exit": ("mandatory", "optional", "off"),
    "order": ("left", "alternate"),
}
_RULE_SET_DEFAULTS = {
    CLASSIC: {"banker_must_draw": "16", "banker_exit": "mandatory", "order": "left"},
    PRESSBURG: {"banker_must_draw": "none", "banker_exit": "optional", "order": "alternate"},
}


@dataclass(frozen=True)
class Options:
    """A table's options in full (``to_json`` is what ``table_created`` logs)."""

    rule_set: str
    decks: int
    bank_funding: int
    ante: int
    max_bet: int
    banker_must_draw: str
    banker_exit: str
    order: str
    max_seats: int
    seed_time_ms: int
    move_time_ms: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


KEYS = tuple(field.name for field in fields(Options))


def parse(raw: Mapping[str, Any]) -> Options:
    """The full options of a table, or OptionsError naming the first bad one."""
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise OptionsError(f"unknown Kvitlach options: {', '.join(unknown)}")
    rule_set = _choice(raw, "rule_set", CLASSIC)
    decks = _integer(raw, "decks", 1, 2, 1)
    funding = _integer(raw, "bank_funding", 2, MAX_AMOUNT, 100)
    if funding % 2:
        raise OptionsError("bank_funding must be even (the others put in half of it)")
    full: dict[str, Any] = {"rule_set": rule_set, "decks": decks, "bank_funding": funding}
    full["ante"] = _integer(raw, "ante", 0, MAX_AMOUNT, funding // 2)
    full["max_bet"] = _integer(raw, "max_bet", 1, funding, funding // 2)
    for key, default in _RULE_SET_DEFAULTS[rule_set].items():
        full[key] = _choice(raw, key, default)
    full["max_seats"] = _integer(raw, "max_seats", 2, SEAT_LIMITS[decks], SEAT_LIMITS[decks])
    for key in ("seed_time_ms", "move_time_ms"):
        full[key] = _integer(raw, key, MIN_TIME_MS, MAX_TIME_MS, DEFAULT_TIME_MS)
    return Options(**full)


def canonical_order(options: Options) -> tuple[str, ...]:
    return cards.canonical_deck(NAME, options.decks)


def _integer(raw: Mapping[str, Any], key: str, low: int, high: int, default: int) -> int:
    value = raw.get(key, default)
    if type(value) is not int or not low <= value <= high:
        raise OptionsError(f"{key} must be an integer from {low} to {high}")
    return value


def _choice(raw: Mapping[str, Any], key: str, default: str) -> str:
    value = raw.get(key, default)
    if value not in _CHOICES[key] or not isinstance(value, str):
        raise OptionsError(f"{key} must be one of {', '.join(_CHOICES[key])}")
    return value
