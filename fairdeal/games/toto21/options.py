"""Toto21's table options: the match conditions the creator sets and the joiner accepts.

Every option but ``dealing`` is an integer with a range; a missing option takes its
default. The full form (all five, sorted by name, and ``dealing`` at a dealer-blind table
only, SPEC 15.13.1) is what ``table_created`` logs.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from fairdeal.errors import OptionsError
from fairdeal.games.base import unknown_options
from fairdeal.protocol import BLIND_DEALING, DEALING

NAME = "toto21"
TARGETS = (2, 4, 6, 8, 10)
DEFAULT_TARGET = 4
# name: (lowest, highest, default)
RANGES: dict[str, tuple[int, int, int]] = {
    "game_time_ms": (60_000, 86_400_000, 1_800_000),
    "move_time_ms": (5_000, 600_000, 30_000),
    "seed_time_ms": (1_000, 600_000, 30_000),
    "stake": (0, 10**12, 0),
}
COMMITTED_DEALING = "committed"
DEALINGS = (COMMITTED_DEALING, BLIND_DEALING)
# At a dealer-blind table seed_time_ms is also each automatic step's time (a shuffle step
# takes a browser party 1-2 s): SPEC 15.13.1's floor
BLIND_SEED_TIME_MS = 10_000


@dataclass(frozen=True)
class Options:
    target: int
    move_time_ms: int
    game_time_ms: int
    stake: int
    seed_time_ms: int
    dealing: str = COMMITTED_DEALING

    @property
    def blind(self) -> bool:
        """A dealer-blind table (SPEC 15.13)."""
        return self.dealing == BLIND_DEALING

    def to_json(self) -> dict[str, Any]:
        """The full form: ``dealing`` only when blind, so every committed table's options
        keep the form they were logged in (SPEC 15.13.1)."""
        values = asdict(self)
        if not self.blind:
            del values[DEALING]
        return dict(sorted(values.items()))


def parse(raw: Mapping[str, Any]) -> Options:
    """The options with defaults filled in; OptionsError for anything out of range."""
    if not isinstance(raw, Mapping):
        raise OptionsError("toto21 options are an object")
    unknown = set(raw) - set(RANGES) - {"target", DEALING}
    if unknown:
        raise unknown_options("Toto21", unknown, {*RANGES, "target", DEALING})
    target = _integer(raw, "target", DEFAULT_TARGET)
    if target not in TARGETS:
        raise OptionsError(f"target must be one of {TARGETS}")
    dealing = raw.get(DEALING, COMMITTED_DEALING)
    if not isinstance(dealing, str) or dealing not in DEALINGS:
        raise OptionsError(f"dealing must be one of {', '.join(DEALINGS)}")
    ranged = {name: _ranged(raw, name, *limits) for name, limits in RANGES.items()}
    if dealing == BLIND_DEALING and ranged["seed_time_ms"] < BLIND_SEED_TIME_MS:
        raise OptionsError(f"seed_time_ms is at least {BLIND_SEED_TIME_MS} at a blind table")
    return Options(target=target, dealing=dealing, **ranged)


def _integer(raw: Mapping[str, Any], name: str, default: int) -> int:
    value = raw.get(name, default)
    if type(value) is not int:  # bool and float are refused too
        raise OptionsError(f"{name} must be an integer")
    return value


def _ranged(raw: Mapping[str, Any], name: str, lowest: int, highest: int, default: int) -> int:
    value = _integer(raw, name, default)
    if not lowest <= value <= highest:
        raise OptionsError(f"{name} must be in {lowest}..{highest}")
    return value


# What each option means, for documents (SPEC 11.1).
_MEANINGS = {
    "target": "points that win the match",
    "game_time_ms": "total game time from the match's start, in ms",
    "move_time_ms": "time for each move, in ms",
    "seed_time_ms": "time for the client seeds of a round, in ms",
    "stake": "what each seat deposits and escrows, whole units",
    DEALING: "committed (the operator commits to the deck) or blind (nobody, the operator "
    "included, sees a card before its owner; every seat needs a key)",
}


def options_schema() -> dict[str, Any]:
    """What ``parse`` takes, as a JSON Schema (OpenAPI 3.0's dialect): each option's range
    and default, and no other member."""
    target = {"type": "integer", "enum": list(TARGETS), "default": DEFAULT_TARGET}
    ranged = {
        name: {"type": "integer", "minimum": lowest, "maximum": highest, "default": default}
        for name, (lowest, highest, default) in RANGES.items()
    }
    dealing = {"type": "string", "enum": list(DEALINGS), "default": COMMITTED_DEALING}
    properties: dict[str, dict[str, Any]] = {"target": target, **ranged, DEALING: dealing}
    for name, meaning in _MEANINGS.items():
        properties[name]["description"] = meaning
    return {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
        "example": {"target": DEFAULT_TARGET, "stake": 100, "move_time_ms": 30_000},
    }


def join_schema() -> dict[str, Any]:
    """What a seat joining sends (``seat_joined``'s data): nothing, as a JSON Schema."""
    return {
        "type": "object",
        "properties": {},
        "additionalProperties": False,
        "description": "nothing: each seat deposits the table's stake",
        "example": {},
    }
