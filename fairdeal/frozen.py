"""``evolve`` and ``build``: fast copies and constructors for frozen state on the hot path.

dataclasses.replace re-runs ``__init__`` with every field, and a frozen dataclass's
``__init__`` sets each field through object.__setattr__; both cost more than the rest
of applying an event. Game state and events here are frozen dataclasses without
``__init__`` logic or slots, so filling the instance dictionary directly makes the
same value several times faster. Field names are still checked.
"""

from typing import Any, TypeVar

T = TypeVar("T")


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``."""
    cls = type(obj)
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    if not changes.keys() <= fields.keys():
        unknown = min(set(changes) - set(fields))
        raise TypeError(f"{cls.__name__} has no field {unknown!r}")
    new = object.__new__(cls)
    values = new.__dict__
    values.update(obj.__dict__)
    values.update(changes)
    return new


def build(cls: type[T], **values: Any) -> T:
    """``cls(**values)``, with every field given."""
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    if values.keys() != fields.keys():
        raise TypeError(f"{cls.__name__} is built from exactly the fields {list(fields)}")
    new = object.__new__(cls)
    new.__dict__.update(values)
    return new
