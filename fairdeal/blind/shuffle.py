"""A shuffle step and its Terelius–Wikström proof (SPEC 15.11).

Implemented from the pseudo-code of R. Haenni, P. Locher, R. Koenig and E. Dubuis,
"Pseudo-Code Algorithms for Verifiable Re-Encryption Mix-Nets" (FC 2017 Workshops, LNCS 10323):
GenShuffle, GenPermutation and GenReEncryption (``shuffle``), GenProof with
GenPermutationCommitment and GenCommitmentChain (``prove``), CheckProof (``verify``). Their
GetGenerators and GetChallenges/GetChallenge are the transcripts of SPEC 15.11.2–3
(``FiatShamir``), injectable so that a test can reproduce values worked by hand elsewhere.

Translation: the paper writes the group multiplicatively, here additively (g^x·y is
``add(base(x), y)``); a ciphertext is (a, b) = (M + r·X, r·G), a carrying the message as in
the paper's (a, b). The paper counts from 1, this code from 0: ``permutation[i] = j`` is its
ψ(i+1) = j+1, output i being input j re-encrypted with ``randomness[j]`` (the scalar belongs to
the input, as in the paper's GenShuffle).
"""

import hashlib
import hmac
import json
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from fairdeal.blind.algebra import SYSTEM_RANDOMNESS, Group, Randomness
from fairdeal.blind.group import BlindError, length_prefixed
from fairdeal.blind.tags import (
    SHUFFLE_CHALLENGE,
    SHUFFLE_GENERATOR,
    SHUFFLE_STATEMENT,
    SHUFFLE_U,
    SHUFFLE_U_SEED,
)
from fairdeal.errors import FairdealError

E = TypeVar("E")
Ciphertext = tuple[E, E]


class ShuffleProofError(BlindError):
    """A shuffle step that is refused (SPEC 15.11.7): the verifier's finding ``shuffle_invalid``."""

    code = "shuffle_invalid"


class MalformedShuffleProofError(ShuffleProofError):
    """A step of the wrong shape: lengths, members, encodings, an identity joint key (steps 1–2)."""


class InvalidShuffleProofError(ShuffleProofError):
    """A well-formed proof whose equation fails (step 5): not a shuffle of the input deck."""


@dataclass(frozen=True)
class ShuffleWitness:
    """The shuffler's secret: ψ (output i is input ``permutation[i]``) and r' by input. Kept
    out of ``repr``, so that no log line or error report carries it."""

    permutation: tuple[int, ...] = field(repr=False)
    randomness: tuple[int, ...] = field(repr=False)


@dataclass(frozen=True)
class Statement(Generic[E]):
    """What a proof is about: ``outputs`` is a permutation and re-encryption of ``inputs``
    under ``key``, for the one step ``context`` names."""

    group: Group[E]
    key: E
    inputs: tuple[Ciphertext[E], ...]
    outputs: tuple[Ciphertext[E], ...]
    context: bytes


@dataclass(frozen=True)
class Commitments(Generic[E]):
    """The paper's t = (t_1, t_2, t_3, (t_41, t_42), t̂)."""

    t1: E
    t2: E
    t3: E
    t41: E
    t42: E
    t_hat: tuple[E, ...]


@dataclass(frozen=True)
class ShuffleProof(Generic[E]):
    """The paper's π = (t, s, c, ĉ); SPEC 15.11.6 gives its JSON form."""

    c: tuple[E, ...]
    c_hat: tuple[E, ...]
    t: Commitments[E]
    s1: int
    s2: int
    s3: int
    s4: int
    s_hat: tuple[int, ...]
    s_prime: tuple[int, ...]


