"""Generate the vectors of what every blind round shares (tests/vectors/blind/round.json, SPEC
15.12.5): proof contexts, the service's round key and share with their derived nonces, the
service's shuffle step drawn from the step key of a shuffle key, and one card opened with
shares and with keys.

Fixed inputs: table ``tbl-blind``, round ``tbl-blind.1``, the server seed of 15.10
(``SHA-256("fairdeal vector tbl-blind.1")``), the shuffle key ``SHA-256("fairdeal vector
shuffle key tbl-blind.1")``, the seats' round keys of primitives.json
(``hash_to_scalar("fairdeal vector round key seat N")``) and the seats' nonces
``hash_to_scalar("fairdeal vector " + label)`` (a seat never fixes a nonce). Made with
libsodium's backend; tests/blind/test_rounds.py regenerates the file in memory and fails on
any difference, and checks it (and js-round.json) on both backends. Run ``python -m
tests.vectors.blind.make_round`` from the repository's root to rewrite it.
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from fairdeal.blind import elgamal, proofs, rounds, tags
from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, Group, ristretto255, scalar_bytes
from fairdeal.cards import canonical_deck
from tests.vectors.blind.make import fixed

OUTPUT = Path(__file__).parent / "round.json"
TABLE = "tbl-blind"
ROUND = "tbl-blind.1"
GAME, DECKS = "toto21", 1
POSITION = 3  # the card whose share the service proves and which the vectors open
SERVER_SEED = hashlib.sha256(f"fairdeal vector {ROUND}".encode("ascii")).digest()
SHUFFLE_KEY = hashlib.sha256(f"fairdeal vector shuffle key {ROUND}".encode("ascii")).digest()
SEATS = ("seat:0", "seat:1")
OF = rounds.RoundDeck(TABLE, ROUND, GAME, DECKS)
# (party, purpose, index) of each context listed; the first and the last are SPEC's examples
CONTEXTS = (
    ("seat:0", "round-key", 0),
    ("server", "round-key", 0),
    ("seat:1", "round-key", 0),
    ("server", "shuffle", 0),
    ("seat:0", "shuffle", 1),
    ("seat:1", "shuffle", 2),
    ("seat:1", "share", 0),
    ("server", "share", 3),
)
# Contexts an implementation refuses to build (SPEC 15.12.1): name, table, round, party,
# purpose, index
REFUSED = (
    ("a non-ASCII party", TABLE, ROUND, "seat:\u0661", "share", 0),
    ("a seat number with a leading zero", TABLE, ROUND, "seat:01", "share", 0),
    ("a seat number above 99", TABLE, ROUND, "seat:100", "share", 0),
    ("a party in capitals", TABLE, ROUND, "Server", "share", 0),
    ("another purpose", TABLE, ROUND, "server", "round_key", 0),
    ("a round-key index other than 0", TABLE, ROUND, "seat:0", "round-key", 1),
    ("an index of 2^53", TABLE, ROUND, "server", "share", 2**53),
    ("a boolean index", TABLE, ROUND, "server", "share", True),
    ("an empty table id", "", ROUND, "server", "share", 0),
    ("a round id with a space", TABLE, "tbl blind.1", "server", "share", 0),
    ("a non-ASCII round id", TABLE, "tbl-blind.\u0661", "server", "share", 0),
)


def h(data: bytes) -> str:
    return data.hex()


def scalar(k: int) -> str:
    return h(scalar_bytes(k))


def context(party: str, purpose: str, index: int) -> bytes:
    return rounds.proof_context(TABLE, ROUND, party, purpose, index)


def _contexts() -> dict[str, Any]:
    return {
        "lp": [{"string": s, "bytes": h(rounds.lp(s))} for s in ("", TABLE, ROUND, "seat:0")],
        "contexts": [
            {"party": p, "purpose": u, "index": i, "length": len(c), "bytes": h(c)}
            for p, u, i in CONTEXTS
            for c in [context(p, u, i)]
        ],
        "refused_contexts": [
            {"name": n, "table": t, "round": r, "party": p, "purpose": u, "index": i}
            for n, t, r, p, u, i in REFUSED
        ],
    }


def _seats(group: Group) -> list[dict[str, Any]]:
    out = []
    for n, party in enumerate(SEATS):
        x, k = fixed(f"round key seat {n}"), fixed(f"round key proof nonce seat {n}")
        ctx = context(party, "round-key", 0)
        proof = proofs.prove_knowledge(group, x, context=ctx, nonce=k)
        out.append({"party": party, "private": scalar(x), "key": h(group.base(x)),
                    "context": h(ctx), "nonce": scalar(k), "proof": proof.to_json()})  # fmt: skip
    return out


def _server_key(group: Group) -> dict[str, Any]:
    made = rounds.server_key_with_proof(group, SERVER_SEED, table=TABLE, round_id=ROUND)
    x, key, proof = made.private, made.key, made.proof
    ctx = context("server", "round-key", 0)
    ctr, k = rounds.key_nonce(group, SERVER_SEED, key, ctx)
    return {
        "private": scalar(x),
        "key": h(key),
        "context": h(ctx),
        "ctr": ctr,
        "nonce_input": h(rounds.key_nonce_input(group, SERVER_SEED, ctr, key, ctx)),
        "nonce": scalar(k),
        "t": h(group.base(k)),
        "proof": proof.to_json(),
    }


def _server_share(group: Group, x0: int, ciphertext: elgamal.Ciphertext) -> dict[str, Any]:
    share = rounds.server_share(
        group, SERVER_SEED, ciphertext, table=TABLE, round_id=ROUND, position=POSITION
    )
    ctx = context("server", "share", POSITION)
    statement = (group.base(x0), ciphertext.b, share.share)
    ctr, k = rounds.share_nonce(group, SERVER_SEED, statement, ctx)
    return {
        "position": POSITION,
        "ciphertext": ciphertext.to_json(),
        "context": h(ctx),
        "ctr": ctr,
        "nonce_input": h(rounds.share_nonce_input(group, SERVER_SEED, ctr, statement, ctx)),
        "nonce": scalar(k),
        "t1": h(group.base(k)),
        "t2": h(group.mul(ciphertext.b, k)),
        **share.to_json(),
    }


def _other_nonces(group: Group, x0: int, ciphertext: elgamal.Ciphertext) -> list[dict[str, Any]]:
    """The nonces 15.12.2 gives for statements near the vectors' own: each differs."""
    key, b = group.base(x0), ciphertext.b
    other_b = group.add(b, group.generator)
    other_seed = hashlib.sha256(b"fairdeal vector tbl-blind.2").digest()
    share_ctx, key_ctx = context("server", "share", POSITION), context("server", "round-key", 0)
    cases = [
        ("the share of another position", "share", SERVER_SEED,
         (b, context("server", "share", POSITION + 1))),
        ("the share of another b", "share", SERVER_SEED, (other_b, share_ctx)),
        ("the share under a seat's context", "share", SERVER_SEED,
         (b, context("seat:0", "share", POSITION))),
        ("the key proof for another round", "knowledge", SERVER_SEED,
         (None, rounds.proof_context(TABLE, "tbl-blind.2", "server", "round-key", 0))),
        ("the key proof from another server seed", "knowledge", other_seed, (None, key_ctx)),
    ]  # fmt: skip
    out = []
    for name, kind, seed, (a, ctx) in cases:
        if kind == "share":
            assert a is not None
            statement = (key, a, group.mul(a, x0))
            ctr, k = rounds.share_nonce(group, seed, statement, ctx)
            extra = {"a": h(a), "d": h(statement[2])}
        else:
            ctr, k = rounds.key_nonce(group, seed, key, ctx)
            extra = {}
        out.append({"name": name, "proof_of": kind, "server_seed": h(seed), "key": h(key),
                    **extra, "context": h(ctx), "ctr": ctr, "nonce": scalar(k)})  # fmt: skip
    return out


