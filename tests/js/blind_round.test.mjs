// SPEC 15.12 (proof contexts, the service's reproducible values) in the browser module: the
// contexts of 15.12.1's examples byte for byte, the service's deterministic proofs and shuffle
// step, and the named negative cases. The cross-language vectors (Python's round.json, the
// JS-made js-round.json) are checked at the end of this file; that js-round.json is what
// blind_make.mjs makes now is blind_vectors.test.mjs's drift test (its FILES).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";

import { bytesToHex, hexToBytes, u64be } from "../../api/static/web/js/fairdeal/bytes.js";
import { hmac } from "../../api/static/web/js/fairdeal/crypto.js";
import * as e from "../../api/static/web/js/fairdeal/blind/elgamal.js";
import {
  BadProofError,
  BlindError,
  IdentityKeyError,
  InvalidShuffleProofError,
  OwnProofError,
  ServerStepMismatchError,
} from "../../api/static/web/js/fairdeal/blind/errors.js";
import * as g from "../../api/static/web/js/fairdeal/blind/group.js";
import * as json from "../../api/static/web/js/fairdeal/blind/json.js";
import * as k from "../../api/static/web/js/fairdeal/blind/keys.js";
import * as p from "../../api/static/web/js/fairdeal/blind/proofs.js";
import * as r from "../../api/static/web/js/fairdeal/blind/round.js";
import * as s from "../../api/static/web/js/fairdeal/blind/shuffle.js";
import { PROOF_CONTEXT, SERVER_NONCE, SERVER_STEP } from "../../api/static/web/js/fairdeal/blind/tags.js";
import { canonicalDeck } from "../../api/static/web/js/fairdeal/engine/cards.js";
import { render, roundVectors, ROUND_PY } from "./blind_make.mjs";

const TABLE = "tbl-blind";
const ROUND = "tbl-blind.1";
const ctx = (party, purpose, index) => r.proofContext(TABLE, ROUND, party, purpose, index);
const SEED = hexToBytes("22cc07db64a2b16354022e35ff0fd33312b1f4f034c06f8e81f1b2f1c5143c0a");
const KEY = hexToBytes("5a".repeat(32)); // a shuffle key
const X = g.base(7n);

test("the three tags are 15.1's new rows", () => {
  assert.equal(bytesToHex(PROOF_CONTEXT), "666169726465616c2f76332f70726f6f662d636f6e7465787400");
  assert.equal(bytesToHex(SERVER_NONCE), "666169726465616c2f76332f7365727665722d6e6f6e636500");
  assert.equal(bytesToHex(SERVER_STEP), "666169726465616c2f76332f7365727665722d7374657000");
  assert.equal(SERVER_STEP.length, 24);
});

test("15.12.1's example contexts, byte for byte", () => {
  const seat = [
    "666169726465616c2f76332f70726f6f662d636f6e7465787400",
    "0000000000000009", "74626c2d626c696e64",
    "000000000000000b", "74626c2d626c696e642e31",
    "0000000000000006", "736561743a30",
    "0000000000000009", "726f756e642d6b6579",
    "0000000000000000",
  ].join("");
  assert.equal(bytesToHex(ctx("seat:0", "round-key", 0)), seat);
  const share = ctx("server", "share", 3);
  assert.equal(share.length, 97);
  const tail = "0000000000000006736572766572" + "00000000000000057368617265" + "0000000000000003";
  assert.ok(bytesToHex(share).endsWith(tail));
});

