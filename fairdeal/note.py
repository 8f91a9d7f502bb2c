"""C2SP signed notes (c2sp.org/signed-note) with Ed25519, and tlog-checkpoint bodies.

A note is UTF-8 text: a body ending in "\\n", a blank line, then one or more lines
"\u2014 <key name> <base64(4-byte key ID || signature)>\\n". Ed25519 signs the body's
UTF-8 bytes, final newline included. The key ID is SHA-256(name || 0x0A || 0x01 ||
public key)[:4]. Parsing is strict: anything accepted is exactly what we would write.
"""

import base64
import binascii
import hashlib
import hmac
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Generic, Self, TypeVar, cast

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal.errors import BadSignatureError, FairdealError, UnknownKeyError

MAX_NOTE_BYTES = 1 << 20
MAX_SIGNATURES = 100
MAX_TREE_SIZE = 2**64 - 1
ED25519_TYPE = b"\x01"
KEY_ID_SIZE = 4
ROOT_HASH_SIZE = 32

_SIG_PREFIX = "\u2014 "  # em dash, space
_ED25519_SIG_SIZE = 64
_ED25519_KEY_SIZE = 32
_CONTROL = re.compile("[\x00-\x09\x0b-\x1f]")  # every ASCII control but newline
_DECIMAL = re.compile("0|[1-9][0-9]{0,19}")
_KEY_ID_HEX = re.compile("[0-9a-f]{8}")


K = TypeVar("K", bound="NamedKey")


class NoteError(FairdealError):
    """A signed note or checkpoint that fails a check."""


class MalformedNoteError(NoteError):
    """Text that is not a well-formed signed note."""


class MalformedCheckpointError(MalformedNoteError):
    """A note body that is not a well-formed checkpoint."""


class MalformedKeyError(NoteError):
    """A verifier or signer key string that cannot be parsed or whose key ID is wrong."""


class UntrustedNoteError(NoteError, UnknownKeyError):
    """No signature in the note is by a trusted key."""


class BadNoteSignatureError(NoteError, BadSignatureError):
    """A signature by a trusted key does not verify; the whole note is rejected."""


class CheckpointOriginError(NoteError):
    """A checkpoint from another log than the one expected."""


def key_id(name: str, signature_type: bytes, public_key: bytes) -> bytes:
    """SHA-256(name || 0x0A || type || public key)[:4]: signed-note's key ID for a type."""
    data = name.encode() + b"\n" + signature_type + public_key
    return hashlib.sha256(data).digest()[:KEY_ID_SIZE]


def ed25519_key_id(name: str, public_key: bytes) -> bytes:
    """SHA-256(name || 0x0A || 0x01 || 32-byte public key)[:4], as signed-note recommends."""
    return key_id(name, ED25519_TYPE, public_key)


def check_name(name: str, error: type[Exception]) -> None:
    # No spaces and no "+": names are delimited by both in lines and key strings.
    if not name or "+" in name or any(c.isspace() for c in name) or _CONTROL.search(name):
        raise error(f"bad key name {name!r}")


def parse_size(text: str, error: type[Exception]) -> int:
    """A tree size in canonical decimal ("0", or no leading zero), at most 2**64 - 1."""
    if not _DECIMAL.fullmatch(text) or int(text) > MAX_TREE_SIZE:
        raise error(f"{text[:24]!r} is not a tree size in canonical decimal")
    return int(text)


def b64decode(text: str, error: type[Exception]) -> bytes:
    """Standard padded base64, canonical only (no stray characters or padding bits)."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise error("bad base64") from exc
    if base64.b64encode(raw).decode() != text:
        raise error("non-canonical base64")
    return raw


def b64encode(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def raw_public(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def check_key_id(id_hex: str, key_id: bytes) -> None:
    if not _KEY_ID_HEX.fullmatch(id_hex):
        raise MalformedKeyError("a key ID is 8 lowercase hex digits")
    if not hmac.compare_digest(bytes.fromhex(id_hex), key_id):
        raise MalformedKeyError("the key ID does not match the key")


def typed_key(material: str, signature_type: bytes = ED25519_TYPE) -> bytes:
    """The 32 key bytes of base64(type || key): type 0x01 for a note signer's key."""
    raw = b64decode(material, MalformedKeyError)
    if len(raw) != 1 + _ED25519_KEY_SIZE or raw[:1] != signature_type:
        raise MalformedKeyError(f"not an Ed25519 key of signature type 0x{signature_type.hex()}")
    return raw[1:]


