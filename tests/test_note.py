"""C2SP signed notes and tlog checkpoints: a Go known answer, round trips, strict parsing."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.errors import BadSignatureError, FairdealError, UnknownKeyError
from fairdeal.note import (
    MAX_NOTE_BYTES,
    MAX_SIGNATURES,
    BadNoteSignatureError,
    Checkpoint,
    CheckpointOriginError,
    MalformedCheckpointError,
    MalformedKeyError,
    MalformedNoteError,
    NoteError,
    NoteSigner,
    NoteVerifier,
    UntrustedNoteError,
    ed25519_key_id,
    open_note,
    sign_checkpoint,
    sign_note,
    verify_checkpoint,
)

# The example of golang.org/x/mod/sumdb/note (its package documentation and tests).
GO_VKEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SKEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
GO_NOTE = (
    GO_TEXT + "\n\u2014 PeterNeumann "
    "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)

ROOT = hashlib.sha256(b"root").digest()


def _signer(name: str, seed_byte: int) -> NoteSigner:
    return NoteSigner(name, Ed25519PrivateKey.from_private_bytes(bytes([seed_byte]) * 32))


ALICE = _signer("example.com/alice", 1)
BOB = _signer("example.com/bob", 2)
MALLORY = _signer("example.com/alice", 3)  # Alice's name, another key


def _raw_public(signer: NoteSigner) -> bytes:
    return signer.verifier.public_key.public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )


# Key IDs and key strings


def test_key_id_known_answer_from_the_definition() -> None:
    public = base64.b64decode(GO_VKEY.split("+", 2)[2])[1:]
    expected = hashlib.sha256(b"PeterNeumann" + b"\n" + b"\x01" + public).digest()[:4]
    assert expected.hex() == "c74f20a3"
    assert ed25519_key_id("PeterNeumann", public) == expected
    assert NoteVerifier.from_key_string(GO_VKEY).key_id == expected


def test_key_id_of_a_fresh_key_from_the_definition() -> None:
    public = _raw_public(ALICE)
    expected = hashlib.sha256(b"example.com/alice\n\x01" + public).digest()[:4]
    assert ALICE.key_id == expected
    id_hex = expected.hex()
    material = base64.b64encode(b"\x01" + public).decode()
    assert ALICE.verifier_key() == f"example.com/alice+{id_hex}+{material}"


def test_go_signer_key_round_trips_and_gives_the_go_verifier_key() -> None:
    signer = NoteSigner.from_key_string(GO_SKEY)
    assert signer.private_key_string() == GO_SKEY
    assert signer.verifier_key() == GO_VKEY
    assert NoteVerifier.from_key_string(GO_VKEY).key_string() == GO_VKEY


def test_go_known_answer_note() -> None:
    # Ed25519 is deterministic, so our note must be Go's note byte for byte.
    assert sign_note(GO_TEXT, [NoteSigner.from_key_string(GO_SKEY)]) == GO_NOTE
    verifier = NoteVerifier.from_key_string(GO_VKEY)
    assert open_note(GO_NOTE, [verifier]) == (GO_TEXT, ["PeterNeumann"])
    assert open_note(GO_NOTE.encode(), [verifier]) == (GO_TEXT, ["PeterNeumann"])


GO_PUBLIC = base64.b64decode(GO_VKEY.split("+", 2)[2])[1:]


def _go_vkey(id_hex: str = "c74f20a3", typed: bytes = b"\x01" + GO_PUBLIC) -> str:
    return f"PeterNeumann+{id_hex}+{base64.b64encode(typed).decode()}"


def _noncanonical(b64: str) -> str:
    """The same bytes with nonzero padding bits in the last base64 character."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    data = b64.rstrip("=")
    last = alphabet[alphabet.index(data[-1]) ^ 1]
    return data[:-1] + last + "=" * (len(b64) - len(data))


