"""Fiat–Shamir proofs over the group (SPEC 15.6, 15.7), SHA-512, domain-separated.

- a Schnorr proof of knowledge of a round key ``x`` for ``X = x·G``;
- a Chaum–Pedersen proof that ``log_G(X) = log_A(D)``: a decryption share ``D = x·A``.

Each is made for a **context**, bytes naming where it is used (table, round, seat, purpose),
and hashed with its length, so a proof verifies for that context only. ``verify_*`` return
nothing or raise: ``BadProofError`` for a proof that does not verify, ``BlindEncodingError``
(its subclasses) for a value not of its form.

Nonces come from ``secrets`` (``random_scalar``) unless the caller gives one: ``nonce=`` is for
a deterministic prover, the service, whose nonces are derived from its server seed and the
statement (SPEC 15.12.2, ``fairdeal.blind.rounds``), and for the test vectors' fixed ones. A
seat never passes it; whoever does must never give one nonce to two statements.
"""

import hmac
from dataclasses import dataclass

from fairdeal.blind import tags
from fairdeal.blind.group import (
    ORDER,
    BlindEncodingError,
    BlindError,
    Group,
    IdentityKeyError,
    InvalidScalarError,
    hash_to_scalar,
    length_prefixed,
    random_scalar,
    read_scalar_hex,
    scalar_bytes,
)


class BadProofError(BlindError):
    """A proof that does not verify for its statement and context."""


@dataclass(frozen=True)
class Proof:
    """A challenge ``c`` and a response ``s``, both scalars (SPEC 15.6, 15.7)."""

    c: int
    s: int

    def to_json(self) -> dict[str, str]:
        c, s = _scalars(self)  # written as they are, never reduced
        return {"c": scalar_bytes(c).hex(), "s": scalar_bytes(s).hex()}

    @classmethod
    def from_json(cls, value: object) -> "Proof":
        c, s = members(value, ("c", "s"), "proof")
        return cls(read_scalar_hex(c, "proof c"), read_scalar_hex(s, "proof s"))


def members(value: object, names: tuple[str, ...], what: str) -> list[object]:
    """The values of a JSON object with exactly the members ``names``, in that order."""
    if not isinstance(value, dict) or set(value) != set(names):
        raise BlindEncodingError(f"{what}: an object with exactly {', '.join(names)}")
    return [value[name] for name in names]


def knowledge_transcript(group: Group, key: bytes, t: bytes, context: bytes) -> bytes:
    """The bytes hashed for the challenge (SPEC 15.6)."""
    return tags.KEY_PROOF + group.generator + key + t + length_prefixed(context)


def dleq_transcript(
    group: Group, statement: tuple[bytes, bytes, bytes], t: tuple[bytes, bytes], context: bytes
) -> bytes:
    """The bytes hashed for the challenge (SPEC 15.7); ``statement`` is ``(X, A, D)``."""
    return tags.SHARE_PROOF + b"".join((group.generator, *statement, *t)) + length_prefixed(context)


def require_secret_safe(group: Group) -> None:
    """Refuse a variable-time backend for an operation on a secret (caller misuse)."""
    if not group.secret_safe:
        raise ValueError("this group backend is variable time: it verifies, it holds no secret")


def _secret(x: int) -> int:
    if not 0 < x < ORDER:
        raise ValueError("a secret scalar is in [1, order)")
    return x


def prove_knowledge(group: Group, x: int, *, context: bytes, nonce: int | None = None) -> Proof:
    """A proof that the prover knows ``x`` for the key ``x·G``."""
    require_secret_safe(group)
    k = _secret(random_scalar() if nonce is None else nonce)
    key = group.base(_secret(x))
    c = hash_to_scalar(knowledge_transcript(group, key, group.base(k), context))
    return Proof(c, (k + c * x) % ORDER)


def verify_knowledge(group: Group, key: bytes, *, context: bytes, proof: Proof) -> None:
    """Raises unless ``proof`` proves knowledge of ``key``'s private key, for ``context``."""
    key = read_round_key(group, key)
    c, s = _scalars(proof)
    t = group.sub(group.base(s), group.mul(key, c))
    _same_challenge(c, knowledge_transcript(group, key, t, context))


def prove_dleq(
    group: Group, x: int, a: bytes, *, context: bytes, nonce: int | None = None
) -> tuple[bytes, Proof]:
    """``D = x·A`` and the proof that ``log_G(x·G) = log_A(D)``."""
    require_secret_safe(group)
    k = _secret(random_scalar() if nonce is None else nonce)
    key, d = group.base(_secret(x)), group.mul(a, x)
    transcript = dleq_transcript(group, (key, a, d), (group.base(k), group.mul(a, k)), context)
    c = hash_to_scalar(transcript)
    return d, Proof(c, (k + c * x) % ORDER)


def verify_dleq(
    group: Group, key: bytes, a: bytes, d: bytes, *, context: bytes, proof: Proof
) -> None:
    """Raises unless ``proof`` shows ``log_G(key) = log_A(D)``, for ``context``."""
    key, a, d = read_round_key(group, key), group.decode(a), group.decode(d)
    c, s = _scalars(proof)
    t1 = group.sub(group.base(s), group.mul(key, c))
    t2 = group.sub(group.mul(a, s), group.mul(d, c))
    _same_challenge(c, dleq_transcript(group, (key, a, d), (t1, t2), context))


def read_round_key(group: Group, key: bytes) -> bytes:
    """A round key's bytes, decoded; refused if not canonical or the identity (SPEC 15.3)."""
    key = group.decode(key)
    if key == group.identity:
        raise IdentityKeyError("a round key is never the identity")
    return key


def _scalars(proof: Proof) -> tuple[int, int]:
    if not (0 <= proof.c < ORDER and 0 <= proof.s < ORDER):
        raise InvalidScalarError("a proof's scalar not below the group order")
    return proof.c, proof.s


def _same_challenge(c: int, transcript: bytes) -> None:
    if not hmac.compare_digest(scalar_bytes(hash_to_scalar(transcript)), scalar_bytes(c)):
        raise BadProofError("the proof does not verify")
