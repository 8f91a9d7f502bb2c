"""The tamper corpus: named attacks on valid bundles, each with the finding it must raise.

Two kinds of attacker. An outsider edits a bundle without the operator's key (the
signatures catch it). A lying operator edits its own log and re-signs, re-links and
re-logs it (``operator``): only the round protocol, the rules or the money checks can
catch that, which is the point of replaying everything.
"""

import copy
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fairdeal.bundle import LogEntry, make_bundle
from fairdeal.merkle import MerkleTree
from fairdeal.note import Checkpoint, sign_checkpoint

from .helpers import NOTE_SIGNER, ORIGIN, OTHER, VERIFIER_KEY, resign

Bundle = dict[str, Any]
Events = list[dict[str, Any]]


@dataclass(frozen=True)
class Fixture:
    """The valid material the attacks start from."""

    toto21: Bundle  # a Toto21 bundle whose round has a face-up card and shown cards
    kvitlach: Bundle  # a Kvitlach bundle of its table's second round
    timeout: Bundle  # a Kvitlach bundle whose round has a seed_timeout


def relogged(bundle: Bundle, events: Events) -> Bundle:
    """The bundle with ``events``, put in a fresh log the operator signs: leaf 0 of 1."""
    return relogged_all([(bundle, events)])[0]


def relogged_all(lines: list[tuple[Bundle, Events]]) -> list[Bundle]:
    """Each bundle with its events, in order, put in one fresh log the operator signs: an
    export of it, the bundle of line i at leaf i."""
    tree = MerkleTree()
    heads = [bytes.fromhex(events[-1]["hash"]) for _, events in lines]
    for head in heads:
        tree.append(head)
    note = sign_checkpoint(Checkpoint(ORIGIN, tree.size, tree.root()), NOTE_SIGNER)
    out = []
    for index, ((bundle, events), head) in enumerate(zip(lines, heads, strict=True)):
        proof = tuple(h.hex() for h in tree.inclusion_proof(index, tree.size))
        entry = LogEntry(ORIGIN, VERIFIER_KEY, index, head.hex(), tree.size, proof, note)
        names = bundle["table_id"], bundle["round_id"]
        made = make_bundle(*names, events, bundle["keys"], entry, compact_form=False)
        out.append(json.loads(json.dumps(made)))
    return out


def operator(bundle: Bundle, change: Callable[[list[dict[str, Any]]], None]) -> Bundle:
    """The operator rewrites its own log: change the plain events, re-sign and re-log."""
    return relogged(bundle, resign(copy.deepcopy(bundle["events"]), change))


def outsider(bundle: Bundle, change: Callable[[Events], None]) -> Bundle:
    """Someone without the key edits the signed events in place."""
    tampered = copy.deepcopy(bundle)
    change(tampered["events"])
    return tampered


def index_of(events: list[dict[str, Any]], type_: str, nth: int = -1, **data: Any) -> int:
    """Index of the nth event of the bundle's last round with that type (and data)."""
    last_round = events[-1].get("round") or events[-1]["event"]["round"]
    plain = [e.get("event", e) for e in events]
    found = [
        i
        for i, e in enumerate(plain)
        if e["type"] == type_
        and e["round"] in (last_round, None)
        and all(e["data"].get(k) == v for k, v in data.items())
    ]
    return found[nth]


def _set(type_: str, key: str, value: Any, nth: int = -1, **match: Any) -> Callable[[Any], None]:
    def change(events: list[dict[str, Any]]) -> None:
        events[index_of(events, type_, nth, **match)]["data"][key] = value

    return change


def _swap_client_seeds(events: list[dict[str, Any]]) -> None:
    a, b = index_of(events, "client_seed", 0), index_of(events, "client_seed", 1)
    events[a]["data"], events[b]["data"] = events[b]["data"], events[a]["data"]


def _other_seed(events: list[dict[str, Any]]) -> None:
    events[-1]["data"]["server_seed"] = "ab" * 32


def _face_up_card(events: list[dict[str, Any]]) -> None:
    event = events[index_of(events, "card_dealt", 0, face="up")]
    event["data"]["card"] = "AS" if event["data"]["card"] != "AS" else "AH"


def _commitment(events: list[dict[str, Any]]) -> None:
    event = events[index_of(events, "card_dealt", 0, face="down")]
    event["data"]["commitment"] = "00" * 32


def _shown_card(events: list[dict[str, Any]]) -> None:
    shown = events[index_of(events, "cards_shown", 0)]["data"]["cards"][0]
    shown["card"] = "AS" if shown["card"] != "AS" else "AH"