class _Recording:
    """A randomness that records what it gives (the step's proof draws)."""

    def __init__(self, inner: rounds.StreamScalars) -> None:
        self.inner, self.drawn = inner, list[int]()

    def below(self, bound: int) -> int:
        self.drawn.append(self.inner.below(bound))
        return self.drawn[-1]


def _server_step(group: Group, joint: bytes) -> tuple[dict[str, Any], rounds.ServerStep]:
    step = rounds.server_step(group, SHUFFLE_KEY, joint, OF)
    inputs = tuple((c.a, c.b) for c in elgamal.public_deck(group, GAME, DECKS))
    statement = rounds.server_statement(group, joint, inputs, step.outputs, OF)
    step_key = rounds.step_key(group, SHUFFLE_KEY, joint, OF)
    recording = _Recording(rounds.StreamScalars(step_key, rounds.PROOF_STREAM))
    assert tw.prove(statement, step.witness, recording) == step.proof
    tw.verify(statement, step.proof)
    return {
        "shuffle_key": h(SHUFFLE_KEY),
        "game": GAME,
        "decks": DECKS,
        "n": len(inputs),
        "context": h(statement.context),
        "key": h(joint),
        "step_key_input": h(rounds.step_key_input(group, joint, OF)),
        "step_key": h(step_key),
        "permutation": list(step.witness.permutation),
        "reencryption": [scalar(r) for r in step.witness.randomness],
        "draws": [scalar(r) for r in recording.drawn],
        "outputs": tw.encode_deck(group, step.outputs),
        "proof": tw.encode_proof(group, step.proof),
    }, step


