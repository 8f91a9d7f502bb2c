// SPEC 15.4 and 15.8: card points, and ElGamal over the joint key. A ciphertext is {a, b},
// two element encodings: (M + r·X, r·G). Encryption and re-encryption take secret r
// (constant-time mul/base).

import { concatBytes, equalBytes, u64be, utf8 } from "../bytes.js";
import { canonicalDeck } from "../engine/cards.js";
import { NotACardError } from "./errors.js";
import * as g from "./group.js";
import { CARD_POINT } from "./tags.js";

/** M_i = hash_to_element(CARD_POINT ‖ game ‖ 0x00 ‖ u64be(decks) ‖ u64be(i)). */
export function cardPoint(game, decks, i) {
  const size = canonicalDeck(game, decks).length;
  if (!Number.isSafeInteger(i) || i < 0 || i >= size) throw new RangeError(`no card index ${i} in this deck`);
  return g.hashToElement(concatBytes(CARD_POINT, utf8(game), Uint8Array.of(0), u64be(decks), u64be(i)));
}

/** Every card point of a game's deck, in canonical order. */
export function cardPoints(game, decks) {
  return canonicalDeck(game, decks).map((_, i) => cardPoint(game, decks, i));
}

/** The public deck: the trivial encryptions (M_i, O), in canonical order. */
export function publicDeck(game, decks) {
  const O = g.identity();
  return cardPoints(game, decks).map((M) => ({ a: M, b: O }));
}

/** (M + r·X, r·G). */
export function encrypt(M, r, X) {
  return { a: g.add(M, g.mul(X, r)), b: g.base(r) };
}

/** (a + r·X, b + r·G): the same plaintext, unlinkable without r. */
export function reEncrypt(ciphertext, r, X) {
  return { a: g.add(ciphertext.a, g.mul(X, r)), b: g.add(ciphertext.b, g.base(r)) };
}

/**
 * M = a − (D_0 + … + D_(N−1)), from every party's share of b. The caller has verified each
 * share's proof (15.7) for its party's key: this is the arithmetic only.
 */
export function decrypt(ciphertext, shares) {
  const sum = shares.reduce((acc, D) => g.add(acc, D), g.identity());
  return g.sub(ciphertext.a, sum);
}

/** The index i with M = M_i; NotACardError when M is no card point (a broken deck). */
export function cardIndex(M, points) {
  const i = points.findIndex((P) => equalBytes(P, M));
  if (i < 0) throw new NotACardError("the decryption is no card point");
  return i;
}
