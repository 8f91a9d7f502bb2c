"""All the steps for one round bundle, in SPEC.md's order (section 7).

  (1)-(5)  each signed event: schema, canonical form, seq/prev, signature, time  [chain]
  (5)-(9)  timeouts, commitment, client seeds, shuffle, dealt and shown cards    [rounds]
  (10)(11) the chain replayed through the game's rules                           [rules]
  (12)(13) transfers, balances and conservation                                  [money]
  (14)     every sealed round settled or voided, and revealed; the bundle ends at [rounds]
           its head: its round's reveal, or (no round named) with no round open
  (15)(16) the head's inclusion under the bundle's own signed checkpoint         [log]

Steps (6)-(14) run only on a chain that passed (1)-(3): without one chain there is
nothing to replay. An export checks (15)-(17) across bundles as well (export.py).
A ``Memo`` lets an export resume a table where its previous valid bundle ended: the
prefix the two bundles share is checked to be byte-for-byte what was verified.
"""

import hashlib
import re
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from fairdeal.bundle import FORMAT
from fairdeal.events import Event, SignedEvent
from fairdeal.note import Checkpoint
from fairdeal.verifier import log, rules
from fairdeal.verifier.chain import ChainChecker, Head, event_hash
from fairdeal.verifier.findings import Finding
from fairdeal.verifier.inputs import LIMITS, colons_in
from fairdeal.verifier.money import MoneyChecker
from fairdeal.verifier.rounds import RoundChecker, revealed_seeds
from fairdeal.verifier.trust import Trust

_HEX64 = re.compile(r"[0-9a-f]{64}")
_ROUND, _ACTOR = attrgetter("round"), attrgetter("actor")
_SIGNED_KEYS = {"event", "hash", "key_id", "signature"}
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
class Memo:
    """A table verified through the end of a valid bundle."""

    verified: "hashlib._Hash"  # SHA-256 over each signed event's ``identity``, in seq order
    length: int  # of the events, from seq 0
    head: Head
    replayed: rules.Replayed
    balances: dict[str, int]
    finished: frozenset[str]
    deck_rules: dict[str, Any]
    heads: tuple[tuple[int, bytes], ...]  # (seq, hash) of every event that leaves no round open


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
    colons: int | None = None  # of its JSON text as read, when all of it passed (_colons)


@dataclass
class _Work:
    table: str
    round: str | None  # None: the head of the table at rest
    findings: list[Finding] = field(default_factory=list)
    signed: list[SignedEvent] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)  # each signed event's event
    digests: list[bytes] = field(default_factory=list)  # each event's hash
    texts: list[str] = field(default_factory=list)  # each event's data, as canonical text


def check(
    obj: Any,
    trust: Trust,
    duplicates: bool,
    memo: Memo | None = None,
    *,
    keep_memo: bool = False,
    checkpoints: dict[tuple[str, str], Checkpoint] | None = None,
    line: int = 0,
    count_colons: bool = False,
) -> tuple[Result, Memo | None]:
    """Every step for one parsed bundle (of export line ``line``); a Memo of its table if
    asked and it is valid.

    ``checkpoints`` holds signed notes already verified with ``trust`` (an export's
    bundles usually carry the same one): they are not verified again. ``count_colons``:
    the Result's ``colons`` too, for a reader that did not note repeated member names.
    """
    # (1) schema of the bundle itself
    problem = shape_problem(obj)
    if problem is not None:
        table, round_id = _names(obj)
        finding = Finding("schema.bundle", table, round_id, None, problem)
        return Result(table, round_id, [finding], line=line), None
    raw_events: list[Any] = obj["events"]
    work = _Work(obj["table_id"], obj["round_id"])
    reused = _reusable(memo, raw_events, duplicates)
    chain = ChainChecker(work.table, trust.key_set, reused.head if reused else None)
    start = reused.length if reused else 0
    # (1) (2) (3) (4) (5) each signed event
    for signed, digest, text in chain.check(raw_events[start:], duplicates):
        work.signed.append(signed)
        work.events.append(signed.event)
        work.digests.append(digest)
        work.texts.append(text)
    work.findings.extend(chain.findings)
    state = _semantics(work, reused) if chain.intact else None
    rests = _rest_heads(work)
    if chain.intact:
        _ends_at_head(work, rests)  # (14)
    entry = obj["log"]
    head = work.digests[-1] if work.digests else None
    head, checkpoint = _log(
        work, entry, head, trust, checkpoints if checkpoints is not None else {}
    )
    heads = (reused.heads if reused else ()) + rests
    result = Result(
        work.table,
        work.round,
        work.findings,
        events=len(raw_events),
        leaf_index=entry["leaf_index"],
        head=head,
        checkpoint_size=checkpoint.size if checkpoint else None,
        checkpoint_root=checkpoint.root_hash if checkpoint else None,
        heads=heads,
        line=line,
        colons=_colons(obj, work) if count_colons and not (work.findings or reused) else None,
    )
    if not keep_memo or state is None or work.findings:
        return result, None
    memo = _memo(reused, work, chain.head, state, heads)
    return result, memo


