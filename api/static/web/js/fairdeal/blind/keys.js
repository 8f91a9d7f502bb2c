// SPEC 15.5: round keys. A private key is a scalar in [1, ℓ); a public key its multiple of G.

import { concatBytes, equalBytes } from "../bytes.js";
import { IdentityKeyError, WrongRevealedKeyError } from "./errors.js";
import { add, base, basePublic, hashToScalar, identity, ORDER, randomScalar, toPoint } from "./group.js";
import { ROUND_KEY } from "./tags.js";

/** x_0 = hash_to_scalar(ROUND_KEY ‖ server_seed); RangeError for 0 (draw another seed). */
export function serverRoundKey(serverSeed) {
  const x = hashToScalar(concatBytes(ROUND_KEY, serverSeed));
  if (x === 0n) throw new RangeError("this server seed gives the round key 0: draw another");
  return x;
}

/** A seat's fresh private round key, uniform in [1, ℓ). */
export function newRoundKey() {
  return randomScalar();
}

/** X = x·G (constant time in x); x must be in [1, ℓ). */
export function publicKey(x) {
  if (typeof x !== "bigint" || x <= 0n || x >= ORDER) throw new RangeError("a private round key is in [1, ℓ)");
  return base(x);
}

/** The point of a public round key, decoded; IdentityKeyError for O. */
export function roundKeyPoint(X) {
  const point = toPoint(X);
  if (point.is0()) throw new IdentityKeyError("a round key must not be the identity");
  return point;
}

/** The joint key X_0 + … + X_(N−1); each key is checked (not O). */
export function jointKey(keys) {
  if (keys.length === 0) throw new RangeError("a round has at least one party");
  keys.forEach(roundKeyPoint);
  return keys.reduce((sum, X) => add(sum, X), identity());
}

/** A revealed private key x_j (public by then), refused unless x_j·G = X_j. */
export function checkRevealedKey(X, x) {
  roundKeyPoint(X);
  if (typeof x !== "bigint" || x <= 0n || x >= ORDER || !equalBytes(basePublic(x), X)) {
    throw new WrongRevealedKeyError("the revealed private key is not the public round key's");
  }
}

