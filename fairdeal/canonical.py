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
    return _encode(value).encode("utf-8")


def _check(value: Any, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise EncodingError("value nested too deeply")
    if isinstance(value, str):
        _check_text(value)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int):
        if not -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
            raise EncodingError(f"integer {value} is outside the exact JSON range")
    elif isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or not key.isascii():
                raise EncodingError(f"object key {key!r} is not an ASCII string")
            _check(item, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            _check(item, depth + 1)
    else:
        raise EncodingError(f"{type(value).__name__} has no canonical encoding")


def _check_text(text: str) -> None:
    # Lone surrogates cannot be encoded as UTF-8, so JCS cannot represent them.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise EncodingError("string is not valid Unicode") from e
