"""Card points, round keys and ElGamal over the joint key (SPEC 15.4, 15.5, 15.8): every card
of a three-party round opens with all shares and with no fewer; the JSON forms round-trip."""

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal.blind import elgamal
from fairdeal.blind.elgamal import Ciphertext, NotACardError, Share, WrongRevealedKeyError
from fairdeal.blind.group import (
    ORDER,
    BlindEncodingError,
    Group,
    IdentityKeyError,
    InvalidElementError,
    hash_to_scalar,
)
from fairdeal.blind.proofs import BadProofError, Proof, prove_knowledge, verify_knowledge
from fairdeal.cards import canonical_deck
from tests.blind.backends import BACKENDS, needs_sodium, sodium

backends = pytest.mark.parametrize("group", BACKENDS)
KEYS = [hash_to_scalar(f"party {j}".encode()) for j in range(3)]


@backends
@pytest.mark.parametrize("deck", [("toto21", 1), ("kvitlach", 1), ("kvitlach", 2)])
def test_card_points_are_distinct_by_index_even_for_equal_numbers(
    group: Group, deck: tuple[str, int]
) -> None:
    points = elgamal.card_points(group, *deck)
    assert len(points) == len(canonical_deck(*deck)) == len(set(points))
    assert group.identity not in points
    first = b"fairdeal/v3/card-point\x00" + deck[0].encode() + b"\x00"
    assert points[1] == group.hash_to_element(first + deck[1].to_bytes(8, "big") + bytes(7) + b"\1")


@backends
def test_a_card_index_outside_the_deck_is_caller_misuse(group: Group) -> None:
    for game, decks, index in (("toto21", 1, 36), ("toto21", 1, -1), ("toto21", 2, 0)):
        with pytest.raises(ValueError, match="no "):
            elgamal.card_point(group, game, decks, index)


def test_the_server_round_key_is_hashed_from_its_seed() -> None:
    seed = bytes(range(32))
    digest = hashlib.sha512(b"fairdeal/v3/round-key\x00" + seed).digest()
    assert elgamal.server_round_key(seed) == int.from_bytes(digest, "little") % ORDER
    with pytest.raises(ValueError, match="32 bytes"):
        elgamal.server_round_key(seed.hex().encode())


def _round(group: Group) -> tuple[bytes, list[bytes], list[Ciphertext]]:
    public = [group.base(x) for x in KEYS]
    joint = elgamal.joint_key(group, public)
    deck = elgamal.public_deck(group, "toto21", 1)
    for j in range(3):  # each party re-encrypts every card once
        deck = [elgamal.reencrypt(group, joint, c, hash_to_scalar(bytes([j, i]))) for i, c in
                enumerate(deck)]  # fmt: skip
    return joint, public, deck


@backends
def test_every_card_opens_with_every_partys_share(group: Group) -> None:
    _, public, deck = _round(group)
    points = elgamal.card_points(group, "toto21", 1)
    for position in (0, 17, 35):
        ciphertext = deck[position]
        assert ciphertext.b != group.identity
        shares = []
        for j, x in enumerate(KEYS):
            context = f"share {position} {j}".encode()
            share = elgamal.decryption_share(group, x, ciphertext, context=context)
            elgamal.verify_share(group, public[j], ciphertext, share, context=context)
            shares.append(share.share)
        plain = elgamal.decrypt(group, ciphertext, shares)
        assert elgamal.card_index(points, plain) == position
        with pytest.raises(NotACardError):  # one share short: no card
            elgamal.card_index(points, elgamal.decrypt(group, ciphertext, shares[1:]))


@backends
def test_a_share_for_another_position_is_refused(group: Group) -> None:
    _, public, deck = _round(group)
    share = elgamal.decryption_share(group, KEYS[0], deck[1], context=b"position 1")
    with pytest.raises(BadProofError):
        elgamal.verify_share(group, public[0], deck[2], share, context=b"position 1")


@backends
def test_encryption_and_reencryption_keep_the_card(group: Group) -> None:
    joint = elgamal.joint_key(group, [group.base(x) for x in KEYS])
    m = elgamal.card_point(group, "kvitlach", 2, 47)
    once = elgamal.encrypt(group, joint, m, 12345)
    assert once == Ciphertext(group.add(m, group.mul(joint, 12345)), group.base(12345))
    twice = elgamal.reencrypt(group, joint, once, 777)
    assert twice == elgamal.encrypt(group, joint, m, 12345 + 777)
    shares = [group.mul(twice.b, x) for x in KEYS]
    assert elgamal.decrypt(group, twice, shares) == m


