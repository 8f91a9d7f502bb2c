"""The shuffle proof's vectors (tests/vectors/blind/shuffle.json, SPEC 15.11.9): the file is
what make_shuffle.py makes, with either backend; every hashed value in it follows from SPEC's
formulas, recomputed here from the bytes alone; every valid step verifies from its JSON and
every invalid one is refused where the file says. The browser module's own vectors
(js-shuffle*.json, made from SPEC's text by the JavaScript implementation) are held to the same
checks, so each implementation verifies the other's proofs."""

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, Group
from tests.blind.backends import BACKENDS, PURE, SODIUM
from tests.vectors.blind import make_shuffle

FOLDER = Path(__file__).parents[1] / "vectors" / "blind"
VECTORS = json.loads((FOLDER / "shuffle.json").read_text(encoding="utf-8"))
JS_FILES = sorted(FOLDER.glob("js-shuffle*.json"))
# Every valid step of both files: Python's, and the browser module's (when it is in the tree).
VALID = [
    pytest.param(vector, id=f"{path.name}: {vector['name']}")
    for path in [FOLDER / "shuffle.json", *JS_FILES]
    for vector in json.loads(path.read_text(encoding="utf-8"))["valid"]
]
CHECKER: Group = SODIUM if SODIUM is not None else PURE
TAGS = {
    "SHUFFLE_GENERATOR": b"fairdeal/v3/shuffle-generator\x00",
    "SHUFFLE_STATEMENT": b"fairdeal/v3/shuffle-statement\x00",
    "SHUFFLE_U_SEED": b"fairdeal/v3/shuffle-u-seed\x00",
    "SHUFFLE_U": b"fairdeal/v3/shuffle-u\x00",
    "SHUFFLE_CHALLENGE": b"fairdeal/v3/shuffle-challenge\x00",
}


@pytest.mark.parametrize("group", BACKENDS)
def test_the_file_is_what_the_generator_makes(group: Group) -> None:
    assert make_shuffle.render(group) == (FOLDER / "shuffle.json").read_text(encoding="utf-8")


def test_the_tags_are_the_specs() -> None:
    assert {name: tag.hex() for name, tag in TAGS.items()} == VECTORS["tags"]
    assert all(getattr(tw, name) == tag for name, tag in TAGS.items())


def test_the_generators_follow_from_the_tag() -> None:
    for i, h in enumerate(VECTORS["generators"]):
        data = TAGS["SHUFFLE_GENERATOR"] + i.to_bytes(8, "big")
        assert CHECKER.hash_to_element(data).hex() == h


def _u64(i: int) -> bytes:
    return i.to_bytes(8, "big")


def _hash_to_scalar(data: bytes) -> str:
    k = int.from_bytes(hashlib.sha512(data).digest(), "little") % ORDER
    return k.to_bytes(32, "little").hex()


def _elements(deck: list[dict[str, str]]) -> bytes:
    return b"".join(bytes.fromhex(c["a"]) + bytes.fromhex(c["b"]) for c in deck)


@pytest.mark.parametrize("vector", VALID)
def test_the_hashed_values_follow_from_the_specs_formulas(vector: dict[str, Any]) -> None:
    """y, the u seed, u and c from SPEC 15.11.3, by hashlib on the file's bytes alone."""
    ctx, n, proof = bytes.fromhex(vector["context"]), vector["n"], vector["proof"]
    y = hashlib.sha512(
        TAGS["SHUFFLE_STATEMENT"]
        + _u64(len(ctx))
        + ctx
        + _u64(n)
        + bytes.fromhex(vector["key"])
        + _elements(vector["inputs"])
        + _elements(vector["outputs"])
    ).digest()
    assert y.hex() == vector["y"]
    c = b"".join(bytes.fromhex(x) for x in proof["c"])
    seed = hashlib.sha512(TAGS["SHUFFLE_U_SEED"] + y + c).digest()
    assert seed.hex() == vector["u_seed"]
    assert [_hash_to_scalar(TAGS["SHUFFLE_U"] + seed + _u64(i)) for i in range(1, n + 1)] == (
        vector["u"]
    )
    commitments = [*proof["c"], *proof["c_hat"], proof["t1"], proof["t2"], proof["t3"]]
    commitments += [proof["t41"], proof["t42"], *proof["t_hat"]]
    data = TAGS["SHUFFLE_CHALLENGE"] + y + b"".join(bytes.fromhex(x) for x in commitments)
    assert _hash_to_scalar(data) == vector["challenge"]


