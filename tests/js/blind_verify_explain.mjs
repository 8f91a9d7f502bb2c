// Tells bundles with the browser module, for test_parity.py's dealer-blind cases:
//   node blind_verify_explain.mjs KEY_FILE FILE...
// prints one JSON object a line: {file, verdict, cards, checkByHand, says}, where ``cards``
// is as fairdeal-verify --explain --json gives them ({who: ["card (face, position p)"]}) and
// ``says`` every cryptographic member told in words, in order.
import { readFileSync } from "node:fs";
import { explain, importOperatorKey, verifyText } from "../../api/static/web/js/fairdeal/index.js";

const [keyFile, ...files] = process.argv.slice(2);
const keys = await importOperatorKey(readFileSync(keyFile, "utf8"));
for (const file of files) {
  const result = await verifyText(new Uint8Array(readFileSync(file)), { keys });
  const story = explain(result.bundles[0]?.story ?? null);
  const cards = {};
  for (const d of story?.cards ?? []) {
    const who = d.seat === null ? "nobody" : `seat ${d.seat}`;
    (cards[who] ??= []).push(`${d.card} (${d.face}, position ${d.position})`);
  }
  const says = (story?.happened ?? []).filter((e) => e.type !== "card_dealt").flatMap((e) => e.says);
  const line = { file, verdict: result.verdict, cards, checkByHand: story?.checkByHand ?? null, says };
  process.stdout.write(JSON.stringify(line) + "\n");
}
