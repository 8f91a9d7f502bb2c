// Each result of the table in words, from the events this page has checked: who won a round
// and why ("you went over 21: 28 against 21"), what a Kvitlach hand's bet came to, how a match
// or a banker's term ended, and the money. Text only; the page draws it.

import { best as kvitlachBest } from "./fairdeal/games/kvitlach/hands.js";

const KEEP = 50; // results kept for the page's list: a long table stays light

/** The table's results as its checked events come in (``follow``), newest last. */
export class Results {
  constructor() {
    this.game = null;
    this.round = null; // the round being played: {id, number, events}
    this.entries = []; // {kind: "round"|"match"|"term", round, number, events}
  }

  follow(event) {
    if (event.type === "table_created") this.game = event.data.game;
    if (event.type === "round_opened") this.round = { id: event.round, number: event.data.number, events: [] };
    if (this.round) {
      this.round.events.push(event);
      if (event.type === "round_revealed") this.close();
      return;
    }
    // Between rounds: a match ended by the game's clock, a term ended by a seat's leaving.
    if (["match_won", "match_drawn", "term_ended"].includes(event.type)) {
      this.add({ kind: event.type === "term_ended" ? "term" : "match", round: null, number: null, events: [event] });
    }
  }

  close() {
    const { id, number, events } = this.round;
    this.round = null;
    this.add({ kind: "round", round: id, number, events });
  }

  add(entry) {
    this.entries.push(entry);
    if (this.entries.length > KEEP) this.entries.shift();
  }

  /** The results told for ``you`` (a seat number, or null watching), newest first. */
  told(you) {
    const tell = this.game === "kvitlach" ? kvitlachResult : totoResult;
    return this.entries.map((entry) => ({ round: entry.round, ...tell(entry, you) })).reverse();
  }
}

// Words

/** "You" or "Seat 2", and the verb that goes with it: subject(1, 1, "win", "wins"). */
function subject(seat, you, verbYou, verbOther, capital = true) {
  if (seat === you) return `${capital ? "You" : "you"} ${verbYou}`;
  return `${capital ? "Seat" : "seat"} ${seat} ${verbOther}`;
}
const named = (seat, you) => (seat === you ? "you" : `seat ${seat}`);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const moved = (event) => (event.data.transfers ?? []).reduce((sum, t) => sum + t.amount, 0);
const find = (events, ...types) => events.find((e) => types.includes(e.type));

function voided(entry, you) {
  const void_ = find(entry.events, "round_voided");
  if (!void_) return null;
  if (void_.data.reason === "game_time_up") {
    return `Round ${entry.number} was called off: the game's time ran out before it was dealt. No points.`;
  }
  const who = (void_.data.seats ?? []).map((s) => named(s, you)).join(" and ") || "a seat";
  const its = who === "you" ? "your" : "its";
  // A dealer-blind round is voided, too, when a seat's browser sends no seed or no shuffle step
  const what = { shuffle_withheld: `send ${its} shuffle step`, seed_withheld: `send ${its} seed and round key` }[void_.data.reason] ?? `reveal ${its} seed`;
  // The other player's page gone quiet: say what dealing again does while it stays away.
  const away = you !== null && you !== undefined && !(void_.data.seats ?? []).includes(you);
  const left = away ? ` If ${who}'s player has left, each round dealt is voided the same way until the game's time runs out.` : "";
  return `Round ${entry.number} was voided: ${who} did not ${what} in time. Nothing was dealt and no money moved.${left}`;
}

// Toto21 (SPEC 11.4): round_won {seat, points, reason, totals, score}, round_double_bust
// {totals, next_worth}, match_won {seat, reason, score, transfers}, match_drawn.

