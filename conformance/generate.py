"""Make the conformance suite (README.md): its input files, and manifest.json with each
case's verdict, exit status and finding codes as fairdeal-verify gives them.

    python -m conformance.generate [--out DIR]      (from the repository's root)

writes the folder (by default this one: keys/, bundles/, exports/, checkpoints/, proofs/,
inputs/ and manifest.json, each rewritten whole). The inputs are real runs of the games
and named attacks on them, made by the repository's test machinery (tests/verifier:
helpers, signed, corpus, witnessed; and the attacks of its tests). Every key, server seed,
client seed, time and bot choice there is fixed and Ed25519 signs deterministically, so
each run writes the same bytes (tests/conformance/test_drift.py). The expected values
are not written by hand: each case is run through fairdeal-verify's own command line,
and its report gives the verdict and the codes. A case's name promises what it must
raise; the generator refuses to write a case whose report does not hold that promise
(a clean case: no finding at all).
"""

import argparse
import base64
import contextlib
import copy
import io
import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from conformance import blind, questions
from fairdeal.keys import public_key_pem
from fairdeal.note import Checkpoint, NoteSigner, sign_checkpoint
from fairdeal.verifier import cli
from fairdeal.verifier.inputs import LIMITS
from tests.js.test_differential import _face_a_list, _shown_past_the_deck
from tests.js.test_parity import SHOWDOWN_ATTACKS, _first_bundle, _move_deadline
from tests.js.test_parity_exports import _garbled, _history_rewritten, _swapped
from tests.js.test_parity_witnesses import _alice_flipped
from tests.verifier import corpus, helpers, signed
from tests.verifier.test_review import _inclusion, _served
from tests.verifier.test_v2_tampers import ATTACKS, _event, _key_swapped_table, _renumbered
from tests.verifier.witnessed import ALICE, BOB, IMPOSTOR, cosigned, head_second, witnessed

HERE = Path(__file__).resolve().parent
FORMAT = "fairdeal-conformance/1"
FOLDERS = ("keys", "bundles", "exports", "checkpoints", "proofs", "inputs")
LEGACY = HERE.parent / "tests" / "vectors" / "legacy-export-1.jsonl"
LEGACY_LINES = 3  # of its 9: the first three leaves are a whole export of their own

Bundle = dict[str, Any]
Events = list[dict[str, Any]]

# The key files (keys/): the operator's key as PEM and as a C2SP verifier key string, a
# real key that signed nothing here, a file that holds no key, two witnesses' keys.
PEM = "keys/operator.pem"
VKEY = "keys/operator.vkey"
OTHER = "keys/other.pem"
NOT_A_KEY = "keys/not-a-key.txt"
WITNESSES = ("keys/witness-alice.vkey", "keys/witness-bob.vkey")
EXPORT = "exports/export-whole.jsonl"  # the small log's whole export (_exports)
MISSING = "inputs/missing.json"  # named by cases, never written: input.unreadable
MAX_KEYS = LIMITS.max_keys  # --key files, and --witness files, one verification takes


@dataclass(frozen=True)
class Options:
    """A case's options: fairdeal-verify's flags, one member each (README.md)."""

    keys: tuple[str, ...] = (PEM,)
    witnesses: tuple[str, ...] = ()
    witness_quorum: int | None = None
    partial: bool = False
    checkpoint: str | None = None
    previous_checkpoint: str | None = None
    consistency_proofs: tuple[str, ...] = ()
    origin: str | None = None


def command_line(case: dict[str, Any]) -> list[str]:
    """fairdeal-verify's arguments for a case of the manifest, its paths as the manifest
    gives them (relative to its folder), ``--json`` not included."""
    options = case["options"]
    args = [arg for key in options["keys"] for arg in ("--key", key)]
    args += [arg for key in options["witnesses"] for arg in ("--witness", key)]
    if options["witness_quorum"] is not None:
        args += ["--witness-quorum", str(options["witness_quorum"])]
    if options["partial"]:
        args.append("--partial")
    for flag, name in (
        ("--checkpoint", "checkpoint"),
        ("--previous-checkpoint", "previous_checkpoint"),
        ("--origin", "origin"),
    ):
        if options[name] is not None:
            args += [flag, options[name]]
    args += [
        arg for proof in options["consistency_proofs"] for arg in ("--consistency-proof", proof)
    ]
    return args if case["input"] is None else [*args, case["input"]]


@dataclass(frozen=True)
class Planned:
    """A case before it is run: ``promised``, the codes its name says it raises."""

    id: str
    description: str
    input: str | None
    options: Options
    promised: frozenset[str]


@dataclass
class Suite:
    """The files (path under the folder: bytes) and the cases, as they are made."""

    files: dict[str, bytes] = field(default_factory=dict)
    planned: list[Planned] = field(default_factory=list)

    def put(self, path: str, data: bytes | str) -> str:
        raw = data.encode() if isinstance(data, str) else data
        assert self.files.setdefault(path, raw) == raw, f"{path} made twice, differently"
        return path

    def bundle(self, name: str, bundle: Bundle) -> str:
        return self.put(f"bundles/{name}.json", _json(bundle))

    def export(self, name: str, bundles: list[Bundle]) -> str:
        return self.put(f"exports/{name}.jsonl", "".join(_json(b) + "\n" for b in bundles))

    def case(
        self, id_: str, description: str, input_: str | None, *promised: str, **options: Any
    ) -> None:
        assert id_ not in {p.id for p in self.planned}, f"case {id_} twice"
        given = Options(**options)
        self.planned.append(Planned(id_, description, input_, given, frozenset(promised)))


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _bundle_of(log: helpers.Log, round_id: str, bounded: bool = False) -> Bundle:
    return log.bundle(
        next(i for i, e in enumerate(log.entries) if e[1] == round_id), bounded=bounded
    )


# -- keys -----------------------------------------------------------------------------------


def _keys(suite: Suite) -> None:
    suite.put(PEM, helpers.PEM)
    suite.put(VKEY, helpers.VERIFIER_KEY + "\n")
    suite.put(OTHER, public_key_pem(helpers.OTHER.public_key))
    suite.put(NOT_A_KEY, "not a key\n")
    for path, witness in zip(WITNESSES, (ALICE, BOB), strict=True):
        suite.put(path, witness.verifier_key() + "\n")


# -- version 1: clean bundles, the attack corpus, forged server decisions ------------------