def read_verifier_key(vkey: str, signature_type: bytes) -> tuple[str, str, Ed25519PublicKey]:
    """(name, hex key ID, public key) of "<name>+<hex key ID>+<base64(type || key)>"; the
    key ID is the caller's to check, with the key ID rule of its signature type."""
    parts = vkey.split("+", 2)  # base64 may itself contain "+"
    if len(parts) != 3:
        raise MalformedKeyError("a verifier key is name+keyid+key")
    name, id_hex, material = parts
    check_name(name, MalformedKeyError)
    try:
        return name, id_hex, Ed25519PublicKey.from_public_bytes(typed_key(material, signature_type))
    except ValueError as exc:
        raise MalformedKeyError("not an Ed25519 public key") from exc


def read_signer_key(skey: str, signature_type: bytes) -> tuple[str, str, Ed25519PrivateKey]:
    """(name, hex key ID, private key) of "PRIVATE+KEY+<name>+<hex key ID>+<base64(type ||
    seed)>"; the key ID is the caller's to check."""
    parts = skey.split("+", 4)
    if len(parts) != 5 or parts[:2] != ["PRIVATE", "KEY"]:
        raise MalformedKeyError("a signer key is PRIVATE+KEY+name+keyid+key")
    _, _, name, id_hex, material = parts
    check_name(name, MalformedKeyError)
    return name, id_hex, Ed25519PrivateKey.from_private_bytes(typed_key(material, signature_type))


def verifier_key_string(
    name: str, key_id: bytes, signature_type: bytes, key: Ed25519PublicKey
) -> str:
    return f"{name}+{key_id.hex()}+{b64encode(signature_type + raw_public(key))}"


def signer_key_string(
    name: str, key_id: bytes, signature_type: bytes, key: Ed25519PrivateKey
) -> str:
    seed = key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return f"PRIVATE+KEY+{name}+{key_id.hex()}+{b64encode(signature_type + seed)}"


class NamedKey:
    """An Ed25519 public key under a name, for one signed-note signature type: its key ID
    and its verifier key string "<name>+<hex key ID>+<base64(type || key)>"."""

    SIGNATURE_TYPE: ClassVar[bytes] = ED25519_TYPE

    def __init__(self, name: str, public_key: Ed25519PublicKey) -> None:
        check_name(name, ValueError)
        self.name = name
        self.public_key = public_key
        self.key_id = key_id(name, self.SIGNATURE_TYPE, raw_public(public_key))

    @classmethod
    def from_key_string(cls, vkey: str) -> Self:
        name, id_hex, key = read_verifier_key(vkey, cls.SIGNATURE_TYPE)
        verifier = cls(name, key)
        check_key_id(id_hex, verifier.key_id)
        return verifier

    def key_string(self) -> str:
        return verifier_key_string(self.name, self.key_id, self.SIGNATURE_TYPE, self.public_key)


