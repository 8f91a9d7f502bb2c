"""Canonical JSON: equal to an independent RFC 8785 encoder on the logged domain, the
published JCS examples that fall in that domain, and every refusal."""

import json
from typing import Any

import pytest
import rfc8785
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairdeal.canonical import MAX_SAFE_INTEGER, canonical_bytes
from fairdeal.errors import EncodingError, FairdealError

# The domain fairdeal logs: ASCII keys; any valid Unicode text (control characters,
# non-BMP, the characters JCS escapes and the ones it must not); bools; null; integers of
# magnitude at most 2**53 - 1; lists and objects nested up to five deep.
_TRICKY = (
    "\x00\x01\x07\x08\t\n\x0b\x0c\r\x0e\x0f\x1f\x7f\x80\"\\/'<>&\u00e9\u2028\u2029\ufeff\U0001f602"
)
_TEXT = st.text(max_size=12) | st.text(st.sampled_from(_TRICKY), max_size=12)
_KEYS = st.text(st.characters(max_codepoint=0x7F), max_size=6)
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER)
    | st.sampled_from([0, -1, MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER])
    | _TEXT
)


def _nested(depth: int) -> st.SearchStrategy[Any]:
    values: st.SearchStrategy[Any] = _SCALARS
    for _ in range(depth):
        values = (
            _SCALARS | st.lists(values, max_size=4) | st.dictionaries(_KEYS, values, max_size=4)
        )
    return values


JSON_VALUES = _nested(5)


def _nest_lists(levels: int, inner: Any) -> Any:
    value = inner
    for _ in range(levels):
        value = [value]
    return value


def _nest_dicts(levels: int, inner: Any) -> Any:
    value = inner
    for _ in range(levels):
        value = {"k": value}
    return value


@settings(max_examples=400, deadline=None)
@given(JSON_VALUES)
@example({"b": 1, "a": 2, "B": 3, "": 4, "aa": 5, "a\x00": 6})
@example('\x7f\x1f\x00\u2028\U0001f602/\\"')
@example([MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0])
def test_agrees_with_an_independent_rfc8785_encoder(value: Any) -> None:
    assert canonical_bytes(value) == rfc8785.dumps(value)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES)
def test_output_parses_back_to_the_same_value(value: Any) -> None:
    assert json.loads(canonical_bytes(value).decode("utf-8")) == value


# Published JCS test data (cyberphone/json-canonicalization testdata, by the RFC 8785
# authors), restricted to the logged domain: no floats, ASCII keys.
KNOWN = [
    pytest.param(
        # structures.json, with its one float 56.0 written as the integer 56.
        {
            "1": {"f": {"f": "hi", "F": 5}, "\n": 56},
            "10": {},
            "": "empty",
            "a": {},
            "111": [{}],
            "A": {},
        },
        b'{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}',
        id="keys sort by code unit, so '' < '1' < '10' < '111' < 'A' < 'a'",
    ),
    pytest.param(
        # values.json without its numbers (RFC 8785 section 3.2.2's example).
        {
            "escaping": "\u20ac$\u000f\u000aA'\u0042\u0022\u005c\\\"/",
            "literals": [None, True, False],
        },
        b'{"escaping":"\xe2\x82\xac$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false]}',
        id="short escapes for newline, quote and backslash; lowercase u-escapes; no escaped slash",
    ),
    pytest.param(
        # unicode.json: no normalization, text goes out as UTF-8.
        {"Unnormalized Unicode": "\u1e0d\u0307"},
        b'{"Unnormalized Unicode":"\xe1\xb8\x8d\xcc\x87"}',
        id="unicode text is not normalized and not escaped",
    ),
    pytest.param(
        # The ASCII-keyed members of weird.json.
        {"1": "One", "</script>": "Browser Challenge", "x": "Control\u007f"},
        b'{"1":"One","</script>":"Browser Challenge","x":"Control\x7f"}',
        id="DEL and the characters of a closing script tag are not escaped",
    ),
    pytest.param(
        [56, {"d": True, "10": None, "1": []}],
        b'[56,{"1":[],"10":null,"d":true}]',
        id="arrays keep their order while objects inside them are sorted",
    ),
    pytest.param(
        "\b\t\n\f\r\x00\x1f",
        b'"\\b\\t\\n\\f\\r\\u0000\\u001f"',
        id="the five short escapes and lowercase four-digit escapes for other controls",
    ),
    pytest.param(
        "\U0001f602",
        b'"\xf0\x9f\x98\x82"',
        id="a non-BMP character is four UTF-8 bytes, not a surrogate-pair escape",
    ),
    pytest.param(
        [MAX_SAFE_INTEGER, -MAX_SAFE_INTEGER, 0, -1],
        b"[9007199254740991,-9007199254740991,0,-1]",
        id="integers at the edge of the exact range are written in full",
    ),
    pytest.param(
        {"b": [True, False, None]},
        b'{"b":[true,false,null]}',
        id="no whitespace anywhere",
    ),
]


