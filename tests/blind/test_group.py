"""ristretto255 (SPEC 15.2): both backends against RFC 9496's published vectors, the identity
and scalar conventions, refused encodings, and each other on random inputs."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.blind import ristretto_pure
from fairdeal.blind.group import (
    GENERATOR,
    IDENTITY,
    ORDER,
    Group,
    InvalidElementError,
    InvalidScalarError,
    hash_to_scalar,
    random_scalar,
    read_hex32,
    read_scalar,
    ristretto255,
    scalar_bytes,
)
from fairdeal.blind.ristretto_pure import PureRistretto255
from tests.blind.backends import BACKENDS, PURE, needs_sodium, sodium

RFC = json.loads((Path(__file__).parents[1] / "vectors" / "blind" / "rfc9496.json").read_text())
MULTIPLES = [bytes.fromhex(h) for h in RFC["multiples_of_generator"]]
INVALID = [
    pytest.param(bytes.fromhex(h), id=f"{why} {n}")
    for why, encodings in RFC["invalid_encodings"].items()
    for n, h in enumerate(encodings)
]
backends = pytest.mark.parametrize("group", BACKENDS)


def test_the_computed_constants_are_the_rfcs() -> None:
    # RFC 9496 section 4.1, in decimal
    assert (
        int("25063068953384623474111414158702152701244531502492656460079210482610430750235")
        == ristretto_pure.SQRT_AD_MINUS_ONE
    )
    assert (
        int("54469307008909316920995813868745141605393597292927456921205312896311721017578")
        == ristretto_pure.INVSQRT_A_MINUS_D
    )
    assert (
        int("1159843021668779879193775521855586647937357759715417654439879720876111806838")
        == ristretto_pure.ONE_MINUS_D_SQ
    )
    assert (
        int("40440834346308536858101042469323190826248399146238708352240133220865137265952")
        == ristretto_pure.D_MINUS_ONE_SQ
    )
    assert ORDER == 2**252 + 27742317777372353535851937790883648493


@backends
def test_rfc_9496_a1_multiples_of_the_generator(group: Group) -> None:
    assert group.generator == MULTIPLES[1] == GENERATOR
    assert group.identity == MULTIPLES[0] == IDENTITY
    total = group.identity
    for k, expected in enumerate(MULTIPLES):
        assert group.base(k) == expected
        assert group.mul(group.generator, k) == expected
        assert total == expected
        assert group.decode(expected) == expected
        total = group.add(total, group.generator)


@backends
@pytest.mark.parametrize("encoding", INVALID)
def test_rfc_9496_a2_invalid_encodings_are_refused_by_every_operation(
    group: Group, encoding: bytes
) -> None:
    with pytest.raises(InvalidElementError):
        group.decode(encoding)
    with pytest.raises(InvalidElementError):
        group.add(group.generator, encoding)
    with pytest.raises(InvalidElementError):
        group.sub(encoding, group.generator)
    with pytest.raises(InvalidElementError):
        group.mul(encoding, 5)
    with pytest.raises(InvalidElementError):
        group.mul(encoding, 0)  # even where the result would be the identity
    with pytest.raises(InvalidElementError):
        group.neg(encoding)


@backends
@pytest.mark.parametrize(
    "vector", RFC["element_derivation"], ids=[v["text"][:24] for v in RFC["element_derivation"]]
)
def test_rfc_9496_a3_element_derivation(group: Group, vector: dict[str, str]) -> None:
    # the RFC's inputs are SHA-512 of its sentences: hash_to_element is exactly that
    assert group.from_uniform_bytes(bytes.fromhex(vector["input"])).hex() == (vector["element"])
    assert group.hash_to_element(vector["text"].encode("ascii")).hex() == vector["element"]


@backends
def test_rfc_9496_a3_four_inputs_that_give_one_element(group: Group) -> None:
    case = RFC["element_derivation_same_element"]
    for data in case["inputs"]:
        assert group.from_uniform_bytes(bytes.fromhex(data)).hex() == case["element"]


@backends
@pytest.mark.parametrize(
    "data", [b"", bytes(31), bytes(33), bytes(64)], ids=["empty", "31 bytes", "33 bytes", "64"]
)
def test_wrong_lengths_are_refused(group: Group, data: bytes) -> None:
    for operation in (
        lambda: group.decode(data),
        lambda: group.add(data, group.generator),
        lambda: group.add(group.generator, data),
        lambda: group.mul(data, 3),
    ):
        with pytest.raises(InvalidElementError):
            operation()


@backends
def test_the_identity_and_zero_give_the_identity(group: Group) -> None:
    point = group.base(123456789)
    assert group.mul(group.identity, 77) == group.identity
    assert group.mul(point, 0) == group.identity
    assert group.mul(point, ORDER) == group.identity
    assert group.base(0) == group.base(ORDER) == group.identity
    assert group.add(point, group.identity) == point
    assert group.sub(point, point) == group.identity
    assert group.neg(group.identity) == group.identity
    assert group.multi_mul([], []) == group.identity
    assert group.multi_mul([point, group.identity], [0, 5]) == group.identity


@backends
def test_scalars_are_used_whole_and_reduced_mod_the_order(group: Group) -> None:
    # a clamping multiplication (X25519's) would clear the low 3 bits and set bit 254
    point = group.hash_to_element(b"some point")
    assert group.mul(point, 1) == point
    assert group.mul(point, 3) == group.add(group.add(point, point), point)
    assert group.mul(point, ORDER - 1) == group.neg(point)
    assert group.mul(point, -1) == group.neg(point)
    assert group.mul(point, ORDER + 7) == group.mul(point, 7)
    big = 2**254 + 2**255 + 5  # bits 254 and 255 set: reduced first, never masked
    assert group.mul(point, big) == group.mul(point, big % ORDER)
    assert group.base(big) == PURE.base(big % ORDER)


@needs_sodium
@given(k=st.integers(min_value=0, max_value=2**256), j=st.integers(min_value=0, max_value=2**256))
@settings(max_examples=25, deadline=None)
def test_the_backends_agree_on_arithmetic(k: int, j: int) -> None:
    native = sodium()
    x, y = native.base(k), native.base(j)
    assert PURE.base(k) == x
    assert PURE.mul(y, k) == native.mul(y, k)
    assert PURE.add(x, y) == native.add(x, y)
    assert PURE.sub(x, y) == native.sub(x, y)
    assert PURE.neg(x) == native.neg(x)
    assert PURE.multi_mul([x, y], [j, k]) == native.multi_mul([x, y], [j, k])


@needs_sodium
@given(data=st.binary(max_size=100))
@settings(max_examples=25, deadline=None)
def test_the_backends_agree_on_hashing_to_the_group(data: bytes) -> None:
    assert PURE.hash_to_element(data) == sodium().hash_to_element(data)


def _verdict(group: Group, data: bytes) -> bytes | None:
    try:
        return group.decode(data)
    except InvalidElementError:
        return None


@needs_sodium
@given(data=st.binary(min_size=32, max_size=32))
@settings(max_examples=50, deadline=None)
def test_the_backends_agree_on_which_bytes_decode(data: bytes) -> None:
    assert _verdict(PURE, data) == _verdict(sodium(), data)


@needs_sodium
@given(k=st.integers(min_value=1, max_value=ORDER - 1))
@settings(max_examples=20, deadline=None)
def test_the_backends_agree_on_the_encodings_near_valid_ones(k: int) -> None:
    # a valid encoding with one bit flipped: mostly invalid, and the verdicts must agree
    data = bytearray(sodium().base(k))
    data[k % 32] ^= 1 << (k % 8)
    assert _verdict(PURE, bytes(data)) == _verdict(sodium(), bytes(data))


@needs_sodium
def test_multi_mul_is_the_sum_of_products() -> None:
    points = [sodium().hash_to_element(bytes([i])) for i in range(9)]
    scalars = [hash_to_scalar(bytes([i, 1])) for i in range(9)]
    expected = sodium().identity
    for point, k in zip(points, scalars, strict=True):
        expected = sodium().add(expected, sodium().mul(point, k))
    assert sodium().multi_mul(points, scalars) == PURE.multi_mul(points, scalars) == expected
    with pytest.raises(ValueError, match="as many"):
        PURE.multi_mul(points, scalars[:-1])


def test_scalar_encoding_is_32_bytes_little_endian_below_the_order() -> None:
    assert scalar_bytes(1) == b"\x01" + bytes(31)
    assert scalar_bytes(ORDER + 2) == scalar_bytes(2)
    assert read_scalar(scalar_bytes(ORDER - 1)) == ORDER - 1
    for refused in (ORDER.to_bytes(32, "little"), b"\xff" * 32, bytes(31), bytes(33)):
        with pytest.raises(InvalidScalarError):
            read_scalar(refused)


def test_hash_to_scalar_reads_sha_512_little_endian_mod_the_order() -> None:
    import hashlib

    digest = hashlib.sha512(b"abc").digest()
    assert hash_to_scalar(b"abc") == int.from_bytes(digest, "little") % ORDER


def test_random_scalars_are_nonzero_and_below_the_order() -> None:
    draws = {random_scalar() for _ in range(50)}
    assert len(draws) == 50
    assert all(0 < k < ORDER for k in draws)


@pytest.mark.parametrize(
    "text",
    ["A" * 64, "a" * 63, "a" * 65, "g" * 64, 5, None],
    ids=["uppercase", "63 digits", "65 digits", "not hex", "a number", "null"],
)
def test_hex_is_64_lowercase_digits(text: object) -> None:
    with pytest.raises(InvalidElementError.__mro__[1]):  # BlindEncodingError
        read_hex32(text, "a value")


def test_the_default_backend_is_libsodium_when_it_loads_and_names_are_checked() -> None:
    group = ristretto255()
    assert group.secret_safe is (type(group).__name__ == "SodiumRistretto255")
    assert isinstance(ristretto255("pure"), PureRistretto255)
    assert not ristretto255("pure").secret_safe  # verifies only, by default
    with pytest.raises(AttributeError):  # crypto review L4: no assignment lifts the guard
        ristretto255("pure").secret_safe = True  # type: ignore[misc]
    assert not ristretto255("pure").secret_safe
    with pytest.raises(ValueError, match="no backend"):
        ristretto255("openssl")


@needs_sodium
def test_libsodium_is_the_default_here() -> None:
    assert ristretto255() is sodium()


@backends
def test_an_encoding_with_the_top_bit_set_is_refused(group: Group) -> None:
    # libsodium 1.0.18 reads bit 255 as clear and accepts the encoding: a second encoding of
    # the same element. RFC 9496 refuses it (s is not canonical); so do both backends.
    for k in (1, 2, 5, 123456789):
        twin = bytearray(group.base(k))
        twin[31] |= 0x80
        _refused_everywhere(group, bytes(twin))


def _refused_everywhere(group: Group, data: bytes) -> None:
    for operation in (
        lambda: group.decode(data),
        lambda: group.add(data, group.identity),
        lambda: group.mul(data, 1),
        lambda: group.mul(data, 0),
    ):
        with pytest.raises(InvalidElementError):
            operation()


def test_without_libsodium_the_default_is_the_pure_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from fairdeal.blind import group as group_module
    from fairdeal.blind import sodium as sodium_module

    monkeypatch.setattr(sodium_module.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(OSError, match="libsodium23"):
        sodium_module.SodiumRistretto255()

    def missing() -> Group:
        raise OSError("libsodium is not installed")

    monkeypatch.setattr(group_module, "_sodium", missing)
    fallback = ristretto255()
    assert isinstance(fallback, PureRistretto255)
    assert not fallback.secret_safe  # a service without libsodium refuses to hold secrets
    with pytest.raises(OSError, match="not installed"):
        ristretto255("sodium")
