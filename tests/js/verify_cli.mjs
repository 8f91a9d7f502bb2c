// Verifies files with the browser module, in one Node process, for the parity test:
//   node verify_cli.mjs KEY_FILE FILE... [--partial FILE...]
// prints one JSON object a line: {file, verdict, codes} (codes sorted, each once). A .jsonl
// file is an export (verifyExport), verified as filtered after --partial; any other file is
// read as the verify page reads it (verifyText).
import { readFileSync } from "node:fs";
import { importOperatorKey, verifyExport, verifyText } from "../../api/static/web/js/fairdeal/index.js";

const [keyFile, ...args] = process.argv.slice(2);
const keys = await importOperatorKey(readFileSync(keyFile, "utf8"));
let partial = false;
for (const file of args) {
  if (file === "--partial") {
    partial = true;
    continue;
  }
  const text = readFileSync(file, "utf8");
  const result = file.endsWith(".jsonl") ? await verifyExport(text, { keys, partial }) : await verifyText(text, { keys });
  const codes = [...new Set(result.findings.map((f) => f.code))].sort();
  process.stdout.write(JSON.stringify({ file, verdict: result.verdict, codes }) + "\n");
}
