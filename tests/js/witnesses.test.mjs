// SPEC 10.5's worked cosignature (witness.example/w1 over 10.4's checkpoint at
// 1767225600) and step 18's reading of it: what counts, what is refused, what is ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fd from "../../api/static/web/js/fairdeal/index.js";

// Copied from SPEC.md 10.4 and 10.5.
const LOG_KEY = "fairdeal.example/log+e30c9444+AdXOcj832NxEfMsxqgMdexngF9kqzpqIThcu+DwQvRbz";
const WITNESS_KEY = "witness.example/w1+8c46b4c9+BCmG7Xbg/Q91SueQP1A/nC1SfANQErXPB+cd9fe+1qqk";
const WITNESS = "witness.example/w1";
const CHECKPOINT =
  "fairdeal.example/log\n3\nmwMRukr9HhfdxqSf4imhtUKkCE9ks8AsvzHwvoabR14=\n\n" +
  "\u2014 fairdeal.example/log 4wyURIh1upXreEQoNRKtnnhX/FKF1NuQCoiKJwrdtCDGpdl2mbRdCGaiNmRr8Uj2k6YjsLuQEHMrAimd2Klj7ZKzIww=\n";
const COSIGNATURE =
  "\u2014 witness.example/w1 jEa0yQAAAABpVbkA2gxdg5e4JTMcLman8IFHqYXBEsf30rt5gRcY1ErH/G7ittRae8ttOp+VQoLzXVJQd0u2SzGzWt1P26pyTeWGCw==\n";
const COSIGNED = CHECKPOINT + COSIGNATURE;
const T = 1767225600n;

const read = async (note, keys = [WITNESS_KEY], quorum = null) =>
  fd.witnessing(note, await fd.importWitnesses(keys, quorum));
const codes = (w, headTime = null) => fd.witnessFindings(w, headTime).map((f) => f.code);

/** The cosigned note, its cosignature's blob byte ``index`` (from the end if negative)
 * xored with ``mask``. */
function flipped(index, mask = 1) {
  const [dash, name, material] = COSIGNATURE.trimEnd().split(" ");
  const blob = fd.base64ToBytes(material);
  blob[(index + blob.length) % blob.length] ^= mask;
  return CHECKPOINT + `${dash} ${name} ${fd.bytesToBase64(blob)}\n`;
}

test("the witness's verifier key: its name, its key ID, type 0x04", async () => {
  const w = await fd.importWitnessKey(WITNESS_KEY);
  assert.equal(w.name, WITNESS);
  assert.equal(fd.bytesToHex(w.keyId), "8c46b4c9");
});

test("the worked example's cosignature verifies, at 1767225600 (2026-01-01T00:00:00Z)", async () => {
  const w = await read(COSIGNED);
  assert.deepEqual(w.valid, [{ name: WITNESS, time: T }]);
  assert.deepEqual(w.bad, []);
  assert.equal(fd.witnessBound(w), T);
  assert.deepEqual(fd.quorumNames(w), [WITNESS]);
  assert.deepEqual(codes(w), []);
  const blob = fd.base64ToBytes(COSIGNATURE.trimEnd().split(" ")[2]);
  assert.equal(fd.bytesToHex(blob.slice(4, 12)), "000000006955b900");
});

test("the checkpoint stays the operator's: its pinned key opens the cosigned note", async () => {
  const checkpoint = await fd.openCheckpoint(COSIGNED, await fd.importOperatorKey(LOG_KEY), "fairdeal.example/log");
  assert.equal(checkpoint.size, 3n);
});

test("a key that is not a witness's is refused, the log's note key (type 0x01) among them", async () => {
  for (const bad of [LOG_KEY, "", "witness.example/w1", WITNESS_KEY.replace("8c46b4c9", "8c46b4c8"), WITNESS_KEY + "="]) {
    await assert.rejects(fd.importWitnessKey(bad), { code: "input.wrong_format" }, bad);
  }
  await assert.rejects(fd.importOperatorKey(WITNESS_KEY), { code: "input.wrong_format" });
  await assert.rejects(fd.importWitnesses([WITNESS_KEY, WITNESS_KEY]), { code: "input.wrong_format" });
});

test("a quorum out of 1 to the witnesses given, or without witnesses, is the caller's error", async () => {
  for (const quorum of [0, 2, 1.5]) await assert.rejects(fd.importWitnesses([WITNESS_KEY], quorum), RangeError);
  await assert.rejects(fd.importWitnesses([], 1), RangeError);
  assert.equal(await fd.importWitnesses([]), null);
});

test("no cosignature by the witness: witness.quorum, and nothing bounds the time", async () => {
  const w = await read(CHECKPOINT);
  assert.equal(fd.witnessBound(w), null);
  assert.deepEqual(codes(w), ["witness.quorum"]);
  assert.match(fd.witnessFindings(w)[0].reason, /0 valid cosignature\(s\) of the 1 required, by none/);
});

const BROKEN = {
  "a bit of the signature flipped": [-1, 1],
  "a bit of the time flipped": [11, 1],
  "the time's top bit set (over 2^63 - 1)": [4, 0x80],
};
for (const [name, [index, mask]] of Object.entries(BROKEN)) {
  test(`${name}: witness.signature, and the witness does not count`, async () => {
    const w = await read(flipped(index, mask));
    assert.deepEqual(codes(w).sort(), ["witness.quorum", "witness.signature"]);
    assert.match(w.bad[0], /\(key witness\.example\/w1\+8c46b4c9\)$/);
  });
}

test("a truncated line under the witness's key ID is malformed: witness.signature", async () => {
  const [dash, name, material] = COSIGNATURE.trimEnd().split(" ");
  const blob = fd.base64ToBytes(material).slice(0, -1);
  const w = await read(CHECKPOINT + `${dash} ${name} ${fd.bytesToBase64(blob)}\n`);
  assert.deepEqual(codes(w).sort(), ["witness.quorum", "witness.signature"]);
});

test("a line under the witness's name with another key ID is ignored", async () => {
  const w = await read(flipped(0));
  assert.deepEqual(w.bad, []);
  assert.deepEqual(codes(w), ["witness.quorum"]);
});

test("the cosignature over another body does not verify: witness.signature", async () => {
  const other = CHECKPOINT.replace("\n3\n", "\n4\n") + COSIGNATURE;
  assert.deepEqual(codes(await read(other)).sort(), ["witness.quorum", "witness.signature"]);
});

test("a head logged over a minute after the witness-bounded second: witness.time; within it, nothing", async () => {
  const w = await read(COSIGNED);
  const end = Number(T) * 1000 + 999 + 60000; // a witness's clock may lag the operator's a minute
  assert.deepEqual(codes(w, end), []);
  assert.deepEqual(codes(w, end + 1), ["witness.time"]);
  assert.deepEqual(codes(w, null), []); // the head's inclusion not proved: not checked
});
