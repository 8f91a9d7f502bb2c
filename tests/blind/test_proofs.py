"""The proof of knowledge of a round key and the share proof (SPEC 15.6, 15.7): an honest
proof verifies on both backends, across them, and nowhere else; each named tampering is
refused with its named error."""

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.blind.group import (
    ORDER,
    BlindEncodingError,
    Group,
    IdentityKeyError,
    InvalidElementError,
    InvalidScalarError,
    hash_to_scalar,
    scalar_bytes,
)
from fairdeal.blind.proofs import (
    BadProofError,
    Proof,
    knowledge_transcript,
    prove_dleq,
    prove_knowledge,
    verify_dleq,
    verify_knowledge,
)
from fairdeal.blind.ristretto_pure import PureRistretto255
from tests.blind.backends import BACKENDS, PURE, needs_sodium, sodium

backends = pytest.mark.parametrize("group", BACKENDS)
X = hash_to_scalar(b"a round key")
CONTEXT = b'{"purpose":"round_key","round":"t.1","seat":0}'


@backends
def test_an_honest_key_proof_verifies(group: Group) -> None:
    proof = prove_knowledge(group, X, context=CONTEXT)
    verify_knowledge(group, group.base(X), context=CONTEXT, proof=proof)


@backends
def test_the_challenge_is_sha_512_of_the_stated_transcript(group: Group) -> None:
    k = hash_to_scalar(b"nonce")
    proof = prove_knowledge(group, X, context=CONTEXT, nonce=k)
    transcript = knowledge_transcript(group, group.base(X), group.base(k), CONTEXT)
    assert transcript == (
        b"fairdeal/v3/key-proof\x00"
        + group.generator
        + group.base(X)
        + group.base(k)
        + len(CONTEXT).to_bytes(8, "big")
        + CONTEXT
    )
    assert proof == Proof(hash_to_scalar(transcript), (k + proof.c * X) % ORDER)


Tamper = Callable[[Group, bytes, Proof], tuple[bytes, bytes, Proof]]
KEY_PROOF_TAMPERING: list[tuple[str, Tamper, type[Exception]]] = [
    ("made for another context", lambda g, k, p: (k, CONTEXT + b" ", p), BadProofError),
    ("shown for another key", lambda g, k, p: (g.add(k, g.generator), CONTEXT, p), BadProofError),
    ("with s plus one", lambda g, k, p: (k, CONTEXT, Proof(p.c, (p.s + 1) % ORDER)), BadProofError),
    ("with c plus one", lambda g, k, p: (k, CONTEXT, Proof((p.c + 1) % ORDER, p.s)), BadProofError),
    ("with c and s swapped", lambda g, k, p: (k, CONTEXT, Proof(p.s, p.c)), BadProofError),
    ("with s not below the order", lambda g, k, p: (k, CONTEXT, Proof(p.c, p.s + ORDER)),
     InvalidScalarError),
    ("with a negative c", lambda g, k, p: (k, CONTEXT, Proof(p.c - ORDER, p.s)),
     InvalidScalarError),
    ("for the identity as a key", lambda g, k, p: (g.identity, CONTEXT, p), IdentityKeyError),
    ("for a key that does not decode", lambda g, k, p: (b"\xff" * 32, CONTEXT, p),
     InvalidElementError),
]  # fmt: skip


@backends
@pytest.mark.parametrize(
    ("tamper", "error"),
    [pytest.param(t, e, id=f"a key proof {name} is refused") for name, t, e in KEY_PROOF_TAMPERING],
)
def test_a_tampered_key_proof_is_refused(
    group: Group, tamper: Tamper, error: type[Exception]
) -> None:
    key, context, proof = tamper(group, group.base(X), prove_knowledge(group, X, context=CONTEXT))
    with pytest.raises(error):
        verify_knowledge(group, key, context=context, proof=proof)


@backends
def test_an_honest_share_proof_verifies_also_for_the_identity(group: Group) -> None:
    for a in (group.hash_to_element(b"b of a ciphertext"), group.identity):
        d, proof = prove_dleq(group, X, a, context=CONTEXT)
        assert d == group.mul(a, X)
        verify_dleq(group, group.base(X), a, d, context=CONTEXT, proof=proof)


SHARE_TAMPERING = [
    ("made for another context", {"context": CONTEXT + b"!"}, BadProofError),
    ("shown for another ciphertext", {"a": "other"}, BadProofError),
    ("of another ciphertext", {"d": "other share"}, BadProofError),
    ("plus G", {"d": "plus g"}, BadProofError),
    ("under another party's key", {"key": "other key"}, BadProofError),
    ("with a share that does not decode", {"d": b"\xff" * 32}, InvalidElementError),
    ("under the identity as a key", {"key": "identity"}, IdentityKeyError),
]