class Oracle(Protocol[E]):
    """GetGenerators, GetChallenges and GetChallenge: SPEC's ``FIAT_SHAMIR``, or a test's stub."""

    def generators(self, group: Group[E], n: int) -> tuple[E, tuple[E, ...]]:
        """(h, (h_1, …, h_n)): the chain's base and the commitment generators."""
        ...

    def permutation_challenges(self, statement: Statement[E], c: Sequence[E]) -> tuple[int, ...]:
        """u_1 … u_N, from the statement and the permutation commitment."""
        ...

    def challenge(
        self, statement: Statement[E], c: Sequence[E], c_hat: Sequence[E], t: Commitments[E]
    ) -> int:
        """The challenge c, from everything above and the commitments t."""
        ...


# --- SPEC 15.11.2–3: generators and challenges ------------------------------------------------


def _u64be(i: int) -> bytes:
    return i.to_bytes(8, "big")


def _reduce(group: Group[Any], digest: bytes) -> int:
    return int.from_bytes(digest, "little") % group.order


class FiatShamir:
    """The transcripts of SPEC 15.11.2–3, over any group (elements hashed as ``encode`` gives)."""

    def generators(self, group: Group[E], n: int) -> tuple[E, tuple[E, ...]]:
        h = [group.hash_to_element(SHUFFLE_GENERATOR + _u64be(i)) for i in range(n + 1)]
        return h[0], tuple(h[1:])

    def permutation_challenges(self, statement: Statement[E], c: Sequence[E]) -> tuple[int, ...]:
        group = statement.group
        seed = hashlib.sha512(SHUFFLE_U_SEED + _statement_digest(statement))
        for element in c:
            seed.update(group.encode(element))
        prefix = SHUFFLE_U + seed.digest()
        return tuple(
            _reduce(group, hashlib.sha512(prefix + _u64be(i)).digest())
            for i in range(1, len(c) + 1)
        )

    def challenge(
        self, statement: Statement[E], c: Sequence[E], c_hat: Sequence[E], t: Commitments[E]
    ) -> int:
        group = statement.group
        hashed = hashlib.sha512(SHUFFLE_CHALLENGE + _statement_digest(statement))
        for element in (*c, *c_hat, t.t1, t.t2, t.t3, t.t41, t.t42, *t.t_hat):
            hashed.update(group.encode(element))
        return _reduce(group, hashed.digest())


def _statement_digest(statement: Statement[Any]) -> bytes:
    """y of SPEC 15.11.3: the context, N, the key and both decks."""
    group, context = statement.group, statement.context
    hashed = hashlib.sha512(SHUFFLE_STATEMENT + length_prefixed(context))
    hashed.update(_u64be(len(statement.inputs)) + group.encode(statement.key))
    for a, b in (*statement.inputs, *statement.outputs):
        hashed.update(group.encode(a) + group.encode(b))
    return hashed.digest()


FIAT_SHAMIR = FiatShamir()


# --- The shuffle (GenShuffle, GenPermutation, GenReEncryption) -------------------------------


def gen_permutation(n: int, rng: Randomness) -> tuple[int, ...]:
    """The paper's GenPermutation: Knuth's shuffle, j_i drawn from the values not yet taken."""
    remaining = list(range(n))
    permutation = []
    for i in range(n):
        k = i + rng.below(n - i)
        permutation.append(remaining[k])
        remaining[k] = remaining[i]
    return tuple(permutation)


def re_encrypt(group: Group[E], key: E, ciphertext: Ciphertext[E], r: int) -> Ciphertext[E]:
    """The paper's GenReEncryption with its scalar given: (a + r·X, b + r·G). ``r`` is the
    shuffler's secret: a variable-time backend refuses it."""
    _require_secret_safe(group)
    a, b = ciphertext
    return group.add(a, group.mul(key, r)), group.add(b, group.base(r))


def shuffle(
    group: Group[E],
    key: E,
    ciphertexts: Sequence[Ciphertext[E]],
    rng: Randomness = SYSTEM_RANDOMNESS,
) -> tuple[tuple[Ciphertext[E], ...], ShuffleWitness]:
    """The paper's GenShuffle: ψ, then each input re-encrypted, then the outputs permuted."""
    _require_secret_safe(group)
    permutation = gen_permutation(len(ciphertexts), rng)
    randomness = tuple(rng.below(group.order) for _ in ciphertexts)
    re_encrypted = [
        re_encrypt(group, key, e, r) for e, r in zip(ciphertexts, randomness, strict=True)
    ]
    return tuple(re_encrypted[j] for j in permutation), ShuffleWitness(permutation, randomness)


