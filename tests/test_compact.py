"""The third bundle format (SPEC 13.1.1): compact events turn back into exactly the signed
events written, a dealer-blind round's bundle is under 100 KB, and every way to edit a compact
bundle is found by the verifier (the conformance suite holds the browser's module to the same
cases)."""

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairdeal import compact as cf
from fairdeal.blind import shuffle as tw
from fairdeal.bundle import COMPACT, FORMAT, LogEntry, make_bundle, signed_events
from fairdeal.compact import NotCompactError
from fairdeal.events import event_hash
from fairdeal.verifier import load_trust, verify_bundle
from tests.blind_table import LONG, BlindTable, to_twenty
from tests.verifier import helpers

Bundle = dict[str, Any]
ROOT = Path(__file__).resolve().parent.parent


@cache
def _round(long: bool) -> tuple[Bundle, Bundle]:
    """One blind round's bundle from the table_state before it, in the second format and in
    the compact one."""
    t = BlindTable("compact", seeded=True, **({"strategy": to_twenty} if long else {}))
    t.open_round()
    t.commit_and_reveal()
    if long:
        t.arrange(LONG)
    while t.step():
        pass
    log = helpers.Log()
    log.add(t, str(t.round_id))
    return log.bundle(0, bounded=True), log.bundle(0, bounded=True, compact=True)


@pytest.fixture
def blind() -> tuple[Bundle, Bundle]:
    full, small = _round(False)
    return copy.deepcopy(full), copy.deepcopy(small)


def _size(bundle: Bundle) -> int:
    return len(json.dumps(bundle, separators=(",", ":")).encode())


def _report(bundle: Bundle) -> tuple[str, set[str]]:
    report = verify_bundle(json.loads(json.dumps(bundle)), load_trust([helpers.VERIFIER_KEY]))
    return report.verdict, {f.code for f in report.findings}


# --- what is written, and what it turns back into ------------------------------------------


def test_compact_events_turn_back_into_exactly_the_signed_events(
    blind: tuple[Bundle, Bundle],
) -> None:
    full, small = blind
    assert (full["format"], small["format"]) == (FORMAT, COMPACT)
    assert signed_events(small) == full["events"]
    assert cf.compact(full["events"]) == small["events"]
    first, later = small["events"][0], small["events"][1:]
    assert set(first) == {*cf.INHERITED, "seq", "prev", "type", "data", "signature"}
    assert all("prev" not in e and "hash" not in e and "table" not in e for e in later)


