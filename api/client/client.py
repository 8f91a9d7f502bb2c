"""The client: ``FairdealClient``, a connection to one service and the chains it has checked,
and ``SeatClient``, one seat at one table and the commands it sends, each reply checked
before it is returned."""

import hmac
import json
import secrets
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Self

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from fairdeal import randomness, statements
from fairdeal.canonical import json_text
from fairdeal.errors import FairdealError
from fairdeal.events import ChainHead, SignedEvent, seat_actor
from fairdeal.games.toto21.party import Party
from fairdeal.keys import KeySet, load_public_key
from fairdeal.protocol import (
    CARD_DEALT,
    CLIENT_SEED,
    DECK_SHUFFLED,
    DECRYPTION_SHARES,
    JOINER_ACCEPTED,
    JOINER_REJECTED,
    ROUND_KEY,
    ROUND_OPENED,
    SEAT_JOINED,
    SEED_COMMITMENT,
    SERVER,
)
from fairdeal.statements import BLIND, KEY, SIGNATURE
from fairdeal.verifier import Report, Trust, load_trust, verify_bundle

from .errors import (
    BundleInvalidError,
    CardCommitmentError,
    ClientError,
    ReceiptChainError,
    ReceiptError,
    ReceiptMismatchError,
    RevealNotOpenError,
    ServerRefusedError,
    StatementMismatchError,
)
from .receipts import TableLog, expect_receipt, opens_commitment, private_cards, receipt_error
from .replies import Action, EventsReply, Receipt, RoundOpenedReply, SeatReply, TableView
from .transport import Connection, Request, Retries, json_answer, new_idempotency_key

