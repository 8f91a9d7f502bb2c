// SPEC 15.9: the JSON forms. Readers are strict (exact members, 64 lowercase hex digits, an
// element that decodes, a scalar below ℓ) and throw BlindEncodingError, InvalidElementError or
// InvalidScalarError; writers give the one form a reader accepts.

import { bytesToHex, hexToBytes, isHex } from "../bytes.js";
import { BlindEncodingError } from "./errors.js";
import { decode, scalarFromBytes, scalarToBytes } from "./group.js";
import { roundKeyPoint } from "./keys.js";

/** 32 bytes from 64 lowercase hex digits (the form only; BlindEncodingError otherwise). */
export function hex32(text, what) {
  if (!isHex(text, 64)) throw new BlindEncodingError(`${what} is not 64 lowercase hex digits`);
  return hexToBytes(text);
}

export function readElement(text) {
  return decode(hex32(text, "an element"));
}

export function readScalar(text) {
  return scalarFromBytes(hex32(text, "a scalar"));
}

export const writeElement = bytesToHex;

export function writeScalar(k) {
  return bytesToHex(scalarToBytes(k));
}

/**
 * True when `value` is an object whose members are exactly the distinct `names`: as many, and
 * each one present. (Not the names joined: a member named "c,s" is neither c nor s.)
 */
export function hasExactly(value, names) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  return Object.keys(value).length === names.length && names.every((name) => Object.hasOwn(value, name));
}

/** The members of `value`, refused unless they are exactly `names`. */
export function members(value, names) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new BlindEncodingError("not a JSON object");
  }
  if (!hasExactly(value, names)) throw new BlindEncodingError(`members must be exactly ${names.join(", ")}`);
  return value;
}

export function readProof(value) {
  const { c, s } = members(value, ["c", "s"]);
  return { c: readScalar(c), s: readScalar(s) };
}

export function writeProof(proof) {
  return { c: writeScalar(proof.c), s: writeScalar(proof.s) };
}

/** A round key with its proof; the key O is refused (IdentityKeyError, 15.3). */
export function readKeyWithProof(value) {
  const { key, proof } = members(value, ["key", "proof"]);
  const X = readElement(key);
  roundKeyPoint(X);
  return { key: X, proof: readProof(proof) };
}

export function writeKeyWithProof(key, proof) {
  return { key: writeElement(key), proof: writeProof(proof) };
}

export function readCiphertext(value) {
  const { a, b } = members(value, ["a", "b"]);
  return { a: readElement(a), b: readElement(b) };
}

export function writeCiphertext(ciphertext) {
  return { a: writeElement(ciphertext.a), b: writeElement(ciphertext.b) };
}

export function readShare(value) {
  const { proof, share } = members(value, ["proof", "share"]);
  return { proof: readProof(proof), share: readElement(share) };
}

export function writeShare(share) {
  return { proof: writeProof(share.proof), share: writeElement(share.share) };
}
