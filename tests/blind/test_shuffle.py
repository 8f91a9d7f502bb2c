"""The shuffle proof (SPEC 15.11): honest steps verify, over ristretto255 (both backends) and a
multiplicative test group; each named attack is refused, and refused for the reason SPEC
gives; the JSON form refuses what is not of its form. test_shuffle_chvote.py reproduces an
independent hand-worked example; test_shuffle_vectors.py pins the bytes."""

import hashlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, Group
from tests.blind.backends import BACKENDS, PURE, SODIUM
from tests.blind.zp_group import SAFE_128, ZpGroup
from tests.vectors.blind.make_shuffle import edited

PROVER: Group = SODIUM if SODIUM is not None else PURE
CONTEXT = b'{"round":"tbl-blind.1","seat":1,"step":2}'


class Counter:
    """A reproducible source for tests (never for a party): SHA-512 of a label and a count."""

    def __init__(self, label: str) -> None:
        self.label, self.count = label.encode(), 0

    def below(self, bound: int) -> int:
        self.count += 1
        digest = hashlib.sha512(self.label + self.count.to_bytes(8, "big")).digest()
        return int.from_bytes(digest, "little") % bound


def deck(group: Any, n: int, label: str = "card") -> tuple[tuple[Any, Any], ...]:
    """n distinct card points in the clear, (M_i, O), as the public deck is (SPEC 15.8)."""
    return tuple((group.hash_to_element(f"{label} {i}".encode()), group.identity) for i in range(n))


def step(group: Any, n: int, label: str = "step") -> tuple[tw.Statement[Any], tw.ShuffleWitness]:
    """An honest shuffle of an n-card deck under a fixed joint key, and its witness."""
    key = group.base(Counter(f"{label} key").below(group.order - 1) + 1)
    inputs = deck(group, n)
    outputs, witness = tw.shuffle(group, key, inputs, Counter(label))
    return tw.Statement(group, key, inputs, outputs, CONTEXT), witness


def proved(group: Any, n: int, label: str = "step") -> tuple[tw.Statement[Any], tw.ShuffleProof]:
    statement, witness = step(group, n, label)
    return statement, tw.prove(statement, witness, Counter(f"{label} proof"))


@pytest.mark.parametrize("n", [1, 2, 3, 36, 48])
def test_an_honest_step_verifies(n: int) -> None:
    statement, proof = proved(PROVER, n)
    tw.verify(statement, proof)


@pytest.mark.parametrize("group", BACKENDS)
def test_both_backends_verify_and_refuse_alike(group: Group) -> None:
    statement, proof = proved(PROVER, 5)
    tw.verify(replace(statement, group=group), proof)
    swapped = _swap(statement.outputs, 0, 1)
    with pytest.raises(tw.InvalidShuffleProofError):
        tw.verify(replace(statement, group=group, outputs=swapped), proof)


def test_a_chain_of_steps_verifies_step_by_step() -> None:
    """Each party's output is the next one's input: b ≠ O from the second step on."""
    key = PROVER.base(12345)
    cards = deck(PROVER, 6)
    for party in range(3):
        outputs, witness = tw.shuffle(PROVER, key, cards, Counter(f"party {party}"))
        context = b"step %d" % party
        statement = tw.Statement(PROVER, key, cards, outputs, context)
        tw.verify(statement, tw.prove(statement, witness, Counter(f"party {party} proof")))
        cards = outputs


def test_the_outputs_decrypt_to_the_inputs_cards_in_the_witness_order() -> None:
    x = 987654321
    inputs = deck(PROVER, 8)
    outputs, witness = tw.shuffle(PROVER, PROVER.base(x), inputs, Counter("decrypt"))
    for i, (a, b) in enumerate(outputs):
        assert PROVER.sub(a, PROVER.mul(b, x)) == inputs[witness.permutation[i]][0]


# --- The named attacks (SPEC 15.11.8): each refused as not a shuffle -------------------------

N = 5
Tamper = Callable[[tw.Statement[Any], tw.ShuffleWitness, tw.ShuffleProof], tuple[Any, Any]]


def _swap(outputs: tuple[Any, ...], i: int, j: int) -> tuple[Any, ...]:
    swapped = list(outputs)
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return tuple(swapped)


