"""Ed25519 keys: the RFC 8032 vectors, key ids, tagged signatures, the trusted set, PEM."""

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from fairdeal.errors import BadSignatureError, KeyFileError, SignatureError, UnknownKeyError
from fairdeal.keys import (
    KeySet,
    Signer,
    key_id,
    load_private_key,
    load_public_key,
    private_key_pem,
    public_key_pem,
    raw_public_key,
)

KEY_ID_TAG = b"fairdeal/v1/key-id\x00"
EVENT_SIGNATURE_TAG = b"fairdeal/v1/event-signature\x00"


# --- RFC 8032 section 7.1 -------------------------------------------------------------
#
# Copied in the RFC's own layout (16 octets a line). Signing is deterministic, so a
# single wrong digit anywhere in a secret key or message gives a different signature.


@dataclass(frozen=True)
class Vector:
    secret_key: str
    public_key: str
    message: str
    signature: str


def _hex(*lines: str) -> str:
    return "".join(lines)


TEST_1 = Vector(
    secret_key=_hex(
        "9d61b19deffd5a60ba844af492ec2cc4",
        "4449c5697b326919703bac031cae7f60",
    ),
    public_key=_hex(
        "d75a980182b10ab7d54bfed3c964073a",
        "0ee172f3daa62325af021a68f707511a",
    ),
    message="",
    signature=_hex(
        "e5564300c360ac729086e2cc806e828a",
        "84877f1eb8e5d974d873e06522490155",
        "5fb8821590a33bacc61e39701cf9b46b",
        "d25bf5f0595bbe24655141438e7a100b",
    ),
)

TEST_2 = Vector(
    secret_key=_hex(
        "4ccd089b28ff96da9db6c346ec114e0f",
        "5b8a319f35aba624da8cf6ed4fb8a6fb",
    ),
    public_key=_hex(
        "3d4017c3e843895a92b70aa74d1b7ebc",
        "9c982ccf2ec4968cc0cd55f12af4660c",
    ),
    message="72",
    signature=_hex(
        "92a009a9f0d4cab8720e820b5f642540",
        "a2b27b5416503f8fb3762223ebdb69da",
        "085ac1e43e15996e458f3613d0f11d8c",
        "387b2eaeb4302aeeb00d291612bb0c00",
    ),
)

TEST_3 = Vector(
    secret_key=_hex(
        "c5aa8df43f9f837bedb7442f31dcb7b1",
        "66d38535076f094b85ce3a2e0b4458f7",
    ),
    public_key=_hex(
        "fc51cd8e6218a1a38da47ed00230f058",
        "0816ed13ba3303ac5deb911548908025",
    ),
    message="af82",
    signature=_hex(
        "6291d657deec24024827e69c3abe01a3",
        "0ce548a284743a445e3680d7db5ac3ac",
        "18ff9b538d16f290ae67f760984dc659",
        "4a7c15e9716ed28dc027beceea1ec40a",
    ),
)

