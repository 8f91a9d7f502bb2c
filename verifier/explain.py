"""--explain: one round told as a person would tell it, and how to check it by hand.

Read from the bundle alone: the deck comes from the revealed seed, so every hidden
card can be named. A bundle of a table at rest (no round named) tells what happened
at the table since its last round. Only --explain imports this module.
"""

import json
import shlex
from collections.abc import Callable
from typing import Any

from fairdeal import cards, randomness

_QUIET = {"commitment", "salt", "balances", "transfers", "server_seed", "cards"}


def explain(bundle: dict[str, Any], as_json: bool = False) -> Any:
    """The story of the bundle's round (or of its table at rest): text, or a dict for --json."""
    events = [e["event"] for e in bundle["events"] if isinstance(e, dict) and "event" in e]
    round_id = bundle["round_id"]
    created = events[0]
    if round_id is None:
        story = _at_rest(created, events)
        return story if as_json else _rest_text(story)
    mine = [e for e in events if e.get("round") == round_id]
    story = _story(created, mine, _balances(events, lambda e: e.get("round") == round_id), round_id)
    return story if as_json else _text(story)


def _balances(
    events: list[dict[str, Any]], stop: Callable[[dict[str, Any]], bool]
) -> dict[str, int]:
    """The balances the last event before the first one ``stop`` picks left."""
    balances: dict[str, int] = {}
    for event in events:
        if stop(event):
            break
        balances = event["data"].get("balances", balances)
    return dict(balances)


def _at_rest(created: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    """What happened at the table after its last round's reveal (or since it was made)."""
    reveals = [i for i, e in enumerate(events) if e["type"] == "round_revealed"]
    since = events[reveals[-1] + 1 if reveals else 0 :]
    first = since[0]["seq"] if since else None
    before = _balances(events, lambda e: e["seq"] == first)
    after = _balances(events, lambda e: False)
    return {
        "table": created["table"],
        "game": created["data"]["game"],
        "options": created["data"]["options"],
        "round": None,
        "head_seq": events[-1]["seq"],
        "happened": [_describe(e, []) for e in since],
        "money": _money(before, after),
    }


def _story(
    created: dict[str, Any], events: list[dict[str, Any]], before: dict[str, int], round_id: str
) -> dict[str, Any]:
    by_type = {e["type"]: e for e in events}
    opened, sealed = by_type.get("round_opened", {}), by_type.get("round_sealed", {})
    revealed = by_type.get("round_revealed", {})
    seeds = sealed.get("data", {}).get("client_seeds", [])
    seed_hex = revealed.get("data", {}).get("server_seed", "")
    game, options = created["data"]["game"], created["data"]["options"]
    decks = options.get("decks", 1)
    deck = _deck(seed_hex, round_id, seeds, {"game": game, "decks": decks})
    after = before
    for event in events:
        after = event["data"].get("balances", after)
    return {
        "table": created["table"],
        "game": game,
        "options": options,
        "round": round_id,
        "seats": opened.get("data", {}).get("seats", []),
        "client_seeds": seeds,
        "server_seed": seed_hex,
        "cards": _cards(events, deck),
        "happened": [_describe(e, deck) for e in events if e["type"] != "card_dealt"],
        "money": _money(before, after),
        "check_by_hand": _command(game, decks, round_id, seed_hex, seeds),
    }


def _deck(seed_hex: str, round_id: str, seeds: list[str], rules: dict[str, Any]) -> list[str]:
    try:
        seed = bytes.fromhex(seed_hex)
        commitment = randomness.seed_commitment(seed)
        key = randomness.shuffle_key(seed, round_id, commitment, seeds, rules)
        return randomness.shuffle(key, cards.canonical_deck(rules["game"], rules["decks"]))
    except (ValueError, TypeError, KeyError):
        return []


def _cards(events: list[dict[str, Any]], deck: list[str]) -> dict[str, list[str]]:
    """Each seat's cards as dealt, in order: ``card (face, position)``."""
    hands: dict[str, list[str]] = {}
    for event in events:
        data = event["data"]
        if event["type"] != "card_dealt":
            continue
        position = data.get("position")
        card = deck[position] if isinstance(position, int) and position < len(deck) else "?"
        who = "nobody" if data.get("seat") is None else f"seat {data.get('seat')}"
        hands.setdefault(who, []).append(f"{card} ({data.get('face')}, position {position})")
    return hands


def _describe(event: dict[str, Any], deck: list[str]) -> str:
    who = "the server" if event["actor"] == "server" else event["actor"].replace(":", " ")
    data = event["data"]
    words = f"{who}: {event['type'].replace('_', ' ')}"
    shown = {k: v for k, v in data.items() if k not in _QUIET}
    if shown:
        words += " " + json.dumps(shown, ensure_ascii=False, separators=(", ", ": "))
    for transfer in data.get("transfers", []) if isinstance(data.get("transfers"), list) else []:
        words += f"; {transfer.get('from')} pays {transfer.get('to')} {transfer.get('amount')}"
    if isinstance(data.get("cards"), list):
        faces = [str(c.get("card")) for c in data["cards"] if isinstance(c, dict)]
        words += f"; shows {' '.join(faces)}"
    return words


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


def _command(game: str, decks: Any, round_id: str, seed: str, seeds: list[str]) -> str:
    parts = ["fairdeal", "deck", "--game", game]
    if game == "kvitlach":
        parts += ["--decks", str(decks)]
    parts += ["--round-id", round_id, "--server-seed", seed]
    for client in seeds:
        parts += ["--client-seed", client]
    return " ".join(shlex.quote(p) for p in [*parts, "--salts"])


def _rest_text(story: dict[str, Any]) -> str:
    lines = [
        f"Table {story['table']} ({story['game']}) at rest at seq {story['head_seq']}:"
        " no round open. What happened since its last round, in order:",
    ]
    lines += [f"  {i}. {line}" for i, line in enumerate(story["happened"], 1)]
    lines += ["", "Money (before -> after):"]
    lines += _money_lines(story["money"])
    return "\n".join(lines)


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
    lines += [
        "",
        "Check it by hand: this prints the commitment (compare with round_opened), the deck",
        "(position 0 first) and each salt; every card_dealt must match it.",
        f"  {story['check_by_hand']}",
    ]
    return "\n".join(lines)
