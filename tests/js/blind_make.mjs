// The JS-made dealer-blind vectors (SPEC 15.10), for the Python side to check, each made by
// fairdeal/blind/*.js alone, in the layout of the Python file beside it:
// - js-primitives.json, from primitives.json's fixed inputs (secrets and nonces
//   hash_to_scalar("fairdeal vector " + label), the server seed SHA-256("fairdeal vector " +
//   round id)): the same inputs give the same bytes in both languages, so the two files differ
//   only in "about" (blind_vectors.test.mjs checks that);
// - js-shuffle.json, shuffle steps and proofs from JS's own fixed draws ("js " + shuffle.json's
//   labels, its own permutations), and the same named invalid steps, refused by JS;
// - js-round.json, round.json's layout (SPEC 15.12.5) from JS's own fixed inputs (ROUND_JS:
//   "js " + round.json's labels, position 7). With round.json's inputs (ROUND_PY) the same code
//   remakes round.json byte for byte, its "about" aside (blind_round.test.mjs checks that).
// blind_vectors.test.mjs checks that the committed files are what this makes now.
// Run: node tests/js/blind_make.mjs   (rewrites the js-*.json files beside primitives.json)

import { writeFile } from "node:fs/promises";

import { bytesToHex as h, hexToBytes, u64be, utf8 } from "../../api/static/web/js/fairdeal/bytes.js";
import { sha256 } from "../../api/static/web/js/fairdeal/crypto.js";
import { canonicalDeck } from "../../api/static/web/js/fairdeal/engine/cards.js";
import * as e from "../../api/static/web/js/fairdeal/blind/elgamal.js";
import * as g from "../../api/static/web/js/fairdeal/blind/group.js";
import * as k from "../../api/static/web/js/fairdeal/blind/keys.js";
import * as p from "../../api/static/web/js/fairdeal/blind/proofs.js";
import * as rd from "../../api/static/web/js/fairdeal/blind/round.js";
import * as tw from "../../api/static/web/js/fairdeal/blind/shuffle.js";
import { readScalar, writeCiphertext, writeProof, writeShare } from "../../api/static/web/js/fairdeal/blind/json.js";
import { InvalidShuffleProofError, MalformedShuffleProofError } from "../../api/static/web/js/fairdeal/blind/errors.js";
import { BLIND_TAGS } from "../../api/static/web/js/fairdeal/blind/tags.js";
import { sha512 } from "../../api/static/web/js/vendor/noble-hashes/sha2.js";

export const ROUND = "tbl-blind.1";
const DECKS = [["toto21", 1], ["kvitlach", 1], ["kvitlach", 2]];
const OUT = new URL("../vectors/blind/", import.meta.url);

/** The vectors' fixed scalar for a label. */
export function fixed(label) {
  return g.hashToScalar(utf8(`fairdeal vector ${label}`));
}

/** An example context: JSON of {position, purpose, round, seat}, keys sorted, no spaces. */
export function context(purpose, seat, position = null) {
  return utf8(JSON.stringify({ position, purpose, round: ROUND, seat }));
}

const ascii = (bytes) => new TextDecoder().decode(bytes);
const sc = (x) => h(g.scalarToBytes(x));
// 32 bytes little-endian of any integer below 2^256 (for the cases that are not scalars).
const le32 = (n) => h(Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 0xffn)));
const serverSeed = () => sha256(utf8(`fairdeal vector ${ROUND}`));

function scalars() {
  return {
    order: g.ORDER.toString(),
    order_le: le32(g.ORDER),
    encodings: [0n, 1n, 2n ** 64n, g.ORDER - 1n].map((v) => ({ value: v.toString(), bytes: sc(v) })),
    refused: [
      { why: "the order itself", bytes: le32(g.ORDER) },
      { why: "the order plus one", bytes: le32(g.ORDER + 1n) },
      { why: "2^255 - 1", bytes: le32(2n ** 255n - 1n) },
      { why: "all bits set", bytes: "ff".repeat(32) },
      { why: "31 bytes", bytes: "01".repeat(31) },
      { why: "uppercase hex", bytes: "0A" + "00".repeat(31) },
    ],
  };
}

