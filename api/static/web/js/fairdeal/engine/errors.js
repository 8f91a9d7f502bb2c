// fairdeal/errors.py, the part the rules raise and the replay reports (SPEC 6.1's codes).
// Exports: FairdealError, EventError, EventSchemaError, ReplayMismatchError,
// StateMismatchError, GameError, OptionsError, IllegalActionError, OutOfTurnError,
// SealedError, SeedError, CommitmentError, SeatKeyError, KeyRequiredError, KeyInvalidError,
// ShuffleInvalidError, ShareInvalidError, KeyMismatchError, SeatSignatureError,
// SignatureMissingError, SignatureReplayedError, SignatureStaleError,
// SignatureUnexpectedError, LimitError, NotDueError.
//
// The Python tree, class for class, so that `instanceof` sorts errors as `except` does.
// This is not ../errors.js's FairdealError (the browser verifier's findings): a GameError's
// `code` is SPEC 6.1's refusal code, which rules.js maps to a finding code.

export class FairdealError extends Error {
  constructor(message = "") {
    super(message);
    this.name = new.target.name;
  }
}

export class EventError extends FairdealError {}

/** An event that is not of the logged shape (missing field, wrong type). */
export class EventSchemaError extends EventError {}

/** A logged event that is not what the rules decide from the events before it. */
export class ReplayMismatchError extends EventError {
  constructor(seq, reason) {
    super(`seq ${seq}: ${reason}`);
    this.seq = seq;
    this.reason = reason;
  }
}

/** A table_state whose data are not the table the events before it leave (SPEC 6.6). */
export class StateMismatchError extends ReplayMismatchError {}

/** A command the rules refuse; `code` (on the class and its instances) is stable. */
export class GameError extends FairdealError {
  static code = "illegal_action";

  get code() {
    return this.constructor.code;
  }
}

export class OptionsError extends GameError {
  static code = "invalid_options";
}

export class IllegalActionError extends GameError {
  static code = "illegal_action";
}

export class OutOfTurnError extends IllegalActionError {
  static code = "out_of_turn";
}

export class SealedError extends IllegalActionError {
  static code = "round_sealed";
}

export class SeedError extends IllegalActionError {
  static code = "invalid_seed";
}

export class CommitmentError extends IllegalActionError {
  static code = "commitment_mismatch";
}

/** A key a seat may not bind; its code is illegal_action, the verifier names it sig.seat_key. */
export class SeatKeyError extends IllegalActionError {}

/** A seat without a key at a dealer-blind table, where every seat is a party to the round's
 * cryptography (SPEC 15.13.1). */
export class KeyRequiredError extends SeatKeyError {
  static code = "key_required";
}

/** A seat's round key that is not an element, is the identity or another party's, or whose
 * proof of knowledge does not verify (SPEC 15.13.3.2). */
export class KeyInvalidError extends IllegalActionError {
  static code = "key_invalid";
}

/** A seat's shuffle step whose proof does not verify for its input deck (SPEC 15.13.5.3). */
export class ShuffleInvalidError extends IllegalActionError {
  static code = "shuffle_invalid";
}

/** A decryption share that is not an element or whose proof does not verify (SPEC 15.13.6.3). */
export class ShareInvalidError extends IllegalActionError {
  static code = "share_invalid";
}

/** A revealed round key that is not the private key of the seat's logged one (SPEC 15.13.7.3). */
export class KeyMismatchError extends IllegalActionError {
  static code = "key_mismatch";
}

export class SeatSignatureError extends IllegalActionError {
  static code = "signature_invalid";
}

export class SignatureMissingError extends SeatSignatureError {
  static code = "signature_missing";
}

export class SignatureReplayedError extends SeatSignatureError {
  static code = "signature_replayed";
}

export class SignatureStaleError extends SeatSignatureError {
  static code = "signature_stale";
}

export class SignatureUnexpectedError extends SeatSignatureError {
  static code = "signature_unexpected";
}

export class LimitError extends IllegalActionError {
  static code = "over_limit";
}

export class NotDueError extends IllegalActionError {
  static code = "not_due";
}
