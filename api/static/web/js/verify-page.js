// The verify page: a round of this server by its id (also as /verify?round=<id>), or a
// bundle or export dropped, chosen or pasted, verified in this browser with the fairdeal
// module: by default with this server's key, else with the key and witnesses given under
// Advanced (SPEC 7 step 18). Shows the verdict, every finding, and the round's story with
// when it was logged.

import { explain, importOperatorKey, verifyText, whoWon } from "./fairdeal/index.js";
import { cardSvg, isCardCode } from "./cards.js";
import { totoRound } from "./play-results.js";

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
};
let text = ""; // a pasted text, or a file's bytes: read as fairdeal-verify reads them (SPEC 7 step 0)
let keyFilled = null; // this server's key as "Fill in this server's key" put it in #key, until edited
let latest = 0; // the latest check's number: an earlier one still running shows nothing

const bytesOf = async (body) => new Uint8Array(await body.arrayBuffer());
const checkFile = async (file) => {
  text = await bytesOf(file);
  run(text, $("status"), file.name);
};
$("file").addEventListener("change", (e) => checkFile(e.target.files[0]));
$("paste").addEventListener("input", (e) => {
  text = e.target.value;
  $("status").textContent = "";
});
const drop = $("drop");
drop.addEventListener("dragover", (e) => {
  e.preventDefault();
  drop.classList.add("over");
});
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => {
  e.preventDefault();
  drop.classList.remove("over");
  const file = e.dataTransfer.files[0];
  if (file) checkFile(file);
});
$("fetch").addEventListener("click", checkRound);
$("round-id").addEventListener("keydown", (e) => e.key === "Enter" && checkRound());
$("verify").addEventListener("click", () => {
  const input = text || $("paste").value;
  if (input.length) run(input, $("status"));
  else $("status").textContent = "Drop, choose or paste a round first (or give its id above).";
});
$("server-key").addEventListener("click", async () => {
  try {
    keyFilled = await serverKey();
    $("key").value = keyFilled.key;
    $("key-status").textContent = "This server's key: compare it with the operator's published one.";
  } catch (e) {
    $("key-status").textContent = e.message;
  }
});
$("key").addEventListener("input", () => {
  keyFilled = null;
  $("key-status").textContent = "";
});

const asked = new URLSearchParams(location.search).get("round");
if (asked) {
  $("round-id").value = asked;
  checkRound();
}

/** The round whose id is typed, fetched from this server and checked at once; what went
 * wrong, in words, beside the round-id box. */
async function checkRound() {
  const id = $("round-id").value.trim();
  const note = $("fetch-status");
  if (!id) {
    note.textContent = "Type the round's id first: the play page shows it, and links here once a round is over.";
    return;
  }
  const mine = ++latest;
  clearResult();
  note.textContent = `Fetching round ${id}…`;
  const response = await fetch(`/v1/rounds/${encodeURIComponent(id)}/bundle`).catch(() => null);
  const problem = response?.ok ? null : await fetchProblem(id, response);
  if (mine !== latest) return;
  if (problem) {
    note.textContent = problem;
    return;
  }
  await run(await bytesOf(response), note, `round ${id}`, mine);
}

/** Why round ``id`` could not be fetched, in words; the service's error code, if any, is
 * kept in the note's data-code. */
async function fetchProblem(id, response) {
  const note = $("fetch-status");
  delete note.dataset.code;
  if (!response) return "This server could not be reached: check your connection, then try again.";
  const error = (await response.json().catch(() => null))?.error;
  note.dataset.code = error?.code ?? String(response.status);
  if (response.status === 404) return `This server has no round ${id}: check the round id.`;
  if (error?.code === "round_not_finished") return `Round ${id} is not over yet: it can be checked once it is over.`;
  if (response.status === 429) return "Too many requests from this browser just now: wait a few seconds, then check again.";
  if (response.status >= 500) return `This server could not give round ${id} just now: try again in a few seconds.`;
  const said = error?.message ? `: ${error.message.trim().replace(/[.\s]+$/, "")}` : "";
  return `This server refused to give round ${id}${said}. Check the round id, or try again later.`;
}

/** GET /v1/keys: {"keys": [{key_id, public_key_pem, current}], "log": {origin, verifier_key},
 * "development_key"}. The log's verifier key opens its checkpoints under its own name. */
async function serverKey() {
  const response = await fetch("/v1/keys").catch(() => null);
  if (!response?.ok) throw new Error("This server's key could not be fetched: give the operator's key under Advanced, or try again.");
  const body = await response.json();
  const current = body.keys?.find((k) => k.current) ?? body.keys?.[0];
  return { key: body.log?.verifier_key ?? current?.public_key_pem ?? "", development: Boolean(body.development_key) };
}

/** This server's key ({key, development}) when it is the one to check with: no key given
 * under Advanced, or the one "Fill in this server's key" put there. */
async function serverKeyUsed() {
  const given = $("key").value.trim();
  if (given) return keyFilled?.key === given ? keyFilled : null;
  return serverKey();
}

