"""A Python client for game programs that checks every receipt the moment it arrives.

Each response's events are checked against the server's pinned keys and the table's
hash chain as this client has followed it (events it did not see are fetched and
checked too; an event sent again must be the one checked at its seq), each reply must
record the request it answers, and every private card the server shows this seat is
checked against the commitment signed when it was dealt. Any disagreement raises a
ReceiptError at once. A finished round's bundle is verified in-process by the offline
verifier (``FairdealClient.verify_round``).

Requests share one kept-alive HTTP connection, opened again when the server drops it or
asks to close it (werkzeug's server, which ``fairdeal serve`` runs, closes every connection
after its answer; a reverse proxy in front of the service, or gunicorn's threaded workers,
keep it). Creating and joining a table go on a new connection of their own.
Each seat the client takes has an Ed25519 key of its own, made here (unless asked for a
keyless seat): its public key is bound when the seat is taken, and every command it sends
is signed over the seat statement (SPEC 6.7), numbered ``n`` from 1 and made after the head
of the table's chain as this client has checked it. The receipt of each command must log
exactly the statement signed, and the seat_joined receipt the seat's key. Every seat's
statement the client reads, its own or another's, is checked as the engine checks it before
logging it (SPEC 6.7: each seat's bound key, its last ``n``, the events a statement may
name): the operator cannot log a move for a keyed seat that the seat did not sign. A seed is
committed first and revealed once the chain shows every seat has committed
(``SeatClient.seed``), never before.

Every POST that changes a table after its seats are taken (a decision, a round opened, a
seed, an action) carries an ``Idempotency-Key`` made here, so it is sent again, with the
same key, when the connection fails or the server answers 503 ``database_unavailable``:
the server applies it once and answers every copy alike. Creating and joining a table
carry no key (the server refuses one) and are never sent twice. ``Connection`` is that
transport alone (``send``: every try of one ``Request``; its ``Response`` whatever the
status), for a program that reads the answers itself.

Use it as ``with FairdealClient(url) as client:`` (the connection is closed on the way out).
Moves are ``Action`` members (plain strings are taken too). Every reply is the service's JSON
as parsed, typed for a type checker (``TableView``, ``Receipt``, ...; the package ships
``py.typed``), and ``verify_round`` returns the verifier's ``Report``.

Uses only the standard library, ``cryptography``, the pure core and the verifier: the core
install (``pip install .``, without the server extra) is all it needs.
"""

import hmac
import http.client
import json
import secrets
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from types import TracebackType
from typing import Any, Self, TypedDict

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.canonical import json_text
from fairdeal.errors import FairdealError, GameError, HashMismatchError, SignatureError
from fairdeal.events import ChainHead, Event, SignedEvent, actor_seat, seat_actor
from fairdeal.games.base import Command
from fairdeal.keys import KeySet, load_public_key
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    ROUND_OPENED,
    ROUND_REVEALED,
    ROUND_SEALED,
    ROUND_VOIDED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SEEDS_COMMITTED,
    SERVER,
    TABLE_STATE,
)
from fairdeal.statements import KEY, NO_KEYS, NOTHING_SEEN, SIGNATURE, SIGNED, SeatKeys, Seen
from fairdeal.table import SEAT_KEYS
from fairdeal.verifier import Finding, Report, Trust, load_trust, verify_bundle

__all__ = [
    "Action",
    "BundleInvalidError",
    "CardCommitmentError",
    "ClientError",
    "Connection",
    "EventsReply",
    "FairdealClient",
    "Finding",
    "GameView",
    "LoggedEvent",
    "Receipt",
    "ReceiptChainError",
    "ReceiptError",
    "ReceiptMismatchError",
    "ReceiptSignatureError",
    "Report",
    "Request",
    "Response",
    "Retries",
    "RevealNotOpenError",
    "RoundOpenedReply",
    "RoundView",
    "SeatClient",
    "SeatReply",
    "SeatStatementError",
    "ServerRefusedError",
    "StatementMismatchError",
    "TableLog",
    "TableView",
    "new_idempotency_key",
]

# Moves


class Action(StrEnum):
    """The moves a seat sends, by name: ``SeatClient.act`` takes these in a round,
    ``SeatClient.table_act`` the last two between rounds. Each is its plain string too
    (``Action.HIT == "hit"``), and plain strings are taken as they are."""

    # Toto21 (SPEC 11)
    HIT = "hit"
    STAND = "stand"
    BLIND = "blind"
    # Kvitlach (SPEC 12): a player's, then the banker's
    BET = "bet"
    OPEN_CARD = "open_card"
    ELVAROON = "elvaroon"
    REJECT = "reject"
    BANKER_DRAW = "banker_draw"
    BANKER_STOP = "banker_stop"
    # Kvitlach, between rounds
    SEAT_LEFT = "seat_left"
    BANKER_EXIT = "banker_exit"


# Replies, as the service sends them (the OpenAPI document at /openapi.json has them all):
# each is the parsed JSON itself, typed, so the raw answer is always at hand.


