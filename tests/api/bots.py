"""Bots that play over real HTTP through the SDK, and helpers that read what the service said.

Every move a bot makes goes through ``SeatClient``, so every receipt is checked as it
arrives (signature, chain link, the commitments of the seat's own cards). Raw requests,
for the error cases, go through ``raw`` (bench/transport.py: the SDK's transport, tried once).
"""

import json
import random
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from bench.transport import raw
from fairdeal import table
from fairdeal.api.client import FairdealClient, Response, SeatClient
from fairdeal.events import SignedEvent
from fairdeal.games import dealing, registry
from fairdeal.games.kvitlach import hands as kvitlach_hands
from fairdeal.games.toto21 import hands as toto21_hands
from fairdeal.keys import KeySet, load_public_key
from fairdeal.note import NoteVerifier
from tests.chains import check_chain
from tests.replay import replay

MAX_MOVES = 200
MAX_ROUNDS = 60


# Reading what the service said (requests through bench/transport.py's ``raw``)


def events_of(url: str, table_id: str, from_seq: int = 0) -> list[dict[str, Any]]:
    """The table's chain from ``from_seq`` to its head, every page of it."""
    events: list[dict[str, Any]] = []
    since: int | None = from_seq
    while since is not None:
        reply = raw(url, "GET", f"/v1/tables/{table_id}/events?from_seq={since}")
        assert reply.status == 200, reply.text
        events += reply.json["events"]
        since = reply.json["next_from_seq"]
    return events


def head_seq(url: str, table_id: str) -> int:
    """The seq of the table's last logged event (read without applying deadlines)."""
    return int(events_of(url, table_id)[-1]["event"]["seq"])


def head_of(url: str, table_id: str) -> dict[str, Any]:
    """The table's head {seq, hash} as its view shows it: what a statement signed now names."""
    reply = raw(url, "GET", f"/v1/tables/{table_id}")
    assert reply.status == 200, reply.text
    return dict(reply.json["head"])


def types_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["event"]["type"] for e in events]


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["event"]["type"] == kind]


def key_set(url: str) -> KeySet:
    listed = raw(url, "GET", "/v1/keys").json["keys"]
    return KeySet(load_public_key(k["public_key_pem"].encode()) for k in listed)


def log_verifier(url: str) -> NoteVerifier:
    return NoteVerifier.from_key_string(raw(url, "GET", "/v1/keys").json["log"]["verifier_key"])


def verify_table(url: str, table_id: str) -> table.Table:
    """The table's whole public chain checks (links, seqs, signatures) and, up to the first
    round not yet revealed (whose cards need its seed), replays by the rules."""
    events = events_of(url, table_id)
    signed = [SignedEvent.from_json(e) for e in events]
    assert [s.event.seq for s in signed] == list(range(len(signed)))
    check_chain(signed, key_set(url))
    revealed = {e["event"]["round"] for e in of_type(events, "round_revealed")}
    open_at = [s.event.seq for s in signed if s.event.round and s.event.round not in revealed]
    end = open_at[0] if open_at else len(signed)
    return replay(registry(), [s.event for s in signed[:end]])


def error_of(reply: Response) -> dict[str, Any]:
    """The one error body: exactly {"error": {code, message, details}}, no stack trace."""
    body = reply.json
    assert set(body) == {"error"}, body
    error = body["error"]
    assert set(error) == {"code", "message", "details"}, error
    assert isinstance(error["code"], str) and error["code"]
    assert isinstance(error["message"], str) and error["message"]
    assert isinstance(error["details"], dict)
    assert "Traceback" not in reply.text and 'File "' not in reply.text
    return dict(error)


# Clients that keep every response body, for the visibility scans


class RecordingClient(FairdealClient):
    """A FairdealClient that keeps the text of every response it receives."""

    def __init__(self, base_url: str) -> None:
        self.bodies: list[str] = []
        self._record_lock = threading.Lock()
        super().__init__(base_url)

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        reply = super().request(method, path, body, headers)
        with self._record_lock:
            self.bodies.append(json.dumps(reply))
        return reply


# Toto21