TEST_1024 = Vector(
    secret_key=_hex(
        "f5e5767cf153319517630f226876b86c",
        "8160cc583bc013744c6bf255f5cc0ee5",
    ),
    public_key=_hex(
        "278117fc144c72340f67d0f2316e8386",
        "ceffbf2b2428c9c51fef7c597f1d426e",
    ),
    message=_hex(
        "08b8b2b733424243760fe426a4b54908",
        "632110a66c2f6591eabd3345e3e4eb98",
        "fa6e264bf09efe12ee50f8f54e9f77b1",
        "e355f6c50544e23fb1433ddf73be84d8",
        "79de7c0046dc4996d9e773f4bc9efe57",
        "38829adb26c81b37c93a1b270b20329d",
        "658675fc6ea534e0810a4432826bf58c",
        "941efb65d57a338bbd2e26640f89ffbc",
        "1a858efcb8550ee3a5e1998bd177e93a",
        "7363c344fe6b199ee5d02e82d522c4fe",
        "ba15452f80288a821a579116ec6dad2b",
        "3b310da903401aa62100ab5d1a36553e",
        "06203b33890cc9b832f79ef80560ccb9",
        "a39ce767967ed628c6ad573cb116dbef",
        "efd75499da96bd68a8a97b928a8bbc10",
        "3b6621fcde2beca1231d206be6cd9ec7",
        "aff6f6c94fcd7204ed3455c68c83f4a4",
        "1da4af2b74ef5c53f1d8ac70bdcb7ed1",
        "85ce81bd84359d44254d95629e9855a9",
        "4a7c1958d1f8ada5d0532ed8a5aa3fb2",
        "d17ba70eb6248e594e1a2297acbbb39d",
        "502f1a8c6eb6f1ce22b3de1a1f40cc24",
        "554119a831a9aad6079cad88425de6bd",
        "e1a9187ebb6092cf67bf2b13fd65f270",
        "88d78b7e883c8759d2c4f5c65adb7553",
        "878ad575f9fad878e80a0c9ba63bcbcc",
        "2732e69485bbc9c90bfbd62481d9089b",
        "eccf80cfe2df16a2cf65bd92dd597b07",
        "07e0917af48bbb75fed413d238f5555a",
        "7a569d80c3414a8d0859dc65a46128ba",
        "b27af87a71314f318c782b23ebfe808b",
        "82b0ce26401d2e22f04d83d1255dc51a",
        "ddd3b75a2b1ae0784504df543af8969b",
        "e3ea7082ff7fc9888c144da2af58429e",
        "c96031dbcad3dad9af0dcbaaaf268cb8",
        "fcffead94f3c7ca495e056a9b47acdb7",
        "51fb73e666c6c655ade8297297d07ad1",
        "ba5e43f1bca32301651339e22904cc8c",
        "42f58c30c04aafdb038dda0847dd988d",
        "cda6f3bfd15c4b4c4525004aa06eeff8",
        "ca61783aacec57fb3d1f92b0fe2fd1a8",
        "5f6724517b65e614ad6808d6f6ee34df",
        "f7310fdc82aebfd904b01e1dc54b2927",
        "094b2db68d6f903b68401adebf5a7e08",
        "d78ff4ef5d63653a65040cf9bfd4aca7",
        "984a74d37145986780fc0b16ac451649",
        "de6188a7dbdf191f64b5fc5e2ab47b57",
        "f7f7276cd419c17a3ca8e1b939ae49e4",
        "88acba6b965610b5480109c8b17b80e1",
        "b7b750dfc7598d5d5011fd2dcc5600a3",
        "2ef5b52a1ecc820e308aa342721aac09",
        "43bf6686b64b2579376504ccc493d97e",
        "6aed3fb0f9cd71a43dd497f01f17c0e2",
        "cb3797aa2a2f256656168e6c496afc5f",
        "b93246f6b1116398a346f1a641f3b041",
        "e989f7914f90cc2c7fff357876e506b5",
        "0d334ba77c225bc307ba537152f3f161",
        "0e4eafe595f6d9d90d11faa933a15ef1",
        "369546868a7f3a45a96768d40fd9d034",
        "12c091c6315cf4fde7cb68606937380d",
        "b2eaaa707b4c4185c32eddcdd306705e",
        "4dc1ffc872eeee475a64dfac86aba41c",
        "0618983f8741c5ef68d3a101e8a3b8ca",
        "c60c905c15fc910840b94c00a0b9d0",
    ),
    signature=_hex(
        "0aab4c900501b3e24d7cdf4663326a3a",
        "87df5e4843b2cbdb67cbf6e460fec350",
        "aa5371b1508f9f4528ecea23c436d94b",
        "5e8fcd4f681e30a6ac00a9704a188a03",
    ),
)