@pytest.mark.parametrize(("value", "expected"), KNOWN)
def test_published_examples(value: Any, expected: bytes) -> None:
    assert canonical_bytes(value) == expected
    assert rfc8785.dumps(value) == expected


REFUSED = [
    pytest.param(1.5, id="a float"),
    pytest.param(1.0, id="a float with an integral value"),
    pytest.param(float("nan"), id="NaN"),
    pytest.param(float("inf"), id="infinity"),
    pytest.param(2**53, id="2**53, one past the exact integer range"),
    pytest.param(-(2**53), id="minus 2**53"),
    pytest.param(10**30, id="a huge integer"),
    pytest.param({"\u00e9": 1}, id="a non-ASCII key"),
    pytest.param({"\u20ac": "Euro Sign", "1": "One"}, id="the non-ASCII keys of weird.json"),
    pytest.param({1: "a"}, id="an integer key"),
    pytest.param({None: "a"}, id="a null key"),
    pytest.param({True: "a"}, id="a boolean key"),
    pytest.param({("a",): "a"}, id="a tuple key"),
    pytest.param("\ud800", id="a lone high surrogate"),
    pytest.param("a\udc00b", id="a lone low surrogate inside text"),
    pytest.param(b"bytes", id="bytes"),
    pytest.param(bytearray(b"x"), id="a bytearray"),
    pytest.param({1, 2}, id="a set"),
    pytest.param(frozenset(), id="a frozenset"),
    pytest.param(object(), id="an arbitrary object"),
    pytest.param({"a": [1, {"b": 0.5}]}, id="a float nested inside lists and objects"),
    pytest.param([1, 2**53], id="a huge integer inside a list"),
    pytest.param({"a": {"b": "\udfff"}}, id="a lone surrogate nested in an object"),
    pytest.param(_nest_lists(33, 0), id="a scalar inside 33 nested lists"),
    pytest.param(_nest_dicts(33, 0), id="a scalar inside 33 nested objects"),
    pytest.param(_nest_lists(34, []), id="34 nested empty lists"),
    pytest.param(_nest_lists(1000, 0), id="nesting far past the limit"),
]


@pytest.mark.parametrize("value", REFUSED)
def test_values_outside_the_domain_are_refused(value: Any) -> None:
    with pytest.raises(EncodingError):
        canonical_bytes(value)


def test_encoding_error_is_a_fairdeal_error() -> None:
    assert issubclass(EncodingError, FairdealError)


@pytest.mark.parametrize("nest", [_nest_lists, _nest_dicts], ids=["lists", "objects"])
def test_nesting_up_to_the_limit_is_accepted(nest: Any) -> None:
    value = nest(32, 0)
    assert canonical_bytes(value) == rfc8785.dumps(value)


def test_booleans_are_not_integers() -> None:
    assert canonical_bytes([True, False, 1, 0]) == b"[true,false,1,0]"


def test_a_cycle_is_refused_not_a_crash() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(EncodingError):
        canonical_bytes(loop)
