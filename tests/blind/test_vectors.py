"""The dealer-blind vectors (SPEC 15.10): primitives.json is what make.py writes, with either
backend; and every vector file of these primitives, ours and the JavaScript module's
(js-primitives*.json, the same layout), is recomputed here from SPEC 15's formulas, its
negative cases refused with the named errors. (js-shuffle*.json: the shuffle proof's tests.)"""

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fairdeal.blind import elgamal, tags
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import (
    BlindEncodingError,
    Group,
    IdentityKeyError,
    InvalidElementError,
    InvalidScalarError,
    hash_to_scalar,
    read_element,
    read_hex32,
    read_scalar,
    scalar_bytes,
)
from fairdeal.blind.proofs import (
    BadProofError,
    Proof,
    dleq_transcript,
    knowledge_transcript,
    prove_dleq,
    prove_knowledge,
    verify_dleq,
    verify_knowledge,
)
from tests.blind.backends import BACKENDS, PURE, needs_sodium
from tests.vectors.blind import make

FOLDER = Path(__file__).parents[1] / "vectors" / "blind"
FILES = [make.OUTPUT, *sorted(FOLDER.glob("js-primitives*.json"))]
backends = pytest.mark.parametrize("group", BACKENDS)
ERRORS: dict[str, type[Exception]] = {
    "bad_proof": BadProofError,
    "invalid_scalar": InvalidScalarError,
    "invalid_element": InvalidElementError,
    "identity_key": IdentityKeyError,
    "encoding": BlindEncodingError,
}


@needs_sodium
def test_the_committed_vectors_are_what_make_py_writes() -> None:
    assert make.OUTPUT.read_text(encoding="utf-8") == make.render()


def test_the_pure_backend_writes_the_same_vectors() -> None:
    assert make.OUTPUT.read_text(encoding="utf-8") == make.render(PURE)


def _b(text: str) -> bytes:
    return bytes.fromhex(text)


def _check_scalars(group: Group, doc: dict[str, Any]) -> None:
    for case in doc["encodings"]:
        assert read_scalar(_b(case["bytes"])) == int(case["value"])
        assert scalar_bytes(int(case["value"])).hex() == case["bytes"]
    for case in doc["refused"]:
        with pytest.raises(BlindEncodingError):
            read_scalar(read_hex32(case["bytes"], case["why"]))


def _check_hash_to_scalar(group: Group, cases: list[dict[str, str]]) -> None:
    for case in cases:
        digest = hashlib.sha512(_b(case["input"])).digest()
        assert digest.hex() == case["sha512"]
        assert scalar_bytes(hash_to_scalar(_b(case["input"]))).hex() == case["scalar"]


def _check_hash_to_element(group: Group, cases: list[dict[str, str]]) -> None:
    for case in cases:
        assert group.hash_to_element(_b(case["input"])).hex() == case["element"]


def _check_card_points(group: Group, doc: dict[str, Any]) -> None:
    for name, points in doc["decks"].items():
        game, decks = name.split("/")
        assert [p.hex() for p in elgamal.card_points(group, game, int(decks))] == points
    assert group.hash_to_element(_b(doc["first_input"])).hex() == doc["decks"]["toto21/1"][0]


def _check_round_key(group: Group, doc: dict[str, Any]) -> None:
    seed = _b(doc["server_seed"])
    assert _b(doc["hashed"]) == tags.ROUND_KEY + seed
    x0 = elgamal.server_round_key(seed)
    assert scalar_bytes(x0).hex() == doc["private"]
    assert group.base(x0).hex() == doc["public"]


def _context(case: dict[str, Any]) -> bytes:
    context = _b(case["context_hex"])
    assert context == case["context"].encode("utf-8")
    return context


def _check_key_proof(group: Group, case: dict[str, Any]) -> None:
    x, k, context = read_scalar(_b(case["private"])), read_scalar(_b(case["nonce"])), _context(case)
    key, t = group.base(x), group.base(k)
    assert (key.hex(), t.hex()) == (case["key"], case["t"])
    hashed = knowledge_transcript(group, key, t, context)
    assert hashed.hex() == case["hashed"]
    length = len(context).to_bytes(8, "big")
    assert hashed == b"".join((tags.KEY_PROOF, group.generator, key, t, length, context))
    proof = Proof.from_json(case["proof"])
    assert proof.c == hash_to_scalar(hashed)
    assert group.base(proof.s) == group.add(t, group.mul(key, proof.c))
    verify_knowledge(group, key, context=context, proof=proof)
    if group.secret_safe:
        assert prove_knowledge(group, x, context=context, nonce=k) == proof