test("a context refuses what 15.12.1 does not allow (the caller's mistake)", () => {
  const cases = [
    ["a table id with a space", () => r.proofContext("tbl blind", ROUND, "server", "shuffle", 0), RangeError],
    ["an empty round id", () => r.proofContext(TABLE, "", "server", "shuffle", 0), RangeError],
    ["a 65-character table id", () => r.proofContext("t".repeat(65), ROUND, "server", "shuffle", 0), RangeError],
    ["seat:01", () => ctx("seat:01", "shuffle", 1), RangeError],
    ["seat:100", () => ctx("seat:100", "shuffle", 1), RangeError],
    ["the purpose round_key", () => ctx("seat:0", "round_key", 0), RangeError],
    ["a round-key index 1", () => ctx("seat:0", "round-key", 1), RangeError],
    ["a negative index", () => ctx("server", "share", -1), RangeError],
    ["a fractional index", () => ctx("server", "share", 1.5), RangeError],
    ["an index of 2^53", () => ctx("server", "share", 2 ** 53), RangeError],
    ["an index of 2^64", () => ctx("server", "share", 2 ** 64), RangeError],
    ["a boolean index", () => ctx("server", "share", true), RangeError],
    ["a BigInt index", () => ctx("server", "share", 3n), RangeError],
    ["an index in a string", () => ctx("server", "share", "3"), RangeError],
    ["a table that is not a string", () => r.proofContext(1, ROUND, "server", "shuffle", 0), TypeError],
  ];
  for (const [name, run, Kind] of cases) assert.throws(run, Kind, name);
  assert.equal(r.MAX_INDEX, 2 ** 53 - 1);
  const largest = ctx("server", "share", 2 ** 53 - 1);
  assert.ok(bytesToHex(largest).endsWith("001fffffffffffff"), "the largest index, 2^53 − 1");
  assert.equal(bytesToHex(r.lp("")), "0000000000000000");
  assert.throws(() => r.lp("seat:\u0661"), RangeError, "lp of a non-ASCII string");
});

const AT = { table: TABLE, round: ROUND };

test("the service's key proof is X_0's, verifies for its context, and is reproducible", () => {
  const c = ctx("server", "round-key", 0);
  const { key, proof } = r.serverKeyProof(SEED, AT);
  assert.equal(bytesToHex(key), "20320aa2b1533f2c9a6d6125faa690e6e188f5a00ad8ac494fab06561cb6ae24"); // SPEC 15.10
  p.verifyKey(key, c, proof);
  assert.deepEqual(r.serverKeyProof(SEED, AT), { key, proof });
  const input = r.keyNonceInput(SEED, 0, key, c);
  assert.equal(input.length, 159 + c.length);
  assert.deepEqual(r.keyNonce(SEED, key, c), { ctr: 0, k: g.hashToScalar(input) });
  assert.deepEqual(p.proveKey(k.serverRoundKey(SEED), c, g.hashToScalar(input)), proof);
});

test("the service's share proof verifies for its context only", () => {
  const A = g.base(11n);
  const c3 = ctx("server", "share", 3);
  const { share, proof } = r.serverShare(SEED, A, { ...AT, position: 3 });
  const X0 = r.serverKeyProof(SEED, AT).key;
  assert.equal(r.shareNonceInput(SEED, 0, X0, A, share, c3).length, 225 + c3.length);
  p.verifyShare(X0, A, share, c3, proof);
  for (const [name, other] of [
    ["another position", ctx("server", "share", 4)],
    ["another party", ctx("seat:0", "share", 3)],
    ["another purpose", ctx("server", "shuffle", 3)],
    ["another round", r.proofContext(TABLE, "tbl-blind.2", "server", "share", 3)],
  ]) {
    assert.throws(() => p.verifyShare(X0, A, share, other, proof), BadProofError, name);
  }
  const nonce = (A2, context) => r.shareNonce(SEED, X0, A2, g.mul(A2, k.serverRoundKey(SEED)), context).k;
  const k3 = nonce(A, c3);
  for (const other of [nonce(A, ctx("server", "share", 4)), nonce(g.base(12n), c3), nonce(A, ctx("seat:0", "share", 3))]) {
    assert.notEqual(other, k3);
  }
});

test("a key proof checked under another index, party or purpose fails", () => {
  const { key, proof } = r.serverKeyProof(SEED, AT);
  for (const [name, other] of [
    ["another party", ctx("seat:0", "round-key", 0)],
    ["another purpose", ctx("server", "shuffle", 0)],
    ["another index", ctx("server", "share", 1)],
  ]) {
    assert.throws(() => p.verifyKey(key, other, proof), BadProofError, name);
  }
});

test("a server seed that is not 32 bytes is the caller's mistake", () => {
  assert.throws(() => r.serverKeyProof(SEED.slice(1), AT), TypeError);
  assert.throws(() => r.keyNonceInput("00".repeat(32), 0, X, ctx("server", "round-key", 0)), TypeError);
});

// The smallest public deck, ("kvitlach", 1), N = 24, keeps these tests quick.
const WHERE = { table: TABLE, round: ROUND, game: "kvitlach", decks: 1 };
const STEP = r.serverStep(KEY, X, WHERE);
const WITNESS = r.serverWitness(KEY, X, WHERE);

