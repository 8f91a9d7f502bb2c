// The verify page: read a bundle or export, pin a key, verify in this browser with the
// fairdeal module (with the witnesses given, SPEC 7 step 18), show the verdict, every
// finding, and the round's story with when it was logged.

import { explain, importOperatorKey, verifyText, whoWon } from "./fairdeal/index.js";
import { cardSvg, isCardCode } from "./cards.js";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
};
let text = "";

function setText(value, source) {
  text = value;
  $("status").textContent = `${source}: ${value.length.toLocaleString()} characters read`;
}

$("file").addEventListener("change", async (e) => setText(await e.target.files[0].text(), e.target.files[0].name));
$("paste").addEventListener("input", (e) => setText(e.target.value, "pasted"));
const drop = $("drop");
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", async (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const file = e.dataTransfer.files[0];
  if (file) setText(await file.text(), file.name);
});
$("fetch").addEventListener("click", async () => {
  const id = $("round-id").value.trim();
  if (!id) return;
  const response = await fetch(`/v1/rounds/${encodeURIComponent(id)}/bundle`);
  setText(await response.text(), `round ${id} (HTTP ${response.status})`);
  if (response.status === 404) $("status").textContent = `This server has no finished round ${id}: check the round id.`;
});
// GET /v1/keys: {"keys": [{key_id, public_key_pem, current}], "log": {origin, verifier_key},
// "development_key"}. The log's verifier key opens its checkpoints under its own name.
$("server-key").addEventListener("click", async () => {
  const body = await (await fetch("/v1/keys")).json();
  const current = body.keys?.find((k) => k.current) ?? body.keys?.[0];
  $("key").value = body.log?.verifier_key ?? current?.public_key_pem ?? "";
  $("key-warning").hidden = false;
  $("key-warning").dataset.development = String(Boolean(body.development_key));
});
$("verify").addEventListener("click", run);

async function run() {
  const started = performance.now();
  $("status").textContent = "verifying…";
  delete $("result").dataset.ms;
  let keys;
  try {
    keys = await importOperatorKey($("key").value);
  } catch (e) {
    return show({ verdict: "unusable", findings: [{ code: e.code ?? "input.wrong_format", reason: e.message }] });
  }
  const witnesses = $("witnesses").value.split("\n").map((line) => line.trim()).filter(Boolean);
  const quorum = $("quorum").value.trim() === "" ? null : Number($("quorum").value);
  let result;
  try {
    result = await verifyText(text || $("paste").value, { keys, partial: $("partial").checked, witnesses, quorum });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    $("status").textContent = e.message; // a quorum out of 1 to the witnesses given
    return;
  }
  show(result);
  $("result").dataset.ms = (performance.now() - started).toFixed(2); // read by bench/browser.py
}

// What the page says for each verdict: unusable is "can't check", never a verdict of fraud.
const HEADLINES = { valid: "VALID", invalid: "INVALID", unusable: "CAN'T CHECK" };

function show(result) {
  const box = $("result");
  box.hidden = false;
  box.dataset.verdict = result.verdict;
  $("verdict").textContent = HEADLINES[result.verdict];
  $("verdict").className = `verdict ${result.verdict}`;
  $("summary").textContent = summaryOf(result);
  $("findings").replaceChildren(
    ...result.findings.map((f) =>
      el("li", { class: "finding" }, el("code", {}, f.code), " ", el("span", { class: "where" }, where(f)), " ", f.reason),
    ),
  );
  $("status").textContent = "";
  // The story is told as proven only under VALID; under INVALID it is what the operator
  // claims, marked so; a bundle the page could not check has none.
  const bundle = result.bundles?.length === 1 && result.verdict !== "unusable" ? result.bundles[0] : null;
  renderStory(bundle ? explain(bundle.story) : null, result.verdict === "valid");
  box.scrollIntoView({ block: "start" });
}