def _altered_steps(group: Group, joint: bytes, step: rounds.ServerStep) -> list[dict[str, Any]]:
    """Steps that are not the one the shuffle key gives, each with a proof 15.11.7 accepts
    (but the last), so that only the recomputation of 15.12.3 refuses them."""
    inputs = tuple((c.a, c.b) for c in elgamal.public_deck(group, GAME, DECKS))
    psi, r = list(step.witness.permutation), list(step.witness.randomness)
    swapped = [psi[1], psi[0], *psi[2:]]
    bumped = [r[0], (r[1] + 1) % ORDER, *r[2:]]
    witnesses = [
        ("one re-encryption scalar changed (r'[1] + 1)", psi, bumped, 0, None),
        ("psi with its first two entries swapped", swapped, r, 0, None),
        ("one proof draw changed (the first omega_1 + 1)", psi, r, 0, 2 * len(inputs)),
        ("the proof made for another step's context (index 1)", psi, r, 1, None),
    ]
    out = []
    for name, permutation, randomness, index, bump in witnesses:
        witness = tw.ShuffleWitness(tuple(permutation), tuple(randomness))
        outputs = tuple(tw.re_encrypt(group, joint, inputs[j], randomness[j]) for j in permutation)
        ctx = rounds.proof_context(TABLE, ROUND, "server", "shuffle", index)
        statement = tw.Statement(group, joint, inputs, outputs, ctx)
        proof = tw.prove(
            statement, witness, _Bumped(rounds.step_key(group, SHUFFLE_KEY, joint, OF), bump)
        )
        out.append({"name": name, "outputs": tw.encode_deck(group, outputs),
                    "proof": tw.encode_proof(group, proof)})  # fmt: skip
    return out


class _Bumped:
    """The proof stream's draws, draw ``at`` plus one (or none changed)."""

    def __init__(self, step_key: bytes, at: int | None) -> None:
        self.inner = rounds.StreamScalars(step_key, rounds.PROOF_STREAM)
        self.at, self.count = at, 0

    def below(self, bound: int) -> int:
        value = self.inner.below(bound)
        self.count += 1
        return (value + 1) % ORDER if self.count - 1 == self.at else value


