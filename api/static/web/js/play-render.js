// Drawing a seat's view: scores and balances, the cards as pictures, the moves it may make,
// the deadlines. Pure DOM building from the view (SPEC 11.7, 12.11); text only, never HTML.

import { cardBackSvg, cardSvg } from "./cards.js";
import { kvitlachBest, totoTotal } from "/static/web/js/fairdeal/index.js";

const LABELS = {
  joiner_accepted: "Accept the player",
  joiner_rejected: "Turn the player away",
  hit: "Hit",
  blind: "Blind card",
  stand: "Stand",
  golden_point: "Claim golden point",
  bet: "Bet",
  open_card: "Open card",
  elvaroon: "Elvaroon",
  reject: "Reject the 11",
  banker_draw: "Draw",
  banker_stop: "Stop",
  seat_left: "Leave the table",
  banker_exit: "Step down as banker",
};
// One short line under each button: what it does, for a player who never read the rules.
const HINTS = {
  open_round: "Shuffle and deal: every seat adds a seed of its own to the deck first",
  joiner_accepted: "Start the match: both stakes go into the pot",
  joiner_rejected: "Their stake is paid back and the seat is free again",
  hit: "One more card, face down: only you see it",
  blind: "A card nobody sees until the showdown; it counts then in full",
  stand: "Keep your cards and end your turn",
  golden_point: "Two aces win at once; a false claim loses the round",
  bet: "Bet against the bank; you get a card face down",
  open_card: "A card face up, seen by all, with no bet",
  elvaroon: "At exactly 11: protect your next card; if it is an 11 you may refuse it",
  reject: "Burn the protected 11 and take the next card instead",
  banker_draw: "One more card for the banker, face up",
  banker_stop: "The showdown: every open bet is settled against your total",
  seat_left: "Take your whole balance and free your seat",
  banker_exit: "End your term: the bank goes back to you",
};
const AMOUNTS = { bet: "amount", elvaroon: "raise" };
// Sent by the page itself, never by a click (at a dealer-blind table, the seat's party's
// answers: play-blind.js).
const AUTOMATIC = new Set(["client_seed", "seed_commitment", "seat_joined", "deck_shuffled", "decryption_shares", "round_key"]);

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
      // A face-down card this seat sees: its salt shown to it, or (dealer-blind) opened by its party
      const mineOnly = c.face !== "up" && (c.salt || c.opened) && !round.revealed;
      const drawn = card({ card: c.card, private: mineOnly }, c.face === "blind" ? "the blind card, face down" : "a card face down");
      if (c.face === "blind") drawn.classList.add("card-blind");
      return drawn;
    });
    // In play the blind card counts for nobody; once shown (the showdown) it counts in full.
    const known = mine.filter((c) => c.card && (c.face !== "blind" || round.revealed)).map((c) => c.card);
    // A watcher sees the face-up cards only; a seat, its own cards and the other's face-up ones.
    const label = round.revealed ? "Total" : you === null || you === undefined ? "Face-up cards total" : "Cards you see";
    const total = known.length ? totoTotal(known) : 0;
    const extra = known.length ? [h("p", { class: "total" }, `${label}: ${total}`)] : [];
    // Told to the seat alone, of its own cards (11.4 steps 6-7: the dealer sees all its own; the
    // player's blind card can only add): over 21 is bust, whatever the round's showdown shows.
    if (seat === you && !round.revealed && total > 21) {
      extra.push(h("p", { class: "total bust" }, `Bust: your cards total ${total}, over 21. You lose this round unless the other seat is over 21 too (then nobody scores).`));
    }
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
  if (!round || round.revealed) return round ? `Round ${round.number} is over.${deal}` : `The match has started.${you === null ? "" : " Deal the first round."}`;
  if (!round.sealed) return `Round ${round.number}: the seeds are being committed and revealed…`;
  return round.turn === you && you !== null ? "Your move." : `Seat ${round.turn} is to move.`;
}

function matchOver(view, you) {
  const [a, b] = view.score ?? [0, 0];
  if (a === b) return `The match is over: a draw, ${a}–${b}.`;
  const winner = a > b ? 0 : 1;
  return `The match is over: ${winner === you ? "you win" : `seat ${winner} wins`}, ${Math.max(a, b)}–${Math.min(a, b)}.`;
}

// Kvitlach

function kvScores(view, you) {
  const rows = view.seats.map((seat) =>
    h("div", { class: "score" }, h("span", { class: "label" }, `${seatName(seat, you)}${seat === view.banker ? " — banker" : ""}`),
      h("strong", { class: "money" }, String(view.balances[`seat:${seat}`] ?? 0))),
  );
  rows.push(h("div", { class: "score" }, h("span", { class: "label" }, "Bank"), h("strong", {}, String(view.balances.bank ?? 0))));
  return rows;
}

function kvFelt(view, you) {
  const round = view.round;
  if (!round) return [h("p", { class: "empty" }, "No round dealt yet.")];
  const own = new Map((view.your_cards ?? []).map((c) => [c.position, c]));
  return round.hands.map((hd) => {
    const known = [];
    const cards = hd.cards.map((c) => {
      const mine = own.get(c.position);
      const code = c.card ?? mine?.card;
      if (code !== null && code !== undefined) known.push(code);
      if (c.card !== null && c.card !== undefined) return card({ card: c.card });
      return mine ? card({ card: mine.card, private: true }) : card({}, "a card face down");
    });
    const burned = hd.burned.map((c) => h("span", { class: "burned" }, `burned ${c.card}`));
    const turn = round.turn === hd.seat;
    const role = hd.seat === round.banker ? " — banker" : "";
    const guarded = hd.protected === null || hd.protected === undefined ? "" : ", the card after it protected";
    const status = hd.seat === round.banker ? "" : STATUS[hd.status] ?? hd.status; // the banker's hand has no bet of its own
    const said = [status, hd.bet ? `bet ${hd.bet}` : "", hd.elvaroon ? `Elvaroon${guarded}` : ""].filter(Boolean).join(", ");
    const facts = h("p", { class: "total" }, said, ...burned);
    const counted = known.length ? [h("p", { class: "total" }, `${kvTotalLabel(known.length === hd.cards.length, hd.seat === you, you === null || you === undefined)}: ${kvitlachBest(known)}`)] : [];
    return h("div", { class: `seat-area${turn ? " on-turn" : ""}` },
      hand(`${seatName(hd.seat, you)}${role}${turn ? " — to move" : ""}`, cards, [...counted, facts]));
  });
}