def _check_share_proof(group: Group, case: dict[str, Any]) -> None:
    x, k, context = read_scalar(_b(case["private"])), read_scalar(_b(case["nonce"])), _context(case)
    a, d = read_element(group, case["a"], "a"), read_element(group, case["d"], "d")
    key = group.base(x)
    t1, t2 = group.base(k), group.mul(a, k)
    assert (key.hex(), d.hex(), t1.hex(), t2.hex()) == (
        case["key"], case["d"], case["t1"], case["t2"]
    )  # fmt: skip
    assert d == group.mul(a, x)
    hashed = dleq_transcript(group, (key, a, d), (t1, t2), context)
    assert hashed.hex() == case["hashed"]
    length = len(context).to_bytes(8, "big")
    hashed_by_hand = (tags.SHARE_PROOF, group.generator, key, a, d, t1, t2, length, context)
    assert hashed == b"".join(hashed_by_hand)
    proof = Proof.from_json(case["proof"])
    assert proof.c == hash_to_scalar(hashed)
    verify_dleq(group, key, a, d, context=context, proof=proof)
    if group.secret_safe:
        assert prove_dleq(group, x, a, context=context, nonce=k) == (d, proof)


def _check_elgamal(group: Group, doc: dict[str, Any]) -> None:
    xs = [read_scalar(_b(x)) for x in doc["private_keys"]]
    keys = [group.base(x) for x in xs]
    assert [k.hex() for k in keys] == doc["public_keys"]
    joint = elgamal.joint_key(group, keys)
    assert joint.hex() == doc["joint_key"]
    points = elgamal.card_points(group, "toto21", 1)
    encryption = doc["encryption"]
    r = read_scalar(_b(encryption["r"]))
    m = points[encryption["card"]]
    expected = Ciphertext(group.add(m, group.mul(joint, r)), group.base(r))
    assert Ciphertext.from_json(group, encryption["ciphertext"]) == expected
    ciphertext = Ciphertext(points[doc["card"]], group.identity)
    assert ciphertext.to_json() == doc["public"]
    for step in doc["reencryptions"]:
        r = read_scalar(_b(step["r"]))
        ciphertext = Ciphertext(
            group.add(ciphertext.a, group.mul(joint, r)), group.add(ciphertext.b, group.base(r))
        )
        assert Ciphertext.from_json(group, step["ciphertext"]) == ciphertext
    shares = []
    for case in doc["shares"]:
        share = Share.from_json(group, {n: case[n] for n in ("proof", "share")})
        context = case["context"].encode("utf-8")
        elgamal.verify_share(group, keys[case["party"]], ciphertext, share, context=context)
        shares.append(share.share)
    plain = elgamal.decrypt(group, ciphertext, shares)
    assert plain.hex() == doc["plaintext"]
    assert elgamal.card_index(points, plain) == doc["card_index"] == doc["card"]


def _refuse(group: Group, case: dict[str, Any]) -> None:
    key = read_element(group, case["key"], "key")
    context = case["context"].encode("utf-8")
    proof = Proof.from_json(case["proof"])
    if case["proof_of"] == "knowledge":
        verify_knowledge(group, key, context=context, proof=proof)
    else:
        a, d = read_element(group, case["a"], "a"), read_element(group, case["d"], "d")
        verify_dleq(group, key, a, d, context=context, proof=proof)


def _check_negative(group: Group, cases: list[dict[str, Any]]) -> None:
    assert cases
    for case in cases:
        with pytest.raises(ERRORS[case["error"]]):
            _refuse(group, case)


CHECKS: dict[str, Callable[[Group, Any], None]] = {
    "scalars": _check_scalars,
    "hash_to_scalar": _check_hash_to_scalar,
    "hash_to_element": _check_hash_to_element,
    "card_points": _check_card_points,
    "server_round_key": _check_round_key,
    "key_proof": _check_key_proof,
    "share_proof": _check_share_proof,
    "share_proof_of_identity": _check_share_proof,
    "elgamal": _check_elgamal,
    "negative": _check_negative,
}


@backends
@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_value_of_a_vector_file_follows_from_spec_15(group: Group, path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert {n: v for n, v in doc["tags"].items() if hasattr(tags, n)} == {
        n: getattr(tags, n).hex() for n in ("CARD_POINT", "ROUND_KEY", "KEY_PROOF", "SHARE_PROOF")
    }
    checked = [name for name in CHECKS if name in doc]
    for name in checked:
        CHECKS[name](group, doc[name])
    assert "key_proof" in checked and "share_proof" in checked, f"{path.name} holds no proof"
