"""What every blind round shares (SPEC 15.12): proof contexts, the service's derived nonces, its
shuffle step drawn from the shuffle key, and a card opened both ways.

round.json is what make_round.py writes; it, and the JavaScript module's js-round.json when
present, are recomputed here from SPEC 15.12's formulas on both backends, the pure one
verifying only (its refusal of secrets kept: ``check_server_step`` recomputes the revealed
step). The crypto review's findings on these functions have named tests below: a step key per
statement (M1), the service checking its own proofs (L5), no secret in a repr (L3), the
context's index (L7)."""

import hashlib
import hmac
import json
import struct
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fairdeal import randomness
from fairdeal.blind import elgamal, rounds, tags
from fairdeal.blind import shuffle as tw
from fairdeal.blind.elgamal import Ciphertext, Share
from fairdeal.blind.group import ORDER, Group, hash_to_scalar, scalar_bytes
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
from fairdeal.blind.ristretto_pure import PureRistretto255
from fairdeal.cards import canonical_deck
from tests.blind.backends import NO_SODIUM, PURE, SODIUM, needs_sodium, sodium
from tests.vectors.blind import make_round

FOLDER = Path(make_round.__file__).parent
FILES = [name for name in ("round.json", "js-round.json") if (FOLDER / name).exists()]
STRICT_PURE = PureRistretto255()  # refuses secrets, as a verifier's
VERIFIERS = [
    pytest.param(SODIUM, id="sodium", marks=pytest.mark.skipif(SODIUM is None, reason=NO_SODIUM)),
    pytest.param(STRICT_PURE, id="pure"),
]
FAST = SODIUM or STRICT_PURE  # for the negative cases: either backend refuses them
TABLE, ROUND, OF = make_round.TABLE, make_round.ROUND, make_round.OF


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FOLDER / name).read_text(encoding="utf-8"))
    return data


def scalar(text: str) -> int:
    return int.from_bytes(bytes.fromhex(text), "little")


def ctx(party: str, purpose: str, index: int, round_id: str = ROUND) -> bytes:
    return rounds.proof_context(TABLE, round_id, party, purpose, index)


def step_of(group: Group, data: dict[str, Any]) -> tuple[tw.Statement[bytes], Any]:
    step = data["server_step"]
    inputs = tw.encode_deck(group, [(c.a, c.b) for c in elgamal.public_deck(group, "toto21", 1)])
    return tw.read_step(
        group,
        step["key"],
        inputs,
        step["outputs"],
        step["proof"],
        context=bytes.fromhex(step["context"]),
    )


def check_step(group: Group, data: dict[str, Any], outputs: Any, proof: Any) -> None:
    """``check_server_step`` of a step against the vectors' shuffle key and joint key."""
    step = data["server_step"]
    key, joint = bytes.fromhex(step["shuffle_key"]), bytes.fromhex(data["joint_key"])
    rounds.check_server_step(group, key, joint, OF, outputs=outputs, proof=proof)


def spec_step_key(case: dict[str, Any], shuffle_key: bytes) -> bytes:
    """SPEC 15.12.3's step key, from the vector's bytes: HMAC(K, SERVER_STEP ‖ lp(ctx) ‖
    lp(game) ‖ u64be(decks) ‖ X); the message is checked against the vector's on the way."""
    context, game = bytes.fromhex(case["context"]), case["game"].encode("ascii")
    message = b"".join(
        (
            b"fairdeal/v3/server-step\x00",
            struct.pack(">Q", len(context)) + context,
            struct.pack(">Q", len(game)) + game,
            struct.pack(">Q", case["decks"]),
            bytes.fromhex(case["key"]),
        )
    )
    assert message.hex() == case["step_key_input"]
    assert len(message) == 80 + len(context) + len(game)
    return hmac.digest(shuffle_key, message, "sha256")


# --- The vectors -----------------------------------------------------------------------------


@needs_sodium
def test_round_json_is_what_make_round_writes() -> None:
    assert make_round.render(sodium()) == (FOLDER / "round.json").read_text(encoding="utf-8")


