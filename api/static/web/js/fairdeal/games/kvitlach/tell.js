// The story of a Kvitlach round (SPEC 12.3-12.6) for a person: the banker's hand and each
// player's beside its cards (a burned card taken out), the best total the rules give it
// (hands.js) and what its bet came to; apart from that (``besides``), the money the seat
// moved that no hand decided: the banker's funding of the bank, a player's ante, the bank
// going back to the banker at the term's end. Read from the round's events once the replay
// has checked them.

import { best } from "./hands.js";

const seatOf = (account) => Number(account.slice("seat:".length));

/** ``round``: {id, dealt: [{position, seat, face, card}], events}. The banker's hand, then
 * each player's in order, as {seat, role, cards, total, result, besides}; none for a round
 * not dealt. */
export function tell(round) {
  const opened = round.events.find((e) => e.type === "round_opened");
  const settled = round.events.find((e) => e.type === "round_settled");
  if (!opened || !round.dealt.length) return [];
  const { banker, order } = opened.data;
  const burned = new Set(round.events.filter((e) => e.type === "card_burned").map((e) => e.data.position));
  const cardsOf = (seat) => round.dealt.filter((d) => d.seat === seat && !burned.has(d.position)).map((d) => d.card);
  const besides = besidesOf(round.events, banker);
  const outcomes = new Map(order.map((seat) => [seat, outcomeOf(round, seat, settled)]));
  const bankerCards = cardsOf(banker);
  const told = [{ seat: banker, role: "banker", cards: bankerCards, total: best(bankerCards), result: bankerResult(settled, [...outcomes.values()]), besides: besides(banker) }];
  for (const seat of order) {
    const cards = cardsOf(seat);
    told.push({ seat, role: "player", cards, total: cards.length ? best(cards) : null, result: playerResult(outcomes.get(seat)), besides: besides(seat) });
  }
  return told;
}

/** The banker's hand, and the bank's side of the bets: what the losing hands paid it, less
 * what it paid the winners. */
function bankerResult(settled, outcomes) {
  if (!settled) return "did not play";
  const { banker_result: result, banker_total: total } = settled.data;
  const hand = result === "below" ? `stands at ${total}` : result;
  const bets = outcomes.filter(Boolean);
  if (!bets.length) return hand;
  const net = bets.reduce((sum, o) => sum + (o.won ? -o.bet : o.bet), 0);
  if (net === 0) return `${hand}, the bank comes out even`;
  return `${hand}, the bank ${net > 0 ? "takes" : "pays"} ${Math.abs(net)}`;
}

/** What a player's bet came to, at the showdown or at once (21, framed, bust): {won, bet,
 * why}, or null for a seat that sat the round out. */
function outcomeOf(round, seat, settled) {
  const ended = round.events.find((e) => (e.type === "hand_won" || e.type === "hand_lost") && e.data.seat === seat);
  if (ended) return { won: ended.type === "hand_won", bet: ended.data.bet, why: ended.type === "hand_won" ? ended.data.reason : "bust" };
  const result = settled?.data.results.find((r) => r.seat === seat);
  return result ? { won: result.outcome === "win", bet: result.bet, why: null } : null;
}

function playerResult(outcome) {
  if (!outcome) return "sat the round out";
  const said = `${outcome.won ? "wins" : "loses"} its bet of ${outcome.bet}`;
  return outcome.why ? `${outcome.why}, ${said}` : said;
}

/** Each seat's money moves that are no hand's result, as phrases: the bank's funding and the
 * antes (``bank_funded``), the bank back to the banker (``term_ended``). */
function besidesOf(events, banker) {
  const said = new Map();
  const add = (seat, phrase) => said.set(seat, [...(said.get(seat) ?? []), phrase]);
  for (const e of events) {
    for (const t of e.data.transfers ?? []) {
      if (e.type === "bank_funded" && t.to === "bank") {
        const seat = seatOf(t.from);
        add(seat, seat === banker ? `funded the bank with ${t.amount}` : `paid an ante of ${t.amount}`);
      } else if (e.type === "term_ended" && t.from === "bank") {
        add(seatOf(t.to), `took back the bank's ${t.amount} as the term ended`);
      }
    }
  }
  return (seat) => said.get(seat) ?? [];
}
