// fairdeal/games/toto21/cipher.py (SPEC 15.13): a dealer-blind round's cryptography as
// Toto21's rules hold it — the parties' round keys, the shuffle chain's decks, the pending
// request, the published shares — and the checks and computations the rules make with them,
// on ../../blind/.
//
// Knows the group and the proofs, not the game's turns: blind_round.js decides with it.
//
// Values are kept as the log writes them (elements as 64 hex, scalars as BigInt once
// revealed). A refusal's message is Python's, word for word: the checks read the JSON forms
// as fairdeal/blind reads them (its messages, libsodium's decoding) before the arithmetic of
// ../../blind/ runs. The service's values (its key proof, shares and shuffle step) are
// recomputed from the revealed seed with blind/round.js: nothing of a revealed round is
// secret any more.

import { bytesToHex, hexToBytes } from "../../bytes.js";
import { BadProofError, BlindEncodingError, BlindError, IdentityKeyError, InvalidElementError } from "../../blind/errors.js";
import { InvalidScalarError, NotACardError, ShuffleProofError, WrongRevealedKeyError } from "../../blind/errors.js";
import { InvalidShuffleProofError } from "../../blind/errors.js";
import { cardPoints, publicDeck as blindPublicDeck } from "../../blind/elgamal.js";
import * as g from "../../blind/group.js";
import { writeProof } from "../../blind/json.js";
import { serverRoundKey } from "../../blind/keys.js";
import { verifyKey, verifyShare } from "../../blind/proofs.js";
import { decryptWithKeys, proofContext, proofDraws, serverKeyProof, serverShare as blindServerShare } from "../../blind/round.js";
import { serverWitness } from "../../blind/round.js";
import { PROOF_MEMBERS, prove } from "../../blind/shuffle.js";
import { verifyStep as blindVerifyStep } from "../../blind/shuffle.js";
import { canonicalDeck } from "../../engine/cards.js";
import {
  IllegalActionError,
  KeyInvalidError,
  KeyMismatchError,
  ShareInvalidError,
  ShuffleInvalidError,
} from "../../engine/errors.js";
import { SERVER, seatActor } from "../../engine/protocol.js";
import { isDict, isExactInt, pyEqual } from "../../engine/pytypes.js";

export const GAME = "toto21";
export const DECKS = 1;
export const SERVER_STEP = 0; // the service's step is step 0 (rounds.SERVER_STEP)

/** What the round waits for from the seats (SPEC 15.13.5.3, 15.13.6.3, 15.13.7.3): its event
 * type, deadline, the seats that still owe an answer and, for shares, their positions (a Map
 * seat -> positions). */
export function makeRequest({ kind, deadline, seats, positions = new Map() }) {
  return { kind, deadline, seats, positions };
}

/** A blind round's public cryptographic state, from its events alone: the service's key
 * (hex), each seat's (a Map seat -> hex), each step's logged output (step 0 first), the
 * pending request, the published shares (a Map position -> {party: {proof, share}}), each
 * seat's revealed private key (a Map seat -> BigInt), the golden point claim, each draw
 * [seat, positions it could see then], and the seat to move once the pending shares are in. */
export function makeCrypto({
  server_key,
  round_keys = new Map(),
  decks = [],
  request = null,
  shares = new Map(),
  secrets = new Map(),
  claimed = false,
  draws = [],
  then = null,
}) {
  return { server_key, round_keys, decks, request, shares, secrets, claimed, draws, then };
}

/** The round's deck: the last step's output. */
export function deckOfCrypto(crypto) {
  return crypto.decks[crypto.decks.length - 1];
}

let points = null;
function cardPointsOnce() {
  points ??= cardPoints(GAME, DECKS);
  return points;
}

let publicJson = null;
/** The public deck as the log writes a deck (15.9): [{a, b}] of hex. */
export function publicDeck() {
  publicJson ??= blindPublicDeck(GAME, DECKS).map((c) => ({ a: bytesToHex(c.a), b: bytesToHex(c.b) }));
  return publicJson;
}

export function context(table, roundId, party, purpose, index) {
  return proofContext(table, roundId, party, purpose, index);
}

// ---- the JSON forms as fairdeal/blind reads them (its messages) -----------------------------

const HEX64 = /^[0-9a-f]{64}$/;

/** group.read_hex32. */
function readHex32(text, what) {
  if (typeof text !== "string" || !HEX64.test(text)) throw new BlindEncodingError(`${what}: not 64 lowercase hex digits`);
  return hexToBytes(text);
}

/** The group's decode (libsodium's message). */
function decode(bytes) {
  try {
    return g.decode(bytes);
  } catch (e) {
    if (e instanceof BlindError) throw new InvalidElementError("not the canonical encoding of a group element");
    throw e;
  }
}

/** group.read_element. */
export function readElement(text, what) {
  return decode(readHex32(text, what));
}

