"""Generate the dealer-blind primitives' vectors (tests/vectors/blind/primitives.json, SPEC
15.10): tags, scalars, hashes to the group and to scalars, every card point, the service's
round key, a proof of knowledge, a share proof, an ElGamal round of three parties and named
negative cases, each with the bytes a reimplementer checks first (every hashed input).

Every secret is fixed: ``hash_to_scalar("fairdeal vector " + label)`` (SPEC 15.2) of an ASCII
label, so anyone can recompute it; the server seed is ``SHA-256("fairdeal vector " + round
id)``, as in the other vectors. The nonces are fixed the same way, which a party never does.
Made with libsodium's backend; tests/blind/test_vectors.py regenerates the file in memory
with each backend and fails on any difference. Run ``python tests/vectors/blind/make.py`` to
rewrite it.
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from fairdeal.blind import elgamal, proofs, tags
from fairdeal.blind.group import ORDER, Group, hash_to_scalar, ristretto255, scalar_bytes

OUTPUT = Path(__file__).parent / "primitives.json"
ROUND = "tbl-blind.1"
DECKS = (("toto21", 1), ("kvitlach", 1), ("kvitlach", 2))


def fixed(label: str) -> int:
    """The vectors' fixed scalar for ``label`` (never 0 for the labels used here)."""
    k = hash_to_scalar(b"fairdeal vector " + label.encode("ascii"))
    assert k
    return k


def context(purpose: str, seat: int | None, position: int | None = None) -> bytes:
    """An example context: the table mode fixes the real ones (SPEC 15.6)."""
    parts = {"position": position, "purpose": purpose, "round": ROUND, "seat": seat}
    return json.dumps(parts, sort_keys=True, separators=(",", ":")).encode("ascii")


def h(data: bytes) -> str:
    return data.hex()


def _scalars() -> dict[str, Any]:
    values = [0, 1, 2**64, ORDER - 1]
    return {
        "order": str(ORDER),
        "order_le": h(ORDER.to_bytes(32, "little")),
        "encodings": [{"value": str(k), "bytes": h(scalar_bytes(k))} for k in values],
        "refused": [
            {"why": "the order itself", "bytes": h(ORDER.to_bytes(32, "little"))},
            {"why": "the order plus one", "bytes": h((ORDER + 1).to_bytes(32, "little"))},
            {"why": "2^255 - 1", "bytes": h((2**255 - 1).to_bytes(32, "little"))},
            {"why": "all bits set", "bytes": "ff" * 32},
            {"why": "31 bytes", "bytes": "01" * 31},
            {"why": "uppercase hex", "bytes": "0A" + "00" * 31},
        ],
    }


def _hashes(group: Group) -> dict[str, Any]:
    inputs = [b"", b"abc", tags.ROUND_KEY + bytes(32)]
    return {
        "hash_to_scalar": [
            {
                "input": h(m),
                "sha512": h(hashlib.sha512(m).digest()),
                "scalar": h(scalar_bytes(hash_to_scalar(m))),
            }
            for m in inputs
        ],
        "hash_to_element": [
            {
                "input": h(m),
                "sha512": h(hashlib.sha512(m).digest()),
                "element": h(group.hash_to_element(m)),
            }
            for m in inputs
        ],
    }


def _card_points(group: Group) -> dict[str, Any]:
    first = tags.CARD_POINT + b"toto21\x00" + (1).to_bytes(8, "big") + (0).to_bytes(8, "big")
    return {
        "first_input": h(first),
        "decks": {
            f"{game}/{decks}": [h(p) for p in elgamal.card_points(group, game, decks)]
            for game, decks in DECKS
        },
    }


def _round_key(group: Group) -> dict[str, Any]:
    seed = hashlib.sha256(f"fairdeal vector {ROUND}".encode("ascii")).digest()
    x0 = elgamal.server_round_key(seed)
    return {
        "round": ROUND,
        "server_seed": h(seed),
        "hashed": h(tags.ROUND_KEY + seed),
        "private": h(scalar_bytes(x0)),
        "public": h(group.base(x0)),
    }


