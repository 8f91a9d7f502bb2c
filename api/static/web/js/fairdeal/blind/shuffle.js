// SPEC 15.11: the shuffle step and its Terelius–Wikström proof, as Haenni, Locher, Koenig and
// Dubuis write it ("Pseudo-Code Algorithms for Verifiable Re-Encryption Mix-Nets", 2017:
// GenShuffle, GenProof, CheckProof), in additive notation over ristretto255.
//
// Indices: the SPEC counts 1 … N; arrays here count 0 … N−1, so the SPEC's i is [i − 1] and
// H_i is H[i] (H[0] is the chain's base). psi[i] = j means output i re-encrypts input j.
//
// Decks are arrays of {a, b} element encodings; the proof is its JSON form (15.11.6).
// Secrets (ψ, r', and every scalar the prover draws, which with s' = ω' + c·u' would give ψ)
// only ever meet constant-time multiplications (group.pointMul); the checker's scalars are
// public and go through multi-scalar sums (group.msm).

import { bytesToHex, concatBytes, u64be } from "../bytes.js";
import { sha512 } from "../../vendor/noble-hashes/sha2.js";
import { BlindEncodingError, InvalidShuffleProofError, MalformedShuffleProofError } from "./errors.js";
import * as g from "./group.js";
import { hasExactly, hex32, readScalar, writeScalar } from "./json.js";
import { roundKeyPoint } from "./keys.js";
import { SHUFFLE_CHALLENGE, SHUFFLE_GENERATOR, SHUFFLE_STATEMENT, SHUFFLE_U, SHUFFLE_U_SEED } from "./tags.js";

const ARRAYS = new Set(["c", "c_hat", "t_hat", "s_hat", "s_prime"]);
const SCALARS = ["s1", "s2", "s3", "s4", "s_hat", "s_prime"];
const COMMITMENTS = ["c", "c_hat", "t1", "t2", "t3", "t41", "t42", "t_hat"];
/** The 14 members of a proof's JSON form (15.11.6). */
export const PROOF_MEMBERS = Object.freeze([...COMMITMENTS, ...SCALARS]);

// ---- 15.11.2 and 15.11.3: generators and challenges ----------------------------------------

const generatorCache = [];

/** H_0 … H_n = from_hash(SHA-512(SHUFFLE_GENERATOR ‖ u64be(i))), as points (cached). */
export function generators(n) {
  for (let i = generatorCache.length; i <= n; i++) {
    generatorCache.push(g.pointFromUniform(sha512(concatBytes(SHUFFLE_GENERATOR, u64be(i)))));
  }
  return generatorCache.slice(0, n + 1);
}

/** y = SHA-512(SHUFFLE_STATEMENT ‖ u64be(len(ctx)) ‖ ctx ‖ u64be(N) ‖ X ‖ the decks). */
export function statementDigest(ctx, X, input, output) {
  const decks = [...input, ...output].flatMap((e) => [e.a, e.b]);
  return sha512(concatBytes(SHUFFLE_STATEMENT, u64be(ctx.length), ctx, u64be(input.length), X, ...decks));
}

/** seed = SHA-512(SHUFFLE_U_SEED ‖ y ‖ c_1 ‖ … ‖ c_N). */
export function permutationSeed(y, c) {
  return sha512(concatBytes(SHUFFLE_U_SEED, y, ...c));
}

/** u_1 … u_N from y and the permutation commitment's encodings. */
export function permutationChallenges(y, c) {
  const seed = permutationSeed(y, c);
  return c.map((_, i) => g.scalarFromWide(sha512(concatBytes(SHUFFLE_U, seed, u64be(i + 1)))));
}

/** The encodings of a proof's (JSON form's) commitments, by member: 32 bytes each. */
export function commitmentBytes(proof) {
  const one = (text) => hex32(text, "a commitment");
  return Object.fromEntries(COMMITMENTS.map((m) => [m, ARRAYS.has(m) ? proof[m].map(one) : one(proof[m])]));
}

/** c from y and every commitment's encoding (commitmentBytes), in 15.11.3's order. */
export function proofChallenge(y, p) {
  const parts = [y, ...p.c, ...p.c_hat, p.t1, p.t2, p.t3, p.t41, p.t42, ...p.t_hat];
  return g.scalarFromWide(sha512(concatBytes(SHUFFLE_CHALLENGE, ...parts)));
}

// ---- 15.11.4: the shuffle -----------------------------------------------------------------

