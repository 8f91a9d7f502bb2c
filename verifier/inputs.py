"""Reading untrusted input (step 0): strict JSON under hard limits, a line at a time.

Nothing here trusts its input's size. A line longer than the limit is skipped in
blocks (never held whole), so an absurdly large file costs time, not memory. Text is
UTF-8 without a byte order mark; JSON is what the log could write: no NaN, and no
member name twice in one object (except inside a signed event, which step 2 reports).
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
    max_skipped_bytes: int = 256 << 20  # past a line over the limit, before giving up on it
    max_events: int = 250_000  # events in one bundle
    max_small_file_bytes: int = 4 << 20  # a checkpoint, a proof, a key
    max_proof_hashes: int = 128  # RFC 9162 proofs are at most ~2 log2(n) hashes
    max_keys: int = 64


LIMITS = Limits()


class InputError(Exception):
    """Input that cannot be used; ``code`` is its finding code (step 0).

    Its ``args`` are both arguments, so that it pickles: an export line that cannot be
    read carries one to a --jobs worker process."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


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
            parse_int=_integer,
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


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise ValueError(f"an integer of over {MAX_INTEGER_DIGITS} digits")
    return int(text)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def loads(data: bytes | str) -> Any:
    """Parse JSON strictly, a member name twice refused too; InputError if it is not JSON
    the log could write."""
    value, duplicates = loads_noting_duplicates(data)
    if duplicates:
        raise InputError("input.malformed_json", _REPEATED)
    return value


_REPEATED = "a member name appears twice in one object"
BOM = b"\xef\xbb\xbf"  # UTF-8's byte order mark


def refuse_bom(data: bytes, what: str) -> None:
    """InputError if a file starts with a byte order mark: its text is UTF-8 without one."""
    if data.startswith(BOM):
        raise InputError("input.malformed_json", f"{what} starts with a byte order mark")


def text_of(data: bytes, what: str) -> str:
    """The text of an input that is not JSON (a checkpoint note, a key): UTF-8 without a
    byte order mark, as JSON must be too."""
    refuse_bom(data, what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("input.malformed_json", f"{what} is not UTF-8 text") from None


def loads_noting_duplicates(data: bytes | str) -> tuple[Any, bool]:
    """The value, and whether some object in it repeated a member name."""
    decoder = _Decoder()
    return _decoded(decoder, data), decoder.duplicates


# What is read as JSON at all (SPEC 7 step 0), the same in the browser's reader: at most this
# many arrays and objects inside one another (Python's own parser gives up near 1,000, at a
# depth its stack decides), and integers of at most this many digits (Python's default).
MAX_READ_DEPTH = 512
MAX_INTEGER_DIGITS = 4300


def _decoded(decoder: json.JSONDecoder, data: bytes | str) -> Any:
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        value = decoder.decode(text)
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError("input.malformed_json", f"not JSON: {_short(e)}") from None
    if _nested_over(text, value, MAX_READ_DEPTH):
        reason = f"not JSON here: arrays and objects nested over {MAX_READ_DEPTH} deep"
        raise InputError("input.malformed_json", reason)
    return value


def _nested_over(text: str, value: Any, limit: int) -> bool:
    """Whether an array or object lies ``limit`` or more containers deep in ``value``, parsed
    from ``text`` (a text with fewer brackets than that is not walked: most bundles)."""
    if text.count("[") + text.count("{") <= limit:
        return False
    containers = [(value, 0)] if isinstance(value, dict | list) else []
    while containers:
        item, depth = containers.pop()
        if depth >= limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        containers.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def has_duplicates(value: Any) -> bool:
    """Whether any object inside ``value`` was read with a repeated member name."""
    if isinstance(value, DuplicateKeys):
        return True
    if isinstance(value, dict):
        return any(has_duplicates(v) for v in value.values())
    if isinstance(value, list):
        return any(has_duplicates(v) for v in value)
    return False


def refuse_duplicates_outside(value: Any, member: str) -> None:
    """InputError if an object of ``value`` other than those under its ``member`` was
    read with a repeated member name: outside a bundle's events, nothing reports it."""
    if isinstance(value, DuplicateKeys) or (
        isinstance(value, dict) and any(has_duplicates(v) for k, v in value.items() if k != member)
    ):
        raise InputError("input.malformed_json", f"{_REPEATED}, outside the {member}")


def refuse_server_error(obj: Any, what: str) -> None:
    """InputError relaying what the service said, for its error body saved in place of a
    bundle, checkpoint or proof."""
    said = server_said(obj)
    if said is not None:
        raise InputError("input.wrong_format", said if what == "the input" else f"{what}: {said}")


def server_said(obj: Any) -> str | None:
    """What the service said, if ``obj`` is its error body ({"error": {"code", "message",
    "details"}}), as one line; else None."""
    error = obj.get("error") if isinstance(obj, dict) and len(obj) == 1 else None
    if not isinstance(error, dict) or not {"code", "message"} <= error.keys():
        return None
    said = f"the server answered {_printable(error['code'])}: {_printable(error['message'])}"
    if error.get("details"):
        said += f" ({_printable(error['details'])})"
    return said


def _printable(value: Any, limit: int = 200) -> str:
    """A value of the input as one short line of text (nothing that moves the cursor)."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


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
            ended = _skip_rest_of_line(stream, limits.max_skipped_bytes)
            reason = f"line over the limit of {limits.max_line_bytes} bytes"
            if not ended:  # an endless stream (/dev/zero, a pipe): read no further
                reason += f", with no end in {limits.max_skipped_bytes} more: the rest is not read"
            yield Line(number, b"", InputError("input.too_large", reason))
            if not ended:
                return
            continue
        if not raw.isspace():  # not strip(): that copies the whole line
            yield Line(number, raw)


def _skip_rest_of_line(stream: IO[bytes], most: int) -> bool:
    """Read past the rest of a line, at most ``most`` bytes; whether the line (or the
    input) ended within them."""
    skipped = 0
    while skipped < most:
        block = stream.readline(_BLOCK)
        if not block or block.endswith(b"\n"):
            return True
        skipped += len(block)
    return False


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
