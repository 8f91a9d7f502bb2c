// SPEC 15.12: proof contexts, the service's reproducible values — the nonces of its key proof
// and share proofs (from its server seed), its shuffle step (from a step key of the shuffle
// key, bound to the step's statement) — and a card opened with the round keys. A verifier that
// has the revealed server seed recomputes every one of the service's values byte for byte.
// Each of the service's proofs is verified before it is returned (15.12.2): OwnProofError.
//
// The service's secrets (x_0, its nonces, the step key, ψ, r', the proof's draws) are secret
// only until the reveal; they go through the same constant-time paths as a seat's (proofs.js,
// shuffle.js), and serverStep returns the public step only (serverWitness gives the secret).

import { concatBytes, equalBytes, u64be, utf8 } from "../bytes.js";
import { hmac } from "../crypto.js";
import { ByteStream, shuffled } from "../randomness.js";
import { publicDeck } from "./elgamal.js";
import { BlindError, OwnProofError, ServerStepMismatchError } from "./errors.js";
import * as g from "./group.js";
import { hasExactly } from "./json.js";
import { roundKeyPoint, serverRoundKey } from "./keys.js";
import { proveKey, proveShare, verifyKey, verifyShare } from "./proofs.js";
import { PROOF_MEMBERS, prove, shuffle, verifyShuffle } from "./shuffle.js";
import { KEY_PROOF, PROOF_CONTEXT, SERVER_NONCE, SERVER_STEP, SHARE_PROOF } from "./tags.js";

/** The three purposes of a proof (15.12.1). */
export const PURPOSES = Object.freeze(["round-key", "shuffle", "share"]);
const SERVER = "server";

/** The three byte-stream purposes of the service's step key (15.12.3, 3.4). */
export const STEP_STREAMS = Object.freeze({
  permutation: "blind-permutation",
  reencryption: "blind-reencryption",
  proof: "blind-proof",
});

// ---- 15.12.1: proof contexts ---------------------------------------------------------------

const ID = /^[A-Za-z0-9._:-]{1,64}$/; // 5.1: a table id, a round id
const ACTOR = /^(server|seat:(0|[1-9][0-9]?))$/; // 5.1: an actor

/** u64be(len(s)) ‖ s, s as ASCII bytes (15.12.1); RangeError for any other character. */
export function lp(text) {
  if (typeof text !== "string") throw new TypeError("lp takes a string");
  if (!/^[\x00-\x7f]*$/.test(text)) throw new RangeError("lp takes ASCII");
  const bytes = utf8(text);
  return concatBytes(u64be(bytes.length), bytes);
}

/** The largest index of a context (15.12.1): 2^53 − 1, as every number of the log (1). */
export const MAX_INDEX = Number.MAX_SAFE_INTEGER;

/**
 * PROOF_CONTEXT ‖ lp(table) ‖ lp(round) ‖ lp(party) ‖ lp(purpose) ‖ u64be(index). A table or
 * round id, party or purpose not of 15.12.1's forms, or an index that is not an integer
 * Number in [0, 2^53 − 1] (a boolean or a BigInt included; 0 for "round-key"), is the
 * caller's mistake: TypeError / RangeError.
 */
export function proofContext(table, round, party, purpose, index) {
  const fields = { table: [table, ID], round: [round, ID], party: [party, ACTOR] };
  for (const [name, [value, form]] of Object.entries(fields)) {
    if (typeof value !== "string") throw new TypeError(`${name} is a string`);
    if (!form.test(value)) throw new RangeError(`${name} ${JSON.stringify(value)} is not of 5.1's form`);
  }
  if (!PURPOSES.includes(purpose)) throw new RangeError(`no proof purpose ${JSON.stringify(purpose)}`);
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new RangeError("an index is an integer from 0 to 2^53 − 1");
  }
  if (purpose === "round-key" && index !== 0) throw new RangeError("a round-key context has index 0");
  return concatBytes(PROOF_CONTEXT, lp(table), lp(round), lp(party), lp(purpose), u64be(index));
}

// ---- 15.12.2: the service's proof nonces ---------------------------------------------------

const G = g.base(1n);

function checkSeed(serverSeed) {
  if (!(serverSeed instanceof Uint8Array) || serverSeed.length !== 32) {
    throw new TypeError("a server seed is 32 bytes");
  }
}

function nonceInput(serverSeed, ctr, parts, context) {
  checkSeed(serverSeed);
  if (!(context instanceof Uint8Array)) throw new TypeError("a context is bytes");
  return concatBytes(SERVER_NONCE, serverSeed, u64be(ctr), ...parts, u64be(context.length), context);
}

/** SERVER_NONCE ‖ server_seed ‖ u64be(ctr) ‖ KEY_PROOF ‖ G ‖ X_0 ‖ u64be(len(context)) ‖ context. */
export function keyNonceInput(serverSeed, ctr, X0, context) {
  return nonceInput(serverSeed, ctr, [KEY_PROOF, G, X0], context);
}