def test_the_pure_backend_draws_the_same_service_step_as_the_vectors() -> None:
    data = load("round.json")
    step = rounds.server_step(PURE, make_round.SHUFFLE_KEY, bytes.fromhex(data["joint_key"]), OF)
    assert tw.encode_proof(PURE, step.proof) == data["server_step"]["proof"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_contexts_are_spec_15_12_1s(group: Group, name: str) -> None:
    data = load(name)
    assert data["tags"] == {
        "PROOF_CONTEXT": tags.PROOF_CONTEXT.hex(),
        "SERVER_NONCE": tags.SERVER_NONCE.hex(),
        "SERVER_STEP": tags.SERVER_STEP.hex(),
    }
    for case in data["lp"]:
        assert rounds.lp(case["string"]).hex() == case["bytes"]
    for case in data["contexts"]:
        context = ctx(case["party"], case["purpose"], case["index"])
        assert (context.hex(), len(context)) == (case["bytes"], case["length"])
    assert [c["length"] for c in data["contexts"]][::7] == [101, 97]  # SPEC's two examples
    for case in data["refused_contexts"]:
        with pytest.raises(ValueError):
            rounds.proof_context(
                case["table"], case["round"], case["party"], case["purpose"], case["index"]
            )


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_service_key_proof_is_made_with_its_derived_nonce(group: Group, name: str) -> None:
    data = load(name)
    seed, case = bytes.fromhex(data["server_seed"]), data["server_key"]
    x, key, context = (
        scalar(case["private"]),
        bytes.fromhex(case["key"]),
        ctx("server", "round-key", 0),
    )
    assert x == elgamal.server_round_key(seed) and group.base(x) == key
    assert case["context"] == context.hex()
    nonce_input = rounds.key_nonce_input(group, seed, case["ctr"], key, context)
    assert nonce_input.hex() == case["nonce_input"] and len(nonce_input) == 159 + len(context)
    k = scalar(case["nonce"])
    assert (
        (case["ctr"], k)
        == rounds.key_nonce(group, seed, key, context)
        == (0, hash_to_scalar(nonce_input))
    )
    c = hash_to_scalar(knowledge_transcript(group, key, group.base(k), context))
    assert case["t"] == group.base(k).hex()
    assert Proof.from_json(case["proof"]) == Proof(c, (k + c * x) % ORDER)
    verify_knowledge(group, key, context=context, proof=Proof.from_json(case["proof"]))


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_service_share_is_made_with_its_derived_nonce(group: Group, name: str) -> None:
    data = load(name)
    seed, case = bytes.fromhex(data["server_seed"]), data["server_share"]
    x, key = scalar(data["server_key"]["private"]), bytes.fromhex(data["server_key"]["key"])
    ciphertext = Ciphertext.from_json(group, case["ciphertext"])
    assert case["ciphertext"] == data["server_step"]["outputs"][case["position"]]
    context = ctx("server", "share", case["position"])
    assert case["context"] == context.hex()
    d = bytes.fromhex(case["share"])
    statement = (key, ciphertext.b, d)
    nonce_input = rounds.share_nonce_input(group, seed, case["ctr"], statement, context)
    assert nonce_input.hex() == case["nonce_input"] and len(nonce_input) == 225 + len(context)
    k = scalar(case["nonce"])
    assert (case["ctr"], k) == rounds.share_nonce(group, seed, statement, context)
    t = (group.base(k), group.mul(ciphertext.b, k))
    assert (case["t1"], case["t2"]) == (t[0].hex(), t[1].hex())
    c = hash_to_scalar(dleq_transcript(group, statement, t, context))
    proof = Proof.from_json(case["proof"])
    assert proof == Proof(c, (k + c * x) % ORDER)
    verify_dleq(group, key, ciphertext.b, d, context=context, proof=proof)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_another_statement_gets_another_nonce(group: Group, name: str) -> None:
    data = load(name)
    nonces = {data["server_key"]["nonce"], data["server_share"]["nonce"]}
    for case in data["other_nonces"]:
        seed, key, context = (bytes.fromhex(case[m]) for m in ("server_seed", "key", "context"))
        if case["proof_of"] == "share":
            statement = (key, bytes.fromhex(case["a"]), bytes.fromhex(case["d"]))
            ctr, k = rounds.share_nonce(group, seed, statement, context)
        else:
            ctr, k = rounds.key_nonce(group, seed, key, context)
        assert (ctr, scalar_bytes(k).hex()) == (case["ctr"], case["nonce"]), case["name"]
        nonces.add(case["nonce"])
    assert len(nonces) == 2 + len(data["other_nonces"])


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_seats_keys_and_the_joint_key(group: Group, name: str) -> None:
    data = load(name)
    keys = [bytes.fromhex(data["server_key"]["key"])]
    for n, seat in enumerate(data["seats"]):
        key = bytes.fromhex(seat["key"])
        assert (
            seat["party"] == f"seat:{n}"
            and seat["context"] == ctx(seat["party"], "round-key", 0).hex()
        )
        assert group.base(scalar(seat["private"])) == key
        verify_knowledge(
            group, key, context=bytes.fromhex(seat["context"]), proof=Proof.from_json(seat["proof"])
        )
        keys.append(key)
    assert elgamal.joint_key(group, keys).hex() == data["joint_key"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_service_step_is_drawn_from_the_step_key(group: Group, name: str) -> None:
    data = load(name)
    step, n = data["server_step"], data["server_step"]["n"]
    assert (step["game"], step["decks"], n, step["key"]) == ("toto21", 1, 36, data["joint_key"])
    assert step["context"] == ctx("server", "shuffle", 0).hex()
    key = spec_step_key(step, bytes.fromhex(step["shuffle_key"]))
    assert key.hex() == step["step_key"]
    witness = rounds.server_witness(key, n)
    assert list(witness.permutation) == step["permutation"]
    assert [scalar_bytes(r).hex() for r in witness.randomness] == step["reencryption"]
    draws = rounds.StreamScalars(key, rounds.PROOF_STREAM)
    assert [scalar_bytes(draws.below(ORDER)).hex() for _ in range(4 * n + 4)] == step["draws"]
    statement, proof = step_of(group, data)
    tw.verify(statement, proof)
    check_step(group, data, statement.outputs, proof)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_same_shuffle_key_gives_another_step_key_for_another_statement(
    group: Group, name: str
) -> None:
    data = load(name)
    shuffle_key, keys = bytes.fromhex(data["server_step"]["shuffle_key"]), set()
    for case in [data["server_step"], *data["other_step_keys"]]:
        of = rounds.RoundDeck(TABLE, ROUND, case["game"], case["decks"])
        if case["context"] != ctx("server", "shuffle", 0).hex():
            of = replace(of, round_id="tbl-blind.2")
            assert case["context"] == ctx("server", "shuffle", 0, "tbl-blind.2").hex()
        key = spec_step_key(case, shuffle_key)
        assert key == rounds.step_key(group, shuffle_key, bytes.fromhex(case["key"]), of)
        assert key.hex() == case["step_key"]
        keys.add(key)
    assert len(keys) == 1 + len(data["other_step_keys"]) == 4


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_the_proof_uses_its_draws_in_spec_15_11_5s_order(group: Group, name: str) -> None:
    """Each draw of the vectors' list is found where 15.11.5 puts it: r_ψ(i) (i's order),
    r̂_i, ω_1…ω_4, then ω̂_i and ω'_i interleaved."""
    data = load(name)
    step, n = data["server_step"], data["server_step"]["n"]
    draws, psi = [scalar(x) for x in step["draws"]], step["permutation"]
    statement, proof = step_of(group, data)
    h0, hs = tw.FIAT_SHAMIR.generators(group, n)
    r = {psi[i]: draws[i] for i in range(n)}
    assert all(proof.c[j] == group.add(group.base(r[j]), hs[i]) for i, j in enumerate(psi))
    u = tw.FIAT_SHAMIR.permutation_challenges(statement, proof.c)
    c = tw.FIAT_SHAMIR.challenge(statement, proof.c, proof.c_hat, proof.t)
    r_hat, (w1, w2, w3, w4) = draws[n : 2 * n], draws[2 * n : 2 * n + 4]
    assert proof.c_hat[0] == group.add(group.base(r_hat[0]), group.mul(h0, u[psi[0]]))
    assert (proof.t.t1, proof.t.t2) == (group.base(w1), group.base(w2))
    assert proof.s1 == (w1 + c * sum(r.values())) % ORDER
    assert proof.s3 == (w3 + c * sum(r[j] * u[j] for j in range(n))) % ORDER
    r_prime = [scalar(x) for x in step["reencryption"]]
    assert proof.s4 == (w4 + c * sum(r_prime[j] * u[j] for j in range(n))) % ORDER
    for i in range(n):
        w_hat, w_prime = draws[2 * n + 4 + 2 * i], draws[2 * n + 5 + 2 * i]
        assert proof.s_hat[i] == (w_hat + c * r_hat[i]) % ORDER
        assert proof.s_prime[i] == (w_prime + c * u[psi[i]]) % ORDER


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_an_altered_service_step_is_refused(group: Group, name: str) -> None:
    data = load(name)
    statement, _ = step_of(group, data)
    for case in data["altered_steps"]:
        altered, proof = tw.read_step(
            group,
            data["joint_key"],
            tw.encode_deck(group, statement.inputs),
            case["outputs"],
            case["proof"],
            context=statement.context,
        )
        with pytest.raises(rounds.ServerStepMismatchError):
            check_step(group, data, altered.outputs, proof)


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("group", VERIFIERS)
def test_a_card_opens_with_the_shares_and_with_the_keys(group: Group, name: str) -> None:
    data = load(name)
    case = data["opened"]
    ciphertext = Ciphertext.from_json(group, case["ciphertext"])
    keys = [bytes.fromhex(data["server_key"]["key"])] + [
        bytes.fromhex(s["key"]) for s in data["seats"]
    ]
    parties = ["server", "seat:0", "seat:1"]
    shares = []
    for party, key, entry in zip(parties, keys, case["shares"], strict=True):
        assert (
            entry["party"] == party
            and entry["context"] == ctx(party, "share", case["position"]).hex()
        )
        share = Share.from_json(group, {"proof": entry["proof"], "share": entry["share"]})
        elgamal.verify_share(group, key, ciphertext, share, context=bytes.fromhex(entry["context"]))
        shares.append(share.share)
    private = [scalar(x) for x in case["private_keys"]]
    for key, x in zip(keys, private, strict=True):
        elgamal.verify_revealed_key(group, key, x)
    assert scalar(case["key_sum"]) == sum(private) % ORDER
    m = elgamal.decrypt(group, ciphertext, shares)
    assert m.hex() == case["m"] == elgamal.decrypt_with_keys(group, ciphertext, private).hex()
    index = elgamal.card_index(elgamal.card_points(group, "toto21", 1), m)
    assert (index, canonical_deck("toto21", 1)[index]) == (case["index"], case["card"])


# --- Named negative cases --------------------------------------------------------------------


OTHER_CONTEXTS = [
    pytest.param(("server", "round-key", 0, "tbl-blind.2"), id="another round"),
    pytest.param(("seat:0", "round-key", 0, ROUND), id="another party"),
    pytest.param(("server", "shuffle", 0, ROUND), id="another purpose"),
]


@pytest.mark.parametrize("other", OTHER_CONTEXTS)
def test_the_service_key_proof_fails_under_another_context(other: tuple[Any, ...]) -> None:
    data, (party, purpose, index, round_id) = load("round.json"), other
    case = data["server_key"]
    with pytest.raises(BadProofError):
        verify_knowledge(
            FAST,
            bytes.fromhex(case["key"]),
            context=ctx(party, purpose, index, round_id),
            proof=Proof.from_json(case["proof"]),
        )


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(("server", "share", 4), id="another position"),
        pytest.param(("seat:1", "share", 3), id="another party"),
        pytest.param(("server", "shuffle", 3), id="another purpose"),
    ],
)
def test_the_service_share_proof_fails_under_another_context(other: tuple[str, str, int]) -> None:
    data = load("round.json")
    case, key = data["server_share"], bytes.fromhex(data["server_key"]["key"])
    ciphertext = Ciphertext.from_json(FAST, case["ciphertext"])
    share = Share.from_json(FAST, {"proof": case["proof"], "share": case["share"]})
    with pytest.raises(BadProofError):
        elgamal.verify_share(FAST, key, ciphertext, share, context=ctx(*other))


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(("server", "shuffle", 1), id="another step"),
        pytest.param(("seat:0", "shuffle", 0), id="another party"),
        pytest.param(("server", "share", 0), id="another purpose"),
    ],
)
def test_the_service_shuffle_proof_fails_under_another_context(other: tuple[str, str, int]) -> None:
    data = load("round.json")
    statement, proof = step_of(FAST, data)
    moved = tw.Statement(FAST, statement.key, statement.inputs, statement.outputs, ctx(*other))
    with pytest.raises(tw.InvalidShuffleProofError):
        tw.verify(moved, proof)