@dataclass(frozen=True)
class Version1:
    """Version-1 tables (Toto21, Kvitlach under both rule sets, a seed timeout), their
    rounds logged in one log."""

    toto21: helpers.TableDriver
    classic: helpers.TableDriver
    log: helpers.Log

    @classmethod
    def make(cls) -> "Version1":
        toto21 = helpers.toto21_table("t21", rounds=2)
        classic = helpers.kvitlach_table("kv", rounds=2)
        pressburg = helpers.kvitlach_table("kp", rounds=2, rule_set="pressburg")
        timeout = helpers.TableDriver("kvitlach", "kvt", {})
        for seat in range(3):
            timeout.seat(seat, "seat_joined", {"buy_in": 1_000})
        timeout.play_round(seeds=["a", "b", None])
        log = helpers.Log().add_all(toto21, classic, pressburg, timeout)
        return cls(toto21, classic, log)


_GAMES = (("toto21", "t21"), ("kvitlach-classic", "kv"), ("kvitlach-pressburg", "kp"))


def _clean_version_1(suite: Suite, v1: Version1) -> None:
    for game, table in _GAMES:
        path = suite.bundle(f"v1-{game}-seq0", _bundle_of(v1.log, f"{table}.1"))
        suite.case(f"v1-{game}-seq0", f"version 1, {game}: round 1, its chain from seq 0", path)
        bounded = _bundle_of(v1.log, f"{table}.2", bounded=True)
        assert bounded["events"][0]["event"]["type"] == "table_state"
        path = suite.bundle(f"v1-{game}-from-state", bounded)
        what = f"version 1, {game}: round 2, from the table_state after round 1"
        suite.case(f"v1-{game}-from-state", what, path)
    path = suite.bundle("v1-kvitlach-seed-timeout", _bundle_of(v1.log, "kvt.1"))
    what = "version 1, kvitlach: a seat lets its seed time out, the round is played without it"
    suite.case("v1-kvitlach-seed-timeout", what, path)
    what = "the toto21 round 1 bundle, the key given as the log's C2SP verifier key string"
    suite.case("v1-toto21-seq0-verifier-key", what, "bundles/v1-toto21-seq0.json", keys=(VKEY,))
    what = "the toto21 round 1 bundle, its log's name pinned with --origin"
    suite.case("v1-toto21-seq0-origin", what, "bundles/v1-toto21-seq0.json", origin=helpers.ORIGIN)
    what = "the toto21 round 1 bundle, --origin naming another log"
    suite.case(
        "v1-toto21-seq0-other-origin",
        what,
        "bundles/v1-toto21-seq0.json",
        "checkpoint.origin",
        origin="other.example/log",
    )


# corpus.NAMED's attacks that need the table's whole chain: they change table_created or a
# seat_joined, or take an event of the table's round before; the rest change the round alone
# and are run on the bundle from the table_state after the round before (smaller).
_WHOLE_CHAIN = {
    "a_deposit_altered",
    "an_event_replayed_from_another_round",
    "changed_rule_options",
    "a_chain_not_starting_with_table_created",
}


def _corpus(suite: Suite, v1: Version1) -> None:
    """corpus.NAMED: an outsider's edits and the operator's re-signed, re-logged lies."""
    fixtures = {
        bounded: corpus.Fixture(
            toto21=_bundle_of(v1.log, "t21.2", bounded),
            kvitlach=_bundle_of(v1.log, "kv.2", bounded),
            timeout=_bundle_of(v1.log, "kvt.1"),
        )
        for bounded in (False, True)
    }
    for name, (which, attack, code) in corpus.NAMED.items():
        bundle = attack(corpus.fixture_of(fixtures[name not in _WHOLE_CHAIN], which))
        id_ = "attack-" + name.replace("_", "-")
        what = f"{which}: {name.replace('_', ' ')} (tests/verifier/corpus.py)"
        suite.case(id_, what, suite.bundle(id_, bundle), code)
    toto21 = fixtures[True].toto21
    dealt = corpus.first_of_each_type(toto21)["card_dealt"]
    for member in ("version", "prev", "data", "hash", "key_id"):
        id_ = f"attack-a-card-dealt-{member.replace('_', '-')}-edited"
        what = f"toto21: one byte of a signed card_dealt's {member} changed (an outsider)"
        bundle = corpus.field_attack(toto21, dealt, member)
        suite.case(id_, what, suite.bundle(id_, bundle), corpus.FIELD_CODES[member])
    shapes: dict[str, tuple[Bundle, str, str]] = {
        "schema-bundle-without-log": (
            {key: value for key, value in toto21.items() if key != "log"},
            "a bundle without its log member",
            "schema.bundle",
        ),
        "schema-event-without-actor": (
            corpus.outsider(toto21, lambda events: events[3]["event"].pop("actor")),
            "a signed event without its actor",
            "schema.event",
        ),
    }
    for id_, (bundle, what, code) in shapes.items():
        suite.case(id_, f"toto21: {what}", suite.bundle(id_, bundle), code)


def _unknown_game(events: Events) -> None:
    events[0]["data"]["game"] = "baccarat"


def _game_a_list(events: Events) -> None:
    events[0]["data"]["game"] = []


def _round_without_commitment(events: Events) -> None:
    del events[corpus.index_of(events, "round_opened", 0)]["data"]["commitment"]


def _negative_transfer(events: Events) -> None:
    """The round's last transfer of a positive amount, logged as negative."""
    paid = [t for e in events[1:] for t in e["data"].get("transfers", ())][-1]
    paid["amount"] = -paid["amount"]


def _bet_over_the_limit(events: Events) -> None:
    events[corpus.index_of(events, "bet", 0)]["data"]["amount"] = 10**6


def _seed_after_the_seal(events: Events) -> None:
    """A seat's client seed logged again after the seal, before the round's first bet."""
    seed = copy.deepcopy(events[corpus.index_of(events, "client_seed", 0)])
    bet = corpus.index_of(events, "bet", 0)
    seed["time"] = events[bet]["time"]
    events.insert(bet, seed)
    _renumbered(events)


