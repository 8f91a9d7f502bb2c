// The player's page: pin the operator's key, take a seat (create or join), then keep the
// seat's view up to date, checking every receipt and every event as it arrives, committing
// and revealing seeds on the seat's behalf, and sending the moves the player clicks.

import { importOperatorKey, keySetOf } from "/static/web/js/fairdeal/index.js";
import { ApiError, api, clockSkewMs } from "./play-api.js";
import { Chain, CheckFailure, privateCards } from "./play-chain.js";
import { actionControls, deadlines, h, mayOpenRound, renderView } from "./play-render.js";
import { Seat } from "./play-seat.js";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);
const state = { keySet: null, seat: null, reply: null, failed: false, busy: Promise.resolve(), timer: null };

// One thing at a time: a poll and a click never interleave on the chain.
function serially(task) {
  const run = state.busy.then(task, task);
  state.busy = run.catch(() => {});
  return run;
}

function fail(error) {
  if (!(error instanceof CheckFailure)) {
    if (error instanceof ApiError) return notify(error.message, true);
    console.error(error);
    error = new CheckFailure(error.code ?? "page.error", null, error.message ?? String(error));
  }
  state.failed = true;
  document.body.classList.add("failed");
  $("failure-code").textContent = error.code;
  $("failure-seq").textContent = error.seq === null ? "" : `(event seq ${error.seq})`;
  $("failure-text").textContent = error.message;
  $("failure").hidden = false;
  $("failure").dataset.code = error.code;
  $("receipts").classList.add("receipts-bad");
  console.warn("fairdeal check failed:", error.code, error.seq, error.message);
}

function notify(text, warn = false) {
  const notice = $("notice");
  notice.textContent = text;
  notice.classList.toggle("notice-warn", warn);
  notice.hidden = !text;
}

async function pinKeys() {
  const answer = await api("GET", "/v1/keys");
  const sets = [];
  for (const key of answer.keys) sets.push(await importOperatorKey(key.public_key_pem));
  state.keySet = keySetOf(sets);
  const current = answer.keys.find((k) => k.current) ?? answer.keys[0];
  $("operator-key-id").textContent = current.key_id;
  $("operator-dev").hidden = !answer.development_key;
}

function chainFor(tableId) {
  const chain = new Chain(tableId, state.keySet);
  chain.listeners.push((signed) => {
    $("receipt-count").textContent = String(chain.checked);
    const e = signed.event;
    const item = h("li", { value: e.seq }, h("code", {}, `#${e.seq}`), ` ${e.type} `, h("span", { class: "actor" }, e.actor), " ✓");
    $("event-log").prepend(item);
    while ($("event-log").children.length > 300) $("event-log").lastChild.remove();
  });
  return chain;
}

function options(form) {
  const value = (name) => form.elements[name].value.trim();
  const number = (name) => Number(value(name));
  const common = { move_time_ms: number("move_seconds") * 1000, seed_time_ms: number("seed_seconds") * 1000 };
  const game = form.elements.game.value;
  if (game === "toto21") {
    return { game, join: {}, options: { ...common, target: number("target"), stake: number("stake"), game_time_ms: number("game_minutes") * 60000 } };
  }
  const kv = { ...common, rule_set: value("rule_set"), decks: number("decks"), bank_funding: number("bank_funding") };
  for (const name of ["ante", "max_bet"]) if (value(name) !== "") kv[name] = number(name);
  return { game, join: { buy_in: number("buy_in") }, options: kv };
}

async function take(request) {
  notify("Taking the seat…");
  const seat = await Seat.take({ ...request, chainFor });
  state.seat = seat;
  notify("");
  $("setup").hidden = true;
  $("table").hidden = false;
  $("table-id").textContent = seat.tableId;
  $("seat-name").textContent = `you are seat ${seat.seat}`;
  $("seat-key").textContent = seat.key.publicHex.slice(0, 16) + "…";
  const link = `${location.origin}/?table=${seat.tableId}`;
  $("invite-link").href = link;
  $("invite-link").textContent = link;
  history.replaceState(null, "", `/?table=${seat.tableId}`);
  await refresh();
  schedule();
}

function schedule() {
  clearTimeout(state.timer);
  if (!state.failed) state.timer = setTimeout(() => serially(refresh).catch(fail).finally(schedule), POLL_MS);
}