@dataclass
class BotTable:
    """A table the bots play: its seats' clients and every receipt they got (the reveals
    the SDK makes on its own among them)."""

    seats: dict[int, SeatClient]
    receipts: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        for seat in self.seats.values():
            self.sit(seat)

    @property
    def table_id(self) -> str:
        return self.seats[0].table_id

    def sit(self, seat: SeatClient) -> None:
        self.seats[seat.seat] = seat
        seat.on_reveal = lambda _round_id, reply: self.keep(reply) and None

    def keep(self, reply: Mapping[str, Any]) -> list[str]:
        self.receipts += reply["events"]
        return types_of(reply["events"])

    def seed_round(self, round_id: str, seats: list[int]) -> None:
        """Each seat commits to a seed, then each reveals it (the last to commit at once)."""
        for seat in seats:
            self.keep(self.seats[seat].seed(round_id))
        for seat in seats:
            if round_id in self.seats[seat].seeds:
                self.keep(self.seats[seat].reveal(round_id))


Toto21Table = BotTable


def toto21_table(
    url: str,
    options: Mapping[str, Any] | None = None,
    client: Callable[[str], FairdealClient] = FairdealClient,
    keyless: bool = False,
) -> Toto21Table:
    """Two seats, each with its own client (and key, unless ``keyless``: for raw requests);
    the creator accepts the joiner."""
    creator = client(url).create_table("toto21", options or {}, keyless=keyless)
    joiner = client(url).join(creator.table_id, keyless=keyless)
    creator.decide(1, True)
    return Toto21Table({0: creator, 1: joiner})


def toto21_round_state(seat: SeatClient) -> dict[str, Any]:
    view = seat.view()["view"]
    assert view["game"] == "toto21"
    round_view: dict[str, Any] = view["round"] or {}
    return {"phase": view["phase"], **round_view}


def start_toto21_round(game: Toto21Table) -> str:
    round_id = game.seats[0].open_round()
    game.seed_round(round_id, [0, 1])
    return round_id


def await_toto21_move(game: Toto21Table) -> str:
    """Open and seed rounds until one waits for a move (two aces end a round at once)."""
    for _ in range(MAX_ROUNDS):
        round_id = start_toto21_round(game)
        if toto21_round_state(game.seats[0])["turn"] is not None:
            return round_id
    raise AssertionError(f"no round of {game.table_id} waited for a move")


def toto21_at_move(
    url: str, options: Mapping[str, Any] | None = None, keyless: bool = True
) -> tuple[Toto21Table, str, dict[str, Any]]:
    """A Toto21 table whose round waits for a move: the table, the round, and the round's
    state as the creator sees it (``turn``, ``player``, ``dealer``, ...). Its seats are
    keyless unless asked (``keyless=False``), so that raw requests may move."""
    game = toto21_table(url, options, keyless=keyless)
    round_id = await_toto21_move(game)
    return game, round_id, toto21_round_state(game.seats[0])


def toto21_move(
    game: Toto21Table, round_id: str, rng: random.Random, blind: float = 0.2
) -> list[str]:
    """The seat to move makes one move: hit below 17 (sometimes blind), else stand."""
    turn = toto21_round_state(game.seats[0])["turn"]
    seat = game.seats[turn]
    view = seat.view()
    mine = [
        c["card"]
        for c in view["view"]["round"]["cards"]
        if c["seat"] == turn and c.get("card") is not None
    ]
    legal = view["legal_actions"]
    if "blind" in legal and rng.random() < blind:
        kind = "blind"
    elif "hit" in legal and toto21_hands.total(mine) < 17:
        kind = "hit"
    else:
        kind = "stand"
    return game.keep(seat.act(round_id, kind))


def play_toto21_round(game: Toto21Table, rng: random.Random) -> tuple[str, list[str]]:
    """Open, seed and play one round to its reveal; the types of every receipt."""
    start = len(game.receipts)
    round_id = start_toto21_round(game)
    finish_toto21_round(game, round_id, rng)
    return round_id, types_of(game.receipts[start:])


