"""``evolve``: dataclasses.replace for frozen state on the hot path.

dataclasses.replace re-runs ``__init__`` with every field, which costs more than the
rest of applying an event. Game state here is frozen dataclasses without ``__init__``
logic or slots, so a copy of the instance dictionary with the changes is the same
value, made several times faster. Field names are still checked.
"""

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(obj: T, **changes: Any) -> T:
    fields = type(obj).__dataclass_fields__  # type: ignore[attr-defined]
    for name in changes:
        if name not in fields:
            raise TypeError(f"{type(obj).__name__} has no field {name!r}")
    new = object.__new__(type(obj))
    new.__dict__.update(obj.__dict__)
    new.__dict__.update(changes)
    return new
