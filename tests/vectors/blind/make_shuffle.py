"""Generate the shuffle proof's vectors (tests/vectors/blind/shuffle.json, SPEC 15.11.9).

Each valid step lists its statement (context, joint key, input deck), the shuffler's secret
(permutation, re-encryption scalars), every value the prover drew (in the order it drew them),
every hashed value a reimplementer checks first (the generators, y, the u seed, u, c), the
output deck and the proof. Each invalid step is a whole statement and proof that a checker
must refuse, named for the attack, with the step of SPEC 15.11.7 that refuses it and, for
step 5, the first equation that fails.

Every secret and every draw is fixed: draw k of a label L is ``SHA-512("fairdeal vector " ‖ L
‖ u64be(k))`` read little-endian, mod the bound (a party never draws this way). Made with
libsodium's backend; tests/blind/test_shuffle_vectors.py regenerates the file in memory with
each backend and fails on any difference. Run ``python tests/vectors/blind/make_shuffle.py``
to rewrite it.
"""

import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from fairdeal.blind import elgamal
from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, Group, ristretto255

OUTPUT = Path(__file__).parent / "shuffle.json"
ROUND = "tbl-blind.1"
Deck = tuple[tuple[bytes, bytes], ...]


class Fixed:
    """The vectors' draws for one label, recorded as drawn."""

    def __init__(self, label: str) -> None:
        self.label = b"fairdeal vector " + label.encode("ascii")
        self.drawn: list[int] = []

    def below(self, bound: int) -> int:
        digest = hashlib.sha512(self.label + len(self.drawn).to_bytes(8, "big")).digest()
        value = int.from_bytes(digest, "little") % bound
        self.drawn.append(value)
        return value


def context(seat: int, step: int) -> bytes:
    """An example context: the table mode fixes the real ones."""
    parts = {"purpose": "shuffle", "round": ROUND, "seat": seat, "step": step}
    return json.dumps(parts, sort_keys=True, separators=(",", ":")).encode("ascii")


def scalar(k: int) -> str:
    return k.to_bytes(32, "little").hex()


def _step(
    group: Group, name: str, key: bytes, inputs: Deck, ctx: bytes
) -> tuple[dict[str, Any], tw.Statement[bytes], tw.ShuffleWitness]:
    shuffling = Fixed(f"{name} shuffle")
    outputs, witness = tw.shuffle(group, key, inputs, shuffling)
    statement = tw.Statement(group, key, inputs, outputs, ctx)
    proving = Fixed(f"{name} proof")
    proof = tw.prove(statement, witness, proving)
    tw.verify(statement, proof)
    oracle = tw.FIAT_SHAMIR
    u = oracle.permutation_challenges(statement, proof.c)
    vector = {
        "name": name,
        "n": len(inputs),
        "context": ctx.hex(),
        "key": key.hex(),
        "inputs": tw.encode_deck(group, inputs),
        "permutation": list(witness.permutation),
        "randomness": [scalar(r) for r in witness.randomness],
        "draws": [scalar(r) for r in proving.drawn],
        "outputs": tw.encode_deck(group, outputs),
        "y": _y(statement).hex(),
        "u_seed": _u_seed(statement, proof.c).hex(),
        "u": [scalar(x) for x in u],
        "challenge": scalar(oracle.challenge(statement, proof.c, proof.c_hat, proof.t)),
        "proof": tw.encode_proof(group, proof),
    }
    return vector, statement, witness


def _y(statement: tw.Statement[bytes]) -> bytes:
    group, ctx = statement.group, statement.context
    data = tw.SHUFFLE_STATEMENT + len(ctx).to_bytes(8, "big") + ctx
    data += len(statement.inputs).to_bytes(8, "big") + statement.key
    data += b"".join(group.encode(a) + group.encode(b) for a, b in statement.inputs)
    data += b"".join(group.encode(a) + group.encode(b) for a, b in statement.outputs)
    return hashlib.sha512(data).digest()


def _u_seed(statement: tw.Statement[bytes], c: tuple[bytes, ...]) -> bytes:
    return hashlib.sha512(tw.SHUFFLE_U_SEED + _y(statement) + b"".join(c)).digest()


def _refusal(statement: tw.Statement[bytes], proof: dict[str, Any]) -> dict[str, Any]:
    """Where SPEC 15.11.7 refuses it: step 1–2 (malformed) or 5, with the first equation."""
    group = statement.group
    try:
        tw.verify_step(
            group,
            statement.key.hex(),
            tw.encode_deck(group, statement.inputs),
            tw.encode_deck(group, statement.outputs),
            proof,
            context=statement.context,
        )
    except tw.MalformedShuffleProofError:
        return {"refused_at": "shape or encoding (steps 1-2)"}
    except tw.InvalidShuffleProofError as e:
        equation = str(e).split("proof's ")[1].split(" ")[0]
        return {"refused_at": "equations (step 5)", "first_failing_equation": equation}
    raise AssertionError("a negative vector that verifies")


def edited(proof: dict[str, Any], name: str, value: Any, index: int | None = None) -> dict:
    """A copy of a proof's JSON with one member, or one entry of a list member, replaced."""
    changed = {k: list(v) if isinstance(v, list) else v for k, v in proof.items()}
    if index is None:
        changed[name] = value
    else:
        changed[name][index] = value
    return changed