@pytest.mark.parametrize(
    "vkey",
    [
        pytest.param(_go_vkey("c74f20a4"), id="wrong-id"),
        pytest.param(_go_vkey("C74F20A3"), id="upper-hex"),
        pytest.param(_go_vkey("c74f20a"), id="short-id"),
        pytest.param(_go_vkey(typed=b"\x02" + GO_PUBLIC), id="type-2"),
        pytest.param(_go_vkey(typed=b"\x01" + GO_PUBLIC[:31]), id="short-key"),
        pytest.param(_go_vkey(typed=b"\x01" + GO_PUBLIC + b"\x00"), id="long-key"),
        pytest.param(GO_VKEY[:-1], id="bad-base64"),
        pytest.param("PeterNeumann+c74f20a3", id="two-fields"),
        pytest.param("Peter Neumann" + GO_VKEY[12:], id="space-in-name"),
        pytest.param(GO_VKEY[12:], id="empty-name"),
    ],
)
def test_bad_verifier_keys(vkey: str) -> None:
    with pytest.raises(MalformedKeyError):
        NoteVerifier.from_key_string(vkey)


@pytest.mark.parametrize(
    "skey",
    [
        GO_SKEY.replace("c74f20a3", "00000000"),
        GO_SKEY.replace("PRIVATE+KEY", "PUBLIC+KEY"),
        GO_SKEY.replace("AYEK", "AoEK"),  # type byte 2
        "PRIVATE+KEY+PeterNeumann+c74f20a3",
    ],
)
def test_bad_signer_keys(skey: str) -> None:
    with pytest.raises(MalformedKeyError):
        NoteSigner.from_key_string(skey)


@pytest.mark.parametrize("name", ["", "a+b", "a b", "a\u00a0b", "a\tb"])
def test_bad_key_names_are_refused(name: str) -> None:
    with pytest.raises(ValueError):
        _signer(name, 9)


# Round trips


def test_round_trip_with_two_signers() -> None:
    note = sign_note("hello\n\nworld\n", [ALICE, BOB])
    assert note.count("\n\u2014 ") == 2
    assert open_note(note, [ALICE.verifier, BOB.verifier]) == (
        "hello\n\nworld\n",
        ["example.com/alice", "example.com/bob"],
    )
    assert open_note(note, [BOB.verifier]) == ("hello\n\nworld\n", ["example.com/bob"])


_LINE = st.text(st.characters(min_codepoint=0x20, codec="utf-8"), max_size=40)


@settings(max_examples=50, deadline=None)
@given(lines=st.lists(_LINE, min_size=1, max_size=6))
def test_round_trip_of_any_text(lines: list[str]) -> None:
    body = "".join(line + "\n" for line in lines)
    assert open_note(sign_note(body, [ALICE]), [ALICE.verifier]) == (body, [ALICE.name])


@settings(max_examples=50, deadline=None)
@given(data=st.data())
def test_a_changed_body_character_fails(data: st.DataObject) -> None:
    body = "example.com/log\n42\nsome body text \u00e9\n"
    note = sign_note(body, [ALICE])
    i = data.draw(st.sampled_from([i for i, c in enumerate(body) if c != "\n"]))
    c = data.draw(st.sampled_from("aZ0 /\u00e9").filter(lambda c: c != body[i]))
    with pytest.raises(BadNoteSignatureError):
        open_note(note[:i] + c + note[i + 1 :], [ALICE.verifier])


def test_a_flipped_signature_bit_fails() -> None:
    note = sign_note("body\n", [ALICE])
    line = note.split("\n")[2]
    blob = bytearray(base64.b64decode(line.split(" ")[2]))
    blob[10] ^= 1
    bad = f"body\n\n\u2014 {ALICE.name} {base64.b64encode(bytes(blob)).decode()}\n"
    with pytest.raises(BadNoteSignatureError):
        open_note(bad, [ALICE.verifier])