@pytest.mark.parametrize("member", ["s1", "s4", "s_hat", "s_prime"])
def test_a_service_step_with_one_scalar_changed_is_refused(member: str) -> None:
    data = load("round.json")
    proof = dict(data["server_step"]["proof"])
    value = proof[member][5] if isinstance(proof[member], list) else proof[member]
    changed = scalar_bytes(scalar(value) + 1).hex()
    proof[member] = (
        [*proof[member][:5], changed, *proof[member][6:]]
        if isinstance(proof[member], list)
        else changed
    )
    data["server_step"]["proof"] = proof
    statement, decoded = step_of(FAST, data)
    with pytest.raises(tw.InvalidShuffleProofError):
        tw.verify(statement, decoded)
    with pytest.raises(rounds.ServerStepMismatchError, match="proof"):
        check_step(FAST, data, statement.outputs, decoded)


def test_the_nonce_binds_the_statement() -> None:
    group, seed = FAST, make_round.SERVER_SEED
    key, other = group.base(5), group.base(6)
    context = ctx("server", "share", 3)
    _, k = rounds.share_nonce(group, seed, (key, group.base(7), group.base(35)), context)
    assert k != rounds.share_nonce(group, seed, (key, group.base(7), other), context)[1]
    assert k != rounds.share_nonce(group, seed, (other, group.base(7), group.base(35)), context)[1]
    assert rounds.key_nonce(group, seed, key, context) != rounds.key_nonce(
        group, seed, other, context
    )


