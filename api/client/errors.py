"""What the client raises: ``ClientError`` for a request it could not complete, its
``ServerRefusedError`` for an error answer, and ``ReceiptError`` when the server's word and
its signed log disagree."""

from typing import Any

from fairdeal.errors import FairdealError
from fairdeal.events import Event
from fairdeal.verifier import Report


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