/** group.read_scalar_hex. */
export function readScalarHex(text, what) {
  const bytes = readHex32(text, what);
  let k = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) k = (k << 8n) | BigInt(bytes[i]);
  if (k >= g.ORDER) throw new InvalidScalarError("a scalar not below the group order");
  return k;
}

/** proofs.members: the values of an object with exactly the members `names`, in order. */
function members(value, names, what) {
  const keys = isDict(value) ? Object.keys(value) : null;
  if (keys === null || keys.length !== names.length || !names.every((n) => Object.hasOwn(value, n))) {
    throw new BlindEncodingError(`${what}: an object with exactly ${names.join(", ")}`);
  }
  return names.map((name) => value[name]);
}

/** proofs.Proof.from_json. */
export function readProof(value) {
  const [c, s] = members(value, ["c", "s"], "proof");
  return { c: readScalarHex(c, "proof c"), s: readScalarHex(s, "proof s") };
}

/** elgamal.Share.from_json: {share, proof}. */
export function readShare(value) {
  const [proof, share] = members(value, ["proof", "share"], "decryption share");
  const element = readElement(share, "share");
  return { share: element, proof: readProof(proof) };
}

/** elgamal.Ciphertext.from_json. */
export function readCiphertext(value) {
  const [a, b] = members(value, ["a", "b"], "ciphertext");
  return { a: readElement(a, "ciphertext a"), b: readElement(b, "ciphertext b") };
}

/** proofs.read_round_key. */
function readRoundKey(key) {
  const decoded = decode(key);
  if (g.isIdentity(decoded)) throw new IdentityKeyError("a round key is never the identity");
  return decoded;
}

/** A proof check of ../../blind/proofs.js with Python's message for one that fails. */
function verified(check) {
  try {
    check();
  } catch (e) {
    if (e instanceof BadProofError) throw new BadProofError("the proof does not verify");
    throw e;
  }
}

/** proofs.verify_knowledge. */
export function verifyKnowledge(key, where, proof) {
  const X = readRoundKey(key);
  verified(() => verifyKey(X, where, proof));
}

/** elgamal.verify_share: `share` ({share, proof}) is the share of the party of `key`. */
export function verifyDleq(key, ciphertext, share, where) {
  const X = readRoundKey(key);
  const [A, D] = [decode(ciphertext.b), decode(share.share)];
  verified(() => verifyShare(X, A, D, where, share.proof));
}

// ---- round keys (SPEC 15.13.3) ------------------------------------------------------------

/** The service's round key with its proof, as round_opened logs it. */
export function serverKey(secret, table, roundId) {
  const { key, proof } = serverKeyProof(secret, { table, round: roundId });
  return { key: bytesToHex(key), proof: writeProof(proof) };
}

/** A round key {key, proof} as logged, proved for its party's context and not a key already
 * logged for the round; its hex. KeyInvalidError (IllegalActionError for the form). */
export function checkKey(value, party, table, roundId, taken) {
  if (!isDict(value) || !sameMembers(value, ["key", "proof"])) {
    throw new IllegalActionError("a round key is an object of exactly key and proof");
  }
  if (!isDict(value.proof) || !sameMembers(value.proof, ["c", "s"])) {
    throw new IllegalActionError("a round key's proof is an object of exactly c and s");
  }
  try {
    const key = readElement(value.key, "round key");
    const proof = readProof(value.proof);
    const where = context(table, roundId, party, "round-key", 0);
    verifyKnowledge(key, where, proof);
  } catch (e) {
    if (e instanceof BlindError) throw new KeyInvalidError(`${party}'s round key: ${e.message}`);
    throw e;
  }
  if (taken.includes(value.key)) throw new KeyInvalidError(`${party}'s round key is another party's`);
  return value.key;
}

function sameMembers(value, names) {
  const keys = Object.keys(value);
  return keys.length === names.length && names.every((n) => Object.hasOwn(value, n));
}

/** X = X_0 + Σ X_j of the round's seats (bytes). */
export function jointKey(crypto, seats) {
  const keys = [crypto.server_key, ...seats.map((seat) => crypto.round_keys.get(seat))];
  return keys.map((key) => readRoundKey(hexToBytes(key))).reduce((sum, X) => g.add(sum, X), g.identity());
}

// ---- the shuffle chain (SPEC 15.13.5) -----------------------------------------------------

/** The service's step from its shuffle key (15.12.3): deck_shuffled's deck and proof. Only
 * ever computed for a revealed round (the shuffle key comes from the server seed, which a
 * replay knows once it is revealed): nothing of it is secret any more, so that it is
 * computed in variable time (revealedStep), byte for byte blind/round.js's serverStep. */
