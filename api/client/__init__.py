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

At a dealer-blind table (SPEC 15.13) each seat is a party to every round: ``SeatClient`` keeps
its private round key in memory (``party``), answers what the checked chain asks of it
(``answer_pending``: the key with the commitment, the shuffle step, the decryption shares, the
key at the showdown) and opens its own face-down cards (``own_cards``); ``PartyRefusedError``
when the log asks what a party must never give.
"""

from fairdeal.games.toto21.party import PartyRefusedError
from fairdeal.verifier import Finding, Report

from .client import FairdealClient, SeatClient
from .errors import (
    BundleInvalidError,
    CardCommitmentError,
    ClientError,
    ReceiptChainError,
    ReceiptError,
    ReceiptMismatchError,
    ReceiptSignatureError,
    RevealNotOpenError,
    SeatStatementError,
    ServerRefusedError,
    StatementMismatchError,
)
from .receipts import TableLog
from .replies import (
    Action,
    EventsReply,
    GameView,
    LoggedEvent,
    Receipt,
    RoundOpenedReply,
    RoundView,
    SeatReply,
    TableView,
)
from .transport import Connection, Request, Response, Retries, new_idempotency_key

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
    "PartyRefusedError",
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
