"""Dealer-blind Toto21 tables (SPEC 15.13) through the real engine: the option and the
version, round keys, the shuffle chain, shares, claims, the showdown, withholding; and the
issue's promise, that the operator's side cannot open a hidden card before its owner."""

import itertools
from dataclasses import replace
from typing import Any

import pytest

from fairdeal import statements, table
from fairdeal.blind import elgamal
from fairdeal.errors import (
    IllegalActionError,
    KeyInvalidError,
    KeyMismatchError,
    KeyRequiredError,
    OptionsError,
    OutOfTurnError,
    ShareInvalidError,
    ShuffleInvalidError,
    SignatureStaleError,
)
from fairdeal.games import registry
from fairdeal.games.toto21 import cipher
from fairdeal.games.toto21.cipher import Request
from fairdeal.games.toto21.party import PartyRefusedError
from fairdeal.protocol import (
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    ROUND_KEY,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SHARES_DUE,
)
from fairdeal.statements import BLIND
from fairdeal.verifier import load_trust, verify_bundle
from tests.blind_table import BlindTable, careful, seat_key
from tests.verifier import helpers

GAME = registry()["toto21"]


def _types(t: BlindTable, round_id: str) -> list[str]:
    return [s.event.type for s in t.log if s.event.round == round_id]


def _last(t: BlindTable, kind: str) -> dict[str, Any]:
    event = next(s.event for s in reversed(t.log) if s.event.type == kind)
    return dict(statements.command_data(BLIND, event.data))


def _dealt_to_shuffle(t: BlindTable) -> None:
    t.open_round()
    t.commit_and_reveal()


def _to_the_deal(t: BlindTable) -> None:
    _dealt_to_shuffle(t)
    t.answer(0)
    t.answer(1)


# -- the option and the version ----------------------------------------------------------------


def test_the_dealing_option_is_in_the_full_form_only_when_blind() -> None:
    committed = GAME.options({})
    assert "dealing" not in committed
    assert GAME.options({"dealing": "committed"}) == committed
    blind = GAME.options({"dealing": "blind", "seed_time_ms": 10_000})
    assert blind["dealing"] == "blind"
    for bad in ({"dealing": "open"}, {"dealing": 1}, {"dealing": "blind", "seed_time_ms": 9_999}):
        with pytest.raises(OptionsError):
            GAME.options(bad)


def test_the_version_follows_the_options_and_a_mismatch_is_refused() -> None:
    blind = {"dealing": "blind", "seed_time_ms": 10_000}
    assert table.created_version(GAME, blind) == BLIND
    assert table.created_version(GAME, {}) == statements.SIGNED
    for options, version in ((blind, 2), ({}, 3)):
        with pytest.raises(OptionsError):
            table.create(GAME, "t", options, helpers.T0, helpers.SIGNER, version=version)
        data = {"game": "toto21", "options": GAME.options(options)}
        with pytest.raises(OptionsError):
            table.started({"toto21": GAME}, data, version)


def test_a_blind_table_refuses_a_keyless_seat() -> None:
    game_table, _ = table.create(
        GAME, "t", {"dealing": "blind", "seed_time_ms": 10_000}, helpers.T0, helpers.SIGNER
    )
    command = table.Command(SEAT_JOINED, "seat:0", helpers.T0, {"key": None})
    with pytest.raises(KeyRequiredError) as refused:
        table.execute(game_table, command, None, helpers.SIGNER)
    assert refused.value.code == "key_required"


# -- a whole match --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def match() -> BlindTable:
    t = BlindTable("blind-m", {"target": 2})
    while t.state.phase == "playing":
        t.play_round()
    return t


def test_a_blind_match_plays_to_its_target_and_every_round_verifies(match: BlindTable) -> None:
    events = [s.event for s in match.log]
    assert {e.version for e in events} == {BLIND}
    assert events[-1].type in ("round_revealed",)
    assert any(e.type == "match_won" for e in events)
    log = helpers.Log()
    rounds = [e.round for e in events if e.type == "round_revealed"]
    for round_id in rounds:
        log.add(match, str(round_id))
    trust = load_trust([helpers.VERIFIER_KEY])
    for index in range(len(rounds)):
        report = verify_bundle(log.bundle(index, bounded=True), trust)
        assert report.verdict == "valid", [f.code for f in report.findings]