MAX_ANSWERS = 8  # answers a blind round may owe at once: commitment, reveal, step, shares, key


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
        event = expect_receipt(joined, SEAT_JOINED, seat_actor(reply["seat"]))
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
            raise receipt_error(e, f"table {table_id} seq {signed.event.seq}: {e}") from e
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
            raise receipt_error(e, f"table {table_id} seq {seq}: {e}") from e
        if not hmac.compare_digest(signed.hash, log.hashes[seq]):
            raise ReceiptChainError(
                f"table {table_id} seq {seq}: not the event this client checked at that seq"
            )

    def check_private_cards(self, table_id: str, round_id: str | None, view: Any) -> int:
        """Every {position, card, salt} the view shows opens its signed commitment."""
        log = self.sync(table_id)
        checked = 0
        for shown in private_cards(view):
            if not opens_commitment(log.commitments, round_id, shown):
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
        return json_answer(method, path, self.connection.send(Request(method, path, data, sent)))


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

    At a dealer-blind table (SPEC 15.13) the seat is also a party to each round: ``party``
    keeps its private round key in memory, ``answer_pending`` sends what the checked chain
    asks of it, and ``own_cards`` opens its face-down cards.

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
        self.parties: dict[str, Party] = {}  # a dealer-blind table's: this seat's, by round
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
        opened = expect_receipt(signed, ROUND_OPENED, SERVER)
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
        For a round this seat already committed to, this is ``reveal``. At a dealer-blind
        table the commitment carries the round key of this seat's ``party`` for the round."""
        if round_id in self.seeds:
            return self.reveal(round_id, idempotency_key)
        self._reveal_due()
        seed = seed if seed is not None else secrets.token_hex(16)
        randomness.check_client_seed(seed)  # refused now, not at the reveal
        commitment = randomness.client_seed_commitment(round_id, self.seat, seed).hex()
        data: dict[str, Any] = {"commitment": commitment}
        if self.client.log(self.table_id).version >= BLIND:  # with this seat's round key
            data = self.party(round_id).commitment_data(commitment)
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

    # Dealer-blind tables (SPEC 15.13)

    def party(self, round_id: str) -> Party:
        """This seat's party to a dealer-blind round: its private round key, made here for
        the round and kept in this object's memory only (a program that loses it mid-round
        cannot answer, and its seat loses the round at the next deadline)."""
        party = self.parties.get(round_id)
        if party is None:
            self.parties = {round_id: Party(self.seat, self.table_id, round_id)}
            party = self.parties[round_id]
        return party

    def game_state(self) -> Any:
        """A dealer-blind table's game state (Toto21's ``State``), folded by the rules from
        the table's chain as this client checked it, caught up on first. ValueError at any
        other table (its view is ``view``)."""
        log = self.client.sync(self.table_id)
        if log.version < BLIND or log.state is None:
            raise ValueError(f"table {self.table_id} is not a dealer-blind table")
        return log.state

    def answer_pending(self) -> list[str]:
        """Send, as this seat's party, every answer its dealer-blind table's round asks of it
        now, each only once the chain (caught up on, every proof checked by the party) asks
        it: the seed commitment with the round key, the seed once the reveals open, the
        shuffle step, the decryption shares, the round key at the showdown. Returns the
        command types sent, in order ([]: nothing is owed now; the seat's moves are its
        player's: ``act``). ``PartyRefusedError`` if the log asks what the party must not
        give: stop playing this table and keep its chain as evidence."""
        sent: list[str] = []
        while (kind := self._owed()) is not None:
            if len(sent) == MAX_ANSWERS:  # a round never asks this many at once
                raise ClientError(f"the table still asks seat {self.seat} for {kind}: {sent}")
            self._answer(kind)
            sent.append(kind)
        return sent

    def own_cards(self) -> dict[int, str]:
        """This seat's face-down cards in the current round of a dealer-blind table, by
        position, each opened here with every published share checked and this seat's own
        (never sent before the showdown); {} when there is none (yet)."""
        state = self.game_state()
        current = state.round
        if current is None or state.hand is None or current.round_id not in self.parties:
            return {}
        events = self.client.log(self.table_id).round_events
        opened: dict[int, str] = self.parties[current.round_id].own_cards(state, events)
        return opened

    def _owed(self) -> str | None:
        """The answer this seat owes the blind round now, if any, as the rules list it."""
        log = self.client.sync(self.table_id)
        if log.game is None or log.version < BLIND:
            raise ValueError(f"table {self.table_id} is not a dealer-blind table")
        legal = log.game.legal_actions(log.state, self.seat, None)
        owed = (SEED_COMMITMENT, CLIENT_SEED, DECK_SHUFFLED, DECRYPTION_SHARES, ROUND_KEY)
        return next((kind for kind in owed if kind in legal), None)

    def _answer(self, kind: str) -> None:
        log = self.client.log(self.table_id)
        state = log.state
        round_id = state.round.round_id
        if kind == SEED_COMMITMENT:
            self.seed(round_id)
        elif kind == CLIENT_SEED:
            self.reveal(round_id)
        elif kind == DECK_SHUFFLED:
            self.act(round_id, kind, **self.party(round_id).step(state, log.round_events))
        elif kind == DECRYPTION_SHARES:
            self.act(round_id, kind, **self.party(round_id).shares(state, log.round_events))
        else:
            self.act(round_id, kind, **self.party(round_id).reveal(state, log.round_events))

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
        event = expect_receipt(receipts, kind, seat_actor(self.seat), round_id)
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


def _new_key(keyless: bool) -> Ed25519PrivateKey | None:
    return None if keyless else Ed25519PrivateKey.generate()


def _public(key: Ed25519PrivateKey | None) -> str | None:
    return None if key is None else statements.public_key_hex(key)


def _with_key(body: dict[str, Any], key: Ed25519PrivateKey | None) -> dict[str, Any]:
    """A create or join body, with the seat's public key if it has one."""
    return body if key is None else {**body, KEY: _public(key)}


def _ignore_reveal(round_id: str, reply: EventsReply) -> None:
    pass


def _round_of(bundle: Any) -> Any:
    return bundle.get("round_id") if isinstance(bundle, dict) else None