export function serverStep(crypto, seats, shuffleKey, table, roundId) {
  const where = { table, round: roundId, game: GAME, decks: DECKS };
  const step = revealedStep(shuffleKey, jointKey(crypto, seats), where);
  return { deck: step.output.map((c) => ({ a: bytesToHex(c.a), b: bytesToHex(c.b) })), proof: step.proof };
}

/** blind/round.js's serverStep (its drawStep: the witness from the step key, the shuffle and
 * its proof) with public-scalar multiplications: for a revealed round only. The service's own
 * check of its proof (15.12.2) is left out: the replay compares the step with the logged one. */
export function revealedStep(shuffleKey, X, where) {
  const context = proofContext(where.table, where.round, SERVER, "shuffle", 0);
  const input = blindPublicDeck(where.game, where.decks);
  const { psi, rPrime, drawn } = serverWitness(shuffleKey, X, where);
  const key = g.toPoint(X);
  const output = psi.map((j) => ({
    a: g.fromPoint(g.toPoint(input[j].a).add(g.pointMulPublic(key, rPrime[j]))),
    b: g.fromPoint(g.toPoint(input[j].b).add(g.pointMulPublic(g.BASE_POINT, rPrime[j]))),
  }));
  const draws = proofDraws(drawn, psi);
  const proof = prove(context, X, input, output, psi, rPrime, draws, { revealed: true });
  return { context, input, output, proof };
}


/** A seat's step verifies for its context, the joint key and its input: else
 * ShuffleInvalidError. */
export function checkStep(crypto, seats, step, data, where) {
  const inputs = step ? [...crypto.decks[step - 1]] : [...publicDeck()];
  try {
    const key = bytesToHex(jointKey(crypto, seats));
    verifyStep(key, inputs, data.deck, data.proof, where);
  } catch (e) {
    if (e instanceof BlindError) throw new ShuffleInvalidError(`step ${step}: ${e.message}`);
    throw e;
  }
}

/** A refused step, with Python's message (shuffle.ShuffleProofError's, which has no step in
 * its text). */
export class ShuffleStepError extends BlindError {}

const ELEMENT_LISTS = ["c", "c_hat", "t_hat"];
const ELEMENTS = ["t1", "t2", "t3", "t41", "t42"];
const SCALARS = ["s1", "s2", "s3", "s4"];
const SCALAR_LISTS = ["s_hat", "s_prime"];

/** shuffle.verify_step (SPEC 15.11.7 from the JSON forms) with Python's messages: its reading
 * of the decks and the proof, in its order, then the equations of ../../blind/shuffle.js. */
export function verifyStep(key, inputs, outputs, proof, where) {
  const malformed = (message) => {
    throw new ShuffleStepError(message);
  };
  if (!Array.isArray(inputs) || !Array.isArray(outputs) || !inputs.length) {
    malformed("both decks are non-empty arrays of ciphertexts");
  }
  if (outputs.length !== inputs.length) malformed("the output deck has as many cards as the input deck");
  const element = (value) => {
    if (typeof value !== "string" || !HEX64.test(value)) malformed("a shuffle proof element is 64 lowercase hex");
    try {
      return g.decode(hexToBytes(value));
    } catch (e) {
      if (e instanceof BlindError) malformed("not a canonical element encoding");
      throw e;
    }
  };
  const scalar = (value) => {
    if (typeof value !== "string" || !HEX64.test(value)) malformed("a shuffle proof scalar is 64 lowercase hex");
    try {
      return g.scalarFromBytes(hexToBytes(value));
    } catch (e) {
      if (e instanceof BlindError) malformed("not a canonical scalar (little-endian, below the order)");
      throw e;
    }
  };
  const ciphertext = (value) => {
    if (!isDict(value) || !sameMembers(value, ["a", "b"])) malformed("a ciphertext is an object with exactly a and b");
    element(value.a);
    element(value.b);
  };
  element(key);
  inputs.forEach(ciphertext);
  outputs.forEach(ciphertext);
  const n = inputs.length;
  if (!isDict(proof) || !sameMembers(proof, PROOF_MEMBERS)) malformed("a shuffle proof has exactly SPEC 15.11.6's members");
  for (const name of [...ELEMENT_LISTS, ...SCALAR_LISTS]) {
    if (!Array.isArray(proof[name]) || proof[name].length !== n) malformed(`the shuffle proof's ${name} needs ${n} entries`);
  }
  proof.c.forEach(element);
  proof.c_hat.forEach(element);
  ELEMENTS.forEach((name) => element(proof[name]));
  proof.t_hat.forEach(element);
  SCALARS.forEach((name) => scalar(proof[name]));
  SCALAR_LISTS.forEach((name) => proof[name].forEach(scalar));
  try {
    blindVerifyStep(where, key, inputs, outputs, proof);
  } catch (e) {
    if (e instanceof InvalidShuffleProofError) throw new ShuffleStepError(`the shuffle proof's ${e.step} does not verify`);
    if (e instanceof ShuffleProofError) throw new ShuffleStepError("the joint key is the identity");
    throw e;
  }
}