_RULES: dict[str, tuple[str, Callable[[Events], None], str, str]] = {
    # id: (the round, from its table_state if it has one; the operator's change, the code,
    # what it is)
    "rules-unknown-game": (
        "t21.1",
        _unknown_game,
        "rules.unknown_game",
        "a table of a game the verifier does not know: nothing can be judged (the operator)",
    ),
    "rules-crashed-game-a-list": (
        "t21.1",
        _game_a_list,
        "rules.crashed",
        "toto21: table_created's game a list, which the rules cannot look up (the operator)",
    ),
    "schema-data-card-face-a-list": (
        "kv.2",
        _face_a_list,
        "schema.data",
        "kvitlach: a card_dealt whose face is a list (the operator; fairdeal-verify once crashed)",
    ),
    "rules-card-shown-past-the-deck": (
        "kv.2",
        _shown_past_the_deck,
        "card.shown",
        "kvitlach: a card dealt past the deck's end, then one shown there (the operator; "
        "fairdeal-verify once crashed)",
    ),
    "schema-data-round-without-commitment": (
        "t21.2",
        _round_without_commitment,
        "schema.data",
        "toto21: a round_opened without its commitment (the operator)",
    ),
    "money-transfer-negative": (
        "kv.2",
        _negative_transfer,
        "money.transfer",
        "kvitlach: the round's last transfer logged as a negative amount (the operator)",
    ),
    "rules-move-due-deadline": (
        "t21.2",
        _move_deadline,
        "rules.mismatch",
        "toto21: a move_due's deadline re-stated a millisecond later (the operator)",
    ),
    "rules-bet-over-the-limit": (
        "kv.2",
        _bet_over_the_limit,
        "rules.over_limit",
        "kvitlach: a bet logged over the table's maximum bet (the operator)",
    ),
    "rules-seed-after-the-seal": (
        "kv.1",  # renumbered from seq 0: a round from its table's start
        _seed_after_the_seal,
        "rules.round_sealed",
        "kvitlach: a seat's client seed logged again after the round's seal (the operator)",
    ),
}


def _forged_decisions(suite: Suite, v1: Version1) -> None:
    """Illegal moves and server decisions the rules replay finds, re-signed and re-logged."""
    for id_, (round_id, change, code, what) in _RULES.items():
        bundle = corpus.operator(_bundle_of(v1.log, round_id, bounded=True), change)
        suite.case(id_, what, suite.bundle(id_, bundle), code)
    for number, (name, change) in enumerate(SHOWDOWN_ATTACKS.items(), 1):
        id_ = f"rules-settlement-{number}"
        bundle = corpus.operator(_first_bundle(v1.log, name), change)
        suite.case(id_, f"{name} (the operator)", suite.bundle(id_, bundle), "rules.mismatch")


# -- version 2: keyed and keyless seats, the operator's forgeries of their moves -----------


def _version_2() -> helpers.Log:
    return helpers.Log().add_all(
        signed.toto21_table("v2t21"),
        signed.kvitlach_table("v2kv"),
        signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
    )


def _clean_version_2(suite: Suite, v2: helpers.Log) -> None:
    keyed = "seat 0 keyed, seat 1 keyless"
    for game, table in (
        ("toto21", "v2t21"),
        ("kvitlach-classic", "v2kv"),
        ("kvitlach-pressburg", "v2kp"),
    ):
        seats = keyed if game == "toto21" else "seats 0 and 2 keyed, seat 1 keyless"
        path = suite.bundle(f"v2-{game}-seq0", _bundle_of(v2, f"{table}.1"))
        what = f"version 2, {game} ({seats}): round 1, its chain from seq 0"
        suite.case(f"v2-{game}-seq0", what, path)
        path = suite.bundle(f"v2-{game}-from-state", _bundle_of(v2, f"{table}.3", bounded=True))
        what = f"version 2, {game} ({seats}): round 3, from the table_state after round 2"
        suite.case(f"v2-{game}-from-state", what, path)
    path = suite.bundle("v2-toto21-withheld-reveal", _bundle_of(v2, "v2t21.2", bounded=True))
    what = "version 2, toto21: seat 0 commits and withholds its reveal, the round is voided"
    suite.case("v2-toto21-withheld-reveal", what, path)


def _statement(type_: str, round_id: str, actor: str, change: str) -> Callable[[Events], None]:
    """The operator's change to the seat's first ``type_`` of the round: ``relabel`` it as
    the other move, drop its ``signed``, or set its statement's ``n`` to 1."""

    def forge(events: Events) -> None:
        data = _event(events, type_, round_id, actor)
        if change == "relabel":
            data["type"] = {"stand": "hit", "hit": "stand"}[type_]
        elif change == "unsigned":
            del data["data"]["signed"]
        else:
            data["data"]["signed"]["n"] = 1

    return forge


_FORGERIES = {  # issue 23: (what is done, the code)
    "relabel": ("relabelled {other}", "sig.seat_bad"),
    "unsigned": ("its signed member dropped", "sig.seat_missing"),
    "n-1": ("its statement's n set to 1", "sig.seat_replayed"),
}


def _forged_seats(suite: Suite, v2: helpers.Log) -> None:
    """Issue 23: the operator, holding the service's key but no seat's, forges a keyed
    seat's move, re-signs the chain and logs it under a checkpoint it signs."""
    for game, round_id, actor, move in (
        ("toto21", "v2t21.1", "seat:0", "stand"),
        ("kvitlach", "v2kv.1", "seat:2", "hit"),
    ):
        for change, (done, code) in _FORGERIES.items():
            id_ = f"v2-{game}-keyed-{move}-{change}"
            other = {"stand": "hit", "hit": "stand"}[move]
            forged = corpus.operator(
                _bundle_of(v2, round_id), _statement(move, round_id, actor, change)
            )
            what = (
                f"version 2, {game}: keyed {actor}'s {move} {done.format(other=other)}, "
                "re-signed and re-logged by the operator"
            )
            suite.case(id_, what, suite.bundle(id_, forged), code)
    for name in (
        "a_keyless_seats_move_signed",
        "a_seat_bound_to_a_small_order_key",
        "a_move_replayed_from_a_later_round",
        "a_reveal_that_does_not_open_its_commitment",
        "a_withheld_reveal_blamed_on_another_seat",
    ):
        round_id, change, codes = ATTACKS[name]
        id_ = "v2-attack-" + name.replace("_", "-")
        forged = corpus.operator(_bundle_of(v2, round_id), change)
        what = f"version 2, {round_id}: {name.replace('_', ' ')} (the operator)"
        suite.case(id_, what, suite.bundle(id_, forged), *codes)


def _void_without_reason(events: Events) -> None:
    events[corpus.index_of(events, "round_voided", 0)]["data"]["reason"] = " "


def _reveal_logged_twice(events: Events) -> None:
    """The first round's reveal logged again right after it: an event naming a revealed
    round."""
    reveal = next(i for i, e in enumerate(events) if e["type"] == "round_revealed")
    events.insert(reveal + 1, copy.deepcopy(events[reveal]))
    _renumbered(events)


def _forged_rounds(suite: Suite, v1: Version1, v2: helpers.Log) -> None:
    """Step 14 on rounds the operator re-signs and re-logs."""
    voided = _bundle_of(v2, "v2t21.2", bounded=True)
    id_ = "rules-void-reason-blank"
    what = "version 2, toto21: a voided round's reason re-stated as blank (the operator)"
    bundle = corpus.operator(voided, _void_without_reason)
    suite.case(id_, what, suite.bundle(id_, bundle), "round.void_reason")
    id_ = "rules-event-after-the-reveal"
    what = "kvitlach, from seq 0: round 1's reveal logged twice, naming it after its reveal"
    bundle = corpus.operator(_bundle_of(v1.log, "kv.2"), _reveal_logged_twice)
    suite.case(id_, what, suite.bundle(id_, bundle), "round.after_reveal")