def test_a_blind_round_logs_the_drafted_runs(match: BlindTable) -> None:
    first = _types(match, "blind-m.1")
    sealed = first.index("round_sealed")
    assert first[sealed + 1 : sealed + 3] == ["deck_shuffled", "shuffle_due"]
    dealt = first.index("dealer_chosen")
    assert first[dealt - 1] == "deck_shuffled" and first[dealt - 2] == "shuffle_due"
    assert first[dealt + 1 : dealt + 6] == ["card_dealt"] * 4 + ["shares_due"]
    assert "card_opened" in first and first[-1] == "round_revealed"
    opened = next(s.event for s in match.log if s.event.type == "card_opened")
    assert opened.data["position"] == 1
    dealt_cards = [s.event.data for s in match.log if s.event.type == "card_dealt"]
    assert all(
        set(d) == {"position", "seat", "face", "ciphertext", "server_share"} for d in dealt_cards
    )
    assert all((d["server_share"] is None) == (d["face"] == "blind") for d in dealt_cards)


def test_a_seats_signed_members_are_logged_once(match: BlindTable) -> None:
    for signed in match.log:
        data = signed.event.data
        if "signed" in data:
            assert not set(data["signed"]["data"]) & (set(data) - {"signed"}), signed.event.type
    step = next(
        s.event.data
        for s in match.log
        if s.event.type == DECK_SHUFFLED and s.event.actor != "server"
    )
    assert set(step) == {"signed", "step"}


def test_no_view_shows_a_hidden_card_before_the_showdown() -> None:
    t = BlindTable("blind-v")
    _to_the_deal(t)
    for seat in (None, 0, 1):
        view = GAME.view_for(t.state, seat, t.secret)
        cards = view["round"]["cards"]
        assert [c.get("card") for c in cards] == [None, None, None, None]  # the up-card: not yet
        assert all("ciphertext" in c for c in cards)
    t.answer(0)
    t.answer(1)
    view = GAME.view_for(t.state, 0, t.secret)
    assert [c["position"] for c in view["round"]["cards"] if "card" in c] == [1]


# -- the issue's promise: the operator cannot open a hidden card -------------------------------


def _opens(points: list[bytes], ciphertext: elgamal.Ciphertext, shares: list[bytes]) -> bool:
    try:
        elgamal.card_index(points, elgamal.decrypt(cipher.group(), ciphertext, shares))
    except elgamal.NotACardError:
        return False
    return True


def test_the_operator_cannot_open_a_hidden_card_before_its_owner() -> None:
    """Everything the operator holds (the log, its signing key, the server seed, so x_0 and
    all its shares) and every combination of the shares in the log opens no face-down card
    and not the blind card while the round is in play; after the showdown each one opens."""
    t = BlindTable(
        "blind-o", strategy=lambda seat, seen, legal: "blind" if "blind" in legal else "stand"
    )
    _to_the_deal(t)
    t.answer(0)
    t.answer(1)
    t.move(t.state.hand.player)  # the player takes the blind card, then stands
    t.move(t.state.hand.player)
    group, points = cipher.group(), elgamal.card_points(cipher.group(), "toto21", 1)
    crypto, hand = t.state.crypto, t.state.hand
    x_0 = elgamal.server_round_key(t.secret)
    hidden = [h for h in hand.held if h.face != "up"]
    assert {h.face for h in hidden} == {"down", "blind"}
    for held in hidden:
        ciphertext = cipher.ciphertext(crypto, held.position)
        logged = [bytes.fromhex(s["share"]) for s in crypto.shares.get(held.position, {}).values()]
        own = group.mul(ciphertext.b, x_0)  # the operator's share, computed or logged
        candidates = set(logged) | {own}
        for size in range(1, len(candidates) + 1):
            for chosen in itertools.combinations(candidates, size):
                assert not _opens(points, ciphertext, list(chosen)), held
    # the showdown: the dealer stands, both keys are revealed, every card is shown
    while t.step():
        pass
    shown = {
        c["position"]: c["card"]
        for s in t.log
        if s.event.type == "cards_shown"
        for c in s.event.data["cards"]
    }
    assert {h.position for h in hidden} <= set(shown)


# -- refusals --------------------------------------------------------------------------------


def test_a_plain_seed_before_the_commitments_is_refused() -> None:
    t = BlindTable("blind-p")
    t.open_round()
    with pytest.raises(IllegalActionError, match="commits first"):
        t.send(0, CLIENT_SEED, {"seed": "plain"})


def test_a_round_key_without_a_valid_proof_or_another_partys_is_refused() -> None:
    t = BlindTable("blind-k")
    round_id = t.open_round()
    data = t.parties[0].commitment_data("00" * 32)
    forged = {
        **data,
        "round_key": {**data["round_key"], "proof": {"c": "01" + "00" * 31, "s": "00" * 32}},
    }
    with pytest.raises(KeyInvalidError):
        t.send(0, SEED_COMMITMENT, forged)
    server_key = t.state.crypto.server_key
    copied = {**data, "round_key": {"key": server_key, "proof": data["round_key"]["proof"]}}
    with pytest.raises(KeyInvalidError):
        t.send(0, SEED_COMMITMENT, copied)
    missing = {"commitment": data["commitment"]}
    with pytest.raises(IllegalActionError, match="round_key"):
        t.send(0, SEED_COMMITMENT, missing)
    assert [e for e in _types(t, round_id)] == ["round_opened"]


