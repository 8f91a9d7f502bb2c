// The player's page: pin the operator's key, take a seat (create or join), then keep the
// seat's view up to date, checking every receipt and every event as it arrives, committing
// and revealing seeds on the seat's behalf, and sending the moves the player clicks.

import { importOperatorKey, keySetOf } from "/static/web/js/fairdeal/index.js";
import { ApiError, api, clockSkewMs } from "./play-api.js";
import { Chain, CheckFailure, privateCards } from "./play-chain.js";
import { actionControls, deadlines, h, mayOpenRound, renderView } from "./play-render.js";
import { Seat } from "./play-seat.js";

const POLL_MS = 1000;
// What this tab remembers across a reload: the table and seat number it held (public facts),
// so that a reload can say the seat is lost. Never the key (it cannot leave) nor the token.
const HELD = "fairdeal.held-seat";
const $ = (id) => document.getElementById(id);
const state = { keySet: null, seat: null, chain: null, tableId: null, reply: null, said: null, failed: false, busy: Promise.resolve(), timer: null };

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
    noteTimeout(e);
  });
  return chain;
}

// A timeout the server logged stays in view (until the next round opens), with its seq.
function noteTimeout(e) {
  const note = $("timeout-note");
  const text = timeoutText(e);
  if (e.type === "round_opened") note.hidden = true;
  if (!text) return;
  note.replaceChildren(h("strong", {}, "Timeout: "), `${text} (event #${e.seq} ${e.type}, checked ✓)`);
  note.dataset.type = e.type;
  note.hidden = false;
}

function timeoutText(e) {
  const seats = (list) => list.map((s) => `seat ${s}`).join(", ");
  if (e.type === "move_timeout") return `Seat ${e.data.seat} did not move in time: the server moved for it as the rules say.`;
  if (e.type === "seed_timeout") return `Seeds were missing at the deadline${e.data.seats?.length ? ` (${seats(e.data.seats)})` : ""}: the server went on without them.`;
  if (e.type === "game_time_up") return "The game's time is up: the match ends on points.";
  return null;
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
  Object.assign(state, { seat, chain: seat.chain, tableId: seat.tableId });
  sessionStorage.setItem(HELD, JSON.stringify({ table: seat.tableId, seat: seat.seat }));
  notify("");
  showTable(`you are seat ${seat.seat}`);
  $("seat-key").textContent = seat.key.publicHex.slice(0, 16) + "…";
  await refresh();
  schedule();
}

/** Follow a table without a seat: its public view and its chain, every event checked. */
async function watch(tableId) {
  sessionStorage.removeItem(HELD);
  $("lost").hidden = true;
  if (!/^t[0-9a-f]+$/.test(tableId)) return notify("Give the id of the table to watch.", true);
  const chain = state.chain?.tableId === tableId ? state.chain : chainFor(tableId);
  Object.assign(state, { seat: null, chain, tableId, moves: null });
  notify("");
  showTable("watching, read-only");
  await refresh();
  schedule();
}

function showTable(who) {
  $("setup").hidden = true;
  $("table").hidden = false;
  $("table-id").textContent = state.tableId;
  $("seat-name").textContent = who;
  $("seat-key-line").hidden = !state.seat;
  const link = `${location.origin}/?table=${state.tableId}`;
  $("invite-link").href = link;
  $("invite-link").textContent = link;
  history.replaceState(null, "", `/?table=${state.tableId}`);
}

function schedule() {
  clearTimeout(state.timer);
  if (!state.failed) state.timer = setTimeout(() => serially(refresh).catch(fail).finally(schedule), POLL_MS);
}

// One look at the table: the view, the chain caught up on and checked, the seat's hidden
// cards opened against their commitments, seeds committed or revealed when due. Without a
// seat (watching), the public view and the same checks.
async function refresh() {
  if (state.failed) return;
  const chain = state.chain;
  await chain.sync();
  let reply = await look();
  if (reply === null) return;
  await chain.checkHead(reply.head);
  if (state.seat && (await seeds(reply))) {
    reply = await look();
    if (reply === null) return;
    await chain.sync();
  }
  const round = reply.view.round;
  await chain.checkCards(round?.id ?? null, privateCards(reply.view));
  state.reply = reply;
  draw(reply);
}

