"""The verifier's own checks of a dealer-blind round (SPEC 15.13.12; steps 1, 7, 8 and 9 of a
version-3 chain), on a synthetic round (blind_round.py): a valid round has no finding, and each
way to cheat named in 15.13.14 has its finding, exactly."""

import copy
from functools import cache
from typing import Any

import pytest

from fairdeal.blind import shuffle as tw
from fairdeal.blind.group import ORDER, random_scalar, ristretto255
from fairdeal.protocol import SERVER
from fairdeal.verifier.findings import CODES, Finding
from tests.blind.backends import SODIUM, needs_sodium

from . import blind_round as br
from .blind_round import BlindRound

pytestmark = needs_sodium  # the rounds are made with libsodium; the pure backend checks one


@cache
def _honest() -> BlindRound:
    assert SODIUM is not None
    return br.build(SODIUM)


@pytest.fixture
def honest() -> BlindRound:
    """A fresh copy of the valid round, to tamper with (its group shared, not copied)."""
    built = _honest()
    return copy.deepcopy(built, {id(built.group): built.group})


def _build(**options: Any) -> BlindRound:
    assert SODIUM is not None
    return br.build(SODIUM, **options)


def _findings(built: BlindRound, code: str) -> list[Finding]:
    return [f for f in br.check(built) if f.code == code]


# --- the valid round -------------------------------------------------------------------------


def test_a_valid_blind_round_has_no_finding(honest: BlindRound) -> None:
    assert br.check(honest) == []


def test_a_valid_blind_round_checks_on_the_pure_backend_too(honest: BlindRound) -> None:
    """The verifier installs with ``cryptography`` alone: the pure backend checks every proof
    (none remembered from the libsodium run) and recomputes the service's step."""
    assert br.check(honest, ristretto255("pure")) == []


def test_the_new_codes_are_findings_of_steps_8_and_9() -> None:
    steps = {code: CODES[code][0] for code in CODES if code.startswith("blind.")}
    assert steps == {
        "blind.key": 8,
        "blind.server_key": 8,
        "blind.shuffle": 8,
        "blind.server_step": 8,
        "blind.share": 9,
        "blind.reveal": 9,
        "blind.deck": 9,
    }
    assert CODES["card.ciphertext"][0] == 9


# --- (8) the shuffle chain -------------------------------------------------------------------


def test_a_stacked_card_is_a_shuffle_the_proof_refuses() -> None:
    """A seat's step with one ciphertext replaced by a copy of another: its proof fails, and
    the opened deck holds one card twice."""

    def stack(deck: list[Any]) -> None:
        deck[7] = deck[3]

    built = _build(after_step=br.at_step(1, stack))
    assert br.codes(built) == {"blind.shuffle", "blind.deck"}
    (finding,) = _findings(built, "blind.shuffle")
    assert "step 1 by seat:0" in finding.reason and "does not verify" in finding.reason


def test_a_swapped_pair_is_a_shuffle_the_proof_refuses() -> None:
    def swap(deck: list[Any]) -> None:
        deck[0], deck[1] = deck[1], deck[0]

    built = _build(after_step=br.at_step(2, swap))
    assert br.codes(built) == {"blind.shuffle"}
    (finding,) = _findings(built, "blind.shuffle")
    assert finding.reason.startswith("step 2 by seat:1")


def test_an_output_re_encrypted_with_other_randomness_is_refused() -> None:
    assert SODIUM is not None
    group, joint = SODIUM, br.joint_key(SODIUM)

    def re_encrypt(deck: list[Any]) -> None:
        deck[:] = [tw.re_encrypt(group, joint, c, random_scalar()) for c in deck]

    built = _build(after_step=br.at_step(1, re_encrypt))
    assert br.codes(built) == {"blind.shuffle"}


def test_a_proof_copied_from_another_step_is_refused(honest: BlindRound) -> None:
    """A reused commitment: step 2 logs step 1's proof."""
    honest.find("deck_shuffled", step=2).command["proof"] = honest.proofs[1]
    assert br.codes(honest) == {"blind.shuffle"}


def test_a_malformed_step_names_what_is_wrong(honest: BlindRound) -> None:
    del honest.find("deck_shuffled", step=1).command["proof"]["t1"]
    (finding,) = br.check(honest)
    assert finding.code == "blind.shuffle" and "15.11.6" in finding.reason


def test_a_step_out_of_order_is_refused(honest: BlindRound) -> None:
    honest.find("deck_shuffled", step=2).data["step"] = 1
    found = br.codes(honest)
    assert "blind.shuffle" in found and "card.position" in found  # no last step: no deck


def test_the_services_step_not_drawn_from_its_shuffle_key() -> None:
    built = _build(shuffle_key=bytes(range(32)))
    assert br.codes(built) == {"blind.server_step"}


# --- (8) round keys --------------------------------------------------------------------------


def test_a_rogue_key_without_a_valid_proof(honest: BlindRound) -> None:
    round_key = honest.find("seed_commitment", br.party(0)).command["round_key"]
    other = honest.events[0].data["server_key"]["proof"]
    round_key["proof"] = other
    (finding,) = br.check(honest)
    assert finding.code == "blind.key" and "seat:0" in finding.reason


def test_a_key_equal_to_another_partys(honest: BlindRound) -> None:
    first, second = [e for e in honest.events if e.type == "seed_commitment"]
    second.command["round_key"] = first.command["round_key"]
    codes = {f.code for f in br.check(honest)}
    assert "blind.key" in codes


def test_the_identity_is_no_round_key(honest: BlindRound) -> None:
    honest.events[0].data["server_key"]["key"] = "00" * 32
    codes = [f.code for f in br.check(honest)]
    assert codes[0] == "blind.key"


