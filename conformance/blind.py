"""The cases of dealer-blind Toto21 tables (protocol version 3, SPEC 15.13.14): real blind
rounds played through the engine by two seat parties whose every draw is fixed (so each run
writes the same bytes), and named attacks on them. An attack is the operator's: it changes
its log, re-signs it and logs it again; where the change is to a seat's own command, the
operator holds that seat's key too (a colluding seat), so that only the round's proofs and
rules can tell. ``generate.py`` calls ``add``.
"""

import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fairdeal.blind import elgamal
from fairdeal.blind.group import ristretto255
from fairdeal.bundle import COMPACT, FORMAT
from fairdeal.compact import compact
from tests.blind_table import BlindTable, seat_key
from tests.verifier import corpus, helpers

if TYPE_CHECKING:
    from conformance.generate import Suite

Bundle = dict[str, Any]
Events = list[dict[str, Any]]
SEATS = {0: seat_key(0), 1: seat_key(1)}


def _claim(seat: int, seen: list[str], legal: list[str]) -> str:
    return "golden_point" if "golden_point" in legal else "stand"


def _stand(seat: int, seen: list[str], legal: list[str]) -> str:
    return "stand"


def _greedy(seat: int, seen: list[str], legal: list[str]) -> str:
    return "hit" if "hit" in legal and len(seen) < 3 else "stand"


def _blind_then_stand(seat: int, seen: list[str], legal: list[str]) -> str:
    return "blind" if "blind" in legal else "hit" if "hit" in legal and len(seen) < 2 else "stand"


def _played(table_id: str, strategy: Any = None, cards_at: dict[int, str] | None = None) -> Bundle:
    """The first round of a fresh blind table: its chain from seq 0 to the round's reveal."""
    t = BlindTable(table_id, seeded=True, **({"strategy": strategy} if strategy else {}))
    t.open_round()
    t.commit_and_reveal()
    if cards_at:
        t.arrange(cards_at)
    while t.step():
        pass
    return _bundle(t)


def _withheld(table_id: str, kind: str) -> Bundle:
    """A round in which seat 1 does not answer the first ``kind`` asked of it."""
    t = BlindTable(table_id, seeded=True, strategy=_stand)
    t.open_round()
    t.commit_and_reveal()
    while True:
        request = t.state.crypto.request
        if request is not None and request.kind == kind and 1 in request.seats:
            for seat in request.seats:
                if seat != 1:
                    t.answer(seat)
            t.now = t.state.crypto.request.deadline
            due = t.table.game.due(t.state, t.now)
            t.server(due.type, dict(due.data))
            return _bundle(t)
        t.step()


def _bundle(t: BlindTable) -> Bundle:
    log = helpers.Log()
    log.add(t, str(t.round_id))
    return log.bundle(0, bounded=True)


def _forged(bundle: Bundle, change: Callable[[Events], None]) -> Bundle:
    """The operator, holding both seats' keys, changes the bundle's events and re-signs
    them (the seats' statements too) from where the bundle starts, then logs it alone."""
    events = bundle["events"]
    prev = events[0]["event"]["prev"]
    forged = helpers.resign(copy.deepcopy(events), change, prev=prev, seats=SEATS)
    return corpus.relogged(bundle, forged)


def _first(events: Events, kind: str, actor: str | None = None) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind and (actor is None or e["actor"] == actor))


def _signed(event: dict[str, Any]) -> dict[str, Any]:
    """A seat's command data as it signed them (version 3 logs them once, inside signed)."""
    return event["data"]["signed"]["data"]


# -- the operator's and the seats' forgeries ----------------------------------------------------


def _stacked_card(events: Events) -> None:
    """Seat 0's step with one output replaced by another card's ciphertext of its input."""
    step = _signed(_first(events, "deck_shuffled", "seat:0"))
    served = _first(events, "deck_shuffled", "server")["data"]["deck"]
    step["deck"][0] = copy.deepcopy(served[5])


