"""--explain: one round told as a person would tell it, and how to check it by hand.

Read from the bundle alone: the deck comes from the revealed seed, so every hidden
card can be named. A bundle of a table at rest (no round named) tells what happened
at the table since its last round. Either story says who vouches for the seats' moves:
in a version-2 table each keyed seat itself, and the operator alone for a keyless seat
or any seat of a version-1 table; and what bounds when its head was logged: the
witness-bounded time (step 18) when --witness is given and a quorum cosigned the
bundle's checkpoint, else nothing but the operator's word. Only what can be read is
told, whatever the findings: the events that are signed events of the logged shape
(step 1), and each data member only where it has the type it should. A bundle that is
not of a bundle's shape, or whose readable events do not start with table_created or a
table_state (which name the game and its options), has no story. Only --explain imports
this module.
"""

import json
import shlex
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fairdeal import cards, randomness
from fairdeal.bundle import signed_events
from fairdeal.errors import EventSchemaError, FairdealError
from fairdeal.events import Event, SignedEvent, actor_seat
from fairdeal.protocol import (
    CARD_DEALT,
    CARD_OPENED,
    CLIENT_SEED,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SERVER,
    TABLE_CREATED,
    TABLE_STATE,
)
from fairdeal.statements import BLIND, KEY, SIGNATURE, SIGNED, command_data
from fairdeal.table import SEAT_KEYS

from .bundle import shape_problem
from .money import is_balances
from .trust import Trust
from .witnesses import witnessing

NOTHING_TO_TELL = (
    "Nothing to tell: the bundle is not of a bundle's shape, or neither table_created nor a"
    " table_state starts its readable events."
)
# A dealer-blind round's cryptographic members (SPEC 15.13), each told in words, not bytes
_CRYPTO = {
    "server_key": "the service's round key, with its proof",
    "round_key": "the seat's round key, with its proof",
    "deck": "a deck of ciphertexts with its shuffle proof",
    "shares": "a decryption share of each position asked, with its proof",
    "secret": "the seat's round key revealed",
}
_QUIET = {"commitment", "salt", "balances", "transfers", "server_seed", "cards", SIGNATURE,
          "proof", *_CRYPTO}  # fmt: skip
UNOPENED = (
    "A card shown as ? was never opened: a seat did not send its share or its round key in"
    " time (SPEC 15.13.7.5)."
)
BY_HAND_BLIND = (
    "a dealer-blind round has no deck to derive from seeds: fairdeal-verify opened each card"
    " above from the logged decryption shares and the revealed round keys (SPEC 15.12.4)"
)
_TIMES = {"deadline", "seed_deadline", "move_deadline", "game_deadline"}  # epoch milliseconds
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Story = str | dict[str, Any] | None  # a told round: text, or JSON for --json; None: nothing


def explain(bundle: Any, as_json: bool = False, trust: Trust | None = None) -> "Story":
    """The story of the bundle's round (or of its table at rest): text, or a dict for
    --json; NOTHING_TO_TELL (None for --json) when nothing can be told. ``trust`` names
    the witnesses (none without it)."""
    events = _readable(bundle)
    if not events:
        return None if as_json else NOTHING_TO_TELL
    round_id = bundle["round_id"]
    if round_id is None:
        story = _at_rest(events)
        head = f"The table's head (seq {story['head_seq']})"
    else:
        mine = [e for e in events if e.round == round_id]
        before = _balances(events, lambda e: e.round == round_id)
        story = _story(events[0], mine, before, round_id, _attested(events, mine))
        head = f"Round {round_id}"
    story.update(_logged(head, bundle["log"]["checkpoint"], trust))
    if as_json:
        return story
    return _rest_text(story) if round_id is None else _text(story)


def _logged(head: str, note: str, trust: Trust | None) -> dict[str, Any]:
    """When ``head`` was in the log, by the witnesses' word (step 18) or nobody's but the
    operator's: a sentence, and the witness-bounded time if a quorum gives one."""
    witnessed = witnessing(note, trust) if trust is not None else None
    bound = witnessed.bound if witnessed is not None else None
    if witnessed is None:
        said = (
            f"{head}'s times are the operator's own claims, and no witness bounds them"
            " (pass --witness to require one)"
        )
    elif bound is None:
        said = (
            f"{head}'s times are the operator's own claims: its checkpoint lacks the"
            f" cosignatures of {witnessed.quorum} of the witnesses given, so no witness"
            " bounds them"
        )
    else:
        names = ", ".join(witnessed.quorum_names)
        said = (
            f"{head} was in the log no later than {utc(bound * 1000 + 999)} (the end of POSIX"
            f" second {bound}), the witness-bounded time: when {witnessed.quorum} of the"
            f" {len(witnessed.given)} witnesses given had cosigned its checkpoint ({names})"
        )
    found = None
    if witnessed is not None and bound is not None:
        found = {
            "posix": bound,
            "utc": utc(bound * 1000 + 999),  # a cosignature's time is a whole second
            "witnesses": witnessed.quorum_names,
        }
    return {"logged": said + ".", "witness_bound": found}


