// The story of a Kvitlach round (SPEC 12.3-12.6) for a person: the banker's hand and each
// player's beside its cards (a burned card taken out), the best total the rules give it
// (hands.js) and what it won, read from the round's events once the replay has checked them.

import { best } from "./hands.js";

const seatOf = (actor) => Number(actor.slice("seat:".length));

/** ``round``: {id, dealt: [{position, seat, face, card}], events}. The banker's hand, then
 * each player's in order, as {seat, role, cards, total, result}; none for a round not dealt. */
export function tell(round) {
  const opened = round.events.find((e) => e.type === "round_opened");
  const settled = round.events.find((e) => e.type === "round_settled");
  if (!opened || !round.dealt.length) return [];
  const { banker, order } = opened.data;
  const burned = new Set(round.events.filter((e) => e.type === "card_burned").map((e) => e.data.position));
  const cardsOf = (seat) => round.dealt.filter((d) => d.seat === seat && !burned.has(d.position)).map((d) => d.card);
  const bankerCards = cardsOf(banker);
  const told = [{ seat: banker, role: "banker", cards: bankerCards, total: best(bankerCards), result: bankerResult(settled) }];
  for (const seat of order) {
    const cards = cardsOf(seat);
    told.push({ seat, role: "player", cards, total: cards.length ? best(cards) : null, result: playerResult(round, seat, settled) });
  }
  return told;
}

function bankerResult(settled) {
  if (!settled) return "did not play";
  const { banker_result: result, banker_total: total } = settled.data;
  return result === "below" ? `stands at ${total}` : result;
}

/** What a player's bet came to: at the showdown, or at once (21, framed, bust). */
function playerResult(round, seat, settled) {
  const bet = round.events
    .filter((e) => (e.type === "bet" || e.type === "elvaroon") && seatOf(e.actor) === seat)
    .reduce((sum, e) => sum + (e.data.amount ?? e.data.raise ?? 0), 0);
  const ended = round.events.find((e) => (e.type === "hand_won" || e.type === "hand_lost") && e.data.seat === seat);
  if (ended) return ended.type === "hand_lost" ? `bust, loses ${bet}` : `${ended.data.reason}, wins ${bet}`;
  const result = settled?.data.results.find((r) => r.seat === seat);
  if (result) return `${result.outcome === "win" ? "wins" : "loses"} ${result.bet}`;
  return "sat the round out";
}