// ---- shares (SPEC 15.13.6) ----------------------------------------------------------------

/** The ciphertext at `position` of the round's deck, decoded; a position the deck does not
 * have is the caller's (Python's IndexError). */
export function ciphertext(crypto, position) {
  const deck = deckOfCrypto(crypto);
  if (!Number.isInteger(position) || position < -deck.length || position >= deck.length) {
    throw new RangeError("list index out of range");
  }
  return readCiphertext(deck.at(position));
}

/** The service's share of the card at `position`, with its proof: {proof, share}. */
export function serverShare(crypto, secret, table, roundId, position) {
  const made = blindServerShare(secret, ciphertext(crypto, position).b, { table, round: roundId, position });
  return { proof: writeProof(made.proof), share: bytesToHex(made.share) };
}

/** A seat's `shares`: one entry {position, proof, share} per requested position, ascending
 * (else IllegalActionError), each proved for the seat's key (else ShareInvalidError). */
export function checkShares(crypto, seat, positions, value, where) {
  if (!Array.isArray(value) || !value.every(isDict)) throw new IllegalActionError("shares is a list of {position, proof, share}");
  if (value.some((entry) => !sameMembers(entry, ["position", "proof", "share"]))) {
    throw new IllegalActionError("each share is an object of exactly position, proof and share");
  }
  if (value.some((entry) => !isExactInt(entry.position))) {
    // true is not 1
    throw new IllegalActionError("a share's position is an integer");
  }
  if (!pyEqual(value.map((entry) => entry.position), [...positions])) {
    throw new IllegalActionError(`the shares asked of this seat are of positions ${pyTuple(positions)}`);
  }
  const key = hexToBytes(crypto.round_keys.get(seat));
  const party = seatActor(seat);
  const [table, roundId] = where;
  for (const entry of value) {
    const position = entry.position;
    try {
      const share = readShare({ proof: entry.proof, share: entry.share });
      const at = context(table, roundId, party, "share", position);
      verifyDleq(key, ciphertext(crypto, position), share, at);
    } catch (e) {
      if (e instanceof BlindError) throw new ShareInvalidError(`the share of position ${position}: ${e.message}`);
      throw e;
    }
  }
  return [...value];
}

/** A tuple of ints as Python writes it: (1,) or (0, 1, 3). */
export function pyTuple(values) {
  return values.length === 1 ? `(${values[0]},)` : `(${values.join(", ")})`;
}

/** The card every party's published share opens (SPEC 15.8). */
export function openedCard(crypto, position) {
  const shares = Object.values(crypto.shares.get(position)).map((s) => hexToBytes(s.share));
  const c = ciphertext(crypto, position);
  const sum = shares.reduce((acc, D) => g.add(acc, D), g.identity());
  return cardOf(g.sub(c.a, sum));
}

// ---- keys revealed (SPEC 15.13.7.3) -------------------------------------------------------

/** A seat's revealed private round key: KeyMismatchError unless it is its key's. */
export function checkSecret(crypto, seat, value) {
  try {
    const x = readScalarHex(value, "secret");
    const key = hexToBytes(crypto.round_keys.get(seat));
    if (!(x > 0n && x < g.ORDER && bytesToHex(g.basePublic(x)) === bytesToHex(key))) {
      throw new WrongRevealedKeyError("the revealed key is not the private key of the round key");
    }
    return x;
  } catch (e) {
    if (e instanceof BlindError) throw new KeyMismatchError(`seat ${seat}'s secret: ${e.message}`);
    throw e;
  }
}

/** The cards at `positions` (a Map position -> card), opened with every party's private key
 * (SPEC 15.12.4): the service's from its revealed seed. */
export function cardsWithKeys(crypto, secret, positions) {
  const keys = [serverRoundKey(secret), ...crypto.secrets.values()];
  return new Map(positions.map((position) => [position, openWithKeys(deckOfCrypto(crypto)[position], keys)]));
}

/** The card of one logged ciphertext ({a, b} hex), opened with every party's private round
 * key: public values once the round is over. */
export function openWithKeys(entry, keys) {
  return cardOf(decryptWithKeys(readCiphertext(entry), [...keys]));
}

/** The card whose point `point` is: IllegalActionError if none. */
export function cardOf(point) {
  const target = bytesToHex(point);
  const index = cardPointsOnce().findIndex((p) => bytesToHex(p) === target);
  if (index < 0) {
    const e = new NotACardError("the decryption is no card of this deck");
    throw new IllegalActionError(`a card does not open: ${e.message}`);
  }
  return canonicalDeck(GAME, DECKS)[index];
}

export function party(seat) {
  return seat === null ? SERVER : seatActor(seat);
}
