// SPEC 15.6 and 15.7: the Schnorr proof of knowledge of a round key and the Chaum–Pedersen
// proof of a decryption share, each bound to a context. A proof is {c, s} (BigInt scalars);
// verifying returns nothing or throws BadProofError (InvalidElementError,
// IdentityKeyError for inputs that do not decode or a key that is O; InvalidScalarError for
// a c or s not below ℓ, as Python's).
//
// Proving uses secret scalars (x, the nonce k): constant-time mul/base. Verifying uses only
// public ones (c, s): pointMulPublic. A given nonce must be in [1, ℓ), as x must: with k ≡ 0
// the proof's s = c·x publishes x.

import { concatBytes, u64be } from "../bytes.js";
import { BadProofError, InvalidScalarError } from "./errors.js";
import * as g from "./group.js";
import { publicKey, roundKeyPoint } from "./keys.js";
import { KEY_PROOF, SHARE_PROOF } from "./tags.js";

const G = g.base(1n);

function withContext(parts, context) {
  if (!(context instanceof Uint8Array)) throw new TypeError("a context is bytes");
  return concatBytes(...parts, u64be(context.length), context);
}

/** KEY_PROOF ‖ G ‖ X ‖ T ‖ u64be(len(context)) ‖ context: the hashed input of 15.6. */
export function keyProofInput(X, T, context) {
  return withContext([KEY_PROOF, G, X, T], context);
}

/** SHARE_PROOF ‖ G ‖ X ‖ A ‖ D ‖ T1 ‖ T2 ‖ u64be(len(context)) ‖ context (15.7). */
export function shareProofInput(X, A, D, T1, T2, context) {
  return withContext([SHARE_PROOF, G, X, A, D, T1, T2], context);
}

function checkScalars(proof) {
  for (const v of [proof.c, proof.s]) {
    if (typeof v !== "bigint" || v < 0n || v >= g.ORDER) throw new InvalidScalarError("a proof scalar is not below ℓ");
  }
}

/** A nonce is a secret scalar in [1, ℓ) (RangeError, the caller's mistake, as for x). */
function checkNonce(k) {
  if (typeof k !== "bigint" || k <= 0n || k >= g.ORDER) throw new RangeError("a nonce is in [1, ℓ)");
  return k;
}

/** 15.6: prove knowledge of x for X = x·G. `nonce` is for vectors only: fresh by default. */
export function proveKey(x, context, nonce = g.randomScalar()) {
  const X = publicKey(x);
  checkNonce(nonce);
  const c = g.hashToScalar(keyProofInput(X, g.base(nonce), context));
  return { c, s: g.mod(nonce + c * x) };
}

/** 15.6: verify a proof of knowledge of the round key X for a context. */
export function verifyKey(X, context, proof) {
  const key = roundKeyPoint(X);
  checkScalars(proof);
  const T = g.pointMulPublic(g.BASE_POINT, proof.s).subtract(g.pointMulPublic(key, proof.c));
  const c = g.hashToScalar(keyProofInput(X, g.fromPoint(T), context));
  if (c !== proof.c) throw new BadProofError("the proof of knowledge of the round key does not verify");
}

/** 15.7: party x's share D = x·A of the element A, with its proof for a context. */
export function proveShare(x, A, context, nonce = g.randomScalar()) {
  const X = publicKey(x);
  checkNonce(nonce);
  const D = g.mul(A, x);
  const input = shareProofInput(X, A, D, g.base(nonce), g.mul(A, nonce), context);
  const c = g.hashToScalar(input);
  return { share: D, proof: { c, s: g.mod(nonce + c * x) } };
}

/** 15.7: verify that D = x·A for the x of X = x·G, for a context. */
export function verifyShare(X, A, D, context, proof) {
  const key = roundKeyPoint(X);
  const [a, d] = [g.toPoint(A), g.toPoint(D)];
  checkScalars(proof);
  const T1 = g.pointMulPublic(g.BASE_POINT, proof.s).subtract(g.pointMulPublic(key, proof.c));
  const T2 = g.pointMulPublic(a, proof.s).subtract(g.pointMulPublic(d, proof.c));
  const input = shareProofInput(X, A, D, g.fromPoint(T1), g.fromPoint(T2), context);
  if (g.hashToScalar(input) !== proof.c) throw new BadProofError("the decryption share's proof does not verify");
}