/** SERVER_NONCE ‖ server_seed ‖ u64be(ctr) ‖ SHARE_PROOF ‖ G ‖ X_0 ‖ A ‖ D ‖ u64be(len(context)) ‖ context. */
export function shareNonceInput(serverSeed, ctr, X0, A, D, context) {
  return nonceInput(serverSeed, ctr, [SHARE_PROOF, G, X0, A, D], context);
}

/** {ctr, k}: the first ctr of 0, 1, 2, … whose input hashes to k ≠ 0. */
function firstNonZero(inputOf) {
  for (let ctr = 0; ; ctr++) {
    const k = g.hashToScalar(inputOf(ctr));
    if (k !== 0n) return { ctr, k };
  }
}

/** {ctr, k}: the nonce of the service's proof of knowledge of X_0 for `context`. */
export function keyNonce(serverSeed, X0, context) {
  return firstNonZero((ctr) => keyNonceInput(serverSeed, ctr, X0, context));
}

/** {ctr, k}: the nonce of the service's share proof of D = x_0·A for `context`. */
export function shareNonce(serverSeed, X0, A, D, context) {
  return firstNonZero((ctr) => shareNonceInput(serverSeed, ctr, X0, A, D, context));
}

/**
 * The service's round key X_0 (15.5) and its proof of knowledge (15.6) for the context (table,
 * round, "server", "round-key", 0), with 15.12.2's nonce: {key, proof: {c, s}}.
 */
export function serverKeyProof(serverSeed, { table, round }) {
  const context = proofContext(table, round, SERVER, "round-key", 0);
  const x0 = serverRoundKey(serverSeed);
  const X0 = g.base(x0);
  const proof = proveKey(x0, context, keyNonce(serverSeed, X0, context).k);
  own(() => verifyKey(X0, context, proof));
  return { key: X0, proof };
}

/**
 * The service's decryption share D = x_0·A of the element A (the b of the ciphertext at deck
 * `position`), with its proof (15.7) for (table, round, "server", "share", position) and
 * 15.12.2's nonce: {share, proof: {c, s}}.
 */
export function serverShare(serverSeed, A, { table, round, position }) {
  const context = proofContext(table, round, SERVER, "share", position);
  const x0 = serverRoundKey(serverSeed);
  const X0 = g.base(x0);
  const made = proveShare(x0, A, context, shareNonce(serverSeed, X0, A, g.mul(A, x0), context).k);
  own(() => verifyShare(X0, A, made.share, context, made.proof));
  return made;
}

/** Runs the check of a proof the service has just made; OwnProofError if it fails (15.12.2). */
function own(check) {
  try {
    check();
  } catch (e) {
    if (!(e instanceof BlindError)) throw e;
    throw new OwnProofError(`the service's own proof does not verify, not published (${e.message})`);
  }
}

// ---- 15.12.3: the service's shuffle step ---------------------------------------------------

function stepContext(where) {
  return proofContext(where.table, where.round, SERVER, "shuffle", 0);
}

/**
 * SERVER_STEP ‖ u64be(len(ctx)) ‖ ctx ‖ lp(game) ‖ u64be(decks) ‖ X: the step key's message,
 * 80 + len(ctx) + len(game) bytes, for `where` = {table, round, game, decks} and the joint key
 * X (its 32-byte encoding; InvalidElementError, IdentityKeyError for no key or O).
 */
export function serverStepKeyInput(X, where) {
  roundKeyPoint(X);
  const ctx = stepContext(where);
  return concatBytes(SERVER_STEP, u64be(ctx.length), ctx, lp(where.game), u64be(where.decks), X);
}

/**
 * step_key = HMAC-SHA-256(K, serverStepKeyInput): the key every draw of the service's step
 * comes from, bound to its statement (context, X, input deck), so that two statements never
 * share a draw even under one shuffle key K. Secret while the round is in play.
 */
export function serverStepKey(shuffleKey, X, where) {
  if (!(shuffleKey instanceof Uint8Array) || shuffleKey.length !== 32) {
    throw new TypeError("a shuffle key is 32 bytes");
  }
  return hmac(shuffleKey, serverStepKeyInput(X, where));
}

/** 3.6's algorithm on the list [0, 1, …, n−1], from the step key's "blind-permutation" stream. */
export function serverPermutation(stepKey, n) {
  return shuffled(stepKey, STEP_STREAMS.permutation, Array.from({ length: n }, (_, i) => i));
}

/** `count` scalars, each the next 64 bytes of the stream read little-endian, mod ℓ (0 kept). */
function wideScalars(stream, count) {
  return Array.from({ length: count }, () => g.scalarFromWide(stream.read(64)));
}

/** r'_0 … r'_(n−1), by input index, from the step key's "blind-reencryption" stream. */
export function serverReencryption(stepKey, n) {
  return wideScalars(new ByteStream(stepKey, STEP_STREAMS.reencryption), n);
}