/** A uniform integer in [0, bound), by rejection from 32-bit draws. */
function randomIndex(bound) {
  const limit = 2 ** 32 - (2 ** 32 % bound);
  for (;;) {
    const [v] = globalThis.crypto.getRandomValues(new Uint32Array(1));
    if (v < limit) return v % bound;
  }
}

/** A uniform permutation of 0 … n−1 (Knuth's shuffle). */
export function randomPermutation(n) {
  const psi = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [psi[i], psi[j]] = [psi[j], psi[i]];
  }
  return psi;
}

function checkPermutation(psi, n) {
  const seen = new Set(psi);
  if (psi.length !== n || seen.size !== n || psi.some((j) => !Number.isInteger(j) || j < 0 || j >= n)) {
    throw new RangeError("psi is not a permutation of the deck's positions");
  }
}

/**
 * e'_i = (a_j + r'_j·X, b_j + r'_j·G) with j = ψ(i). `psi` and `rPrime` (r'_j by input j)
 * are drawn fresh unless given (vectors, a reproducible step).
 */
export function shuffle(deck, X, { psi = randomPermutation(deck.length), rPrime } = {}) {
  checkPermutation(psi, deck.length);
  const r = rPrime ?? deck.map(() => g.randomScalar());
  const key = roundKeyPoint(X);
  const output = psi.map((j) => ({
    a: g.fromPoint(g.toPoint(deck[j].a).add(g.pointMul(key, r[j]))),
    b: g.fromPoint(g.toPoint(deck[j].b).add(g.pointMul(g.BASE_POINT, r[j]))),
  }));
  return { output, psi, rPrime: r };
}

// ---- 15.11.5: the proof -------------------------------------------------------------------

/** Every scalar the prover draws, fresh. */
function freshDraws(n) {
  const many = () => Array.from({ length: n }, () => g.randomScalar());
  const omega = [1, 2, 3, 4].map(() => g.randomScalar());
  return { r: many(), rHat: many(), omega, omegaHat: many(), omegaPrime: many() };
}

const sum = (points) => points.reduce((acc, p) => acc.add(p), g.IDENTITY_POINT);
const enc = (points) => points.map(g.fromPoint);

/**
 * The proof (JSON form, 15.11.6) that `output` is `input` permuted by psi and re-encrypted
 * with rPrime under X, for the context ctx. `draws` ({r, rHat, omega: [ω1..ω4], omegaHat,
 * omegaPrime}; r by input index j, the others by output index i) is for vectors, and for a
 * step recomputed after its round's reveal. `revealed`: every scalar is public (the service's
 * step replayed from its revealed seed), so the point arithmetic may be variable time.
 */
export function prove(
  ctx, X, input, output, psi, rPrime, draws = freshDraws(input.length), { revealed = false } = {},
) {
  const n = input.length;
  checkPermutation(psi, n);
  const key = roundKeyPoint(X);
  const H = generators(n);
  const { r, rHat, omega, omegaHat, omegaPrime } = draws;
  const mul = revealed ? g.pointMulPublic : g.pointMul;
  const G = g.BASE_POINT;
  // 1. Permutation commitment: c_j = r_j·G + H_i, j = ψ(i).
  const c = new Array(n);
  psi.forEach((j, i) => (c[j] = mul(G, r[j]).add(H[i + 1])));
  const cBytes = enc(c);
  // 2. Challenges u, and u'_i = u_ψ(i).
  const y = statementDigest(ctx, X, input, output);
  const u = permutationChallenges(y, cBytes);
  const uPrime = psi.map((j) => u[j]);
  // 3. Commitment chain: ĉ_i = r̂_i·G + u'_i·ĉ_(i−1), ĉ_0 = H_0.
  const cHat = [];
  let previous = H[0];
  for (let i = 0; i < n; i++) cHat.push((previous = mul(G, rHat[i]).add(mul(previous, uPrime[i]))));
  // 4. Commitments t.
  const out = output.map((e) => ({ a: g.toPoint(e.a), b: g.toPoint(e.b) }));
  const weighted = revealed
    ? (points) => g.msm(points, omegaPrime)
    : (points) => sum(points.map((p, i) => mul(p, omegaPrime[i])));
  const t = {
    t1: mul(G, omega[0]),
    t2: mul(G, omega[1]),
    t3: mul(G, omega[2]).add(weighted(H.slice(1))),
    t41: weighted(out.map((e) => e.a)).subtract(mul(key, omega[3])),
    t42: weighted(out.map((e) => e.b)).subtract(mul(G, omega[3])),
  };
  const tHat = cHat.map((_, i) => mul(G, omegaHat[i]).add(mul(i === 0 ? H[0] : cHat[i - 1], omegaPrime[i])));
  const commitments = { c: cBytes, c_hat: enc(cHat), t_hat: enc(tHat) };
  for (const name of ["t1", "t2", "t3", "t41", "t42"]) commitments[name] = g.fromPoint(t[name]);
  // 5. Challenge c.
  const challenge = proofChallenge(y, commitments);
  // 6. Responses, with v_N = 1 and v_i = u'_(i+1)·v_(i+1).
  const v = new Array(n);
  v[n - 1] = 1n;
  for (let i = n - 2; i >= 0; i--) v[i] = g.mod(uPrime[i + 1] * v[i + 1]);
  const dot = (xs, ys) => xs.reduce((acc, x, i) => g.mod(acc + x * (ys ? ys[i] : 1n)), 0n);
  const respond = (w, secret) => writeScalar(g.mod(w + challenge * secret));
  return {
    c: commitments.c.map(bytesToHex),
    c_hat: commitments.c_hat.map(bytesToHex),
    t1: bytesToHex(commitments.t1),
    t2: bytesToHex(commitments.t2),
    t3: bytesToHex(commitments.t3),
    t41: bytesToHex(commitments.t41),
    t42: bytesToHex(commitments.t42),
    t_hat: commitments.t_hat.map(bytesToHex),
    s1: respond(omega[0], dot(r)),
    s2: respond(omega[1], dot(rHat, v)),
    s3: respond(omega[2], dot(r, u)),
    s4: respond(omega[3], dot(rPrime, u)),
    s_hat: rHat.map((rh, i) => respond(omegaHat[i], rh)),
    s_prime: uPrime.map((up, i) => respond(omegaPrime[i], up)),
  };
}

