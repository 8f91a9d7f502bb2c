// The player's page: pin the operator's key, take a seat (create or join), then keep the
// seat's view up to date, checking every receipt and every event as it arrives, committing
// and revealing seeds on the seat's behalf, and sending the moves the player clicks.

import { importOperatorKey, keySetOf } from "/static/web/js/fairdeal/index.js";
import { ApiError, api, clockSkewMs } from "./play-api.js";
import { Chain, CheckFailure, privateCards } from "./play-chain.js";
import { actionControls, deadlines, h, mayOpenRound, renderResults, renderView } from "./play-render.js";
import { gameTitle, leastBuyIn, rulesLink, seating, terms } from "./play-terms.js";
import { Seat } from "./play-seat.js";
import { ANSWERING, BlindTable, blindStatus, lostText, playerMoves, withOwnCards } from "./play-blind.js";

const POLL_MS = 1000;
// While a dealer-blind match is in play: a round's seats answer its requests in turn (commit,
// reveal, each shuffle step, the shares), each as soon as its page sees it asked; quicker
// still while the round waits on them (a second or two a round).
const BLIND_POLL_MS = 300;
const ANSWER_POLL_MS = 150;
// A read shows the table with its passed deadlines applied in memory, and the sweeper (or the
// next write) logs them a moment later (api/service/service.py): a round the view shows ended
// by a timeout may not be in the log yet, nor its result, which this page tells from checked
// events only. Until the page has checked the round's end it says the end is being logged,
// offers no Deal and looks again at once; a server that does not log it within this long (no
// sweeper) is offered the deal anyway, which logs the round's end first.
const ENDING_WAIT_MS = 8000;
// What this tab remembers across a reload: the table and seat number it held (public facts),
// so that a reload whose seat this browser did not keep can say the seat is lost. The key
// and the token are kept, where they can be, in IndexedDB (play-keep.js), never here.
const HELD = "fairdeal.held-seat";
const KEPT_TEXT = "(non-extractable) and its token are kept in this browser (IndexedDB) for this site: a reload resumes the seat; clearing the site's data or another browser cannot.";
const MEMORY_TEXT = "(non-extractable) and its token are held in this tab's memory only: this browser could not keep them, so reloading or closing this tab loses the seat.";
const $ = (id) => document.getElementById(id);
const state = { keySet: null, seat: null, chain: null, tableId: null, reply: null, told: null, failed: false, busy: Promise.resolve(), timer: null, ending: null, noticeScope: null };

// One thing at a time: a poll and a click never interleave on the chain.
function serially(task) {
  const run = state.busy.then(task, task);
  state.busy = run.catch(() => {});
  return run;
}

function fail(error) {
  if (!(error instanceof CheckFailure)) {
    // The server refused (its code kept beside the plain words), or could not be reached:
    // no check failed, the page goes on.
    if (error instanceof ApiError) return notify(error.message, true, error.code);
    if (error instanceof TypeError && /fetch|network|load failed/i.test(error.message)) {
      return notify("This server could not be reached just now: check your connection, then try again.", true, "unreachable");
    }
    console.error(error);
    error = new CheckFailure(error.code ?? "page.error", null, error.message ?? String(error));
  }
  state.failed = true;
  document.body.classList.add("failed");
  $("failure-code").textContent = error.code;
  $("failure-seq").textContent = error.seq === null ? "" : `(event seq ${error.seq})`;
  // The reason alone: the check's code and seq are shown above it.
  const named = `${error.code}${error.seq === null ? "" : ` at event seq ${error.seq}`}: `;
  $("failure-text").textContent = error.message.startsWith(named) ? error.message.slice(named.length) : error.message;
  $("failure").hidden = false;
  $("failure").dataset.code = error.code;
  $("failure-advice").textContent =
    error.code === "party.refused"
      ? "Do not trust this table: its log asked this browser's party for what an honest service never asks."
      : "Do not trust this table: the service's signed log and what it told this page disagree.";
  $("receipts").classList.add("receipts-bad");
  $("receipts").querySelector(".receipts-mark").textContent = "✗";
  console.warn("fairdeal check failed:", error.code, error.seq, error.message);
}

