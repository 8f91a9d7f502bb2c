"""A differential fuzzer, the independent review issue 23 promises: the operator's seeded
random forgeries of real bundles and exports (Toto21, Kvitlach under both rule sets, both
protocol versions, keyed and keyless seats, chains from seq 0 and from a table_state),
each re-signed and re-logged, through fairdeal-verify's command line and through the
browser module (verify_cli.mjs, all in one Node process), each given the same file: the
same verdict and the same set of finding codes on every mutant, so that none is VALID on
the page where the command line says otherwise.

A mutant is one to three of: a data member's value changed (to another of its type, or of
another type), a member dropped or added, two events' data swapped, an event's type changed
to another type of the chain, its actor or round changed, an event deleted, duplicated or
moved (the seqs renumbered), a time changed, a keyed seat's statement changed (its ``n``,
``after``, signature, data, or the whole member), a table_state's member changed; and in
some, a member of the bundle or of its log entry, after it is logged. In a version-2 chain
the operator holds the keyed seats' keys too in half of the mutants (a seat colluding):
their statements are signed again, so the replay reaches the change. Mutant ``k`` is made
from ``random.Random(f"{SEED}:{k}")`` alone: ``mutant(k)`` rebuilds it, to minimise what
a failure names. ``-m slow`` runs more, over longer tables too.
"""

import contextlib
import copy
import io
import json
import random
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from fairdeal.errors import FairdealError
from fairdeal.verifier import cli
from tests.js.test_parity import HERE, NODE, _long_tables
from tests.verifier import corpus, helpers, signed

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed: no JS to run")
Bundle = dict[str, Any]
Plain = list[dict[str, Any]]
SEED = "fairdeal differential"
MUTANTS = 800  # in CI; -m slow: SLOW_MUTANTS, over longer tables too
SLOW_MUTANTS = 5_000
EXPORT_SHARE = 0.12  # of the mutants, those of a whole export's line
BUNDLE_SHARE = 0.1  # of the mutants, those whose bundle's own members change too


@dataclass(frozen=True)
class Material:
    """Clean input to forge: one bundle, or an export's lines (``lines``)."""

    name: str
    lines: tuple[Bundle, ...]
    seats: bool  # version 2 with keyed seats: the operator may hold their keys too


@cache
def _materials(long: bool) -> tuple[list[Material], list[Material]]:
    """Bundles (each round's, from seq 0 and from its table_state) and whole exports."""
    timeout = helpers.TableDriver("kvitlach", "kvt", {})
    for seat in range(3):
        timeout.seat(seat, "seat_joined", {"buy_in": 1_000})
    timeout.play_round(seeds=["a", "b", None])
    v1 = helpers.Log().add_all(
        helpers.toto21_table("t21", rounds=2),
        helpers.kvitlach_table("kv", rounds=2),
        helpers.kvitlach_table("kp", rounds=2, rule_set="pressburg"),
        timeout,
        *(_long_tables() if long else ()),
    )
    v2 = helpers.Log().add_all(
        signed.toto21_table("v2t21"),
        signed.kvitlach_table("v2kv"),
        signed.kvitlach_table("v2kp", silent=1, rule_set="pressburg"),
    )
    bundles, exports = [], []
    for version, log in (("v1", v1), ("v2", v2)):
        keyed = version == "v2"
        for index, (_, round_id, _) in enumerate(log.entries):
            for bounded in (False, True):
                name = f"{round_id} from {'its table_state' if bounded else 'seq 0'}"
                bundles.append(Material(name, (log.bundle(index, bounded=bounded),), keyed))
        exports.append(Material(f"{version} export", tuple(log.bundles(bounded=True)), keyed))
    return bundles, exports


# -- values -----------------------------------------------------------------------------------

_OTHER_TYPES: tuple[Any, ...] = (0, 1, -1, "", "x", True, False, None, [], {}, 2**53 - 1)
# Where a port of Python to JS slips: an object's inherited names, Unicode whitespace and
# case, characters beyond the BMP (their order), numbers written as text.
_NAMES = ("__proto__", "constructor", "toString", "x")
_TRICKY = (*_NAMES, " \u00a0", "\x1c", "\ufeff", "\U0001f600", "é", "İ", "1", "01", "1e3", "seat:0")