// ---- 15.11.7: checking a proof ------------------------------------------------------------

function refuse(step, message) {
  const Kind = step === "shape" || step === "encodings" ? MalformedShuffleProofError : InvalidShuffleProofError;
  throw new Kind(step, message);
}

// (1) Shape.
function checkShape(input, output, proof) {
  if (!Array.isArray(input)) refuse("shape", "the input deck is not an array");
  const n = input.length;
  if (n < 1) refuse("shape", "the input deck is empty");
  if (!Array.isArray(output) || output.length !== n) {
    refuse("shape", "the output deck is not as long as the input deck");
  }
  if (proof === null || typeof proof !== "object" || Array.isArray(proof)) {
    refuse("shape", "the proof is not an object");
  }
  if (!hasExactly(proof, PROOF_MEMBERS)) refuse("shape", "the proof's members are not exactly 15.11.6's");
  for (const name of PROOF_MEMBERS) {
    const value = proof[name];
    const entries = ARRAYS.has(name) ? value : [value];
    if (ARRAYS.has(name) && (!Array.isArray(value) || value.length !== n)) {
      refuse("shape", `${name} is not an array of ${n}`);
    }
    if (!entries.every((v) => typeof v === "string")) refuse("shape", `${name} holds a non-string`);
  }
}

// (2) Encodings: every element decodes, every scalar is canonical, X is not O. Returns the
// points and scalars by member, and the commitments' bytes as read (for the challenges).
function readAll(X, input, output, proof) {
  try {
    const deck = (d) => d.map((e) => ({ a: g.toPoint(e.a), b: g.toPoint(e.b) }));
    const each = (name, read, value) => (ARRAYS.has(name) ? value.map(read) : read(value));
    const bytes = commitmentBytes(proof);
    const values = {};
    for (const name of COMMITMENTS) values[name] = each(name, g.toPoint, bytes[name]);
    for (const name of SCALARS) values[name] = each(name, readScalar, proof[name]);
    return { key: roundKeyPoint(X), input: deck(input), output: deck(output), values, bytes };
  } catch (e) {
    if (e instanceof BlindEncodingError) refuse("encodings", e.message);
    throw e;
  }
}