# --- The proof (GenProof, GenPermutationCommitment, GenCommitmentChain) -----------------------


def permutation_commitment(
    group: Group[E], permutation: Sequence[int], h: Sequence[E], rng: Randomness
) -> tuple[tuple[E, ...], tuple[int, ...]]:
    """The paper's GenPermutationCommitment: c_j = r_j·G + h_i for j = ψ(i), drawn in i's order."""
    n = len(permutation)
    c: list[E] = [group.identity] * n
    r = [0] * n
    for i, j in enumerate(permutation):
        r[j] = rng.below(group.order)
        c[j] = group.add(group.base(r[j]), h[i])
    return tuple(c), tuple(r)


def commitment_chain(
    group: Group[E], c0: E, u_prime: Sequence[int], rng: Randomness
) -> tuple[tuple[E, ...], tuple[int, ...]]:
    """The paper's GenCommitmentChain: ĉ_i = r̂_i·G + u'_i·ĉ_(i−1), from ĉ_0 = c0."""
    chain, r_hat, previous = [], [], c0
    for u in u_prime:
        r = rng.below(group.order)
        previous = group.add(group.base(r), group.mul(previous, u))
        chain.append(previous)
        r_hat.append(r)
    return tuple(chain), tuple(r_hat)


def prove(
    statement: Statement[E],
    witness: ShuffleWitness,
    rng: Randomness = SYSTEM_RANDOMNESS,
    oracle: Oracle[E] = FIAT_SHAMIR,
) -> ShuffleProof[E]:
    """The paper's GenProof, for a statement the witness makes true (not checked here: a
    proof for a false statement fails ``verify``)."""
    group, q, n = statement.group, statement.group.order, len(statement.inputs)
    _require_secret_safe(group)
    _check_witness(statement, witness)
    psi, r_prime = witness.permutation, witness.randomness
    h, hs = oracle.generators(group, n)
    c, r = permutation_commitment(group, psi, hs, rng)
    u = oracle.permutation_challenges(statement, c)
    u_prime = [u[j] for j in psi]
    c_hat, r_hat = commitment_chain(group, h, u_prime, rng)
    w1, w2, w3, w4 = (rng.below(q) for _ in range(4))
    w_hat, w_prime = [], []
    for _ in range(n):  # drawn in the paper's order: ω̂_i, then ω'_i
        w_hat.append(rng.below(q))
        w_prime.append(rng.below(q))
    t = _commit(
        statement, hs=hs, chain=(h, *c_hat), w=(w1, w2, w3, w4), w_hat=w_hat, w_prime=w_prime
    )
    ch = oracle.challenge(statement, c, c_hat, t)
    v = _chain_weights(u_prime, q)
    return ShuffleProof(
        c=c,
        c_hat=c_hat,
        t=t,
        s1=(w1 + ch * sum(r)) % q,
        s2=(w2 + ch * _dot(r_hat, v)) % q,
        s3=(w3 + ch * _dot(r, u)) % q,
        s4=(w4 + ch * _dot(r_prime, u)) % q,
        s_hat=tuple((w + ch * x) % q for w, x in zip(w_hat, r_hat, strict=True)),
        s_prime=tuple((w + ch * x) % q for w, x in zip(w_prime, u_prime, strict=True)),
    )