function hashes() {
  const inputs = [new Uint8Array(), utf8("abc"), new Uint8Array([...BLIND_TAGS.ROUND_KEY, ...new Uint8Array(32)])];
  return {
    hash_to_scalar: inputs.map((m) => ({ input: h(m), sha512: h(sha512(m)), scalar: sc(g.hashToScalar(m)) })),
    hash_to_element: inputs.map((m) => ({ input: h(m), sha512: h(sha512(m)), element: h(g.hashToElement(m)) })),
  };
}

function cardPoints() {
  const first = new Uint8Array([...BLIND_TAGS.CARD_POINT, ...utf8("toto21"), 0, ...u64be(1), ...u64be(0)]);
  const decks = Object.fromEntries(DECKS.map(([game, n]) => [`${game}/${n}`, e.cardPoints(game, n).map(h)]));
  return { first_input: h(first), decks };
}

function roundKey() {
  const seed = serverSeed();
  const x0 = k.serverRoundKey(seed);
  return {
    round: ROUND,
    server_seed: h(seed),
    hashed: h(new Uint8Array([...BLIND_TAGS.ROUND_KEY, ...seed])),
    private: sc(x0),
    public: h(g.base(x0)),
  };
}

function knowledge(x, ctx, nonceLabel) {
  const nonce = fixed(nonceLabel);
  const proof = p.proveKey(x, ctx, nonce);
  const [key, t] = [g.base(x), g.base(nonce)];
  return {
    private: sc(x),
    key: h(key),
    context: ascii(ctx),
    context_hex: h(ctx),
    nonce: sc(nonce),
    t: h(t),
    hashed: h(p.keyProofInput(key, t, ctx)),
    proof: writeProof(proof),
  };
}

function dleq(x, A, ctx, nonceLabel) {
  const nonce = fixed(nonceLabel);
  const { share: D, proof } = p.proveShare(x, A, ctx, nonce);
  const [key, t1, t2] = [g.base(x), g.base(nonce), g.mul(A, nonce)];
  return {
    private: sc(x),
    key: h(key),
    a: h(A),
    d: h(D),
    context: ascii(ctx),
    context_hex: h(ctx),
    nonce: sc(nonce),
    t1: h(t1),
    t2: h(t2),
    hashed: h(p.shareProofInput(key, A, D, t1, t2, ctx)),
    proof: writeProof(proof),
  };
}

export function parties() {
  return [k.serverRoundKey(serverSeed()), fixed("round key seat 0"), fixed("round key seat 1")];
}

function elgamal() {
  const xs = parties();
  const keys = xs.map((x) => g.base(x));
  const joint = k.jointKey(keys);
  const points = e.cardPoints("toto21", 1);
  let ciphertext = e.publicDeck("toto21", 1)[5];
  const steps = [0, 1, 2].map((party) => {
    const r = fixed(`reencryption ${party}`);
    ciphertext = e.reEncrypt(ciphertext, r, joint);
    return { r: sc(r), ciphertext: writeCiphertext(ciphertext) };
  });
  const shares = xs.map((x, party) => {
    const ctx = context("share", party, 0);
    const share = p.proveShare(x, ciphertext.b, ctx, fixed(`share nonce ${party}`));
    return { party, context: ascii(ctx), ...writeShare(share) };
  });
  const m = e.decrypt(ciphertext, xs.map((x) => g.mul(ciphertext.b, x)));
  const r = fixed("encryption");
  return {
    private_keys: xs.map(sc),
    public_keys: keys.map(h),
    joint_key: h(joint),
    encryption: { card: 0, r: sc(r), ciphertext: writeCiphertext(e.encrypt(points[0], r, joint)) },
    card: 5,
    public: writeCiphertext(e.publicDeck("toto21", 1)[5]),
    reencryptions: steps,
    shares,
    plaintext: h(m),
    card_index: e.cardIndex(m, points),
  };
}

