// SPEC 15.1–15.9 in the browser module (fairdeal/blind/): tags, card points, round keys, the
// proof of knowledge, the share proof, ElGamal and the JSON forms, with the named negative
// cases; the vectors of both languages are checked in blind_vectors.test.mjs.

import assert from "node:assert/strict";
import test from "node:test";

import { bytesToHex, hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import * as e from "../../api/static/web/js/fairdeal/blind/elgamal.js";
import {
  BadProofError,
  BlindEncodingError,
  IdentityKeyError,
  InvalidElementError,
  InvalidScalarError,
  NotACardError,
  WrongRevealedKeyError,
} from "../../api/static/web/js/fairdeal/blind/errors.js";
import * as g from "../../api/static/web/js/fairdeal/blind/group.js";
import * as json from "../../api/static/web/js/fairdeal/blind/json.js";
import * as k from "../../api/static/web/js/fairdeal/blind/keys.js";
import * as p from "../../api/static/web/js/fairdeal/blind/proofs.js";
import { BLIND_TAGS } from "../../api/static/web/js/fairdeal/blind/tags.js";

const text = (s) => new TextEncoder().encode(s);
const CONTEXT = text("table t1, round 3, seat 1, round key");

test("15.1: the tags are SPEC's bytes (15.11.1 and 15.12 included)", () => {
  const expected = {
    CARD_POINT: "666169726465616c2f76332f636172642d706f696e7400",
    ROUND_KEY: "666169726465616c2f76332f726f756e642d6b657900",
    KEY_PROOF: "666169726465616c2f76332f6b65792d70726f6f6600",
    SHARE_PROOF: "666169726465616c2f76332f73686172652d70726f6f6600",
    PROOF_CONTEXT: "666169726465616c2f76332f70726f6f662d636f6e7465787400",
    SERVER_NONCE: "666169726465616c2f76332f7365727665722d6e6f6e636500",
    SERVER_STEP: "666169726465616c2f76332f7365727665722d7374657000",
    SHUFFLE_GENERATOR: "666169726465616c2f76332f73687566666c652d67656e657261746f7200",
    SHUFFLE_STATEMENT: "666169726465616c2f76332f73687566666c652d73746174656d656e7400",
    SHUFFLE_U_SEED: "666169726465616c2f76332f73687566666c652d752d7365656400",
    SHUFFLE_U: "666169726465616c2f76332f73687566666c652d7500",
    SHUFFLE_CHALLENGE: "666169726465616c2f76332f73687566666c652d6368616c6c656e676500",
  };
  assert.deepEqual(Object.fromEntries(Object.entries(BLIND_TAGS).map(([n, v]) => [n, bytesToHex(v)])), expected);
});

test("15.4: the card points of each deck are pairwise distinct, by index", () => {
  for (const [game, decks, size] of [["toto21", 1, 36], ["kvitlach", 1, 24], ["kvitlach", 2, 48]]) {
    const points = e.cardPoints(game, decks).map(bytesToHex);
    assert.equal(points.length, size);
    assert.equal(new Set(points).size, size, `${game} ${decks}`);
  }
  // Kvitlach's two decks share no point with its one deck (decks is hashed).
  const one = new Set(e.cardPoints("kvitlach", 1).map(bytesToHex));
  assert.ok(e.cardPoints("kvitlach", 2).every((P) => !one.has(bytesToHex(P))));
  assert.throws(() => e.cardPoint("toto21", 1, 36), RangeError);
  assert.throws(() => e.cardPoint("toto21", 2, 0), RangeError);
});

test("15.5: round keys: the server's from its seed, x·G, the joint key, a revealed key", () => {
  const seed = new Uint8Array(32).fill(7);
  const x0 = k.serverRoundKey(seed);
  assert.equal(x0, g.hashToScalar(new Uint8Array([...BLIND_TAGS.ROUND_KEY, ...seed])));
  const xs = [x0, k.newRoundKey(), k.newRoundKey()];
  const Xs = xs.map(k.publicKey);
  assert.deepEqual(k.jointKey(Xs), k.publicKey(g.mod(xs[0] + xs[1] + xs[2])));
  k.checkRevealedKey(Xs[1], xs[1]);
  assert.throws(() => k.checkRevealedKey(Xs[1], xs[2]), WrongRevealedKeyError);
  assert.throws(() => k.jointKey([Xs[0], g.identity()]), IdentityKeyError);
  assert.throws(() => k.publicKey(0n), RangeError);
  assert.throws(() => k.publicKey(g.ORDER), RangeError);
});

test("15.5: jointKey refuses what Python's joint_key refuses, class for class", () => {
  const X = k.publicKey(5n);
  const nonCanonical = hexToBytes("ed" + "ff".repeat(30) + "7f"); // p − 2: not a canonical encoding
  assert.throws(() => k.jointKey([]), RangeError, "no key at all (Python: ValueError)");
  assert.throws(() => k.jointKey([X, g.identity()]), IdentityKeyError, "a key O");
  const refused = (err) => err instanceof InvalidElementError && !(err instanceof IdentityKeyError);
  assert.throws(() => k.jointKey([X, nonCanonical]), refused, "a non-canonical key");
  assert.deepEqual(k.jointKey([X]), X);
});

test("15.6: a proof of knowledge verifies for its key and context only", () => {
  const x = k.newRoundKey();
  const X = k.publicKey(x);
  const proof = p.proveKey(x, CONTEXT);
  p.verifyKey(X, CONTEXT, proof);
  const cases = {
    "another context": () => p.verifyKey(X, text("table t1, round 4, seat 1, round key"), proof),
    "another key": () => p.verifyKey(k.publicKey(k.newRoundKey()), CONTEXT, proof),
    "a flipped s": () => p.verifyKey(X, CONTEXT, { c: proof.c, s: g.mod(proof.s + 1n) }),
    "a flipped c": () => p.verifyKey(X, CONTEXT, { c: g.mod(proof.c + 1n), s: proof.s }),
  };
  for (const [name, run] of Object.entries(cases)) assert.throws(run, BadProofError, name);
  assert.throws(() => p.verifyKey(g.identity(), CONTEXT, proof), IdentityKeyError);
});

test("15.6, 15.7: a proof scalar not below ℓ is an InvalidScalarError, as in Python", () => {
  const x = k.newRoundKey();
  const [X, A] = [k.publicKey(x), g.base(3n)];
  const key = p.proveKey(x, CONTEXT);
  const { share, proof } = p.proveShare(x, A, CONTEXT);
  const cases = {
    "a key proof's s + ℓ": () => p.verifyKey(X, CONTEXT, { c: key.c, s: key.s + g.ORDER }),
    "a key proof's c = ℓ": () => p.verifyKey(X, CONTEXT, { c: g.ORDER, s: key.s }),
    "a share proof's s + ℓ": () => p.verifyShare(X, A, share, CONTEXT, { c: proof.c, s: proof.s + g.ORDER }),
    "a negative c": () => p.verifyShare(X, A, share, CONTEXT, { c: -1n, s: proof.s }),
  };
  for (const [name, run] of Object.entries(cases)) assert.throws(run, InvalidScalarError, name);
});

test("15.6, 15.7: a given nonce outside [1, ℓ) is refused: with k ≡ 0, s = c·x would publish x", () => {
  const x = k.newRoundKey();
  const A = g.base(3n);
  for (const [name, nonce] of [["0", 0n], ["ℓ", g.ORDER], ["ℓ + 1", g.ORDER + 1n], ["-5", -5n], ["a Number", 5]]) {
    assert.throws(() => p.proveKey(x, CONTEXT, nonce), RangeError, `proveKey, nonce ${name}`);
    assert.throws(() => p.proveShare(x, A, CONTEXT, nonce), RangeError, `proveShare, nonce ${name}`);
  }
  p.verifyKey(k.publicKey(x), CONTEXT, p.proveKey(x, CONTEXT, g.ORDER - 1n));
  p.verifyShare(k.publicKey(x), A, g.mul(A, x), CONTEXT, p.proveShare(x, A, CONTEXT, 1n).proof);
});

test("15.6: the hashed input is 22 + 96 + 8 + len(context) bytes", () => {
  const X = k.publicKey(5n);
  const input = p.keyProofInput(X, g.base(9n), CONTEXT);
  assert.equal(input.length, 22 + 96 + 8 + CONTEXT.length);
  assert.deepEqual(input.slice(22, 54), g.base(1n));
});

test("15.7: a share with its proof verifies for its key, element and context only", () => {
  const x = k.newRoundKey();
  const X = k.publicKey(x);
  const A = g.base(k.newRoundKey());
  const { share, proof } = p.proveShare(x, A, CONTEXT);
  assert.deepEqual(share, g.mul(A, x));
  p.verifyShare(X, A, share, CONTEXT, proof);
  const other = g.base(k.newRoundKey());
  const cases = {
    "another context": () => p.verifyShare(X, A, share, text("elsewhere"), proof),
    "another key": () => p.verifyShare(k.publicKey(k.newRoundKey()), A, share, CONTEXT, proof),
    "another element": () => p.verifyShare(X, other, share, CONTEXT, proof),
    "a wrong share": () => p.verifyShare(X, A, g.add(share, g.base(1n)), CONTEXT, proof),
    "a flipped s": () => p.verifyShare(X, A, share, CONTEXT, { c: proof.c, s: g.mod(proof.s + 1n) }),
  };
  for (const [name, run] of Object.entries(cases)) assert.throws(run, BadProofError, name);
  assert.equal(p.shareProofInput(X, A, share, A, A, CONTEXT).length, 24 + 192 + 8 + CONTEXT.length);
});

test("15.7: the share of O is O, and its proof verifies", () => {
  const x = k.newRoundKey();
  const { share, proof } = p.proveShare(x, g.identity(), CONTEXT);
  assert.ok(g.isIdentity(share));
  p.verifyShare(k.publicKey(x), g.identity(), share, CONTEXT, proof);
});

test("15.8: three parties: encrypt, re-encrypt, shares with proofs, decrypt to the card", () => {
  const xs = [k.serverRoundKey(new Uint8Array(32)), k.newRoundKey(), k.newRoundKey()];
  const Xs = xs.map(k.publicKey);
  const X = k.jointKey(Xs);
  const points = e.cardPoints("toto21", 1);
  const deck = e.publicDeck("toto21", 1);
  assert.ok(deck.every((ct) => g.isIdentity(ct.b)));
  const once = e.reEncrypt(deck[17], k.newRoundKey(), X);
  const twice = e.reEncrypt(once, k.newRoundKey(), X);
  const shares = xs.map((x, j) => {
    const { share, proof } = p.proveShare(x, twice.b, CONTEXT);
    p.verifyShare(Xs[j], twice.b, share, CONTEXT, proof);
    return share;
  });
  assert.equal(e.cardIndex(e.decrypt(twice, shares), points), 17);
  assert.throws(() => e.cardIndex(e.decrypt(twice, shares.slice(1)), points), NotACardError);
  const fresh = e.encrypt(points[3], 42n, X);
  assert.equal(e.cardIndex(e.decrypt(fresh, xs.map((x) => g.mul(fresh.b, x))), points), 3);
});

test("15.9: JSON forms are read strictly and written in the one form read", () => {
  const x = k.newRoundKey();
  const X = k.publicKey(x);
  const proof = p.proveKey(x, CONTEXT);
  const written = json.writeKeyWithProof(X, proof);
  assert.deepEqual(json.readKeyWithProof(written), { key: X, proof });
  assert.deepEqual(json.readKeyWithProof(JSON.parse(JSON.stringify(written))).proof, proof);
  const refused = {
    "an extra member": { ...written, extra: 1 },
    "a missing member": { key: written.key },
    "uppercase hex": { ...written, key: written.key.toUpperCase() },
    "a short element": { ...written, key: written.key.slice(2) },
    "a proof member missing": { key: written.key, proof: { c: written.proof.c } },
  };
  for (const [name, value] of Object.entries(refused)) {
    assert.throws(() => json.readKeyWithProof(value), BlindEncodingError, name);
  }
  assert.throws(() => json.readKeyWithProof({ ...written, key: "00".repeat(32) }), IdentityKeyError);
  const big = bytesToHex(new Uint8Array(32).fill(255));
  assert.throws(() => json.readProof({ c: big, s: big }), InvalidScalarError);
  const ct = e.encrypt(g.base(3n), 5n, X);
  assert.deepEqual(json.readCiphertext(json.writeCiphertext(ct)), ct);
  const share = p.proveShare(x, ct.b, CONTEXT);
  assert.deepEqual(json.readShare(json.writeShare(share)), share);
  assert.deepEqual(Object.keys(json.writeShare(share)), ["proof", "share"]);
  assert.deepEqual(hexToBytes(json.writeScalar(1n)), g.scalarToBytes(1n));
});

test("15.9: members are compared as a set of names, not as the names joined with commas", () => {
  const commaJoined = [
    ["a proof", { "c,s": "00".repeat(32) }, ["c", "s"]],
    ["a ciphertext", { "a,b": "00".repeat(32) }, ["a", "b"]],
    ["a key with its proof", { "key,proof": 1 }, ["key", "proof"]],
    ["a member twice over", { c: 1, "c,s": 2 }, ["c", "s"]],
  ];
  for (const [name, value, names] of commaJoined) {
    assert.equal(json.hasExactly(value, names), false, name);
    assert.throws(() => json.members(value, names), /members must be exactly/, name);
  }
  assert.ok(json.hasExactly({ s: 1, c: 2 }, ["c", "s"]));
  assert.ok(!json.hasExactly({ c: 1 }, ["c", "s"]) && !json.hasExactly(["c", "s"], ["0", "1"]));
  assert.throws(() => json.readProof({ "c,s": "00" }), BlindEncodingError);
});