def _without_game(events: Events) -> None:
    del events[0]["data"]["game"]


def _decks_null(events: Events) -> None:
    events[0]["data"]["options"]["decks"] = None


def _joined_balances_null(events: Events) -> None:
    events[corpus.index_of(events, "seat_joined", 0)]["data"]["balances"] = None


def _in_place_of(type_: str, member: str, was: Any, now: Any) -> Callable[[Events], None]:
    """The round's first ``type_`` stating ``now`` where it stated ``was`` (Python: equal)."""

    def change(events: Events) -> None:
        data = events[corpus.index_of(events, type_, 0)]["data"]
        assert data[member] == [was], data
        data[member] = [now]

    return change


def _void_reason(reason: str) -> Callable[[Events], None]:
    def change(events: Events) -> None:
        events[corpus.index_of(events, "round_voided", 0)]["data"]["reason"] = reason

    return change


def _settled(events: Events) -> dict[str, Any]:
    return next(e["data"] for e in reversed(events) if e["data"].get("transfers"))


def _paid_by_proto(events: Events) -> None:
    _settled(events)["transfers"].append({"from": "__proto__", "to": "bank", "amount": 1})


def _paid_to_proto(events: Events) -> None:
    data = _settled(events)
    data["transfers"].append({"from": "bank", "to": "__proto__", "amount": 1})
    data["balances"]["bank"] -= 1
    data["balances"]["__proto__"] = 1


def _accounts_past_2_53(events: Events) -> None:
    """Two accounts of 2^53 - 1 stated from the table_state on (conserved), then the
    round's last balances 1 over for the bank: their sums differ by 1 past 2^53."""
    stated = [e["data"]["balances"] for e in events if isinstance(e["data"].get("balances"), dict)]
    for balances in stated:
        balances.update({"x": 2**53 - 1, "y": 2**53 - 1})
    stated[-1]["bank"] += 1


# Where the browser module once answered otherwise than fairdeal-verify (its port of Python's
# dict.get, ==, str.strip, exact integers and objects keyed by any name), found by
# tests/js/test_differential.py: (the log, the round, from its table_state, the operator's
# change, the codes, what it is).
_PORT: dict[str, tuple[str, str, bool, Callable[[Events], None], tuple[str, ...], str]] = {
    "rules-table-created-without-game": (
        "v1",
        "t21.1",
        False,
        _without_game,
        ("rules.unknown_game", "deck.rules"),
        "toto21: table_created without its game member (the operator)",
    ),
    "rules-options-decks-null": (
        "v1",
        "kv.1",
        False,
        _decks_null,
        ("rules.invalid_options", "deck.rules"),
        "kvitlach: table_created's decks option null: no deck for those rules (the operator)",
    ),
    "money-joined-balances-null": (
        "v1",
        "t21.1",
        False,
        _joined_balances_null,
        ("rules.illegal_action",),
        "toto21: a seat_joined's balances null, none stated: the rules refuse it (the operator)",
    ),
    "rules-seed-timeout-seats-true": (
        "v2",
        "v2kp.1",
        False,
        _in_place_of("seed_timeout", "seats", 1, True),
        ("rules.mismatch",),
        "version 2, kvitlach: a seed_timeout naming seat true for 1, equal to the verifier's "
        "own, unequal to the rules' (the operator)",
    ),
    "rules-void-seats-false": (
        "v2",
        "v2t21.2",
        True,
        _in_place_of("round_voided", "seats", 0, False),
        ("sig.seat_bad",),
        "version 2, toto21: a withheld reveal's void naming seat false for 0 (the operator)",
    ),
    "rules-void-reason-separator": (
        "v2",
        "v2t21.2",
        True,
        _void_reason("\x1c"),
        ("round.void_reason", "seed.withheld"),
        "version 2, toto21: a void's reason U+001C, blank as Python strips it (the operator)",
    ),
    "rules-void-reason-byte-order-mark": (
        "v2",
        "v2t21.2",
        True,
        _void_reason("\ufeff"),
        ("seed.withheld",),
        "version 2, toto21: a void's reason U+FEFF, not blank as Python strips it (the operator)",
    ),
    "money-transfer-from-proto": (
        "v1",
        "kv.2",
        True,
        _paid_by_proto,
        ("money.transfer", "money.balances"),
        "kvitlach: a settlement's transfer from an account named __proto__ (the operator)",
    ),
    "money-transfer-to-proto": (
        "v1",
        "kv.2",
        True,
        _paid_to_proto,
        ("rules.mismatch",),
        "kvitlach: a settlement pays 1 to an account named __proto__, its balances restated "
        "(the operator)",
    ),
    "money-sums-past-2-53": (
        "v1",
        "kv.2",
        True,
        _accounts_past_2_53,
        ("money.balances", "money.not_conserved"),
        "kvitlach: accounts of 2^53 - 1 from the table_state on, the last balances 1 over: "
        "not conserved, in exact integers (the operator)",
    ),
}


def _port_slips(suite: Suite, v1: Version1, v2: helpers.Log) -> None:
    logs = {"v1": v1.log, "v2": v2}
    for id_, (log, round_id, bounded, change, codes, what) in _PORT.items():
        bundle = corpus.operator(_bundle_of(logs[log], round_id, bounded), change)
        suite.case(id_, what, suite.bundle(id_, bundle), *codes)
    bundle = _bundle_of(v1.log, "t21.2", bounded=True)
    alone = corpus.relogged(bundle, bundle["events"])  # leaf 0 of a log of 1
    alone["log"]["leaf_index"] = -1
    id_ = "bundle-leaf-index-negative"
    what = "toto21: the operator's bundle, leaf 0 of a log of 1 it signs, stating leaf_index -1"
    suite.case(id_, what, suite.bundle(id_, alone), "log.inclusion")
    # The log member is not signed: anyone may edit it. An empty origin names no log (the
    # checkpoint's own name is used); a blank one is no key name. A signature line by an
    # unknown key is ignored, unless its name is no key name (Python's whitespace, U+0085;
    # U+007F is not).
    edits: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
        "bundle-log-origin-empty": ("origin", "", "its log's origin empty", ()),
        "bundle-log-origin-blank": ("origin", " ", "its log's origin a space", _MALFORMED),
        "checkpoint-signature-name-nel": (
            "checkpoint",
            _signed_by_another("a\x85b", bundle["log"]["checkpoint"]),
            "its checkpoint with a signature line more, by a name holding U+0085",
            _MALFORMED,
        ),
        "checkpoint-signature-name-del": (
            "checkpoint",
            _signed_by_another("a\x7fb", bundle["log"]["checkpoint"]),
            "its checkpoint with a signature line more, by a name holding U+007F",
            (),
        ),
    }
    for id_, (member, value, what, codes) in edits.items():
        edited = {**bundle, "log": {**bundle["log"], member: value}}
        suite.case(id_, f"toto21: {what}", suite.bundle(id_, edited), *codes)


