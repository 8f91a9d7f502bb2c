"""``evolve``, ``build``, ``adopt``: fast copies and constructors for frozen hot-path state.

dataclasses.replace re-runs ``__init__`` with every field, and a frozen dataclass's
``__init__`` sets each field through object.__setattr__; both cost more than the rest
of applying an event. Game state and events here are frozen dataclasses without
``__init__`` logic or slots, so giving the new instance its dictionary directly makes
the same value several times faster. Field names are still checked.
"""

from collections.abc import Mapping
from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

_new = object.__new__
_set = object.__setattr__  # a frozen dataclass's own __setattr__ refuses every field


def evolve(obj: T, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``."""
    values = obj.__dict__.copy()
    size = len(values)
    values.update(changes)
    if len(values) != size:
        _unknown_field(obj, changes)
    new = _new(type(obj))
    _set(new, "__dict__", values)
    return new


def evolve_with(obj: T, changes: Mapping[str, Any]) -> T:
    """``evolve`` with the changes gathered in a mapping (not unpacked into a call).

    The same lines as ``evolve``, not a call of it: both are on every event's path.
    """
    values = obj.__dict__.copy()
    size = len(values)
    values.update(changes)
    if len(values) != size:  # the instance dictionary holds every field: a new key is none
        _unknown_field(obj, changes)
    new = _new(type(obj))
    _set(new, "__dict__", values)
    return new


def _unknown_field(obj: object, changes: Mapping[str, Any]) -> NoReturn:
    fields = type(obj).__dataclass_fields__  # type: ignore[attr-defined]
    unknown = min(set(changes) - set(fields))
    raise TypeError(f"{type(obj).__name__} has no field {unknown!r}")


def build(cls: type[T], **values: Any) -> T:
    """``cls(**values)``, with every field given."""
    return build_from(cls, values)  # a fresh dictionary: keyword arguments are never shared


def build_from(cls: type[T], values: dict[str, Any]) -> T:
    """``build`` from a dictionary of every field, which the new instance keeps as its own."""
    fields = cls.__dataclass_fields__  # type: ignore[attr-defined]
    if values.keys() != fields.keys():
        raise TypeError(f"{cls.__name__} is built from exactly the fields {list(fields)}")
    return adopt(cls, values)


def adopt(cls: type[T], values: dict[str, Any]) -> T:
    """``build_from`` unchecked: for a dictionary its caller fills with exactly the fields,
    on paths every event takes."""
    new = _new(cls)
    _set(new, "__dict__", values)
    return new


def set_fields(obj: object, values: dict[str, Any]) -> None:
    """Give a new instance every field at once: a hot class's own ``__init__``."""
    _set(obj, "__dict__", values)