TEST_SHA_ABC = Vector(
    secret_key=_hex(
        "833fe62409237b9d62ec77587520911e",
        "9a759cec1d19755b7da901b96dca3d42",
    ),
    public_key=_hex(
        "ec172b93ad5e563bf4932c70e1245034",
        "c35467ef2efd4d64ebf819683467e2bf",
    ),
    message=_hex(
        "ddaf35a193617abacc417349ae204131",
        "12e6fa4e89a97ea20a9eeee64b55d39a",
        "2192992a274fc1a836ba3c23a3feebbd",
        "454d4423643ce80e2a9ac94fa54ca49f",
    ),
    signature=_hex(
        "dc2a4459e7369633a52b1bf277839a00",
        "201009a3efbf3ecb69bea2186c26b589",
        "09351fc9ac90b3ecfdfbc7c66431e030",
        "3dca179c138ac17ad9bef1177331a704",
    ),
)

VECTORS = {
    "TEST 1": TEST_1,
    "TEST 2": TEST_2,
    "TEST 3": TEST_3,
    "TEST 1024": TEST_1024,
    "TEST SHA(abc)": TEST_SHA_ABC,
}
RFC8032 = [pytest.param(vector, id=name) for name, vector in VECTORS.items()]


def test_vector_lengths_are_as_published() -> None:
    assert [len(bytes.fromhex(v.message)) for v in (TEST_1, TEST_2, TEST_3, TEST_1024)] == [
        0,
        1,
        2,
        1023,
    ]
    assert bytes.fromhex(TEST_SHA_ABC.message) == hashlib.sha512(b"abc").digest()


@pytest.mark.parametrize("vector", RFC8032)
def test_rfc8032_public_key_and_signature(vector: Vector) -> None:
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector.secret_key))
    assert raw_public_key(private.public_key()).hex() == vector.public_key
    assert private.sign(bytes.fromhex(vector.message)).hex() == vector.signature


@pytest.mark.parametrize("vector", RFC8032)
def test_rfc8032_verify_accepts_and_a_flipped_bit_is_refused(vector: Vector) -> None:
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(vector.public_key))
    message = bytes.fromhex(vector.message)
    signature = bytes.fromhex(vector.signature)
    public.verify(signature, message)
    for bit in (0, 255, 256, 511):  # in R and in S
        flipped = bytearray(signature)
        flipped[bit // 8] ^= 1 << (bit % 8)
        with pytest.raises(InvalidSignature):
            public.verify(bytes(flipped), message)
    with pytest.raises(InvalidSignature):
        public.verify(signature, message + b"\x00")


# --- Key ids and tagged signatures ----------------------------------------------------


def _private(vector: Vector) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector.secret_key))


@pytest.mark.parametrize("vector", RFC8032)
def test_key_id_is_a_tagged_hash_of_the_raw_public_key(vector: Vector) -> None:
    public = _private(vector).public_key()
    digest = hashlib.sha256(KEY_ID_TAG + bytes.fromhex(vector.public_key)).digest()
    assert key_id(public) == digest[:16].hex()
    assert len(key_id(public)) == 32
    assert Signer(_private(vector)).key_id == key_id(public)


def test_key_ids_differ_between_keys() -> None:
    ids = {key_id(_private(vector).public_key()) for vector in VECTORS.values()}
    assert len(ids) == len(VECTORS)


def test_sign_hash_signs_the_tagged_hash() -> None:
    signer = Signer(_private(TEST_1))
    event_hash = hashlib.sha256(b"an event").digest()
    signature = signer.sign_hash(event_hash)
    # Ed25519 is deterministic: the signature is exactly the one over tag || hash ...
    assert signature == _private(TEST_1).sign(EVENT_SIGNATURE_TAG + event_hash)
    signer.public_key.verify(signature, EVENT_SIGNATURE_TAG + event_hash)
    # ... and not a signature over the bare hash.
    with pytest.raises(InvalidSignature):
        signer.public_key.verify(signature, event_hash)