def shape_problem(obj: Any) -> str | None:
    """(1) Why ``obj`` is not of a bundle's shape, or None."""
    if not isinstance(obj, dict) or set(obj) != _BUNDLE_KEYS:
        return f"a bundle has exactly the members {', '.join(sorted(_BUNDLE_KEYS))}"
    if obj["format"] != FORMAT:
        return f"format is {obj['format']!r}, not {FORMAT!r}"
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


def _colons(obj: dict[str, Any], work: _Work) -> int:
    """``colons_in(obj)`` for a bundle whose every event passed, read from seq 0:
    an event's data are counted in their canonical text, and the rest of a signed event
    by SPEC 5.1's patterns (4 + 9 members; colons only in the table, round and actor)."""
    events = work.events
    rounds = "".join(filter(None, map(_ROUND, events)))
    return (
        colons_in({**obj, "events": []})
        + (13 + work.table.count(":")) * len(events)
        + "".join(map(_ACTOR, events)).count(":")
        + rounds.count(":")
        + "".join(work.texts).count(":")
    )


def _names(obj: Any) -> tuple[str | None, str | None]:
    if not isinstance(obj, dict):
        return None, None
    table, round_id = obj.get("table_id"), obj.get("round_id")
    return (table if isinstance(table, str) else None), (
        round_id if isinstance(round_id, str) else None
    )


def identity(raw: Any) -> bytes:
    """What a later bundle's signed event must be to be taken as verified: its event's
    hash (over its canonical bytes), its raw signature and its key id, 128 bytes, equal for
    two signed events exactly when their JSON is. b"" (never a verified event's) unless
    the stated hash is the event's, the signature 128 lowercase hex digits and the key id
    32 ASCII characters, as every verified event's are."""
    event = raw.get("event") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or set(raw) != _SIGNED_KEYS or not isinstance(event, dict):
        return b""
    try:
        digest = event_hash(event)
        signature, key = raw["signature"], raw["key_id"]
        if raw["hash"] != digest.hex() or len(signature) != 128:
            return b""
        if not (isinstance(key, str) and len(key) == 32 and key.isascii()):
            return b""
        raw_signature = bytes.fromhex(signature)
    except (TypeError, ValueError, RecursionError):
        return b""
    if raw_signature.hex() != signature:  # fromhex also reads uppercase and spaces
        return b""
    return _identity(digest, raw_signature, key)


def _identity(digest: bytes, signature: bytes, key_id: str) -> bytes:
    return digest + signature + key_id.encode()


def _reusable(memo: Memo | None, raw_events: list[Any], duplicates: bool) -> Memo | None:
    if memo is None or duplicates or len(raw_events) <= memo.length:
        return None
    # Every identity is 128 bytes or empty: the joined ones are the verified ones exactly
    # when each is.
    prefix = hashlib.sha256(b"".join(map(identity, raw_events[: memo.length])))
    return memo if prefix.digest() == memo.verified.digest() else None


