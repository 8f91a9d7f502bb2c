// Whole exports: the committed vector exports verify; edits to them are findings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as fd from "../../api/static/web/js/fairdeal/index.js";

const read = (name) => readFileSync(new URL(`../vectors/${name}`, import.meta.url), "utf8");

for (const name of ["fairdeal-bundle-2.json", "fairdeal-v2.json"]) {
  test(`${name}: its export is valid, and an edited payout is not`, async () => {
    const vec = JSON.parse(read(name));
    const keys = await fd.importOperatorKey(vec.verifier_key);
    const text = vec.export.map((b) => JSON.stringify(b)).join("\n") + "\n";
    const ok = await fd.verifyExport(text, { keys });
    assert.equal(ok.verdict, "valid", JSON.stringify(ok.findings));
    const edited = text.replace(/"amount":(\d+)/, (_, n) => `"amount":${Number(n) + 1}`);
    const bad = await fd.verifyExport(edited, { keys });
    assert.equal(bad.verdict, "invalid");
    assert.ok(bad.findings.some((f) => f.code === "sig.hash_mismatch"));
  });
}

test("the frozen legacy export is valid; a garbled line is unusable, the rest still checked", async () => {
  const keys = await fd.importOperatorKey(read("legacy-export-1.key"));
  const text = read("legacy-export-1.jsonl");
  assert.equal((await fd.verifyExport(text, { keys })).verdict, "valid");
  const lines = text.split("\n");
  lines[1] = lines[1].slice(0, 50);
  const broken = await fd.verifyExport(lines.join("\n"), { keys });
  assert.equal(broken.verdict, "unusable");
  assert.ok(broken.bundles.length >= 8);
});

test("a bundle against the wrong key is one sig.wrong_key", async () => {
  const vec = JSON.parse(read("fairdeal-v2.json"));
  const other = await fd.importOperatorKey(read("legacy-export-1.key"));
  const r = await fd.verifyBundle(vec.export[3], { keys: other });
  const codes = r.findings.map((f) => f.code);
  assert.equal(codes.filter((c) => c === "sig.wrong_key").length, 1);
  assert.ok(!codes.includes("sig.unknown_key"));
});