_MALFORMED = ("checkpoint.malformed",)


def _signed_by_another(name: str, note: str) -> str:
    """``note`` with one more signature line, by a key of that name the verifier does not
    know (a key ID and 64 bytes)."""
    blob = base64.b64encode(bytes(range(4 + 64))).decode()
    return f"{note}\u2014 {name} {blob}\n"


# -- exports ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Logs:
    """A small log of three rounds (toto21 round 1, kvitlach rounds 1 and 2) for the
    exports, checkpoints and proofs, and a fork of it: the same rounds in another order,
    signed by the same key (a split view)."""

    log: helpers.Log
    fork: helpers.Log

    @classmethod
    def make(cls, v1: Version1) -> "Logs":
        order = ((v1.toto21, "t21.1"), (v1.classic, "kv.1"), (v1.classic, "kv.2"))
        log, fork = helpers.Log(), helpers.Log()
        for driver, round_id in order:
            log.add(driver, round_id)
        for driver, round_id in (order[1], order[0], order[2]):
            fork.add(driver, round_id)
        return cls(log, fork)


def _exports(suite: Suite, logs: Logs, v2: helpers.Log) -> None:
    bounded, whole = logs.log.bundles(bounded=True), logs.log.bundles()
    assert [b["round_id"] for b in bounded] == ["t21.1", "kv.1", "kv.2"]
    exports: dict[str, tuple[list[Bundle], str, tuple[str, ...]]] = {
        "export-whole": (bounded, "the whole log, each later bundle from its table_state", ()),
        "export-line-dropped": (
            [bounded[0], bounded[2]],
            "kvitlach round 1's line dropped from the whole export",
            ("log.round_missing", "export.link"),
        ),
        "export-lines-swapped": (
            _swapped(bounded, 0, 1),
            "the first two lines (two tables) swapped",
            ("log.order",),
        ),
        "export-lines-of-a-table-swapped": (
            _swapped(bounded, 1, 2),
            "kvitlach's two lines swapped",
            ("log.order", "export.link"),
        ),
        "export-line-duplicated": (
            [*bounded[:2], bounded[1], bounded[2]],
            "kvitlach round 1's line given twice",
            ("log.order",),
        ),
        "export-line-from-a-fork": (
            [*bounded[:2], logs.fork.bundle(2, bounded=True)],
            "the last line taken from a fork of the log: the same size, another root",
            ("checkpoint.fork",),
        ),
        "export-history-rewritten": (
            [*whole[:2], _history_rewritten(whole[2])],
            "every bundle from seq 0, the last one's table history re-signed otherwise",
            ("export.fork",),
        ),
        "export-v2-whole": (
            _version_2_export(v2),
            "version 2: toto21 and kvitlach, keyed and keyless seats, the whole log",
            (),
        ),
        "export-state-banker": (
            helpers.Log().add_all(helpers.lying_table(helpers.other_banker)).bundles(bounded=True),
            "a kvitlach table_state naming another banker than the table's",
            ("export.state",),
        ),
        "export-state-balance": (
            helpers.Log().add_all(helpers.lying_table(helpers.move_money)).bundles(bounded=True),
            "a kvitlach table_state moving 100 from one seat's balance to another's",
            ("export.state",),
        ),
        "export-state-seat-key": (
            helpers.Log().add_all(_key_swapped_table()).bundles(bounded=True),
            "version 2: a table_state binding seat 2 to a key of the operator's own",
            ("export.state",),
        ),
    }
    for id_, (lines, what, codes) in exports.items():
        suite.case(id_, what, suite.export(id_, lines), *codes)
    filtered = suite.export("export-filtered", bounded[1:])
    suite.case("export-filtered", "kvitlach's lines alone, with --partial", filtered, partial=True)
    what = "kvitlach's lines alone, as if the whole log"
    suite.case("export-filtered-as-whole", what, filtered, "log.round_missing")
    text = helpers.export_text(bounded)
    garbled = suite.put("exports/export-line-garbled.jsonl", _garbled(text, 1))
    suite.case("export-line-garbled", "line 2 cut short", garbled, "input.malformed_json")
    lines = text.encode().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"round_id": "', b'"round_id": "\xff', 1)
    path = suite.put("exports/export-line-not-utf8.jsonl", b"".join(lines))
    what = "a byte that is not UTF-8 in line 2: that line alone is unusable, the others checked"
    suite.case("export-line-not-utf8", what, path, "input.malformed_json")
    spaced = text.replace("\n", "\r\n\n \n")
    path = suite.put("exports/export-blank-lines-crlf.jsonl", spaced)
    suite.case("export-blank-lines-crlf", "the whole export, CRLF and blank lines", path)
    legacy = LEGACY.read_bytes().splitlines(keepends=True)[:LEGACY_LINES]
    path = suite.put("exports/legacy-export-1-head.jsonl", b"".join(legacy))
    what = "the first three lines of tests/vectors/legacy-export-1.jsonl (version 1, frozen)"
    suite.case("legacy-export-1-head", what, path, keys=(VKEY,))


def _version_2_export(v2: helpers.Log) -> list[Bundle]:
    """The version-2 log's toto21 and classic kvitlach rounds, as a log of their own."""
    log = helpers.Log()
    for driver, round_id, _ in v2.entries:
        if not round_id.startswith("v2kp"):
            log.add(driver, round_id)
    return log.bundles(bounded=True)


# -- checkpoints and proofs, pinned and as the input ---------------------------------------


class Pins(NamedTuple):
    """The files of the small log's checkpoints (its latest, of size 3, and the one of its
    first two leaves; the fork's of the same sizes; the latest in the service's JSON form)
    and the consistency proof from 2 to 3."""

    latest: str
    earlier: str
    forked: str
    forked_earlier: str
    served: str
    proof: str

    @classmethod
    def make(cls, suite: Suite, logs: Logs) -> "Pins":
        log, fork = logs.log, logs.fork
        size = log.tree.size
        return cls(
            suite.put(f"checkpoints/log-{size}.txt", log.checkpoint()),
            suite.put("checkpoints/log-2.txt", log.checkpoint(2)),
            suite.put(f"checkpoints/fork-{size}.txt", fork.checkpoint()),
            suite.put("checkpoints/fork-2.txt", fork.checkpoint(2)),
            suite.put(f"checkpoints/log-{size}.json", _served(log)),
            suite.put(f"proofs/consistency-2-{size}.json", json.dumps(log.consistency(2, size))),
        )


