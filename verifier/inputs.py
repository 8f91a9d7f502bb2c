"""Reading untrusted input: strict JSON under hard limits, a line at a time.

Nothing here trusts its input's size. A line longer than the limit is skipped in
blocks (never held whole), so an absurdly large file costs time, not memory.
"""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

_BLOCK = 1 << 16


@dataclass(frozen=True)
class Limits:
    """Every hard limit of the verifier in one place."""

    max_line_bytes: int = 32 << 20  # one bundle (one export line)
    max_events: int = 250_000  # events in one bundle
    max_small_file_bytes: int = 4 << 20  # a checkpoint, a proof, a key
    max_proof_hashes: int = 128  # RFC 9162 proofs are at most ~2 log2(n) hashes
    max_keys: int = 64


LIMITS = Limits()


class InputError(Exception):
    """Input that cannot be used; ``code`` is its finding code (step 0)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class DuplicateKeys(dict[str, Any]):
    """An object read with a member name twice (the last value kept): step 2 refuses it."""


class Float(float):
    """A number written with a fraction or exponent: kept so that step 2 can refuse it."""


class _Decoder(json.JSONDecoder):
    """Strict JSON that notes whether any object repeated a member name."""

    def __init__(self) -> None:
        super().__init__(
            object_pairs_hook=self._pairs,
            parse_float=Float,
            parse_constant=_constant,
            strict=True,
        )
        self.duplicates = False

    def _pairs(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) == len(pairs):
            return obj
        self.duplicates = True
        return DuplicateKeys(pairs)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """Parse JSON strictly; InputError if it is not JSON."""
    return loads_noting_duplicates(data)[0]


def loads_noting_duplicates(data: bytes | str) -> tuple[Any, bool]:
    """The value, and whether some object in it repeated a member name."""
    decoder = _Decoder()
    return _decoded(decoder, data), decoder.duplicates


_PLAIN = json.JSONDecoder(parse_float=Float, parse_constant=_constant, strict=True)


def loads_unchecked(data: bytes) -> Any:
    """The value ``loads_noting_duplicates`` reads, with the same errors, read in C alone
    (no hook: ~4 % of the verifier's time): an object that repeats a member name keeps
    its last value unnoticed, so the caller tells that none did (``literal_colons``)."""
    return _decoded(_PLAIN, data)


def _decoded(decoder: json.JSONDecoder, data: bytes | str) -> Any:
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        return decoder.decode(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError("input.malformed_json", f"not JSON: {_short(e)}") from None


_ESCAPED_COLONS = (b"u003a", b"u003A")
_MAX_ESCAPES = 64


def literal_colons(data: bytes) -> int | None:
    """The colons of a JSON text, or None where a \\u escape may write one (or too many
    escapes to look at). A text has as many as its value read back (``colons_in``) exactly
    when no object in it repeated a member name: the repeat's colon, at least, is gone."""
    index, escapes = data.find(b"\\"), 0
    while index != -1:
        escapes += 1
        if escapes > _MAX_ESCAPES or data[index + 1 : index + 6] in _ESCAPED_COLONS:
            return None
        index = data.find(b"\\", index + 2)  # past the escaped character, \\ included
    return data.count(b":")


def colons_in(value: Any) -> int:
    """The colons of ``value``'s JSON text: one per object member, and those in strings."""
    if isinstance(value, str):
        return value.count(":")
    if isinstance(value, dict):
        return len(value) + sum(colons_in(k) + colons_in(v) for k, v in value.items())
    if isinstance(value, list):
        return sum(map(colons_in, value))
    return 0


def has_duplicates(value: Any) -> bool:
    """Whether any object inside ``value`` was read with a repeated member name."""
    if isinstance(value, DuplicateKeys):
        return True
    if isinstance(value, dict):
        return any(has_duplicates(v) for v in value.values())
    if isinstance(value, list):
        return any(has_duplicates(v) for v in value)
    return False


@dataclass(frozen=True)
class Line:
    """One line of an export: its number (from 1) and bytes, or why it is unusable."""

    number: int
    data: bytes
    error: InputError | None = None


def read_lines(stream: IO[bytes], limits: Limits = LIMITS) -> Iterator[Line]:
    """Non-empty lines, each at most ``max_line_bytes``; longer ones come back as errors."""
    number = 0
    while True:
        raw = stream.readline(limits.max_line_bytes + 1)
        if not raw:
            return
        number += 1
        if len(raw) > limits.max_line_bytes and not raw.endswith(b"\n"):
            _skip_rest_of_line(stream)
            reason = f"line over the limit of {limits.max_line_bytes} bytes"
            yield Line(number, b"", InputError("input.too_large", reason))
            continue
        if not raw.isspace():  # not strip(): that copies the whole line
            yield Line(number, raw)


def _skip_rest_of_line(stream: IO[bytes]) -> None:
    while True:
        block = stream.readline(_BLOCK)
        if not block or block.endswith(b"\n"):
            return


def read_small(stream: IO[bytes], what: str, limits: Limits = LIMITS) -> bytes:
    """A whole small input (a checkpoint, a proof, a key), refused beyond its limit."""
    data = stream.read(limits.max_small_file_bytes + 1)
    if len(data) > limits.max_small_file_bytes:
        raise InputError("input.too_large", f"{what} over {limits.max_small_file_bytes} bytes")
    return data


def open_input(path: str) -> IO[bytes]:
    """A file (or standard input for "-") opened for binary reading."""
    import sys

    if path == "-":
        return sys.stdin.buffer
    try:
        return open(path, "rb")
    except OSError as e:
        raise InputError("input.unreadable", f"cannot read {path}: {e.strerror}") from None


def _short(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:120]
