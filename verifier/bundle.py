"""All the steps for one round bundle, in SPEC.md's order (section 7); ``check`` runs them.

  (1)      the bundle's own schema                                               [here]
  (1)-(5)  each signed event: schema, canonical form, seq/prev, signature, time  [chain]
  (5)-(9)  timeouts, commitment, client seeds, shuffle, dealt and shown cards    [rounds]
  (10)(11) the chain replayed through the game's rules                           [rules]
  (12)(13) transfers, balances and conservation                                  [money]
  (14)     every sealed round settled or voided, and revealed; the bundle ends at [rounds]
           its head: its round's reveal, or (no round named) with no round open
  (15)(16) the head's inclusion under the bundle's own signed checkpoint         [log]
  (18)     with --witness: that checkpoint cosigned by a quorum of the witnesses,  [witnesses]
           not before the head was logged

Steps (5)-(14) run only on a chain that passed (1)-(3): without one chain there is
nothing to replay. A bundle starts at table_created, or at a table_state (the second
format), from which the replay, the balances and the rounds start. An export checks
(15)-(17) across bundles as well (export.py): a bundle that starts at a table_state must
start where the table's previous bundle ended, with the state its replay ended in
(``Link``); one that repeats the table's events from seq 0 is checked from where the
earlier one ended (resume.py): ``since``.
"""

import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple

from fairdeal.bundle import FORMATS, signed_events
from fairdeal.canonical import json_text
from fairdeal.events import Event, SignedEvent
from fairdeal.note import Checkpoint
from fairdeal.protocol import ROUND_OPENED, ROUND_REVEALED, TABLE_STATE, is_hex64
from fairdeal.table import Replayed, resting_draft

from . import log, rules
from .chain import ChainChecker, Head
from .findings import Finding
from .inputs import LIMITS, server_said
from .money import MoneyChecker, is_balances
from .rounds import RoundChecker, revealed_seeds, snapshot_problem
from .trust import Trust
from .witnesses import Witnessing, witnessing

_BUNDLE_KEYS = {"format", "table_id", "round_id", "events", "keys", "log"}
_LOG_TYPES = {
    "origin": str,
    "verifier_key": str,
    "leaf_index": int,
    "head_hash": str,
    "tree_size": int,
    "inclusion_proof": list,
    "checkpoint": str,
}


@dataclass(frozen=True)
class Carried:
    """What steps (5)-(14) carry from a table's events to the events after them."""

    deck_rules: dict[str, Any]  # (8) from table_created
    balances: dict[str, int]  # (12) as the last money event states them
    finished: frozenset[str]  # (3) round ids revealed, never to be used again
    replayed: Replayed | None  # (10) (11) None: the rules cannot start the table


@dataclass(frozen=True)
class Verified:
    """A table verified through the end of a bundle that passed every step."""

    length: int  # the seq after its last event: its events from seq 0
    head: Head
    table: Carried
    heads: tuple[tuple[int, bytes], ...]  # (seq, hash) of its last event that leaves no round open


@dataclass(frozen=True)
class Link:
    """Where a bundle joins its table's chain (an export checks that consecutive bundles
    of a table join): at its start, the table_state it starts at (its seq, the hash it
    links to, its time, the SHA-256 of its data's canonical text); at its end, its head
    (seq, hash, time) and the digest the next table_state's data must have: the snapshot
    of the state the bundle's replay ends in (None when the replay failed)."""

    seq: int
    hash: str
    time: int
    state: bytes | None


class Opened(NamedTuple):
    """A bundle's checkpoint opened with the pinned keys (16), and its cosignatures by the
    given witnesses (18; None: none given)."""

    checkpoint: Checkpoint
    witnessing: Witnessing | None


@dataclass(frozen=True)
class Context:
    """How one bundle is checked: alone (the defaults), or as a line of an export."""

    duplicates: bool = False  # its reader noted a member name twice, somewhere in it
    line: int = 0  # of the export
    since: Verified | None = None  # its table through an earlier bundle, whose events it repeats
    checkpoints: dict[tuple[str, str], Opened] = field(default_factory=dict)  # opened already


@dataclass(frozen=True)
class Result:
    """What one bundle showed: findings, and what the export needs to check across bundles."""

    table: str | None
    round: str | None
    findings: list[Finding]
    events: int = 0
    leaf_index: int | None = None
    head: bytes | None = None
    checkpoint_size: int | None = None
    checkpoint_root: bytes | None = None
    heads: tuple[tuple[int, bytes], ...] = ()
    line: int = 0
    start: Link | None = None  # its table_state, when it starts at one
    end: Link | None = None  # its head, when its chain is intact