def test_untrusted_key_fails() -> None:
    note = sign_note("body\n", [BOB])
    with pytest.raises(UntrustedNoteError) as info:
        open_note(note, [ALICE.verifier])
    assert isinstance(info.value, UnknownKeyError)
    assert isinstance(info.value, NoteError)
    bob, alice = (f"{k.name}+{k.key_id.hex()}" for k in (BOB, ALICE))
    assert str(info.value) == f"no signature by a trusted key: signed by {bob}; trusted {alice}"


def test_untrusted_key_fails_naming_keys_as_the_caller_names_them() -> None:
    note = sign_note("body\n", [BOB, MALLORY])
    with pytest.raises(UntrustedNoteError) as info:
        open_note(note, [ALICE.verifier], lambda name, key_id: f"<{name} {key_id.hex()}>")
    bob, mallory, alice = (f"<{k.name} {k.key_id.hex()}>" for k in (BOB, MALLORY, ALICE))
    assert str(info.value) == (
        f"no signature by a trusted key: signed by {mallory}, {bob}; trusted {alice}"
    )


def test_same_name_other_key_is_ignored_not_trusted() -> None:
    # Name matches, key ID does not: the spec says ignore it.
    with pytest.raises(UntrustedNoteError):
        open_note(sign_note("body\n", [MALLORY]), [ALICE.verifier])
    both = sign_note("body\n", [MALLORY, ALICE])
    assert open_note(both, [ALICE.verifier]) == ("body\n", [ALICE.name])


def test_one_bad_trusted_signature_rejects_the_note() -> None:
    good = sign_note("body\n", [ALICE])
    forged = _sig_line(ALICE.name, ALICE.key_id + bytes(64))
    with pytest.raises(BadNoteSignatureError) as info:
        open_note(good + forged, [ALICE.verifier])
    assert isinstance(info.value, BadSignatureError)


def test_no_verifiers_means_untrusted() -> None:
    with pytest.raises(UntrustedNoteError):
        open_note(sign_note("body\n", [ALICE]), [])


def test_verifiers_with_one_name_and_key_id_are_refused() -> None:
    with pytest.raises(ValueError):
        open_note(sign_note("body\n", [ALICE]), [ALICE.verifier, ALICE.verifier])


# Malformed notes


def _sig_line(name: str, blob: bytes) -> str:
    return f"\u2014 {name} {base64.b64encode(blob).decode()}\n"


def _good_sig() -> str:
    return _sig_line(ALICE.name, ALICE.key_id + ALICE.sign(b"body\n"))


def _good_b64() -> str:
    return _good_sig().split(" ")[2][:-1]


def test_the_good_signature_is_good() -> None:
    # The malformed cases below are mutations of this note.
    assert open_note("body\n\n" + _good_sig(), [ALICE.verifier])[1] == [ALICE.name]
    assert _good_b64().endswith("=") and not _good_b64().endswith("==")


@pytest.mark.parametrize(
    "note",
    [
        pytest.param("body\n" + _good_sig(), id="missing-blank-line"),
        pytest.param("body\n\n", id="no-signatures"),
        pytest.param("body\n", id="no-blank-line-no-signatures"),
        pytest.param("", id="empty"),
        pytest.param("body\n\n" + _good_sig()[:-1], id="missing-final-newline"),
        pytest.param("body\n\n" + _good_sig().replace(" ", "  ", 1), id="double-space"),
        pytest.param("body\n\n" + _good_sig().replace("\u2014", "--"), id="ascii-dash"),
        pytest.param("body\n\n" + _good_sig().replace("\u2014 ", "\u2014"), id="no-space"),
        pytest.param(f"body\n\n\u2014 {ALICE.name} !!!!\n", id="bad-base64"),
        pytest.param(f"body\n\n\u2014 {ALICE.name} AAAAAA=\n", id="bad-padding"),
        pytest.param(
            "body\n\n" + _good_sig().replace(_good_b64(), _noncanonical(_good_b64())),
            id="noncanonical-bits",
        ),
        pytest.param(f"body\n\n\u2014 {ALICE.name} AAAAAA==\n", id="key-id-only"),
        pytest.param("body\n\n\u2014 a+b " + _good_sig().split(" ")[2], id="plus-in-name"),
        pytest.param("body\r\n\r\n" + _good_sig().replace("\n", "\r\n"), id="crlf"),
        pytest.param("bo\rdy\n\n" + _good_sig(), id="lone-cr"),
        pytest.param("bo\tdy\n\n" + _good_sig(), id="tab"),
        pytest.param("body\n\n" + _good_sig() + "\n", id="trailing-blank-line"),
        pytest.param("bo\ud800dy\n\n" + _good_sig(), id="lone-surrogate"),
    ],
)
def test_malformed_notes(note: str) -> None:
    with pytest.raises(MalformedNoteError):
        open_note(note, [ALICE.verifier])