# --- The trusted key set --------------------------------------------------------------


@pytest.fixture
def signer() -> Signer:
    return Signer(_private(TEST_2))


@pytest.fixture
def other() -> Signer:
    return Signer(_private(TEST_3))


EVENT_HASH = hashlib.sha256(b"event").digest()


def test_keyset_verifies_a_signature_of_a_trusted_key(signer: Signer, other: Signer) -> None:
    keys = KeySet([signer.public_key, other.public_key])
    keys.verify_hash(signer.key_id, EVENT_HASH, signer.sign_hash(EVENT_HASH))
    keys.verify_hash(other.key_id, EVENT_HASH, other.sign_hash(EVENT_HASH))
    assert keys.ids() == sorted([signer.key_id, other.key_id])
    assert signer.key_id in keys
    assert raw_public_key(keys.public_key(signer.key_id)) == raw_public_key(signer.public_key)


def test_keyset_refuses_an_unknown_key_id(signer: Signer, other: Signer) -> None:
    keys = KeySet([signer.public_key])
    assert other.key_id not in keys
    with pytest.raises(UnknownKeyError):
        keys.verify_hash(other.key_id, EVENT_HASH, other.sign_hash(EVENT_HASH))
    with pytest.raises(UnknownKeyError):
        keys.public_key(other.key_id)


def test_an_empty_keyset_trusts_nothing(signer: Signer) -> None:
    with pytest.raises(UnknownKeyError):
        KeySet([]).verify_hash(signer.key_id, EVENT_HASH, signer.sign_hash(EVENT_HASH))


BadSignature = Callable[[Signer, Signer], tuple[str, bytes, bytes]]


def _others_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, o.sign_hash(EVENT_HASH)


def _signature_of_another_hash(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, bytes(32), s.sign_hash(EVENT_HASH)


def _untagged_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, s.private_key.sign(EVENT_HASH)


def _zero_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, bytes(64)


def _truncated_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, s.sign_hash(EVENT_HASH)[:63]


def _empty_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, b""


def _extended_signature(s: Signer, o: Signer) -> tuple[str, bytes, bytes]:
    return s.key_id, EVENT_HASH, s.sign_hash(EVENT_HASH) + b"\x00"


BAD_SIGNATURES = [
    pytest.param(_others_signature, id="another key's signature under this key id"),
    pytest.param(_signature_of_another_hash, id="the signature of another hash"),
    pytest.param(_untagged_signature, id="a signature over the untagged hash"),
    pytest.param(_zero_signature, id="sixty-four zero bytes"),
    pytest.param(_truncated_signature, id="a truncated signature"),
    pytest.param(_empty_signature, id="an empty signature"),
    pytest.param(_extended_signature, id="a signature with a trailing byte"),
]


@pytest.mark.parametrize("make", BAD_SIGNATURES)
def test_keyset_refuses_a_bad_signature(make: BadSignature, signer: Signer, other: Signer) -> None:
    keys = KeySet([signer.public_key, other.public_key])
    kid, event_hash, signature = make(signer, other)
    with pytest.raises(BadSignatureError):
        keys.verify_hash(kid, event_hash, signature)


def test_signature_errors_share_a_base() -> None:
    assert issubclass(BadSignatureError, SignatureError)
    assert issubclass(UnknownKeyError, SignatureError)


# --- PEM files ------------------------------------------------------------------------


def test_private_key_pem_round_trip_without_passphrase(signer: Signer) -> None:
    pem = private_key_pem(signer.private_key)
    assert pem.startswith(b"-----BEGIN PRIVATE KEY-----")
    loaded = load_private_key(pem)
    assert raw_public_key(loaded.public_key()) == raw_public_key(signer.public_key)
    assert loaded.sign(b"m") == signer.private_key.sign(b"m")


def test_private_key_pem_round_trip_with_passphrase(signer: Signer) -> None:
    pem = private_key_pem(signer.private_key, b"correct horse")
    assert pem.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert bytes.fromhex(TEST_2.secret_key) not in pem
    loaded = load_private_key(pem, b"correct horse")
    assert loaded.sign(b"m") == signer.private_key.sign(b"m")


@pytest.mark.parametrize(
    ("passphrase", "given"),
    [
        pytest.param(b"correct horse", b"wrong horse", id="the wrong passphrase"),
        pytest.param(b"correct horse", None, id="no passphrase for an encrypted key"),
        pytest.param(None, b"correct horse", id="a passphrase for a plain key"),
    ],
)
def test_passphrase_mistakes_are_key_file_errors(
    signer: Signer, passphrase: bytes | None, given: bytes | None
) -> None:
    pem = private_key_pem(signer.private_key, passphrase)
    with pytest.raises(KeyFileError):
        load_private_key(pem, given)


def _rsa_pem() -> bytes:
    key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _ec_pem() -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: b"", id="empty"),
        pytest.param(lambda: b"not a key at all", id="garbage"),
        pytest.param(
            lambda: b"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
            id="a PEM frame around garbage",
        ),
        pytest.param(lambda: bytes.fromhex(TEST_1.secret_key), id="raw key bytes"),
        pytest.param(lambda: public_key_pem(_private(TEST_1).public_key()), id="a public key"),
        pytest.param(_rsa_pem, id="an RSA key"),
        pytest.param(_ec_pem, id="an EC key"),
    ],
)
def test_load_private_key_refuses_what_is_not_an_ed25519_private_key(
    make: Callable[[], bytes],
) -> None:
    with pytest.raises(KeyFileError):
        load_private_key(make())