def _knowledge(group: Group, x: int, ctx: bytes, nonce_label: str) -> dict[str, Any]:
    k = fixed(nonce_label)
    proof = proofs.prove_knowledge(group, x, context=ctx, nonce=k)
    key, t = group.base(x), group.base(k)
    return {
        "private": h(scalar_bytes(x)),
        "key": h(key),
        "context": ctx.decode("ascii"),
        "context_hex": h(ctx),
        "nonce": h(scalar_bytes(k)),
        "t": h(t),
        "hashed": h(proofs.knowledge_transcript(group, key, t, ctx)),
        "proof": proof.to_json(),
    }


def _dleq(group: Group, x: int, a: bytes, ctx: bytes, nonce_label: str) -> dict[str, Any]:
    k = fixed(nonce_label)
    d, proof = proofs.prove_dleq(group, x, a, context=ctx, nonce=k)
    key, t1, t2 = group.base(x), group.base(k), group.mul(a, k)
    return {
        "private": h(scalar_bytes(x)),
        "key": h(key),
        "a": h(a),
        "d": h(d),
        "context": ctx.decode("ascii"),
        "context_hex": h(ctx),
        "nonce": h(scalar_bytes(k)),
        "t1": h(t1),
        "t2": h(t2),
        "hashed": h(proofs.dleq_transcript(group, (key, a, d), (t1, t2), ctx)),
        "proof": proof.to_json(),
    }


def _parties(group: Group) -> list[int]:
    seed = hashlib.sha256(f"fairdeal vector {ROUND}".encode("ascii")).digest()
    return [elgamal.server_round_key(seed), fixed("round key seat 0"), fixed("round key seat 1")]


def _elgamal(group: Group) -> dict[str, Any]:
    """Three parties; card 5 of the Toto21 deck re-encrypted by each, then opened."""
    xs = _parties(group)
    keys = [group.base(x) for x in xs]
    joint = elgamal.joint_key(group, keys)
    points = elgamal.card_points(group, "toto21", 1)
    ciphertext = elgamal.public_deck(group, "toto21", 1)[5]
    steps = []
    for party in range(3):
        r = fixed(f"reencryption {party}")
        ciphertext = elgamal.reencrypt(group, joint, ciphertext, r)
        steps.append({"r": h(scalar_bytes(r)), "ciphertext": ciphertext.to_json()})
    shares = []
    for party, x in enumerate(xs):
        ctx = context("share", party, 0)
        share = elgamal.decryption_share(
            group, x, ciphertext, context=ctx, nonce=fixed(f"share nonce {party}")
        )
        shares.append({"party": party, "context": ctx.decode("ascii"), **share.to_json()})
    m = elgamal.decrypt(group, ciphertext, [bytes.fromhex(s["share"]) for s in shares])
    r = fixed("encryption")
    return {
        "private_keys": [h(scalar_bytes(x)) for x in xs],
        "public_keys": [h(k) for k in keys],
        "joint_key": h(joint),
        "encryption": {
            "card": 0,
            "r": h(scalar_bytes(r)),
            "ciphertext": elgamal.encrypt(group, joint, points[0], r).to_json(),
        },
        "card": 5,
        "public": elgamal.public_deck(group, "toto21", 1)[5].to_json(),
        "reencryptions": steps,
        "shares": shares,
        "plaintext": h(m),
        "card_index": elgamal.card_index(points, m),
    }