def _swapped_pair(events: Events) -> None:
    deck = _signed(_first(events, "deck_shuffled", "seat:1"))["deck"]
    deck[0], deck[1] = deck[1], deck[0]


def _wrong_randomness(events: Events) -> None:
    """One output of seat 1's step re-encrypted again, with a scalar its proof knows nothing of."""
    group = ristretto255()
    deck = _signed(_first(events, "deck_shuffled", "seat:1"))["deck"]
    joint = _joint_key(events)
    entry = elgamal.Ciphertext.from_json(group, deck[3])
    deck[3] = elgamal.reencrypt(group, joint, entry, 7).to_json()


def _joint_key(events: Events) -> bytes:
    keys = [_first(events, "round_opened")["data"]["server_key"]["key"]]
    keys += [_signed(e)["round_key"]["key"] for e in events if e["type"] == "seed_commitment"]
    return elgamal.joint_key(ristretto255(), [bytes.fromhex(k) for k in keys])


def _reused_commitment(events: Events) -> None:
    """Seat 1's proof is seat 0's, copied (a proof made for another statement)."""
    first = _signed(_first(events, "deck_shuffled", "seat:0"))
    _signed(_first(events, "deck_shuffled", "seat:1"))["proof"] = copy.deepcopy(first["proof"])


def _share_with_a_bad_dleq(events: Events) -> None:
    entry = _signed(_first(events, "decryption_shares", "seat:0"))["shares"][0]
    entry["proof"]["s"] = entry["proof"]["c"]


def _server_share_on_the_blind_card(events: Events) -> None:
    dealt = next(e for e in events if e["type"] == "card_dealt" and e["data"]["face"] == "blind")
    up = _first(events, "card_dealt")["data"]["server_share"]
    dealt["data"]["server_share"] = copy.deepcopy(up)


def _up_card_opened_as_another(events: Events) -> None:
    opened = _first(events, "card_opened")["data"]
    opened["card"] = "AS" if opened["card"] != "AS" else "KS"


def _withheld_given_to_the_wrong_seat(events: Events) -> None:
    won = _first(events, "round_won")["data"]
    won["seat"] = 1 - won["seat"]
    won["score"] = list(reversed(won["score"]))


def _revealed_key_not_the_seats(events: Events) -> None:
    _signed(_first(events, "round_key", "seat:0"))["secret"] = "01" + "00" * 31


def _rogue_key(events: Events) -> None:
    proof = _signed(_first(events, "seed_commitment", "seat:1"))["round_key"]["proof"]
    proof["c"], proof["s"] = proof["s"], proof["c"]


def _signed_member_logged_twice(events: Events) -> None:
    event = _first(events, "round_key", "seat:1")
    event["data"]["secret"] = _signed(event)["secret"]


def _shown_card_not_its_decryption(events: Events) -> None:
    shown = _first(events, "cards_shown")["data"]["cards"][0]
    shown["card"] = "AS" if shown["card"] != "AS" else "KS"


def _dealer_chosen_in_the_seal_run(events: Events) -> None:
    """dealer_chosen moved to the seal's run (right after the service's step), as in version
    2: the seqs renumbered."""
    at = next(i for i, e in enumerate(events) if e["type"] == "dealer_chosen")
    chosen = events.pop(at)
    step = next(i for i, e in enumerate(events) if e["type"] == "deck_shuffled")
    chosen["time"] = events[step]["time"]
    events.insert(step + 1, chosen)
    first = events[0]["seq"]
    for offset, event in enumerate(events):
        event["seq"] = first + offset


def _ciphertext_not_the_decks(events: Events) -> None:
    dealt = [e for e in events if e["type"] == "card_dealt"]
    dealt[0]["data"]["ciphertext"], dealt[2]["data"]["ciphertext"] = (
        dealt[2]["data"]["ciphertext"],
        dealt[0]["data"]["ciphertext"],
    )


def _keyless_seat(events: Events) -> None:
    _first(events, "seat_joined", "seat:1")["data"]["key"] = None


