"""Canonical JSON bytes: RFC 8785 (JCS) for the values fairdeal logs.

fairdeal logs only objects with ASCII keys, strings, booleans, null and integers of
magnitude below 2**53. On that domain JCS output equals a sorted, compact json.dumps
without ASCII escaping, which is several times faster than a general JCS encoder
(the tests check the two agree). Anything outside the domain is refused, never coerced:
floats in particular, since money is integers.
"""

import json
from collections.abc import Callable, Iterable
from typing import Any

from fairdeal.errors import EncodingError

MAX_SAFE_INTEGER = 2**53 - 1
_MAX_DEPTH = 32

json_string: Callable[[str], str] = json.encoder.encode_basestring
"""A string's JSON text as the encoder below writes it (quoted, escaped, not ASCII-only)."""


# hot: kvitlach rounds, events; toto21 rounds, events (every event's data is encoded)
def _make_encoder() -> Callable[[Any, int], Iterable[str]]:
    """The chunks of json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False),
    from an encoder made once (called with the value and 0, the indentation level).

    JSONEncoder.encode builds a new C encoder (and a cycle-marker dict) on every call;
    the C encoder is reused here, without markers since ``_check`` bounds the nesting.
    """
    make = getattr(json.encoder, "c_make_encoder", None)  # not in the type stubs
    if make is None:  # no C accelerator: the pure-Python encoder, same output
        encoder = json.JSONEncoder(
            ensure_ascii=False, allow_nan=False, sort_keys=True, separators=(",", ":")
        )
        return lambda value, _: encoder.iterencode(value)
    encode: Callable[[Any, int], Iterable[str]] = make(
        None, None, json_string, None, ":", ",", True, False, False
    )
    return encode


_chunks = _make_encoder()


def json_text(value: Any) -> str:
    """Compact JSON with sorted members, not ASCII-only: ``canonical_text`` without its checks.

    For comparing values as JSON where one side is known to be canonical already. Raises
    ValueError for NaN and infinities, TypeError for what JSON cannot hold, RecursionError
    for a value that contains itself; integer keys become strings, as with json.dumps.
    """
    return "".join(_chunks(value, 0))


def canonical_bytes(value: Any) -> bytes:
    """Return the RFC 8785 bytes of ``value``; raise EncodingError if it has none here."""
    return utf8(canonical_text(value))


def canonical_text(value: Any, depth: int = 0) -> str:
    """The RFC 8785 text of ``value`` found ``depth`` containers deep in what is encoded.

    Checked like ``canonical_bytes``, except that a lone surrogate is refused only by
    ``utf8``, once the whole text is assembled.
    """
    if type(value) is dict:  # hot: kvitlach rounds, events (with the encoder above)
        if not value and depth < _MAX_DEPTH:  # most moves' data: nothing to check or encode
            return "{}"
        _check(value, depth)
    else:
        _check((value,), depth - 1)
    return "".join(_chunks(value, 0))  # json_text's line: a call fewer for every event


def utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate: not Unicode text, so not JSON
        raise EncodingError("a string is not valid Unicode") from e


def _check(container: Any, depth: int) -> None:
    """Refuse what JCS cannot say exactly, in a list, tuple or dict ``depth`` levels deep.

    Types are compared directly (subclasses are refused), and strings are left to the
    final UTF-8 encoding.
    """
    if depth >= _MAX_DEPTH:
        raise EncodingError("value nested too deeply")
    if type(container) is dict:
        try:
            ascii_keys = all(map(str.isascii, container))
        except TypeError:  # a key that is not a str
            ascii_keys = False
        if not ascii_keys:
            raise EncodingError("object keys must be ASCII strings")
        container = container.values()
    for item in container:
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
