// SPEC 15.11: the shuffle step and its Terelius–Wikström proof in the browser module: honest
// steps verify (from the public deck, whose b are O, and after it), and the named negative
// cases are refused at the step that names them. Python's shuffle vectors are checked in
// blind_shuffle_vectors.test.mjs.

import assert from "node:assert/strict";
import test from "node:test";

import { bytesToHex, hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import * as e from "../../api/static/web/js/fairdeal/blind/elgamal.js";
import {
  BlindError,
  InvalidShuffleProofError,
  MalformedShuffleProofError,
  ShuffleProofError,
} from "../../api/static/web/js/fairdeal/blind/errors.js";
import * as g from "../../api/static/web/js/fairdeal/blind/group.js";
import * as k from "../../api/static/web/js/fairdeal/blind/keys.js";
import * as s from "../../api/static/web/js/fairdeal/blind/shuffle.js";

const utf8 = (t) => new TextEncoder().encode(t);
const CTX = utf8("table t1, round 3, step 1");
const X = k.jointKey([k.publicKey(k.newRoundKey()), k.publicKey(k.newRoundKey())]);

function honest(n = 6) {
  const deck = e.publicDeck("toto21", 1).slice(0, n);
  const input = s.shuffle(deck, X).output; // b ≠ O, as after the server's step
  const step = s.shuffle(input, X);
  const proof = s.prove(CTX, X, input, step.output, step.psi, step.rPrime);
  return { input, ...step, proof };
}

const refusedAt = (step, Kind = ShuffleProofError) => (err) =>
  err instanceof Kind && err.step === step && err.code === "shuffle_invalid";

test("an honest step from the public deck (every b = O) verifies, for n = 36", () => {
  const deck = e.publicDeck("toto21", 1);
  const step = s.shuffle(deck, X);
  const proof = s.prove(CTX, X, deck, step.output, step.psi, step.rPrime);
  s.verifyShuffle(CTX, X, deck, step.output, proof);
  assert.equal(Object.keys(proof).length, 14);
  assert.equal(proof.c.length, 36);
});

test("an honest step after another verifies, and the shuffle permutes and re-encrypts", () => {
  const { input, output, psi, rPrime, proof } = honest();
  s.verifyShuffle(CTX, X, input, output, proof);
  output.forEach((ct, i) => assert.deepEqual(ct, e.reEncrypt(input[psi[i]], rPrime[psi[i]], X)));
});

test("n = 1 verifies; the generators are fixed and nested", () => {
  const { input, output, psi, rPrime } = honest(1);
  s.verifyShuffle(CTX, X, input, output, s.prove(CTX, X, input, output, psi, rPrime));
  const few = s.generators(3).map((H) => bytesToHex(g.fromPoint(H)));
  assert.deepEqual(s.generators(10).slice(0, 4).map((H) => bytesToHex(g.fromPoint(H))), few);
  assert.equal(new Set(s.generators(48).map((H) => bytesToHex(g.fromPoint(H)))).size, 49);
});

// The named negative cases of SPEC 15.11.8, each with the check that refuses it.
test("a stacked card is refused, with the honest proof and with one made for the tampered deck", () => {
  const { input, output, psi, rPrime, proof } = honest();
  const stacked = [...output];
  stacked[2] = e.encrypt(e.cardPoint("toto21", 1, 35), g.randomScalar(), X);
  assert.throws(() => s.verifyShuffle(CTX, X, input, stacked, proof), refusedAt("t1"));
  const forged = s.prove(CTX, X, input, stacked, psi, rPrime);
  assert.throws(() => s.verifyShuffle(CTX, X, input, stacked, forged), InvalidShuffleProofError);
});

test("a swapped pair is refused, with the honest proof and with one made for it", () => {
  const { input, output, psi, rPrime, proof } = honest();
  const swapped = [...output];
  [swapped[0], swapped[1]] = [swapped[1], swapped[0]];
  assert.throws(() => s.verifyShuffle(CTX, X, input, swapped, proof), InvalidShuffleProofError);
  const forged = s.prove(CTX, X, input, swapped, psi, rPrime);
  assert.throws(() => s.verifyShuffle(CTX, X, input, swapped, forged), InvalidShuffleProofError);
});

test("wrong randomness: an output re-encrypted with other randomness than the proof's is refused", () => {
  const { input, psi, rPrime } = honest();
  const other = rPrime.map((r, j) => (j === psi[3] ? g.mod(r + 1n) : r));
  const { output } = s.shuffle(input, X, { psi, rPrime: other });
  const proof = s.prove(CTX, X, input, output, psi, rPrime);
  assert.throws(() => s.verifyShuffle(CTX, X, input, output, proof), refusedAt("t41", InvalidShuffleProofError));
});

test("a proof reused under another context, another key or another input deck is refused", () => {
  const { input, output, proof } = honest();
  const elsewhere = utf8("table t1, round 3, step 2");
  assert.throws(() => s.verifyShuffle(elsewhere, X, input, output, proof), InvalidShuffleProofError);
  const otherKey = k.jointKey([X, k.publicKey(k.newRoundKey())]);
  assert.throws(() => s.verifyShuffle(CTX, otherKey, input, output, proof), InvalidShuffleProofError);
  const otherInput = s.shuffle(input, X).output;
  assert.throws(() => s.verifyShuffle(CTX, X, otherInput, output, proof), InvalidShuffleProofError);
});

test("a changed response or commitment is refused", () => {
  const { input, output, proof } = honest();
  const bump = (hex) => g.scalarToBytes(g.mod(g.scalarFromBytes(hexToBytes(hex)) + 1n));
  const changes = {
    s1: { s1: bytesToHex(bump(proof.s1)) },
    s4: { s4: bytesToHex(bump(proof.s4)) },
    "s_prime[2]": { s_prime: proof.s_prime.map((v, i) => (i === 2 ? bytesToHex(bump(v)) : v)) },
    "s_hat[0]": { s_hat: proof.s_hat.map((v, i) => (i === 0 ? bytesToHex(bump(v)) : v)) },
    "c[1] swapped with c[0]": { c: [proof.c[1], proof.c[0], ...proof.c.slice(2)] },
    t3: { t3: proof.t1 },
  };
  for (const [name, change] of Object.entries(changes)) {
    const changed = { ...proof, ...change };
    assert.throws(() => s.verifyShuffle(CTX, X, input, output, changed), InvalidShuffleProofError, name);
  }
});

test("malformed steps are refused at shape or encodings, before any equation", () => {
  const { input, output, proof } = honest(3);
  const { t1, ...missing } = proof;
  const big = bytesToHex(new Uint8Array(32).fill(255));
  const shapes = {
    "an empty deck": [[], [], proof],
    "an output deck of another length": [input, output.slice(1), proof],
    "a missing member": [input, output, missing],
    "an extra member": [input, output, { ...proof, t5: t1 }],
    "a short array": [input, output, { ...proof, t_hat: proof.t_hat.slice(1) }],
    "a number for a string": [input, output, { ...proof, s1: 1 }],
  };
  for (const [name, [i, o, pr]] of Object.entries(shapes)) {
    assert.throws(() => s.verifyShuffle(CTX, X, i, o, pr), refusedAt("shape", MalformedShuffleProofError), name);
  }
  const encodings = {
    "uppercase hex": [X, { ...proof, t1: proof.t1.toUpperCase() }],
    "a scalar ≥ ℓ": [X, { ...proof, s2: big }],
    "a non-canonical element": [X, { ...proof, t2: "ed" + "ff".repeat(30) + "7f" }],
    "a joint key O": [g.identity(), proof],
  };
  for (const [name, [key, pr]] of Object.entries(encodings)) {
    const refused = refusedAt("encodings", MalformedShuffleProofError);
    assert.throws(() => s.verifyShuffle(CTX, key, input, output, pr), refused, name);
  }
});

test("verifyStep reads the JSON forms: a deck entry that is no ciphertext is refused at shape", () => {
  const { input, output, proof } = honest(3);
  const hexDeck = (d) => d.map((ct) => ({ a: bytesToHex(ct.a), b: bytesToHex(ct.b) }));
  const [inJ, outJ, key] = [hexDeck(input), hexDeck(output), bytesToHex(X)];
  s.verifyStep(CTX, key, inJ, outJ, proof);
  const extra = [{ ...outJ[0], c: outJ[0].a }, ...outJ.slice(1)];
  const refused = refusedAt("shape", MalformedShuffleProofError);
  assert.throws(() => s.verifyStep(CTX, key, inJ, extra, proof), refused);
  assert.throws(() => s.verifyStep(CTX, key, inJ, outJ.map(() => "00"), proof), refused);
  const upper = [{ ...outJ[0], a: outJ[0].a.toUpperCase() }, ...outJ.slice(1)];
  assert.throws(() => s.verifyStep(CTX, key, inJ, upper, proof), refusedAt("encodings", MalformedShuffleProofError));
});

test("a proof whose members s1 and s2 are one member named \"s1,s2\" is refused for its members", () => {
  const { input, output, proof } = honest(3);
  const { s1, s2, ...rest } = proof;
  const joined = { ...rest, "s1,s2": [s1, s2] }; // its sorted names joined with commas are 15.11.6's
  const refused = (err) => refusedAt("shape", MalformedShuffleProofError)(err) && /members/.test(err.message);
  assert.throws(() => s.verifyShuffle(CTX, X, input, output, joined), refused);
});

test("a shuffle refusal is a BlindError, as Python's ShuffleProofError(BlindError)", () => {
  const { input, output, proof } = honest(3);
  assert.throws(() => s.verifyShuffle(CTX, X, input, output.slice(1), proof), BlindError);
  assert.ok(new InvalidShuffleProofError("t1", "x") instanceof BlindError);
});