@dataclass
class Work:
    """One bundle as it is checked: its new events as read (those after ``since``) and
    the findings so far."""

    table: str
    round: str | None  # None: the head of the table at rest
    since: Verified | None
    findings: list[Finding] = field(default_factory=list)
    signed: list[SignedEvent] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # each signed event's event
    digests: list[bytes] = field(default_factory=list)  # each event's hash
    texts: list[str] = field(default_factory=list)  # each event's data, as canonical text

    @cached_property
    def heads(self) -> tuple[tuple[int, bytes], ...]:
        """(seq, hash) of each event, from seq 0, after which no round is open."""
        return (self.since.heads if self.since else ()) + _rest_heads(self)


class Logged(NamedTuple):
    """What (15) and (16) found: the head, if ``head_hash`` states it; the checkpoint, if
    it opened; whether the head's inclusion in it is proved."""

    head: bytes | None
    opened: Opened | None
    included: bool


class Checked(NamedTuple):
    """What ``check`` gives: the bundle's result, and what resume.py keeps of it."""

    result: Result
    verified: Verified | None  # the table through this bundle, when it passed every step
    work: Work | None  # None: not a bundle (1)


def check(obj: Any, trust: Trust, context: Context | None = None) -> Checked:
    """Every step for one parsed bundle, in SPEC 7's order (the plan above)."""
    context = context or Context()
    problem = shape_problem(obj)  # (1) the bundle itself
    if problem is not None:
        return Checked(_not_a_bundle(obj, problem, context.line), None, None)
    work = Work(obj["table_id"], obj["round_id"], context.since)
    opening = obj["format"] != FORMATS[0]  # the later formats may start at a table_state
    events = signed_events(obj)  # the compact format's turned into signed events (13.1.1)
    chain = _check_signed_events(work, events, trust, context, opening)  # (1)-(5)
    table = _check_table(work) if chain.intact else None  # (5)-(14)
    logged = _check_log(work, obj["log"], trust, context.checkpoints)  # (15) (16)
    _check_witnesses(work, logged)  # (18)
    checkpoint = logged.opened.checkpoint if logged.opened else None
    result = _result(work, obj, logged.head, checkpoint, context.line)
    if chain.intact and work.events:
        result = _linked(result, work, table)
    return Checked(result, _verified(work, chain.head, table), work)


def _verified(work: Work, head: Head, table: Carried | None) -> Verified | None:
    """The table through this bundle, if it passed every step."""
    if table is None or table.replayed is None or work.findings:
        return None
    return Verified(head.next_seq, head, table, work.heads[-1:])


def _linked(result: Result, work: Work, table: Carried | None) -> Result:
    """``result`` with where its intact chain joins the table's (``Link``)."""
    first, last = work.events[0], work.events[-1]
    start = None
    if first.type == TABLE_STATE and work.since is None:  # ``since``: it starts at seq 0
        start = Link(first.seq, first.prev, first.time, _digest(work.texts[0]))
    replayed = table.replayed if table is not None else None
    draft = resting_draft(replayed) if replayed is not None else None
    after = _digest(json_text(draft.data)) if draft is not None else None
    end = Link(last.seq, work.digests[-1].hex(), last.time, after)
    return replace(result, start=start, end=end)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def _check_signed_events(
    work: Work, raw_events: list[Any], trust: Trust, context: Context, opening: bool
) -> ChainChecker:
    """(1)-(5) each signed event against the chain head before it: from seq 0 (or, in
    the second format, from a table_state), or from where ``since`` ended."""
    since = context.since
    chain = ChainChecker(work.table, trust.key_set, since.head if since else None, opening)
    start = since.length if since else 0
    for signed, digest, text in chain.check(raw_events[start:], context.duplicates):
        work.signed.append(signed)
        work.events.append(signed.event)
        work.digests.append(digest)
        work.texts.append(text)
    work.findings.extend(chain.findings)
    return chain


class _Start(NamedTuple):
    """Where steps (5)-(14) start on a bundle's new events."""

    carried: Carried  # from the events before them
    problem: Finding | None  # (11) a table_created the rules cannot start
    events: list[Event]  # the new events, table_created aside: the rules do not replay it
    texts: list[str]  # their data, as canonical text
    digests: list[bytes]  # their hashes
    seeds: dict[str, bytes]  # the server seeds they reveal


def _check_table(work: Work) -> Carried:
    """(5)-(14) on one intact chain, from its table_created or from where ``since``
    ended: what the next events would be checked from."""
    start = _start_of(work)
    finished = _check_rounds(work, start)  # (5) timeouts, (6)-(9), (14)
    replayed = _check_rules(work, start)  # (10) (11)
    balances = _check_money(work, start)  # (12) (13)
    _check_ends_at_head(work)  # (14)
    return Carried(start.carried.deck_rules, balances, finished, replayed)


