// The story of a Toto21 round (SPEC 11.4) for a person: each hand beside its cards, the total
// the rules give it (hands.js) and what it won, read from the round's events once the replay
// has checked them (explain.js shows it as proven only under a valid verdict).

import { total } from "./hands.js";

/** ``round``: {id, dealt: [{position, seat, face, card}], events}. Each seat's hand as
 * {seat, role, cards, total, result}, or none for a round not dealt. */
export function tell(round) {
  const chosen = round.events.find((e) => e.type === "dealer_chosen");
  const outcome = round.events.find((e) => e.type === "round_won" || e.type === "round_double_bust");
  if (!chosen || !outcome) return [];
  const { dealer } = chosen.data;
  return [0, 1].map((seat) => {
    const cards = round.dealt.filter((d) => d.seat === seat).map((d) => d.card);
    return { seat, role: seat === dealer ? "dealer" : "player", cards, total: total(cards), result: resultOf(seat, outcome) };
  });
}

function resultOf(seat, outcome) {
  if (outcome.type === "round_double_bust") return "over 21: nobody scores";
  const { seat: winner, points, reason } = outcome.data;
  return seat === winner ? `wins ${points} (${reason.replaceAll("_", " ")})` : "loses";
}
