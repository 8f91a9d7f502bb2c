// SPEC 7 (11), the settlements: each hand's total and each payout as the game's showdown
// rules give them (Toto21 11.2, 11.4, 11.5; Kvitlach 12.4-12.7), recomputed from the deck
// of every round whose server seed the bundle reveals, and compared with the logged
// events' data by canonical bytes. A difference is rules.mismatch, as the replay finds it.
//
// What this reads: the cards (the deck, card_dealt, card_burned), the bets, the dealer
// choice, the score, the round's worth, the seats and the balances before each event.
// What it leaves to the replay: every other decision of a run (move_due and its deadlines,
// turn order, legal moves, the term's ante list), which it takes as logged.

import { canonical } from "./canonical.js";
import { dealerChoice } from "./randomness.js";

const isInt = (v) => typeof v === "number" && Number.isSafeInteger(v);
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const seatOf = (actor) => (typeof actor === "string" && actor.startsWith("seat:") ? Number(actor.slice(5)) : null);
const account = (seat) => `seat:${seat}`;

function sameData(a, b) {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
}

/** Balances after ``transfers`` (6.5): every account kept, zeros too, keys sorted. */
export function moved(balances, transfers) {
  const after = { ...balances };
  for (const t of transfers) {
    after[t.from] = (after[t.from] ?? 0) - t.amount;
    after[t.to] = (after[t.to] ?? 0) + t.amount;
  }
  return Object.fromEntries(Object.entries(after).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

// ---- Toto21 (11.2): 6-10 their face, J 2, Q 3, K 4, A 11 or 1, one ace at a time.

const TOTO_VALUES = { J: 2, Q: 3, K: 4, A: 11 };
const rankOf = (card) => card.slice(0, -1);

/** The best total of a Toto21 hand of card codes ("AS", "10H"). */
export function totoTotal(cards) {
  let best = 0;
  let aces = 0;
  for (const card of cards) {
    const rank = rankOf(card);
    best += TOTO_VALUES[rank] ?? Number(rank);
    if (rank === "A") aces += 1;
  }
  while (best > 21 && aces) {
    best -= 10;
    aces -= 1;
  }
  return best;
}

const twoAces = (cards) => cards.length >= 2 && rankOf(cards[0]) === "A" && rankOf(cards[1]) === "A";

/** Who wins a Toto21 round and why (11.4 steps 4 and 8): {winner: seat or null, reason}. */
export function totoOutcome(player, dealer, mine, theirs) {
  if (twoAces(mine)) {
    return twoAces(theirs) ? { winner: dealer, reason: "dealer_two_aces" } : { winner: player, reason: "golden_point" };
  }
  const [a, b] = [totoTotal(mine), totoTotal(theirs)];
  if (a > 21 && b > 21) return { winner: null, reason: "both_over_21" };
  if (a > 21) return { winner: dealer, reason: "player_over_21" };
  if (b > 21) return { winner: player, reason: "dealer_over_21" };
  if (a === b) return { winner: dealer, reason: "tie" };
  return { winner: a > b ? player : dealer, reason: "higher_total" };
}

// ---- Kvitlach (12.4): a 12 counts 12, 10 or 9; every other card its number.

/** Every total of a Kvitlach hand (card codes "1".."12"), ascending. */
export function kvTotals(cards) {
  let sums = [0];
  for (const card of cards) {
    const values = card === "12" ? [12, 10, 9] : [Number(card)];
    sums = sums.flatMap((s) => values.map((v) => s + v));
  }
  return [...new Set(sums)].sort((a, b) => a - b);
}

export const kvIsBust = (cards) => kvTotals(cards)[0] > 21;
const framedPair = (cards) => cards.length === 2 && cards.every((c) => c === "2" || c === "11");
export const kvIsTwentyOne = (cards) => kvTotals(cards).includes(21) || framedPair(cards);

/** The highest total not over 21; a bust hand's lowest. */
export function kvBest(cards) {
  const totals = kvTotals(cards);
  const fitting = totals.filter((t) => t <= 21);
  return fitting.length ? fitting.at(-1) : totals[0];
}

/** How a hand that ends at once ends: "21", "framed", "bust", or null (it plays on). */
export function kvImmediate(cards) {
  if (kvIsTwentyOne(cards)) return kvTotals(cards).includes(21) ? "21" : "framed";
  return kvIsBust(cards) ? "bust" : null;
}

// ---- The walk over a bundle's events.

/**
 * (11) in part: every settlement event of the chain after ``first`` (table_created or a
 * table_state) against the game's showdown. ``rounds``: the RoundChecker's rounds (their
 * decks); ``roundFindings``: its findings. Like the replay, the walk stops at the first
 * event where the rules would refuse or differ: a card that is not the deck's (reported
 * here too, as the replay reports it), any other round finding, a move out of turn, or
 * its own first finding. Resolves to {findings: [{code, event, reason}], hands: Map
 * round id -> the round's hands as told}.
 */
export async function checkShowdown(first, rounds, events, roundFindings = []) {
  const Settler = { toto21: TotoSettler, kvitlach: KvitlachSettler }[first.data.game];
  if (!Settler || !isObject(first.data.options)) return { findings: [], hands: new Map() };
  const settler = new Settler(first, rounds);
  const flagged = new Map(roundFindings.map((f) => [f.event, f.code]));
  for (const event of events) {
    if (flagged.has(event)) {
      settler.cardsDiffer(event, flagged.get(event));
      break;
    }
    if ((await settler.check(event)) === STOP || settler.findings.length) break;
    if (isObject(event.data.balances)) settler.balances = { ...event.data.balances };
  }
  return { findings: settler.findings, hands: settler.told };
}

const STOP = Symbol("the replay stops here");
const CARD_CODES = new Set(["card.wrong_card", "card.commitment", "card.shown"]);

class Settler {
  constructor(first, rounds) {
    this.rounds = rounds;
    this.options = first.data.options;
    this.balances = isObject(first.data.balances) ? { ...first.data.balances } : {};
    this.findings = [];
    this.told = new Map(); // round id -> [{seat, role, cards, total, result}]
    this.round = null; // the round in progress: its RoundChecker record plus our own
  }

  mismatch(event, reason) {
    this.findings.push({ code: "rules.mismatch", event, reason });
  }

  /** The logged event against the rules' draft {type, data}; the balances from ours. */
  expect(event, draft, what) {
    const data = { ...draft.data };
    if (draft.transfers) Object.assign(data, { transfers: draft.transfers, balances: moved(this.balances, draft.transfers) });
    if (event.type === draft.type && sameData(event.data, data)) return true;
    this.mismatch(event, `${what}: the rules give ${draft.type} ${canonical(data)}, the log ${event.type} ${safeText(event.data)}`);
    return false;
  }

  opened(event) {
    const known = this.rounds.get(event.round);
    const deck = known && !known.seedBad ? known.deck : null;
    this.round = { id: event.round, deck, sealed: false, voided: false, hands: new Map() };
  }

  /** A card the deck does not give, or a seal of other seeds: the rules' own event
   * differs there (the replay's rules.mismatch; a card only when the seed is good). */
  cardsDiffer(event, code) {
    if (CARD_CODES.has(code) && this.round?.deck && event.round === this.round.id) {
      this.mismatch(event, `${event.type}: the rules deal the deck's cards, and this one is not (${code})`);
    } else if (code === "seed.client" && event.type === "round_sealed") {
      this.mismatch(event, "round_sealed: the rules seal the seeds as the seats sent them, in seat order");
    }
  }

  /** A table_state inside the chain that restates other options: the replay's rules.state. */
  restated(event) {
    return sameData(event.data.options, this.options) ? undefined : STOP;
  }

  cardsOf(seat) {
    return (this.round.hands.get(seat) ?? []).map((h) => h.card);
  }

  dealt(event) {
    const { position, seat } = event.data;
    const deck = this.round?.deck;
    if (!deck || !isInt(position) || !(position >= 0 && position < deck.length)) return;
    const hand = this.round.hands.get(seat) ?? [];
    hand.push({ position, card: deck[position] });
    this.round.hands.set(seat, hand);
  }
}

function safeText(value) {
  try {
    return canonical(value);
  } catch {
    return "(no canonical text)";
  }
}

/** Toto21: the dealer choice, each round's winner, points and worth, the match's end. */
class TotoSettler extends Settler {
  constructor(first, rounds) {
    super(first, rounds);
    const data = first.data;
    this.score = Array.isArray(data.score) ? [...data.score] : [0, 0];
    this.worth = isInt(data.worth) ? data.worth : 1;
    this.target = this.options.target ?? 4;
    this.stake = this.options.stake ?? 0;
    this.matchDue = null; // {reason, ...}: a match_won or match_drawn the rules log next
  }

  async check(event) {
    if (this.matchDue && !["match_won", "match_drawn", "round_voided"].includes(event.type)) {
      this.mismatch(event, `the match's settlement (${this.matchDue.why}) is missing before ${event.type}`);
      this.matchDue = null;
    }
    if (MOVES.has(event.type) && seatOf(event.actor) !== this.toMove) return STOP; // out of turn
    const handler = TOTO[event.type];
    return handler ? handler.call(this, event) : undefined;
  }

  async chosen(event) {
    const known = this.rounds.get(event.round);
    if (!this.round || !known?.key) return;
    const seats = known.seats;
    const dealer = seats[await dealerChoice(known.key)];
    const player = seats.find((s) => s !== dealer);
    this.expect(event, { type: "dealer_chosen", data: { dealer, player } }, "the dealer choice");
    Object.assign(this.round, { dealer, player });
  }

  outcome(event) {
    const r = this.round;
    if (!r?.deck || r.dealer === undefined) return;
    r.outcomeLogged = true;
    const cards = [0, 1].map((s) => this.cardsOf(s));
    const totals = cards.map(totoTotal);
    const { winner, reason } = totoOutcome(r.player, r.dealer, cards[r.player], cards[r.dealer]);
    const told = [0, 1].map((s) => ({ seat: s, role: s === r.dealer ? "dealer" : "player", cards: cards[s], total: totals[s] }));
    let draft;
    if (winner === null) {
      draft = { type: "round_double_bust", data: { totals, next_worth: this.worth + 1 } };
      this.worth += 1;
      for (const t of told) t.result = "over 21: nobody scores";
    } else {
      const score = this.score.map((p, s) => p + (s === winner ? this.worth : 0));
      draft = { type: "round_won", data: { seat: winner, points: this.worth, reason, totals, score } };
      for (const t of told) t.result = t.seat === winner ? `wins ${this.worth} (${reason.replaceAll("_", " ")})` : "loses";
      this.score = score;
      this.worth = 1;
      const leader = score[1] > score[0] ? 1 : 0;
      if (score[leader] >= this.target) this.matchDue = { why: "the target reached", seat: leader, reason: "target" };
    }
    this.told.set(r.id, told);
    this.expect(event, draft, `round ${r.id}: seat ${r.player} (player) ${totals[r.player]}, seat ${r.dealer} (dealer) ${totals[r.dealer]}`);
  }

  matchEnd(event) {
    const due = this.matchDue;
    this.matchDue = null;
    if (!due) return this.mismatch(event, `${event.type} while no seat reached the target and the game time is not up`);
    const pot = this.balances.pot ?? 0;
    const score = [...this.score];
    let draft;
    if (due.reason === "game_time_up" && score[0] === score[1]) {
      const transfers = this.stake ? [0, 1].map((s) => ({ from: "pot", to: account(s), amount: this.stake })) : [];
      draft = { type: "match_drawn", data: { score }, transfers };
    } else {
      const seat = due.reason === "target" ? due.seat : score[0] > score[1] ? 0 : 1;
      const transfers = pot ? [{ from: "pot", to: account(seat), amount: pot }] : [];
      draft = { type: "match_won", data: { seat, reason: due.reason, score }, transfers };
    }
    this.expect(event, draft, `the match at ${score.join("-")}`);
  }

  revealed(event) {
    const r = this.round;
    if (r && r.deck && r.sealed && !r.outcomeLogged) {
      this.mismatch(event, `round ${r.id} was dealt and revealed without its outcome`);
    }
  }
}

const MOVES = new Set(["hit", "blind", "stand"]);
const TOTO = {
  table_state: Settler.prototype.restated,
  move_due(event) {
    this.toMove = event.data.seat;
  },
  round_opened: Settler.prototype.opened,
  round_sealed() {
    if (this.round) this.round.sealed = true;
  },
  card_dealt: Settler.prototype.dealt,
  dealer_chosen: TotoSettler.prototype.chosen,
  round_won: TotoSettler.prototype.outcome,
  round_double_bust: TotoSettler.prototype.outcome,
  game_time_up() {
    this.matchDue = { why: "the game time up", reason: "game_time_up" };
  },
  match_won: TotoSettler.prototype.matchEnd,
  match_drawn: TotoSettler.prototype.matchEnd,
  round_revealed: TotoSettler.prototype.revealed,
};

/** Kvitlach: the bank's funding, each hand's immediate end, the showdown, the term's end. */
class KvitlachSettler extends Settler {
  constructor(first, rounds) {
    super(first, rounds);
    const data = first.data;
    this.seats = new Set(Array.isArray(data.seats) ? data.seats : []);
    this.banker = isInt(data.banker) ? data.banker : 0;
    this.previous = null;
  }

  async check(event) {
    if (this.outOfTurn(event)) return STOP;
    const handler = KVITLACH[event.type];
    const stop = handler ? handler.call(this, event) : undefined;
    this.previous = event;
    return stop;
  }

  outOfTurn(event) {
    const r = this.round;
    const seat = seatOf(event.actor);
    if (PLAYER_MOVES.has(event.type)) return r?.phase !== "players" || seat !== r.turn;
    if (BANKER_MOVES.has(event.type)) return r?.phase !== "banker" || seat !== r.banker;
    return false;
  }

  opened(event) {
    super.opened(event);
    const { banker, order, term_round: termRound, seats } = event.data;
    this.banker = banker;
    const players = Array.isArray(order) ? order : [];
    Object.assign(this.round, {
      banker,
      order: players,
      seats,
      termRound,
      bets: new Map(),
      ended: new Map(),
      status: new Map(players.map((s) => [s, "waiting"])),
      counted: new Set(),
      phase: "seeding",
      turn: null,
    });
  }

  /** The turn passes as apply.py's _advanced passes it: to the next waiting player while
   * the bank has uncovered funds, else every waiting player is skipped and the banker plays. */
  advance(bank) {
    const r = this.round;
    const waiting = r.order.filter((s) => r.status.get(s) === "waiting");
    let staked = 0;
    for (const s of r.order) if (["playing", "open"].includes(r.status.get(s))) staked += r.bets.get(s) ?? 0;
    if (waiting.length && bank - staked > 0) {
      Object.assign(r, { phase: "players", turn: waiting[0] });
      r.status.set(waiting[0], "playing");
    } else {
      for (const s of waiting) r.status.set(s, "skipped");
      Object.assign(r, { phase: "banker", turn: r.banker });
    }
  }

  dealtCard(event) {
    this.dealt(event);
    const r = this.round;
    if (!r) return;
    r.counted.add(event.data.seat);
    if (r.phase === "seeding" && r.seats.every((s) => r.counted.has(s))) this.advance(this.balances.bank ?? 0);
  }

  close(seat) {
    const r = this.round;
    if (!r) return;
    r.status.set(seat, r.bets.get(seat) ? "open" : "out");
    this.advance(this.balances.bank ?? 0);
  }

  funded(event) {
    const r = this.round;
    const { bank_funding: funding, ante } = this.options;
    const paid = event.data.paid;
    if (!r || !Array.isArray(paid)) return;
    const transfers = r.termRound === 1 ? [{ from: account(r.banker), to: "bank", amount: funding }] : [];
    if (ante) transfers.push(...paid.map((s) => ({ from: account(s), to: "bank", amount: ante })));
    this.expect(event, { type: "bank_funded", data: { banker: r.banker, paid }, transfers }, `round ${r.id}'s bank`);
  }

  staked(event, member) {
    const amount = event.data[member] ?? 0;
    const seat = seatOf(event.actor);
    if (!this.round || !isInt(amount)) return;
    this.round.bets.set(seat, (this.round.bets.get(seat) ?? 0) + amount);
  }

  burned(event) {
    const hand = this.round?.hands.get(event.data.seat);
    if (hand) this.round.hands.set(event.data.seat, hand.filter((h) => h.position !== event.data.position));
  }

  /** hand_won, hand_lost: a player's hand at exactly 21 or bust ends at once (12.5). */
  resolved(event) {
    const r = this.round;
    const seat = event.data.seat;
    if (!r || !isInt(seat)) return;
    r.status.set(seat, event.type === "hand_won" ? "won" : "lost");
    if (r.turn === seat && r.phase === "players") this.advance(event.data.balances?.bank ?? 0);
    if (!r.deck) return;
    const cards = this.cardsOf(seat);
    const how = kvImmediate(cards);
    const bet = r.bets.get(seat) ?? 0;
    const what = `seat ${seat}'s hand ${cards.join("+")} (best ${kvBest(cards)}, bet ${bet})`;
    r.ended.set(seat, how);
    if (how === null) return this.mismatch(event, `${what} is neither 21 nor bust: it plays on`);
    const won = how !== "bust";
    const transfers = bet ? [won ? { from: "bank", to: account(seat), amount: bet } : { from: account(seat), to: "bank", amount: bet }] : [];
    const data = won ? { seat, bet, reason: how } : { seat, bet };
    this.expect(event, { type: won ? "hand_won" : "hand_lost", data, transfers }, what);
  }

  /** round_settled (12.6): every open bet against the banker's best total. */
  settled(event) {
    const r = this.round;
    if (!r?.deck) return;
    r.settled = true;
    const banker = this.cardsOf(r.banker);
    const total = kvBest(banker);
    const result = kvIsTwentyOne(banker) ? "21" : kvIsBust(banker) ? "bust" : "below";
    const results = [];
    const transfers = [];
    for (const seat of r.order) {
      const bet = r.bets.get(seat) ?? 0;
      if (!bet || r.ended.has(seat)) continue;
      const cards = this.cardsOf(seat);
      if (kvImmediate(cards) !== null) this.mismatch(event, `seat ${seat}'s hand ${cards.join("+")} ended at its last card, not at the showdown`);
      const player = kvBest(cards);
      const wins = result === "bust" || (result === "below" && player > total);
      transfers.push(wins ? { from: "bank", to: account(seat), amount: bet } : { from: account(seat), to: "bank", amount: bet });
      results.push({ seat, bet, total: player, outcome: wins ? "win" : "lose" });
    }
    const data = { banker_total: total, banker_result: result, results };
    const what = `round ${r.id}: the banker (seat ${r.banker}) ${banker.join("+")} = ${total} (${result}); ${results.map((x) => `seat ${x.seat} ${x.total} ${x.outcome}s ${x.bet}`).join(", ") || "no open bet"}`;
    this.expect(event, { type: "round_settled", data, transfers }, what);
    const bank = moved(this.balances, transfers).bank ?? 0;
    const first = this.round.hands.get(r.banker)?.[0]?.card;
    const fourOrSeven = this.options.banker_exit === "mandatory" && r.termRound >= 4 && (first === "4" || first === "7");
    r.termDue = bank === 0 ? "bank_empty" : fourOrSeven ? "four_or_seven" : null;
    this.tell(r, banker, total, result, results);
  }

  tell(r, banker, total, result, results) {
    const told = [{ seat: r.banker, role: "banker", cards: banker, total, result: result === "below" ? `stands at ${total}` : result }];
    for (const seat of r.order) {
      const cards = this.cardsOf(seat);
      const settled = results.find((x) => x.seat === seat);
      const ended = r.ended.get(seat);
      const bet = r.bets.get(seat) ?? 0;
      const outcome = settled
        ? `${settled.outcome === "win" ? "wins" : "loses"} ${bet}`
        : ended
          ? `${ended === "bust" ? "bust, loses" : `${ended}, wins`} ${bet}`
          : "sat the round out";
      told.push({ seat, role: "player", cards, total: cards.length ? kvBest(cards) : null, result: outcome });
    }
    this.told.set(r.id, told);
  }

  /** term_ended (12.7): the bank goes back to the banker; the seat to its right is next. */
  termEnded(event) {
    const r = this.round;
    let reason;
    if (event.round !== null) {
      if (!r?.settled) return;
      r.termLogged = true;
      reason = r.termDue;
      if (reason === null) return this.mismatch(event, `round ${r.id}: no term end is due (bank ${this.balances.bank ?? 0})`);
    } else {
      reason = { banker_exit: "banker_exit", seat_left: "no_players" }[this.previous?.type];
      if (!reason) return;
    }
    const old = this.banker;
    const max = this.options.max_seats;
    const right = [...this.seats].filter((s) => s !== old).sort((a, b) => ((old - a + max) % max) - ((old - b + max) % max));
    const funds = this.balances.bank ?? 0;
    const transfers = funds ? [{ from: "bank", to: account(old), amount: funds }] : [];
    const data = { banker: old, next_banker: right.length ? right[0] : old, reason };
    if (this.expect(event, { type: "term_ended", data, transfers }, `the term of seat ${old}`)) this.banker = data.next_banker;
    else if (isInt(event.data.next_banker)) this.banker = event.data.next_banker;
  }

  revealed(event) {
    const r = this.round;
    if (!r?.deck) return;
    if (r.sealed && !r.voided && !r.settled) this.mismatch(event, `round ${r.id} was dealt and revealed without its showdown`);
    if (r.termDue && !r.termLogged) this.mismatch(event, `round ${r.id}: the term ends (${r.termDue}) and no term_ended says so`);
  }
}

const PLAYER_MOVES = new Set(["bet", "hit", "open_card", "stand", "elvaroon", "reject"]);
const BANKER_MOVES = new Set(["banker_draw", "banker_stop"]);
const KVITLACH = {
  table_state: Settler.prototype.restated,
  seat_joined(event) {
    this.seats.add(seatOf(event.actor));
  },
  seat_left(event) {
    this.seats.delete(seatOf(event.actor));
  },
  round_opened: KvitlachSettler.prototype.opened,
  round_sealed() {
    if (this.round) this.round.sealed = true;
  },
  round_voided() {
    if (this.round) this.round.voided = true;
  },
  bank_funded: KvitlachSettler.prototype.funded,
  card_dealt: KvitlachSettler.prototype.dealtCard,
  card_burned: KvitlachSettler.prototype.burned,
  bet(event) {
    this.staked(event, "amount");
  },
  elvaroon(event) {
    this.staked(event, "raise");
  },
  stand(event) {
    this.close(seatOf(event.actor));
  },
  hand_closed(event) {
    this.close(event.data.seat);
  },
  hand_won: KvitlachSettler.prototype.resolved,
  hand_lost: KvitlachSettler.prototype.resolved,
  round_settled: KvitlachSettler.prototype.settled,
  term_ended: KvitlachSettler.prototype.termEnded,
  round_revealed: KvitlachSettler.prototype.revealed,
};