def test_invalid_utf8_bytes_are_malformed() -> None:
    with pytest.raises(MalformedNoteError):
        open_note(b"bo\xffdy\n\n" + _good_sig().encode(), [ALICE.verifier])


def test_too_many_signatures() -> None:
    note = "body\n\n" + _good_sig() * (MAX_SIGNATURES + 1)
    with pytest.raises(MalformedNoteError, match="signatures"):
        open_note(note, [ALICE.verifier])
    assert open_note("body\n\n" + _good_sig() * MAX_SIGNATURES, [ALICE.verifier])[1] == [ALICE.name]


def test_notes_over_one_mebibyte_are_refused() -> None:
    body = "x" * (MAX_NOTE_BYTES - 200) + "\n"
    assert open_note(sign_note(body, [ALICE]), [ALICE.verifier])[0] == body
    big = "\u00e9" * (MAX_NOTE_BYTES // 2) + "\n"  # fewer characters than bytes
    with pytest.raises(MalformedNoteError, match="too large"):
        open_note(big + "\n" + _good_sig(), [ALICE.verifier])
    with pytest.raises(MalformedNoteError, match="too large"):
        open_note(b"x" * (MAX_NOTE_BYTES + 1), [ALICE.verifier])
    with pytest.raises(MalformedNoteError, match="too large"):
        sign_note("x" * MAX_NOTE_BYTES + "\n", [ALICE])


@pytest.mark.parametrize("body", ["", "no newline", "cr\r\n", "nul\x00\n"])
def test_sign_note_refuses_bad_bodies(body: str) -> None:
    with pytest.raises(MalformedNoteError):
        sign_note(body, [ALICE])


def test_sign_note_wants_distinct_signers() -> None:
    with pytest.raises(ValueError):
        sign_note("body\n", [])
    with pytest.raises(ValueError):
        sign_note("body\n", [ALICE, ALICE])


def test_error_tree() -> None:
    for error in (MalformedNoteError, MalformedKeyError, UntrustedNoteError, BadNoteSignatureError):
        assert issubclass(error, NoteError)
    assert issubclass(NoteError, FairdealError)
    assert issubclass(MalformedCheckpointError, MalformedNoteError)


# Checkpoints


def test_checkpoint_body_format() -> None:
    cp = Checkpoint("example.com/log", 20852163, ROOT, ("ext one",))
    root_b64 = base64.b64encode(ROOT).decode()
    assert cp.body() == f"example.com/log\n20852163\n{root_b64}\next one\n"
    assert Checkpoint.parse(cp.body()) == cp
    assert Checkpoint("o", 0, ROOT).body() == f"o\n0\n{root_b64}\n"


def test_checkpoint_parses_the_spec_example() -> None:
    body = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    cp = Checkpoint.parse(body)
    assert (cp.origin, cp.size, cp.extensions) == ("example.com/behind-the-sofa", 20852163, ())
    assert cp.body() == body


def _cp_body(size: str, root: str | None = None) -> str:
    return f"o\n{size}\n{root or base64.b64encode(ROOT).decode()}\n"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(_cp_body("01"), id="leading-zero"),
        pytest.param(_cp_body("00"), id="double-zero"),
        pytest.param(_cp_body("-1"), id="negative"),
        pytest.param(_cp_body("-0"), id="negative-zero"),
        pytest.param(_cp_body("+1"), id="plus"),
        pytest.param(_cp_body(" 1"), id="space"),
        pytest.param(_cp_body("1.0"), id="fraction"),
        pytest.param(_cp_body("\u0661"), id="arabic-digit"),
        pytest.param(_cp_body(""), id="empty-size"),
        pytest.param(_cp_body(str(2**64)), id="over-uint64"),
        pytest.param(_cp_body("1" * 5000), id="huge"),
        pytest.param(_cp_body("1", base64.b64encode(ROOT[:31]).decode()), id="root-31"),
        pytest.param(_cp_body("1", base64.b64encode(ROOT + b"x").decode()), id="root-33"),
        pytest.param(_cp_body("1", "not base64!"), id="root-not-base64"),
        pytest.param(_cp_body("1", base64.b64encode(ROOT).decode().rstrip("=")), id="unpadded"),
        pytest.param(_cp_body("1")[:-1], id="no-final-newline"),
        pytest.param(_cp_body("1") + "\n", id="empty-extension"),
        pytest.param(_cp_body("1").replace("\n", "\r\n"), id="crlf"),
        pytest.param("\n" + _cp_body("1")[2:], id="empty-origin"),
        pytest.param("o\n1\n", id="two-lines"),
        pytest.param("", id="empty"),
    ],
)
def test_checkpoint_parse_rejects(body: str) -> None:
    with pytest.raises(MalformedCheckpointError):
        Checkpoint.parse(body)