def _commit(
    statement: Statement[E],
    *,
    hs: Sequence[E],
    chain: Sequence[E],
    w: tuple[int, int, int, int],
    w_hat: Sequence[int],
    w_prime: Sequence[int],
) -> Commitments[E]:
    """GenProof's t, with ``chain`` = (ĉ_0, ĉ_1, …, ĉ_N)."""
    group, key = statement.group, statement.key
    w1, w2, w3, w4 = w
    a_out = [a for a, _ in statement.outputs]
    b_out = [b for _, b in statement.outputs]
    return Commitments(
        t1=group.base(w1),
        t2=group.base(w2),
        t3=group.add(group.base(w3), _msm(group, hs, w_prime)),
        t41=group.sub(_msm(group, a_out, w_prime), group.mul(key, w4)),
        t42=group.sub(_msm(group, b_out, w_prime), group.base(w4)),
        t_hat=tuple(
            group.add(group.base(wh), group.mul(chain[i], wp))
            for i, (wh, wp) in enumerate(zip(w_hat, w_prime, strict=True))
        ),
    )


def _chain_weights(u_prime: Sequence[int], q: int) -> list[int]:
    """v_N = 1, v_i = u'_(i+1)·v_(i+1): what each r̂_i is multiplied by in ĉ_N."""
    v = [1] * len(u_prime)
    for i in range(len(u_prime) - 2, -1, -1):
        v[i] = u_prime[i + 1] * v[i + 1] % q
    return v


def _dot(xs: Sequence[int], ys: Sequence[int]) -> int:
    return sum(x * y for x, y in zip(xs, ys, strict=True))


def _msm(group: Group[E], points: Sequence[E], scalars: Sequence[int]) -> E:
    """Σ scalars[i]·points[i]."""
    return group.multi_mul(list(points), list(scalars))


def _require_secret_safe(group: Group[Any]) -> None:
    if not group.secret_safe:
        raise ValueError("this group backend is variable time: it verifies, it holds no secret")


def _check_witness(statement: Statement[Any], witness: ShuffleWitness) -> None:
    n = len(statement.inputs)
    if sorted(witness.permutation) != list(range(n)) or len(witness.randomness) != n:
        raise ValueError("the witness is not a permutation and n scalars for this deck")
    if n < 1 or len(statement.outputs) != n:
        raise ValueError("a shuffle takes n >= 1 ciphertexts to n")


# --- CheckProof ------------------------------------------------------------------------------


def verify(
    statement: Statement[E], proof: ShuffleProof[E], oracle: Oracle[E] = FIAT_SHAMIR
) -> None:
    """The paper's CheckProof (SPEC 15.11.7 steps 1–5 on in-memory values, each element and
    scalar held to the one encoding the JSON form allows). Returns nothing, or raises a
    ``ShuffleProofError``."""
    _check_shape(statement, proof)  # (1)
    _check_values(statement, proof)  # (2)
    _check_equations(statement, proof, oracle)  # (3)–(5)


def _check_equations(
    statement: Statement[E], proof: ShuffleProof[E], oracle: Oracle[E] = FIAT_SHAMIR
) -> None:
    """SPEC 15.11.7 steps 3–5, on values that passed steps 1–2. A proof found valid is
    remembered by the exact bytes checked (the statement's digest, the proof's encoding and
    the backend): the one memo of proof checks, so that a step checked again (a verifier's
    replay of what its step 8 checked, a bundle read twice) costs nothing (SPEC 15.13.12
    allows it: only the results count). Proofs of keys and shares take well under a
    millisecond each and are checked every time."""
    memo = _memo_key(statement, proof) if oracle is FIAT_SHAMIR else None
    if memo is not None and memo in _VERIFIED:
        _VERIFIED.move_to_end(memo)
        return
    _check_recomputed(statement, proof, oracle)
    if memo is not None:
        _VERIFIED[memo] = None
        while len(_VERIFIED) > _VERIFIED_KEPT:
            _VERIFIED.popitem(last=False)


_VERIFIED: "OrderedDict[bytes, None]" = OrderedDict()
_VERIFIED_KEPT = 256  # a few rounds' steps: 32 bytes each


def _memo_key(statement: Statement[Any], proof: ShuffleProof[Any]) -> bytes:
    group = statement.group
    proof_text = json.dumps(encode_proof(group, proof), sort_keys=True).encode()
    backend = type(group).__qualname__.encode()
    return hashlib.sha256(
        length_prefixed(backend) + _statement_digest(statement) + proof_text
    ).digest()