/** One sentence for a newcomer: what the verdict means here, in plain words. */
function summaryOf(result) {
  const n = result.findings.length;
  const codes = new Set(result.findings.map((f) => f.code));
  if (result.verdict === "valid") {
    return `Every check passed: ${result.events ?? 0} signed events, every move and its signature, the deck, the cards, the rules, the money and the log.`;
  }
  if (result.verdict === "invalid") return `${n} finding${n === 1 ? "" : "s"}: the log breaks the rules or was altered.`;
  const answered = result.findings.find((f) => /the server answered not_found/.test(f.reason ?? ""));
  if (answered) return "This server has no such round: check the round id, or wait until the round is over and logged.";
  if (codes.has("sig.wrong_key")) return "This key did not sign this round — is it the operator's key? Nothing was checked with it.";
  if (codes.has("rules.unknown_game")) return "This page does not know the rules of this round's game, so it cannot check it. Nothing here says it is fair or not.";
  return "This is not a round bundle or export the page can read: nothing was checked. The findings below say what is missing.";
}

const where = (f) => [f.table, f.round, f.seq === null || f.seq === undefined ? null : `seq ${f.seq}`].filter(Boolean).join(" · ");

function renderStory(story, proven) {
  $("story").hidden = !story;
  if (!story) return;
  $("story").classList.toggle("unverified", !proven);
  $("story-unverified").hidden = proven;
  $("story-head").textContent = `${story.game} · table ${story.table}${story.round ? ` · round ${story.round}` : ""} · ${story.vouches}`;
  const facts = [
    ["seats", story.seats.join(", ")],
    ["client seeds", story.clientSeeds.map((s) => JSON.stringify(s)).join(", ")],
    ["commitment", story.commitment],
    ["server seed", story.serverSeed],
  ];
  $("story-facts").replaceChildren(...facts.filter(([, v]) => v).flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, el("code", {}, v))]));
  $("story-logged").textContent = story.logged;
  renderHands(story);
  $("cards").replaceChildren(
    ...story.cards.map((c) => {
      const face = isCardCode(c.card) ? cardSvg(c.card) : el("span", { class: "code" }, String(c.card));
      return el("figure", { class: "dealt" }, face, el("figcaption", {}, `#${c.position} → ${c.seat === null ? "table" : `seat ${c.seat}`} (${c.face})`));
    }),
  );
  const transfers = (list) => list.map((t) => `${t.from} → ${t.to}: ${t.amount}`).join("; ") || "—";
  const balances = (b) => (b ? Object.entries(b).map(([k, v]) => `${k} ${v}`).join(", ") : "—");
  $("money").tBodies[0].replaceChildren(
    ...story.money.map((m) => el("tr", {}, el("td", {}, String(m.seq)), el("td", {}, m.type), el("td", {}, transfers(m.transfers)), el("td", {}, balances(m.balances)))),
    el("tr", { class: "total" }, el("td", {}, "—"), el("td", {}, "at the bundle's head"), el("td", {}, ""), el("td", {}, balances(story.balances))),
  );
  const signed = (n) => (n > 0 ? `+${n}` : String(n));
  $("accounts").tBodies[0].replaceChildren(
    ...story.accounts.map((a) =>
      el("tr", { class: a.change > 0 ? "up" : a.change < 0 ? "down" : "" }, el("td", {}, a.account), el("td", {}, String(a.before)), el("td", {}, String(a.after)), el("td", { class: "change" }, signed(a.change))),
    ),
  );
  $("happened").replaceChildren(
    ...story.happened.map((e) => el("li", {}, el("span", { class: "seq" }, `seq ${e.seq}`), ` ${e.iso} `, el("strong", {}, e.type), ` by ${e.actor}`)),
  );
}

/** Each hand beside its cards: the seat, its role, the total the rules give it, its result. */
function renderHands(story) {
  const winners = story.hands.filter((h) => /^(wins|21|framed)/.test(h.result)).map((h) => `seat ${h.seat} ${h.result}`);
  const money = story.accounts.length ? `money over the round: ${whoWon(story.accounts)}` : "";
  $("who-won").textContent = `Who won what: ${[winners.join("; ") || "no hand won", money].filter(Boolean).join(" — ")}.`;
  $("hands").replaceChildren(
    ...story.hands.map((h) =>
      el(
        "div",
        { class: `hand ${h.role}` },
        el("div", { class: "who" }, el("strong", {}, `seat ${h.seat}`), ` ${h.role}`),
        el("div", { class: "hand-cards" }, ...h.cards.map((c) => (isCardCode(c) ? cardSvg(c) : el("span", { class: "code" }, c)))),
        el("div", { class: "total" }, h.total === null ? "—" : String(h.total)),
        el("div", { class: "result" }, h.result),
      ),
    ),
  );
}