// A hand's status in words (SPEC 12.11's ``status``).
const STATUS = { waiting: "waiting for its turn", playing: "playing", open: "standing, bet open", out: "out of the round", won: "won", lost: "lost", skipped: "skipped: the bank is covered" };

function kvTotalLabel(whole, yours, watching) {
  if (!whole) return watching ? "Face-up cards total" : "Cards you see";
  return yours ? "Your total" : "Total";
}

function kvStatus(view, you) {
  const round = view.round;
  if (view.seats.length < 2) return "Waiting for players: send them the invite link.";
  if (view.exit_offer && view.banker === you) {
    return "Your term's first card was a 4 or a 7: you may step down as banker, the bank going back to you, until the next round is dealt.";
  }
  const deal = you === null ? "" : " Deal the next one.";
  if (!round || round.revealed) return round ? `Round ${round.number} is settled.${deal}` : "Deal the first round when everyone is seated.";
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
  };
}

/** The newest result and the list of them all (``told``: Results.told, newest first), each
 * round's with a link that checks it on the verify page, in a tab of its own. */
export function renderResults(told) {
  const [latest] = told;
  const listed = told.map((r) => h("li", {}, r.headline, ...r.details.map((line) => [" ", line]), r.round ? [" ", checkLink(r.round)] : []));
  return {
    headline: latest.headline,
    details: latest.details.map((line) => h("li", {}, line)),
    check: latest.round ? checkLink(latest.round) : null,
    list: listed,
  };
}

function checkLink(round) {
  return h("a", { href: `/verify?round=${encodeURIComponent(round)}`, target: "_blank", rel: "noopener", class: "check-round" }, "Check this round");
}

/** Whether this seat may deal the next round now (no round in play, the table ready). */
export function mayOpenRound(reply) {
  const { view } = reply;
  const idle = !view.round || view.round.revealed;
  if (reply.game === "toto21") return view.phase === "playing" && idle;
  return idle && view.seats.length >= 2;
}

/** One control per legal action (amount inputs where it takes one), "Deal", and each
 * with its hint beneath, tied to it for screen readers. */
export function actionControls(reply, canOpen) {
  const controls = [];
  if (canOpen) controls.push(move("open_round", dealLabel(reply), reply, "primary"));
  for (const kind of reply.legal_actions.filter((k) => !AUTOMATIC.has(k))) {
    const style = kind === "stand" || kind === "banker_stop" || kind === "joiner_rejected" || kind === "seat_left" ? "" : "primary";
    // Only the classic Elvaroon raises the bet (a Pressburg bet raises, and deals a card).
    const amount = kind === "elvaroon" && reply.view.options.rule_set !== "classic" ? null : AMOUNTS[kind];
    if (!amount) {
      controls.push(move(kind, LABELS[kind] ?? kind, reply, style));
      continue;
    }
    const id = `amount-${kind}`;
    const input = h("input", { id, type: "number", min: kind === "bet" ? 1 : 0, value: kind === "bet" ? 1 : 0, inputmode: "numeric", dataset: { amountFor: kind } });
    const label = h("label", { for: id }, kind === "bet" ? "Amount" : "Raise");
    controls.push(h("div", { class: "move with-amount" }, label, input, ...buttonAndHint(kind, LABELS[kind], reply, style)));
  }
  if (!controls.length) controls.push(h("p", { class: "empty" }, "Nothing for you to do right now."));
  return controls;
}

function move(kind, label, reply, style) {
  return h("div", { class: "move" }, ...buttonAndHint(kind, label, reply, style));
}

function buttonAndHint(kind, label, reply, style) {
  const id = `hint-${kind}`;
  const button = h("button", { type: "button", class: style, dataset: { action: kind }, "aria-describedby": id }, label);
  return [button, h("span", { id, class: "hint" }, hintFor(kind, reply))];
}

function hintFor(kind, reply) {
  const classic = reply.view.options.rule_set === "classic";
  if (kind === "bet" && classic) return "Your bet on this hand, before you draw: you win or lose it against the bank";
  if (kind === "elvaroon" && classic) return "At exactly 11: protect your next card, and raise your bet if you like";
  return HINTS[kind];
}

function dealLabel(reply) {
  const view = reply.view;
  if (reply.game === "kvitlach" && view.term === null && view.rounds > 0) {
    return view.banker === view.you ? "Deal: start your term as banker" : `Deal: start seat ${view.banker}'s term as banker`;
  }
  return view.round ? "Deal the next round" : "Deal the first round";
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
  // A dealer-blind round's request to the seats' browsers: who must answer, by when.
  const request = round?.request;
  if (round && !round.revealed && request?.deadline) {
    const who = request.seats.length === 1 ? `seat ${request.seats[0]}` : "seats";
    found.push([`Answer due (${who}'s browser)`, request.deadline]);
  }
  return found;
}