def _check_recomputed(statement: Statement[E], proof: ShuffleProof[E], oracle: Oracle[E]) -> None:
    group, q, n = statement.group, statement.group.order, len(statement.inputs)
    h, hs = oracle.generators(group, n)  # (3)
    u = oracle.permutation_challenges(statement, proof.c)  # (4)
    ch = oracle.challenge(statement, proof.c, proof.c_hat, proof.t)
    for name, expected, found in _recomputed(statement, proof, h=h, hs=hs, u=u, ch=ch, q=q):  # (5)
        if not hmac.compare_digest(group.encode(expected), group.encode(found)):
            raise InvalidShuffleProofError(f"the shuffle proof's {name} does not verify")


def _recomputed(
    statement: Statement[E],
    proof: ShuffleProof[E],
    *,
    h: E,
    hs: Sequence[E],
    u: Sequence[int],
    ch: int,
    q: int,
) -> list[tuple[str, E, E]]:
    """(name, t as given, t' recomputed) in SPEC's order: t_1, t_2, t_3, t_41, t_42, t̂_i.

    Each t' is written as in SPEC 15.11.7, ``x·G`` plus one multi-scalar multiplication."""
    group, key, t, minus_c = statement.group, statement.key, proof.t, -ch % q
    c_bar = group.sub(_sum(group, proof.c), _sum(group, hs))
    u_product = 1
    for x in u:
        u_product = u_product * x % q
    c_hat_n = group.sub(proof.c_hat[-1], group.mul(h, u_product))
    c_tilde = _msm(group, proof.c, u)
    a_star = _msm(group, [a for a, _ in statement.inputs], u)
    b_star = _msm(group, [b for _, b in statement.inputs], u)
    a_out = [a for a, _ in statement.outputs]
    b_out = [b for _, b in statement.outputs]
    s_prime = list(proof.s_prime)

    def line(s_g: int, points: list[E], scalars: list[int]) -> E:
        """s_g·G + Σ scalars[i]·points[i]."""
        return group.add(group.base(s_g), _msm(group, points, scalars))

    rows = [
        ("t1", t.t1, line(proof.s1, [c_bar], [minus_c])),
        ("t2", t.t2, line(proof.s2, [c_hat_n], [minus_c])),
        ("t3", t.t3, line(proof.s3, [*hs, c_tilde], [*s_prime, minus_c])),
        ("t41", t.t41, line(0, [key, *a_out, a_star], [-proof.s4 % q, *s_prime, minus_c])),
        ("t42", t.t42, line(-proof.s4 % q, [*b_out, b_star], [*s_prime, minus_c])),
    ]
    chain = (h, *proof.c_hat)
    for i, (s_hat, s_p) in enumerate(zip(proof.s_hat, s_prime, strict=True)):
        t_hat_i = line(s_hat, [chain[i], chain[i + 1]], [s_p, minus_c])
        rows.append((f"t_hat[{i}]", t.t_hat[i], t_hat_i))
    return rows


def _sum(group: Group[E], points: Sequence[E]) -> E:
    total = points[0]
    for point in points[1:]:
        total = group.add(total, point)
    return total


def _check_shape(statement: Statement[Any], proof: ShuffleProof[Any]) -> int:
    """SPEC 15.11.7 step 1 (and the identity key of step 2), on decoded values."""
    n = len(statement.inputs)
    lengths = {
        len(statement.outputs),
        len(proof.c),
        len(proof.c_hat),
        len(proof.t.t_hat),
        len(proof.s_hat),
        len(proof.s_prime),
    }
    if n < 1 or lengths != {n}:
        raise MalformedShuffleProofError(f"a shuffle step of {n} cards needs {n} of everything")
    group = statement.group
    if group.encode(statement.key) == group.encode(group.identity):
        raise MalformedShuffleProofError("the joint key is the identity")
    return n