def test_every_step_is_packed_and_unpacks_to_its_hex_form(blind: tuple[Bundle, Bundle]) -> None:
    full, small = blind
    steps = [e for e in small["events"] if e["type"] == "deck_shuffled"]
    assert len(steps) == 3
    signed_steps = [e for e in full["events"] if e["event"]["type"] == "deck_shuffled"]
    for step, signed in zip(steps, signed_steps, strict=True):
        packed = step["data"]["signed"]["data"] if "signed" in step["data"] else step["data"]
        hexed = signed["event"]["data"]
        hexed = hexed if signed["event"]["actor"] == "server" else hexed["signed"]["data"]
        assert isinstance(packed["deck"], str) and isinstance(packed["proof"], str)
        assert len(packed["deck"]) == -(-36 * 64 * 4 // 3)  # 72 elements, unpadded base64url
        assert isinstance(hexed["deck"], list) and len(hexed["proof"]["s_prime"]) == 36


def test_a_committed_chain_turns_back_too() -> None:
    """The compact form holds any chain (the service writes it for blind tables only)."""
    export = json.loads((ROOT / "tests/vectors/fairdeal-bundle-2.json").read_text())["export"]
    for line in export:
        events = json.loads(line)["events"] if isinstance(line, str) else line["events"]
        assert events[0]["event"]["version"] != 3
        written = cf.compact(events)
        assert cf.expanded(written) == events
        assert len(json.dumps(written)) < 0.75 * len(json.dumps(events))


def test_the_longest_blind_round_is_under_100_kb_compact_and_was_not_in_full() -> None:
    full, small = _round(True)
    dealt = sum(1 for e in small["events"] if e["type"] == "card_dealt")
    assert dealt == 16
    assert _size(small) <= 100_000 < _size(full)
    assert _report(small) == ("valid", set())


def test_a_typical_blind_round_verifies_in_both_forms(blind: tuple[Bundle, Bundle]) -> None:
    full, small = blind
    assert _report(full) == _report(small) == ("valid", set())
    assert _size(small) < 0.7 * _size(full)


# --- what a writer will not write compactly ------------------------------------------------


def test_events_whose_links_are_not_their_hashes_are_written_in_the_second_format(
    blind: tuple[Bundle, Bundle],
) -> None:
    full, _ = blind
    events = full["events"]
    events[4]["event"]["prev"] = "00" * 32  # a fork: no compact event can say it
    log = LogEntry(**{**full["log"], "inclusion_proof": tuple(full["log"]["inclusion_proof"])})
    names = full["table_id"], full["round_id"]
    made = make_bundle(*names, events, full["keys"], log)
    assert made["format"] == FORMAT and made["events"] == events
    with pytest.raises(NotCompactError):
        make_bundle(*names, events, full["keys"], log, compact_form=True)
    events[4]["event"]["prev"] = events[3]["hash"]
    assert make_bundle(*names, events, full["keys"], log)["format"] == COMPACT
    events[6]["hash"] = "11" * 32  # a stated hash that is not the event's
    with pytest.raises(NotCompactError):
        cf.compact(events)


# --- a compact bundle edited: the verifier's findings --------------------------------------


def _edited(small: Bundle, change: Any) -> tuple[str, set[str]]:
    change(small["events"])
    return _report(small)


def _step(events: list[dict[str, Any]]) -> dict[str, Any]:
    """The service's step: the round's first."""
    return next(e for e in events if e["type"] == "deck_shuffled")["data"]


def test_an_event_left_out_breaks_the_signatures_after_it(blind: tuple[Bundle, Bundle]) -> None:
    verdict, codes = _edited(blind[1], lambda events: events.pop(20))
    assert verdict == "invalid" and {"chain.gap", "sig.bad_signature"} <= codes


def test_a_packed_deck_edited_is_a_signature_the_service_did_not_make(
    blind: tuple[Bundle, Bundle],
) -> None:
    def edit(events: list[dict[str, Any]]) -> None:
        step = _step(events)
        deck = step["deck"]
        step["deck"] = deck[:10] + ("A" if deck[10] != "A" else "B") + deck[11:]

    verdict, codes = _edited(blind[1], edit)
    assert verdict == "invalid" and "sig.bad_signature" in codes and "blind.shuffle" in codes


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param(lambda text: text + "=", id="padded"),
        pytest.param(lambda text: text.replace("-", "+").replace("_", "/"), id="standard-alphabet"),
        pytest.param(lambda text: text[:-1], id="a-character-short"),
    ],
)
def test_a_packed_proof_not_in_its_one_spelling_is_not_unpacked(
    blind: tuple[Bundle, Bundle], spelling: Any
) -> None:
    small = blind[1]
    step = _step(small["events"])
    step["proof"] = spelling(step["proof"])
    read = next(e for e in signed_events(small) if e["event"]["type"] == "deck_shuffled")
    assert read["event"]["data"]["proof"] == step["proof"]  # left as written: not unpacked
    verdict, codes = _report(small)
    assert verdict == "invalid" and "sig.bad_signature" in codes


@pytest.mark.parametrize(
    ("name", "change"),
    [
        ("prev after the first", lambda e: e.__setitem__("prev", "00" * 32)),
        ("a hash member", lambda e: e.__setitem__("hash", "00" * 32)),
        ("no signature", lambda e: e.pop("signature")),
        ("an event object", lambda e: e.__setitem__("event", {})),
    ],
)
def test_a_compact_event_of_another_shape_is_refused_with_every_one_after_it(
    blind: tuple[Bundle, Bundle], name: str, change: Any
) -> None:
    small = blind[1]
    change(small["events"][5])
    turned = cf.expanded(small["events"])
    assert turned[5:] == small["events"][5:] and all("event" in e for e in turned[:5])
    verdict, codes = _report(small)
    assert verdict == "invalid" and "schema.event" in codes, name


@pytest.mark.parametrize(
    ("name", "value"),
    [("table", "t" * 65), ("round", "r" * 1_000_000), ("version", 4), ("time", -1),
     ("actor", "seat:100"), ("key_id", "AB" * 16), ("version", True)],
)  # fmt: skip
def test_a_member_later_events_inherit_is_turned_only_of_its_fields_shape(
    blind: tuple[Bundle, Bundle], name: str, value: Any
) -> None:
    """A value every later event would inherit is bounded by its field's shape: a hostile
    writer cannot make each of many small events carry (and the reader hash) a large one."""
    small = blind[1]
    small["events"][0][name] = value
    small["events"][1:] = [
        {"seq": seq, "type": "x", "data": {}, "signature": "00"} for seq in range(1, 2001)
    ]
    assert cf.expanded(small["events"]) == small["events"]  # nothing turned, nothing hashed
    assert "schema.event" in _report(small)[1]