class LoggedEvent(TypedDict):
    """An event as logged (SPEC 5): ``round`` is None outside a round, ``time`` Unix
    milliseconds, ``data`` the event type's own members."""

    version: int
    table: str
    round: str | None
    seq: int
    prev: str
    time: int
    type: str
    actor: str
    data: dict[str, Any]


class Receipt(TypedDict):
    """A signed event, as every reply carries its receipts (already checked when a reply is
    returned): the event, its hash, the signing key's id and the signature, in hex."""

    event: LoggedEvent
    hash: str
    key_id: str
    signature: str


class EventsReply(TypedDict):
    """The answer to a command: the signed events it logged, the receipts (already checked)."""

    events: list[Receipt]


class SeatReply(EventsReply):
    """The answer to creating or joining a table: the seat and its bearer token (shown once)."""

    table_id: str
    seat: int
    token: str


class RoundOpenedReply(EventsReply):
    """The answer to opening a round: its id and the server seed's commitment."""

    round_id: str
    commitment: str


class RoundView(TypedDict, total=False):
    """The round in a game's view: the members both games show, then each game's own
    (present in that game's view only; SPEC 11.7 for Toto21, 12 for Kvitlach)."""

    id: str
    number: int
    commitment: str
    seats: list[int]
    revealed: bool
    server_seed: str  # once revealed
    turn: int | None
    cards: list[dict[str, Any]]  # Toto21
    dealer: int
    player: int
    move_deadline: int | None
    blind_taken: bool
    banker: int  # Kvitlach
    order: list[int]
    phase: str
    deadline: int | None
    bank: int
    covered: int
    hands: list[dict[str, Any]]


class GameView(TypedDict, total=False):
    """A game's view of the table as one seat sees it: the members both games show, then each
    game's own (SPEC 11.7 for Toto21, 12 for Kvitlach). ``round`` is None between rounds."""

    game: str
    options: dict[str, Any]
    seats: list[int]
    balances: dict[str, int]
    rounds: int
    round: RoundView | None
    viewer: int | None  # Toto21
    phase: str
    score: list[int]
    worth: int
    game_deadline: int | None
    you: int | None  # Kvitlach
    banker: int | None
    term: dict[str, Any] | None
    exit_offer: bool
    legal_actions: list[str]
    your_cards: list[dict[str, Any]]


class TableView(TypedDict):
    """A table as one seat sees it: ``view`` is the game's view, with this seat's own cards
    and their salts; ``legal_actions`` what it may send now (``Action`` names them);
    ``head`` the table's last logged event as ``{"seq", "hash"}``."""

    table_id: str
    game: str
    seat: int | None
    current_round: str | None
    head: dict[str, Any]
    legal_actions: list[str]
    view: GameView


# Errors


class ClientError(FairdealError):
    """The client could not complete a request (the connection failed, past every retry)."""


class ServerRefusedError(ClientError):
    """The server answered with an error body: its HTTP ``status``, stable ``code``,
    ``message`` and ``details``."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code, self.message, self.details = status, code, message, details


class ReceiptError(ClientError):
    """The server's word and its signed log disagree."""


class ReceiptChainError(ReceiptError):
    """A receipt that does not extend the table's chain as this client has seen it."""


class ReceiptSignatureError(ReceiptError):
    """A receipt whose hash or signature does not verify under the pinned keys."""


class CardCommitmentError(ReceiptError):
    """A private card shown to this seat that does not open its signed commitment."""


class ReceiptMismatchError(ReceiptError):
    """A reply whose receipt does not record the request it answers."""


class StatementMismatchError(ReceiptMismatchError):
    """A receipt of this seat's command that does not log the statement the seat signed
    (its n, data and signature), or a seat_joined receipt without the seat's own key."""


class SeatStatementError(ReceiptError):
    """A seat's command logged with a statement the engine refuses (SPEC 6.7), whichever
    seat it is: ``seat``, the event's ``seq`` and the refusal's ``code``
    (``signature_missing``, ``signature_invalid``, ``signature_replayed``,
    ``signature_stale``, ``signature_unexpected``; ``illegal_action`` for a key that is not
    strong), or ``mismatch`` for a key or statement not logged as the engine logs it."""

    def __init__(self, event: Event, seat: int, code: str, reason: str) -> None:
        super().__init__(
            f"table {event.table} seq {event.seq}: seat {seat}'s {event.type}: {code}: {reason}"
        )
        self.seat, self.seq, self.code = seat, event.seq, code


class RevealNotOpenError(ClientError):
    """A reveal asked for before the chain shows the round's reveals open (its
    ``seeds_committed``): the seed stays with the seat, unsent."""


class BundleInvalidError(ReceiptError):
    """A round's bundle the offline verifier did not find valid; ``report`` has its findings."""

    def __init__(self, round_id: str, report: Report) -> None:
        lines = "; ".join(f.line() for f in report.findings[:5])
        super().__init__(f"round {round_id}: {report.verdict.upper()}: {lines}")
        self.round_id, self.report = round_id, report


# Retries