/** A line for the player in plain words; ``code``, the service's error code if any, kept
 * in small print and in data-code (tests and support read it there). */
function notify(text, warn = false, code = null) {
  state.noticeScope = null;
  const notice = $("notice");
  notice.replaceChildren(text, ...(text && code ? [" ", h("small", { class: "notice-code" }, `(${code})`)] : []));
  notice.classList.toggle("notice-warn", warn);
  if (text && code) notice.dataset.code = code;
  else delete notice.dataset.code;
  notice.hidden = !text;
}

/** A notice true of one moment of the table (a seat just resumed, the other player dealt
 * first): taken down once the round it was said in ends, or another opens. */
function notifyWhile(text, view) {
  notify(text);
  state.noticeScope = roundState(view);
}

function roundState(view) {
  const round = view?.round;
  return round ? `${round.id}:${round.revealed ? "over" : "in play"}` : "none";
}

async function pinKeys() {
  const answer = await api("GET", "/v1/keys");
  const sets = [];
  for (const key of answer.keys) sets.push(await importOperatorKey(key.public_key_pem));
  state.keySet = keySetOf(sets);
  const current = answer.keys.find((k) => k.current) ?? answer.keys[0];
  $("operator-key-id").textContent = current.key_id;
  $("operator-dev").hidden = !answer.development_key;
  $("operator-dev-note").hidden = !answer.development_key;
}

function chainFor(tableId) {
  const chain = new Chain(tableId, state.keySet);
  // A dealer-blind table's state, folded by the rules from every event checked (play-blind.js)
  chain.blind = new BlindTable();
  chain.listeners.push((signed) => chain.blind.follow(signed.event));
  chain.listeners.push((signed) => {
    $("receipt-count").textContent = String(chain.checked);
    const e = signed.event;
    // Numbered once, by the event's own seq.
    const item = h("li", {}, h("code", {}, `#${e.seq}`), ` ${e.type} `, h("span", { class: "actor" }, e.actor), " ✓");
    $("event-log").prepend(item);
    while ($("event-log").children.length > 300) $("event-log").lastChild.remove();
    noteTimeout(e, chain.blind.blind);
  });
  return chain;
}

// A timeout the server logged stays in view, with its seq, while its round is the table's
// last (until the next round opens); it is of its table and its round only (draw takes it
// down when the view has moved on: another round, or another table after a rematch).
function noteTimeout(e, blind) {
  const note = $("timeout-note");
  const text = timeoutText(e, blind);
  if (e.type === "round_opened") note.hidden = true;
  if (!text) return;
  note.replaceChildren(h("strong", {}, "Timeout: "), `${text} (event #${e.seq} ${e.type}, checked ✓)`);
  note.dataset.type = e.type;
  note.dataset.table = e.table;
  note.dataset.round = e.round ?? "";
  note.hidden = false;
}

function timeoutText(e, blind) {
  const seats = (list) => list.map((s) => `seat ${s}`).join(", ");
  if (e.type === "move_timeout") return `Seat ${e.data.seat} did not move in time: the server moved for it as the rules say.`;
  if (e.type === "seed_timeout" && blind) return `Seeds and round keys were missing at the deadline${e.data.seats?.length ? ` (${seats(e.data.seats)})` : ""}: the round is void.`;
  if (e.type === "seed_timeout") return `Seeds were missing at the deadline${e.data.seats?.length ? ` (${seats(e.data.seats)})` : ""}: the server went on without them.`;
  // A dealer-blind seat's browser that did not answer (SPEC 15.13.5.4, 15.13.6.4, 15.13.7.5):
  // one seat loses the round, both void it.
  if (e.type === "shuffle_timeout") return `Seat ${e.data.seat}'s browser did not shuffle in time: the round is void.`;
  const [owed, gave] = { shares_timeout: ["open the cards", "opened the cards"], keys_timeout: ["give its key", "gave its key"] }[e.type] ?? [];
  if (owed && e.data.seats?.length === 1) return `Seat ${e.data.seats[0]}'s browser did not ${owed} in time: it loses the round.`;
  if (owed) return `Neither seat's browser ${gave} in time: the round is void.`;
  if (e.type === "game_time_up") return "The game's time is up: the match ends on points.";
  return null;
}