@backends
@pytest.mark.parametrize(
    ("change", "error"),
    [pytest.param(c, e, id=f"a share {name} is refused") for name, c, e in SHARE_TAMPERING],
)
def test_a_tampered_share_is_refused(
    group: Group, change: dict[str, object], error: type[Exception]
) -> None:
    a, other = group.hash_to_element(b"b"), group.hash_to_element(b"another b")
    d, proof = prove_dleq(group, X, a, context=CONTEXT)
    named = {
        "other": other,
        "other share": group.mul(other, X),
        "plus g": group.add(d, group.generator),
        "other key": group.base(X + 1),
        "identity": group.identity,
    }
    values: dict[str, object] = {"key": group.base(X), "a": a, "d": d, "context": CONTEXT}
    values.update({n: named.get(v, v) if isinstance(v, str) else v for n, v in change.items()})
    with pytest.raises(error):
        verify_dleq(
            group,
            values["key"],  # type: ignore[arg-type]
            values["a"],  # type: ignore[arg-type]
            values["d"],  # type: ignore[arg-type]
            context=values["context"],  # type: ignore[arg-type]
            proof=proof,
        )


@needs_sodium
@given(x=st.integers(min_value=1, max_value=ORDER - 1), context=st.binary(max_size=80))
@settings(max_examples=10, deadline=None)
def test_proofs_made_by_one_backend_verify_on_the_other(x: int, context: bytes) -> None:
    native = sodium()
    a = native.hash_to_element(context)
    proof = prove_knowledge(native, x, context=context)
    verify_knowledge(PURE, native.base(x), context=context, proof=proof)
    d, share_proof = prove_dleq(PURE, x, a, context=context)
    verify_dleq(native, native.base(x), a, d, context=context, proof=share_proof)
    nonce = hash_to_scalar(context + b"nonce")
    assert prove_knowledge(native, x, context=context, nonce=nonce) == prove_knowledge(
        PURE, x, context=context, nonce=nonce
    )


@backends
def test_nonces_are_fresh(group: Group) -> None:
    assert prove_knowledge(group, X, context=CONTEXT) != prove_knowledge(group, X, context=CONTEXT)


@backends
@pytest.mark.parametrize("x", [0, ORDER, -1], ids=["zero", "the order", "negative"])
def test_a_secret_outside_1_to_the_order_is_caller_misuse(group: Group, x: int) -> None:
    with pytest.raises(ValueError, match="secret"):
        prove_knowledge(group, x, context=CONTEXT)
    with pytest.raises(ValueError, match="secret"):
        prove_knowledge(group, X, context=CONTEXT, nonce=x)
    with pytest.raises(ValueError, match="secret"):  # SPEC 15.7: a given nonce, as 15.6
        prove_dleq(group, X, group.generator, context=CONTEXT, nonce=x)


def test_the_variable_time_backend_refuses_secrets_unless_told() -> None:
    verifier_only = PureRistretto255()
    with pytest.raises(ValueError, match="variable time"):
        prove_knowledge(verifier_only, X, context=CONTEXT)
    with pytest.raises(ValueError, match="variable time"):
        prove_dleq(verifier_only, X, verifier_only.generator, context=CONTEXT)
    # it verifies
    proof = prove_knowledge(PURE, X, context=CONTEXT)
    verify_knowledge(verifier_only, PURE.base(X), context=CONTEXT, proof=proof)


def test_a_proof_reads_and_writes_its_json_form() -> None:
    proof = Proof(5, ORDER - 1)
    assert proof.to_json() == {"c": scalar_bytes(5).hex(), "s": scalar_bytes(ORDER - 1).hex()}
    assert Proof.from_json(proof.to_json()) == proof
    with pytest.raises(InvalidScalarError):
        Proof(ORDER, 1).to_json()


@pytest.mark.parametrize(
    "value",
    [
        {"c": "00" * 32},
        {"c": "00" * 32, "s": "00" * 32, "t": "00" * 32},
        {"c": "00" * 32, "s": "0A" + "00" * 31},
        {"c": "00" * 32, "s": "00" * 31},
        {"c": "00" * 32, "s": ORDER.to_bytes(32, "little").hex()},
        {"c": 0, "s": "00" * 32},
        ["00" * 32, "00" * 32],
    ],
    ids=["a missing member", "an extra member", "uppercase hex", "31 bytes",
         "a scalar not below the order", "a number", "an array"],
)  # fmt: skip
def test_a_malformed_proof_is_refused(value: object) -> None:
    with pytest.raises(BlindEncodingError):
        Proof.from_json(value)
