// Python's shuffle vectors (tests/vectors/blind/shuffle.json) in the browser module: each valid
// step is remade byte for byte from its statement, secret and recorded draws (outputs, the
// generators, y, the u seed, u, c, the whole proof) and verifies; each invalid step is refused
// at the check the file names. The JS-made js-shuffle.json gets the same checks here, and the
// Python side's (blind_make.mjs writes it; blind_vectors.test.mjs checks it does not drift).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";

import { bytesToHex, hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import { InvalidShuffleProofError, MalformedShuffleProofError } from "../../api/static/web/js/fairdeal/blind/errors.js";
import * as g from "../../api/static/web/js/fairdeal/blind/group.js";
import {
  readCiphertext,
  readElement,
  readScalar,
  writeCiphertext,
} from "../../api/static/web/js/fairdeal/blind/json.js";
import { proofDraws } from "../../api/static/web/js/fairdeal/blind/round.js";
import * as s from "../../api/static/web/js/fairdeal/blind/shuffle.js";
import { BLIND_TAGS } from "../../api/static/web/js/fairdeal/blind/tags.js";

const DIR = new URL("../vectors/blind/", import.meta.url);
const load = async (name) => JSON.parse(await readFile(new URL(name, DIR), "utf8"));
const hex = bytesToHex;

function remake(v) {
  const ctx = hexToBytes(v.context);
  const key = readElement(v.key);
  const inputs = v.inputs.map(readCiphertext);
  const { output } = s.shuffle(inputs, key, { psi: v.permutation, rPrime: v.randomness.map(readScalar) });
  assert.deepEqual(output.map(writeCiphertext), v.outputs, `${v.name}: outputs`);
  const y = s.statementDigest(ctx, key, inputs, output);
  assert.equal(hex(y), v.y, `${v.name}: y`);
  const c = v.proof.c.map(readElement);
  assert.equal(hex(s.permutationSeed(y, c)), v.u_seed, `${v.name}: u seed`);
  assert.deepEqual(s.permutationChallenges(y, c).map((u) => hex(g.scalarToBytes(u))), v.u, `${v.name}: u`);
  const challenge = s.proofChallenge(y, s.commitmentBytes(v.proof));
  assert.equal(hex(g.scalarToBytes(challenge)), v.challenge, `${v.name}: challenge`);
  assert.equal(v.draws.length, 4 * v.n + 4);
  const rPrime = v.randomness.map(readScalar);
  const proof = s.prove(ctx, key, inputs, output, v.permutation, rPrime, proofDraws(v.draws.map(readScalar), v.permutation));
  assert.deepEqual(proof, v.proof, `${v.name}: the proof`);
}

function refusedAsNamed(v) {
  const run = () => s.verifyStep(hexToBytes(v.context), v.key, v.inputs, v.outputs, v.proof);
  if (v.refused_at.startsWith("shape or encoding")) {
    assert.throws(run, MalformedShuffleProofError, v.name);
  } else {
    assert.equal(v.refused_at, "equations (step 5)");
    assert.throws(run, (e) => e instanceof InvalidShuffleProofError && e.step === v.first_failing_equation, v.name);
  }
}

for (const file of ["shuffle.json", "js-shuffle.json"]) {
  test(`${file}: tags and generators are SPEC 15.11.1–2's, computed in JS`, async () => {
    const v = await load(file);
    for (const [name, value] of Object.entries(v.tags)) assert.equal(hex(BLIND_TAGS[name]), value, name);
    const H = s.generators(v.generators.length - 1).map((P) => hex(g.fromPoint(P)));
    assert.deepEqual(H, v.generators);
  });

  test(`${file}: every valid step is remade byte for byte and verifies`, async () => {
    const v = await load(file);
    assert.ok(v.valid.length >= 6);
    for (const step of v.valid) {
      remake(step);
      s.verifyStep(hexToBytes(step.context), step.key, step.inputs, step.outputs, step.proof);
    }
  });

  test(`${file}: every invalid step is refused at the check it names`, async () => {
    const v = await load(file);
    assert.ok(v.invalid.length >= 16);
    v.invalid.forEach(refusedAsNamed);
  });
}
