"""Canonical JSON bytes: RFC 8785 (JCS) for the values fairdeal logs.

fairdeal logs only objects with ASCII keys, strings, booleans, null and integers of
magnitude below 2**53. On that domain JCS output equals a sorted, compact json.dumps
without ASCII escaping, which is several times faster than a general JCS encoder
(the tests check the two agree). Anything outside the domain is refused, never coerced:
floats in particular, since money is integers.
"""

import json
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
    compared directly and strings are left to the final UTF-8 encoding."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return
    if kind is int:
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise EncodingError(f"integer {value} is outside the exact JSON range")
        return
    if depth >= _MAX_DEPTH:
        raise EncodingError("value nested too deeply")
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                raise EncodingError(f"object key {key!r} is not an ASCII string")
            if type(item) is not str:
                _check(item, depth + 1)
    elif kind is list or kind is tuple:
        for item in value:
            if type(item) is not str:
                _check(item, depth + 1)
    else:
        raise EncodingError(f"{kind.__name__} has no canonical encoding")
