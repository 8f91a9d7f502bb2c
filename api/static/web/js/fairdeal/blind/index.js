// Dealer-blind dealing (SPEC 15, protocol version 3; no table uses it yet): the browser party's
// cryptography. Pure (bytes and values in, values out), no I/O, no side effect on import.
// Elements are 32-byte Uint8Array encodings, scalars BigInt; check* / verify* return nothing
// or throw an error of ./errors.js.

export * from "./errors.js";
export {
  ORDER,
  decode,
  add,
  sub,
  neg,
  mul,
  mulPublic,
  base,
  basePublic,
  hashToElement,
  hashToScalar,
  identity,
} from "./group.js";
export { serverRoundKey, newRoundKey, publicKey, jointKey, checkRevealedKey } from "./keys.js";
export { proveKey, verifyKey, proveShare, verifyShare } from "./proofs.js";
export { cardPoint, cardPoints, publicDeck, encrypt, reEncrypt, decrypt, cardIndex } from "./elgamal.js";
export { shuffle, prove as proveShuffle, verifyShuffle, verifyStep } from "./shuffle.js";
export * as json from "./json.js";
export * as round from "./round.js";