def test_a_server_key_that_is_not_the_revealed_seeds() -> None:
    built = _build(key_seed=bytes(32))
    assert br.codes(built) == {"blind.server_key"}


# --- (9) dealt cards and shares --------------------------------------------------------------


def test_a_share_with_a_bad_dleq_proof(honest: BlindRound) -> None:
    answer = honest.every("decryption_shares", br.party(br.DEALER))[0]  # positions 0, 1, 2
    entry = answer.command["shares"][0]
    s = int.from_bytes(bytes.fromhex(entry["proof"]["s"]), "little")
    entry["proof"]["s"] = ((s + 1) % ORDER).to_bytes(32, "little").hex()
    (finding,) = br.check(honest)
    assert finding.code == "blind.share" and "position 0" in finding.reason


def test_a_server_share_on_a_blind_card(honest: BlindRound) -> None:
    dealt = honest.find("card_dealt", position=br.BLIND_CARD)
    dealt.data["server_share"] = honest.server_share(br.BLIND_CARD)
    assert br.codes(honest) == {"blind.share"}


def test_a_missing_server_share(honest: BlindRound) -> None:
    honest.find("card_dealt", position=3).data["server_share"] = None
    assert br.codes(honest) == {"blind.share"}


def test_a_card_dealt_whose_ciphertext_is_not_the_decks(honest: BlindRound) -> None:
    two, three = (honest.find("card_dealt", position=p) for p in (2, 3))
    two.data["ciphertext"] = three.data["ciphertext"]
    (finding,) = br.check(honest)
    assert finding.code == "card.ciphertext" and "position 2" in finding.reason


# --- (9) opened, revealed and shown cards ----------------------------------------------------


def test_an_up_card_opened_as_another_card(honest: BlindRound) -> None:
    honest.find("card_opened").data["card"] = _another(honest.cards[1])
    (finding,) = br.check(honest)
    assert finding.code == "card.wrong_card" and honest.cards[1] in finding.reason


def test_a_card_opened_without_every_share(honest: BlindRound) -> None:
    answer = honest.find("decryption_shares", br.party(br.PLAYER))
    answer.command["shares"] = answer.command["shares"][1:]  # position 1's share left out
    (finding,) = br.check(honest)
    assert finding.code == "card.wrong_card" and "seat:0" in finding.reason


def test_a_revealed_key_that_is_not_the_seats(honest: BlindRound) -> None:
    reveal = honest.find("round_key", br.party(br.DEALER))
    reveal.command["secret"] = br.scalar(br.seat_secret(br.PLAYER))
    assert br.codes(honest) == {"blind.reveal"}


def test_a_shown_card_that_is_not_its_decryption(honest: BlindRound) -> None:
    shown = honest.find("cards_shown", seat=br.PLAYER).data["cards"]
    shown[0]["card"] = _another(shown[0]["card"])
    (finding,) = br.check(honest)
    assert finding.code == "card.shown" and "position 0" in finding.reason


def test_cards_shown_before_a_seat_revealed_its_key(honest: BlindRound) -> None:
    honest.events.remove(honest.find("round_key", br.party(br.DEALER)))
    assert br.codes(honest) == {"card.shown"}


def test_a_shown_card_with_a_salt_is_not_of_version_3(honest: BlindRound) -> None:
    honest.find("cards_shown", seat=br.DEALER).data["cards"][0]["salt"] = "00" * 32
    assert br.codes(honest) == {"card.shown"}


# --- (1) and (7): version 3's forms ----------------------------------------------------------


def test_a_round_opened_without_its_server_key(honest: BlindRound) -> None:
    del honest.events[0].data["server_key"]
    assert "schema.data" in br.codes(honest)


def test_a_card_dealt_with_a_version_2_member(honest: BlindRound) -> None:
    honest.find("card_dealt", position=1).data["card"] = honest.cards[1]
    assert "schema.data" in br.codes(honest)


def test_a_seed_commitment_without_its_round_key(honest: BlindRound) -> None:
    commitment = honest.find("seed_commitment", br.party(br.DEALER))
    del commitment.command["round_key"]
    assert "seed.client" in br.codes(honest)


def test_a_card_dealt_before_the_last_step(honest: BlindRound) -> None:
    last = honest.find("deck_shuffled", step=2)
    honest.events.remove(last)
    honest.events.insert(honest.events.index(honest.find("card_dealt", position=0)) + 1, last)
    assert "card.position" in br.codes(honest)


def test_a_missed_commitment_voids_a_blind_round(honest: BlindRound) -> None:
    """SPEC 15.13.4: the commit phase's seed_timeout voids the round, naming the seat."""
    honest.events[2:] = [
        br.Logged("seed_timeout", SERVER, {"deadline": br.T0 + 10_000, "seats": [1]}),
        br.Logged("round_voided", SERVER, {"reason": "seed_withheld", "seats": [1]}),
        br.Logged("round_revealed", SERVER, {"server_seed": br.SERVER_SEED.hex()}),
    ]
    assert br.check(honest) == []
    del honest.events[3]  # revealed without the void
    assert br.codes(honest) == {"seed.withheld"}


def test_a_plain_client_seed_in_a_blind_rounds_commit_phase(honest: BlindRound) -> None:
    seed = honest.find("client_seed", br.party(1))
    honest.events.remove(seed)
    honest.events.insert(2, seed)  # before seat 1's commitment
    assert "seed.client" in br.codes(honest)


def _another(card: str) -> str:
    return "AS" if card != "AS" else "KS"
