"""``make`` and ``evolve``: the one way to build, and to copy, a frozen dataclass here.

A frozen dataclass's ``__init__`` sets each field through object.__setattr__, and
dataclasses.replace runs that ``__init__`` again with every field: both cost more than
the rest of applying an event. Game state and events are frozen dataclasses without
``__init__`` logic or slots, so these give the new instance its dictionary directly.
"""

from typing import Any, TypeVar

T = TypeVar("T")


# hot: kvitlach rounds, events (and every row that applies events)
def make(cls: type[T], values: dict[str, Any]) -> T:
    """``cls(**values)`` for ``values`` holding exactly every field (not checked: each
    caller writes the names out), which the new instance keeps as its dictionary."""
    new = object.__new__(cls)
    object.__setattr__(new, "__dict__", values)  # the dataclass's own __setattr__ refuses
    return new


# hot: kvitlach rounds, events
def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``."""
    values = obj.__dict__.copy()
    values.update(changes)
    if len(values) != len(obj.__dict__):  # it holds every field: a new key is none of them
        unknown = min(changes.keys() - obj.__dict__.keys())
        raise TypeError(f"{type(obj).__name__} has no field {unknown!r}")
    return make(type(obj), values)