def _checkpoints(suite: Suite, logs: Logs, pins: Pins) -> None:
    latest, earlier, forked, forked_earlier, _, proof = pins
    log = logs.log
    pinned = {
        "checkpoint-alone": ("the log's checkpoint, alone", {"checkpoint": latest}, ()),
        "checkpoint-extends-previous": (
            "the checkpoint, the one before it and the consistency proof between them",
            {"checkpoint": latest, "previous_checkpoint": earlier, "consistency_proofs": (proof,)},
            (),
        ),
        "checkpoint-without-proof": (
            "the checkpoint and the one before it, no consistency proof given",
            {"checkpoint": latest, "previous_checkpoint": earlier},
            ("input.missing_proof",),
        ),
        "checkpoint-rollback": (
            "the checkpoint given as previous, the one before it as the later",
            {"checkpoint": earlier, "previous_checkpoint": latest},
            ("checkpoint.rollback",),
        ),
        "checkpoint-fork": (
            "two checkpoints of one size with other roots: the log and its fork",
            {"checkpoint": latest, "previous_checkpoint": forked},
            ("checkpoint.fork",),
        ),
        "checkpoint-fork-inconsistent": (
            "the fork's earlier checkpoint, the log's proof from it to the log's",
            {
                "checkpoint": latest,
                "previous_checkpoint": forked_earlier,
                "consistency_proofs": (proof,),
            },
            ("checkpoint.inconsistent",),
        ),
        "checkpoint-other-origin": (
            "the checkpoint, --origin naming another log: no signature under that name",
            {"checkpoint": latest, "origin": "other.example/log"},
            ("checkpoint.signature",),
        ),
    }
    for id_, (what, options, codes) in pinned.items():
        suite.case(id_, what, None, *codes, **options)
    other = sign_checkpoint(
        Checkpoint(helpers.ORIGIN, log.tree.size, log.tree.root()),
        NoteSigner(helpers.ORIGIN, helpers.OTHER.private_key),
    )
    path = suite.put(f"checkpoints/other-key-{log.tree.size}.txt", other)
    what = "a checkpoint of the log's name signed by another key"
    suite.case("checkpoint-other-key", what, None, "checkpoint.signature", checkpoint=path)
    empty = suite.put("checkpoints/empty.txt", "")
    what = "an empty --checkpoint file"
    suite.case("checkpoint-file-empty", what, EXPORT, "input.wrong_format", checkpoint=empty)
    garbled = suite.put("checkpoints/garbled.txt", log.checkpoint().replace("\n\n", "\n"))
    what = "a --checkpoint file whose note has no blank line before its signatures"
    suite.case("checkpoint-file-garbled", what, EXPORT, "input.wrong_format", checkpoint=garbled)


def _checkpoint_inputs(suite: Suite, pins: Pins) -> None:
    latest, earlier, _, _, served, proof = pins
    what = "the checkpoint note given as the input"
    suite.case("input-checkpoint-note", what, latest)
    what = "the checkpoint in the service's JSON form {size, root_hash, note} as the input"
    suite.case("input-checkpoint-json", what, served)
    what = "the checkpoint as the input, extending --checkpoint (the earlier) by the proof"
    suite.case(
        "input-checkpoint-extends-pinned",
        what,
        served,
        checkpoint=earlier,
        consistency_proofs=(proof,),
    )
    what = "the checkpoint as the input and a consistency proof, no --checkpoint: it links nothing"
    suite.case(
        "input-checkpoint-proof-without-checkpoint", what, latest, consistency_proofs=(proof,)
    )
    what = "the checkpoint as the input, --checkpoint the earlier one, no proof given"
    suite.case(
        "input-checkpoint-without-proof", what, latest, "input.missing_proof", checkpoint=earlier
    )
    stated = json.loads(suite.files[served])
    path = suite.put("checkpoints/json-size-not-its-note.json", json.dumps({**stated, "size": 2}))
    what = "the checkpoint's JSON form stating a size its note does not"
    suite.case("input-checkpoint-json-other-size", what, path, "checkpoint.malformed")


def _proof_inputs(suite: Suite, logs: Logs, pins: Pins) -> None:
    latest, earlier = pins.latest, pins.earlier
    log = logs.log
    size = log.tree.size
    both = {"checkpoint": latest, "previous_checkpoint": earlier}
    consistency = log.consistency(2, size)
    stated = {**consistency, "from_root": log.tree.root(2).hex()}
    good = suite.put("proofs/consistency-stated-roots.json", json.dumps(stated))
    what = "a consistency proof stating its roots, as the input, between the two checkpoints"
    suite.case("input-consistency-proof", what, good, **both)
    bad = suite.put(
        "proofs/consistency-other-to-root.json", json.dumps({**stated, "to_root": "00" * 32})
    )
    what = "a consistency proof as the input whose to_root is not the checkpoint's root"
    suite.case("input-consistency-proof-other-root", what, bad, "checkpoint.inconsistent", **both)
    what = "a consistency proof as the input, no checkpoint given"
    suite.case("input-consistency-proof-alone", what, good, "input.missing_proof")
    inclusion = _inclusion(log, 1)
    path = suite.put("proofs/inclusion-1.json", json.dumps(inclusion))
    what = "the service's inclusion proof of leaf 1 as the input, against --checkpoint"
    suite.case("input-inclusion-proof", what, path, checkpoint=latest)
    what = "an inclusion proof as the input, no --checkpoint given"
    suite.case("input-inclusion-proof-alone", what, path, "input.missing_proof")
    other = suite.put(
        "proofs/inclusion-other-root.json", json.dumps({**inclusion, "root_hash": "00" * 32})
    )
    what = "an inclusion proof as the input whose root_hash is not the checkpoint's root"
    suite.case("input-inclusion-proof-other-root", what, other, "log.inclusion", checkpoint=latest)
    what = "an inclusion proof for the whole log against the checkpoint of its first two leaves"
    suite.case(
        "input-inclusion-proof-other-size", what, path, "log.not_in_checkpoint", checkpoint=earlier
    )