def test_a_stacked_or_swapped_step_is_refused_and_nothing_is_logged() -> None:
    t = BlindTable("blind-s")
    _dealt_to_shuffle(t)
    honest = t.parties[0].step(t.state, t.round_events())
    before = len(t.log)
    stacked = {
        **honest,
        "deck": [*honest["deck"][:5], dict(t.state.crypto.deck()[5]), *honest["deck"][6:]],
    }
    swapped = {**honest, "deck": [honest["deck"][1], honest["deck"][0], *honest["deck"][2:]]}
    for bad in (stacked, swapped):
        with pytest.raises(ShuffleInvalidError):
            t.send(0, DECK_SHUFFLED, bad)
    assert len(t.log) == before
    with pytest.raises(OutOfTurnError):
        t.send(1, DECK_SHUFFLED, honest)
    with pytest.raises(IllegalActionError, match="never sent"):
        t.server(DECK_SHUFFLED, honest)
    t.send(0, DECK_SHUFFLED, honest)


def test_a_bad_share_or_a_share_not_asked_is_refused() -> None:
    t = BlindTable("blind-b")
    _to_the_deal(t)
    seat = t.state.crypto.request.seats[0]
    honest = t.parties[seat].shares(t.state, t.round_events())
    wrong = [dict(entry) for entry in honest["shares"]]
    wrong[0]["share"] = wrong[1]["share"]
    with pytest.raises(ShareInvalidError):
        t.send(seat, DECRYPTION_SHARES, {"shares": wrong})
    with pytest.raises(IllegalActionError, match="positions"):
        t.send(seat, DECRYPTION_SHARES, {"shares": honest["shares"][1:]})
    # the up-card (position 1) is asked of every seat: true in its place is not 1
    as_true = [{**e, "position": True} if e["position"] == 1 else e for e in honest["shares"]]
    with pytest.raises(IllegalActionError, match="integer"):
        t.send(seat, DECRYPTION_SHARES, {"shares": as_true})
    t.send(seat, DECRYPTION_SHARES, honest)
    with pytest.raises(OutOfTurnError):
        t.send(seat, DECRYPTION_SHARES, honest)


def test_a_party_refuses_to_share_its_own_card_whatever_the_log_asks() -> None:
    t = BlindTable("blind-r")
    _to_the_deal(t)
    state, hand = t.state, t.state.hand
    own = next(h.position for h in hand.held if h.seat == hand.player)
    request = Request(SHARES_DUE, 0, (hand.player,), {hand.player: (own,)})
    asked = replace(state, crypto=replace(state.crypto, request=request))
    with pytest.raises(PartyRefusedError, match=f"position {own}"):
        t.parties[hand.player].shares(asked, t.round_events())
    with pytest.raises(PartyRefusedError, match="keys_due"):
        t.parties[hand.player].reveal(state, t.round_events())


def test_an_answer_signed_before_its_request_is_stale() -> None:
    t = BlindTable("blind-st")
    _dealt_to_shuffle(t)
    seq = next(s.event.seq for s in t.log if s.event.type == "round_sealed")
    data = t.parties[0].step(t.state, t.round_events())
    key, n = seat_key(0), t.numbers[0] + 1
    after = {"seq": seq, "hash": t.log[seq].hash.hex()}
    sent = statements.signed_data(
        key, t.table_id, t.round_id, 0, n=n, after=after, kind=DECK_SHUFFLED, data=data
    )
    command = table.Command(DECK_SHUFFLED, "seat:0", t.now, sent, t.round_id)
    with pytest.raises(SignatureStaleError):
        table.execute(t.table, command, t.secret, helpers.SIGNER)


def test_a_revealed_key_not_the_seats_is_refused() -> None:
    t = BlindTable("blind-km", strategy=lambda seat, seen, legal: "stand")
    _to_the_deal(t)
    t.answer(0)
    t.answer(1)
    with pytest.raises(OutOfTurnError):
        t.send(0, ROUND_KEY, {"secret": "01" + "00" * 31})
    t.move(t.state.hand.player)
    t.move(t.state.hand.dealer)
    with pytest.raises(KeyMismatchError):
        t.send(0, ROUND_KEY, {"secret": "01" + "00" * 31})


# -- withholding -------------------------------------------------------------------------------


def _time_out(t: BlindTable) -> None:
    deadline = (
        t.state.crypto.request.deadline if t.state.crypto.request else t.state.round.seed_deadline
    )
    t.now = deadline
    due = GAME.due(t.state, t.now)
    assert due is not None
    t.server(due.type, dict(due.data))