/** The proof's 4n + 4 draws from the step key's "blind-proof" stream, in the order drawn. */
export function serverProofDraws(stepKey, n) {
  return wideScalars(new ByteStream(stepKey, STEP_STREAMS.proof), 4 * n + 4);
}

/**
 * A list of 15.11.5's draws in its order — r_ψ(i) for i = 1 … N, r̂_1 … r̂_N, ω_1 … ω_4, then
 * ω̂_i, ω'_i for each i — as shuffle.js's prove takes them (r by input index).
 */
export function proofDraws(drawn, psi) {
  const n = psi.length;
  if (drawn.length !== 4 * n + 4) throw new RangeError("a proof draws 4n + 4 scalars");
  const r = new Array(n);
  psi.forEach((j, i) => (r[j] = drawn[i]));
  const pairs = drawn.slice(2 * n + 4);
  return {
    r,
    rHat: drawn.slice(n, 2 * n),
    omega: drawn.slice(2 * n, 2 * n + 4),
    omegaHat: pairs.filter((_, k) => k % 2 === 0),
    omegaPrime: pairs.filter((_, k) => k % 2 === 1),
  };
}

/**
 * The secret of the service's step (15.12.3) for `where` = {table, round, game, decks}: ψ,
 * r' by input index and the proof's 4N + 4 draws, {psi, rPrime, drawn}, from the step key of
 * the shuffle key K for X and `where`. Secret while the round is in play; for the service's own
 * use and for tests, never logged with the step.
 */
export function serverWitness(shuffleKey, X, where) {
  return drawWitness(serverStepKey(shuffleKey, X, where), publicDeck(where.game, where.decks).length);
}

function drawWitness(stepKey, n) {
  const [psi, rPrime] = [serverPermutation(stepKey, n), serverReencryption(stepKey, n)];
  return { psi, rPrime, drawn: serverProofDraws(stepKey, n) };
}

/** The public step the shuffle key gives, not yet checked: {context, input, output, proof}. */
function drawStep(shuffleKey, X, where) {
  const context = stepContext(where);
  const input = publicDeck(where.game, where.decks);
  const { psi, rPrime, drawn } = drawWitness(serverStepKey(shuffleKey, X, where), input.length);
  const { output } = shuffle(input, X, { psi, rPrime });
  const proof = prove(context, X, input, output, psi, rPrime, proofDraws(drawn, psi));
  return { context, input, output, proof };
}

/**
 * The service's step (15.12.3) for `where` = {table, round, game, decks}: the public deck of
 * (game, decks) shuffled under the joint key X, with its proof for the context (table, round,
 * "server", "shuffle", 0), verified before it is returned (15.12.2; OwnProofError). A pure
 * function of the shuffle key, X and `where`. Returns the public step only, {context, input,
 * output, proof (15.11.6's JSON form)}; its secret is serverWitness's.
 */
export function serverStep(shuffleKey, X, where) {
  const step = drawStep(shuffleKey, X, where);
  own(() => verifyShuffle(step.context, X, step.input, step.output, step.proof));
  return step;
}

/**
 * 15.12.3's check: the logged step (`output`, {a, b} encodings; `proof`, JSON form) is the one
 * the shuffle key gives for X and `where`, encoding for encoding. Returns nothing or throws
 * ServerStepMismatchError naming the first difference ("deck", "deck[i]", "proof",
 * "proof.<member>"), even where 15.11.7 would accept the proof.
 */
export function checkServerStep(shuffleKey, X, where, output, proof) {
  const expected = drawStep(shuffleKey, X, where);
  if (!Array.isArray(output) || output.length !== expected.output.length) {
    throw new ServerStepMismatchError("deck", "not as long as the public deck");
  }
  const sameBytes = (v, w) => w instanceof Uint8Array && equalBytes(v, w);
  expected.output.forEach((e, i) => {
    const given = output[i] ?? {};
    if (!sameBytes(e.a, given.a) || !sameBytes(e.b, given.b)) {
      throw new ServerStepMismatchError(`deck[${i}]`, "not the shuffle key's re-encryption");
    }
  });
  if (!hasExactly(proof, PROOF_MEMBERS)) {
    throw new ServerStepMismatchError("proof", "the members are not exactly 15.11.6's");
  }
  for (const name of PROOF_MEMBERS) {
    if (JSON.stringify(proof[name]) !== JSON.stringify(expected.proof[name])) {
      throw new ServerStepMismatchError(`proof.${name}`, "not the shuffle key's proof");
    }
  }
}

// ---- 15.12.4: opening a card with the round keys -------------------------------------------

/**
 * M = a − ((x_0 + … + x_(n−1)) mod ℓ)·b, from every party's private round key. The caller has
 * checked each key (x_j·G = X_j, keys.checkRevealedKey): this is the arithmetic only. The card
 * is then elgamal.cardIndex(M, points).
 */
export function decryptWithKeys(ciphertext, privateKeys) {
  const x = privateKeys.reduce((acc, k) => g.mod(acc + k), 0n);
  return g.sub(ciphertext.a, g.mul(ciphertext.b, x));
}