def _pinned_exports(suite: Suite, logs: Logs, pins: Pins) -> None:
    latest, earlier, forked_earlier = pins.latest, pins.earlier, pins.forked_earlier
    cases = {
        "export-checkpoint": (
            "the whole export and the log's checkpoint",
            {"checkpoint": latest},
            (),
        ),
        "export-checkpoint-previous": (
            "the whole export, the checkpoint and the one before it: the leaves link them",
            {"checkpoint": latest, "previous_checkpoint": earlier},
            (),
        ),
        "export-checkpoint-too-small": (
            "the whole export against the checkpoint of its first two leaves",
            {"checkpoint": earlier},
            ("log.not_in_checkpoint",),
        ),
        "export-checkpoint-rollback": (
            "the whole export, the checkpoint given as previous and the earlier as the later",
            {"checkpoint": earlier, "previous_checkpoint": latest},
            ("checkpoint.rollback",),
        ),
        "export-previous-from-a-fork": (
            "the whole export, --previous-checkpoint the fork's of two leaves",
            {"checkpoint": latest, "previous_checkpoint": forked_earlier},
            ("checkpoint.inconsistent",),
        ),
    }
    for id_, (what, options, codes) in cases.items():
        suite.case(id_, what, EXPORT, *codes, **options)
    cut = suite.export("export-last-line-dropped", logs.log.bundles(bounded=True)[:2])
    what = "the whole export less its last line, against the log's checkpoint"
    suite.case("export-last-line-dropped", what, cut, "log.round_missing", checkpoint=latest)
    bundle = suite.bundle("log-kvitlach-2", logs.log.bundle(2, bounded=True))
    what = "the log's last round alone, against the log's checkpoint"
    suite.case("bundle-checkpoint", what, bundle, checkpoint=latest)
    what = "the log's last round alone, against the checkpoint of the two leaves before it"
    suite.case(
        "bundle-not-in-checkpoint", what, bundle, "log.not_in_checkpoint", checkpoint=earlier
    )


# -- witnesses and split views ---------------------------------------------------------------


def _witnesses(suite: Suite, logs: Logs, pins: Pins) -> None:
    honest = logs.log.bundle(2, bounded=True)
    both = {"witnesses": WITNESSES}
    cases: dict[str, tuple[Bundle, str, dict[str, Any], tuple[str, ...]]] = {
        "witness-cosigned": (witnessed(honest, ALICE, BOB), "cosigned by both witnesses", both, ()),
        "witness-quorum-one": (
            witnessed(honest, ALICE),
            "cosigned by one of the two witnesses, a quorum of one",
            {**both, "witness_quorum": 1},
            (),
        ),
        "witness-quorum-not-met": (
            witnessed(honest, ALICE),
            "cosigned by one of the two witnesses, both required",
            both,
            ("witness.quorum",),
        ),
        "witness-signature-flipped": (
            _alice_flipped(honest),
            "one witness's cosignature with a bit flipped, a quorum of one",
            {**both, "witness_quorum": 1},
            ("witness.signature",),
        ),
        "witness-impostor": (
            witnessed(honest, IMPOSTOR, BOB),
            "a cosignature under a witness's name by another key",
            both,
            ("witness.quorum",),
        ),
        "witness-time": (
            witnessed(honest, ALICE, BOB, late=-3600),
            "cosigned an hour before the round's head was logged",
            both,
            ("witness.time",),
        ),
        "witness-clock-behind": (
            witnessed(honest, ALICE, BOB, late=-60),
            "cosigned a minute before the head's time: the witnesses' clocks behind, no finding",
            both,
            (),
        ),
    }
    for id_, (bundle, what, options, codes) in cases.items():
        suite.case(id_, what, suite.bundle(id_, bundle), *codes, **options)
    what = "the log's own key given as a witness's"
    path = "bundles/witness-cosigned.json"
    suite.case("witness-log-key", what, path, "input.wrong_format", witnesses=(VKEY,))
    # A split view: the witnesses cosigned the log's checkpoint; the operator shows a round
    # of a fork of the log (the same size, another root), whose checkpoint they never saw.
    at = head_second(honest) + 60
    note = cosigned(logs.log.checkpoint(), ALICE, BOB, at=at)
    pinned = suite.put(f"checkpoints/log-{logs.log.tree.size}-cosigned.txt", note)
    fork = suite.bundle("split-view-fork", logs.fork.bundle(2, bounded=True))
    what = "the witnessed checkpoint pinned, alone"
    suite.case("split-view-pinned", what, None, checkpoint=pinned, **both)
    what = "the witnessed checkpoint pinned, the round as the log's bundle shows it"
    suite.case("split-view-honest", what, path, checkpoint=pinned, **both)
    what = "a round of a fork of the log, witnesses given: its checkpoint is not cosigned"
    suite.case("split-view-fork", what, fork, "witness.quorum", **both)
    what = "a round of a fork of the log, against the witnessed checkpoint of the log"
    suite.case(
        "split-view-fork-pinned",
        what,
        fork,
        "witness.quorum",
        "checkpoint.fork",
        checkpoint=pinned,
        **both,
    )
    what = "the log's checkpoint without cosignatures pinned, witnesses required"
    suite.case(
        "split-view-pinned-not-cosigned",
        what,
        None,
        "witness.quorum",
        checkpoint=pins.latest,
        **both,
    )


# -- step 0: what cannot be read, or not judged ----------------------------------------------