def _stacked(statement: tw.Statement[Any]) -> tw.Statement[Any]:
    """The last output replaced by a fresh encryption of a chosen card (the first input's)."""
    group, key = statement.group, statement.key
    chosen = tw.re_encrypt(group, key, statement.inputs[0], 424242)
    return replace(statement, outputs=(*statement.outputs[:-1], chosen))


def _wrong_randomness(statement: tw.Statement[Any], witness: tw.ShuffleWitness) -> Any:
    """Output 2 re-encrypted from its own input with another scalar than the witness's."""
    group, key = statement.group, statement.key
    j = witness.permutation[2]
    other = tw.re_encrypt(group, key, statement.inputs[j], witness.randomness[j] + 1)
    outputs = list(statement.outputs)
    outputs[2] = other
    return replace(statement, outputs=tuple(outputs))


def _response(proof: tw.ShuffleProof, name: str, index: int | None = None) -> tw.ShuffleProof:
    value = getattr(proof, name)
    if index is None:
        return replace(proof, **{name: (value + 1) % ORDER})
    changed = list(value)
    changed[index] = (changed[index] + 1) % ORDER
    return replace(proof, **{name: tuple(changed)})


def _commitment(proof: tw.ShuffleProof, name: str) -> tw.ShuffleProof:
    group = PROVER
    if name in ("c", "c_hat"):
        values = list(getattr(proof, name))
        values[1] = group.add(values[1], group.generator)
        return replace(proof, **{name: tuple(values)})
    t = replace(proof.t, **{name: group.add(getattr(proof.t, name), group.generator)})
    return replace(proof, t=t)


ATTACKS: dict[str, Tamper] = {
    "a stacked card, with the honest proof": lambda s, w, p: (_stacked(s), p),
    "a stacked card, with a proof made for the tampered deck": lambda s, w, p: (
        _stacked(s),
        tw.prove(_stacked(s), w, Counter("stacked")),
    ),
    "a card duplicated (the last output a re-encryption of the first)": lambda s, w, p: (
        replace(s, outputs=(*s.outputs[:-1], tw.re_encrypt(PROVER, s.key, s.outputs[0], 7))),
        p,
    ),
    "a swapped pair of outputs": lambda s, w, p: (replace(s, outputs=_swap(s.outputs, 0, 3)), p),
    "a swapped pair, with a proof made for the swapped deck": lambda s, w, p: (
        replace(s, outputs=_swap(s.outputs, 0, 3)),
        tw.prove(replace(s, outputs=_swap(s.outputs, 0, 3)), w, Counter("swapped")),
    ),
    "an output re-encrypted with other randomness than the witness": lambda s, w, p: (
        _wrong_randomness(s, w),
        tw.prove(_wrong_randomness(s, w), w, Counter("wrong randomness")),
    ),
    "the proof reused under another context (another step)": lambda s, w, p: (
        replace(s, context=b'{"round":"tbl-blind.1","seat":2,"step":3}'),
        p,
    ),
    "the proof reused under another joint key": lambda s, w, p: (
        replace(s, key=PROVER.add(s.key, PROVER.generator)),
        p,
    ),
    "the proof reused for another step's decks": lambda s, w, p: (proved(PROVER, N, "other")[0], p),
    "the permutation commitment of another step's proof": lambda s, w, p: (
        s,
        replace(p, c=proved(PROVER, N, "other")[1].c),
    ),
    "an input deck other than the one shuffled": lambda s, w, p: (
        replace(s, inputs=deck(PROVER, N, "other card")),
        p,
    ),
    **{
        f"the response {name} changed": (lambda s, w, p, name=name: (s, _response(p, name)))
        for name in ("s1", "s2", "s3", "s4")
    },
    **{
        f"one of the responses {name} changed": (
            lambda s, w, p, name=name: (s, _response(p, name, 3))
        )
        for name in ("s_hat", "s_prime")
    },
    **{
        f"the commitment {name} changed": (lambda s, w, p, name=name: (s, _commitment(p, name)))
        for name in ("c", "c_hat", "t1", "t2", "t3", "t41", "t42")
    },
    "one commitment of t_hat changed": lambda s, w, p: (
        s,
        replace(p, t=replace(p.t, t_hat=(p.t.t_hat[0], PROVER.generator, *p.t.t_hat[2:]))),
    ),
}


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
def test_a_named_attack_is_refused(attack: str) -> None:
    statement, witness = step(PROVER, N)
    proof = tw.prove(statement, witness, Counter("proof"))
    tw.verify(statement, proof)  # the honest step, first
    tampered_statement, tampered_proof = ATTACKS[attack](statement, witness, proof)
    with pytest.raises(tw.InvalidShuffleProofError) as refused:
        tw.verify(tampered_statement, tampered_proof)
    assert refused.value.code == "shuffle_invalid"


