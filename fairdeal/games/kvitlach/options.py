"""Kvitlach table options: validated, with every default filled in.

The filled options are what ``table_created`` logs, so ``options(options(x)) ==
options(x)``. Defaults that differ by rule set follow the chosen ``rule_set``.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from fairdeal import cards
from fairdeal.errors import OptionsError
from fairdeal.games.base import unknown_options

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
    unknown = set(raw) - set(KEYS)
    if unknown:
        raise unknown_options("Kvitlach", unknown, KEYS)
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


# How each option is shown in documents (SPEC 12.1): its meaning, and a default that
# depends on another option.
_MEANINGS = {
    "rule_set": "the rules played: classic or pressburg (SPEC 12)",
    "decks": "decks in the shoe",
    "bank_funding": "what the banker puts in the bank, even",
    "ante": "what each player pays into the bank once per banker's term "
    "(default: half the bank_funding)",
    "max_bet": "the largest bet, at most the bank_funding (default: half of it)",
    "banker_must_draw": "the banker draws while its best total is at most this "
    "(default: 16 classic, none pressburg)",
    "banker_exit": "the banker's exit on a 4 or a 7 (default: mandatory classic, "
    "optional pressburg)",
    "order": "who plays after whom (default: left classic, alternate pressburg)",
    "max_seats": "seats, the banker's included: at most 4 with one deck, 7 with two "
    "(default: that most)",
    "seed_time_ms": "time for the client seeds of a round, in ms",
    "move_time_ms": "time for each move, in ms",
}


def options_schema() -> dict[str, Any]:
    """What ``parse`` takes, as a JSON Schema (OpenAPI 3.0's dialect): each option's type,
    range and fixed default, and no other member. One rule it cannot say: ``max_bet`` is
    at most ``bank_funding`` (JSON Schema compares no two members)."""
    times = {"minimum": MIN_TIME_MS, "maximum": MAX_TIME_MS, "default": DEFAULT_TIME_MS}
    decks = sorted(SEAT_LIMITS)
    properties: dict[str, dict[str, Any]] = {
        "rule_set": {"enum": list(_CHOICES["rule_set"]), "default": CLASSIC},
        "decks": {"type": "integer", "enum": decks, "default": decks[0]},
        "bank_funding": {"minimum": 2, "maximum": MAX_AMOUNT, "multipleOf": 2, "default": 100},
        "ante": {"minimum": 0, "maximum": MAX_AMOUNT},
        "max_bet": {"minimum": 1, "maximum": MAX_AMOUNT},
        **{key: {"enum": list(_CHOICES[key])} for key in _RULE_SET_DEFAULTS[CLASSIC]},
        "max_seats": {"minimum": 2, "maximum": max(SEAT_LIMITS.values())},
        "seed_time_ms": dict(times),
        "move_time_ms": dict(times),
    }
    for key, schema in properties.items():
        schema.setdefault("type", "string" if "enum" in schema else "integer")
        schema["description"] = _MEANINGS[key]
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "anyOf": [_seats_with(count, decks[0]) for count in decks],
        "example": {"rule_set": CLASSIC, "bank_funding": 100, "max_bet": 20, "max_seats": 4},
    }


def _seats_with(decks: int, default: int) -> dict[str, Any]:
    """The seats that many decks allow: ``decks`` given, or by default."""
    limits = {
        "properties": {"decks": {"enum": [decks]}, "max_seats": {"maximum": SEAT_LIMITS[decks]}}
    }
    return limits if decks == default else {**limits, "required": ["decks"]}


def join_schema() -> dict[str, Any]:
    """What a seat joining sends (``seat_joined``'s data): its buy-in, as a JSON Schema."""
    buy_in = {"type": "integer", "minimum": 1, "maximum": MAX_AMOUNT}
    return {
        "type": "object",
        "properties": {"buy_in": {**buy_in, "description": "the chips the seat brings"}},
        "required": ["buy_in"],
        "additionalProperties": False,
        "example": {"buy_in": 100},
    }
