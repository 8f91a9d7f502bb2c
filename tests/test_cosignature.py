"""fairdeal.cosignature: witness keys as strings, cosignatures made and checked, and lines
added to a note."""

import base64
import struct

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal.cosignature import (
    BadCosignatureError,
    Cosignature,
    CosignatureVerifier,
    Cosigner,
    cosignatures,
    with_signatures,
)
from fairdeal.note import (
    Checkpoint,
    MalformedKeyError,
    MalformedNoteError,
    NoteSigner,
    sign_checkpoint,
)

LOG = NoteSigner("example.com/log", Ed25519PrivateKey.from_private_bytes(bytes(32)))
W1 = Cosigner("witness.example/w1", Ed25519PrivateKey.from_private_bytes(bytes(range(32))))
W2 = Cosigner("witness.example/w2", Ed25519PrivateKey.from_private_bytes(bytes([7]) * 32))
NOTE = sign_checkpoint(Checkpoint("example.com/log", 3, bytes(32)), LOG)
BODY = NOTE[: NOTE.rfind("\n\n") + 1]
T = 1_767_225_600


def test_a_witness_key_s_strings_parse_back_to_the_same_key() -> None:
    again = Cosigner.from_key_string(W1.private_key_string())
    assert again.verifier_key() == W1.verifier_key()
    assert again.cosign(BODY, T) == W1.cosign(BODY, T)  # Ed25519 is deterministic
    vkey = W1.verifier_key()
    assert CosignatureVerifier.from_key_string(vkey).key_string() == vkey
    assert base64.b64decode(vkey.split("+", 2)[2])[0] == 0x04


def _retyped(key_string: str, type_byte: int) -> str:
    head, material = key_string.rsplit("+", 1)
    raw = bytearray(base64.b64decode(material))
    raw[0] = type_byte
    return f"{head}+{base64.b64encode(bytes(raw)).decode()}"


@pytest.mark.parametrize(
    "vkey",
    [
        _retyped(W1.verifier_key(), 0x01),
        LOG.verifier_key(),
        W1.verifier_key().replace("+", "+0", 1)[:-1],
    ],
    ids=["a cosigning key typed 0x01", "a log's note key", "a key ID of 9 digits"],
)
def test_a_witness_key_not_of_type_0x04_or_malformed_is_refused(vkey: str) -> None:
    with pytest.raises(MalformedKeyError):
        CosignatureVerifier.from_key_string(vkey)


def test_a_private_key_of_another_type_is_refused() -> None:
    with pytest.raises(MalformedKeyError):
        Cosigner.from_key_string(_retyped(W1.private_key_string(), 0x01))


def test_a_cosignature_verifies_with_its_time_and_others_keys_are_ignored() -> None:
    noted = with_signatures(NOTE, [W1.cosign(BODY, T), W2.cosign(BODY, T + 5)])
    assert cosignatures(noted, [W1.verifier]) == [Cosignature(W1.name, T)]
    assert cosignatures(noted, [W2.verifier, W1.verifier]) == [
        Cosignature(W1.name, T),
        Cosignature(W2.name, T + 5),
    ]
    assert cosignatures(NOTE, [W1.verifier]) == []


def _spoiled(line: str, byte: int) -> str:
    prefix, material = line.rsplit(" ", 1)
    blob = bytearray(base64.b64decode(material))
    blob[byte] ^= 1
    return f"{prefix} {base64.b64encode(bytes(blob)).decode()}\n"


@pytest.mark.parametrize(
    "byte", [4 + 7, 4 + 8 + 10], ids=["a timestamp changed", "a signature changed"]
)
def test_a_bad_cosignature_by_a_trusted_key_raises(byte: int) -> None:
    noted = with_signatures(NOTE, [_spoiled(W1.cosign(BODY, T), byte)])
    with pytest.raises(BadCosignatureError):
        cosignatures(noted, [W1.verifier])
    assert cosignatures(noted, [W2.verifier]) == []  # another witness's reader ignores it


def test_a_cosignature_over_another_body_raises() -> None:
    other = BODY.replace("\n3\n", "\n4\n")
    with pytest.raises(BadCosignatureError):
        cosignatures(with_signatures(NOTE, [W1.cosign(other, T)]), [W1.verifier])


def test_timestamps_past_2_to_the_63_minus_1_are_refused() -> None:
    W1.cosign(BODY, 2**63 - 1)
    with pytest.raises(ValueError):
        W1.cosign(BODY, 2**63)
    blob = W1.key_id + struct.pack(">Q", 2**63) + bytes(64)
    with pytest.raises(BadCosignatureError, match="time"):
        W1.verifier.verify(BODY, blob)


def test_with_signatures_adds_each_line_once() -> None:
    line = W1.cosign(BODY, T)
    once = with_signatures(NOTE, [line, line])
    assert once == NOTE + line
    assert with_signatures(once, [line]) == once


@pytest.mark.parametrize(
    "line", ["hello\n", "\u2014 witness.example/w1\n", "\u2014 w1 AAAA"], ids=str.strip
)
def test_with_signatures_refuses_a_line_that_is_not_a_signature_line(line: str) -> None:
    with pytest.raises(MalformedNoteError):
        with_signatures(NOTE, [line])