def _readable(bundle: Any) -> list[Event]:
    """The events of a bundle that parse as signed events, if the first is table_created
    or a table_state."""
    if shape_problem(bundle) is not None:
        return []
    events = []
    for raw in signed_events(bundle):
        try:
            events.append(SignedEvent.parse(raw)[0].event)
        except EventSchemaError:
            continue
    return events if events and events[0].type in (TABLE_CREATED, TABLE_STATE) else []


def _balances(
    events: list[Event], stop: Callable[[Event], bool], start: dict[str, int] | None = None
) -> dict[str, int]:
    """The balances the last event before the first one ``stop`` picks stated."""
    balances = start or {}
    for event in events:
        if stop(event):
            break
        stated = event.data.get("balances")
        balances = stated if is_balances(stated) else balances
    return dict(balances)


def _never(event: Event) -> bool:
    return False


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _list_of(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _game(created: Event) -> tuple[str, Any, Any]:
    """The game, options and number of decks ``table_created`` (or a table_state) names."""
    options = created.data.get("options")
    decks = options.get("decks", 1) if isinstance(options, dict) else 1
    return _text_of(created.data.get("game")), options, decks


def _at_rest(events: list[Event]) -> dict[str, Any]:
    """What happened at the table after its last round's reveal (or since it was made)."""
    reveals = [i for i, e in enumerate(events) if e.type == ROUND_REVEALED]
    since = events[reveals[-1] + 1 if reveals else 0 :]
    first = since[0] if since else None
    before = _balances(events, lambda e: e is first)
    game, options, _ = _game(events[0])
    return {
        "table": events[0].table,
        "game": game,
        "options": options,
        "round": None,
        "head_seq": events[-1].seq,
        "happened": [_describe(e) for e in since if e.type != TABLE_STATE],
        "money": _money(before, _balances(events, _never)),
        "moves_attested": _attested(events, []),
    }


def _story(
    created: Event,
    events: list[Event],
    before: dict[str, int],
    round_id: str,
    attested: list[str],
) -> dict[str, Any]:
    by_type = {e.type: e.data for e in events}
    opened, sealed = by_type.get(ROUND_OPENED, {}), by_type.get(ROUND_SEALED, {})
    seeds = [s for s in _list_of(sealed.get("client_seeds")) if isinstance(s, str)]
    seed_hex = _text_of(by_type.get(ROUND_REVEALED, {}).get("server_seed"))
    game, options, decks = _game(created)
    blind = created.version >= BLIND
    deck = [] if blind else _deck(seed_hex, round_id, seeds, {"game": game, "decks": decks})
    by_hand = (
        BY_HAND_BLIND
        if blind
        else _command(game, _decks_option(options), round_id, seed_hex, seeds)
    )
    return {
        "table": created.table,
        "game": game,
        "options": options,
        "round": round_id,
        "seats": _list_of(opened.get("seats")),
        "client_seeds": seeds,
        "server_seed": seed_hex,
        "cards": _cards(events, _opened(events) if blind else dict(enumerate(deck))),
        "happened": [_describe(e) for e in events if e.type != CARD_DEALT],
        "money": _money(before, _balances(events, _never, before)),
        "moves_attested": attested,
        "check_by_hand": by_hand,
    }


def _attested(events: list[Event], round_events: list[Event]) -> list[str]:
    """Who vouches for the seats' moves (SPEC 6.7), a line each: in version 1, the
    operator alone; in version 2, each seat bound so far, by its key or, keyless, the
    operator alone; and each seat that sent its seed of ``round_events`` in the clear."""
    if events[0].version < SIGNED:
        return ["a version-1 table: every seat's moves are attested by the operator alone"]
    lines = [
        f"seat {seat}'s moves are signed by the seat, with its key {key}"
        if key
        else f"seat {seat} has no key: its moves are attested by the operator alone"
        for seat, key in sorted(_seat_keys(events).items())
    ]
    lines += [
        f"seat {seat} sent its seed for round {round_id} in the clear, with no commitment "
        "first: it trusted the operator with the deck (the operator, who knows the server "
        "seed, could have chosen the other seeds against it, or told someone its seed)"
        for round_id, seat in _seeds_in_the_clear(round_events)
    ]
    if events[0].type == TABLE_STATE:  # a bundle alone: its keys are the operator's word
        lines.append(
            "the keys of seats seated before this bundle are as its first table_state states"
            " them: the operator's word, unless an export links it to the earlier rounds"
        )
    return lines


def _seeds_in_the_clear(events: list[Event]) -> list[tuple[str, int]]:
    """(round, seat) for each client_seed its seat did not commit to first (SPEC 6.4)."""
    committed = {(e.round, e.actor) for e in events if e.type == SEED_COMMITMENT}
    return [
        (e.round, seat)
        for e in events
        if e.type == CLIENT_SEED
        and e.round is not None
        and (e.round, e.actor) not in committed
        and (seat := actor_seat(e.actor)) is not None
    ]


def _seat_keys(events: list[Event]) -> dict[int, str | None]:
    """Each seat's key (None: keyless) as the events bind it: a table_state lists every
    seat's, a seat_joined binds its own."""
    keys: dict[int, str | None] = {}
    for event in events:
        seat = actor_seat(event.actor)
        if event.type == TABLE_STATE:
            listed = [i for i in _list_of(event.data.get(SEAT_KEYS)) if isinstance(i, dict)]
            keys = {i["seat"]: _key(i.get(KEY)) for i in listed if type(i.get("seat")) is int}
        elif event.type == SEAT_JOINED and KEY in event.data and seat is not None:
            keys[seat] = _key(event.data[KEY])
    return keys


def _key(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _deck(seed_hex: str, round_id: str, seeds: list[str], rules: dict[str, Any]) -> list[str]:
    try:
        seed = bytes.fromhex(seed_hex)
        commitment = randomness.seed_commitment(seed)
        key = randomness.shuffle_key(seed, round_id, commitment, seeds, rules)
        return randomness.shuffle(key, cards.canonical_deck(rules["game"], rules["decks"]))
    except (ValueError, TypeError, FairdealError):
        return []


def _opened(events: list[Event]) -> dict[int, str]:
    """A dealer-blind round's cards by position, as the round opened them: the up-card by
    ``card_opened``, the rest by ``cards_shown`` (none where a seat withheld its key)."""
    cards: dict[int, str] = {}
    for event in events:
        if event.type == CARD_OPENED:
            shown = [event.data]
        elif event.type == "cards_shown":
            shown = [c for c in _list_of(event.data.get("cards")) if isinstance(c, dict)]
        else:
            continue
        for card in shown:
            if type(card.get("position")) is int and isinstance(card.get("card"), str):
                cards[card["position"]] = card["card"]
    return cards


def _cards(events: list[Event], deck: dict[int, str]) -> dict[str, list[str]]:
    """Each seat's cards as dealt, in order: ``card (face, position)``."""
    hands: dict[str, list[str]] = {}
    for event in events:
        data = event.data
        if event.type != CARD_DEALT:
            continue
        position = data.get("position")
        card = deck.get(position, "?") if type(position) is int else "?"
        who = "nobody" if data.get("seat") is None else f"seat {data.get('seat')}"
        hands.setdefault(who, []).append(f"{card} ({data.get('face')}, position {position})")
    return hands


def _describe(event: Event) -> str:
    who = "the server" if event.actor == SERVER else event.actor.replace(":", " ")
    data = event.data
    words = f"[{_when(event.time)}] {who}: {event.type.replace('_', ' ')}"
    told = command_data(event.version, data)
    shown = [f"{_json(k)}: {_shown(k, v)}" for k, v in told.items() if k not in _QUIET]
    if shown:
        words += " {" + ", ".join(shown) + "}"
    words += "".join(f"; {says}" for name, says in _CRYPTO.items() if name in told)
    statement = data.get(SIGNATURE)
    if isinstance(statement, dict):
        words += f"; signed by the seat (statement {_json(statement.get('n'))})"
    for paid in (t for t in _list_of(data.get("transfers")) if isinstance(t, dict)):
        words += f"; {paid.get('from')} pays {paid.get('to')} {paid.get('amount')}"
    faces = [str(c.get("card")) for c in _list_of(data.get("cards")) if isinstance(c, dict)]
    if faces:
        words += f"; shows {' '.join(faces)}"
    return words


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _shown(name: str, value: Any) -> str:
    """A data member's value as JSON; a time, in epoch milliseconds, with its UTC time."""
    if name in _TIMES and type(value) is int:
        return _when(value)
    return _json(value)


def utc(milliseconds: int) -> str:
    """Epoch milliseconds as UTC ISO 8601 (``2025-10-09T08:53:20.000Z``); "?" out of range."""
    try:
        moment = _EPOCH + timedelta(milliseconds=milliseconds)
    except OverflowError:
        return "?"
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _when(milliseconds: int) -> str:
    return f"{milliseconds} ({utc(milliseconds)})"


def _money(before: dict[str, int], after: dict[str, int]) -> list[dict[str, Any]]:
    accounts = sorted(set(before) | set(after))
    return [
        {
            "account": a,
            "before": before.get(a, 0),
            "after": after.get(a, 0),
            "change": after.get(a, 0) - before.get(a, 0),
        }
        for a in accounts
    ]


def _decks_option(options: Any) -> Any:
    """The options' number of decks; None for a game that has no such option."""
    return options.get("decks") if isinstance(options, dict) else None


def _command(game: str, decks: Any, round_id: str, seed: str, seeds: list[str]) -> str:
    """``fairdeal deck`` for the round, quoted for a POSIX shell, with ``--decks`` where the
    game has that option. Values taken from the log are joined to their option
    (``--client-seed=-x``): a seed that starts with "-" is then never read as an option."""
    parts = ["fairdeal", "deck", "--game", game]
    if decks is not None:
        parts += ["--decks", str(decks)]
    parts += [f"--round-id={round_id}", "--server-seed", seed]
    parts += [f"--client-seed={client}" for client in seeds]
    return " ".join(shlex.quote(p) for p in [*parts, "--salts"])


def _rest_text(story: dict[str, Any]) -> str:
    lines = [
        f"Table {story['table']} ({story['game']}) at rest at seq {story['head_seq']}:"
        " no round open. What happened since its last round, in order:",
    ]
    lines += [f"  {i}. {line}" for i, line in enumerate(story["happened"], 1)]
    lines += ["", "Money (before -> after):"]
    lines += _money_lines(story["money"])
    lines += _attested_lines(story["moves_attested"])
    lines += _logged_lines(story["logged"])
    return "\n".join(lines)


def _logged_lines(logged: str) -> list[str]:
    return ["", "When it was logged:", f"  {logged}"]


def _attested_lines(attested: list[str]) -> list[str]:
    return ["", "Who vouches for the seats' moves:", *(f"  {line}" for line in attested)]


def _money_lines(money: list[dict[str, Any]]) -> list[str]:
    return [
        f"  {row['account']}: {row['before']} -> {row['after']} ({row['change']:+d})"
        for row in money
    ]


def _text(story: dict[str, Any]) -> str:
    lines = [
        f"Round {story['round']} of table {story['table']} ({story['game']}), "
        f"seats {', '.join(map(str, story['seats']))}.",
        f"Client seeds in seat order: {json.dumps(story['client_seeds'], ensure_ascii=False)};"
        f" server seed revealed: {story['server_seed']}.",
        "",
        "Cards as dealt:",
    ]
    for who, dealt in story["cards"].items():
        lines.append(f"  {who}: {', '.join(dealt)}")
    lines += ["", "What happened, in order:"]
    lines += [f"  {i}. {line}" for i, line in enumerate(story["happened"], 1)]
    lines += ["", "Money (before -> after the round):"]
    lines += _money_lines(story["money"])
    lines += _attested_lines(story["moves_attested"])
    lines += _logged_lines(story["logged"])
    if story["check_by_hand"] == BY_HAND_BLIND:
        unopened = any(c.startswith("?") for dealt in story["cards"].values() for c in dealt)
        note = f" {UNOPENED}" if unopened else ""
        return "\n".join([*lines, "", f"Check it by hand: {BY_HAND_BLIND}.{note}"])
    lines += [
        "",
        "Check it by hand: this prints the commitment (compare with round_opened), the deck",
        "(position 0 first) and each salt; every card_dealt must match it.",
        f"  {story['check_by_hand']}",
    ]
    return "\n".join(lines)
