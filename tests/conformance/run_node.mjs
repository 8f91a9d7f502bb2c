// Every case of the conformance suite (conformance/manifest.json) through the browser's
// verification module, in one Node process, as conformance/README.md tells an
// implementation to run it:
//   node tests/conformance/run_node.mjs [SUITE_FOLDER]
// prints one JSON object a line, in the manifest's order: {id, verdict, exit_status,
// codes} (codes sorted, each once), or {id, error} where the module threw. Key and
// witness files are read as text; the input, the checkpoints and the proofs as bytes, as
// fairdeal-verify reads its files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FairdealError, importOperatorKey, keySetOf, verifyText } from "../../api/static/web/js/fairdeal/index.js";

const EXIT_STATUS = { valid: 0, invalid: 1, unusable: 2 };
const folder = process.argv[2] ?? new URL("../../conformance", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
const bytes = (path) => (path === null ? null : new Uint8Array(readFileSync(join(folder, path))));
const text = (path) => readFileSync(join(folder, path), "utf8");

async function run(c) {
  const o = c.options;
  let keys;
  try {
    keys = keySetOf(await Promise.all(o.keys.map((path) => importOperatorKey(text(path)))));
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    return { verdict: "unusable", findings: [{ code: e.code }] }; // (0) a --key that is not a key
  }
  return verifyText(bytes(c.input), {
    keys,
    origin: o.origin,
    witnesses: o.witnesses.map(text),
    quorum: o.witness_quorum,
    partial: o.partial,
    checkpoint: bytes(o.checkpoint),
    previousCheckpoint: bytes(o.previous_checkpoint),
    consistencyProofs: o.consistency_proofs.map(bytes),
  });
}

for (const c of manifest.cases) {
  let line;
  try {
    const result = await run(c);
    const codes = [...new Set(result.findings.map((f) => f.code))].sort();
    line = { id: c.id, verdict: result.verdict, exit_status: EXIT_STATUS[result.verdict], codes };
  } catch (e) {
    line = { id: c.id, error: e.stack ?? String(e) }; // the case fails; the others still run
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
