// The cross-language vectors of SPEC 15.10: Python's tests/vectors/blind/primitives.json is
// remade byte for byte by the JS modules from the same fixed inputs (blind_make.mjs), and
// every proof in it is verified and every named negative case refused by the JS verifiers;
// the JS-made js-primitives.json is what blind_make.mjs makes now (no drift).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";

import { hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import * as e from "../../api/static/web/js/fairdeal/blind/elgamal.js";
import {
  BadProofError,
  BlindEncodingError,
  IdentityKeyError,
  InvalidElementError,
  InvalidScalarError,
} from "../../api/static/web/js/fairdeal/blind/errors.js";
import * as json from "../../api/static/web/js/fairdeal/blind/json.js";
import * as p from "../../api/static/web/js/fairdeal/blind/proofs.js";
import { FILES, primitives, render } from "./blind_make.mjs";

const DIR = new URL("../vectors/blind/", import.meta.url);
const load = async (name) => JSON.parse(await readFile(new URL(name, DIR), "utf8"));
const utf8 = (s) => new TextEncoder().encode(s);
const ERRORS = {
  bad_proof: BadProofError,
  encoding: BlindEncodingError,
  identity_key: IdentityKeyError,
  invalid_element: InvalidElementError,
  invalid_scalar: InvalidScalarError,
};

test("primitives.json (Python) is remade byte for byte by the JS modules, its 'about' aside", async () => {
  const python = await readFile(new URL("primitives.json", DIR), "utf8");
  const ours = render(primitives());
  const body = (text) => text.split("\n").filter((line) => !line.startsWith(' "about": '));
  assert.deepEqual(body(ours), body(python));
});

test("primitives.json: every proof verifies in JS, and its hashed inputs are JS's", async () => {
  const v = await load("primitives.json");
  for (const name of ["key_proof"]) {
    const c = v[name];
    const key = json.readElement(c.key);
    assert.deepEqual(p.keyProofInput(key, json.readElement(c.t), hexToBytes(c.context_hex)), hexToBytes(c.hashed));
    p.verifyKey(key, utf8(c.context), json.readProof(c.proof));
  }
  for (const name of ["share_proof", "share_proof_of_identity"]) {
    const c = v[name];
    const [key, A, D] = [c.key, c.a, c.d].map(json.readElement);
    const [t1, t2] = [c.t1, c.t2].map(json.readElement);
    assert.deepEqual(p.shareProofInput(key, A, D, t1, t2, hexToBytes(c.context_hex)), hexToBytes(c.hashed));
    p.verifyShare(key, A, D, utf8(c.context), json.readProof(c.proof));
  }
  const el = v.elgamal;
  const last = json.readCiphertext(el.reencryptions.at(-1).ciphertext);
  const shares = el.shares.map((s) => {
    const read = json.readShare({ proof: s.proof, share: s.share });
    p.verifyShare(json.readElement(el.public_keys[s.party]), last.b, read.share, utf8(s.context), read.proof);
    return read.share;
  });
  const m = e.decrypt(last, shares);
  assert.equal(json.writeElement(m), el.plaintext);
  assert.equal(e.cardIndex(m, e.cardPoints("toto21", 1)), el.card_index);
});

test("primitives.json: scalars refused as SPEC 15.2 says", async () => {
  const v = await load("primitives.json");
  for (const s of v.scalars.encodings) assert.equal(json.readScalar(s.bytes), BigInt(s.value));
  for (const s of v.scalars.refused) assert.throws(() => json.readScalar(s.bytes), BlindEncodingError, s.why);
});

test("primitives.json: every named negative case is refused with its error", async () => {
  const v = await load("primitives.json");
  for (const c of v.negative) {
    const run = () => {
      const [key, proof] = [json.readElement(c.key), json.readProof(c.proof)];
      if (c.proof_of === "knowledge") p.verifyKey(key, utf8(c.context), proof);
      else p.verifyShare(key, json.readElement(c.a), json.readElement(c.d), utf8(c.context), proof);
    };
    assert.throws(run, ERRORS[c.error], c.name);
  }
});

test("the JS-made vector files are what blind_make.mjs makes now", async () => {
  for (const [name, make] of Object.entries(FILES)) {
    const committed = await readFile(new URL(name, DIR), "utf8");
    assert.equal(committed, render(make()), `${name}: run node tests/js/blind_make.mjs`);
  }
});

test("js-primitives.json's proofs verify (what the Python side checks)", async () => {
  const v = await load("js-primitives.json");
  p.verifyKey(json.readElement(v.key_proof.key), utf8(v.key_proof.context), json.readProof(v.key_proof.proof));
  const s = v.share_proof;
  p.verifyShare(...[s.key, s.a, s.d].map(json.readElement), utf8(s.context), json.readProof(s.proof));
});