# --- Shape and encodings (SPEC 15.11.7 steps 1–2) --------------------------------------------


def test_wrong_lengths_are_malformed() -> None:
    statement, proof = proved(PROVER, N)
    short = replace(statement, outputs=statement.outputs[:-1])
    with pytest.raises(tw.MalformedShuffleProofError):
        tw.verify(short, proof)
    for name in ("c", "c_hat", "s_hat", "s_prime"):
        with pytest.raises(tw.MalformedShuffleProofError):
            tw.verify(statement, replace(proof, **{name: getattr(proof, name)[:-1]}))
    with pytest.raises(tw.MalformedShuffleProofError):
        tw.verify(statement, replace(proof, t=replace(proof.t, t_hat=proof.t.t_hat * 2)))
    empty = replace(statement, inputs=(), outputs=())
    with pytest.raises(tw.MalformedShuffleProofError):
        tw.verify(empty, proof)


def test_an_identity_joint_key_is_refused() -> None:
    statement, proof = proved(PROVER, 2)
    with pytest.raises(tw.MalformedShuffleProofError, match="identity"):
        tw.verify(replace(statement, key=PROVER.identity), proof)


def test_the_json_form_round_trips() -> None:
    _, proof = proved(PROVER, 4)
    data = tw.encode_proof(PROVER, proof)
    assert set(data) == tw.MEMBERS
    assert tw.decode_proof(PROVER, data, 4) == proof
    assert all(len(data[name]) == 64 for name in ("t1", "s1"))


NOT_CANONICAL_ELEMENT = "ff" * 32  # s ≥ p: no ristretto255 encoding
NON_CANONICAL_SCALAR = (ORDER + 1).to_bytes(32, "little").hex()


MALFORMED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "an element that is no encoding": lambda d: edited(d, "t3", NOT_CANONICAL_ELEMENT),
    "an element of the chain that is no encoding": lambda d: edited(
        d, "c_hat", NOT_CANONICAL_ELEMENT, 1
    ),
    "a scalar not below the order": lambda d: edited(d, "s2", NON_CANONICAL_SCALAR),
    "a scalar of a list not below the order": lambda d: edited(
        d, "s_prime", NON_CANONICAL_SCALAR, 0
    ),
    "uppercase hex": lambda d: edited(d, "t1", d["t1"].upper()),
    "a short element": lambda d: edited(d, "t1", d["t1"][:62]),
    "a number, not a string": lambda d: edited(d, "s1", 1),
    "a missing member": lambda d: {k: v for k, v in d.items() if k != "t42"},
    "an extra member": lambda d: {**d, "c_bar": d["t1"]},
    "a list one entry short": lambda d: edited(d, "s_hat", d["s_hat"][:-1]),
    "a list one entry long": lambda d: edited(d, "t_hat", [*d["t_hat"], d["t1"]]),
    "a string, not a list": lambda d: edited(d, "c", d["t1"]),
    "not an object": lambda d: list(d.values()),
}


@pytest.mark.parametrize("case", list(MALFORMED), ids=list(MALFORMED))
def test_a_malformed_proof_is_refused(case: str) -> None:
    _, proof = proved(PROVER, 3)
    data = MALFORMED[case](tw.encode_proof(PROVER, proof))
    with pytest.raises(tw.MalformedShuffleProofError) as refused:
        tw.decode_proof(PROVER, data, 3)
    assert refused.value.code == "shuffle_invalid"


UNREDUCED: dict[str, Callable[[tw.ShuffleProof], tw.ShuffleProof]] = {
    "s1 + the order": lambda p: replace(p, s1=p.s1 + ORDER),
    "s4 + the order": lambda p: replace(p, s4=p.s4 + ORDER),
    "s'_1 + the order": lambda p: replace(p, s_prime=(p.s_prime[0] + ORDER, *p.s_prime[1:])),
    "a negative s_hat": lambda p: replace(p, s_hat=(p.s_hat[0] - ORDER, *p.s_hat[1:])),
    "a bool for s2": lambda p: replace(p, s2=True),
}