@backends
def test_a_revealed_key_must_be_the_round_keys(group: Group) -> None:
    key = group.base(KEYS[0])
    elgamal.verify_revealed_key(group, key, KEYS[0])
    for wrong in (KEYS[1], 0, KEYS[0] + ORDER):
        with pytest.raises(WrongRevealedKeyError):
            elgamal.verify_revealed_key(group, key, wrong)


@backends
def test_ciphertexts_and_shares_read_and_write_their_json_forms(group: Group) -> None:
    ciphertext = Ciphertext(group.base(3), group.identity)
    assert ciphertext.to_json() == {"a": group.base(3).hex(), "b": "00" * 32}
    assert Ciphertext.from_json(group, ciphertext.to_json()) == ciphertext
    share = Share(group.base(4), Proof(1, 2))
    assert set(share.to_json()) == {"proof", "share"}
    assert Share.from_json(group, share.to_json()) == share
    for bad in (
        {"a": group.base(3).hex()},
        {"a": group.base(3).hex(), "b": "ff" * 32},
        {"a": group.base(3).hex().upper(), "b": "00" * 32},
        {"a": group.base(3).hex(), "b": "00" * 32, "c": "00" * 32},
    ):
        with pytest.raises(BlindEncodingError):
            Ciphertext.from_json(group, bad)
    with pytest.raises(BlindEncodingError):
        Share.from_json(group, {"share": group.base(4).hex(), "proof": {"c": "00" * 32}})


@backends
def test_a_rogue_key_that_cancels_the_others_has_no_proof_of_knowledge(group: Group) -> None:
    # the attack SPEC 15.5 names: the last party announces X' − (the others' keys), then the
    # joint key is X', whose private key it knows, and every card opens to it alone
    honest = [group.base(x) for x in KEYS[:2]]
    mine = hash_to_scalar(b"the attacker's key")
    rogue = group.sub(group.base(mine), elgamal.joint_key(group, honest))
    assert elgamal.joint_key(group, [*honest, rogue]) == group.base(mine)
    # it can prove its x', not the rogue key's, and no proof for the rogue key verifies
    proof = prove_knowledge(group, mine, context=b"seat 2")
    with pytest.raises(BadProofError):
        verify_knowledge(group, rogue, context=b"seat 2", proof=proof)


@needs_sodium
@given(
    keys=st.lists(st.integers(min_value=1, max_value=ORDER - 1), min_size=2, max_size=8),
    card=st.integers(min_value=0, max_value=47),
    rs=st.lists(st.integers(min_value=1, max_value=ORDER - 1), min_size=1, max_size=4),
)
@settings(max_examples=15, deadline=None)
def test_any_card_under_any_keys_opens_with_all_shares(
    keys: list[int], card: int, rs: list[int]
) -> None:
    group = sodium()
    joint = elgamal.joint_key(group, [group.base(x) for x in keys])
    ciphertext = elgamal.public_deck(group, "kvitlach", 2)[card]
    for r in rs:
        ciphertext = elgamal.reencrypt(group, joint, ciphertext, r)
    shares = [group.mul(ciphertext.b, x) for x in keys]
    points = elgamal.card_points(group, "kvitlach", 2)
    assert elgamal.card_index(points, elgamal.decrypt(group, ciphertext, shares)) == card


@backends
def test_a_joint_key_of_no_key_or_of_an_identity_key_is_refused(group: Group) -> None:
    """Crypto review L6: as the browser module's ``jointKey``, no empty sum and no key O."""
    keys = [group.base(x) for x in KEYS]
    with pytest.raises(ValueError, match="at least one"):
        elgamal.joint_key(group, [])
    with pytest.raises(IdentityKeyError):
        elgamal.joint_key(group, [*keys, group.identity])
    twin = bytearray(keys[0])
    twin[31] |= 0x80
    with pytest.raises(InvalidElementError):
        elgamal.joint_key(group, [bytes(twin), *keys[1:]])