def _check_values(statement: Statement[Any], proof: ShuffleProof[Any]) -> None:
    """SPEC 15.11.7 step 2 on decoded values: every element has a canonical encoding and every
    scalar is in [0, order), as ``decode_proof`` and ``read_step`` require of the JSON form."""
    group, t = statement.group, proof.t
    decks = [x for pair in (*statement.inputs, *statement.outputs) for x in pair]
    elements = (
        statement.key,
        *decks,
        *proof.c,
        *proof.c_hat,
        t.t1,
        t.t2,
        t.t3,
        t.t41,
        t.t42,
        *t.t_hat,
    )
    for element in elements:
        decode_element(group, group.encode(element))
    scalars = (proof.s1, proof.s2, proof.s3, proof.s4, *proof.s_hat, *proof.s_prime)
    if not all(type(s) is int and 0 <= s < group.order for s in scalars):
        raise MalformedShuffleProofError("a shuffle proof's scalar is in [0, order)")


# --- The proof's JSON form (SPEC 15.11.6) and step 2 ------------------------------------------

_ELEMENT_LISTS = ("c", "c_hat", "t_hat")
_ELEMENTS = ("t1", "t2", "t3", "t41", "t42")
_SCALARS = ("s1", "s2", "s3", "s4")
_SCALAR_LISTS = ("s_hat", "s_prime")
MEMBERS = frozenset(_ELEMENT_LISTS + _ELEMENTS + _SCALARS + _SCALAR_LISTS)


def encode_proof(group: Group[E], proof: ShuffleProof[E]) -> dict[str, Any]:
    """The proof as SPEC 15.11.6's object: every element and scalar as lowercase hex."""
    element = _hex_element(group)
    scalar = _hex_scalar(group)
    t = proof.t
    return {
        "c": [element(x) for x in proof.c],
        "c_hat": [element(x) for x in proof.c_hat],
        "t1": element(t.t1),
        "t2": element(t.t2),
        "t3": element(t.t3),
        "t41": element(t.t41),
        "t42": element(t.t42),
        "t_hat": [element(x) for x in t.t_hat],
        "s1": scalar(proof.s1),
        "s2": scalar(proof.s2),
        "s3": scalar(proof.s3),
        "s4": scalar(proof.s4),
        "s_hat": [scalar(x) for x in proof.s_hat],
        "s_prime": [scalar(x) for x in proof.s_prime],
    }


def decode_proof(group: Group[E], data: Any, n: int) -> ShuffleProof[E]:
    """SPEC 15.11.7 steps 1–2 for the proof of an ``n``-card step: its shape and encodings.
    Raises ``MalformedShuffleProofError`` (never repairs a value)."""
    if not isinstance(data, dict) or set(data) != MEMBERS:
        raise MalformedShuffleProofError("a shuffle proof has exactly SPEC 15.11.6's members")
    for name in _ELEMENT_LISTS + _SCALAR_LISTS:
        if not isinstance(data[name], list) or len(data[name]) != n:
            raise MalformedShuffleProofError(f"the shuffle proof's {name} needs {n} entries")
    element = _read(group, "element", lambda raw: decode_element(group, raw))
    scalar = _read(group, "scalar", lambda raw: decode_scalar(group, raw))
    return ShuffleProof(
        c=tuple(element(x) for x in data["c"]),
        c_hat=tuple(element(x) for x in data["c_hat"]),
        t=Commitments(
            t1=element(data["t1"]),
            t2=element(data["t2"]),
            t3=element(data["t3"]),
            t41=element(data["t41"]),
            t42=element(data["t42"]),
            t_hat=tuple(element(x) for x in data["t_hat"]),
        ),
        s1=scalar(data["s1"]),
        s2=scalar(data["s2"]),
        s3=scalar(data["s3"]),
        s4=scalar(data["s4"]),
        s_hat=tuple(scalar(x) for x in data["s_hat"]),
        s_prime=tuple(scalar(x) for x in data["s_prime"]),
    )


