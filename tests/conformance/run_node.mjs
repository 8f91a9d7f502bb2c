// Every case of the conformance suite (conformance/manifest.json) through the browser's
// verification module, in one Node process, as conformance/README.md tells an
// implementation to run it:
//   node tests/conformance/run_node.mjs [SUITE_FOLDER]
// prints one JSON object a line, in the manifest's order: {id, verdict, exit_status,
// codes} (codes sorted, each once), or {id, error} where the module threw. Key and
// witness files are read as text (textOf: UTF-8 without a byte order mark); the input, the
// checkpoints and the proofs as bytes, as fairdeal-verify reads its files. A file that
// cannot be read (one the manifest names that does not exist) is input.unreadable: the
// module is only ever given what was read.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  FairdealError,
  importOperatorKey,
  keySetOf,
  textOf,
  verifyText,
} from "../../api/static/web/js/fairdeal/index.js";

const EXIT_STATUS = { valid: 0, invalid: 1, unusable: 2 };
const folder = process.argv[2] ?? new URL("../../conformance", import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));

function read(path) {
  try {
    return new Uint8Array(readFileSync(join(folder, path)));
  } catch (e) {
    if (e.code === undefined) throw e;
    throw new FairdealError("input.unreadable", `cannot read ${path}: ${e.code}`);
  }
}
const bytes = (path) => (path === null ? null : read(path));
const text = (path) => textOf(read(path), path); // (0) UTF-8 without a byte order mark

async function run(c) {
  const o = c.options;
  let keys;
  let read;
  try {
    keys = keySetOf(await Promise.all(o.keys.map((path) => importOperatorKey(text(path)))));
    read = {
      input: bytes(c.input),
      witnesses: o.witnesses.map(text),
      checkpoint: bytes(o.checkpoint),
      previousCheckpoint: bytes(o.previous_checkpoint),
      consistencyProofs: o.consistency_proofs.map(bytes),
    };
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    return { verdict: "unusable", findings: [{ code: e.code }] }; // (0) a file or a --key unusable
  }
  const { input, ...files } = read;
  return verifyText(input, { keys, origin: o.origin, quorum: o.witness_quorum, partial: o.partial, ...files });
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