def _negative(group: Group) -> list[dict[str, Any]]:
    """Named cases every verifier refuses, each with the error class it raises."""
    x = fixed("round key seat 0")
    ctx = context("round_key", 0)
    good = proofs.prove_knowledge(group, x, context=ctx, nonce=fixed("key proof nonce")).to_json()
    key = h(group.base(x))
    flipped = {**good, "s": h(scalar_bytes(int.from_bytes(bytes.fromhex(good["s"]), "little") + 1))}
    cases: list[dict[str, Any]] = [
        {"name": "a key proof for another context", "proof_of": "knowledge", "key": key,
         "context": context("round_key", 1).decode("ascii"), "proof": good, "error": "bad_proof"},
        {"name": "a key proof shown for another key", "proof_of": "knowledge",
         "key": h(group.base(x + 1)), "context": ctx.decode("ascii"), "proof": good,
         "error": "bad_proof"},
        {"name": "a key proof with s plus one", "proof_of": "knowledge", "key": key,
         "context": ctx.decode("ascii"), "proof": flipped, "error": "bad_proof"},
        {"name": "a key proof whose s is the order (not canonical)", "proof_of": "knowledge",
         "key": key, "context": ctx.decode("ascii"),
         "proof": {**good, "s": h(ORDER.to_bytes(32, "little"))}, "error": "invalid_scalar"},
        {"name": "a key proof with uppercase hex", "proof_of": "knowledge", "key": key,
         "context": ctx.decode("ascii"), "proof": {**good, "c": good["c"].upper()},
         "error": "encoding"},
        {"name": "a round key that is the identity", "proof_of": "knowledge", "key": "00" * 32,
         "context": ctx.decode("ascii"), "proof": good, "error": "identity_key"},
        {"name": "a round key that is a non-canonical encoding", "proof_of": "knowledge",
         "key": "ed" + "ff" * 30 + "7f", "context": ctx.decode("ascii"), "proof": good,
         "error": "invalid_element"},
    ]  # fmt: skip
    a = group.base(fixed("ciphertext b"))
    share_ctx = context("share", 0, 3)
    d, proof = proofs.prove_dleq(group, x, a, context=share_ctx, nonce=fixed("negative dleq nonce"))
    other_a = group.base(fixed("another ciphertext b"))
    base = {"proof_of": "dleq", "key": key, "a": h(a), "d": h(d),
            "context": share_ctx.decode("ascii"), "proof": proof.to_json()}  # fmt: skip
    cases += [
        {**base, "name": "a share proof for another context",
         "context": context("share", 0, 4).decode("ascii"), "error": "bad_proof"},
        {**base, "name": "a share shown for another ciphertext", "a": h(other_a),
         "error": "bad_proof"},
        {**base, "name": "a share of another ciphertext with this one's proof",
         "d": h(group.mul(other_a, x)), "error": "bad_proof"},
        {**base, "name": "a share plus G", "d": h(group.add(d, group.generator)),
         "error": "bad_proof"},
        {**base, "name": "a share proof under another party's key",
         "key": h(group.base(x + 1)), "error": "bad_proof"},
    ]  # fmt: skip
    return cases


def generate(group: Group) -> dict[str, Any]:
    xs = _parties(group)
    share_b = elgamal.public_deck(group, "toto21", 1)[0]
    joint = elgamal.joint_key(group, [group.base(x) for x in xs])
    share_b = elgamal.reencrypt(group, joint, share_b, fixed("reencryption 0"))
    return {
        "about": (
            "fairdeal protocol version 3 primitives (SPEC 15): not used by any table yet. "
            "Scalars are 32 bytes little-endian; elements RFC 9496 encodings; every hex "
            "lowercase. Fixed secrets and nonces are hash_to_scalar('fairdeal vector ' + "
            "label), the server seed SHA-256('fairdeal vector ' + round id). Contexts are "
            "examples: the table mode fixes the real ones. Generated by make.py beside this file."
        ),
        "tags": {
            name: h(getattr(tags, name))
            for name in ("CARD_POINT", "ROUND_KEY", "KEY_PROOF", "SHARE_PROOF")
        },
        "generator": h(group.generator),
        "scalars": _scalars(),
        **_hashes(group),
        "card_points": _card_points(group),
        "server_round_key": _round_key(group),
        "key_proof": _knowledge(group, xs[1], context("round_key", 0), "key proof nonce"),
        "share_proof": _dleq(group, xs[1], share_b.b, context("share", 0, 0), "dleq nonce"),
        "share_proof_of_identity": _dleq(
            group, xs[1], group.identity, context("share", 0, 1), "dleq nonce identity"
        ),
        "elgamal": _elgamal(group),
        "negative": _negative(group),
    }


def render(group: Group | None = None) -> str:
    return json.dumps(generate(group or ristretto255("sodium")), indent=1) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {OUTPUT.name}\n")