def _scalars(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list):
        for item in value:
            yield from _scalars(item)
    else:
        yield value


def _another(rng: random.Random, old: Any, pool: list[Any]) -> Any:
    """A value for ``old``'s place: another of its type, one seen in the chain, or one of
    another type."""
    kind = rng.random()
    if kind < 0.25:
        return copy.deepcopy(rng.choice(pool))
    if kind < 0.45:
        return copy.deepcopy(rng.choice([*_OTHER_TYPES, [old], {"x": old}, str(old), *_TRICKY]))
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return rng.choice([old + 1, old - 1, 0, -old, 2 * old, old + 60_000, 2**53 - 1, -1])
    if isinstance(old, str):
        similar = [s for s in pool if isinstance(s, str) and len(s) == len(old)]
        return rng.choice(["", " ", old + "x", old[:-1], old.upper(), "0" * 64, *similar[:8]])
    if isinstance(old, list):
        if not old:
            return [rng.choice(pool)]
        return rng.choice([[], old[:-1], [*old, old[0]], old[::-1], old[1:]])
    if isinstance(old, dict):
        keys = list(old)
        if not keys:
            return {"x": rng.choice(pool)}
        dropped = rng.choice(keys)
        return rng.choice([{}, {k: v for k, v in old.items() if k != dropped}])
    return rng.choice(pool)


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value inside ``value`` (not ``value`` itself)."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        yield (*path, key)
        yield from _places(item, (*path, key))


# -- the operator's changes -------------------------------------------------------------------
# Each takes the random source, the plain events and the values the chain holds (``pool``),
# changes the events in place and says what it did; Skip where it does not apply.


class Skip(Exception):
    """The change does not apply to these events."""


def _pick(rng: random.Random, events: Plain, fits: Callable[[dict[str, Any]], bool]) -> int:
    found = [i for i, e in enumerate(events) if fits(e)]
    if not found:
        raise Skip
    return rng.choice(found)


def _renumbered(events: Plain, first: int) -> None:
    for seq, event in enumerate(events, first):
        event["seq"] = seq


def _value(rng: random.Random, events: Plain, pool: list[Any], within: Any = None) -> str:
    i = _pick(rng, events, lambda e: bool(e["data"]) and within in (None, e["type"]))
    path = rng.choice(list(_places(events[i]["data"])))
    parent = _at(events[i]["data"], path[:-1])
    parent[path[-1]] = _another(rng, parent[path[-1]], pool)
    return f"seq {events[i]['seq']} {events[i]['type']}: data{list(path)} = {parent[path[-1]]!r}"


def _drop(rng: random.Random, events: Plain, pool: list[Any], within: Any = None) -> str:
    i = _pick(rng, events, lambda e: bool(e["data"]) and within in (None, e["type"]))
    data = events[i]["data"]
    objects = [p for p in [(), *_places(data)] if isinstance(_at(data, p), dict) and _at(data, p)]
    path = rng.choice(objects)
    target = _at(data, path)
    name = rng.choice(list(target))
    del target[name]
    return f"seq {events[i]['seq']} {events[i]['type']}: data{list(path)} without {name!r}"


