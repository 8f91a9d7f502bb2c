// Verifies files with the browser module, in one Node process, for the parity test:
//   node verify_cli.mjs KEY_FILE FILE...
// prints one JSON object a line: {file, verdict, codes} (codes sorted, each once).
import { readFileSync } from "node:fs";
import { importOperatorKey, verifyText } from "../../api/static/web/js/fairdeal/index.js";

const [keyFile, ...files] = process.argv.slice(2);
const keys = await importOperatorKey(readFileSync(keyFile, "utf8"));
for (const file of files) {
  const result = await verifyText(readFileSync(file, "utf8"), { keys });
  const codes = [...new Set(result.findings.map((f) => f.code))].sort();
  process.stdout.write(JSON.stringify({ file, verdict: result.verdict, codes }) + "\n");
}