def finish_toto21_round(game: Toto21Table, round_id: str, rng: random.Random) -> None:
    for _ in range(MAX_MOVES):
        if toto21_round_state(game.seats[0])["revealed"]:
            return
        toto21_move(game, round_id, rng)
    raise AssertionError(f"round {round_id} did not end in {MAX_MOVES} moves")


def play_toto21_match(game: Toto21Table, rng: random.Random) -> list[str]:
    """Rounds until the match ends; the ids of the rounds played."""
    rounds = []
    for _ in range(MAX_ROUNDS):
        round_id, kinds = play_toto21_round(game, rng)
        rounds.append(round_id)
        if {"match_won", "match_drawn"} & set(kinds):
            return rounds
    raise AssertionError(f"the match did not end in {MAX_ROUNDS} rounds")


# Kvitlach


KvitlachTable = BotTable


def kvitlach_table(
    url: str,
    seats: int,
    options: Mapping[str, Any],
    buy_in: int = 100,
    client: Callable[[str], FairdealClient] = FairdealClient,
    keyless: bool = False,
) -> KvitlachTable:
    first = client(url).create_table("kvitlach", options, {"buy_in": buy_in}, keyless=keyless)
    game = KvitlachTable({0: first})
    for _ in range(1, seats):
        game.sit(client(url).join(first.table_id, {"buy_in": buy_in}, keyless=keyless))
    return game


def start_kvitlach_round(game: KvitlachTable) -> str:
    opener = game.seats[min(game.seats)]
    round_id = opener.open_round()
    game.seed_round(round_id, opener.view()["view"]["round"]["seats"])
    return round_id


def kvitlach_choice(view: Mapping[str, Any], seat: int) -> dict[str, Any]:
    """A simple strategy: bet all that fits, draw below 16, the banker below 17."""
    legal, table_view = view["legal_actions"], view["view"]
    current = table_view["round"]
    best = kvitlach_hands.best([c["card"] for c in table_view["your_cards"]])
    hand = next(h for h in current["hands"] if h["seat"] == seat)
    if "banker_draw" in legal and (best < 17 or "banker_stop" not in legal):
        return {"kind": "banker_draw"}
    if "banker_stop" in legal:
        return {"kind": "banker_stop"}
    if "reject" in legal:
        return {"kind": "reject"}
    if "bet" in legal and hand["bet"] == 0:
        options = table_view["options"]
        balance = table_view["balances"][f"seat:{seat}"]
        room = current["bank"] - current["covered"]
        return {"kind": "bet", "amount": min(options["max_bet"], room, balance)}
    for draw in ("hit", "open_card"):
        if draw in legal and best < 16:
            return {"kind": draw}
    if "stand" in legal:
        return {"kind": "stand"}
    raise AssertionError(f"seat {seat} has no move it would make among {legal}")


def kvitlach_move(game: KvitlachTable, round_id: str) -> list[str]:
    turn = game.seats[min(game.seats)].view()["view"]["round"]["turn"]
    seat = game.seats[turn]
    choice = kvitlach_choice(seat.view(), turn)
    kind = choice.pop("kind")
    return game.keep(seat.act(round_id, kind, **choice))


def play_kvitlach_round(game: KvitlachTable) -> tuple[str, list[str]]:
    start = len(game.receipts)
    round_id = start_kvitlach_round(game)
    finish_kvitlach_round(game, round_id)
    return round_id, types_of(game.receipts[start:])


def finish_kvitlach_round(game: KvitlachTable, round_id: str) -> None:
    for _ in range(MAX_MOVES):
        if game.seats[min(game.seats)].view()["view"]["round"]["revealed"]:
            return
        kvitlach_move(game, round_id)
    raise AssertionError(f"round {round_id} did not end in {MAX_MOVES} moves")


# Visibility


@dataclass(frozen=True)
class Hidden:
    """A card dealt face down or blind: who holds it, its salt, when it became public."""

    round_id: str
    position: int
    seat: int
    face: str
    salt: str
    public_at: int