/** The timeout note taken down once the view is past its round (or of another table). */
function dropStaleTimeout(reply) {
  const note = $("timeout-note");
  if (note.hidden) return;
  const round = note.dataset.round;
  if (note.dataset.table !== state.tableId || (round && round !== reply.view.round?.id)) note.hidden = true;
}

function options(form) {
  const value = (name) => form.elements[name].value.trim();
  const number = (name) => Number(value(name));
  const common = { move_time_ms: number("move_seconds") * 1000, seed_time_ms: number("seed_seconds") * 1000 };
  const game = form.elements.game.value;
  if (game === "toto21") {
    const toto = { ...common, target: number("target"), stake: number("stake"), game_time_ms: number("game_minutes") * 60000 };
    if (form.elements.dealing.value === "blind") toto.dealing = "blind";
    return { game, join: {}, options: toto };
  }
  const kv = { ...common, rule_set: value("rule_set"), decks: number("decks"), bank_funding: number("bank_funding") };
  for (const name of ["ante", "max_bet"]) if (value(name) !== "") kv[name] = number(name);
  return { game, join: { buy_in: number("buy_in") }, options: kv };
}

async function take(request) {
  notify("Taking the seat…");
  const seat = await Seat.take({ ...request, chainFor });
  await seat.keep();
  await seated(seat);
}

// Play ``seat``, just taken or resumed after a reload, the same way from here on.
async function seated(seat) {
  Object.assign(state, { seat, chain: seat.chain, tableId: seat.tableId });
  sessionStorage.setItem(HELD, JSON.stringify({ table: seat.tableId, seat: seat.seat }));
  seat.onUnkept = () => showKept(seat);
  notify("");
  showTable(`you are seat ${seat.seat}`);
  $("seat-key").textContent = seat.key.publicHex.slice(0, 16) + "…";
  showKept(seat);
  try {
    await refresh();
  } finally {
    schedule(); // a first look refused (the server busy a moment) is tried again
  }
}

function showKept(seat) {
  $("seat-kept").textContent = seat.kept ? KEPT_TEXT : MEMORY_TEXT;
  $("seat-key-line").dataset.kept = String(seat.kept);
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
  const view = state.reply?.view;
  const blind = Boolean(state.chain?.blind?.blind) && view?.phase === "playing";
  const round = view?.round;
  const waiting = (blind && round && !round.revealed && (!round.sealed || round.request)) || state.ending?.waiting;
  const every = waiting ? ANSWER_POLL_MS : blind ? BLIND_POLL_MS : POLL_MS;
  if (!state.failed) state.timer = setTimeout(() => serially(refresh).catch(fail).finally(schedule), every);
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
  const committed = Boolean(state.seat) && (await seeds(reply));
  const answered = Boolean(state.seat) && (await answers());
  if (committed || answered) {
    reply = await look();
    if (reply === null) return;
    await chain.sync();
  }
  const round = reply.view.round;
  await chain.checkCards(round?.id ?? null, privateCards(reply.view));
  // At a dealer-blind table the seat's own face-down cards are opened here, by its party.
  if (state.seat && chain.blind.blind) reply = withOwnCards(reply, chain.blind.ownCards(chain.checked));
  state.reply = reply;
  draw(reply);
}

/** At a dealer-blind table, send what the log asks of this seat's party now (its shuffle
 * step, its shares, its round key), each signed after the request; whether any was sent. */
async function answers() {
  const { seat, chain } = state;
  if (!chain.blind.blind) return false;
  chain.blind.noteLost(seat.seat); // the chain is checked up to the view's head: any request too
  const sent = await chain.blind.answer(
    seat.seat,
    (kind, data, roundId) => seat.act(kind, data, roundId),
    async (kind) => {
      $("status").textContent = ANSWERING[kind];
      await painted(); // the words shown before the browser computes
    },
  );
  return sent.length > 0;
}

