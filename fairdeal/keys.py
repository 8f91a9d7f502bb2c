"""Ed25519 signing keys, key ids and the trusted key set.

A key id is derived from the public key alone, so anyone holding the public key can
compute it; the set of public keys is what the service publishes and verifiers pin.
"""

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal import tags
from fairdeal.errors import BadSignatureError, KeyFileError, UnknownKeyError

KEY_ID_BYTES = 16


def raw_public_key(public_key: Ed25519PublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def key_id(public_key: Ed25519PublicKey) -> str:
    """Hex of the first 16 bytes of SHA-256(tag || 32-byte raw public key)."""
    digest = hashlib.sha256(tags.KEY_ID + raw_public_key(public_key)).digest()
    return digest[:KEY_ID_BYTES].hex()


@dataclass(frozen=True)
class Signer:
    """A private key with its id; signs event hashes under the event-signature tag."""

    private_key: Ed25519PrivateKey

    @cached_property
    def public_key(self) -> Ed25519PublicKey:
        return self.private_key.public_key()

    @cached_property
    def key_id(self) -> str:
        return key_id(self.public_key)

    def sign_hash(self, event_hash: bytes) -> bytes:
        return self.private_key.sign(tags.EVENT_SIGNATURE + event_hash)


class KeySet:
    """Trusted public keys by id. ``verify`` returns nothing or raises."""

    def __init__(self, public_keys: Iterable[Ed25519PublicKey]) -> None:
        self._keys: Mapping[str, Ed25519PublicKey] = {key_id(k): k for k in public_keys}

    def __contains__(self, kid: object) -> bool:
        return kid in self._keys

    def ids(self) -> list[str]:
        return sorted(self._keys)

    def public_key(self, kid: str) -> Ed25519PublicKey:
        try:
            return self._keys[kid]
        except KeyError:
            raise UnknownKeyError(f"key id {kid} is not a trusted key") from None

    def verify_hash(self, kid: str, event_hash: bytes, signature: bytes) -> None:
        try:
            self.public_key(kid).verify(signature, tags.EVENT_SIGNATURE + event_hash)
        except InvalidSignature:
            raise BadSignatureError(f"signature does not verify under key {kid}") from None


def load_private_key(pem: bytes, passphrase: bytes | None = None) -> Ed25519PrivateKey:
    try:
        key = serialization.load_pem_private_key(pem, password=passphrase)
    except (ValueError, TypeError, UnsupportedAlgorithm) as e:
        raise KeyFileError(f"not a readable PEM private key: {e}") from e
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError("the private key is not an Ed25519 key")
    return key


def load_public_key(pem: bytes) -> Ed25519PublicKey:
    try:
        key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError, UnsupportedAlgorithm) as e:
        raise KeyFileError(f"not a readable PEM public key: {e}") from e
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError("the public key is not an Ed25519 key")
    return key


def private_key_pem(key: Ed25519PrivateKey, passphrase: bytes | None = None) -> bytes:
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase)
        if passphrase
        else serialization.NoEncryption()
    )
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )


def public_key_pem(key: Ed25519PublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