@pytest.mark.parametrize("case", make_round.REFUSED, ids=[name for name, *_ in make_round.REFUSED])
def test_a_malformed_context_is_refused(case: tuple[Any, ...]) -> None:
    _, table, round_id, party, purpose, index = case
    with pytest.raises(ValueError):
        rounds.proof_context(table, round_id, party, purpose, index)


def test_the_pure_backend_makes_none_of_the_services_secrets() -> None:
    seed = make_round.SERVER_SEED
    ciphertext = elgamal.public_deck(STRICT_PURE, "toto21", 1)[0]
    with pytest.raises(ValueError, match="variable time"):
        rounds.server_key_with_proof(STRICT_PURE, seed, table=TABLE, round_id=ROUND)
    with pytest.raises(ValueError, match="variable time"):
        rounds.server_share(STRICT_PURE, seed, ciphertext, table=TABLE, round_id=ROUND, position=0)
    with pytest.raises(ValueError, match="variable time"):
        rounds.server_step(STRICT_PURE, seed, STRICT_PURE.generator, OF)


def test_the_stream_scalars_read_64_bytes_each_and_only_below_the_order() -> None:
    key = make_round.SHUFFLE_KEY
    stream = randomness.byte_stream(key, "blind-proof")
    expected = [
        int.from_bytes(bytes(next(stream) for _ in range(64)), "little") % ORDER for _ in range(3)
    ]
    draws = rounds.StreamScalars(key, "blind-proof")
    assert [draws.below(ORDER) for _ in range(3)] == expected
    with pytest.raises(ValueError):
        draws.below(36)


