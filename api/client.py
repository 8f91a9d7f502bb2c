"""A Python client for game programs that checks every receipt the moment it arrives.

Each response's events are checked against the server's pinned keys and the table's
hash chain as this client has followed it (events it did not see are fetched and
checked too; an event sent again must be the one checked at its seq), each reply must
record the request it answers, and every private card the server shows this seat is
checked against the commitment signed when it was dealt. Any disagreement raises a
ReceiptError at once.
Uses only the standard library, ``cryptography`` and the pure core.
"""

import hmac
import json
import secrets
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from fairdeal import randomness
from fairdeal.errors import FairdealError, HashMismatchError, SignatureError
from fairdeal.events import SERVER, ChainHead, SignedEvent, seat_actor
from fairdeal.keys import KeySet, load_public_key


class ClientError(FairdealError):
    """The client could not complete a request."""


class ServerRefusedError(ClientError):
    """The server answered with an error body."""

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


@dataclass
class TableLog:
    """One table's chain as this client has checked it, and its card commitments."""

    head: ChainHead
    commitments: dict[tuple[str | None, int], str] = field(default_factory=dict)
    hashes: list[bytes] = field(default_factory=list)  # by seq, as checked


class FairdealClient:
    def __init__(self, base_url: str, keys: KeySet | None = None, timeout: float = 10.0) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ClientError("the service URL must start with http:// or https://")
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.keys = keys if keys is not None else self.fetch_keys()
        self.tables: dict[str, TableLog] = {}

    def fetch_keys(self) -> KeySet:
        """Trust on first use: pin the keys the server lists now."""
        listed = self.request("GET", "/v1/keys")["keys"]
        return KeySet(load_public_key(k["public_key_pem"].encode()) for k in listed)

    # Tables and seats

    def create_table(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        join: Mapping[str, Any] | None = None,
    ) -> "SeatClient":
        body = {"game": game, "options": dict(options or {}), "join": dict(join or {})}
        reply = self.request("POST", "/v1/tables", body)
        return self._seat(reply)

    def join(self, table_id: str, join: Mapping[str, Any] | None = None) -> "SeatClient":
        reply = self.request("POST", f"/v1/tables/{table_id}/seats", {"join": dict(join or {})})
        return self._seat(reply)

    def _seat(self, reply: Mapping[str, Any]) -> "SeatClient":
        signed = self.check_receipts(reply["table_id"], reply["events"])
        joined = [s for s in signed if s.event.type == "seat_joined"]
        _expect(joined, "seat_joined", seat_actor(reply["seat"]))
        return SeatClient(self, reply["table_id"], reply["seat"], reply["token"])

    # Checking

    def check_receipts(self, table_id: str, events: list[dict[str, Any]]) -> list[SignedEvent]:
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

    def sync(self, table_id: str) -> TableLog:
        """Fetch the table's events this client has not checked yet, and check them."""
        log = self.tables.get(table_id)
        since = 0 if log is None else log.head.next_seq
        reply = self.request("GET", f"/v1/tables/{table_id}/events?from_seq={since}")
        for raw in reply["events"]:
            log = self._follow(table_id, log, self._parse(raw))
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
        log = log or TableLog(head)
        log.head = new_head
        log.hashes.append(signed.hash)
        event = signed.event
        if event.type == "card_dealt":
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
        data = None if body is None else json.dumps(body).encode()
        # The scheme was checked to be http(s) in __init__.
        request = urllib.request.Request(self.base_url + path, data=data, method=method)  # noqa: S310
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                return json.loads(response.read())
        except urllib.error.HTTPError as e:
            raise _refusal(e) from None
        except (urllib.error.URLError, OSError, ValueError) as e:
            raise ClientError(f"{method} {path}: {e}") from e


class SeatClient:
    """One seat at one table: its token, and the actions it can send."""

    def __init__(self, client: FairdealClient, table_id: str, seat: int, token: str) -> None:
        self.client, self.table_id, self.seat, self.token = client, table_id, seat, token

    def _send(
        self,
        path: str,
        body: Any,
        kind: str,
        round_id: str | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """POST, check the receipts, and check the first one records this seat's ``kind``."""
        headers = {"Authorization": f"Bearer {self.token}"}
        if idempotency_key:
            headers["Idempotency-Key"] = idempotency_key
        reply = self.client.request("POST", path, body, headers)
        signed = self.client.check_receipts(self.table_id, reply["events"])
        actor = SERVER if kind == "round_opened" else seat_actor(self.seat)
        _expect(signed, kind, actor, round_id)
        return reply

    def open_round(self, idempotency_key: str | None = None) -> str:
        path = f"/v1/tables/{self.table_id}/rounds"
        reply = self._send(path, {}, "round_opened", idempotency_key=idempotency_key)
        round_id = str(reply["round_id"])
        opened = SignedEvent.from_json(reply["events"][0]).event  # checked by _send
        if opened.round != round_id or opened.data.get("commitment") != reply["commitment"]:
            raise ReceiptMismatchError("the round's id or commitment is not the one logged")
        return round_id

    def seed(self, round_id: str, seed: str | None = None) -> Any:
        """Contribute a client seed: a fresh random one unless given."""
        seed = seed if seed is not None else secrets.token_hex(16)
        return self._send(f"/v1/rounds/{round_id}/seeds", {"seed": seed}, "client_seed", round_id)

    def act(self, round_id: str, kind: str, idempotency_key: str | None = None, **data: Any) -> Any:
        body = {"type": kind, "data": data}
        path = f"/v1/rounds/{round_id}/actions"
        return self._send(path, body, kind, round_id, idempotency_key)

    def table_act(self, kind: str, **data: Any) -> Any:
        body = {"type": kind, "data": data}
        return self._send(f"/v1/tables/{self.table_id}/actions", body, kind)

    def decide(self, seat: int, accept: bool) -> Any:
        path = f"/v1/tables/{self.table_id}/seats/{seat}/decision"
        kind = "joiner_accepted" if accept else "joiner_rejected"
        return self._send(path, {"accept": accept}, kind)

    def view(self) -> Any:
        """The table as this seat sees it, with its private cards checked."""
        reply = self.client.request(
            "GET", f"/v1/tables/{self.table_id}", headers={"Authorization": f"Bearer {self.token}"}
        )
        self.client.check_private_cards(self.table_id, reply["current_round"], reply["view"])
        return reply


def _receipt_error(error: FairdealError, message: str) -> ReceiptError:
    if isinstance(error, (SignatureError, HashMismatchError)):
        return ReceiptSignatureError(message)
    return ReceiptChainError(message)


def _expect(signed: list[SignedEvent], kind: str, actor: str, round_id: str | None = None) -> None:
    """The first receipt records the request: its type, its actor and (if named) its round."""
    first = signed[0].event if signed else None
    if first is None or (first.type, first.actor) != (kind, actor):
        raise ReceiptMismatchError(f"the reply has no receipt of {kind} by {actor}")
    if round_id is not None and first.round != round_id:
        raise ReceiptMismatchError(f"the receipt of {kind} is for round {first.round}")


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


def _refusal(error: urllib.error.HTTPError) -> ServerRefusedError:
    try:
        body = json.loads(error.read())["error"]
        return ServerRefusedError(error.code, body["code"], body["message"], body.get("details"))
    except (ValueError, KeyError, TypeError):
        return ServerRefusedError(error.code, "unreadable_error", error.reason or "")