def test_the_writer_compares_what_it_wrote_as_json_values() -> None:
    """1 and true are equal in Python, not in the log: an event of data {"n": true} stating
    the hash of {"n": 1} is not written compactly."""
    first = _signed({"n": 1})
    second = _signed({"n": True}, seq=1)
    second["event"]["prev"] = first["hash"]
    second["hash"] = _signed({"n": 1}, seq=1)["hash"]
    with pytest.raises(NotCompactError):
        cf.compact([first, second])


def test_the_first_compact_event_must_name_everything(blind: tuple[Bundle, Bundle]) -> None:
    small = blind[1]
    del small["events"][0]["key_id"]
    assert cf.expanded(small["events"]) == small["events"]
    assert _report(small)[1] >= {"schema.event"}


def test_a_member_written_where_it_could_be_left_out_is_read_as_written(
    blind: tuple[Bundle, Bundle],
) -> None:
    full, small = blind
    small["events"][3]["table"] = small["table_id"]
    small["events"][3]["version"] = 3
    assert signed_events(small) == full["events"]


# --- the packing, exactly ------------------------------------------------------------------


def test_the_packed_layout_is_the_proofs_members_with_its_arrays() -> None:
    """The layout is SPEC 15.11.6's table; the proof's reader names the same members, and an
    array is one of N values there too."""
    assert [name for name, _ in cf.PROOF_LAYOUT] == [
        "c", "c_hat", "t1", "t2", "t3", "t41", "t42", "t_hat", "s1", "s2", "s3", "s4",
        "s_hat", "s_prime",
    ]  # fmt: skip
    assert {name for name, _ in cf.PROOF_LAYOUT} == tw.MEMBERS
    arrays = {name for name, is_array in cf.PROOF_LAYOUT if is_array}
    assert arrays == {"c", "c_hat", "t_hat", "s_hat", "s_prime"}


_HEX = st.binary(min_size=32, max_size=32).map(bytes.hex)


@st.composite
def _steps(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 5))
    deck = [{"a": draw(_HEX), "b": draw(_HEX)} for _ in range(count)]
    proof = {
        name: [draw(_HEX) for _ in range(count)] if is_array else draw(_HEX)
        for name, is_array in cf.PROOF_LAYOUT
    }
    return {"deck": deck, "proof": proof, "step": draw(st.integers(0, 2))}


def _signed(data: dict[str, Any], seq: int = 0) -> dict[str, Any]:
    event = {
        "version": 3, "table": "t", "round": "t.1", "seq": seq, "prev": "00" * 32, "time": 0,
        "type": "deck_shuffled", "actor": "server", "data": data,
    }  # fmt: skip
    return {"event": event, "hash": event_hash(event).hex(), "key_id": "ab" * 16,
            "signature": "cd" * 64}  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(_steps(), st.booleans())
def test_a_step_packs_and_unpacks_to_exactly_itself(step: dict[str, Any], by_a_seat: bool) -> None:
    data = {"step": step.pop("step"), "signed": {"n": 1, "data": step}} if by_a_seat else step
    written = cf.compact([_signed(data)])
    packed = written[0]["data"]["signed"]["data"] if by_a_seat else written[0]["data"]
    assert isinstance(packed["deck"], str) and isinstance(packed["proof"], str)
    assert cf.expanded(written) == [_signed(data)]


@settings(max_examples=60, deadline=None)
@given(_steps(), st.sampled_from(["upper", "short deck", "long array", "extra member", "number"]))
def test_a_step_not_of_the_packed_form_is_written_as_it_is(step: dict[str, Any], how: str) -> None:
    if how == "upper":
        step["deck"][0]["a"] = "AB" * 32
    elif how == "short deck":
        step["deck"].pop()
    elif how == "long array":
        step["proof"]["s_hat"].append("00" * 32)
    elif how == "extra member":
        step["proof"]["t5"] = "00" * 32
    else:
        step["proof"]["s1"] = 7
    written = cf.compact([_signed(step)])
    assert written[0]["data"] == step
    assert cf.expanded(written) == [_signed(step)]