def _dealt_twice(events: list[dict[str, Any]]) -> None:
    second = events[index_of(events, "card_dealt", 1)]
    second["data"]["position"] -= 1


def _bet(events: list[dict[str, Any]]) -> None:
    events[index_of(events, "bet", 0)]["data"]["amount"] += 5


def _payout(events: list[dict[str, Any]]) -> None:
    for i in range(len(events) - 1, 0, -1):
        transfers = events[i]["data"].get("transfers")
        if transfers:
            transfers[0]["amount"] += 1
            return
    raise AssertionError("no transfer to alter")


def _balance(events: list[dict[str, Any]]) -> None:
    last = max(i for i, e in enumerate(events) if "balances" in e["data"])
    events[last]["data"]["balances"]["seat:1"] += 7


def _deposit(events: list[dict[str, Any]]) -> None:
    events[1]["data"]["buy_in"] += 100


def _options(events: list[dict[str, Any]]) -> None:
    events[0]["data"]["options"]["ante"] = 40


def _options_not_full(events: list[dict[str, Any]]) -> None:
    del events[0]["data"]["options"]["max_seats"]


def _early_timeout(events: list[dict[str, Any]]) -> None:
    timeout = events[index_of(events, "seed_timeout", 0)]
    timeout["time"] = timeout["data"]["deadline"] - 1
    for event in events[events.index(timeout) + 1 :]:
        event["time"] = max(event["time"], timeout["time"])


def _replayed_from_other_round(events: list[dict[str, Any]]) -> None:
    first_round = events[-1]["round"].replace(".2", ".1")
    bet = next(e for e in events if e["type"] == "bet" and e["round"] == first_round)
    at = index_of(events, "bet", 0)
    events.insert(at, copy.deepcopy(bet))
    for seq, event in enumerate(events):
        event["seq"] = seq


def _moved_to_other_round(events: list[dict[str, Any]]) -> None:
    events[index_of(events, "bet", 0)]["round"] = events[-1]["round"].replace(".2", ".1")


def _out_of_turn(events: list[dict[str, Any]]) -> None:
    events[index_of(events, "bet", 0)]["actor"] = "seat:2"


def _dealer(events: list[dict[str, Any]]) -> None:
    data = events[index_of(events, "dealer_chosen", 0)]["data"]
    data["dealer"], data["player"] = data["player"], data["dealer"]


def _float(events: Events) -> None:
    """A whole number written as 10.0: no canonical form, so no hash can be checked."""
    signed = events[index_of(events, "bet", 0)]["event"]
    signed["data"]["amount"] = float(signed["data"]["amount"])


def _other_table(events: list[dict[str, Any]]) -> None:
    events[5]["table"] = "elsewhere"


def _genesis(events: list[dict[str, Any]]) -> None:
    events[0]["type"] = "table_opened"


def _voided_silently(events: list[dict[str, Any]]) -> None:
    """The operator cuts the round after the seal and reveals at once, no void, no settling."""
    sealed = index_of(events, "round_sealed", 0)
    reveal = events[-1]
    del events[sealed + 2 :]
    reveal["seq"] = events[-1]["seq"] + 1
    events.append(reveal)


def _drop(at: int) -> Callable[[Events], None]:
    return lambda events: events.__delitem__(at)


def _duplicate(at: int) -> Callable[[Events], None]:
    return lambda events: events.insert(at, copy.deepcopy(events[at]))


def _reorder(at: int) -> Callable[[Events], None]:
    def change(events: Events) -> None:
        events[at], events[at + 1] = events[at + 1], events[at]

    return change


def _truncate(events: Events) -> None:
    del events[-3:]


def _forge_signature(events: Events) -> None:
    events[7]["signature"] = "5a" * 64


def _flip_hex(text: str) -> str:
    return ("1" if text[0] != "1" else "2") + text[1:]


# name: (which fixture, how, the finding code it must raise)
Attack = tuple[str, Callable[[Bundle], Bundle], str]


def _on(
    change: Callable[[Any], None], how: Callable[..., Bundle] = operator
) -> Callable[[Bundle], Bundle]:
    return lambda bundle: how(bundle, change)