// Once the page has had a chance to draw what it just changed.
function painted() {
  return new Promise((resolve) => {
    const done = () => setTimeout(resolve, 0);
    requestAnimationFrame(done);
    setTimeout(done, 100);
  });
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
  await seat.forget();
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
    const blind = state.chain.blind;
    if (blind.blind) {
      // A dealer-blind seat commits with its party's round key, made now for this round.
      const party = blind.partyFor(seat.seat, seat.tableId, round.id);
      try {
        await seat.commitSeed(round.id, (commitment) => party.commitmentData(commitment));
      } catch (e) {
        if (e instanceof ApiError) blind.drop(round.id); // refused: nothing logged, a fresh key next time
        throw e;
      }
    } else {
      await seat.commitSeed(round.id);
    }
    acted = true;
  }
  const before = seat.seeds.size;
  await seat.revealDue();
  return acted || seat.seeds.size !== before;
}

function draw(reply) {
  const { scores, felt, status } = renderView(reply);
  $("game-name").textContent = gameTitle(reply.view);
  $("table-terms").textContent = terms(reply.view).join(" · ");
  $("table-rules").href = rulesLink(reply.view);
  $("scores").replaceChildren(...scores);
  $("felt").replaceChildren(...felt);
  const lost = Boolean(state.seat) && state.chain.blind.lost !== null;
  const ending = endingState(reply);
  const said = endingText(reply, ending) ?? blindStatus(reply.view, state.seat ? reply.seat : null, lost) ?? status;
  if ($("status").textContent !== said) $("status").textContent = said;
  if (state.noticeScope !== null && state.noticeScope !== roundState(reply.view)) notify("");
  dropStaleTimeout(reply);
  drawBlindNote(reply);
  drawResults(reply);
  // The moves are drawn again only when they change, so a button never moves under a click.
  const canOpen = Boolean(state.seat) && mayOpenRound(reply) && ending !== "waiting";
  const legal = playerMoves(reply);
  const moves = JSON.stringify([reply.view.round?.id, legal, canOpen, Boolean(state.seat)]);
  if (moves !== state.moves) {
    state.moves = moves;
    $("actions").replaceChildren(...(state.seat ? actionControls({ ...reply, legal_actions: legal }, canOpen) : watching()));
  }
  drawTimers();
}

/** Whether the round the view shows over has its end checked by this page: null if so (or no
 * round over), "waiting" while the page waits for the server to log it, "late" once it has
 * waited ENDING_WAIT_MS (the deal is offered: it logs the round's end first). */
function endingState(reply) {
  const round = reply.view.round;
  if (!round?.revealed || state.chain.ended === round.id) {
    state.ending = null;
    return null;
  }
  if (state.ending?.round !== round.id) state.ending = { round: round.id, since: Date.now(), waiting: true };
  state.ending.waiting = Date.now() - state.ending.since < ENDING_WAIT_MS;
  return state.ending.waiting ? "waiting" : "late";
}

function endingText(reply, ending) {
  const number = reply.view.round?.number;
  if (ending === "waiting") return `Round ${number} is over: the server is logging how it ended, and this page checks it…`;
  if (ending !== "late") return null;
  const deal = state.seat && mayOpenRound(reply) ? " Dealing the next round logs it first." : "";
  return `Round ${number} is over, but the server has not logged how it ended yet: its result is shown once it has.${deal}`;
}

// At a dealer-blind table: what this browser does for its seat while the match plays, and a
// round it cannot take part in (its key lost with a reload), said plainly.
function drawBlindNote(reply) {
  const blind = state.chain.blind;
  const note = $("blind-note");
  const lost = state.seat && blind.blind ? blind.lost : null;
  const text = !blind.blind
    ? ""
    : lost !== null
      ? lostText(lost)
      : state.seat && reply.view.phase === "playing"
        ? "Dealer-blind table: nobody, the operator included, sees a card before its owner. This browser shuffles, opens and shows this seat's cards with a round key of its own, made for each round and held in this tab's memory only."
        : "Dealer-blind table: nobody, the operator included, sees a card before its owner.";
  if (note.textContent !== text) note.textContent = text;
  note.hidden = !text;
  note.classList.toggle("blind-lost", lost !== null);
  note.dataset.lost = lost === null ? "" : String(lost);
}

