"""Canonical JSON bytes: RFC 8785 (JCS) for the values fairdeal logs.

fairdeal logs only objects with ASCII keys, strings, booleans, null and integers of
magnitude below 2**53. On that domain JCS output equals a sorted, compact json.dumps
without ASCII escaping, which is several times faster than a general JCS encoder
(the tests check the two agree). Anything outside the domain is refused, never coerced:
floats in particular, since money is integers.
"""

import json
from collections.abc import Iterable
from typing import Any

from fairdeal.errors import EncodingError

MAX_SAFE_INTEGER = 2**53 - 1
_MAX_DEPTH = 32

_encode = json.JSONEncoder(
    ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
).encode


def canonical_bytes(value: Any) -> bytes:
    """Return the RFC 8785 bytes of ``value``; raise EncodingError if it has none here."""
    _check(value, 0)
    try:
        return _encode(value).encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: not Unicode text, so not JSON
        raise EncodingError("a string is not valid Unicode") from e


def _check(value: Any, depth: int) -> None:
    """Refuse what JCS cannot say exactly. Hot: every event passes here, so types are
    compared directly, keys are checked in C, and strings are left to the final UTF-8
    encoding."""
    kind = type(value)
    if kind is dict:
        if depth >= _MAX_DEPTH:
            raise EncodingError("value nested too deeply")
        try:
            ascii_keys = all(map(str.isascii, value))
        except TypeError:  # a key that is not a str
            ascii_keys = False
        if not ascii_keys:
            raise EncodingError("object keys must be ASCII strings")
        _check_items(value.values(), depth)
    elif kind is list or kind is tuple:
        if depth >= _MAX_DEPTH:
            raise EncodingError("value nested too deeply")
        _check_items(value, depth)
    else:
        _check_items((value,), depth - 1)


def _check_items(items: Iterable[Any], depth: int) -> None:
    for item in items:
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int:
            if not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
                raise EncodingError(f"integer {item} is outside the exact JSON range")
        elif kind is dict or kind is list or kind is tuple:
            _check(item, depth + 1)
        else:
            raise EncodingError(f"{kind.__name__} has no canonical encoding")