NAMED: dict[str, Attack] = {
    "an_event_dropped": ("kvitlach", _on(_drop(20), outsider), "chain.gap"),
    "an_event_duplicated": ("kvitlach", _on(_duplicate(20), outsider), "chain.gap"),
    "two_events_reordered": ("kvitlach", _on(_reorder(20), outsider), "chain.gap"),
    "a_truncated_round": ("kvitlach", _on(_truncate, outsider), "round.unfinished"),
    "a_dropped_event_relinked_by_the_operator": ("kvitlach", _on(_drop(20)), "chain.gap"),
    "a_changed_face_up_card": ("toto21", _on(_face_up_card), "card.wrong_card"),
    "a_changed_card_commitment": ("toto21", _on(_commitment), "card.commitment"),
    "a_changed_shown_card": ("toto21", _on(_shown_card), "card.shown"),
    "a_deck_position_dealt_twice": ("toto21", _on(_dealt_twice), "card.position"),
    "two_client_seeds_swapped": ("kvitlach", _on(_swap_client_seeds), "seed.client"),
    "a_different_seed_revealed": ("kvitlach", _on(_other_seed), "seed.commitment"),
    "a_bet_altered": ("kvitlach", _on(_bet), "rules.mismatch"),
    "a_payout_altered": ("kvitlach", _on(_payout), "money.balances"),
    "a_balance_altered": ("kvitlach", _on(_balance), "money.not_conserved"),
    "a_deposit_altered": ("kvitlach", _on(_deposit), "money.balances"),
    "a_forged_signature": ("kvitlach", _on(_forge_signature, outsider), "sig.bad_signature"),
    "a_valid_signature_by_another_key": (
        "kvitlach",
        lambda b: relogged(b, resign(copy.deepcopy(b["events"]), lambda e: None, OTHER)),
        "sig.wrong_key",
    ),
    "an_event_replayed_from_another_round": (
        "kvitlach",
        _on(_replayed_from_other_round),
        "chain.misplaced",
    ),
    "an_event_moved_across_rounds": ("kvitlach", _on(_moved_to_other_round), "chain.misplaced"),
    "changed_rule_options": ("kvitlach", _on(_options), "rules.state"),
    "rule_options_not_in_full_form": ("kvitlach", _on(_options_not_full), "rules.invalid_options"),
    "a_timeout_stamped_before_its_deadline": ("timeout", _on(_early_timeout), "time.timeout_early"),
    "a_timeout_the_rules_do_not_allow_yet": ("timeout", _on(_early_timeout), "rules.not_due"),
    "a_bet_out_of_turn": ("kvitlach", _on(_out_of_turn), "rules.out_of_turn"),
    "a_dealer_choice_altered": ("toto21", _on(_dealer), "rules.mismatch"),
    "a_float_in_the_data": ("kvitlach", _on(_float, outsider), "canonical.encoding"),
    "an_event_of_another_table": ("kvitlach", _on(_other_table), "chain.table"),
    "a_chain_not_starting_with_table_created": ("kvitlach", _on(_genesis), "chain.genesis"),
    "a_round_cut_short_and_revealed": ("toto21", _on(_voided_silently), "rules.mismatch"),
}


def fixture_of(fixture: Fixture, name: str) -> Bundle:
    return getattr(fixture, name)  # type: ignore[no-any-return]


def _flip_field(field: str) -> Callable[[dict[str, Any]], None]:
    def change(signed: dict[str, Any]) -> None:
        event = signed["event"]
        if field in ("hash", "signature", "key_id"):
            signed[field] = _flip_hex(signed[field])
        elif field in ("seq", "time", "version"):
            event[field] += 1
        elif field in ("prev",):
            event[field] = _flip_hex(event[field])
        elif field == "data":
            event["data"] = {**event["data"], "x": 1}
        elif field == "actor":
            event["actor"] = "seat:9" if event["actor"] != "seat:9" else "seat:8"
        elif field == "round":
            event["round"] = (event["round"] or "r") + "x"
        else:
            event[field] = event[field] + "x"

    return change


# A changed byte in each field of an event, and the finding it must raise.
FIELD_CODES = {
    "version": "chain.version",
    "table": "chain.table",
    "round": "sig.hash_mismatch",
    "seq": "chain.gap",
    "prev": "chain.fork",
    "time": "sig.hash_mismatch",
    "type": "sig.hash_mismatch",
    "actor": "sig.hash_mismatch",
    "data": "sig.hash_mismatch",
    "hash": "sig.hash_mismatch",
    "key_id": "sig.unknown_key",
    "signature": "sig.bad_signature",
}


def field_attack(bundle: Bundle, index: int, field: str) -> Bundle:
    tampered = copy.deepcopy(bundle)
    _flip_field(field)(tampered["events"][index])
    return tampered


def first_of_each_type(bundle: Bundle) -> dict[str, int]:
    firsts: dict[str, int] = {}
    for i, signed in enumerate(bundle["events"]):
        firsts.setdefault(signed["event"]["type"], i)
    return firsts