def _other_step_keys(group: Group, joint: bytes, x0: int) -> list[dict[str, Any]]:
    """The step keys 15.12.3 gives from the same shuffle key for statements near the vectors'
    own: each differs, so no two of these steps share a draw."""
    cases = [
        ("another joint key (the service's and seat 0's only)", OF,
         group.add(group.base(x0), group.base(fixed("round key seat 0")))),
        ("another round's context", rounds.RoundDeck(TABLE, "tbl-blind.2", GAME, DECKS), joint),
        ("another game", rounds.RoundDeck(TABLE, ROUND, "kvitlach", 1), joint),
    ]  # fmt: skip
    out = []
    for name, of, key in cases:
        ctx = rounds.proof_context(of.table, of.round_id, "server", "shuffle", 0)
        out.append({"name": name, "context": h(ctx), "game": of.game, "decks": of.decks,
                    "key": h(key), "step_key_input": h(rounds.step_key_input(group, key, of)),
                    "step_key": h(rounds.step_key(group, SHUFFLE_KEY, key, of))})  # fmt: skip
    return out


def _opened(group: Group, xs: list[int], ciphertext: elgamal.Ciphertext) -> dict[str, Any]:
    points = elgamal.card_points(group, GAME, DECKS)
    server = rounds.server_share(
        group, SERVER_SEED, ciphertext, table=TABLE, round_id=ROUND, position=POSITION
    )
    shares = [{"party": "server", "context": h(context("server", "share", POSITION)),
               **server.to_json()}]  # fmt: skip
    for n, party in enumerate(SEATS):
        ctx = context(party, "share", POSITION)
        k = fixed(f"share nonce seat {n} position {POSITION}")
        share = elgamal.decryption_share(group, xs[n + 1], ciphertext, context=ctx, nonce=k)
        shares.append({"party": party, "context": h(ctx), "nonce": scalar(k), **share.to_json()})
    m = elgamal.decrypt(group, ciphertext, [bytes.fromhex(s["share"]) for s in shares])
    assert elgamal.decrypt_with_keys(group, ciphertext, xs) == m
    index = elgamal.card_index(points, m)
    return {
        "position": POSITION,
        "ciphertext": ciphertext.to_json(),
        "shares": shares,
        "private_keys": [scalar(x) for x in xs],
        "key_sum": scalar(sum(xs) % ORDER),
        "m": h(m),
        "index": index,
        "card": canonical_deck(GAME, DECKS)[index],
    }


def generate(group: Group) -> dict[str, Any]:
    seats = _seats(group)
    server_key = _server_key(group)
    x0 = int.from_bytes(bytes.fromhex(server_key["private"]), "little")
    xs = [x0, *(int.from_bytes(bytes.fromhex(s["private"]), "little") for s in seats)]
    joint = elgamal.joint_key(group, [group.base(x) for x in xs])
    step_vector, step = _server_step(group, joint)
    a, b = step.outputs[POSITION]
    ciphertext = elgamal.Ciphertext(a, b)
    return {
        "about": (
            "fairdeal protocol version 3: what every blind round shares (SPEC 15.12). Scalars "
            "are 32 bytes little-endian, elements RFC 9496 encodings, every hex lowercase; "
            "contexts and hashed inputs are hex bytes. The server seed is SHA-256('fairdeal "
            "vector tbl-blind.1'), the shuffle key SHA-256('fairdeal vector shuffle key "
            "tbl-blind.1'), the service's step drawn from its step key; the seats' keys and "
            "nonces are hash_to_scalar('fairdeal vector ' + label), fixed for the vectors "
            "only. Permutations are 0-based: output i is input permutation[i]. Generated by "
            "make_round.py beside this file."
        ),
        "tags": {
            name: h(getattr(tags, name))
            for name in ("PROOF_CONTEXT", "SERVER_NONCE", "SERVER_STEP")
        },
        "table": TABLE,
        "round": ROUND,
        **_contexts(),
        "server_seed": h(SERVER_SEED),
        "server_key": server_key,
        "seats": seats,
        "joint_key": h(joint),
        "server_share": _server_share(group, x0, ciphertext),
        "other_nonces": _other_nonces(group, x0, ciphertext),
        "server_step": step_vector,
        "other_step_keys": _other_step_keys(group, joint, x0),
        "altered_steps": _altered_steps(group, joint, step),
        "opened": _opened(group, xs, ciphertext),
    }


def render(group: Group | None = None) -> str:
    return json.dumps(generate(group or ristretto255("sodium")), indent=1) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
