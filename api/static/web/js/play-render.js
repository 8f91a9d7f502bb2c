// Drawing a seat's view: scores and balances, the cards as pictures, the moves it may make,
// the deadlines. Pure DOM building from the view (SPEC 11.7, 12.11); text only, never HTML.

import { cardBackSvg, cardSvg } from "./cards.js";
import { totoTotal } from "/static/web/js/fairdeal/index.js";

const LABELS = {
  joiner_accepted: "Accept the player",
  joiner_rejected: "Reject the player",
  hit: "Hit",
  blind: "Blind card",
  stand: "Stand",
  bet: "Bet",
  open_card: "Open card",
  elvaroon: "Elvaroon",
  reject: "Reject the 11",
  banker_draw: "Draw",
  banker_stop: "Stop",
  seat_left: "Leave the table",
  banker_exit: "Step down as banker",
};
const HINTS = {
  hit: "a card face down, seen by you only",
  blind: "a card nobody sees until the showdown",
  open_card: "a card face up, no bet",
  reject: "burn the protected 11 and take the next card",
};
const AMOUNTS = { bet: "amount", elvaroon: "raise" };
const AUTOMATIC = new Set(["client_seed", "seed_commitment", "seat_joined"]);

export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) node.append(child);
  }
  return node;
}

const seatName = (seat, you) => (seat === you ? `Seat ${seat} (you)` : `Seat ${seat}`);

function card(shown, label) {
  if (shown.card !== undefined && shown.card !== null) {
    const svg = cardSvg(shown.card);
    if (shown.private) {
      svg.classList.add("card-private");
      svg.setAttribute("aria-label", `${svg.getAttribute("aria-label")}, face down: you alone see it`);
    }
    return svg;
  }
  return cardBackSvg(label);
}

function hand(title, cards, extra = []) {
  return h("div", { class: "hand" }, h("h3", {}, title), h("div", { class: "cards" }, cards), extra);
}

// Toto21

function totoScores(view, you) {
  const rows = view.seats.map((seat) =>
    h("div", { class: "score" }, h("span", { class: "label" }, seatName(seat, you)),
      h("strong", { class: "points" }, `${view.score?.[seat] ?? 0} / ${view.options.target}`),
      h("span", { class: "money" }, `balance ${view.balances[`seat:${seat}`] ?? 0}`)),
  );
  rows.push(h("div", { class: "score" }, h("span", { class: "label" }, "Pot"), h("strong", {}, String(view.balances.pot ?? 0))));
  rows.push(h("div", { class: "score" }, h("span", { class: "label" }, "This round is worth"), h("strong", {}, `${view.worth} point${view.worth === 1 ? "" : "s"}`)));
  return rows;
}

function totoFelt(view, you) {
  const round = view.round;
  if (!round) return [h("p", { class: "empty" }, "No round dealt yet.")];
  return round.seats.map((seat) => {
    const mine = (round.cards ?? []).filter((c) => c.seat === seat).sort((a, b) => a.position - b.position);
    const role = seat === round.dealer ? "dealer" : seat === round.player ? "player" : "";
    const cards = mine.map((c) => {
      const drawn = card({ card: c.card, private: c.face !== "up" && c.salt && !round.revealed }, c.face === "blind" ? "the blind card, face down" : "a card face down");
      if (c.face === "blind") drawn.classList.add("card-blind");
      return drawn;
    });
    // In play the blind card counts for nobody; once shown (the showdown) it counts in full.
    const known = mine.filter((c) => c.card && (c.face !== "blind" || round.revealed)).map((c) => c.card);
    const label = round.revealed ? "Total" : "Cards you see";
    const extra = known.length ? [h("p", { class: "total" }, `${label}: ${totoTotal(known)}`)] : [];
    if (!round.revealed && mine.some((c) => c.face === "blind")) {
      extra.push(h("p", { class: "total blind-note" }, "The blue-edged card is the blind card: nobody sees it until the showdown."));
    }
    const turn = round.turn === seat && round.sealed && !round.revealed;
    return h("div", { class: `seat-area${turn ? " on-turn" : ""}` },
      hand(`${seatName(seat, you)}${role ? ` — ${role}` : ""}${turn ? " — to move" : ""}`, cards, extra));
  });
}

function totoStatus(view, you) {
  const round = view.round;
  if (view.phase === "open") return "Waiting for a second player: send them the invite link.";
  if (view.phase === "deciding") {
    if (you === null) return "A player joined: the creator is deciding on them.";
    return you === 0 ? "A player joined: accept them to start the match." : "Waiting for the creator to accept you.";
  }
  if (view.phase !== "playing") return matchOver(view, you);
  const deal = you === null ? "" : " Deal the next one.";
  if (!round || round.revealed) return round ? `Round ${round.number} is over and revealed.${deal}` : `The match has started.${you === null ? "" : " Deal the first round."}`;
  if (!round.sealed) return `Round ${round.number}: the seeds are being committed and revealed…`;
  return round.turn === you && you !== null ? "Your move." : `Seat ${round.turn} is to move.`;
}

function matchOver(view, you) {
  const [a, b] = view.score ?? [0, 0];
  if (a === b) return `The match is over: a draw, ${a}–${b}.`;
  const winner = a > b ? 0 : 1;
  return `The match is over: ${winner === you ? "you win" : `seat ${winner} wins`}, ${a}–${b}.`;
}

