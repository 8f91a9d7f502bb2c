"""One tree of errors for everything the core can find wrong.

Caller misuse (a wrong type, an impossible argument) stays ValueError/TypeError;
these are for untrusted data that fails a check.
"""


class FairdealError(Exception):
    """Base of every error the core raises about data it was given."""


class EncodingError(FairdealError):
    """A value has no canonical encoding (a float, a huge integer, a bad string)."""


class SignatureError(FairdealError):
    """A signature that does not verify."""


class BadSignatureError(SignatureError):
    """The signature is not the named key's signature over this data."""


class UnknownKeyError(SignatureError):
    """The data names a key id that is not among the trusted keys."""


class KeyFileError(FairdealError):
    """A key file that cannot be read as the expected kind of key."""


class EventError(FairdealError):
    """An event or a chain of events that fails a check."""


class EventSchemaError(EventError):
    """An event that is not of the logged shape (missing field, wrong type)."""


class HashMismatchError(EventError):
    """The hash stated beside an event is not the hash of its canonical bytes."""


class ChainGapError(EventError):
    """A ``seq`` that does not follow the previous one by exactly one."""


class ChainForkError(EventError):
    """A ``prev`` that is not the hash of the event before it."""


class WrongTableError(EventError):
    """An event of another table inside this table's chain."""


class TimeWentBackError(EventError):
    """An event stamped earlier than the event before it."""


class GameError(FairdealError):
    """A command the rules refuse. ``code`` is stable: the API and the verifier report it."""

    code = "illegal_action"


class OptionsError(GameError):
    """Table options or match conditions outside what the rules allow."""

    code = "invalid_options"


class IllegalActionError(GameError):
    """An action the rules do not allow in this state."""

    code = "illegal_action"


class OutOfTurnError(IllegalActionError):
    """A seat acting when it is not its turn."""

    code = "out_of_turn"


class SealedError(IllegalActionError):
    """A client seed offered after the round was sealed."""

    code = "round_sealed"


class SeedError(IllegalActionError):
    """A client seed that cannot be used (empty, too long, not printable ASCII)."""

    code = "invalid_seed"


class CommitmentError(IllegalActionError):
    """A client seed that does not open the commitment its seat logged (SPEC 3.9)."""

    code = "commitment_mismatch"


class SeatKeyError(IllegalActionError):
    """A key a seat may not bind: not 64 lowercase hex, or not strong (SPEC 6.7). Refused
    as any illegal action; the verifier names it apart (``sig.seat_key``)."""


class KeyRequiredError(SeatKeyError):
    """A seat without a key at a dealer-blind table, where every seat is a party to the
    round's cryptography (SPEC 15.13.1)."""

    code = "key_required"


class KeyInvalidError(IllegalActionError):
    """A seat's round key that is not an element, is the identity or another party's, or
    whose proof of knowledge does not verify (SPEC 15.13.3.2)."""

    code = "key_invalid"


class ShuffleInvalidError(IllegalActionError):
    """A seat's shuffle step whose proof does not verify for its input deck (SPEC 15.13.5.3)."""

    code = "shuffle_invalid"


class ShareInvalidError(IllegalActionError):
    """A decryption share that is not an element or whose proof does not verify (SPEC
    15.13.6.3)."""

    code = "share_invalid"


class KeyMismatchError(IllegalActionError):
    """A revealed round key that is not the private key of the seat's logged one (SPEC
    15.13.7.3)."""

    code = "key_mismatch"


class SeatSignatureError(IllegalActionError):
    """A seat's command whose statement signature is missing, wrong or used before (SPEC
    6.7). ``code`` tells which; the verifier reports each under its own finding code."""

    code = "signature_invalid"


class SignatureMissingError(SeatSignatureError):
    """A keyed seat's command without its signature."""

    code = "signature_missing"


class SignatureReplayedError(SeatSignatureError):
    """A statement number not above the seat's last: a statement used twice, or out of order."""

    code = "signature_replayed"


class SignatureStaleError(SeatSignatureError):
    """A statement made after an event the table no longer takes: a view older than the
    last table_state, or a reveal made before the reveals opened. Look again and re-sign."""

    code = "signature_stale"


class SignatureUnexpectedError(SeatSignatureError):
    """A signature on a keyless seat's command, or a key where the table takes none."""

    code = "signature_unexpected"


class LimitError(IllegalActionError):
    """A bet over the maximum, over the bank's uncovered funds, or over the seat's balance."""

    code = "over_limit"


class NotDueError(IllegalActionError):
    """A timeout claimed before its deadline."""

    code = "not_due"


class ReplayMismatchError(EventError):
    """A logged event that is not what the rules decide from the events before it: the
    event at ``seq`` (or the last one, for a log that ends too soon), ``reason`` says how."""

    def __init__(self, seq: int, reason: str) -> None:
        super().__init__(seq, reason)  # both, so that it pickles
        self.seq, self.reason = seq, reason

    def __str__(self) -> str:
        return f"seq {self.seq}: {self.reason}"


class StateMismatchError(ReplayMismatchError):
    """A ``table_state`` whose data are not the table the events before it leave (SPEC
    6.6): a snapshot that lies about balances, seats or the banker."""