test("the service's step is a shuffle its proof proves, drawn as 15.12.3 says", () => {
  const { context, input, output, proof } = STEP;
  const { psi, rPrime, drawn } = WITNESS;
  const n = input.length;
  assert.deepEqual(context, ctx("server", "shuffle", 0));
  assert.deepEqual(input, e.publicDeck("kvitlach", 1));
  s.verifyShuffle(context, X, input, output, proof);
  assert.deepEqual([...psi].sort((a, b) => a - b), [...input.keys()]);
  assert.equal(drawn.length, 4 * n + 4);
  // Output i is input ψ[i] re-encrypted with r'_ψ[i]; the inputs' b are O, so b'_i = r'_ψ[i]·G.
  output.forEach((out, i) => assert.deepEqual(out.b, g.base(rPrime[psi[i]])));
  // The permutation commitment c_j = r_j·G + H_i with j = ψ(i), r_ψ(i) the i-th draw.
  const H = s.generators(n);
  psi.forEach((j, i) => assert.equal(proof.c[j], bytesToHex(g.fromPoint(g.BASE_POINT.multiply(drawn[i]).add(H[i + 1])))));
  // ĉ_1 = r̂_1·G + u'_1·H_0: r̂_1 is draw N.
  const u = s.permutationChallenges(s.statementDigest(context, X, input, output), proof.c.map(hexToBytes));
  const cHat1 = g.BASE_POINT.multiply(drawn[n]).add(H[0].multiply(u[psi[0]]));
  assert.equal(proof.c_hat[0], bytesToHex(g.fromPoint(cHat1)));
  r.checkServerStep(KEY, X, WHERE, output, proof);
});

test("the service's step is a pure function of the shuffle key, X and the round", () => {
  assert.deepEqual(r.serverStep(KEY, X, WHERE).proof, STEP.proof);
  const other = r.serverWitness(hexToBytes("5b".repeat(32)), X, WHERE);
  assert.notDeepEqual(other.psi, WITNESS.psi);
  assert.notDeepEqual(other.rPrime, WITNESS.rPrime);
});

test("the step key is HMAC(K, SERVER_STEP ‖ u64be(len(ctx)) ‖ ctx ‖ lp(game) ‖ u64be(decks) ‖ X)", () => {
  const c = ctx("server", "shuffle", 0);
  const input = r.serverStepKeyInput(X, WHERE);
  assert.equal(input.length, 80 + c.length + "kvitlach".length);
  const expected = [SERVER_STEP, u64be(c.length), c, r.lp("kvitlach"), u64be(1), X].map(bytesToHex).join("");
  assert.equal(bytesToHex(input), expected);
  assert.deepEqual(r.serverStepKey(KEY, X, WHERE), hmac(KEY, input));
  const key = r.serverStepKey(KEY, X, WHERE);
  assert.deepEqual(r.serverPermutation(key, 24), WITNESS.psi);
  assert.deepEqual(r.serverReencryption(key, 24), WITNESS.rPrime);
  assert.deepEqual(r.serverProofDraws(key, 24), WITNESS.drawn);
  assert.notDeepEqual(r.serverPermutation(KEY, 24), WITNESS.psi, "nothing is drawn from K itself");
  assert.throws(() => r.serverStepKey(KEY.slice(1), X, WHERE), TypeError);
  assert.throws(() => r.serverStepKey(KEY, g.identity(), WHERE), IdentityKeyError);
});

test("one shuffle key under two joint keys, rounds or games: every step key differs", () => {
  const keys = [
    [X, WHERE],
    [g.base(8n), WHERE],
    [X, { ...WHERE, round: "tbl-blind.2" }],
    [X, { ...WHERE, table: "tbl-other" }],
    [X, { ...WHERE, game: "toto21" }],
    [X, { ...WHERE, decks: 2 }],
  ].map(([key, where]) => bytesToHex(r.serverStepKey(KEY, key, where)));
  assert.equal(new Set(keys).size, keys.length);
});

/**
 * The review's attack on M1: two proofs from one K under joint keys X and X*. Were their draws
 * shared, s'_i − s*'_i = c·u_ψ(i) − c*·u*_ψ(i) (ω'_i cancels) would name ψ(i) among the N
 * candidates. Returns how many outputs it places.
 */