def _step_zero(suite: Suite, pins: Pins) -> None:
    text = suite.files["bundles/v1-toto21-from-state.json"]
    error = {"error": {"code": "not_found", "message": "no round t21.9", "details": None}}
    twice_outside = text.replace(b'"format":', b'"format":"x","format":', 1)
    last = text.rindex(b'"actor":"server"')  # the round's reveal
    twice_inside = text[:last] + b'"actor":"server",' + text[last:]
    inputs = {
        "empty": ("inputs/empty.json", b"", "an empty file", "input.wrong_format"),
        "whitespace": (
            "inputs/whitespace.json",
            b" \n\t\n",
            "blank lines only",
            "input.wrong_format",
        ),
        "garbled-json": (
            "inputs/garbled.json",
            text[: len(text) // 2],
            "a bundle cut in the middle",
            "input.malformed_json",
        ),
        "byte-order-mark": (
            "inputs/byte-order-mark.json",
            b"\xef\xbb\xbf" + text,
            "a bundle after a UTF-8 byte order mark",
            "input.malformed_json",
        ),
        "not-utf8": (
            "inputs/not-utf8.json",
            b'{"format": "fairdeal-bundle/2", "table_id": "\xff"}',
            "JSON whose bytes are not UTF-8",
            "input.malformed_json",
        ),
        "server-error": (
            "inputs/server-error.json",
            json.dumps(error).encode(),
            "the service's error body saved in place of a bundle",
            "input.wrong_format",
        ),
        "json-array": (
            "inputs/array.json",
            b"[" + text + b"]",
            "a bundle inside a JSON array",
            "input.wrong_format",
        ),
        "plain-text": ("inputs/text.txt", b"round t21.2\n", "a line of text", "input.wrong_format"),
        "member-twice": (
            "inputs/member-twice.json",
            twice_outside,
            "a bundle whose format member is written twice",
            "input.malformed_json",
        ),
        "nested-512-deep": (
            "inputs/nested-512.json",
            b"[" * 512 + b"]" * 512,
            "512 arrays inside one another: JSON, but no bundle",
            "input.wrong_format",
        ),
        "nested-513-deep": (
            "inputs/nested-513.json",
            b"[" * 513 + b"]" * 513,
            "513 arrays inside one another: deeper than a reader takes",
            "input.malformed_json",
        ),
        "integer-4300-digits": (
            "inputs/integer-4300-digits.json",
            b"[" + b"9" * 4300 + b"]",
            "an integer of 4,300 digits: JSON, but no bundle",
            "input.wrong_format",
        ),
        "integer-4301-digits": (
            "inputs/integer-4301-digits.json",
            b"[-" + b"9" * 4301 + b"]",
            "an integer of 4,301 digits: longer than a reader takes",
            "input.malformed_json",
        ),
        "checkpoint-byte-order-mark": (
            "inputs/checkpoint-byte-order-mark.txt",
            b"\xef\xbb\xbf" + suite.files[pins.latest],
            "a checkpoint note after a byte order mark",
            "input.malformed_json",
        ),
    }
    for name, (path, data, what, code) in inputs.items():
        suite.case(f"input-{name}", what, suite.put(path, data), code)
    path = suite.put("inputs/member-twice-in-an-event.json", twice_inside)
    what = "a signed event's member written twice: read, then refused by step 2"
    suite.case("input-member-twice-in-an-event", what, path, "canonical.duplicate_key")
    bundle = "bundles/v1-toto21-from-state.json"
    what = "a real key that signed nothing here given as the operator's"
    suite.case("key-not-the-operators", what, bundle, "sig.wrong_key", keys=(OTHER,))
    what = "a key file that holds no key"
    suite.case("key-not-a-key", what, bundle, "input.wrong_format", keys=(NOT_A_KEY,))
    what = "two keys given, the operator's among them"
    suite.case("key-two-given", what, bundle, keys=(OTHER, PEM))
    bom = suite.put("keys/operator-byte-order-mark.pem", b"\xef\xbb\xbf" + helpers.PEM.encode())
    what = "the operator's key in a file that starts with a byte order mark"
    suite.case("key-file-byte-order-mark", what, bundle, "input.malformed_json", keys=(bom,))
    witness = b"\xef\xbb\xbf" + suite.files[WITNESSES[0]]
    bom = suite.put("keys/witness-alice-byte-order-mark.vkey", witness)
    what = "a witness's key in a file that starts with a byte order mark"
    suite.case(
        "witness-file-byte-order-mark", what, bundle, "input.malformed_json", witnesses=(bom,)
    )
    what = "the operator's key given 65 times: more keys than a verifier takes"
    suite.case("key-too-many", what, bundle, "input.too_large", keys=(PEM,) * (MAX_KEYS + 1))
    what = "a witness's key given 65 times: more witnesses than a verifier takes"
    witnesses = (WITNESSES[0],) * (MAX_KEYS + 1)
    suite.case("witness-too-many", what, bundle, "input.too_large", witnesses=witnesses)
    # Files the manifest names that do not exist (none is written): README.md, "Running it".
    what = "an input file that does not exist"
    suite.case("input-file-missing", what, MISSING, "input.unreadable")
    what = "a --key file that does not exist"
    suite.case("key-file-missing", what, bundle, "input.unreadable", keys=(MISSING,))
    what = "a --checkpoint file that does not exist"
    suite.case("checkpoint-file-missing", what, EXPORT, "input.unreadable", checkpoint=MISSING)
    what = "a --witness file that does not exist: a file, not a key string (no two +)"
    suite.case("witness-file-missing", what, bundle, "input.unreadable", witnesses=(MISSING,))


# -- the folder -------------------------------------------------------------------------------


def build() -> Suite:
    suite = Suite()
    _keys(suite)
    v1 = Version1.make()
    _clean_version_1(suite, v1)
    _corpus(suite, v1)
    _forged_decisions(suite, v1)
    v2 = _version_2()
    _clean_version_2(suite, v2)
    _forged_seats(suite, v2)
    _forged_rounds(suite, v1, v2)
    _port_slips(suite, v1, v2)
    logs = Logs.make(v1)
    _exports(suite, logs, v2)
    pins = Pins.make(suite, logs)
    _checkpoints(suite, logs, pins)
    _checkpoint_inputs(suite, pins)
    _proof_inputs(suite, logs, pins)
    _pinned_exports(suite, logs, pins)
    _witnesses(suite, logs, pins)
    _step_zero(suite, pins)
    questions.add(suite, _bundle_of(v1.log, "t21.2", bounded=True))
    blind.add(suite)
    return suite


def expected(case: Planned) -> dict[str, Any]:
    """The manifest's entry for ``case``: fairdeal-verify's verdict, exit status and codes
    for it, run from the suite's folder (the current directory)."""
    entry = {"id": case.id, "description": case.description, "input": case.input}
    entry["options"] = asdict(case.options)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main([*command_line(entry), "--json", "--jobs", "1"])
    report = json.loads(out.getvalue())
    codes = sorted({finding["code"] for finding in report["findings"]})
    assert report["findings_not_listed"] == 0, case.id
    if case.promised:
        missing = case.promised - set(codes)
        assert not missing, f"{case.id}: its name promises {sorted(missing)}, found {codes}"
    else:
        assert report["verdict"] == "valid", f"{case.id}: clean, but {codes}"
    return {**entry, "verdict": report["verdict"], "exit_status": status, "codes": codes}


def write(suite: Suite, out: Path) -> dict[str, Any]:
    """Write the suite's files and its manifest into ``out``, replacing what was there."""
    out.mkdir(parents=True, exist_ok=True)
    for folder in FOLDERS:
        shutil.rmtree(out / folder, ignore_errors=True)
    for path, data in suite.files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(data)
    with contextlib.chdir(out):
        cases = [expected(case) for case in suite.planned]
    manifest = {"format": FORMAT, "cases": cases}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m conformance.generate", description=__doc__)
    parser.add_argument("--out", type=Path, default=HERE, help="the folder (default: this one)")
    out = parser.parse_args(argv).out
    manifest = write(build(), out)
    files = [out / "manifest.json", *(p for f in FOLDERS for p in (out / f).rglob("*"))]
    size = sum(p.stat().st_size for p in files if p.is_file())
    print(f"{len(manifest['cases'])} cases, {size} bytes written to {out}")


if __name__ == "__main__":
    main()