def test_public_key_pem_round_trip(signer: Signer) -> None:
    pem = public_key_pem(signer.public_key)
    assert pem.startswith(b"-----BEGIN PUBLIC KEY-----")
    assert key_id(load_public_key(pem)) == signer.key_id


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda: b"garbage", id="garbage"),
        pytest.param(lambda: private_key_pem(_private(TEST_1)), id="a private key"),
        pytest.param(
            lambda: (
                ec.generate_private_key(ec.SECP256R1())
                .public_key()
                .public_bytes(
                    serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
                )
            ),
            id="an EC public key",
        ),
    ],
)
def test_load_public_key_refuses_what_is_not_an_ed25519_public_key(
    make: Callable[[], bytes],
) -> None:
    with pytest.raises(KeyFileError):
        load_public_key(make())


# An EC key whose curve OID is rewritten from P-256 (1.2.840.10045.3.1.7) to prime192v2
# (1.2.840.10045.3.1.2), a named curve cryptography does not support. Same length, so
# the DER stays well formed; loading stops at the curve.
_P256_OID = bytes.fromhex("06082a8648ce3d030107")
_PRIME192V2_OID = bytes.fromhex("06082a8648ce3d030102")


def _pem(label: str, der: bytes) -> bytes:
    body = base64.encodebytes(der).decode("ascii")
    return f"-----BEGIN {label}-----\n{body}-----END {label}-----\n".encode("ascii")


def _unsupported_curve_private_pem() -> bytes:
    der = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    assert der.count(_P256_OID) == 1
    return _pem("PRIVATE KEY", der.replace(_P256_OID, _PRIME192V2_OID))


def _unsupported_curve_public_pem() -> bytes:
    der = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    assert der.count(_P256_OID) == 1
    return _pem("PUBLIC KEY", der.replace(_P256_OID, _PRIME192V2_OID))


def test_a_private_key_on_an_unsupported_curve_is_a_key_file_error() -> None:
    with pytest.raises(KeyFileError):
        load_private_key(_unsupported_curve_private_pem())


def test_a_public_key_on_an_unsupported_curve_is_a_key_file_error() -> None:
    with pytest.raises(KeyFileError):
        load_public_key(_unsupported_curve_public_pem())