def test_a_missed_commitment_voids_the_round_naming_the_seat() -> None:
    t = BlindTable("blind-w1")
    round_id = t.open_round()
    t.commit_and_reveal(seats=(0,))
    _time_out(t)
    assert _types(t, round_id)[-3:] == ["seed_timeout", "round_voided", "round_revealed"]
    assert _last(t, "round_voided") == {"reason": "seed_withheld", "seats": [1]}


def test_a_withheld_step_voids_the_round_naming_the_seat() -> None:
    t = BlindTable("blind-w2")
    _dealt_to_shuffle(t)
    t.answer(0)
    _time_out(t)
    assert _last(t, "shuffle_timeout")["seat"] == 1
    assert _last(t, "round_voided") == {"reason": "shuffle_withheld", "seats": [1]}
    assert t.state.score == (0, 0) and t.state.worth == 1


def test_a_withheld_share_loses_the_round_and_both_withheld_keys_void_it() -> None:
    t = BlindTable("blind-w3")
    _to_the_deal(t)
    withholder = t.state.crypto.request.seats[1]
    t.answer(t.state.crypto.request.seats[0])
    _time_out(t)
    won = _last(t, "round_won")
    assert won["reason"] == "shares_withheld" and won["totals"] is None
    assert won["seat"] != withholder and _types(t, t.round_id)[-1] == "round_revealed"
    assert "cards_shown" not in _types(t, t.round_id)
    t2 = BlindTable("blind-w4", strategy=lambda seat, seen, legal: "stand")
    _to_the_deal(t2)
    t2.answer(0)
    t2.answer(1)
    t2.move(t2.state.hand.player)
    t2.move(t2.state.hand.dealer)
    _time_out(t2)
    assert _last(t2, "round_voided") == {"reason": "key_withheld", "seats": [0, 1]}


# -- claims and draws ----------------------------------------------------------------------


def _arranged(label: str, cards_at: dict[int, str], strategy: Any = careful) -> BlindTable:
    t = BlindTable(label, strategy=strategy)
    _dealt_to_shuffle(t)
    t.arrange(cards_at)
    return t


def _finish(t: BlindTable) -> dict[str, Any]:
    while t.step():
        pass
    return next(
        s.event.data for s in reversed(t.log)
        if s.event.type in ("round_won", "round_voided", "round_double_bust")
    )  # fmt: skip


def test_two_aces_claimed_win_the_golden_point() -> None:
    t = _arranged("blind-g1", {0: "AS", 1: "7H", 2: "AH", 3: "8C"})
    outcome = _finish(t)
    assert "golden_point" in _types(t, t.round_id)
    assert (outcome["reason"], outcome["seat"]) == ("golden_point", t.state.hand.player)


def test_two_aces_not_claimed_still_win_at_the_showdown() -> None:
    t = _arranged(
        "blind-g2", {0: "AS", 1: "7H", 2: "AH", 3: "8C"}, strategy=lambda s, seen, legal: "stand"
    )
    outcome = _finish(t)
    assert "golden_point" not in _types(t, t.round_id)
    assert outcome["reason"] == "golden_point" and outcome["totals"][t.state.hand.player] == 12


def test_a_false_claim_loses_the_round() -> None:
    def claim(seat: int, seen: list[str], legal: list[str]) -> str:
        return "golden_point" if "golden_point" in legal else "stand"

    t = _arranged("blind-f", {0: "AS", 1: "7H", 2: "KH", 3: "8C"}, strategy=claim)
    outcome = _finish(t)
    assert (outcome["reason"], outcome["seat"]) == ("false_claim", t.state.hand.dealer)


def test_a_draw_at_21_loses_the_round_at_the_showdown() -> None:
    def greedy(seat: int, seen: list[str], legal: list[str]) -> str:
        return "hit" if "hit" in legal and len(seen) < 3 else "stand"

    # the player holds 10 + A = 21 and draws anyway; the dealer stands on what it has
    t = _arranged(
        "blind-d", {0: "10S", 1: "7H", 2: "AH", 3: "8C", 4: "6D", 5: "9D"}, strategy=greedy
    )
    outcome = _finish(t)
    player = t.state.hand.player
    assert outcome["reason"] == "illegal_draw" and outcome["seat"] != player


def test_the_deck_runs_out_only_past_the_last_position() -> None:
    def reckless(seat: int, seen: list[str], legal: list[str]) -> str:
        return "hit" if "hit" in legal else "stand"

    t = BlindTable("blind-x", strategy=reckless)
    _to_the_deal(t)
    with pytest.raises(IllegalActionError, match="exhausted"):
        for _ in range(80):
            t.step()