def test_a_card_opened_without_every_party_is_no_card() -> None:
    case = load("round.json")["opened"]
    ciphertext = Ciphertext.from_json(FAST, case["ciphertext"])
    points = elgamal.card_points(FAST, "toto21", 1)
    private = [scalar(x) for x in case["private_keys"]]
    shares = [bytes.fromhex(s["share"]) for s in case["shares"]]
    with pytest.raises(elgamal.NotACardError):
        elgamal.card_index(points, elgamal.decrypt_with_keys(FAST, ciphertext, private[:2]))
    with pytest.raises(elgamal.NotACardError):
        elgamal.card_index(points, elgamal.decrypt(FAST, ciphertext, shares[1:]))


# --- The crypto review's findings ------------------------------------------------------------

PROVER: Group = SODIUM or PURE


def _joint(label: str) -> bytes:
    return PROVER.base(hash_to_scalar(b"joint key " + label.encode()))


def test_one_shuffle_key_under_two_joint_keys_shares_no_draw() -> None:
    """M1: with ψ, r' and the draws taken from K alone, two steps under two joint keys had the
    same ω and ω'_i, and s'_i − s*'_i gave ψ away. The step key binds the statement."""
    key = make_round.SHUFFLE_KEY
    one, two = (rounds.server_step(PROVER, key, _joint(x), OF) for x in ("one", "two"))
    assert one.witness.permutation != two.witness.permutation
    assert not set(one.witness.randomness) & set(two.witness.randomness)
    assert one.proof.t.t1 != two.proof.t.t1 and one.proof.t.t2 != two.proof.t.t2  # ω_1, ω_2
    assert not set(one.proof.c) & set(two.proof.c)  # the r_j
    other_round = replace(OF, round_id="tbl-blind.2")
    three = rounds.server_step(PROVER, key, _joint("one"), other_round)
    assert three.witness.permutation != one.witness.permutation