function totoResult(entry, you) {
  const lines = [];
  const void_ = voided(entry, you);
  if (void_) lines.push(void_);
  const won = find(entry.events, "round_won");
  const bust = find(entry.events, "round_double_bust");
  const roles = find(entry.events, "dealer_chosen")?.data;
  if (won) lines.push(totoRound(entry.number, won.data, roles, you));
  if (bust) {
    const [a, b] = bust.data.totals;
    lines.push(`Round ${entry.number}: both went over 21 (${a} and ${b}): nobody scores, and the next round is worth ${plural(bust.data.next_worth, "point")}.`);
  }
  const match = find(entry.events, "match_won", "match_drawn");
  if (match) lines.push(totoMatch(match, you));
  return { headline: lines[0] ?? `Round ${entry.number} is over.`, details: lines.slice(1), over: Boolean(match) };
}

/** A Toto21 round_won's data told as a sentence (``you``: the reader's seat, or null). */
export function totoRound(number, data, roles, you) {
  const { seat, points, reason } = data;
  const other = 1 - seat;
  // A dealer-blind round won because the other seat withheld its answer has no totals.
  const totals = data.totals ?? [null, null];
  const [mine, theirs] = [totals[seat], totals[other]];
  const player = roles?.player ?? other;
  const dealer = roles?.dealer ?? seat;
  const why = {
    golden_point: `golden point: ${named(player, you)} got two aces as ${player === you ? "your" : "its"} first two cards`,
    dealer_two_aces: `the golden point's two aces were beaten by the dealer's own two aces`,
    player_over_21: `${named(player, you)} went over 21: ${theirs} against ${mine}`,
    dealer_over_21: `${named(dealer, you)} went over 21: ${theirs} against ${mine}`,
    tie: `${mine} each, and a tie goes to the dealer`,
    higher_total: `the higher total, ${mine} against ${theirs}`,
    // dealer-blind rounds (SPEC 15.13.7)
    false_claim: `${named(player, you)} claimed the golden point without two aces`,
    illegal_draw: `${named(other, you)} drew at 21 or more`,
    shares_withheld: `${named(other, you)} did not send ${other === you ? "your" : "its"} decryption shares in time`,
    key_withheld: `${named(other, you)} did not reveal ${other === you ? "your" : "its"} round key in time`,
  }[reason] ?? reason;
  return `Round ${number}: ${subject(seat, you, "win", "wins", false)} ${plural(points, "point")} (${why}). ${score(data.score, you)}.`;
}

/** "Score: you 1, seat 1 2" (seat 0 first, as the log keeps it). */
function score(points, you) {
  return `Score: ${points.map((p, seat) => `${named(seat, you)} ${p}`).join(", ")}`;
}

function totoMatch(event, you) {
  const [a, b] = event.data.score;
  const pot = moved(event);
  if (event.type === "match_drawn") {
    return `The match is a draw, ${a} to ${b}${pot ? `: each stake goes back` : ""}.`;
  }
  const clock = event.data.reason === "game_time_up" ? "the game's time ran out, and " : "";
  const money = pot ? `, and the pot of ${pot}` : "";
  const [most, least] = a > b ? [a, b] : [b, a];
  return `The match is over: ${clock}${subject(event.data.seat, you, "win", "wins", false)} it, ${most} to ${least}${money}.`;
}

// Kvitlach (SPEC 12.3-12.7): a hand won or lost at once (hand_won, hand_lost, after its
// cards_shown), the showdown (round_settled), and a term's end (term_ended).

function kvitlachResult(entry, you) {
  const lines = [];
  const void_ = voided(entry, you);
  if (void_) lines.push(void_);
  if (entry.kind === "round" && !void_) lines.push(...kvRound(entry, you));
  const term = find(entry.events, "term_ended");
  if (term) lines.push(kvTerm(term, you));
  return { headline: lines[0] ?? "", details: lines.slice(1), over: false };
}