class NamedSigner(Generic[K]):
    """An Ed25519 private key under a name, its public half a ``K``; its private key string
    is "PRIVATE+KEY+<name>+<hex key ID>+<base64(type || seed)>"."""

    VERIFIER: ClassVar[type[NamedKey]]

    def __init__(self, name: str, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.verifier = cast(K, self.VERIFIER(name, private_key.public_key()))
        self.name = name
        self.key_id = self.verifier.key_id

    @classmethod
    def from_key_string(cls, skey: str) -> Self:
        name, id_hex, key = read_signer_key(skey, cls.VERIFIER.SIGNATURE_TYPE)
        signer = cls(name, key)
        check_key_id(id_hex, signer.key_id)
        return signer

    def verifier_key(self) -> str:
        return self.verifier.key_string()

    def private_key_string(self) -> str:
        return signer_key_string(self.name, self.key_id, self.VERIFIER.SIGNATURE_TYPE, self._key)


class NoteVerifier(NamedKey):
    """A trusted Ed25519 key under a name (signature type 0x01): checks note signatures."""

    def verify(self, message: bytes, signature: bytes) -> None:
        """Nothing if ``signature`` is this key's over ``message``; else BadNoteSignatureError
        (as CosignatureVerifier.verify raises for a cosignature)."""
        if len(signature) == _ED25519_SIG_SIZE:
            try:
                self.public_key.verify(signature, message)
                return
            except InvalidSignature:
                pass
        raise BadNoteSignatureError(f"the signature by {self.name} does not verify")


class NoteSigner(NamedSigner[NoteVerifier]):
    """An Ed25519 private key under a name: signs note bodies."""

    VERIFIER = NoteVerifier

    def sign(self, message: bytes) -> bytes:
        """The bare 64-byte Ed25519 signature (no key ID)."""
        return self._key.sign(message)


def _note_bytes(text: str, error: type[Exception]) -> bytes:
    """UTF-8 of text after the size and character checks every note must pass."""
    if len(text) > MAX_NOTE_BYTES:  # cheap bound before encoding
        raise error("note too large")
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise error("note is not valid UTF-8") from exc
    if len(data) > MAX_NOTE_BYTES:
        raise error("note too large")
    if _CONTROL.search(text):
        raise error("note contains a control character other than newline")
    return data


def _as_text(note: str | bytes) -> str:
    if isinstance(note, str):
        return note
    if len(note) > MAX_NOTE_BYTES:
        raise MalformedNoteError("note too large")
    try:
        return note.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedNoteError("note is not valid UTF-8") from exc


def sign_note(body: str, signers: Sequence[NoteSigner]) -> str:
    """The signed note: body, blank line, one signature line per signer in order."""
    if not signers or len(signers) > MAX_SIGNATURES:
        raise ValueError(f"a note takes 1 to {MAX_SIGNATURES} signers")
    if len({(s.name, s.key_id) for s in signers}) != len(signers):
        raise ValueError("the same key twice among the signers")
    if not body.endswith("\n"):
        raise MalformedNoteError("a note body ends with a newline")
    message = _note_bytes(body, MalformedNoteError)
    lines = [signature_line(s.name, s.key_id + s.sign(message)) for s in signers]
    note = body + "\n" + "".join(lines)
    _note_bytes(note, MalformedNoteError)
    return note


def signature_line(name: str, blob: bytes) -> str:
    return f"{_SIG_PREFIX}{name} {b64encode(blob)}\n"


def read_note(note: str | bytes) -> tuple[str, list[tuple[str, bytes, bytes]]]:
    """The body and the signatures (key name, key ID, signature) of a well-formed note,
    none of them verified; MalformedNoteError for text that is not a signed note."""
    text = _as_text(note)
    _note_bytes(text, MalformedNoteError)
    body, block = _split_note(text)
    return body, [parse_signature_line(line) for line in _signature_lines(block)]


def note_key_name(name: str, key_id: bytes) -> str:
    """A key as a reader can match it to a verifier key: its name+key ID in hex."""
    return f"{name}+{key_id.hex()}"


def open_note(
    note: str | bytes,
    verifiers: Iterable[NoteVerifier],
    key_name: Callable[[str, bytes], str] = note_key_name,
) -> tuple[str, list[str]]:
    """The body and the names of the trusted keys whose signatures verify.

    Signatures by unknown keys are ignored; one bad signature by a trusted key rejects
    the whole note, and so does having no trusted signature at all: UntrustedNoteError,
    naming each key by ``key_name(name, key ID)``.
    """
    body, signatures = read_note(note)
    names = _verify_all(body.encode(), signatures, _trusted(verifiers), key_name)
    return body, names


def _split_note(text: str) -> tuple[str, str]:
    # The last blank line is the separator: signature lines are never empty.
    split = text.rfind("\n\n")
    if split < 0:
        raise MalformedNoteError("no blank line before the signatures")
    return text[: split + 1], text[split + 2 :]


def _signature_lines(block: str) -> list[str]:
    if not block:
        raise MalformedNoteError("no signatures")
    if not block.endswith("\n"):
        raise MalformedNoteError("a note ends with a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise MalformedNoteError(f"more than {MAX_SIGNATURES} signatures")
    return lines


def parse_signature_line(line: str) -> tuple[str, bytes, bytes]:
    """(key name, key ID, signature) of "\u2014 <name> <base64>"."""
    if not line.startswith(_SIG_PREFIX):
        raise MalformedNoteError("a signature line starts with an em dash and a space")
    fields = line[len(_SIG_PREFIX) :].split(" ")
    if len(fields) != 2:
        raise MalformedNoteError("a signature line is a name and a base64 signature")
    name, material = fields
    check_name(name, MalformedNoteError)
    blob = b64decode(material, MalformedNoteError)
    if len(blob) <= KEY_ID_SIZE:
        raise MalformedNoteError("a signature is a key ID and signature bytes")
    return name, blob[:KEY_ID_SIZE], blob[KEY_ID_SIZE:]


def _trusted(verifiers: Iterable[NoteVerifier]) -> dict[tuple[str, bytes], NoteVerifier]:
    trusted: dict[tuple[str, bytes], NoteVerifier] = {}
    for v in verifiers:
        if (v.name, v.key_id) in trusted:
            raise ValueError(f"two verifiers share the name and key ID of {v.name}")
        trusted[v.name, v.key_id] = v
    return trusted


def _verify_all(
    message: bytes,
    signatures: list[tuple[str, bytes, bytes]],
    trusted: dict[tuple[str, bytes], NoteVerifier],
    key_name: Callable[[str, bytes], str],
) -> list[str]:
    names: list[str] = []
    for name, key_id, signature in signatures:
        verifier = trusted.get((name, key_id))
        if verifier is None:
            continue  # the spec requires ignoring keys we do not know
        verifier.verify(message, signature)
        if name not in names:
            names.append(name)
    if not names:
        signers = _key_names(signatures, key_name) or "nobody"
        trusted_names = _key_names(trusted, key_name)
        raise UntrustedNoteError(
            f"no signature by a trusted key: signed by {signers}; trusted {trusted_names}"
        )
    return names


def _key_names(
    keys: Iterable[tuple[str, bytes] | tuple[str, bytes, bytes]],
    key_name: Callable[[str, bytes], str],
) -> str:
    """Each key once, by ``key_name``, in the order of their name+key ID."""
    unique = sorted({(key[0], key[1]) for key in keys}, key=lambda k: note_key_name(*k))
    return ", ".join(key_name(name, key_id) for name, key_id in unique)


def _check_line(line: str, what: str) -> None:
    if not line or "\n" in line or _CONTROL.search(line):
        raise MalformedCheckpointError(f"the {what} is not one non-empty line")


@dataclass(frozen=True)
class Checkpoint:
    """A tlog-checkpoint body: origin, tree size, root hash, optional extension lines."""

    origin: str
    size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "extensions", tuple(self.extensions))
        _check_line(self.origin, "origin")
        for line in self.extensions:
            _check_line(line, "extension line")
        if not 0 <= self.size <= MAX_TREE_SIZE:
            raise MalformedCheckpointError(f"tree size {self.size} is out of range")
        if len(self.root_hash) != ROOT_HASH_SIZE:
            raise MalformedCheckpointError(f"a root hash is {ROOT_HASH_SIZE} bytes")

    def body(self) -> str:
        lines = [self.origin, str(self.size), b64encode(self.root_hash), *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse(cls, body: str) -> "Checkpoint":
        _note_bytes(body, MalformedCheckpointError)
        if not body.endswith("\n"):
            raise MalformedCheckpointError("a checkpoint ends with a newline")
        lines = body[:-1].split("\n")
        if len(lines) < 3:
            raise MalformedCheckpointError("a checkpoint has origin, size and root lines")
        origin, size, root, *extensions = lines
        tree_size = parse_size(size, MalformedCheckpointError)
        root_hash = b64decode(root, MalformedCheckpointError)
        return cls(origin, tree_size, root_hash, tuple(extensions))


def sign_checkpoint(checkpoint: Checkpoint, signer: NoteSigner) -> str:
    return sign_note(checkpoint.body(), [signer])


def verify_checkpoint(
    note: str | bytes, verifier: NoteVerifier, origin: str | None = None
) -> Checkpoint:
    """The checkpoint in a note signed by ``verifier``; if given, its origin must match."""
    body, _ = open_note(note, [verifier])
    checkpoint = Checkpoint.parse(body)
    if origin is not None and checkpoint.origin != origin:
        raise CheckpointOriginError(f"checkpoint of {checkpoint.origin!r}, not {origin!r}")
    return checkpoint
