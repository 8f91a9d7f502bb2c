// What the blind layer finds wrong with given data, class for class the Python tree
// (fairdeal/blind/) so that `instanceof` sorts errors as `except` does. A caller's own
// mistakes stay TypeError / RangeError.

import { FairdealError } from "../engine/errors.js";

/** Dealer-blind data that fails a check (SPEC 15). */
export class BlindError extends FairdealError {}

/** A value not of its stated form (SPEC 15.2, 15.9): bad hex, a missing or extra member. */
export class BlindEncodingError extends BlindError {}

/** Bytes that are not the canonical encoding of a ristretto255 element (SPEC 15.2). */
export class InvalidElementError extends BlindEncodingError {}

/** A round key that is the identity O (SPEC 15.3). */
export class IdentityKeyError extends InvalidElementError {}

/** Bytes that are not a canonical scalar: 32 bytes little-endian, below ℓ (SPEC 15.2). */
export class InvalidScalarError extends BlindEncodingError {}

/** A proof that does not verify for its statement and context (SPEC 15.6, 15.7). */
export class BadProofError extends BlindError {}

/** A decryption that is none of the round's card points: a broken deck or share (15.8). */
export class NotACardError extends BlindError {}

/** A revealed private round key whose multiple of G is not the party's round key (15.5). */
export class WrongRevealedKeyError extends BlindError {}

/**
 * A shuffle step that is refused (SPEC 15.11.7), the finding `shuffle_invalid`; `step` names
 * the check that failed: "shape", "encodings", or an equation ("t1" … "t42", "t_hat[i]",
 * i 0-based as in the vectors).
 */
export class ShuffleProofError extends BlindError {
  static code = "shuffle_invalid";

  constructor(step, message) {
    super(`${step}: ${message}`);
    this.step = step;
  }

  get code() {
    return ShuffleProofError.code;
  }
}

/** A step of the wrong shape: lengths, members, encodings, an identity joint key (1–2). */
export class MalformedShuffleProofError extends ShuffleProofError {}

/** A well-formed proof whose equation fails (step 5): not a shuffle of the input deck. */
export class InvalidShuffleProofError extends ShuffleProofError {}

/** A service's shuffle step that is not the one its shuffle key gives (15.12.3;
 * `blind.server_step`). ``where`` names the first difference (``deck[2]``, ``proof.s4``). */
export class ServerStepMismatchError extends BlindError {
  static code = "blind.server_step";

  constructor(where, message) {
    super(`${where}: ${message}`);
    this.where = where;
  }

  get code() {
    return ServerStepMismatchError.code;
  }
}

/** A proof the service has just made that does not verify (a fault): never returned, as SPEC
 * 15.12.2 requires of every proof the service makes (Python's `rounds.OwnProofError`). */
export class OwnProofError extends BlindError {}