@pytest.mark.parametrize("case", list(UNREDUCED), ids=list(UNREDUCED))
def test_an_in_memory_proof_with_an_unreduced_scalar_is_refused(case: str) -> None:
    """Crypto review L2: the same proof with s + ℓ verified (the group reduces it), a second
    encoding that no JSON reader takes; ``verify`` now checks step 2 on decoded values too."""
    statement, proof = proved(PROVER, 3)
    with pytest.raises(tw.MalformedShuffleProofError, match="order"):
        tw.verify(statement, UNREDUCED[case](proof))


def test_an_in_memory_element_that_is_no_encoding_is_refused() -> None:
    statement, proof = proved(PROVER, 3)
    twin = bytearray(proof.t.t1)
    twin[31] |= 0x80  # the second encoding libsodium 1.0.18 would read as t1
    with pytest.raises(tw.MalformedShuffleProofError):
        tw.verify(statement, replace(proof, t=replace(proof.t, t1=bytes(twin))))
    with pytest.raises(tw.MalformedShuffleProofError):
        tw.verify(replace(statement, outputs=((b"\xff" * 32, b"\x00" * 32),) * 3), proof)


def test_a_proof_is_written_as_it_is_never_reduced() -> None:
    _, proof = proved(PROVER, 2)
    with pytest.raises(ValueError, match="never reduced"):
        tw.encode_proof(PROVER, replace(proof, s3=proof.s3 + ORDER))


class Zeros:
    """Every draw 0: legal (a draw is uniform mod ℓ), and what an adversarial prover may pick."""

    def below(self, bound: int) -> int:
        return 0


def test_a_proof_with_zero_scalars_and_identity_commitments_verifies() -> None:
    """SPEC 15.11.5 and 15.11.7: zero responses and O commitments are valid; a checker that
    refused them would disagree with the other implementations on a valid proof."""
    statement, witness = step(PROVER, 3)
    proof = tw.prove(statement, witness, Zeros())
    assert (proof.s1, proof.s2, proof.s3) == (0, 0, 0)
    assert proof.t.t1 == proof.t.t2 == PROVER.identity
    tw.verify(statement, proof)
    assert tw.decode_proof(PROVER, tw.encode_proof(PROVER, proof), 3) == proof  # read as valid


def test_a_witness_is_never_in_a_repr() -> None:
    """Crypto review L3: ψ and r' stay out of log lines, f-strings and error reports."""
    _, witness = step(PROVER, 4)
    text = f"{witness!r} {witness}"
    assert str(witness.randomness[0]) not in text
    assert repr(witness.permutation) not in text and "permutation" not in text


def test_a_variable_time_backend_refuses_to_prove() -> None:
    from fairdeal.blind.ristretto_pure import PureRistretto255

    verifier_only = PureRistretto255()
    statement, witness = step(PROVER, 2)
    with pytest.raises(ValueError, match="variable time"):
        tw.prove(replace(statement, group=verifier_only), witness)
    with pytest.raises(ValueError, match="variable time"):
        tw.shuffle(verifier_only, statement.key, statement.inputs)
    with pytest.raises(ValueError, match="variable time"):  # crypto review L4
        tw.re_encrypt(verifier_only, statement.key, statement.inputs[0], witness.randomness[0])


# --- A property over the multiplicative test group -------------------------------------------


def _zp_step(group: ZpGroup, n: int, seed: int) -> tuple[tw.Statement[int], tw.ShuffleProof]:
    key = group.base(seed % (group.q - 1) + 1)
    inputs = tuple(
        (group.hash_to_element(b"zp card %d" % i), group.base(seed + i)) for i in range(n)
    )
    outputs, witness = tw.shuffle(group, key, inputs, Counter(f"zp {seed}"))
    statement = tw.Statement(group, key, inputs, outputs, b"zp")
    return statement, tw.prove(statement, witness, Counter(f"zp proof {seed}"))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 7), seed=st.integers(0, 2**64), victim=st.integers(0, 6))
def test_property_honest_steps_verify_and_a_changed_output_does_not(
    n: int, seed: int, victim: int
) -> None:
    group = SAFE_128
    statement, proof = _zp_step(group, n, seed)
    tw.verify(statement, proof)
    outputs = list(statement.outputs)
    a, b = outputs[victim % n]
    outputs[victim % n] = (group.add(a, group.generator), b)  # another card, same randomness
    with pytest.raises(tw.InvalidShuffleProofError):
        tw.verify(replace(statement, outputs=tuple(outputs)), proof)