function kvRound(entry, you) {
  const events = entry.events;
  const opened = find(events, "round_opened").data;
  const shown = new Map();
  for (const e of events.filter((x) => x.type === "cards_shown")) shown.set(e.data.seat, e.data.cards.map((c) => c.card));
  const settled = find(events, "round_settled")?.data;
  const hands = opened.order.map((seat) => kvHand(seat, events, settled, shown, you)).filter(Boolean);
  const net = hands.reduce((sum, hand) => sum + hand.bank, 0);
  const bank = net === 0 ? "the bank comes out even" : `the bank ${net > 0 ? "takes" : "pays"} ${Math.abs(net)}`;
  const banker = settled ? kvBanker(settled, opened.banker, you) : `${named(opened.banker, you)} did not need to play`;
  const mine = hands.find((hand) => hand.seat === you);
  const first = mine
    ? `Round ${entry.number}: ${mine.text}.`
    : `Round ${entry.number}: ${banker}; ${bank}.`;
  const rest = hands.filter((hand) => hand !== mine).map((hand) => `${hand.text[0].toUpperCase()}${hand.text.slice(1)}.`);
  if (mine) rest.push(`${banker[0].toUpperCase()}${banker.slice(1)}; ${bank}.`);
  return [first, ...rest];
}

function kvBanker(settled, banker, you) {
  const { banker_result: result, banker_total: total } = settled;
  const who = `${named(banker, you)} (the banker)`;
  if (result === "21") return `${who} made 21`;
  if (result === "bust") return `${who} went bust with ${total}`;
  return `${who} stopped at ${total}`;
}

/** A player's hand: {seat, text, bank (what the bank gained by it)}, null for one that sat out. */
function kvHand(seat, events, settled, shown, you) {
  const cards = shown.get(seat);
  const total = cards ? kvitlachBest(cards) : null;
  const instant = events.find((e) => (e.type === "hand_won" || e.type === "hand_lost") && e.data.seat === seat);
  const your = seat === you ? "your" : "its";
  if (instant) {
    const bet = instant.data.bet;
    if (instant.type === "hand_lost") return { seat, bank: bet, text: `${subject(seat, you, "went", "went", false)} bust with ${total}: ${subject(seat, you, "lose", "loses", false)} ${your} bet of ${bet}` };
    const how = instant.data.reason === "framed" ? "two framed cards, an automatic 21" : "exactly 21";
    return { seat, bank: -bet, text: `${subject(seat, you, "made", "made", false)} ${how}: ${subject(seat, you, "win", "wins", false)} ${your} bet of ${bet} from the bank` };
  }
  const result = settled?.results.find((r) => r.seat === seat);
  if (!result) return { seat, bank: 0, text: `${subject(seat, you, "sat", "sat", false)} the round out, no bet` };
  const win = result.outcome === "win";
  const why =
    settled.banker_result === "bust" ? "the banker went bust"
    : settled.banker_result === "21" ? "the banker's 21 beats every open bet"
    : `${result.total} against the banker's ${settled.banker_total}${win ? "" : ", and equal or lower loses"}`;
  return { seat, bank: win ? -result.bet : result.bet, text: `${subject(seat, you, win ? "win" : "lose", win ? "wins" : "loses", false)} ${your} bet of ${result.bet} (${why})` };
}

function kvTerm(event, you) {
  const { banker, next_banker: next, reason } = event.data;
  const why = {
    bank_empty: "the bank is empty",
    four_or_seven: "the banker's first card was a 4 or a 7, from the term's 4th round on",
    banker_exit: "the banker stepped down after a 4 or a 7",
    no_players: "no player at the table can play another round",
  }[reason] ?? reason;
  const back = moved(event);
  const money = back ? `${subject(banker, you, "take", "takes", true)} back the bank's ${back}. ` : "";
  const nextSaid = next === banker ? `${subject(next, you, "bank", "banks", true)} again` : `${subject(next, you, "are", "is", true)} the next banker`;
  return `The banker's term is over: ${why}. ${money}${nextSaid}, from the next round dealt.`;
}