// (5) The equations, in order: t1, t2, t3, t41, t42, t̂_1 … t̂_N.
function checkEquations(n, H, key, input, output, p, u, c) {
  const G = g.BASE_POINT;
  const minusC = g.mod(-c);
  const cu = u.map((ui) => g.mod(-c * ui));
  const uProduct = u.reduce((acc, ui) => g.mod(acc * ui), 1n);
  const Hs = H.slice(1);
  const expect = (name, computed, given) => {
    if (!computed.equals(given)) refuse(name, `${name} does not match`);
  };
  expect("t1", g.msm([G, sum(p.c).subtract(sum(Hs))], [p.s1, minusC]), p.t1);
  expect("t2", g.msm([G, p.c_hat[n - 1], H[0]], [p.s2, minusC, g.mod(c * uProduct)]), p.t2);
  expect("t3", g.msm([G, ...Hs, ...p.c], [p.s3, ...p.s_prime, ...cu]), p.t3);
  const minusS4 = g.mod(-p.s4);
  const [aOut, aIn] = [output.map((e) => e.a), input.map((e) => e.a)];
  const [bOut, bIn] = [output.map((e) => e.b), input.map((e) => e.b)];
  expect("t41", g.msm([key, ...aOut, ...aIn], [minusS4, ...p.s_prime, ...cu]), p.t41);
  expect("t42", g.msm([G, ...bOut, ...bIn], [minusS4, ...p.s_prime, ...cu]), p.t42);
  for (let i = 0; i < n; i++) {
    const previous = i === 0 ? H[0] : p.c_hat[i - 1];
    const computed = g.msm([G, previous, p.c_hat[i]], [p.s_hat[i], p.s_prime[i], minusC]);
    expect(`t_hat[${i}]`, computed, p.t_hat[i]); // 0-based, as the vectors name it
  }
}

/**
 * Check a shuffle step: `output` is `input` re-encrypted under X and permuted, for the
 * context ctx. Returns nothing, or throws a ShuffleProofError whose `step` names the check that
 * failed (MalformedShuffleProofError for steps 1–2, InvalidShuffleProofError for 5).
 */
export function verifyShuffle(ctx, X, input, output, proof) {
  if (!(ctx instanceof Uint8Array)) throw new TypeError("a context is bytes");
  // (1) Shape.
  checkShape(input, output, proof);
  // (2) Encodings.
  const { key, input: inP, output: outP, values, bytes } = readAll(X, input, output, proof);
  const n = input.length;
  // (3) Generators.
  const H = generators(n);
  // (4) Challenges, from the bytes as read.
  const y = statementDigest(ctx, X, input, output);
  const memo = memoOf(y, proof);
  if (VERIFIED.delete(memo)) {
    VERIFIED.set(memo, true); // the newest now
    return;
  }
  const u = permutationChallenges(y, bytes.c);
  const c = proofChallenge(y, bytes);
  // (5) Equations.
  checkEquations(n, H, key, inP, outP, values, u, c);
  VERIFIED.set(memo, true);
  if (VERIFIED.size > VERIFIED_KEPT) VERIFIED.delete(VERIFIED.keys().next().value);
}

// A proof found valid is remembered by the exact bytes checked (y, which covers the context,
// the key and both decks, and the proof's members, each 64 hex once read): the one memo of
// proof checks, as in fairdeal/blind/shuffle.py, so that a step checked again (the verifier's
// replay of what its step 8 checked, a bundle read twice) costs nothing (SPEC 15.13.12).
const VERIFIED = new Map();
const VERIFIED_KEPT = 256; // a few rounds' steps

function memoOf(y, proof) {
  const members = JSON.stringify(PROOF_MEMBERS.map((name) => proof[name]));
  return bytesToHex(sha512(concatBytes(y, new TextEncoder().encode(members))));
}

/** The ciphertexts of a deck in its JSON form (15.9), checked for shape only. */
function deckShape(deck, which) {
  if (!Array.isArray(deck)) refuse("shape", `the ${which} deck is not an array`);
  for (const entry of deck) {
    if (!hasExactly(entry, ["a", "b"]) || typeof entry.a !== "string" || typeof entry.b !== "string") {
      refuse("shape", `an entry of the ${which} deck is not a ciphertext`);
    }
  }
}

/**
 * verifyShuffle on the JSON forms the log carries: the joint key as hex, the decks as
 * [{a, b}] of hex (15.9), the proof (15.11.6). The same checks in the same order.
 */
export function verifyStep(ctx, key, input, output, proof) {
  // (1) Shape, the decks' entries included.
  deckShape(input, "input");
  deckShape(output, "output");
  checkShape(input, output, proof);
  // (2) Encodings of the key and the decks (the proof's in verifyShuffle).
  let read;
  try {
    const deck = (d) => d.map((e) => ({ a: hex32(e.a, "a deck's a"), b: hex32(e.b, "a deck's b") }));
    read = { key: hex32(key, "the joint key"), input: deck(input), output: deck(output) };
  } catch (e) {
    if (e instanceof BlindEncodingError) refuse("encodings", e.message);
    throw e;
  }
  verifyShuffle(ctx, read.key, read.input, read.output, proof);
}