def _committed_options(events: Events) -> None:
    del _first(events, "table_created")["data"]["options"]["dealing"]


def add(suite: "Suite") -> None:
    """The valid rounds, then the attacks, in SPEC 15.13.14's order."""
    valid = _played("v3-valid")
    claimed = _played("v3-gold", cards_at={0: "AS", 1: "7H", 2: "AH", 3: "8C"})
    false_claim = _played("v3-false", _claim, cards_at={0: "AS", 1: "7H", 2: "KH", 3: "8C"})
    illegal = _played(
        "v3-draw", _greedy, cards_at={0: "10S", 1: "7H", 2: "AH", 3: "8C", 4: "6D", 5: "9D"}
    )
    with_blind = _played("v3-blindcard", _blind_then_stand)
    share = _withheld("v3-wshare", "shares_due")
    key = _withheld("v3-wkey", "keys_due")
    for id_, what, bundle, promised in (
        ("v3-toto21-valid", "a dealer-blind round played to its end", valid, ()),
        ("v3-toto21-golden-point", "the player's two aces claimed: golden point", claimed, ()),
        ("v3-toto21-false-claim", "a golden point claimed without two aces: the dealer wins",
         false_claim, ()),
        ("v3-toto21-illegal-draw", "the player draws at 21: it loses at the showdown", illegal,
         ()),
        ("v3-toto21-blind-card", "the player takes the blind card, opened at the showdown",
         with_blind, ()),
        ("v3-toto21-withheld-share", "seat 1 withholds a share: it loses the round", share,
         ()),
        ("v3-toto21-withheld-key", "seat 1 withholds its round key: it loses the round", key,
         ()),
    ):  # fmt: skip
        suite.case(id_, f"version 3, toto21: {what}", suite.bundle(id_, bundle), *promised)
    forgeries: list[tuple[str, str, Bundle, Callable[[Events], None], tuple[str, ...]]] = [
        ("stacked-card", "seat 0's step with a card replaced", valid, _stacked_card,
         ("blind.shuffle", "rules.illegal_action")),
        ("swapped-pair", "two outputs of seat 1's step swapped", valid, _swapped_pair,
         ("blind.shuffle",)),
        ("wrong-randomness", "an output of seat 1's step re-encrypted with another scalar",
         valid, _wrong_randomness, ("blind.shuffle",)),
        ("reused-commitment", "seat 1's step proved with seat 0's proof", valid,
         _reused_commitment, ("blind.shuffle",)),
        ("bad-dleq", "a seat's decryption share with a proof that does not verify", valid,
         _share_with_a_bad_dleq, ("blind.share",)),
        ("share-on-blind-card", "the service's share logged on the blind card", with_blind,
         _server_share_on_the_blind_card, ("blind.share", "rules.mismatch")),
        ("up-card-opened-as-another", "the up-card logged as another card", valid,
         _up_card_opened_as_another, ("card.wrong_card", "rules.mismatch")),
        ("withheld-share-wrong-seat", "the withheld share's forfeit given to the withholder",
         share, _withheld_given_to_the_wrong_seat, ("rules.mismatch",)),
        ("revealed-key-not-the-seats", "seat 0 reveals a key that is not its round key",
         valid, _revealed_key_not_the_seats, ("blind.reveal",)),
        ("rogue-key", "seat 1's round key with a proof that does not verify", valid,
         _rogue_key, ("blind.key",)),
        ("signed-member-twice", "a seat's signed secret logged a second time", valid,
         _signed_member_logged_twice, ("rules.mismatch",)),
        ("shown-card-not-its-decryption", "a shown card that is not its position's", valid,
         _shown_card_not_its_decryption, ("card.shown",)),
        ("dealer-chosen-in-seal-run", "the dealer chosen in the seal's run", valid,
         _dealer_chosen_in_the_seal_run, ("rules.mismatch",)),
        ("ciphertext-not-the-decks", "two dealt cards' ciphertexts swapped", valid,
         _ciphertext_not_the_decks, ("card.ciphertext",)),
        ("keyless-seat", "seat 1 joins the blind table without a key", valid, _keyless_seat,
         ("sig.seat_key",)),
        ("committed-options", "a version-3 table whose options are a committed table's",
         valid, _committed_options, ("rules.invalid_options",)),
    ]  # fmt: skip
    for name, what, base, change, promised in forgeries:
        id_ = f"v3-toto21-{name}"
        path = suite.bundle(id_, _forged(base, change))
        suite.case(id_, f"version 3, toto21, the operator: {what}", path, *promised)
    _add_compact(suite, valid, _forged(valid, _stacked_card))