def test_the_step_key_is_an_hmac_of_the_whole_statement() -> None:
    joint = _joint("one")
    message = rounds.step_key_input(PROVER, joint, OF)
    context = ctx("server", "shuffle", 0)
    assert message == (
        tags.SERVER_STEP
        + struct.pack(">Q", len(context))
        + context
        + rounds.lp("toto21")
        + struct.pack(">Q", 1)
        + joint
    )
    key = make_round.SHUFFLE_KEY
    expected = hmac.new(key, message, hashlib.sha256).digest()
    assert rounds.step_key(PROVER, key, joint, OF) == expected
    with pytest.raises(ValueError, match="32 bytes"):
        rounds.step_key(PROVER, key[:31], joint, OF)


def _faulty_knowledge(*args: Any, **kwargs: Any) -> Proof:
    proof = prove_knowledge(*args, **kwargs)
    return Proof(proof.c, (proof.s + 1) % ORDER)


def _faulty_dleq(*args: Any, **kwargs: Any) -> tuple[bytes, Proof]:
    d, proof = prove_dleq(*args, **kwargs)
    return d, Proof((proof.c + 1) % ORDER, proof.s)


_PROVE = tw.prove


def _faulty_shuffle(*args: Any, **kwargs: Any) -> tw.ShuffleProof[bytes]:
    proof = _PROVE(*args, **kwargs)
    return replace(proof, s1=(proof.s1 + 1) % ORDER)


FAULTS = {
    "the key proof": (rounds, "prove_knowledge", _faulty_knowledge),
    "a share proof": (rounds, "prove_dleq", _faulty_dleq),
    "the shuffle step's proof": (tw, "prove", _faulty_shuffle),
}


@pytest.mark.parametrize("fault", list(FAULTS), ids=list(FAULTS))
def test_the_service_never_returns_a_proof_of_its_own_that_fails(
    fault: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """L5: a fault in one of two computations of a deterministic nonce's proof would give x_0
    away; the service checks each proof it makes and raises instead of returning it."""
    module, name, faulty = FAULTS[fault]
    monkeypatch.setattr(module, name, faulty)
    seed, ciphertext = make_round.SERVER_SEED, elgamal.public_deck(PROVER, "toto21", 1)[0]
    make = {
        "the key proof": lambda: rounds.server_key_with_proof(
            PROVER, seed, table=TABLE, round_id=ROUND
        ),
        "a share proof": lambda: rounds.server_share(
            PROVER, seed, ciphertext, table=TABLE, round_id=ROUND, position=0
        ),
        "the shuffle step's proof": lambda: rounds.server_step(
            PROVER, make_round.SHUFFLE_KEY, _joint("one"), OF
        ),
    }
    with pytest.raises(rounds.OwnProofError, match="not published"):
        make[fault]()


def test_no_secret_of_the_service_is_in_a_repr() -> None:
    """L3: a log line, an f-string or an error report that captures locals carries no x_0, ψ,
    r' or stream of the service's."""
    made = rounds.server_key_with_proof(PROVER, make_round.SERVER_SEED, table=TABLE, round_id=ROUND)
    step = rounds.server_step(PROVER, make_round.SHUFFLE_KEY, _joint("one"), OF)
    draws = rounds.StreamScalars(make_round.SHUFFLE_KEY, rounds.PROOF_STREAM)
    text = " ".join(f"{x!r} {x}" for x in (made, step, step.witness, draws))
    hidden = [
        str(made.private),
        repr(step.witness.permutation)[:-1],
        str(step.witness.randomness[0]),
    ]
    assert not [secret for secret in hidden if secret in text]
    assert repr(made.key) in text  # the public part shows


@pytest.mark.parametrize(
    "index", [0, 3, 2**53 - 1], ids=["zero", "a position", "2^53 - 1, the largest"]
)
def test_an_index_up_to_2_53_minus_1_is_a_context(index: int) -> None:
    """L7: SPEC 1 bounds every number of the log by 2^53 − 1; 2^53 and a bool are refused
    (the named refused contexts of the vectors)."""
    assert ctx("server", "share", index).endswith(struct.pack(">Q", index))