def hidden_cards(events: list[dict[str, Any]]) -> tuple[list[Hidden], dict[str, tuple[str, int]]]:
    """Every hidden card of the revealed rounds, and each round's (seed hex, reveal seq)."""
    created = events[0]["event"]["data"]
    game = registry()[created["game"]]
    rules = game.deck_rules(created["options"])
    seeds = {
        e["event"]["round"]: (e["event"]["data"]["server_seed"], e["event"]["seq"])
        for e in of_type(events, "round_revealed")
    }
    sealed = {e["event"]["round"]: e["event"]["data"] for e in of_type(events, "round_sealed")}
    found = []
    for e in of_type(events, "card_dealt"):
        event = e["event"]
        round_id, data = event["round"], event["data"]
        if "commitment" not in data or round_id not in seeds:
            continue
        seed_hex, revealed_at = seeds[round_id]
        deck = dealing.round_deck(
            bytes.fromhex(seed_hex), round_id, sealed[round_id]["client_seeds"], rules
        )
        shown_at = _shown_at(events, round_id, data["position"])
        found.append(
            Hidden(
                round_id,
                data["position"],
                data["seat"],
                data["face"],
                deck.salt(data["position"]).hex(),
                min(shown_at, revealed_at),
            )
        )
    return found, seeds


def _shown_at(events: list[dict[str, Any]], round_id: str, position: int) -> int:
    for e in events:
        event = e["event"]
        if event["round"] != round_id:
            continue
        if event["type"] == "cards_shown" and any(
            c["position"] == position for c in event["data"]["cards"]
        ):
            return int(event["seq"])
        if event["type"] == "card_burned" and event["data"]["position"] == position:
            return int(event["seq"])
    return 2**62


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object within ``value``, itself included (in no particular order)."""
    waiting = [value]
    while waiting:
        node = waiting.pop()
        if isinstance(node, dict):
            yield node
            waiting += node.values()
        elif isinstance(node, list):
            waiting += node


def horizon(body: Any) -> int:
    """The latest seq a response speaks of: what it may already know to be public."""
    seqs = [-1]
    for node in _walk(body):
        if isinstance(node.get("seq"), int):
            seqs.append(node["seq"])
    return max(seqs)


def leaks(bodies: list[str], viewer: int | None, events: list[dict[str, Any]]) -> list[str]:
    """What responses to ``viewer`` showed before they should: server seeds, other seats'
    hidden cards or salts, any blind card."""
    found, seeds = hidden_cards(events)
    problems = []
    for index, text in enumerate(bodies):
        body = json.loads(text)
        seen_up_to = horizon(body)
        for round_id, (seed_hex, revealed_at) in seeds.items():
            if seen_up_to < revealed_at and seed_hex in text:
                problems.append(f"response {index}: the server seed of {round_id}")
        for card in found:
            if seen_up_to >= card.public_at or (card.seat == viewer and card.face == "down"):
                continue
            if card.salt in text:
                problems.append(f"response {index}: the salt of {card}")
            if _card_in_view(body, card):
                problems.append(f"response {index}: the value of {card}")
    return problems


def _card_in_view(body: Any, card: Hidden) -> bool:
    if not isinstance(body, dict) or body.get("current_round") != card.round_id:
        return False
    return any(
        node.get("position") == card.position and node.get("card") is not None
        for node in _walk(body.get("view"))
    )


# Threads


def run_together(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` on ``count`` threads released at once; each result or exception."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count

    def run(index: int) -> None:
        barrier.wait()
        try:
            results[index] = work(index)
        except Exception as e:  # reported to the test, which asserts on it
            results[index] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return results


def send(url: str, spec: dict[str, Any]) -> Response:
    """A raw request described as a dict (method, path, body, token, headers, data,
    content_type); every key is used up, so a case cannot carry one that is ignored."""
    reply = raw(
        url,
        spec.pop("method"),
        spec.pop("path"),
        spec.pop("body", None),
        token=spec.pop("token", None),
        headers=spec.pop("headers", None),
        data=spec.pop("data", None),
        content_type=spec.pop("content_type", "application/json"),
    )
    assert not spec, f"unused request fields {sorted(spec)}"
    return reply