# -- the compact form the service serves a blind round in (SPEC 13.1.1) ------------------------


def _compact(bundle: Bundle) -> Bundle:
    return {**bundle, "format": COMPACT, "events": compact(bundle["events"])}


def _left_out(events: Events) -> None:
    del events[20]


def _packed_deck_edited(events: Events) -> None:
    step = next(e for e in events if e["type"] == "deck_shuffled")["data"]
    step["deck"] = step["deck"][:10] + ("A" if step["deck"][10] != "A" else "B") + step["deck"][11:]


def _packed_proof_padded(events: Events) -> None:
    next(e for e in events if e["type"] == "deck_shuffled")["data"]["proof"] += "="


def _prev_after_the_first(events: Events) -> None:
    events[5]["prev"] = events[0]["prev"]


def _hash_member(events: Events) -> None:
    events[5]["hash"] = "00" * 32


def _first_without_key_id(events: Events) -> None:
    del events[0]["key_id"]


def _inherited_table_too_long(events: Events) -> None:
    """A table no id can be, which every later event would inherit: not turned."""
    events[0]["table"] = "t" * 65


def _add_compact(suite: "Suite", valid: Bundle, stacked: Bundle) -> None:
    """The valid round and a forged one as served, then an outsider's edits of the file."""
    served = _compact(valid)
    for id_, what, bundle, promised in (
        ("v3-toto21-compact", "a dealer-blind round in the compact form the service serves",
         served, ()),
        ("v3-toto21-compact-stacked-card", "the operator's stacked card, in the compact form",
         _compact(stacked), ("blind.shuffle", "rules.illegal_action")),
        ("v3-toto21-compact-labelled-second", "a compact bundle labelled fairdeal-bundle/2",
         {**served, "format": FORMAT}, ("schema.event",)),
        ("v3-toto21-second-labelled-compact", "a second-format bundle labelled "
         "fairdeal-bundle/3: its signed events are read as they stand",
         {**valid, "format": COMPACT}, ()),
    ):  # fmt: skip
        suite.case(id_, f"version 3, toto21: {what}", suite.bundle(id_, bundle), *promised)
    edits: list[tuple[str, str, Callable[[Events], None], tuple[str, ...]]] = [
        ("event-left-out", "a compact event left out", _left_out,
         ("chain.gap", "sig.bad_signature")),
        ("packed-deck-edited", "a character of the service's packed deck changed",
         _packed_deck_edited, ("sig.bad_signature", "blind.shuffle")),
        ("packed-proof-padded", "the service's packed proof with base64 padding",
         _packed_proof_padded, ("sig.bad_signature",)),
        ("prev-after-the-first", "a later compact event with a prev", _prev_after_the_first,
         ("schema.event",)),
        ("hash-member", "a compact event with a hash", _hash_member, ("schema.event",)),
        ("first-without-key-id", "the first compact event without its key_id",
         _first_without_key_id, ("schema.event",)),
        ("inherited-table-too-long", "the first compact event's table longer than an id",
         _inherited_table_too_long, ("schema.event",)),
    ]  # fmt: skip
    for name, what, change, promised in edits:
        id_ = f"v3-toto21-compact-{name}"
        edited = copy.deepcopy(served)
        change(edited["events"])
        suite.case(id_, f"version 3, toto21, an edit: {what}", suite.bundle(id_, edited), *promised)