@dataclass(frozen=True)
class Retries:
    """When a request that is safe to send again is sent again.

    A GET, or a POST carrying an Idempotency-Key, is sent up to ``attempts`` times in all
    when the connection fails (refused, dropped, timed out) or the server answers 503
    ``database_unavailable``; a POST without a key (creating or joining a table) only on a
    503 that says nothing was stored (``outcome`` ``rolled_back``). Between two tries the
    client waits the 503's ``Retry-After`` (else ``backoff_s`` doubled each time), never more
    than ``max_wait_s``. ``sleep`` is the wait, to be replaced in tests.
    """

    attempts: int = 4
    backoff_s: float = 0.2
    max_wait_s: float = 5.0
    sleep: Callable[[float], None] = time.sleep

    def wait(self, attempt: int, retry_after: str | None) -> None:
        """Wait before try number ``attempt + 1`` (``attempt`` counts from 1)."""
        seconds = self.backoff_s * 2 ** (attempt - 1)
        if retry_after is not None and retry_after.strip().isdigit():
            seconds = float(retry_after.strip())
        self.sleep(min(seconds, self.max_wait_s))


@dataclass(frozen=True)
class Request:
    """One HTTP request as it is sent, every time it is sent."""

    method: str
    path: str
    data: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def safe(self) -> bool:
        """Whether it may be sent again: a read, or a write that carries an Idempotency-Key."""
        return self.method == "GET" or "Idempotency-Key" in self.headers


@dataclass(frozen=True)
class Response:
    """One HTTP answer as it came: its status, headers (looked up in any case) and body."""

    status: int
    headers: http.client.HTTPMessage
    body: bytes

    @property
    def json(self) -> Any:
        """The body, parsed as JSON (ValueError if it is not)."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body, as text (UTF-8, as the service sends it; ValueError if it is not)."""
        return self.body.decode("utf-8")