def _semantics(work: _Work, reused: Memo | None) -> Any:
    """(5)-(14) on one intact chain; returns the replayed state and checkers, or None."""
    events, texts = work.events, work.texts
    if reused is None:
        created = events[0]
        replayed, problem = rules.start(created, texts[0])
        options = created.data.get("options")
        decks = options.get("decks", 1) if isinstance(options, dict) else 1
        deck_rules = {"game": created.data.get("game"), "decks": decks}
        events, texts, balances, finished = events[1:], texts[1:], {}, frozenset[str]()
    else:
        replayed, problem = reused.replayed, None
        deck_rules, balances, finished = reused.deck_rules, reused.balances, reused.finished
    seeds = revealed_seeds(events)
    rounds = RoundChecker(work.table, deck_rules, seeds)
    rounds.finished = set(finished)
    money = MoneyChecker(work.table, balances)
    for event, text in zip(events, texts, strict=True):
        rounds.check(event, text)  # (5) timeouts (6) (7) (8) (9) (14)
        money.check(event)  # (12) (13)
    rounds.finish(events[-1] if events else None)  # (14)
    work.findings.extend(rounds.findings + money.findings)
    if problem is not None or replayed is None:
        work.findings.extend([problem] if problem else [])
        return None
    replayed, problem = rules.replay(replayed, events, texts, seeds)  # (10) (11)
    if problem is not None:
        work.findings.append(problem)
        return None
    return (replayed, money.balances, frozenset(rounds.finished), deck_rules)


def _ends_at_head(work: _Work, rests: tuple[tuple[int, bytes], ...]) -> None:
    # (14) the bundle ends with its round's reveal, or (no round named) with no round open
    last = work.events[-1] if work.events else None
    seq = last.seq if last is not None else None
    if work.round is None:
        if last is not None and rests and rests[-1][0] == last.seq:
            return
        reason = "the bundle names no round but ends with a round open"
    elif last is not None and last.type == "round_revealed" and last.round == work.round:
        return
    else:
        reason = f"the bundle does not end with round {work.round}'s round_revealed"
    work.findings.append(Finding("round.unfinished", work.table, work.round, seq, reason))


def _log(
    work: _Work,
    entry: dict[str, Any],
    head: bytes | None,
    trust: Trust,
    _seen: dict[tuple[str, str], Checkpoint],
) -> tuple[bytes | None, Checkpoint | None]:
    """(15) the head's inclusion; (16) its checkpoint's signature. The head, if ``head_hash``
    states it, and the checkpoint, if it opened."""
    place = log.Place(work.table, work.round)
    stated = entry["head_hash"]
    if head is None or not (_HEX64.fullmatch(stated) and bytes.fromhex(stated) == head):
        reason = "head_hash is not the hash of the bundle's last event"
        work.findings.append(place.finding("log.head", reason))
        return None, None
    key = (entry["checkpoint"], entry["origin"])
    checkpoint, problem = _seen.get(key), None
    if checkpoint is None:
        checkpoint, problem = log.open_checkpoint(
            entry["checkpoint"], trust, entry["origin"], place
        )
    if checkpoint is None:
        work.findings.extend([problem] if problem else [])
        return head, None
    _seen[key] = checkpoint
    work.findings.extend(_inclusion(entry, head, checkpoint.size, checkpoint.root_hash, place))
    return head, checkpoint


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


def _rest_heads(work: _Work) -> tuple[tuple[int, bytes], ...]:
    """(seq, hash) of each new event after which no round is open: every head a leaf can
    hold (a reused prefix ends at one, so no round is open where the new events start)."""
    rests, current = [], None
    for event, digest in zip(work.events, work.digests, strict=True):
        if event.type == "round_opened":
            current = event.round
        elif event.type == "round_revealed" and event.round == current:
            current = None
        if current is None:
            rests.append((event.seq, digest))
    return tuple(rests)


def _memo(
    reused: Memo | None, work: _Work, head: Head, state: Any, heads: tuple[tuple[int, bytes], ...]
) -> Memo:
    """The table through this bundle, whose every event passed every check (so each stated
    hash is the event's hash, as ``identity`` requires)."""
    verified = reused.verified.copy() if reused else hashlib.sha256()
    new = zip(work.digests, work.signed, strict=True)
    verified.update(b"".join(_identity(d, s.signature, s.key_id) for d, s in new))
    length = (reused.length if reused else 0) + len(work.signed)
    replayed, balances, finished, deck_rules = state
    return Memo(verified, length, head, replayed, balances, finished, deck_rules, heads)