// One look at the table: the view, the chain caught up on and checked, the seat's hidden
// cards opened against their commitments, seeds committed or revealed when due.
async function refresh() {
  if (state.failed) return;
  const seat = state.seat;
  let reply = await seat.view();
  await seat.chain.sync();
  await seat.chain.checkHead(reply.head);
  if (await seeds(reply)) {
    reply = await seat.view();
    await seat.chain.sync();
  }
  const round = reply.view.round;
  await seat.chain.checkCards(round?.id ?? null, privateCards(reply.view));
  state.reply = reply;
  draw(reply);
}

async function seeds(reply) {
  const seat = state.seat;
  const round = reply.view.round;
  let acted = false;
  const waiting = round && !round.sealed && !round.revealed && round.seats.includes(seat.seat);
  if (waiting && !round.committed?.includes(seat.seat) && !round.seeded?.includes(seat.seat) && !seat.seeds.has(round.id)) {
    await seat.commitSeed(round.id);
    acted = true;
  }
  const before = seat.seeds.size;
  await seat.revealDue();
  return acted || seat.seeds.size !== before;
}

function draw(reply) {
  const { scores, felt, status } = renderView(reply);
  $("game-name").textContent = reply.game === "toto21" ? "Toto21" : `Kvitlach (${reply.view.options.rule_set})`;
  $("scores").replaceChildren(...scores);
  $("felt").replaceChildren(...felt);
  $("status").textContent = status;
  // The moves are drawn again only when they change, so a button never moves under a click.
  const moves = JSON.stringify([reply.view.round?.id, reply.legal_actions, mayOpenRound(reply)]);
  if (moves !== state.moves) {
    state.moves = moves;
    $("actions").replaceChildren(...actionControls(reply, mayOpenRound(reply)));
  }
  drawTimers();
}

function drawTimers() {
  if (!state.reply) return;
  const now = Date.now() + clockSkewMs;
  $("timers").replaceChildren(
    ...deadlines(state.reply).map(([label, at]) => {
      const left = Math.max(0, Math.ceil((at - now) / 1000));
      const text = left >= 60 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : `${left}s`;
      return h("li", { class: left <= 10 ? "timer urgent" : "timer" }, h("span", { class: "label" }, label), " ", h("time", {}, text));
    }),
  );
}

async function act(kind) {
  const seat = state.seat;
  const reply = state.reply;
  if (kind === "open_round") return seat.openRound();
  if (kind === "joiner_accepted" || kind === "joiner_rejected") return seat.decide(kind === "joiner_accepted");
  const input = document.querySelector(`[data-amount-for="${kind}"]`);
  const data = kind === "bet" ? { amount: Number(input.value) } : kind === "elvaroon" ? { raise: Number(input.value) } : {};
  return seat.act(kind, data, reply.view.round?.id ?? reply.current_round);
}

function onClick(event) {
  const button = event.target.closest("button[data-action]");
  if (!button || state.failed) return;
  for (const b of document.querySelectorAll("#actions button")) b.disabled = true;
  serially(async () => {
    notify("");
    await act(button.dataset.action);
    state.moves = null;
    await refresh();
  }).catch((e) => {
    fail(e);
    state.moves = null;
    if (state.reply) draw(state.reply);
  });
}

function start() {
  const create = $("create-form");
  create.addEventListener("change", () => {
    const game = create.elements.game.value;
    for (const box of create.querySelectorAll(".options[data-game]")) box.hidden = box.dataset.game !== game;
  });
  create.addEventListener("submit", (event) => {
    event.preventDefault();
    serially(() => take(options(create))).catch(fail);
  });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    const tableId = form.elements.table.value.trim();
    serially(async () => {
      const table = await api("GET", `/v1/tables/${encodeURIComponent(tableId)}`);
      const join = table.game === "kvitlach" ? { buy_in: Number(form.elements.buy_in.value) } : {};
      await take({ tableId, join });
    }).catch(fail);
  });
  $("actions").addEventListener("click", onClick);
  const invited = new URLSearchParams(location.search).get("table");
  if (invited) $("join-table").value = invited;
  setInterval(drawTimers, 250);
  serially(pinKeys).catch(fail);
}

start();