function placedByDrawReuse(a, b) {
  const challenges = ({ context, input, output, proof }, key) => {
    const y = s.statementDigest(context, key, input, output);
    const u = s.permutationChallenges(y, proof.c.map(hexToBytes));
    return { u, c: s.proofChallenge(y, s.commitmentBytes(proof)) };
  };
  const [one, two] = [challenges(a.step, a.key), challenges(b.step, b.key)];
  return a.step.proof.s_prime.filter((sp, i) => {
    const d = g.mod(json.readScalar(sp) - json.readScalar(b.step.proof.s_prime[i]));
    const j = a.psi[i];
    return d === g.mod(one.c * one.u[j] - two.c * two.u[j]);
  }).length;
}

test("two steps from one shuffle key under two joint keys share no draw: ψ stays hidden (M1)", () => {
  const X2 = g.base(8n);
  const other = r.serverStep(KEY, X2, WHERE);
  assert.notEqual(other.proof.t1, STEP.proof.t1, "t1 = ω_1·G: ω_1 is not shared");
  assert.notDeepEqual(r.serverWitness(KEY, X2, WHERE).psi, WITNESS.psi);
  const placed = placedByDrawReuse({ step: STEP, key: X, psi: WITNESS.psi }, { step: other, key: X2 });
  assert.equal(placed, 0);
});

test("the service's proofs are verified before they are returned: OwnProofError is a BlindError", () => {
  assert.ok(new OwnProofError("a fault") instanceof BlindError);
  s.verifyShuffle(STEP.context, X, STEP.input, STEP.output, STEP.proof);
});

test("the service's step holds its public output only: ψ, r' and the draws are serverWitness's", () => {
  assert.deepEqual(Object.keys(STEP).sort(), ["context", "input", "output", "proof"]);
  assert.deepEqual(Object.keys(WITNESS).sort(), ["drawn", "psi", "rPrime"]);
  const printed = JSON.stringify(STEP, (_, v) => (v instanceof Uint8Array ? bytesToHex(v) : v));
  assert.ok(!printed.includes(json.writeScalar(WITNESS.rPrime[0])));
});

/** `proof` with the members `a` and `b` replaced by one named "a,b" (its sorted names joined
 * with commas are still 15.11.6's). */
function commaJoined(proof, a, b) {
  const { [a]: first, [b]: second, ...rest } = proof;
  return { ...rest, [`${a},${b}`]: [first, second] };
}

const refused = (where) => (err) => err instanceof ServerStepMismatchError && err.where === where
  && err.code === "blind.server_step";

test("checkServerStep refuses a step that is not the shuffle key's", () => {
  const { input, output, proof } = STEP;
  const { psi, rPrime } = WITNESS;
  const bumped = (hex) => bytesToHex(g.scalarToBytes(g.mod(g.scalarFromBytes(hexToBytes(hex)) + 1n)));
  const j = psi[2];
  const otherR = e.reEncrypt(input[j], g.mod(rPrime[j] + 1n), X);
  const swapped = [output[1], output[0], ...output.slice(2)];
  const other = r.serverStep(KEY, X, { ...WHERE, round: "tbl-blind.2" });
  const cases = [
    ["an output re-encrypted with r' + 1", [KEY, X, WHERE, output.with(2, otherR), proof], "deck[2]"],
    ["two outputs swapped", [KEY, X, WHERE, swapped, proof], "deck[0]"],
    ["the deck a card short", [KEY, X, WHERE, output.slice(0, -1), proof], "deck"],
    ["a changed response s4", [KEY, X, WHERE, output, { ...proof, s4: bumped(proof.s4) }], "proof.s4"],
    ["a changed s_prime[3]", [KEY, X, WHERE, output,
      { ...proof, s_prime: proof.s_prime.with(3, bumped(proof.s_prime[3])) }], "proof.s_prime"],
    ["an extra member", [KEY, X, WHERE, output, { ...proof, extra: proof.t1 }], "proof"],
    ["c and c_hat as one member named \"c,c_hat\"", [KEY, X, WHERE, output, commaJoined(proof, "c", "c_hat")], "proof"],
    ["uppercase hex", [KEY, X, WHERE, output, { ...proof, t1: proof.t1.toUpperCase() }], "proof.t1"],
    // The step key binds the round: another round's step under one K is another deck.
    ["the step made for another round", [KEY, X, WHERE, other.output, other.proof], "deck[0]"],
    ["another shuffle key", [hexToBytes("5b".repeat(32)), X, WHERE, output, proof], "deck[0]"],
  ];
  for (const [name, args, where] of cases) assert.throws(() => r.checkServerStep(...args), refused(where), name);
});