def _invalid(name: str, statement: tw.Statement[bytes], proof: dict[str, Any]) -> dict[str, Any]:
    group = statement.group
    return {
        "name": name,
        "context": statement.context.hex(),
        "key": statement.key.hex(),
        "inputs": tw.encode_deck(group, statement.inputs),
        "outputs": tw.encode_deck(group, statement.outputs),
        "proof": proof,
        **_refusal(statement, proof),
    }


def _negative(
    group: Group, statement: tw.Statement[bytes], witness: tw.ShuffleWitness, other: Any
) -> list[dict[str, Any]]:
    honest = tw.prove(statement, witness, Fixed("negative honest proof"))
    encoded = tw.encode_proof(group, honest)
    key, inputs, outputs = statement.key, statement.inputs, statement.outputs
    chosen = tw.re_encrypt(group, key, inputs[0], Fixed("stacked").below(ORDER))
    stacked = replace(statement, outputs=(*outputs[:-1], chosen))
    swapped = replace(statement, outputs=(outputs[3], *outputs[1:3], outputs[0], *outputs[4:]))
    j = witness.permutation[2]
    other_r = tw.re_encrypt(group, key, inputs[j], witness.randomness[j] + 1)
    wrong_r = replace(statement, outputs=(*outputs[:2], other_r, *outputs[3:]))

    def own(tampered: tw.Statement[bytes], label: str) -> dict[str, Any]:
        return tw.encode_proof(group, tw.prove(tampered, witness, Fixed(label)))

    def edit(name: str, value: Any, index: int | None = None) -> dict[str, Any]:
        return edited(encoded, name, value, index)

    s_prime_3 = scalar((honest.s_prime[3] + 1) % ORDER)
    t_hat_0 = group.add(honest.t.t_hat[0], group.generator).hex()
    return [
        _invalid("a stacked card, with the honest proof", stacked, encoded),
        _invalid("a stacked card, with a proof made for it", stacked, own(stacked, "stacked p")),
        _invalid("a swapped pair of outputs, with the honest proof", swapped, encoded),
        _invalid("a swapped pair, with a proof made for it", swapped, own(swapped, "swap p")),
        _invalid("an output re-encrypted with other randomness", wrong_r, own(wrong_r, "wr p")),
        _invalid(
            "the proof reused under another context",
            replace(statement, context=context(2, 3)),
            encoded,
        ),
        _invalid("the proof reused for another step", other, encoded),
        _invalid("one response changed (s_prime[3] + 1)", statement, edit("s_prime", s_prime_3, 3)),
        _invalid("one commitment changed (t_hat[0] + G)", statement, edit("t_hat", t_hat_0, 0)),
        _invalid(
            "the output deck one card short", replace(statement, outputs=outputs[:-1]), encoded
        ),
        _invalid(
            "the proof's s_hat one entry short", statement, edit("s_hat", encoded["s_hat"][:-1])
        ),
        _invalid("t3 not an element encoding", statement, edit("t3", "ff" * 32)),
        _invalid("s1 not below the order", statement, edit("s1", scalar(honest.s1 + ORDER))),
        _invalid("t1 in uppercase hex", statement, edit("t1", encoded["t1"].upper())),
        _invalid("an extra member", statement, {**encoded, "c_bar": encoded["t1"]}),
        _invalid("the joint key is the identity", replace(statement, key=group.identity), encoded),
    ]


def generate(group: Group) -> dict[str, Any]:
    key = group.base(Fixed("joint key").below(ORDER - 1) + 1)
    toto21 = tuple((c.a, c.b) for c in elgamal.public_deck(group, "toto21", 1))
    kvitlach2 = tuple((c.a, c.b) for c in elgamal.public_deck(group, "kvitlach", 2))
    valid = []
    for n in (1, 2):
        vector, _, _ = _step(group, f"n={n}", key, toto21[:n], context(0, 0))
        valid.append(vector)
    first, statement5, witness5 = _step(group, "n=5, step 0", key, toto21[:5], context(0, 0))
    second, other5, _ = _step(group, "n=5, step 1", key, statement5.outputs, context(1, 1))
    valid += [first, second]
    for name, cards in (("toto21 public deck", toto21), ("kvitlach 2 decks", kvitlach2)):
        vector, _, _ = _step(group, name, key, cards, context(0, 0))
        valid.append(vector)
    h0, hs = tw.FIAT_SHAMIR.generators(group, 48)
    return {
        "about": (
            "fairdeal protocol version 3 shuffle proof (SPEC 15.11): not used by any table yet. "
            "Elements and scalars as in primitives.json; contexts are examples. Draw k of a "
            "label L is SHA-512('fairdeal vector ' + L + u64be(k)) little-endian mod the bound; "
            "'draws' lists the prover's in the order drawn: r (in the order of i), r_hat, "
            "omega_1..4, then (omega_hat_i, omega'_i) for each i. 'permutation' is 0-based: "
            "output i is input permutation[i] re-encrypted with randomness[permutation[i]]. "
            "Generated by make_shuffle.py beside this file."
        ),
        "tags": {
            name: getattr(tw, name).hex()
            for name in (
                "SHUFFLE_GENERATOR",
                "SHUFFLE_STATEMENT",
                "SHUFFLE_U_SEED",
                "SHUFFLE_U",
                "SHUFFLE_CHALLENGE",
            )
        },
        "generators": [x.hex() for x in (h0, *hs)],
        "valid": valid,
        "invalid": _negative(group, statement5, witness5, other5),
    }


def render(group: Group | None = None) -> str:
    return json.dumps(generate(group or ristretto255("sodium")), indent=1) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