// The newest result, drawn again only when there is a new one (so its link takes a click),
// and a rematch where the match is over and this page holds a seat.
function drawResults(reply) {
  const told = state.chain.results.told(reply.seat);
  const rematch = Boolean(state.seat) && reply.game === "toto21" && reply.view.phase === "over";
  const said = JSON.stringify([told[0]?.headline, told.length, reply.seat, rematch]);
  if (said === state.told) return;
  state.told = said;
  $("result").hidden = !told.length;
  if (!told.length) return;
  const { headline, details, check, list } = renderResults(told);
  $("result-headline").textContent = headline;
  $("result-details").replaceChildren(...details);
  $("result-list").replaceChildren(...list);
  const offer = rematch ? [h("button", { type: "button", class: "primary", id: "rematch" }, "Rematch: a new table, same conditions")] : [];
  $("result-actions").replaceChildren(...(check ? [check] : []), ...offer);
  if (rematch) {
    $("result-actions").append(h("p", { class: "fine" }, "A rematch is a new table: whoever starts it sends its invite link to the other."));
  }
}

function rematch() {
  const options = state.reply.view.options;
  serially(async () => {
    clearTimeout(state.timer);
    Object.assign(state, { told: null, moves: null });
    $("event-log").replaceChildren();
    await take({ game: "toto21", options, join: {} });
    notify("A new table with the same conditions: send the invite link above to your opponent.");
  }).catch(fail);
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
  if (kind === "open_round") return deal(seat);
  if (kind === "joiner_accepted" || kind === "joiner_rejected") return seat.decide(kind === "joiner_accepted");
  const input = document.querySelector(`[data-amount-for="${kind}"]`);
  const data = kind === "bet" ? { amount: Number(input.value) } : kind === "elvaroon" && input ? { raise: Number(input.value) } : {};
  return seat.act(kind, data, reply.view.round?.id ?? reply.current_round);
}

/** Deal the next round; where both players pressed Deal, the one refused finds the other's
 * round open, which is what it asked for: said as such, not as a refusal. */
async function deal(seat) {
  try {
    return await seat.openRound();
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 409) throw e;
    const view = (await look())?.view;
    const round = view?.round;
    if (!round || round.revealed) throw e;
    notifyWhile(`The other player dealt first: round ${round.number} is open.`, view);
    return null;
  }
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
    serially(() => join(event.target)).catch(fail);
  });
  $("join-table").addEventListener("change", () => serially(() => describe($("join-table").value.trim())).catch(fail));
  $("actions").addEventListener("click", onClick);
  $("result-actions").addEventListener("click", (event) => {
    if (event.target.closest("#rematch")) rematch();
  });
  $("watch").addEventListener("click", () => serially(() => watch($("join-table").value.trim())).catch(fail));
  const invited = new URLSearchParams(location.search).get("table");
  if (invited) $("join-table").value = invited;
  setInterval(drawTimers, 250);
  serially(pinKeys).catch(fail);
  serially(returning).catch(fail);
  if (invited) serially(() => (state.tableId ? null : describe(invited, true))).catch(fail);
}

/** Join the table of the join form; a Kvitlach table first asks for the buy-in. */
async function join(form) {
  const tableId = form.elements.table.value.trim();
  const view = await describe(tableId);
  if (!view) return;
  const buyIn = form.querySelector(".kv-only");
  if (view.game === "kvitlach" && buyIn.dataset.asked !== tableId) {
    buyIn.dataset.asked = tableId;
    $("join-problem").textContent = "Choose your buy-in, then press Join.";
    return form.elements.buy_in.focus();
  }
  const request = view.game === "kvitlach" ? { buy_in: Number(form.elements.buy_in.value) } : {};
  await take({ tableId, join: request });
}

/** What the table of ``tableId`` is, shown above the Join button (the invite's whole point):
 * its game, rules, stakes and seats; the buy-in asked only for Kvitlach. Its public view, or
 * null with the reason beside the table id. */
