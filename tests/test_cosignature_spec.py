"""SPEC.md 10.5's worked example, byte for byte: first from the text alone (hashlib, base64,
struct and cryptography's Ed25519, nothing of fairdeal), then as fairdeal makes it."""

import base64
import hashlib
import struct
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

SPEC = (Path(__file__).parent.parent / "SPEC.md").read_text(encoding="utf-8")
SECTION = SPEC[SPEC.index("### 10.5 Witnesses") : SPEC.index("## 11. ")]

NAME = "witness.example/w1"
TIME = 1_767_225_600
SEED = hashlib.sha256(b"fairdeal witness example key").digest()
# 10.4's signed checkpoint of size 3, and its consistency proof from 2 (leaf hash 2).
LOG_NOTE = (
    "fairdeal.example/log\n3\nmwMRukr9HhfdxqSf4imhtUKkCE9ks8AsvzHwvoabR14=\n\n"
    "\u2014 fairdeal.example/log 4wyURIh1upXreEQoNRKtnnhX/FKF1NuQCoiKJwrdtCDGpdl2mbRdCGaiNmRr8Uj2"
    "k6YjsLuQEHMrAimd2Klj7ZKzIww=\n"
)
BODY = LOG_NOTE[: LOG_NOTE.index("\n\n") + 1]
LEAF_2 = bytes.fromhex("eee4c2eba4ad21a138fa59072bb7cffeb110a0bb23b43d2f9df26c560f59795f")
VKEY = "witness.example/w1+8c46b4c9+BCmG7Xbg/Q91SueQP1A/nC1SfANQErXPB+cd9fe+1qqk"
LINE = (
    "\u2014 witness.example/w1 jEa0yQAAAABpVbkA2gxdg5e4JTMcLman8IFHqYXBEsf30rt5gRcY1ErH/G7ittRa"
    "e8ttOp+VQoLzXVJQd0u2SzGzWt1P26pyTeWGCw==\n"
)


def spec_block(starting: str) -> str:
    """The fenced block of 10.5 whose text starts with ``starting``."""
    blocks = SECTION.split("```\n")[1::2]
    (found,) = [block for block in blocks if block.startswith(starting)]
    return found


def public_key() -> bytes:
    return (
        Ed25519PrivateKey.from_private_bytes(SEED)
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )


def test_the_example_seed_is_as_quoted() -> None:
    assert SEED.hex() in SECTION.replace("\n", " ")


def test_the_verifier_key_from_the_text() -> None:
    key_id = hashlib.sha256(NAME.encode() + b"\n\x04" + public_key()).digest()[:4]
    material = base64.b64encode(b"\x04" + public_key()).decode()
    assert f"{NAME}+{key_id.hex()}+{material}" == VKEY
    assert f"verifier key = {VKEY}\nkey ID       = {key_id.hex()}\n" in SECTION
    assert f"u64be(t)     = {struct.pack('>Q', TIME).hex()}\n" in SECTION


def test_the_cosignature_line_and_the_cosigned_note_from_the_text() -> None:
    key_id = hashlib.sha256(NAME.encode() + b"\n\x04" + public_key()).digest()[:4]
    message = b"cosignature/v1\n" + f"time {TIME}\n".encode() + BODY.encode()
    signature = Ed25519PrivateKey.from_private_bytes(SEED).sign(message)
    blob = key_id + struct.pack(">Q", TIME) + signature
    assert len(blob) == 76
    line = f"\u2014 {NAME} {base64.b64encode(blob).decode()}\n"
    assert line == LINE
    assert spec_block("fairdeal.example/log\n") == LOG_NOTE + LINE


def test_the_request_body_from_the_text() -> None:
    example_10_4 = SPEC[SPEC.index("### 10.4 Example") : SPEC.index("### 10.5 Witnesses")]
    assert LEAF_2.hex() in example_10_4 and LOG_NOTE in example_10_4
    expected = f"old 2\n{base64.b64encode(LEAF_2).decode()}\n\n{LOG_NOTE}"
    assert spec_block("old 2\n") == expected


def test_fairdeal_makes_the_same_bytes() -> None:
    from fairdeal.cosignature import Cosigner, cosignatures, with_signatures
    from fairdeal.witnessing import format_add_checkpoint

    witness = Cosigner(NAME, Ed25519PrivateKey.from_private_bytes(SEED))
    assert witness.verifier_key() == VKEY
    assert witness.cosign(BODY, TIME) == LINE
    assert with_signatures(LOG_NOTE, [LINE]) == LOG_NOTE + LINE
    assert [c.timestamp for c in cosignatures(LOG_NOTE + LINE, [witness.verifier])] == [TIME]
    assert format_add_checkpoint(2, [LEAF_2], LOG_NOTE).decode() == spec_block("old 2\n")