test("the service's step checked under another party's, step's or purpose's context fails 15.11.7", () => {
  const { input, output, proof } = STEP;
  for (const other of [ctx("seat:0", "shuffle", 0), ctx("server", "shuffle", 1), ctx("server", "share", 0)]) {
    assert.throws(() => s.verifyShuffle(other, X, input, output, proof), InvalidShuffleProofError);
  }
});

test("a card opens with the round keys as with the shares (15.12.4)", () => {
  const xs = [k.serverRoundKey(SEED), 5n, 6n];
  const joint = k.jointKey(xs.map((x) => g.base(x)));
  const deck = e.publicDeck("toto21", 1);
  const ciphertext = e.reEncrypt(deck[17], 99n, joint);
  const shares = xs.map((x) => g.mul(ciphertext.b, x));
  const M = r.decryptWithKeys(ciphertext, xs);
  assert.deepEqual(M, e.decrypt(ciphertext, shares));
  assert.equal(e.cardIndex(M, e.cardPoints("toto21", 1)), 17);
});

// ---- The cross-language vectors (SPEC 15.12.5) ---------------------------------------------

const DIR = new URL("../vectors/blind/", import.meta.url);
const load = async (name) => JSON.parse(await readFile(new URL(name, DIR), "utf8"));
const VECTOR_FILES = ["round.json", "js-round.json"];

/** The table and round ids of a context's bytes (15.12.1: after PROOF_CONTEXT, lp(table) ‖ lp(round)). */
function contextIds(bytes) {
  const ids = [];
  for (let at = PROOF_CONTEXT.length; ids.length < 2; ) {
    const n = Number(new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0));
    ids.push(new TextDecoder().decode(bytes.slice(at + 8, at + 8 + n)));
    at += 8 + n;
  }
  return ids;
}
const V_WHERE = { table: TABLE, round: ROUND, game: "toto21", decks: 1 };
const hex = hexToBytes;

test("round.json (Python) is remade byte for byte by round.js from its fixed inputs, its 'about' aside", async () => {
  const python = await readFile(new URL("round.json", DIR), "utf8");
  const body = (text) => text.split("\n").filter((line) => !line.startsWith(' "about": '));
  assert.deepEqual(body(render(roundVectors(ROUND_PY))), body(python));
});