def _start_of(work: Work) -> _Start:
    """From where ``since`` ended, or from the bundle's first event: table_created, or
    a table_state (the balances it states; (1) its data's shape)."""
    if work.since is not None:
        events, texts = work.events, work.texts
        return _Start(work.since.table, None, events, texts, work.digests, revealed_seeds(events))
    first, events, texts = work.events[0], work.events[1:], work.texts[1:]
    digests = work.digests[1:]
    balances: dict[str, int] = {}
    if first.type == TABLE_STATE:
        replayed, problem = rules.restart(first, work.texts[0], work.digests[0])
        stated = first.data.get("balances")
        balances = dict(stated) if is_balances(stated) else {}
        shape = snapshot_problem(work.table, first)
        work.findings.extend([shape] if shape else [])
    else:
        replayed, problem = rules.start(first, work.texts[0], work.digests[0])
    options = first.data.get("options")
    decks = options.get("decks", 1) if isinstance(options, dict) else 1
    deck_rules = {"game": first.data.get("game"), "decks": decks}
    carried = Carried(deck_rules, balances, frozenset(), replayed)
    return _Start(carried, problem, events, texts, digests, revealed_seeds(events))


def _check_rounds(work: Work, start: _Start) -> frozenset[str]:
    """(5) timeouts, (6) commitment, (7) client seeds, (8) shuffle, (9) cards and (14)
    each round finished, from the events alone; the rounds revealed."""
    bounded = start.carried.replayed is not None and start.carried.replayed.standing.bounded
    bounded = bounded or work.events[0].type == TABLE_STATE
    version = work.events[0].version  # an intact chain's: each event keeps it (3)
    rounds = RoundChecker(work.table, start.carried.deck_rules, start.seeds, bounded, version)
    rounds.finished = set(start.carried.finished)
    for event in start.events:
        rounds.check(event)
    rounds.finish(start.events[-1] if start.events else None)
    work.findings.extend(rounds.findings)
    return frozenset(rounds.finished)


def _check_rules(work: Work, start: _Start) -> Replayed | None:
    """(10) legal actions and (11) server decisions: the events replayed through the
    rules, unless the rules cannot start the table."""
    replayed, problem = start.carried.replayed, start.problem
    if replayed is not None:
        replayed, problem = rules.replay(
            replayed, start.events, start.texts, start.digests, start.seeds
        )
    work.findings.extend([problem] if problem else [])
    return replayed


def _check_money(work: Work, start: _Start) -> dict[str, int]:
    """(12) settlements and (13) conservation, from the events alone; the balances after."""
    money = MoneyChecker(work.table, start.carried.balances)
    for event in start.events:
        money.check(event)
    work.findings.extend(money.findings)
    return money.balances


def _check_ends_at_head(work: Work) -> None:
    """(14) the bundle ends with its round's reveal, or (no round named) with no round open."""
    rests = work.heads
    last = work.events[-1] if work.events else None
    seq = last.seq if last is not None else None
    if work.round is None:
        if last is not None and rests and rests[-1][0] == last.seq:
            return
        reason = "the bundle names no round but ends with a round open"
    elif last is not None and last.type == ROUND_REVEALED and last.round == work.round:
        return
    else:
        reason = f"the bundle does not end with round {work.round}'s round_revealed"
    work.findings.append(Finding("round.unfinished", work.table, work.round, seq, reason))


def _check_log(
    work: Work, entry: dict[str, Any], trust: Trust, seen: dict[tuple[str, str], Opened]
) -> Logged:
    """(15) the head's inclusion; (16) its checkpoint's signature."""
    place = log.Place(work.table, work.round)
    head = _stated_head(work, entry["head_hash"], place)
    opened = _open_checkpoint(work, entry, trust, seen, place) if head else None
    if head is None or opened is None:
        return Logged(head, opened, False)
    size, root = opened.checkpoint.size, opened.checkpoint.root_hash
    missing = _inclusion(entry, head, size, root, place)
    work.findings.extend(missing)
    return Logged(head, opened, not missing)


def _check_witnesses(work: Work, logged: Logged) -> None:
    """(18) the bundle's checkpoint cosigned by a quorum of the given witnesses; if it
    includes the head, not before the head event's time."""
    if logged.opened is None or logged.opened.witnessing is None:
        return
    head_time = work.events[-1].time if logged.included else None
    place = log.Place(work.table, work.round)
    work.findings.extend(logged.opened.witnessing.findings(place, head_time))