def test_checkpoint_accepts_the_largest_size() -> None:
    assert Checkpoint.parse(_cp_body(str(2**64 - 1))).size == 2**64 - 1


@pytest.mark.parametrize(
    ("origin", "size", "root", "extensions"),
    [
        ("o", -1, ROOT, ()),
        ("o", 2**64, ROOT, ()),
        ("", 1, ROOT, ()),
        ("a\nb", 1, ROOT, ()),
        ("o", 1, ROOT[:16], ()),
        ("o", 1, ROOT, ("",)),
        ("o", 1, ROOT, ("a\nb",)),
    ],
)
def test_checkpoint_constructor_rejects(
    origin: str, size: int, root: bytes, extensions: tuple[str, ...]
) -> None:
    with pytest.raises(MalformedCheckpointError):
        Checkpoint(origin, size, root, extensions)


def test_signed_checkpoint_round_trip() -> None:
    cp = Checkpoint(ALICE.name, 7, ROOT)
    note = sign_checkpoint(cp, ALICE)
    assert note.startswith(cp.body() + "\n\u2014 example.com/alice ")
    assert verify_checkpoint(note, ALICE.verifier) == cp
    assert verify_checkpoint(note, ALICE.verifier, origin=ALICE.name) == cp
    with pytest.raises(CheckpointOriginError):
        verify_checkpoint(note, ALICE.verifier, origin="example.com/other")
    with pytest.raises(UntrustedNoteError):
        verify_checkpoint(note, BOB.verifier)


def test_verify_checkpoint_rejects_a_signed_non_checkpoint() -> None:
    note = sign_note("just\ntwo lines\n", [ALICE])
    with pytest.raises(MalformedCheckpointError):
        verify_checkpoint(note, ALICE.verifier)


@pytest.mark.parametrize("cut", [0, 1], ids=["a flipped byte", "a byte short"])
def test_a_note_verifier_raises_for_a_signature_not_its_own_as_a_cosignature_verifier_does(
    cut: int,
) -> None:
    signer = _signer("example.com/log", 7)
    message = b"checkpoint body\n"
    signature = signer._key.sign(message)
    signer.verifier.verify(message, signature)  # nothing: its own
    bad = bytes([signature[0] ^ 1]) + signature[1:] if not cut else signature[:-1]
    with pytest.raises(BadNoteSignatureError, match=r"by example\.com/log does not verify"):
        signer.verifier.verify(message, bad)
