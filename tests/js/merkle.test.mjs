// RFC 9162 vectors (transparency-dev/merkle) and SPEC 10.4's checkpoint example.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import * as fd from "../../api/static/web/js/fairdeal/index.js";

const DIR = new URL("../vectors/rfc9162/", import.meta.url);
const b64 = (s) => fd.base64ToBytes(s);

function vectors(kind) {
  const out = [];
  const walk = (url) => {
    for (const entry of readdirSync(url, { withFileTypes: true })) {
      const next = new URL(entry.name + (entry.isDirectory() ? "/" : ""), url);
      if (entry.isDirectory()) walk(next);
      else if (entry.name.endsWith(".json")) out.push([next.pathname, JSON.parse(readFileSync(next, "utf8"))]);
    }
  };
  walk(new URL(`${kind}/`, DIR));
  return out;
}

test("all 98 inclusion vectors", async () => {
  const all = vectors("inclusion");
  assert.equal(all.length, 98);
  for (const [name, v] of all) {
    const run = fd.verifyInclusion(b64(v.leafHash), v.leafIdx, v.treeSize, (v.proof ?? []).map(b64), b64(v.root));
    if (v.wantErr) await assert.rejects(run, { code: "log.inclusion" }, name);
    else await run;
  }
});

test("all 98 consistency vectors (SPEC 10.2: a proof from the empty tree is refused)", async () => {
  const all = vectors("consistency");
  assert.equal(all.length, 98);
  for (const [name, v] of all) {
    const run = fd.verifyConsistency(v.size1, v.size2, (v.proof ?? []).map(b64), b64(v.root1), b64(v.root2));
    if (v.wantErr || v.size1 === 0) await assert.rejects(run, { code: "checkpoint.inconsistent" }, name);
    else await run;
  }
});

const LEAVES = [
  "4124e6172a8e7378a7b6f216263261f8ca5f2b59dddcaabfa6abd1ca96f06e3c",
  "527755fffaf8ad54ebdd89d51fa4103e30afdc530f9b1970854df985229d21a7",
  "eee4c2eba4ad21a138fa59072bb7cffeb110a0bb23b43d2f9df26c560f59795f",
];
const NOTE =
  "fairdeal.example/log\n3\nmwMRukr9HhfdxqSf4imhtUKkCE9ks8AsvzHwvoabR14=\n\n" +
  "\u2014 fairdeal.example/log 4wyURIh1upXreEQoNRKtnnhX/FKF1NuQCoiKJwrdtCDGpdl2mbRdCGaiNmRr8Uj2k6YjsLuQEHMrAimd2Klj7ZKzIww=\n";
const KEY = "fairdeal.example/log+e30c9444+AdXOcj832NxEfMsxqgMdexngF9kqzpqIThcu+DwQvRbz";

test("SPEC 10.4: leaf hashes, roots, proofs and the signed checkpoint", async () => {
  const chain = JSON.parse(readFileSync(new URL("../vectors/fairdeal-v1.json", import.meta.url), "utf8")).events.chain;
  const leaves = await Promise.all(chain.slice(0, 3).map((c) => fd.leafHash(fd.hexToBytes(c.hash))));
  assert.deepEqual(leaves.map(fd.bytesToHex), LEAVES);
  const root2 = await fd.rootOf(leaves.slice(0, 2));
  const root3 = await fd.rootOf(leaves);
  assert.equal(fd.bytesToHex(root2), "3201da4b5379eac3180061c3102b7e37250615c5230410b866915d5678137267");
  assert.equal(fd.bytesToHex(root3), "9b0311ba4afd1e17ddc6a49fe229a1b542a4084f64b3c02cbf31f0be869b475e");
  await fd.verifyInclusion(leaves[2], 2, 3, [root2], root3);
  await fd.verifyConsistency(2, 3, [leaves[2]], root2, root3);
  const keys = await fd.importOperatorKey(KEY);
  const checkpoint = await fd.openCheckpoint(NOTE, keys, "fairdeal.example/log");
  assert.equal(checkpoint.size, 3n);
  assert.equal(fd.bytesToHex(checkpoint.rootHash), fd.bytesToHex(root3));
  const cosigned = NOTE + "\u2014 witness.example AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n";
  await fd.openCheckpoint(cosigned, keys, "fairdeal.example/log"); // an unknown signer is ignored
  await assert.rejects(fd.openCheckpoint(NOTE, keys, "other.example/log"), { code: "checkpoint.signature" });
  await assert.rejects(fd.openCheckpoint(NOTE.replace("\n3\n", "\n4\n"), keys, "fairdeal.example/log"), { code: "checkpoint.signature" });
  await assert.rejects(fd.openCheckpoint(NOTE.replace("\n\n", "\n"), keys, "fairdeal.example/log"), { code: "checkpoint.malformed" });
});

test("operator keys: a C2SP key string or a PEM key, nothing else", async () => {
  const fromString = await fd.importOperatorKey(KEY);
  const pem = readFileSync(new URL("../vectors/legacy-export-1.key", import.meta.url), "utf8");
  assert.equal(fromString.keys[0].noteName, "fairdeal.example/log");
  await fd.importOperatorKey(pem);
  await assert.rejects(fd.importOperatorKey("nonsense"), { code: "input.wrong_format" });
  await assert.rejects(fd.importOperatorKey(KEY.replace("e30c9444", "e30c9445")), { code: "input.wrong_format" });
});