for (const name of VECTOR_FILES) {
  test(`${name}: the tags, lp and contexts are 15.12.1's; the refused contexts are refused`, async () => {
    const v = await load(name);
    const tags = { PROOF_CONTEXT, SERVER_NONCE, SERVER_STEP };
    assert.deepEqual(v.tags, Object.fromEntries(Object.entries(tags).map(([name, tag]) => [name, bytesToHex(tag)])));
    for (const c of v.lp) assert.equal(bytesToHex(r.lp(c.string)), c.bytes);
    for (const c of v.contexts) {
      const bytes = r.proofContext(v.table, v.round, c.party, c.purpose, c.index);
      assert.deepEqual([bytesToHex(bytes), bytes.length], [c.bytes, c.length]);
    }
    assert.deepEqual([v.contexts[0].length, v.contexts.at(-1).length], [101, 97]); // SPEC's examples
    for (const c of v.refused_contexts) {
      assert.throws(() => r.proofContext(c.table, c.round, c.party, c.purpose, c.index), RangeError, c.name);
    }
  });

  test(`${name}: the service's key proof and share are made with 15.12.2's nonces`, async () => {
    const v = await load(name);
    const seed = hex(v.server_seed);
    const sk = v.server_key;
    const [x0, X0, kctx] = [k.serverRoundKey(seed), hex(sk.key), ctx("server", "round-key", 0)];
    assert.deepEqual([bytesToHex(g.scalarToBytes(x0)), bytesToHex(g.base(x0)), sk.context], [sk.private, sk.key, bytesToHex(kctx)]);
    assert.equal(bytesToHex(r.keyNonceInput(seed, sk.ctr, X0, kctx)), sk.nonce_input);
    const { ctr, k: nonce } = r.keyNonce(seed, X0, kctx);
    assert.deepEqual([ctr, bytesToHex(g.scalarToBytes(nonce)), bytesToHex(g.base(nonce))], [sk.ctr, sk.nonce, sk.t]);
    assert.deepEqual(json.writeProof(r.serverKeyProof(seed, { table: v.table, round: v.round }).proof), sk.proof);
    p.verifyKey(X0, kctx, json.readProof(sk.proof));

    const ss = v.server_share;
    assert.deepEqual(ss.ciphertext, v.server_step.outputs[ss.position]);
    const A = json.readCiphertext(ss.ciphertext).b;
    const sctx = ctx("server", "share", ss.position);
    const D = hex(ss.share);
    assert.equal(ss.context, bytesToHex(sctx));
    assert.equal(bytesToHex(r.shareNonceInput(seed, ss.ctr, X0, A, D, sctx)), ss.nonce_input);
    const sn = r.shareNonce(seed, X0, A, D, sctx);
    assert.deepEqual([sn.ctr, bytesToHex(g.scalarToBytes(sn.k))], [ss.ctr, ss.nonce]);
    assert.deepEqual([bytesToHex(g.base(sn.k)), bytesToHex(g.mul(A, sn.k))], [ss.t1, ss.t2]);
    const made = json.writeShare(r.serverShare(seed, A, { table: v.table, round: v.round, position: ss.position }));
    assert.deepEqual(made, { proof: ss.proof, share: ss.share });
    p.verifyShare(X0, A, D, sctx, json.readProof(ss.proof));
  });

  test(`${name}: another statement gets another nonce`, async () => {
    const v = await load(name);
    const nonces = new Set([v.server_key.nonce, v.server_share.nonce]);
    for (const c of v.other_nonces) {
      const [seed, key, context] = [c.server_seed, c.key, c.context].map(hex);
      const got = c.proof_of === "share"
        ? r.shareNonce(seed, key, hex(c.a), hex(c.d), context)
        : r.keyNonce(seed, key, context);
      assert.deepEqual([got.ctr, bytesToHex(g.scalarToBytes(got.k))], [c.ctr, c.nonce], c.name);
      nonces.add(c.nonce);
    }
    assert.equal(nonces.size, 2 + v.other_nonces.length);
  });

  test(`${name}: the seats' keys and the joint key`, async () => {
    const v = await load(name);
    const keys = [hex(v.server_key.key)];
    v.seats.forEach((seat, n) => {
      assert.deepEqual([seat.party, seat.context], [`seat:${n}`, bytesToHex(ctx(`seat:${n}`, "round-key", 0))]);
      const key = json.readElement(seat.key);
      assert.deepEqual(g.base(json.readScalar(seat.private)), key);
      p.verifyKey(key, hex(seat.context), json.readProof(seat.proof));
      keys.push(key);
    });
    assert.equal(bytesToHex(k.jointKey(keys)), v.joint_key);
  });

  test(`${name}: the service's step is drawn from the shuffle key, and checks`, async () => {
    const v = await load(name);
    const st = v.server_step;
    const [K, X] = [hex(st.shuffle_key), hex(st.key)];
    assert.deepEqual([st.game, st.decks, st.n, st.key], ["toto21", 1, 36, v.joint_key]);
    assert.equal(st.context, bytesToHex(ctx("server", "shuffle", 0)));
    assert.equal(bytesToHex(r.serverStepKeyInput(X, V_WHERE)), st.step_key_input);
    assert.equal(hex(st.step_key_input).length, 80 + hex(st.context).length + st.game.length);
    const stepKey = r.serverStepKey(K, X, V_WHERE);
    assert.equal(bytesToHex(stepKey), st.step_key);
    assert.deepEqual(r.serverPermutation(stepKey, st.n), st.permutation);
    assert.deepEqual(r.serverReencryption(stepKey, st.n).map(json.writeScalar), st.reencryption);
    assert.deepEqual(r.serverProofDraws(stepKey, st.n).map(json.writeScalar), st.draws);
    const step = r.serverStep(K, X, V_WHERE);
    assert.deepEqual([step.output.map(json.writeCiphertext), step.proof], [st.outputs, st.proof]);
    const input = e.publicDeck("toto21", 1).map(json.writeCiphertext);
    s.verifyStep(hex(st.context), st.key, input, st.outputs, st.proof);
    r.checkServerStep(K, X, V_WHERE, st.outputs.map(json.readCiphertext), st.proof);
  });

  test(`${name}: the same shuffle key gives another step key for each other statement`, async () => {
    const v = await load(name);
    const K = hex(v.server_step.shuffle_key);
    const keys = new Set([v.server_step.step_key]);
    for (const c of v.other_step_keys) {
      const [table, round] = contextIds(hex(c.context));
      const where = { table, round, game: c.game, decks: c.decks };
      assert.equal(c.context, bytesToHex(r.proofContext(table, round, "server", "shuffle", 0)), c.name);
      assert.equal(bytesToHex(r.serverStepKeyInput(hex(c.key), where)), c.step_key_input, c.name);
      assert.equal(bytesToHex(r.serverStepKey(K, hex(c.key), where)), c.step_key, c.name);
      keys.add(c.step_key);
    }
    assert.equal(keys.size, 1 + v.other_step_keys.length);
  });

  test(`${name}: every altered service step is refused by 15.12.3's check`, async () => {
    const v = await load(name);
    const st = v.server_step;
    const input = e.publicDeck("toto21", 1).map(json.writeCiphertext);
    const context = hex(st.context);
    for (const [i, c] of v.altered_steps.entries()) {
      // 15.11.7 accepts all but the last (made for another step's context): only the
      // recomputation tells them from the shuffle key's step.
      const verify = () => s.verifyStep(context, st.key, input, c.outputs, c.proof);
      if (i < v.altered_steps.length - 1) verify();
      else assert.throws(verify, InvalidShuffleProofError, c.name);
      const outputs = c.outputs.map(json.readCiphertext);
      assert.throws(() => r.checkServerStep(hex(st.shuffle_key), hex(st.key), V_WHERE, outputs, c.proof),
        ServerStepMismatchError, c.name);
    }
  });

  test(`${name}: a card opens with the shares and with the keys`, async () => {
    const v = await load(name);
    const o = v.opened;
    const ciphertext = json.readCiphertext(o.ciphertext);
    const keys = [v.server_key.key, ...v.seats.map((seat) => seat.key)].map(json.readElement);
    const shares = o.shares.map((entry, j) => {
      const party = ["server", "seat:0", "seat:1"][j];
      assert.deepEqual([entry.party, entry.context], [party, bytesToHex(ctx(party, "share", o.position))]);
      const read = json.readShare({ proof: entry.proof, share: entry.share });
      p.verifyShare(keys[j], ciphertext.b, read.share, hex(entry.context), read.proof);
      return read.share;
    });
    const xs = o.private_keys.map(json.readScalar);
    xs.forEach((x, j) => k.checkRevealedKey(keys[j], x));
    assert.equal(json.writeScalar(xs.reduce((acc, x) => g.mod(acc + x), 0n)), o.key_sum);
    const M = e.decrypt(ciphertext, shares);
    assert.deepEqual([bytesToHex(M), bytesToHex(r.decryptWithKeys(ciphertext, xs))], [o.m, o.m]);
    const index = e.cardIndex(M, e.cardPoints("toto21", 1));
    assert.deepEqual([index, canonicalDeck("toto21", 1)[index]], [o.index, o.card]);
  });
}

test("round.json: a service step with one scalar changed is refused by 15.11.7 and by 15.12.3", async () => {
  const v = await load("round.json");
  const st = v.server_step;
  const input = e.publicDeck("toto21", 1).map(json.writeCiphertext);
  const bumped = (text) => json.writeScalar(g.mod(json.readScalar(text) + 1n));
  for (const member of ["s1", "s4", "s_hat", "s_prime"]) {
    const value = st.proof[member];
    const proof = { ...st.proof, [member]: Array.isArray(value) ? value.with(5, bumped(value[5])) : bumped(value) };
    assert.throws(() => s.verifyStep(hex(st.context), st.key, input, st.outputs, proof), InvalidShuffleProofError, member);
    const outputs = st.outputs.map(json.readCiphertext);
    assert.throws(() => r.checkServerStep(hex(st.shuffle_key), hex(st.key), V_WHERE, outputs, proof),
      refused(`proof.${member}`), member);
  }
});
