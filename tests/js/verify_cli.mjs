// Verifies files with the browser module, in one Node process, for the parity test:
//   node verify_cli.mjs KEY_FILE [--witness KEY]... [--witness-quorum N] FILE... [--partial FILE...]
// prints one JSON object a line: {file, verdict, codes} (codes sorted, each once), or
// {file, error} where the module threw. Files are read as bytes. A .jsonl file is an export
// (verifyExport), verified as filtered after --partial; any other file is read as the
// verify page reads it (verifyText). Each --witness (a verifier key string) and
// --witness-quorum holds for the files after it, as fairdeal-verify's do (SPEC 7 step 18).
import { readFileSync } from "node:fs";
import { importOperatorKey, verifyExport, verifyText } from "../../api/static/web/js/fairdeal/index.js";

const [keyFile, ...args] = process.argv.slice(2);
const keys = await importOperatorKey(readFileSync(keyFile, "utf8"));
const witnesses = [];
let quorum = null;
let partial = false;
for (let i = 0; i < args.length; i++) {
  const file = args[i];
  if (file === "--partial") {
    partial = true;
    continue;
  }
  if (file === "--witness" || file === "--witness-quorum") {
    const value = args[++i];
    if (file === "--witness") witnesses.push(value);
    else quorum = Number(value);
    continue;
  }
  const bytes = new Uint8Array(readFileSync(file)); // as fairdeal-verify reads it: bytes
  const opts = { keys, partial, witnesses, quorum };
  let line;
  try {
    const result = file.endsWith(".jsonl") ? await verifyExport(bytes, opts) : await verifyText(bytes, opts);
    const codes = [...new Set(result.findings.map((f) => f.code))].sort();
    line = { file, verdict: result.verdict, codes };
  } catch (e) {
    line = { file, error: e.stack ?? String(e) }; // the module threw: that file fails, the others still run
  }
  process.stdout.write(JSON.stringify(line) + "\n");
}