class Connection:
    """One kept-alive HTTP connection to a service, and the rule for sending a request again.

    ``send`` is the whole request, every try of it; ``exchange`` one try. Requests from several
    threads take turns on the connection.
    """

    def __init__(self, base_url: str, timeout: float = 10.0, retries: Retries | None = None):
        parts = urllib.parse.urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ClientError("the service URL must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.retries = retries or Retries()
        self._prefix = parts.path.rstrip("/")
        self._connection = _connection(parts, timeout)
        self._lock = threading.Lock()

    def send(self, request: Request) -> Response:
        """Send one request; its answer, whatever its status.

        A safe request (``Request.safe``) is sent again as ``retries`` says; another only
        after a 503 that stored nothing. A connection that failed (every try) raises
        ClientError.
        """
        method, path, safe = request.method, request.path, request.safe
        attempts = self.retries.attempts
        for attempt in range(1, attempts + 1):
            try:
                response = self.exchange(request, fresh=not safe)
            except (OSError, http.client.HTTPException) as e:
                if not safe:
                    raise ClientError(
                        f"{method} {path}: the connection failed ({e!r}): the request may or "
                        "may not have been applied, and is not sent again"
                    ) from e
                if attempt == attempts:
                    raise ClientError(f"{method} {path}: {e!r}, {attempts} times") from e
                self.retries.wait(attempt, None)
                continue
            if attempt < attempts and _may_resend(response, safe):
                self.retries.wait(attempt, response.headers.get("Retry-After"))
                continue
            return response
        raise AssertionError("unreachable: the last attempt returns or raises")

    def exchange(self, request: Request, fresh: bool = False) -> Response:
        """One try of a request, and its whole answer; the connection is closed if anything
        fails, so the next request opens a new one. A ``fresh`` request (one that is never sent
        twice) goes on a new connection, which the server cannot have closed while it sat idle."""
        method, path, data, headers = request.method, request.path, request.data, request.headers
        with self._lock:
            if fresh:
                self._connection.close()
            try:
                self._connection.request(method, self._prefix + path, data, dict(headers))
                response = self._connection.getresponse()
                body = response.read()
            except BaseException:
                self._connection.close()
                raise
            if response.will_close:
                self._connection.close()
            return Response(response.status, response.headers, body)

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        with self._lock:
            self._connection.close()


@dataclass
class TableLog:
    """One table's chain as this client has checked it, its card commitments, and what
    the engine checks a seat's statement against (SPEC 6.7)."""

    head: ChainHead
    commitments: dict[tuple[str | None, int], str] = field(default_factory=dict)
    hashes: list[bytes] = field(default_factory=list)  # by seq, as checked
    seeding: str | None = None  # the round opened and not yet sealed (nor voided)
    reveals_open: str | None = None  # that round, once seeds_committed opened its reveals
    version: int = SIGNED  # the chain's, its table_created's: a later event cannot lower it
    # version 2: each seat's bound key and last n, and the events a statement may name
    seats: SeatKeys = field(default_factory=lambda: NO_KEYS)
    seen: Seen = NOTHING_SEEN

    @property
    def after(self) -> dict[str, Any]:
        """The last checked event, as a seat's statement names the log it saw: {seq, hash}."""
        return {"seq": self.head.next_seq - 1, "hash": self.head.prev}

    def admit(self, event: Event) -> None:
        """Check the next event as the engine checked its command before logging it: a
        seat's statement (or key) by ``statements.admit``, as a replay does (``table.runs``),
        and logged exactly as the engine logs it; a table_state's seat keys, the ones the
        chain binds. A seat's event is always the first of its command's run."""
        if event.type == TABLE_STATE:
            listed = json_text(event.data.get(SEAT_KEYS))
            if self.version >= SIGNED and listed != json_text(statements.to_json(self.seats)):
                raise ReceiptChainError(
                    f"table {event.table} seq {event.seq}: table_state lists seat keys "
                    "other than the ones the chain binds"
                )
            return
        seat = actor_seat(event.actor)
        if seat is None:
            return
        command = Command.of(event)
        try:
            if self.version >= SIGNED:
                command = statements.as_sent(command)
            _, members = statements.admit(self.version, self.seats, self.seen, event.table, command)
        except GameError as e:
            raise SeatStatementError(event, seat, e.code, str(e)) from e
        for name, value in (members or {}).items():
            if name not in event.data or json_text(event.data[name]) != json_text(value):
                reason = f"its {name} is not logged as the engine logs it"
                raise SeatStatementError(event, seat, "mismatch", reason)

    def follow(self, event: Event, event_hash: bytes) -> None:
        """Where the table's seeding, and its seats' keys, stand after ``event``."""
        if self.version >= SIGNED:
            self.seats = statements.after(self.seats, [event.draft])
            self.seen = self.seen.then(event, event_hash.hex())
        if event.type == ROUND_OPENED:
            self.seeding, self.reveals_open = event.round, None
        elif event.type == SEEDS_COMMITTED:
            self.reveals_open = event.round
        elif event.type in (ROUND_SEALED, ROUND_VOIDED, ROUND_REVEALED):
            self.seeding = self.reveals_open = None


class FairdealClient:
    """A connection to one fairdeal service, and the chains it has checked.

    ``keys`` pins the service's signing keys; without them the keys ``/v1/keys`` lists now
    are pinned (trust on first use, in ``fetch_keys``) and every later receipt and bundle
    must verify under those. ``timeout`` bounds each read and connect, in seconds;
    ``retries`` says when a safe request is sent again. Seats come from ``create_table``
    and ``join``; several seats may share one client, and so one connection. Requests from
    several threads take turns on the connection, but the chains a client follows are not
    locked: give each thread that sends commands a client of its own.
    """

    def __init__(
        self,
        base_url: str,
        keys: KeySet | None = None,
        timeout: float = 10.0,
        retries: Retries | None = None,
    ) -> None:
        self.connection = Connection(base_url, timeout, retries)
        self.base_url, self.timeout = self.connection.base_url, timeout
        self.retries = self.connection.retries
        self.tables: dict[str, TableLog] = {}
        self.keys = keys if keys is not None else self.fetch_keys()

    def fetch_keys(self) -> KeySet:
        """Trust on first use: pin the keys the server lists now."""
        listed = self.request("GET", "/v1/keys")["keys"]
        return KeySet(load_public_key(k["public_key_pem"].encode()) for k in listed)

    def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        self.connection.close()

    def __enter__(self) -> Self:
        """``with FairdealClient(url) as client:`` closes the connection on the way out."""
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # Tables and seats

    def create_table(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        join: Mapping[str, Any] | None = None,
        keyless: bool = False,
    ) -> "SeatClient":
        """Create a table of ``game`` (a name the server knows: "toto21", "kvitlach") and take
        its seat 0, with a new key of its own (``keyless``: none; the operator alone then
        attests its moves).

        ``options`` are the game's (SPEC 11.1, 12.1); ``join`` the seat's (a Kvitlach
        ``buy_in``). The server refuses an idempotency key here, so this is sent again only
        after a 503 that stored nothing; a ClientError for a lost connection means the table
        may exist without its token.
        """
        key = _new_key(keyless)
        body = {"game": game, "options": dict(options or {}), "join": dict(join or {})}
        reply: SeatReply = self.request("POST", "/v1/tables", _with_key(body, key))
        return self._seat(reply, key)

    def join(
        self, table_id: str, join: Mapping[str, Any] | None = None, keyless: bool = False
    ) -> "SeatClient":
        """Take the lowest free seat of a table (a Toto21 joiner waits for the creator's
        decision), keyed as ``create_table``'s. Sent again only as ``create_table`` is."""
        key = _new_key(keyless)
        body = _with_key({"join": dict(join or {})}, key)
        reply: SeatReply = self.request("POST", f"/v1/tables/{table_id}/seats", body)
        return self._seat(reply, key)

    def _seat(self, reply: SeatReply, key: Ed25519PrivateKey | None) -> "SeatClient":
        signed = self.check_receipts(reply["table_id"], reply["events"])
        joined = [s for s in signed if s.event.type == SEAT_JOINED]
        event = _expect(joined, SEAT_JOINED, seat_actor(reply["seat"]))
        if event.data.get(KEY) != _public(key):
            raise StatementMismatchError("the seat_joined receipt does not bind this seat's key")
        return SeatClient(self, reply["table_id"], reply["seat"], reply["token"], key=key)

    # Bundles

    def bundle(self, round_id: str) -> dict[str, Any]:
        """A finished round's bundle, as the service sends it (JSON, not yet verified).

        Before the round's reveal: ServerRefusedError 409 ``round_not_finished``.
        """
        bundle: dict[str, Any] = self.request("GET", f"/v1/rounds/{round_id}/bundle")
        return bundle

    def verify_round(self, round_id: str, keys: Sequence[str] | None = None) -> Report:
        """Fetch a finished round's bundle and verify it here, as ``fairdeal-verify`` does:
        every SPEC 7 step, the round's inclusion in the log's signed checkpoint among them.

        ``keys`` are the keys to trust, as ``fairdeal-verify --key`` takes them (C2SP verifier
        key strings, or PEM files' paths); without them, the keys this client pinned (given
        to it, or listed by the server at its first contact). Keys that come inside the
        bundle are never trusted. Returns the VALID report; raises BundleInvalidError (its
        ``report`` lists the findings) for anything else.
        """
        return self.verify_bundle(round_id, self.bundle(round_id), keys)

    def verify_bundle(
        self, round_id: str, bundle: Any, keys: Sequence[str] | None = None
    ) -> Report:
        """Verify an already fetched ``bundle`` of ``round_id``, as ``verify_round`` does."""
        trust = load_trust(keys) if keys is not None else self.trust()
        report = verify_bundle(bundle, trust)
        if report.verdict != "valid" or _round_of(bundle) != round_id:
            raise BundleInvalidError(round_id, report)
        return report

    def trust(self) -> Trust:
        """The keys this client pinned, as the verifier takes them (a checkpoint of any log
        name, signed by a pinned key)."""
        public_keys = tuple(self.keys.public_key(kid) for kid in self.keys.ids())
        return Trust(public_keys, (None,) * len(public_keys))

    # Checking

    def check_receipts(
        self, table_id: str, events: Sequence[Receipt] | Sequence[Mapping[str, Any]]
    ) -> list[SignedEvent]:
        """Check new events against the chain; fetch and check any this client missed."""
        signed = [self._parse(raw) for raw in events]
        log = self.tables.get(table_id)
        start = signed[0].event.seq if signed else 0
        if (log is None and start > 0) or (log is not None and start > log.head.next_seq):
            self.sync(table_id)
            log = self.tables[table_id]
        for item in signed:
            log = self._follow(table_id, log, item)
        return signed

    def log(self, table_id: str) -> TableLog:
        """The table's chain as this client has checked it; fetched first if it has none."""
        return self.tables.get(table_id) or self.sync(table_id)

    def sync(self, table_id: str) -> TableLog:
        """Fetch the table's events this client has not checked yet, and check them."""
        log = self.tables.get(table_id)
        since: int | None = 0 if log is None else log.head.next_seq
        while since is not None:  # the chain comes a page at a time
            reply = self.request("GET", f"/v1/tables/{table_id}/events?from_seq={since}")
            for raw in reply["events"]:
                log = self._follow(table_id, log, self._parse(raw))
            since = reply["next_from_seq"]
        if log is None:
            raise ReceiptChainError(f"table {table_id} has no events")
        return log

    def _parse(self, raw: Any) -> SignedEvent:
        try:
            return SignedEvent.from_json(raw)
        except FairdealError as e:
            raise ReceiptError(f"a receipt is not a signed event: {e}") from e

    def _follow(self, table_id: str, log: TableLog | None, signed: SignedEvent) -> TableLog:
        head = ChainHead(table_id) if log is None else log.head
        if log is not None and signed.event.seq < head.next_seq:
            self._check_seen(table_id, log, signed)  # a receipt for events fetched by sync
            return log
        try:
            new_head = head.follow(signed, self.keys)
        except FairdealError as e:
            raise _receipt_error(e, f"table {table_id} seq {signed.event.seq}: {e}") from e
        event = signed.event
        log = log or TableLog(head, version=event.version)
        log.admit(event)
        log.head = new_head
        log.hashes.append(signed.hash)
        log.follow(event, signed.hash)
        if event.type == CARD_DEALT:
            # What a shown card must match: its commitment, or the card itself if dealt face up.
            dealt = event.data.get("commitment") or "card:" + str(event.data.get("card"))
            log.commitments[(event.round, event.data["position"])] = dealt
        self.tables[table_id] = log
        return log

    def _check_seen(self, table_id: str, log: TableLog, signed: SignedEvent) -> None:
        """An event sent again must be, signature and all, the one checked at its seq."""
        seq = signed.event.seq
        try:
            signed.check(self.keys)
        except FairdealError as e:
            raise _receipt_error(e, f"table {table_id} seq {seq}: {e}") from e
        if not hmac.compare_digest(signed.hash, log.hashes[seq]):
            raise ReceiptChainError(
                f"table {table_id} seq {seq}: not the event this client checked at that seq"
            )

    def check_private_cards(self, table_id: str, round_id: str | None, view: Any) -> int:
        """Every {position, card, salt} the view shows opens its signed commitment."""
        log = self.sync(table_id)
        checked = 0
        for shown in _private_cards(view):
            if not _opens(log.commitments, round_id, shown):
                raise CardCommitmentError(
                    f"card at position {shown['position']!r} does not match its signed commitment"
                )
            checked += 1
        return checked

    # HTTP

    def request(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> Any:
        """Send one JSON request on the kept-alive connection (``Connection.send``); its
        JSON answer, parsed. An error answer raises ServerRefusedError; a connection that
        failed (every try), ClientError.
        """
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        return _answer(method, path, self.connection.send(Request(method, path, data, sent)))


class SeatClient:
    """One seat at one table: its token, its key, and the commands it can send.

    Every command's reply is checked before it is returned (``FairdealClient.check_receipts``)
    and its first receipt must record the command, with the statement this seat signed
    (StatementMismatchError if not). A keyed seat numbers its statements from ``n`` + 1:
    ``n`` is the last the service accepted (a refused command uses none up). Each statement
    is made after the head of the chain this client follows; refused as stale (the table
    moved on: 409 ``signature_stale``) it is signed again after the head once caught up on,
    and refused as replayed (409 ``signature_replayed``: ``n`` lost count) above the seat's
    last n the service names, once each. Every command carries an ``Idempotency-Key``: a
    fresh random one unless given, so a retried command is applied once. Sent again with
    the same key after a restart of your program, a command already applied is refused
    409 ``idempotency_key_reused`` (its statement is made after another head), never
    applied twice: its receipts are in the chain.

    A seed committed (``seed``) is kept until its reveal: every call of this seat first
    reveals a kept seed whose round's reveals are open, and hands that reveal's reply to
    ``on_reveal`` (which does nothing unless replaced), as ``seed`` does when its own
    commitment opens the reveals. A program that must survive restarts keeps the seeds
    committed and not yet revealed (``seeds``, by round) and gives them back here.
    """

    def __init__(
        self,
        client: FairdealClient,
        table_id: str,
        seat: int,
        token: str,
        *,
        key: Ed25519PrivateKey | None = None,
        n: int = 0,
        seeds: Mapping[str, str] | None = None,
    ) -> None:
        self.client, self.table_id, self.seat, self.token = client, table_id, seat, token
        self.key, self.n = key, n
        self.seeds = dict(seeds or {})  # committed and not yet revealed, by round
        self.on_reveal: Callable[[str, EventsReply], None] = _ignore_reveal

    @property
    def public_key(self) -> str | None:
        """The seat's public key as bound (64 hex), or None for a keyless seat."""
        return _public(self.key)

    def open_round(self, idempotency_key: str | None = None) -> str:
        """Open the table's next round; its id. The server's seed commitment in the reply
        must be the one logged."""
        self._reveal_due()
        path = f"/v1/tables/{self.table_id}/rounds"
        reply: RoundOpenedReply = self._post(path, {}, idempotency_key)
        signed = self.client.check_receipts(self.table_id, reply["events"])
        opened = _expect(signed, ROUND_OPENED, SERVER)
        round_id = str(reply["round_id"])
        if opened.round != round_id or opened.data.get("commitment") != reply["commitment"]:
            raise ReceiptMismatchError("the round's id or commitment is not the one logged")
        return round_id

    def seed(
        self, round_id: str, seed: str | None = None, idempotency_key: str | None = None
    ) -> EventsReply:
        """Commit to a client seed (a fresh random one unless given) and keep it; the reply
        is the commitment's. The seed is revealed as soon as every seat has committed: at
        once if this commitment was the last, else at this seat's next call (or ``reveal``).
        For a round this seat already committed to, this is ``reveal``."""
        if round_id in self.seeds:
            return self.reveal(round_id, idempotency_key)
        self._reveal_due()
        seed = seed if seed is not None else secrets.token_hex(16)
        randomness.check_client_seed(seed)  # refused now, not at the reveal
        data = {"commitment": randomness.client_seed_commitment(round_id, self.seat, seed).hex()}
        path = f"/v1/rounds/{round_id}/seeds"
        reply: EventsReply = self._command(
            path, SEED_COMMITMENT, data, data, round_id=round_id, idempotency_key=idempotency_key
        )
        self.seeds[round_id] = seed
        self._reveal_due(self.client.tables[self.table_id])
        return reply

    def reveal(self, round_id: str, idempotency_key: str | None = None) -> EventsReply:
        """Send the seed this seat committed to for ``round_id`` (ValueError if none is
        kept), once the chain (caught up on first) shows the round's reveals open; before,
        RevealNotOpenError: a seed sent early would let whoever knows the server seed choose
        the deck against it."""
        seed = self.seeds.get(round_id)
        if seed is None:
            raise ValueError(f"seat {self.seat} keeps no committed seed of round {round_id}")
        if not self._reveals_open(round_id):
            raise RevealNotOpenError(
                f"round {round_id}'s reveals are not open (no seeds_committed in the chain): "
                f"seat {self.seat} keeps its seed"
            )
        data = {"seed": seed}
        path = f"/v1/rounds/{round_id}/seeds"
        reply: EventsReply = self._command(
            path, CLIENT_SEED, data, data, round_id=round_id, idempotency_key=idempotency_key
        )
        del self.seeds[round_id]
        return reply

    def act(
        self, round_id: str, kind: Action | str, idempotency_key: str | None = None, **data: Any
    ) -> EventsReply:
        """A move in the round: ``kind`` is an ``Action`` (or its string): ``HIT``, ``STAND``,
        ``BLIND`` (Toto21), ``BET``, ``OPEN_CARD``, ... (Kvitlach), with its data as keyword
        arguments (``act(r, Action.BET, amount=10)``)."""
        self._reveal_due()
        kind = str(kind)
        body = {"type": kind, "data": data}
        path = f"/v1/rounds/{round_id}/actions"
        reply: EventsReply = self._command(
            path, kind, data, body, round_id=round_id, idempotency_key=idempotency_key
        )
        return reply

    def table_act(
        self, kind: Action | str, idempotency_key: str | None = None, **data: Any
    ) -> EventsReply:
        """An action outside a round (Kvitlach: ``Action.SEAT_LEFT``, ``Action.BANKER_EXIT``)."""
        self._reveal_due()
        kind = str(kind)
        body = {"type": kind, "data": data}
        path = f"/v1/tables/{self.table_id}/actions"
        reply: EventsReply = self._command(
            path, kind, data, body, round_id=None, idempotency_key=idempotency_key
        )
        return reply

    def decide(self, seat: int, accept: bool, idempotency_key: str | None = None) -> EventsReply:
        """The Toto21 creator accepts (the match starts) or rejects the joiner at ``seat``."""
        self._reveal_due()
        path = f"/v1/tables/{self.table_id}/seats/{seat}/decision"
        kind = JOINER_ACCEPTED if accept else JOINER_REJECTED
        reply: EventsReply = self._command(
            path,
            kind,
            {"seat": seat},
            {"accept": accept},
            round_id=None,
            idempotency_key=idempotency_key,
        )
        return reply

    def view(self) -> TableView:
        """The table as this seat sees it, with its private cards checked."""
        self._reveal_due()
        reply: TableView = self.client.request(
            "GET", f"/v1/tables/{self.table_id}", headers={"Authorization": f"Bearer {self.token}"}
        )
        self.client.check_private_cards(self.table_id, reply["current_round"], reply["view"])
        return reply

    def _reveals_open(self, round_id: str) -> bool:
        """Whether the chain, caught up on unless it shows them already, has the round's
        reveals open."""
        if self.client.log(self.table_id).reveals_open == round_id:
            return True
        return self.client.sync(self.table_id).reveals_open == round_id

    def _reveal_due(self, log: TableLog | None = None) -> None:
        """Reveal each kept seed whose round's reveals are open, as ``log`` (else the table's
        chain, fetched up to now) shows them; forget one whose round went on without it."""
        if not self.seeds:
            return
        log = log or self.client.sync(self.table_id)
        for round_id in list(self.seeds):
            if round_id == log.reveals_open:
                self.on_reveal(round_id, self.reveal(round_id))
            elif round_id != log.seeding:
                del self.seeds[round_id]

    def _command(
        self,
        path: str,
        kind: str,
        data: dict[str, Any],
        body: dict[str, Any],
        *,
        round_id: str | None,
        idempotency_key: str | None,
    ) -> Any:
        """POST this seat's command ``kind`` of ``data`` as ``body`` (``_send``), signed
        again once after each refusal ``_recover`` can mend."""
        key = idempotency_key or new_idempotency_key()  # a refusal keeps nothing under it
        mended: set[str] = set()
        while True:
            try:
                return self._send(path, kind, data, body, round_id=round_id, idempotency_key=key)
            except ServerRefusedError as e:
                if e.code in mended or not self._recover(e):
                    raise
                mended.add(e.code)

    def _send(
        self,
        path: str,
        kind: str,
        data: dict[str, Any],
        body: dict[str, Any],
        *,
        round_id: str | None,
        idempotency_key: str,
    ) -> Any:
        """POST the command, signed by a keyed seat after the chain's head as this client
        knows it; check the receipts, and that the first records the command as signed."""
        n = self.n + 1
        signed = None
        if self.key is not None:
            after = self.client.log(self.table_id).after
            sent = statements.signed_data(
                self.key, self.table_id, round_id, self.seat, n=n, after=after, kind=kind, data=data
            )
            signed = sent[SIGNATURE]
            body = {**body, SIGNATURE: signed}
        try:
            reply = self._post(path, body, idempotency_key)
        except ServerRefusedError:
            raise  # refused: the statement's n is not used up
        except ClientError:
            self.n = n  # it may have been applied: never sign another statement with this n
            raise
        self.n = n
        receipts = self.client.check_receipts(self.table_id, reply["events"])
        event = _expect(receipts, kind, seat_actor(self.seat), round_id)
        logged = None if signed is None else {**signed, "data": data}
        if json_text(event.data.get(SIGNATURE)) != json_text(logged):
            raise StatementMismatchError(
                f"the receipt of {kind} does not log the statement seat {self.seat} signed"
            )
        return reply

    def _recover(self, refusal: ServerRefusedError) -> bool:
        """Whether a keyed seat's refused statement may be signed again, mended: after the
        head once the chain is caught up on (``signature_stale``), or above the last n the
        service names (``signature_replayed``)."""
        if self.key is None:
            return False
        if refusal.code == "signature_stale":
            self.client.sync(self.table_id)
            return True
        details = refusal.details if isinstance(refusal.details, dict) else {}
        last_n = details.get("last_n")
        if refusal.code == "signature_replayed" and type(last_n) is int and last_n > self.n:
            self.n = last_n
            return True
        return False

    def _post(self, path: str, body: Any, idempotency_key: str | None) -> Any:
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Idempotency-Key": idempotency_key or new_idempotency_key(),
        }
        return self.client.request("POST", path, body, headers)


def new_idempotency_key() -> str:
    """A fresh random Idempotency-Key (printable ASCII, well under the 128-character limit)."""
    return "sdk-" + secrets.token_urlsafe(18)


def _new_key(keyless: bool) -> Ed25519PrivateKey | None:
    return None if keyless else Ed25519PrivateKey.generate()


def _public(key: Ed25519PrivateKey | None) -> str | None:
    return None if key is None else statements.public_key_hex(key)


def _with_key(body: dict[str, Any], key: Ed25519PrivateKey | None) -> dict[str, Any]:
    """A create or join body, with the seat's public key if it has one."""
    return body if key is None else {**body, KEY: _public(key)}


def _ignore_reveal(round_id: str, reply: EventsReply) -> None:
    pass


def _connection(parts: urllib.parse.SplitResult, timeout: float) -> http.client.HTTPConnection:
    host = parts.hostname or ""
    if parts.scheme == "https":
        return http.client.HTTPSConnection(host, parts.port, timeout=timeout)
    return http.client.HTTPConnection(host, parts.port, timeout=timeout)


def _may_resend(response: Response, safe: bool) -> bool:
    """A 503 ``database_unavailable`` may be sent again: a safe request always, any other
    only when nothing was stored (``details.outcome`` ``rolled_back``)."""
    if response.status != 503:
        return False
    try:
        error = response.json["error"]
        outcome = (error.get("details") or {}).get("outcome")
    except (ValueError, KeyError, TypeError, AttributeError):
        return False
    return error.get("code") == "database_unavailable" and (safe or outcome == "rolled_back")


def _answer(method: str, path: str, response: Response) -> Any:
    """The parsed body of a 2xx; otherwise the ServerRefusedError its error body names."""
    if not 200 <= response.status < 300:
        raise _refusal(response)
    try:
        return response.json
    except ValueError as e:
        raise ClientError(f"{method} {path}: the answer is not JSON: {e}") from e


def _round_of(bundle: Any) -> Any:
    return bundle.get("round_id") if isinstance(bundle, dict) else None


def _receipt_error(error: FairdealError, message: str) -> ReceiptError:
    if isinstance(error, (SignatureError, HashMismatchError)):
        return ReceiptSignatureError(message)
    return ReceiptChainError(message)


def _expect(signed: list[SignedEvent], kind: str, actor: str, round_id: str | None = None) -> Event:
    """The receipt that records the request: the first (after the table_state the engine
    logs first at rest, SPEC 6.6), of its type, its actor and (if named) its round."""
    own = [s.event for s in signed if s.event.type != TABLE_STATE]
    first = own[0] if own else None
    if first is None or (first.type, first.actor) != (kind, actor):
        raise ReceiptMismatchError(f"the reply has no receipt of {kind} by {actor}")
    if round_id is not None and first.round != round_id:
        raise ReceiptMismatchError(f"the receipt of {kind} is for round {first.round}")
    return first


def _opens(
    commitments: Mapping[tuple[str | None, int], str], round_id: str | None, shown: Any
) -> bool:
    """The shown card is the face-up card dealt there, or opens the commitment dealt there."""
    try:
        expected = commitments.get((round_id, shown["position"]), "")
        if expected.startswith("card:"):
            actual = "card:" + str(shown["card"])
        else:
            salt = bytes.fromhex(shown["salt"])
            actual = randomness.card_commitment(salt, shown["card"]).hex()
    except (TypeError, ValueError, AttributeError):
        return False  # an unhashable position, a salt that is not 32 bytes of hex, no card text
    return hmac.compare_digest(expected, actual)


def _private_cards(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if {"position", "card", "salt"} <= value.keys():
            yield value
        for item in value.values():
            yield from _private_cards(item)
    elif isinstance(value, list):
        for item in value:
            yield from _private_cards(item)


def _refusal(response: Response) -> ServerRefusedError:
    status = response.status
    try:
        body = response.json["error"]
        return ServerRefusedError(status, body["code"], body["message"], body.get("details"))
    except (ValueError, KeyError, TypeError):
        reason = http.client.responses.get(status, "")
        return ServerRefusedError(status, "unreadable_error", reason)