@pytest.mark.parametrize("vector", VALID)
def test_the_outputs_are_the_witness_re_encryption(vector: dict[str, Any]) -> None:
    key = bytes.fromhex(vector["key"])
    for i, j in enumerate(vector["permutation"]):
        a, b = (bytes.fromhex(vector["inputs"][j][x]) for x in "ab")
        r = int.from_bytes(bytes.fromhex(vector["randomness"][j]), "little")
        expected = tw.re_encrypt(CHECKER, key, (a, b), r)
        assert tw.encode_deck(CHECKER, [expected]) == [vector["outputs"][i]]


class Replay:
    """A vector's recorded draws, handed out in the order they were drawn."""

    def __init__(self, draws: list[str]) -> None:
        self.draws = [int.from_bytes(bytes.fromhex(x), "little") for x in draws]

    def below(self, bound: int) -> int:
        value = self.draws.pop(0)
        assert value < bound
        return value


@pytest.mark.parametrize("vector", VALID)
def test_the_proof_is_remade_byte_for_byte_from_its_draws(vector: dict[str, Any]) -> None:
    """The same statement, secret and draws give the same proof: for the browser module's
    vectors, Python's prover remakes the JavaScript one's proof."""
    statement, _ = tw.read_step(
        CHECKER,
        vector["key"],
        vector["inputs"],
        vector["outputs"],
        vector["proof"],
        context=bytes.fromhex(vector["context"]),
    )
    randomness = tuple(int.from_bytes(bytes.fromhex(r), "little") for r in vector["randomness"])
    witness = tw.ShuffleWitness(tuple(vector["permutation"]), randomness)
    replay = Replay(vector["draws"])
    assert tw.encode_proof(CHECKER, tw.prove(statement, witness, replay)) == vector["proof"]
    assert replay.draws == []


def _verify(group: Group, vector: dict[str, Any]) -> None:
    """SPEC 15.11.7 on a vector's JSON, as any implementation reads it."""
    context = bytes.fromhex(vector["context"])
    proof = vector["proof"]
    tw.verify_step(
        group, vector["key"], vector["inputs"], vector["outputs"], proof, context=context
    )


def _check_file(data: dict[str, Any], group: Group) -> None:
    for vector in data["valid"]:
        _verify(group, vector)
    for vector in data["invalid"]:
        kind = (
            tw.MalformedShuffleProofError
            if vector["refused_at"].startswith("shape")
            else tw.InvalidShuffleProofError
        )
        with pytest.raises(kind) as refused:
            _verify(group, vector)
        if "first_failing_equation" in vector:
            assert f"proof's {vector['first_failing_equation']} " in str(refused.value)


def test_every_valid_step_verifies_and_every_invalid_one_is_refused_where_named() -> None:
    _check_file(VECTORS, CHECKER)
    names = {v["name"] for v in VECTORS["invalid"]}
    assert len(names) == len(VECTORS["invalid"]) >= 16


def test_the_pure_backend_checks_the_file_alike() -> None:
    small = {
        "valid": [v for v in VECTORS["valid"] if v["n"] <= 5],
        "invalid": VECTORS["invalid"],
    }
    _check_file(small, PURE)


@pytest.mark.skipif(not JS_FILES, reason="no js-shuffle*.json (made by tests/js) in the tree")
@pytest.mark.parametrize("path", JS_FILES, ids=lambda p: p.name)
def test_the_browser_modules_vectors_verify_here(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["valid"], "a file of shuffle vectors with no valid step"
    _check_file(data, CHECKER)