/** Checks ``input``, saying how it goes in ``note`` (the status beside what was given). */
async function run(input, note, name = "", mine = ++latest) {
  const started = performance.now();
  clearResult();
  note.textContent = `Checking${name ? ` ${name}` : ""}…`;
  let server;
  try {
    server = await serverKeyUsed();
  } catch (e) {
    if (mine === latest) note.textContent = e.message;
    return;
  }
  let keys;
  try {
    keys = await importOperatorKey(server?.key ?? $("key").value);
  } catch (e) {
    if (mine !== latest) return;
    note.textContent = "";
    return show({ verdict: "unusable", findings: [{ code: e.code ?? "input.wrong_format", reason: e.message }] }, null);
  }
  const witnesses = $("witnesses").value.split("\n").map((line) => line.trim()).filter(Boolean);
  const quorum = $("quorum").value.trim() === "" ? null : Number($("quorum").value);
  let result;
  try {
    result = await verifyText(input, { keys, partial: $("partial").checked, witnesses, quorum });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    result = e; // a quorum out of 1 to the witnesses given
  }
  if (mine !== latest) return;
  note.textContent = name && !(result instanceof RangeError) ? `Checked ${name}: the result is below.` : "";
  if (result instanceof RangeError) {
    $("advanced").open = true;
    $("quorum-status").textContent = `${result.message[0].toUpperCase()}${result.message.slice(1)}.`;
    return;
  }
  show(result, server, witnesses.length > 0);
  $("result").dataset.ms = (performance.now() - started).toFixed(2); // read by bench/browser.py
}

function clearResult() {
  $("result").hidden = true;
  delete $("fetch-status").dataset.code;
  $("story").hidden = true;
  $("quorum-status").textContent = "";
  delete $("result").dataset.ms;
}

// What the page says for each verdict: unusable is "can't check", never a verdict of fraud.
const HEADLINES = { valid: "VALID", invalid: "INVALID", unusable: "CAN'T CHECK" };

/** The verdict; ``server``: this server's key when it was the one used (the warning shown). */
function show(result, server, witnessed = false) {
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
  $("key-warning").hidden = !server;
  $("key-warning").dataset.development = String(Boolean(server?.development));
  $("key-development").hidden = !server?.development;
  // The story is told as proven only under VALID; under INVALID it is what the operator
  // claims, marked so; a bundle the page could not check has none.
  const bundle = result.bundles?.length === 1 && result.verdict !== "unusable" ? result.bundles[0] : null;
  renderStory(bundle ? explain(bundle.story) : null, result.verdict === "valid", witnessed);
  box.scrollIntoView({ block: "start" });
  box.focus({ preventScroll: true }); // a keyboard or screen reader goes on from the verdict
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

const OPENED_BLIND =
  "A dealer-blind round has no deck to derive from seeds: this page opened each card below from the logged decryption shares and the revealed round keys (SPEC 15.12.4), each share's proof checked.";
const UNOPENED = " A card shown as ? was never opened: a seat did not send its share or its round key in time (SPEC 15.13.7.5).";
const OPENED_UNPROVEN = "A dealer-blind round: the cards below are what the logged shares and keys open to, where they open at all; the findings above say what failed.";

function renderStory(story, proven, witnessed) {
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
  $("story-logged").textContent = witnessed
    ? story.logged
    : "Its times are the operator's own claims: no witness's key was given (under Advanced) to vouch for when it was logged.";
  renderHands(story);
  // A dealer-blind round's cards come from no seed: say how the verifier opened them.
  $("cards-opened").hidden = !story.checkByHand;
  const unopened = story.cards.some((c) => c.card === "?") ? UNOPENED : "";
  $("cards-opened").textContent = !story.checkByHand ? "" : (proven ? OPENED_BLIND : OPENED_UNPROVEN) + unopened;
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
    ...story.happened.map((e) =>
      el("li", {}, el("span", { class: "seq" }, `seq ${e.seq}`), ` ${e.iso} `, el("strong", {}, e.type), ` by ${e.actor}`, ...e.says.map((said) => `; ${said}`)),
    ),
  );
}

/** A dealer-blind Toto21 round won because a seat withheld its share or key: some cards were
 * never opened, so no hand can be told; the round_won event says who won and why. */
function forfeited(story) {
  const won = story.game === "toto21" && !story.hands.length ? story.happened.find((e) => e.type === "round_won") : undefined;
  if (!won) return null;
  const roles = story.happened.find((e) => e.type === "dealer_chosen")?.data ?? null;
  return totoRound(String(story.round).split(".").pop(), won.data, roles, null);
}

/** Each hand beside its cards: the seat, its role, the total the rules give it, its result;
 * above them, every hand's result and, apart, the money paid that no hand decided (a bank's
 * funding, an ante: ``besides``), which the accounts' changes count with the results. */
function renderHands(story) {
  const results = story.hands.map((h) => `seat ${h.seat}${h.role === "player" ? "" : ` (${h.role})`} ${h.result}`);
  const besides = story.hands.flatMap((h) => h.besides.map((said) => `seat ${h.seat} ${said}`));
  let apart = null;
  if (besides.length) apart = `Apart from the hands: ${besides.join("; ")}.`;
  else if (story.accounts.length) apart = `Money over the round: ${whoWon(story.accounts)}.`;
  $("who-won").replaceChildren(
    forfeited(story) ?? `Who won what: ${results.join("; ") || "no hand was played"}.`,
    ...(apart ? [el("span", { class: "apart" }, apart)] : []),
  );
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