def read_step(
    group: Group[E], key: Any, inputs: Any, outputs: Any, proof: Any, *, context: bytes
) -> tuple[Statement[E], ShuffleProof[E]]:
    """SPEC 15.11.7 steps 1–2 from the JSON forms: the joint key (an element), both decks
    (arrays of 15.9's ciphertexts) and the proof (15.11.6). Raises
    ``MalformedShuffleProofError``; ``verify`` then runs steps 3–5."""
    if not isinstance(inputs, list) or not isinstance(outputs, list) or not inputs:
        raise MalformedShuffleProofError("both decks are non-empty arrays of ciphertexts")
    if len(outputs) != len(inputs):
        raise MalformedShuffleProofError("the output deck has as many cards as the input deck")
    element = _read(group, "element", lambda raw: decode_element(group, raw))

    def ciphertext(value: Any) -> Ciphertext[E]:
        if not isinstance(value, dict) or set(value) != {"a", "b"}:
            raise MalformedShuffleProofError("a ciphertext is an object with exactly a and b")
        return element(value["a"]), element(value["b"])

    statement = Statement(
        group,
        element(key),
        tuple(ciphertext(x) for x in inputs),
        tuple(ciphertext(x) for x in outputs),
        context,
    )
    return statement, decode_proof(group, proof, len(inputs))


def verify_step(
    group: Group[E], key: Any, inputs: Any, outputs: Any, proof: Any, *, context: bytes
) -> None:
    """SPEC 15.11.7 in full, from the JSON forms (``read_step`` decodes every value, so steps
    1–2 are not run again on them). Returns nothing, or raises a ``ShuffleProofError``."""
    statement, decoded = read_step(group, key, inputs, outputs, proof, context=context)
    _check_shape(statement, decoded)  # (1), the identity key of (2)
    _check_equations(statement, decoded)  # (3)–(5)


def encode_deck(group: Group[E], deck: Sequence[Ciphertext[E]]) -> list[dict[str, str]]:
    """A deck as 15.9's JSON: an array of ``{"a": element, "b": element}``."""
    return [{"a": group.encode(a).hex(), "b": group.encode(b).hex()} for a, b in deck]


T = TypeVar("T")


def _read(group: Group[Any], kind: str, parse: Callable[[bytes], T]) -> Callable[[Any], T]:
    size = _element_size(group) if kind == "element" else _scalar_size(group)
    pattern = re.compile(f"[0-9a-f]{{{2 * size}}}")

    def read(value: Any) -> T:
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise MalformedShuffleProofError(f"a shuffle proof {kind} is {2 * size} lowercase hex")
        return parse(bytes.fromhex(value))

    return read


def decode_element(group: Group[E], raw: bytes) -> E:
    """The element ``raw`` encodes, or ``MalformedShuffleProofError``."""
    try:
        return group.decode(raw)
    except (ValueError, FairdealError) as e:
        raise MalformedShuffleProofError("not a canonical element encoding") from e


def decode_scalar(group: Group[Any], raw: bytes) -> int:
    """A scalar's canonical little-endian bytes, or ``MalformedShuffleProofError``."""
    value = int.from_bytes(raw, "little")
    if len(raw) != _scalar_size(group) or value >= group.order:
        raise MalformedShuffleProofError("not a canonical scalar (little-endian, below the order)")
    return value


def _hex_element(group: Group[E]) -> Callable[[E], str]:
    return lambda x: group.encode(x).hex()


def _hex_scalar(group: Group[Any]) -> Callable[[int], str]:
    size = _scalar_size(group)

    def write(k: int) -> str:
        if not 0 <= k < group.order:
            raise ValueError("a proof's scalar is written as it is, never reduced: not < order")
        return k.to_bytes(size, "little").hex()

    return write


def _element_size(group: Group[Any]) -> int:
    return len(group.encode(group.generator))


def _scalar_size(group: Group[Any]) -> int:
    return (group.order.bit_length() + 7) // 8