function negative() {
  const x = fixed("round key seat 0");
  const ctx = context("round_key", 0);
  const good = writeProof(p.proveKey(x, ctx, fixed("key proof nonce")));
  const key = h(g.base(x));
  const flipped = { ...good, s: le32(g.scalarFromBytes(hexToBytes(good.s)) + 1n) };
  const c = ascii(ctx);
  const cases = [
    { name: "a key proof for another context", proof_of: "knowledge", key,
      context: ascii(context("round_key", 1)), proof: good, error: "bad_proof" },
    { name: "a key proof shown for another key", proof_of: "knowledge",
      key: h(g.base(g.mod(x + 1n))), context: c, proof: good, error: "bad_proof" },
    { name: "a key proof with s plus one", proof_of: "knowledge", key, context: c, proof: flipped,
      error: "bad_proof" },
    { name: "a key proof whose s is the order (not canonical)", proof_of: "knowledge", key, context: c,
      proof: { ...good, s: le32(g.ORDER) }, error: "invalid_scalar" },
    { name: "a key proof with uppercase hex", proof_of: "knowledge", key, context: c,
      proof: { ...good, c: good.c.toUpperCase() }, error: "encoding" },
    { name: "a round key that is the identity", proof_of: "knowledge", key: "00".repeat(32), context: c,
      proof: good, error: "identity_key" },
    { name: "a round key that is a non-canonical encoding", proof_of: "knowledge",
      key: "ed" + "ff".repeat(30) + "7f", context: c, proof: good, error: "invalid_element" },
  ];
  const A = g.base(fixed("ciphertext b"));
  const shareCtx = context("share", 0, 3);
  const { share: D, proof } = p.proveShare(x, A, shareCtx, fixed("negative dleq nonce"));
  const otherA = g.base(fixed("another ciphertext b"));
  const base = { proof_of: "dleq", key, a: h(A), d: h(D), context: ascii(shareCtx), proof: writeProof(proof) };
  cases.push(
    { ...base, name: "a share proof for another context", context: ascii(context("share", 0, 4)), error: "bad_proof" },
    { ...base, name: "a share shown for another ciphertext", a: h(otherA), error: "bad_proof" },
    {
      ...base,
      name: "a share of another ciphertext with this one's proof",
      d: h(g.mul(otherA, x)),
      error: "bad_proof",
    },
    { ...base, name: "a share plus G", d: h(g.add(D, g.base(1n))), error: "bad_proof" },
    { ...base, name: "a share proof under another party's key", key: h(g.base(g.mod(x + 1n))), error: "bad_proof" },
  );
  return cases;
}

/** js-primitives.json's content: primitives.json's layout, made by the JS modules. */
export function primitives() {
  const xs = parties();
  const joint = k.jointKey(xs.map((x) => g.base(x)));
  const shareB = e.reEncrypt(e.publicDeck("toto21", 1)[0], fixed("reencryption 0"), joint);
  const TAGS = ["CARD_POINT", "ROUND_KEY", "KEY_PROOF", "SHARE_PROOF"];
  return {
    about:
      "fairdeal protocol version 3 primitives (SPEC 15), made by the browser module " +
      "(api/static/web/js/fairdeal/blind/) from the fixed inputs of primitives.json, in its layout, " +
      "for the Python side to check. Generated by tests/js/blind_make.mjs.",
    tags: Object.fromEntries(TAGS.map((name) => [name, h(BLIND_TAGS[name])])),
    generator: h(g.base(1n)),
    scalars: scalars(),
    ...hashes(),
    card_points: cardPoints(),
    server_round_key: roundKey(),
    key_proof: knowledge(xs[1], context("round_key", 0), "key proof nonce"),
    share_proof: dleq(xs[1], shareB.b, context("share", 0, 0), "dleq nonce"),
    share_proof_of_identity: dleq(xs[1], g.identity(), context("share", 0, 1), "dleq nonce identity"),
    elgamal: elgamal(),
    negative: negative(),
  };
}

// ---- js-shuffle.json ---------------------------------------------------------------------

/** Draw k of a label L: SHA-512("fairdeal vector " ‖ L ‖ u64be(k)) little-endian, mod the bound. */
class Fixed {
  constructor(label) {
    this.label = utf8(`fairdeal vector ${label}`);
    this.drawn = [];
  }

  below(bound) {
    const digest = sha512(new Uint8Array([...this.label, ...u64be(this.drawn.length)]));
    const value = leInt(digest) % bound;
    this.drawn.push(value);
    return value;
  }
}