def _at(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        root = root[key]
    return root


def _add(rng: random.Random, events: Plain, pool: list[Any], within: Any = None) -> str:
    i = _pick(rng, events, lambda e: within in (None, e["type"]))
    data = events[i]["data"]
    path = rng.choice([p for p in [(), *_places(data)] if isinstance(_at(data, p), dict)])
    names = sorted({k for e in events for k in e["data"]} | set(_NAMES))
    name = rng.choice(names)
    _at(data, path)[name] = copy.deepcopy(rng.choice(pool))
    return f"seq {events[i]['seq']} {events[i]['type']}: data{list(path)} with {name!r}"


def _swap_data(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    if len(events) < 2:
        raise Skip
    a, b = rng.sample(range(len(events)), 2)
    if rng.random() < 0.5:  # two events of one type: the subtler swap
        same = [j for j, e in enumerate(events) if e["type"] == events[a]["type"] and j != a]
        b = rng.choice(same) if same else b
    events[a]["data"], events[b]["data"] = events[b]["data"], events[a]["data"]
    return f"data of seq {events[a]['seq']} and {events[b]['seq']} swapped"


def _type(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    i = rng.randrange(len(events))
    types = sorted({*(e["type"] for e in events), "constructor"} - {events[i]["type"]})
    if not types:
        raise Skip
    events[i]["type"] = rng.choice(types)
    return f"seq {events[i]['seq']} is a {events[i]['type']}"


def _actor(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    i = rng.randrange(len(events))
    actors = sorted({e["actor"] for e in events} | {"seat:5", "bank"})
    events[i]["actor"] = rng.choice([a for a in actors if a != events[i]["actor"]])
    return f"seq {events[i]['seq']} by {events[i]['actor']}"


def _round(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    i = rng.randrange(len(events))
    rounds = sorted({e["round"] for e in events if e["round"]} | {f"{events[0]['table']}.9"})
    events[i]["round"] = rng.choice([None, *rounds])
    return f"seq {events[i]['seq']} of round {events[i]['round']}"


def _delete(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    if len(events) < 2:
        raise Skip
    i = rng.randrange(1, len(events))  # the first stays: a chain starts where it starts
    first, gone = events[0]["seq"], events.pop(i)
    _renumbered(events, first)
    return f"seq {gone['seq']} {gone['type']} deleted"


def _duplicate(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    i = rng.randrange(len(events))
    at = rng.randrange(1, len(events) + 1)
    events.insert(at, copy.deepcopy(events[i]))
    _renumbered(events, events[0]["seq"])
    return f"seq {events[at]['seq']} a copy of the {events[i]['type']} at {i}"


def _move(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    if len(events) < 3:
        raise Skip
    i = rng.randrange(1, len(events))
    moved = events.pop(i)
    at = rng.randrange(1, len(events) + 1)
    events.insert(at, moved)
    _renumbered(events, events[0]["seq"])
    return f"the {moved['type']} at {i} moved to {at}"


def _time(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    i = rng.randrange(len(events))
    before = events[i - 1]["time"] if i else events[i]["time"]
    old = events[i]["time"]
    events[i]["time"] = rng.choice([old + 1, old - 1, old + 60_000, old - 60_000, before, 0])
    return f"seq {events[i]['seq']} at {events[i]['time']}"


def _statement(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    """A seat's logged statement ({n, after, data, signature}) changed, or a seat's event
    given one it did not have."""
    seated = [i for i, e in enumerate(events) if e["actor"].startswith("seat:")]
    if not seated:
        raise Skip
    signed_ = [i for i in seated if isinstance(events[i]["data"].get("signed"), dict)]
    if not signed_ or rng.random() < 0.15:  # a statement where there was none
        i = rng.choice(seated)
        others = [events[j]["data"]["signed"] for j in signed_]
        events[i]["data"]["signed"] = copy.deepcopy(rng.choice(others)) if others else {}
        return f"seq {events[i]['seq']}: a statement copied in"
    i = rng.choice(signed_)
    logged = events[i]["data"]["signed"]
    member = rng.choice(["n", "after", "after", "signature", "data", "whole"])
    if member == "whole":
        del events[i]["data"]["signed"]
    elif member == "signature" and isinstance(logged.get("signature"), str):
        digits = list(logged["signature"]) or ["0"]
        at = rng.randrange(len(digits))
        digits[at] = "0" if digits[at] != "0" else "1"
        logged["signature"] = "".join(digits)
    elif member == "after" and _seq_of(logged.get("after")) and rng.random() < 0.6:
        logged["after"]["seq"] += rng.choice([-2, -1, 1, 2])
    elif member in logged:
        logged[member] = _another(rng, logged[member], pool)
    else:
        raise Skip
    return f"seq {events[i]['seq']}: its statement's {member} changed"


def _seq_of(after: Any) -> bool:
    return isinstance(after, dict) and type(after.get("seq")) is int


def _table_state(rng: random.Random, events: Plain, pool: list[Any]) -> str:
    change = rng.choice([_value, _value, _drop, _add])
    return change(rng, events, pool, within="table_state")


def _bundle_member(rng: random.Random, bundle: Bundle, pool: list[Any]) -> str:
    """A member of the bundle or of its log entry changed, or dropped."""
    entry = rng.choice([bundle, bundle["log"]])
    name = rng.choice(sorted(entry))
    if rng.random() < 0.15:
        del entry[name]
        return f"without {name}"
    rounds = [e["event"]["round"] for e in bundle["events"]]
    old = entry[name]
    others = {
        "round_id": [None, *rounds],
        "format": ["fairdeal-bundle/1", "fairdeal-bundle/2"],
        "inclusion_proof": [[], [*old, "00" * 32], old[1:]] if isinstance(old, list) else [[]],
    }
    entry[name] = copy.deepcopy(rng.choice(others.get(name, [_another(rng, old, pool)])))
    return f"{name} = {entry[name]!r}"[:120]


CHANGES: dict[str, Callable[[random.Random, Plain, list[Any]], str]] = {
    "value": _value,
    "drop": _drop,
    "add": _add,
    "swap data": _swap_data,
    "type": _type,
    "actor": _actor,
    "round": _round,
    "delete": _delete,
    "duplicate": _duplicate,
    "move": _move,
    "time": _time,
    "statement": _statement,
    "table_state": _table_state,
}
WEIGHTS = (6, 2, 2, 1, 2, 1, 1, 2, 1, 1, 1, 3, 2)


# -- mutants ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """What a mutant is (its material, line and changes) and its file's bytes."""

    what: str
    text: bytes


def mutant(number: int, long: bool = False) -> Mutant | None:
    """Mutant ``number``: its material, line and changes drawn from its own random source;
    None where the changes did not apply or the operator could not sign what they made."""
    rng = random.Random(f"{SEED}:{number}")
    bundles, exports = _materials(long)
    material = rng.choice(exports if rng.random() < EXPORT_SHARE else bundles)
    line = rng.randrange(len(material.lines))
    bundle = material.lines[line]
    values = list({repr(v): v for v in _scalars([e["event"] for e in bundle["events"]])}.values())
    done: list[str] = []

    def change(events: Plain) -> None:
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            name = rng.choices(list(CHANGES), WEIGHTS)[0]
            done.append(f"{name}: {CHANGES[name](rng, events, values)}")

    seats = signed.KEYED if material.seats and rng.random() < 0.5 else None
    try:
        events = helpers.resign(
            copy.deepcopy(bundle["events"]),
            change,
            prev=bundle["events"][0]["event"]["prev"],
            seats=seats,
        )
    except (Skip, FairdealError):
        return None  # not a change these events take, or not an event the operator can sign
    forged = [(b, b["events"]) for b in material.lines]
    forged[line] = (bundle, events)
    if seats:
        done.append("with the keyed seats' keys")
    lines = corpus.relogged_all(forged)
    if rng.random() < BUNDLE_SHARE:  # a member of the bundle, after it is logged
        done.append(f"bundle: {_bundle_member(rng, lines[line], values)}")
    what = f"mutant {number} ({material.name}, line {line + 1}; {'; '.join(done)})"
    return Mutant(what, helpers.export_text(lines).encode())


def _python(path: Path, key: Path) -> dict[str, Any]:
    """fairdeal-verify's report on the file: its command line, run as a user runs it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        cli.main(["--key", str(key), "--jobs", "1", "--json", str(path)])
    return json.loads(out.getvalue())


def _run(numbers: range, long: bool, tmp: Path) -> tuple[int, list[str]]:
    """How many mutants of ``numbers`` were made, and each on which the two verifiers
    differ. Each is written to a file, then verified by both: Node over all the files in one
    process while Python verifies them one by one, each given as a user gives it
    (fairdeal-verify FILE; the page's verifyText). Where fairdeal-verify crashes (its line
    'could not be checked': test_fairdeal_verify_finds_what_is_wrong_without_crashing), the
    module must not say valid."""
    made: list[tuple[str, Path]] = []
    for number in numbers:
        forged = mutant(number, long)
        if forged is not None:
            made.append((forged.what, tmp / f"{number}.json"))
            made[-1][1].write_bytes(forged.text)
    key = tmp / "operator.pem"
    key.write_text(helpers.PEM)
    node = subprocess.Popen(
        [str(NODE), str(HERE / "verify_cli.mjs"), str(key), *(str(path) for _, path in made)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    reports = [_python(path, key) for _, path in made]
    out, err = node.communicate(timeout=3_600)
    assert node.returncode == 0, err[-4_000:]
    by_file = {r["file"]: r for r in map(json.loads, out.splitlines())}
    differ = []
    for (what, path), report in zip(made, reports, strict=True):
        js = by_file[str(path)]
        codes = sorted({f["code"] for f in report["findings"]})
        said = f"js {js.get('verdict')} {js.get('codes')}{js.get('error', '')[:300]}"
        if any("could not be checked" in f["reason"] for f in report["findings"]):
            assert js.get("verdict") not in ("valid", None), f"{what}: {said}"
        elif (js.get("verdict"), js.get("codes")) != (report["verdict"], codes):
            differ.append(f"{what}: python {report['verdict']} {codes}, {said}")
    return len(made), differ


def test_the_clean_material_is_valid_in_both(tmp_path: Path) -> None:
    bundles, exports = _materials(False)
    key = tmp_path / "operator.pem"
    key.write_text(helpers.PEM)
    paths = []
    for n, material in enumerate([*bundles, *exports]):
        paths.append(tmp_path / f"{n}.json")
        paths[-1].write_text(helpers.export_text(material.lines))
        assert _python(paths[-1], key)["verdict"] == "valid", material.name
    run = subprocess.run(
        [str(NODE), str(HERE / "verify_cli.mjs"), str(key), *map(str, paths)],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    assert {json.loads(line)["verdict"] for line in run.stdout.splitlines()} == {"valid"}
    assert len(paths) == len(run.stdout.splitlines()) >= 30


@pytest.mark.ci
def test_every_mutant_gets_the_same_verdict_and_codes_in_both(tmp_path: Path) -> None:
    made, differ = _run(range(MUTANTS), False, tmp_path)
    assert made >= 0.9 * MUTANTS
    assert not differ, "\n".join(differ[:20])


def _face_a_list(events: Plain) -> None:
    events[corpus.index_of(events, "card_dealt", 0)]["data"]["face"] = []


def _shown_past_the_deck(events: Plain) -> None:
    """A card dealt past the deck's end, then a card shown at a position past it too."""
    events[corpus.index_of(events, "card_dealt", -1)]["data"]["position"] = 60
    events[corpus.index_of(events, "cards_shown", -1)]["data"]["cards"][0]["position"] = 59


@pytest.mark.parametrize("change", [_face_a_list, _shown_past_the_deck])
def test_fairdeal_verify_finds_what_is_wrong_without_crashing(
    change: Callable[[Plain], None], tmp_path: Path
) -> None:
    """Two forgeries fairdeal-verify once crashed on (a card_dealt's face a list; a card
    shown past the deck's end), so that its line "could not be checked"; now findings."""
    bundles, _ = _materials(False)
    bundle = next(m.lines[0] for m in bundles if m.name == "kv.2 from its table_state")
    path, key = tmp_path / "forged.json", tmp_path / "operator.pem"
    path.write_text(json.dumps(corpus.operator(bundle, change)))
    key.write_text(helpers.PEM)
    reasons = [f["reason"] for f in _python(path, key)["findings"]]
    assert not [r for r in reasons if "could not be checked" in r], reasons


@pytest.mark.slow
def test_many_more_mutants_of_longer_tables_too(tmp_path: Path) -> None:
    made, differ = _run(range(MUTANTS, MUTANTS + SLOW_MUTANTS), True, tmp_path)
    assert made >= 0.9 * SLOW_MUTANTS
    assert not differ, "\n".join(differ[:20])