// Kvitlach

function kvScores(view, you) {
  const rows = view.seats.map((seat) =>
    h("div", { class: "score" }, h("span", { class: "label" }, `${seatName(seat, you)}${seat === view.banker ? " — banker" : ""}`),
      h("strong", { class: "money" }, String(view.balances[`seat:${seat}`] ?? 0))),
  );
  rows.push(h("div", { class: "score" }, h("span", { class: "label" }, "Bank"), h("strong", {}, String(view.balances.bank ?? 0))));
  rows.push(h("div", { class: "score" }, h("span", { class: "label" }, "Rules"), h("strong", {}, `${view.options.rule_set}, max bet ${view.options.max_bet}`)));
  return rows;
}

function kvFelt(view, you) {
  const round = view.round;
  if (!round) return [h("p", { class: "empty" }, "No round dealt yet.")];
  const own = new Map((view.your_cards ?? []).map((c) => [c.position, c]));
  return round.hands.map((hd) => {
    const cards = hd.cards.map((c) => {
      const mine = own.get(c.position);
      if (c.card !== null && c.card !== undefined) return card({ card: c.card });
      return mine ? card({ card: mine.card, private: true }) : card({}, "a card face down");
    });
    const burned = hd.burned.map((c) => h("span", { class: "burned" }, `burned ${c.card}`));
    const turn = round.turn === hd.seat;
    const role = hd.seat === round.banker ? " — banker" : "";
    const guarded = hd.protected === null || hd.protected === undefined ? "" : ", the card after it protected";
    const facts = h("p", { class: "total" }, `${hd.status}${hd.bet ? `, bet ${hd.bet}` : ""}${hd.elvaroon ? `, Elvaroon${guarded}` : ""}`, ...burned);
    return h("div", { class: `seat-area${turn ? " on-turn" : ""}` },
      hand(`${seatName(hd.seat, you)}${role}${turn ? " — to move" : ""}`, cards, [facts]));
  });
}

function kvStatus(view, you) {
  const round = view.round;
  if (view.seats.length < 2) return "Waiting for players: send them the invite link.";
  if (view.exit_offer && view.banker === you) {
    return "Your term's first card was a 4 or a 7: you may step down as banker, the bank going back to you, until the next round is dealt.";
  }
  const deal = you === null ? "" : " Deal the next one.";
  if (!round || round.revealed) return round ? `Round ${round.number} is settled and revealed.${deal}` : "Deal the first round when everyone is seated.";
  if (round.phase === "seeding") return `Round ${round.number}: the seeds are being committed and revealed…`;
  if (round.turn === you && you !== null) return "Your move.";
  return round.turn === null || round.turn === undefined ? `Round ${round.number}: ${round.phase}.` : `Seat ${round.turn} is to move.`;
}

// Shared

export function renderView(reply) {
  const { view, seat } = reply;
  const toto = reply.game === "toto21";
  return {
    scores: toto ? totoScores(view, seat) : kvScores(view, seat),
    felt: toto ? totoFelt(view, seat) : kvFelt(view, seat),
    status: toto ? totoStatus(view, seat) : kvStatus(view, seat),
    checkable: view.round?.revealed ? view.round.id : null, // a round over: the verify page checks it
  };
}

/** Whether this seat may deal the next round now (no round in play, the table ready). */
export function mayOpenRound(reply) {
  const { view } = reply;
  const idle = !view.round || view.round.revealed;
  if (reply.game === "toto21") return view.phase === "playing" && idle;
  return idle && view.seats.length >= 2;
}

/** One control per legal action (amount inputs where it takes one), and "Deal". */
export function actionControls(reply, canOpen) {
  const controls = [];
  if (canOpen) controls.push(h("button", { type: "button", class: "primary", dataset: { action: "open_round" } }, "Deal the next round"));
  for (const kind of reply.legal_actions.filter((k) => !AUTOMATIC.has(k))) {
    const amount = AMOUNTS[kind];
    const button = h("button", { type: "button", class: kind === "stand" || kind === "banker_stop" ? "" : "primary", dataset: { action: kind }, title: HINTS[kind] }, LABELS[kind] ?? kind);
    if (!amount) {
      controls.push(button);
      continue;
    }
    const id = `amount-${kind}`;
    const input = h("input", { id, type: "number", min: kind === "bet" ? 1 : 0, value: kind === "bet" ? 1 : 0, inputmode: "numeric", dataset: { amountFor: kind } });
    controls.push(h("span", { class: "with-amount" }, h("label", { for: id }, kind === "bet" ? "Amount" : "Raise"), input, button));
  }
  if (!controls.length) controls.push(h("p", { class: "empty" }, "Nothing for you to do right now."));
  return controls;
}

/** The deadlines in the view: [label, ms since the epoch]. */
export function deadlines(reply) {
  const { view } = reply;
  const round = view.round;
  const found = [];
  if (view.game_deadline && view.phase === "playing") found.push(["Game ends", view.game_deadline]);
  if (round && !round.sealed && !round.revealed && round.seed_deadline) found.push(["Seeds due", round.seed_deadline]);
  const move = round?.move_deadline ?? round?.deadline;
  if (round && round.sealed && !round.revealed && move) found.push([`Move due (seat ${round.turn})`, move]);
  return found;
}