async function describe(tableId, invited = false) {
  $("join-problem").textContent = "";
  if (!/^t[0-9a-f]+$/.test(tableId)) {
    if (tableId) $("join-problem").textContent = "A table id is a t followed by hexadecimal digits, as in the invite link.";
    return null;
  }
  let view;
  try {
    view = (await api("GET", `/v1/tables/${encodeURIComponent(tableId)}`)).view;
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    $("join-problem").textContent = `There is no table ${tableId} on this server: check the invite link.`;
    $("invite-about").hidden = true;
    return null;
  }
  const { said, open } = seating(view);
  $("invite-game").textContent = gameTitle(view);
  $("invite-rules").href = rulesLink(view);
  $("invite-terms").replaceChildren(...terms(view).map((term) => h("li", {}, term)));
  $("invite-seats").textContent = open ? said : `${said} You can watch it.`;
  $("invite-about").hidden = false;
  const kv = view.game === "kvitlach";
  const buyIn = $("join-form").querySelector(".kv-only");
  buyIn.hidden = !kv;
  if (kv) buyIn.dataset.asked = tableId; // seen before Join is pressed: no need to ask again
  if (kv) $("buy-in-hint").textContent = `At least ${leastBuyIn(view)} to play a round (the ante and a bet of 1); what you do not lose is yours to take when you leave.`;
  $("join").disabled = !open;
  if (invited) {
    $("join-title").textContent = "You are invited to a table";
    $("join-table-label").hidden = true;
    $("create-form").hidden = true;
    $("setup").classList.add("invited");
    $("own-table").hidden = false;
  }
  return view;
}

// What this tab or this browser held before: the seat kept for the URL's table is taken
// back; the tab's last seat, if this browser did not keep it, is lost, and the page says
// so; the page without a table lists the seats kept to return to.
async function returning() {
  addEventListener("beforeunload", warnIfUnkept);
  if (!state.keySet) return; // no pinned key: nothing can be checked (the failure is shown)
  const tableId = new URLSearchParams(location.search).get("table");
  const kept = tableId ? await Seat.kept(tableId) : null;
  if (kept) return resume(kept);
  const held = heldBefore();
  if (held && !(await Seat.kept(held.table))) sayLost(held);
  if (!tableId) await listKept();
}

async function resume(kept) {
  notify(`Taking back your seat ${kept.seat} at table ${kept.table}: checking every event again…`);
  const seat = await Seat.resume(kept, chainFor);
  if (!seat) {
    return notify(`Your seat ${kept.seat} at table ${kept.table} is open in another tab of this browser: play it there (here you may watch the table).`, true);
  }
  await seated(seat);
  if (state.seat === seat) notifyWhile(`Seat ${seat.seat} resumed: this browser kept its key and token, and ${seat.chain.checked} events were checked again.`, state.reply?.view);
}

function heldBefore() {
  try {
    const held = JSON.parse(sessionStorage.getItem(HELD) ?? "null");
    return typeof held?.table === "string" && typeof held.seat === "number" ? held : null;
  } catch {
    return null;
  }
}

// This tab held a seat before it was reloaded, and the browser did not keep it: the seat's
// key and token are gone with the old page. Say so, and offer to watch the table.
function sayLost(held) {
  $("lost-text").textContent = `Before this tab was reloaded it held seat ${held.seat} at table ${held.table}. This browser did not keep that seat, so it cannot be taken back from here.`;
  $("lost").hidden = false;
  $("watch-lost").addEventListener("click", () => serially(() => watch(held.table)).catch(fail));
}

async function listKept() {
  const kept = await Seat.keptList();
  const links = kept.map(({ table, seat }) => h("li", {}, h("a", { href: `/?table=${table}` }, `Return to your seat at table ${table} (seat ${seat})`)));
  $("kept-seats").replaceChildren(...links);
  $("kept-seats").hidden = !links.length;
}

// A seat held in this tab's memory only is lost on a reload: the browser asks first.
function warnIfUnkept(event) {
  if (!state.seat || state.seat.kept) return;
  event.preventDefault();
  event.returnValue = "";
}

start();