function leInt(bytes) {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

function shuffleContext(seat, step) {
  return utf8(JSON.stringify({ purpose: "shuffle", round: ROUND, seat, step }));
}

/** A shuffle from fixed draws: Knuth's shuffle (i from n−1 down to 1, j drawn in [0, i]),
 * then r'_j for j = 0 … n−1. */
function fixedShuffle(inputs, key, fixed) {
  const psi = inputs.map((_, i) => i);
  for (let i = psi.length - 1; i > 0; i--) {
    const j = Number(fixed.below(BigInt(i + 1)));
    [psi[i], psi[j]] = [psi[j], psi[i]];
  }
  const rPrime = inputs.map(() => fixed.below(g.ORDER));
  return tw.shuffle(inputs, key, { psi, rPrime });
}

/** A proof from fixed draws, drawn in the recorded order: r (in the order of i), r̂, ω1..4,
 * then (ω̂_i, ω'_i) for each i (15.11.5's, as round.js's proofDraws reads them). */
function fixedProof(ctx, key, inputs, outputs, psi, rPrime, fixed) {
  const drawn = Array.from({ length: 4 * inputs.length + 4 }, () => fixed.below(g.ORDER));
  return tw.prove(ctx, key, inputs, outputs, psi, rPrime, rd.proofDraws(drawn, psi));
}

function shuffleStep(name, key, inputs, ctx) {
  const step = fixedShuffle(inputs, key, new Fixed(`js ${name} shuffle`));
  const proving = new Fixed(`js ${name} proof`);
  const proof = fixedProof(ctx, key, inputs, step.output, step.psi, step.rPrime, proving);
  tw.verifyShuffle(ctx, key, inputs, step.output, proof);
  const y = tw.statementDigest(ctx, key, inputs, step.output);
  const commitments = tw.commitmentBytes(proof);
  const c = commitments.c;
  const vector = {
    name,
    n: inputs.length,
    context: h(ctx),
    key: h(key),
    inputs: inputs.map(writeCiphertext),
    permutation: step.psi,
    randomness: step.rPrime.map(sc),
    draws: proving.drawn.map(sc),
    outputs: step.output.map(writeCiphertext),
    y: h(y),
    u_seed: h(tw.permutationSeed(y, c)),
    u: tw.permutationChallenges(y, c).map(sc),
    challenge: sc(tw.proofChallenge(y, commitments)),
    proof,
  };
  return { vector, statement: { ctx, key, inputs, outputs: step.output }, witness: step };
}

/** Where the JS checker refuses a step: steps 1–2, or step 5 with the first failing equation. */
function refusal(st, proof) {
  try {
    tw.verifyStep(st.ctx, h(st.key), st.inputs.map(writeCiphertext), st.outputs.map(writeCiphertext), proof);
  } catch (err) {
    if (err instanceof MalformedShuffleProofError) return { refused_at: "shape or encoding (steps 1-2)" };
    if (err instanceof InvalidShuffleProofError) {
      return { refused_at: "equations (step 5)", first_failing_equation: err.step };
    }
    throw err;
  }
  throw new Error("a negative vector that verifies");
}

function invalid(name, st, proof) {
  return {
    name,
    context: h(st.ctx),
    key: h(st.key),
    inputs: st.inputs.map(writeCiphertext),
    outputs: st.outputs.map(writeCiphertext),
    proof,
    ...refusal(st, proof),
  };
}

function shuffleNegative(st, witness, other) {
  const { psi, rPrime } = witness;
  const prove = (t, label) => fixedProof(t.ctx, t.key, t.inputs, t.outputs, psi, rPrime, new Fixed(label));
  const honest = prove(st, "js negative honest proof");
  const { key, inputs, outputs } = st;
  const chosen = e.reEncrypt(inputs[0], new Fixed("js stacked").below(g.ORDER), key);
  const stacked = { ...st, outputs: [...outputs.slice(0, -1), chosen] };
  const swapped = { ...st, outputs: [outputs[3], ...outputs.slice(1, 3), outputs[0], ...outputs.slice(4)] };
  const j = psi[2];
  const otherR = e.reEncrypt(inputs[j], g.mod(rPrime[j] + 1n), key);
  const wrongR = { ...st, outputs: [...outputs.slice(0, 2), otherR, ...outputs.slice(3)] };
  const edit = (member, value, index = null) => {
    const changed = structuredClone(honest);
    if (index === null) changed[member] = value;
    else changed[member][index] = value;
    return changed;
  };
  const sPrime3 = sc(g.mod(g.scalarFromBytes(hexToBytes(honest.s_prime[3])) + 1n));
  const tHat0 = h(g.add(hexToBytes(honest.t_hat[0]), g.base(1n)));
  return [
    invalid("a stacked card, with the honest proof", stacked, honest),
    invalid("a stacked card, with a proof made for it", stacked, prove(stacked, "js stacked p")),
    invalid("a swapped pair of outputs, with the honest proof", swapped, honest),
    invalid("a swapped pair, with a proof made for it", swapped, prove(swapped, "js swap p")),
    invalid("an output re-encrypted with other randomness", wrongR, prove(wrongR, "js wr p")),
    invalid("the proof reused under another context", { ...st, ctx: shuffleContext(2, 3) }, honest),
    invalid("the proof reused for another step", other, honest),
    invalid("one response changed (s_prime[3] + 1)", st, edit("s_prime", sPrime3, 3)),
    invalid("one commitment changed (t_hat[0] + G)", st, edit("t_hat", tHat0, 0)),
    invalid("the output deck one card short", { ...st, outputs: outputs.slice(0, -1) }, honest),
    invalid("the proof's s_hat one entry short", st, edit("s_hat", honest.s_hat.slice(0, -1))),
    invalid("t3 not an element encoding", st, edit("t3", "ff".repeat(32))),
    invalid("s1 not below the order", st, edit("s1", le32(g.scalarFromBytes(hexToBytes(honest.s1)) + g.ORDER))),
    invalid("t1 in uppercase hex", st, edit("t1", honest.t1.toUpperCase())),
    invalid("an extra member", st, { ...honest, c_bar: honest.t1 }),
    invalid("the joint key is the identity", { ...st, key: g.identity() }, honest),
  ];
}

/** js-shuffle.json's content: shuffle.json's layout, made by the JS modules. */
export function shuffleVectors() {
  const key = g.base(new Fixed("js joint key").below(g.ORDER - 1n) + 1n);
  const toto21 = e.publicDeck("toto21", 1);
  const kvitlach2 = e.publicDeck("kvitlach", 2);
  const valid = [1, 2].map((n) => shuffleStep(`n=${n}`, key, toto21.slice(0, n), shuffleContext(0, 0)).vector);
  const first = shuffleStep("n=5, step 0", key, toto21.slice(0, 5), shuffleContext(0, 0));
  const second = shuffleStep("n=5, step 1", key, first.statement.outputs, shuffleContext(1, 1));
  valid.push(first.vector, second.vector);
  valid.push(shuffleStep("toto21 public deck", key, toto21, shuffleContext(0, 0)).vector);
  valid.push(shuffleStep("kvitlach 2 decks", key, kvitlach2, shuffleContext(0, 0)).vector);
  const TAGS = ["SHUFFLE_GENERATOR", "SHUFFLE_STATEMENT", "SHUFFLE_U_SEED", "SHUFFLE_U", "SHUFFLE_CHALLENGE"];
  return {
    about:
      "fairdeal protocol version 3 shuffle proof (SPEC 15), made by the browser module " +
      "(api/static/web/js/fairdeal/blind/) in the layout of shuffle.json, for the Python side to " +
      "check. Draw k of a label L is SHA-512('fairdeal vector ' + L + u64be(k)) little-endian mod " +
      "the bound; the labels are 'js ' + shuffle.json's. The permutation is Knuth's shuffle of " +
      "0..n-1 (i from n-1 down to 1, j drawn below i+1, swap), then randomness[j] for j = 0..n-1; " +
      "'draws' lists the prover's in the order drawn: r (in the order of i), r_hat, omega_1..4, " +
      "then (omega_hat_i, omega'_i) for each i. 'permutation' is 0-based: output i is input " +
      "permutation[i] re-encrypted with randomness[permutation[i]]. Generated by " +
      "tests/js/blind_make.mjs.",
    tags: Object.fromEntries(TAGS.map((name) => [name, h(BLIND_TAGS[name])])),
    generators: tw.generators(48).map((P) => h(g.fromPoint(P))),
    valid,
    invalid: shuffleNegative(first.statement, first.witness, second.statement),
  };
}

// ---- js-round.json -----------------------------------------------------------------------

const TABLE = "tbl-blind";
const SEATS = ["seat:0", "seat:1"];
const digest = (text) => sha256(utf8(`fairdeal vector ${text}`));

/** round.json's fixed inputs (make_round.py), and JS's own: labels prefixed "js ". */
export const ROUND_PY = { prefix: "", position: 3, about: "" };
export const ROUND_JS = {
  prefix: "js ",
  position: 7,
  about:
    "fairdeal protocol version 3: what every blind round shares (SPEC 15.12), made by the " +
    "browser module (api/static/web/js/fairdeal/blind/round.js) in the layout of round.json, for " +
    "the Python side to check. Scalars are 32 bytes little-endian, elements RFC 9496 encodings, " +
    "every hex lowercase; contexts and hashed inputs are hex bytes. The server seed is " +
    "SHA-256('fairdeal vector js tbl-blind.1'), the shuffle key SHA-256('fairdeal vector js " +
    "shuffle key tbl-blind.1'), the service's step drawn from its step key; the seats' keys and " +
    "nonces are hash_to_scalar('fairdeal vector js ' + label), fixed for the vectors only. " +
    "Permutations are 0-based: output i is input permutation[i]. Generated by " +
    "tests/js/blind_make.mjs.",
};
// (party, purpose, index) of each context listed; the first and the last are SPEC's examples.
const CONTEXTS = [
  ["seat:0", "round-key", 0],
  ["server", "round-key", 0],
  ["seat:1", "round-key", 0],
  ["server", "shuffle", 0],
  ["seat:0", "shuffle", 1],
  ["seat:1", "shuffle", 2],
  ["seat:1", "share", 0],
  ["server", "share", 3],
];
// Contexts 15.12.1 refuses to build: name, table, round, party, purpose, index.
const REFUSED_CONTEXTS = [
  ["a non-ASCII party", TABLE, ROUND, "seat:\u0661", "share", 0],
  ["a seat number with a leading zero", TABLE, ROUND, "seat:01", "share", 0],
  ["a seat number above 99", TABLE, ROUND, "seat:100", "share", 0],
  ["a party in capitals", TABLE, ROUND, "Server", "share", 0],
  ["another purpose", TABLE, ROUND, "server", "round_key", 0],
  ["a round-key index other than 0", TABLE, ROUND, "seat:0", "round-key", 1],
  ["an index of 2^53", TABLE, ROUND, "server", "share", 2 ** 53],
  ["a boolean index", TABLE, ROUND, "server", "share", true],
  ["an empty table id", "", ROUND, "server", "share", 0],
  ["a round id with a space", TABLE, "tbl blind.1", "server", "share", 0],
  ["a non-ASCII round id", TABLE, "tbl-blind.\u0661", "server", "share", 0],
];

const roundContext = (party, purpose, index, round = ROUND) => rd.proofContext(TABLE, round, party, purpose, index);

function roundContexts() {
  return {
    lp: ["", TABLE, ROUND, "seat:0"].map((string) => ({ string, bytes: h(rd.lp(string)) })),
    contexts: CONTEXTS.map(([party, purpose, index]) => {
      const c = roundContext(party, purpose, index);
      return { party, purpose, index, length: c.length, bytes: h(c) };
    }),
    refused_contexts: REFUSED_CONTEXTS.map(([name, table, round, party, purpose, index]) => ({
      name, table, round, party, purpose, index,
    })),
  };
}

function roundSeats(at) {
  return SEATS.map((party, n) => {
    const [x, nonce] = [fixed(`${at.prefix}round key seat ${n}`), fixed(`${at.prefix}round key proof nonce seat ${n}`)];
    const ctx = roundContext(party, "round-key", 0);
    const proof = writeProof(p.proveKey(x, ctx, nonce));
    return { party, private: sc(x), key: h(g.base(x)), context: h(ctx), nonce: sc(nonce), proof };
  });
}

function serverKey(at) {
  const { key, proof } = rd.serverKeyProof(at.seed, { table: TABLE, round: ROUND });
  const ctx = roundContext("server", "round-key", 0);
  const { ctr, k: nonce } = rd.keyNonce(at.seed, key, ctx);
  return {
    private: sc(k.serverRoundKey(at.seed)),
    key: h(key),
    context: h(ctx),
    ctr,
    nonce_input: h(rd.keyNonceInput(at.seed, ctr, key, ctx)),
    nonce: sc(nonce),
    t: h(g.base(nonce)),
    proof: writeProof(proof),
  };
}

function serverShareVector(at, ciphertext) {
  const { share, proof } = rd.serverShare(at.seed, ciphertext.b, { table: TABLE, round: ROUND, position: at.position });
  const ctx = roundContext("server", "share", at.position);
  const X0 = g.base(k.serverRoundKey(at.seed));
  const { ctr, k: nonce } = rd.shareNonce(at.seed, X0, ciphertext.b, share, ctx);
  return {
    position: at.position,
    ciphertext: writeCiphertext(ciphertext),
    context: h(ctx),
    ctr,
    nonce_input: h(rd.shareNonceInput(at.seed, ctr, X0, ciphertext.b, share, ctx)),
    nonce: sc(nonce),
    t1: h(g.base(nonce)),
    t2: h(g.mul(ciphertext.b, nonce)),
    ...writeShare({ share, proof }),
  };
}

/** The nonces 15.12.2 gives for statements near the vectors' own: each differs. */
function otherNonces(at, ciphertext) {
  const x0 = k.serverRoundKey(at.seed);
  const [key, b] = [g.base(x0), ciphertext.b];
  const otherSeed = digest(`${at.prefix}tbl-blind.2`);
  const [shareCtx, keyCtx] = [roundContext("server", "share", at.position), roundContext("server", "round-key", 0)];
  const cases = [
    ["the share of another position", at.seed, b, roundContext("server", "share", at.position + 1)],
    ["the share of another b", at.seed, g.add(b, g.base(1n)), shareCtx],
    ["the share under a seat's context", at.seed, b, roundContext("seat:0", "share", at.position)],
    ["the key proof for another round", at.seed, null, roundContext("server", "round-key", 0, "tbl-blind.2")],
    ["the key proof from another server seed", otherSeed, null, keyCtx],
  ];
  return cases.map(([name, seed, A, ctx]) => {
    const base = { name, proof_of: A ? "share" : "knowledge", server_seed: h(seed), key: h(key) };
    if (!A) return { ...base, context: h(ctx), ...nonceOf(rd.keyNonce(seed, key, ctx)) };
    const D = g.mul(A, x0);
    return { ...base, a: h(A), d: h(D), context: h(ctx), ...nonceOf(rd.shareNonce(seed, key, A, D, ctx)) };
  });
}

const nonceOf = ({ ctr, k }) => ({ ctr, nonce: sc(k) });
const WHERE = { table: TABLE, round: ROUND, game: "toto21", decks: 1 };

function serverStepVector(at, joint, step, witness) {
  return {
    shuffle_key: h(at.shuffleKey),
    game: WHERE.game,
    decks: WHERE.decks,
    n: step.input.length,
    context: h(step.context),
    key: h(joint),
    step_key_input: h(rd.serverStepKeyInput(joint, WHERE)),
    step_key: h(rd.serverStepKey(at.shuffleKey, joint, WHERE)),
    permutation: witness.psi,
    reencryption: witness.rPrime.map(sc),
    draws: witness.drawn.map(sc),
    outputs: step.output.map(writeCiphertext),
    proof: step.proof,
  };
}

/** The step keys 15.12.3 gives from the same shuffle key for statements near the vectors' own:
 * each differs, so no two of these steps share a draw. */
function otherStepKeys(at, joint, x0) {
  const cases = [
    ["another joint key (the service's and seat 0's only)", WHERE,
      g.add(g.base(x0), g.base(fixed(`${at.prefix}round key seat 0`)))],
    ["another round's context", { ...WHERE, round: "tbl-blind.2" }, joint],
    ["another game", { ...WHERE, game: "kvitlach", decks: 1 }, joint],
  ];
  return cases.map(([name, where, key]) => ({
    name,
    context: h(roundContext("server", "shuffle", 0, where.round)),
    game: where.game,
    decks: where.decks,
    key: h(key),
    step_key_input: h(rd.serverStepKeyInput(key, where)),
    step_key: h(rd.serverStepKey(at.shuffleKey, key, where)),
  }));
}

/** Steps that are not the one the shuffle key gives, each made as the service makes its step
 * but with one thing changed; only 15.12.3's recomputation refuses the first three. */
function alteredSteps(joint, { input }, { psi, rPrime, drawn }) {
  const n = input.length;
  const bump = (list, i) => list.with(i, g.mod(list[i] + 1n));
  const cases = [
    ["one re-encryption scalar changed (r'[1] + 1)", psi, bump(rPrime, 1), drawn, 0],
    ["psi with its first two entries swapped", [psi[1], psi[0], ...psi.slice(2)], rPrime, drawn, 0],
    ["one proof draw changed (the first omega_1 + 1)", psi, rPrime, bump(drawn, 2 * n), 0],
    ["the proof made for another step's context (index 1)", psi, rPrime, drawn, 1],
  ];
  return cases.map(([name, permutation, randomness, draws, index]) => {
    const { output } = tw.shuffle(input, joint, { psi: permutation, rPrime: randomness });
    const ctx = roundContext("server", "shuffle", index);
    const proof = tw.prove(ctx, joint, input, output, permutation, randomness, rd.proofDraws(draws, permutation));
    return { name, outputs: output.map(writeCiphertext), proof };
  });
}

function opened(at, xs, ciphertext) {
  const server = rd.serverShare(at.seed, ciphertext.b, { table: TABLE, round: ROUND, position: at.position });
  const serverCtx = roundContext("server", "share", at.position);
  const shares = [{ party: "server", context: h(serverCtx), ...writeShare(server) }];
  SEATS.forEach((party, n) => {
    const ctx = roundContext(party, "share", at.position);
    const nonce = fixed(`${at.prefix}share nonce seat ${n} position ${at.position}`);
    const share = p.proveShare(xs[n + 1], ciphertext.b, ctx, nonce);
    shares.push({ party, context: h(ctx), nonce: sc(nonce), ...writeShare(share) });
  });
  const m = e.decrypt(ciphertext, shares.map((s) => hexToBytes(s.share)));
  if (h(rd.decryptWithKeys(ciphertext, xs)) !== h(m)) throw new Error("the two openings differ");
  const index = e.cardIndex(m, e.cardPoints(WHERE.game, WHERE.decks));
  return {
    position: at.position,
    ciphertext: writeCiphertext(ciphertext),
    shares,
    private_keys: xs.map(sc),
    key_sum: sc(xs.reduce((acc, x) => g.mod(acc + x), 0n)),
    m: h(m),
    index,
    card: canonicalDeck(WHERE.game, WHERE.decks)[index],
  };
}

const ROUND_TAGS = ["PROOF_CONTEXT", "SERVER_NONCE", "SERVER_STEP"];

/** round.json's layout, made by round.js from the fixed inputs `inputs` (ROUND_PY, ROUND_JS). */
export function roundVectors(inputs = ROUND_JS) {
  const at = {
    ...inputs,
    seed: digest(`${inputs.prefix}${ROUND}`),
    shuffleKey: digest(`${inputs.prefix}shuffle key ${ROUND}`),
  };
  const seats = roundSeats(at);
  const server = serverKey(at);
  const xs = [readScalar(server.private), ...seats.map((s) => readScalar(s.private))];
  const joint = k.jointKey(xs.map((x) => g.base(x)));
  const step = rd.serverStep(at.shuffleKey, joint, WHERE);
  const witness = rd.serverWitness(at.shuffleKey, joint, WHERE);
  const ciphertext = step.output[at.position];
  return {
    about: at.about,
    tags: Object.fromEntries(ROUND_TAGS.map((name) => [name, h(BLIND_TAGS[name])])),
    table: TABLE,
    round: ROUND,
    ...roundContexts(),
    server_seed: h(at.seed),
    server_key: server,
    seats,
    joint_key: h(joint),
    server_share: serverShareVector(at, ciphertext),
    other_nonces: otherNonces(at, ciphertext),
    server_step: serverStepVector(at, joint, step, witness),
    other_step_keys: otherStepKeys(at, joint, xs[0]),
    altered_steps: alteredSteps(joint, step, witness),
    opened: opened(at, xs, ciphertext),
  };
}

const BIG = "@@bigint@@";

/**
 * A vector file's text, laid out as Python's json.dumps(indent=1) lays it out: BigInt members
 * as JSON integers, every character beyond ASCII as a lowercase \uXXXX escape.
 */
export function render(value) {
  const text = JSON.stringify(value, (_, v) => (typeof v === "bigint" ? `${BIG}${v}` : v), 1);
  return (
    text
      .replace(new RegExp(`"${BIG}(-?\\d+)"`, "g"), "$1")
      .replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`) + "\n"
  );
}

export const FILES = {
  "js-primitives.json": primitives,
  "js-shuffle.json": shuffleVectors,
  "js-round.json": () => roundVectors(ROUND_JS),
};

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, make] of Object.entries(FILES)) {
    await writeFile(new URL(name, OUT), render(make()));
    console.log(`wrote ${name}`);
  }
}