def _stated_head(work: Work, stated: str, place: log.Place) -> bytes | None:
    """(15) The bundle's head (its last event's hash), if ``head_hash`` states it."""
    head = work.digests[-1] if work.digests else None
    if head is not None and is_hex64(stated) and bytes.fromhex(stated) == head:
        return head
    reason = "head_hash is not the hash of the bundle's last event"
    work.findings.append(place.finding("log.head", reason))
    return None


def _open_checkpoint(
    work: Work,
    entry: dict[str, Any],
    trust: Trust,
    seen: dict[tuple[str, str], Opened],
    place: log.Place,
) -> Opened | None:
    """(16) The bundle's checkpoint, signed by a pinned key, with its cosignatures for
    (18) (unless ``seen`` holds it opened already), or None."""
    key = (entry["checkpoint"], entry["origin"])
    if key in seen:
        return seen[key]
    checkpoint, problem = log.open_checkpoint(
        entry["checkpoint"], trust, entry["origin"], place, entry.get("verifier_key")
    )
    work.findings.extend([problem] if problem else [])
    if checkpoint is None:
        return None
    opened = seen[key] = Opened(checkpoint, witnessing(entry["checkpoint"], trust))
    return opened


def _inclusion(
    entry: dict[str, Any], head: bytes, size: int, root: bytes, place: log.Place
) -> list[Finding]:
    if entry["tree_size"] != size:
        reason = f"tree_size {entry['tree_size']} is not the checkpoint's {size}"
        return [place.finding("log.inclusion", reason)]
    try:
        proof = log.hashes(entry["inclusion_proof"], "inclusion_proof")
    except Exception as e:  # InputError: a malformed proof proves nothing
        return [place.finding("log.inclusion", str(e))]
    problem = log.check_inclusion(head, entry["leaf_index"], size, proof, root, place=place)
    return [problem] if problem else []


def _rest_heads(work: Work) -> tuple[tuple[int, bytes], ...]:
    """(seq, hash) of each new event after which no round is open: every head a leaf can
    hold (``since`` ends at one, so no round is open where the new events start)."""
    rests, current = [], None
    for event, digest in zip(work.events, work.digests, strict=True):
        if event.type == ROUND_OPENED:
            current = event.round
        elif event.type == ROUND_REVEALED and event.round == current:
            current = None
        if current is None:
            rests.append((event.seq, digest))
    return tuple(rests)


def _result(
    work: Work, obj: dict[str, Any], head: bytes | None, checkpoint: Checkpoint | None, line: int
) -> Result:
    return Result(
        work.table,
        work.round,
        work.findings,
        events=len(obj["events"]),
        leaf_index=obj["log"]["leaf_index"],
        head=head,
        checkpoint_size=checkpoint.size if checkpoint else None,
        checkpoint_root=checkpoint.root_hash if checkpoint else None,
        heads=work.heads,
        line=line,
    )


def _not_a_bundle(obj: Any, problem: str, line: int) -> Result:
    table, round_id = _names(obj)
    return Result(
        table, round_id, [Finding("schema.bundle", table, round_id, None, problem)], line=line
    )


def shape_problem(obj: Any) -> str | None:
    """(1) Why ``obj`` is not of a bundle's shape, or None."""
    said = server_said(obj)  # an error body saved where a bundle should be: relay it
    if said is not None:
        return f"not a bundle: {said}"
    if not isinstance(obj, dict) or set(obj) != _BUNDLE_KEYS:
        return f"a bundle has exactly the members {', '.join(sorted(_BUNDLE_KEYS))}"
    if obj["format"] not in FORMATS:
        return f"format is {obj['format']!r}, not one of {', '.join(map(repr, FORMATS))}"
    if not isinstance(obj["table_id"], str) or not isinstance(obj["round_id"], str | None):
        return "table_id is a string and round_id a string or null"
    events = obj["events"]
    if not isinstance(events, list) or not 0 < len(events) <= LIMITS.max_events:
        return f"events is a list of 1 to {LIMITS.max_events} signed events"
    if not isinstance(obj["keys"], list) or not isinstance(obj["log"], dict):
        return "keys is a list and log an object"
    entry = obj["log"]
    if set(entry) != set(_LOG_TYPES) or any(type(entry[k]) is not t for k, t in _LOG_TYPES.items()):
        return "log has origin, verifier_key, leaf_index, head_hash, tree_size, proof, checkpoint"
    return None


def _names(obj: Any) -> tuple[str | None, str | None]:
    if not isinstance(obj, dict):
        return None, None
    table, round_id = obj.get("table_id"), obj.get("round_id")
    return (table if isinstance(table, str) else None), (
        round_id if isinstance(round_id, str) else None
    )