/** The view: the seat's, or the public one; null once the seat's token stopped working. */
async function look() {
  if (!state.seat) return api("GET", `/v1/tables/${state.tableId}`);
  if (state.chain.departure(state.seat.seat, state.seat.joinedSeq)) {
    await seatGone(); // the checked chain says so: its token is void, no need to try it
    return null;
  }
  try {
    return await state.seat.view();
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "token_invalid") throw e;
    await seatGone();
    return null;
  }
}

// The seat's token stopped working: it left, or (Toto21) the creator turned it away. The
// checked chain says which; the page then watches the table.
async function seatGone() {
  const { seat, chain } = state;
  await chain.sync();
  const gone = chain.departure(seat.seat, seat.joinedSeq);
  sessionStorage.removeItem(HELD);
  const text = goneText(seat.seat, gone);
  await watch(state.tableId);
  $("seat-name").textContent = `not seated (was seat ${seat.seat}), watching`;
  notify(text, true);
  $("notice").dataset.gone = gone?.rejected ? "rejected" : gone ? "left" : "unknown";
}

function goneText(seat, gone) {
  if (!gone) return `Seat ${seat}'s token no longer works at this table: this page holds no seat here now. You are watching it.`;
  const paid = `${gone.left.data.withdrawal ?? 0} paid back to you (seat_left, event #${gone.left.seq} ✓)`;
  if (gone.rejected) {
    return `The table's creator turned you away (joiner_rejected, event #${gone.rejected.seq} ✓): you have no seat at this table, your deposit of ${paid}. You are watching it; to play, create a table or join another.`;
  }
  return `You left the table: seat ${seat} is free and your balance of ${paid}. You are watching it.`;
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
  const { scores, felt, status, checkable } = renderView(reply);
  $("game-name").textContent = reply.game === "toto21" ? "Toto21" : `Kvitlach (${reply.view.options.rule_set})`;
  $("scores").replaceChildren(...scores);
  $("felt").replaceChildren(...felt);
  // Drawn again only when it changes, as the moves are, so that its link takes a click.
  if (state.said !== `${status}\n${checkable}`) {
    state.said = `${status}\n${checkable}`;
    // A tab of its own: leaving this page would lose the seat.
    const check = checkable && h("a", { href: `/verify?round=${encodeURIComponent(checkable)}`, target: "_blank", rel: "noopener" }, "Check this round");
    $("status").replaceChildren(status, ...(check ? [" ", check] : []));
  }
  // The moves are drawn again only when they change, so a button never moves under a click.
  const canOpen = Boolean(state.seat) && mayOpenRound(reply);
  const moves = JSON.stringify([reply.view.round?.id, reply.legal_actions, canOpen, Boolean(state.seat)]);
  if (moves !== state.moves) {
    state.moves = moves;
    $("actions").replaceChildren(...(state.seat ? actionControls(reply, canOpen) : watching()));
  }
  drawTimers();
}

function watching() {
  return [h("p", { class: "empty" }, "Watching, read-only: this page holds no seat here, and checks every event.")];
}

function drawTimers() {
  if (!state.reply) return;
  const now = Date.now() + clockSkewMs;
  $("timers").replaceChildren(
    ...deadlines(state.reply).map(([label, at]) => {
      // Whole seconds left, rounded down: 0s is the last second, and stays until the view moves on.
      const left = Math.max(0, Math.floor((at - now) / 1000));
      const text = left >= 60 ? `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` : `${left}s`;
      return h("li", { class: left === 0 ? "timer expired" : left <= 10 ? "timer urgent" : "timer" }, h("span", { class: "label" }, label), " ", h("time", {}, text));
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
  if (!button || state.failed || !state.seat) return;
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
  $("watch").addEventListener("click", () => serially(() => watch($("join-table").value.trim())).catch(fail));
  const invited = new URLSearchParams(location.search).get("table");
  if (invited) $("join-table").value = invited;
  setInterval(drawTimers, 250);
  serially(pinKeys).catch(fail);
  lostOnReload();
}

// This tab held a seat before it was reloaded: the seat's key and token are gone with the
// old page. Say so, and offer to watch the table.
function lostOnReload() {
  let held = null;
  try {
    held = JSON.parse(sessionStorage.getItem(HELD) ?? "null");
  } catch {
    held = null;
  }
  if (!held || typeof held.table !== "string" || typeof held.seat !== "number") return;
  $("lost-text").textContent = `Before this tab was reloaded it held seat ${held.seat} at table ${held.table}. That seat cannot be taken back from here.`;
  $("lost").hidden = false;
  $("watch-lost").addEventListener("click", () => serially(() => watch(held.table)).catch(fail));
}

start();
