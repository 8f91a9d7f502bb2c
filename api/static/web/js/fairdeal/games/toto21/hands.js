// fairdeal/games/toto21/hands.py (SPEC 11.2; 11.4 steps 4 and 8): what a Toto21 hand is
// worth and who wins a round, from card codes alone. Values: 6-10 their face, J=2, Q=3,
// K=4, A=11 or 1 (each ace 11 unless that busts the hand). Over 21 loses; a tie goes to
// the dealer. The one home of these rules in the browser (the play page's totals too).

export const LIMIT = 21;
const VALUES = new Map([
  ["J", 2],
  ["Q", 3],
  ["K", 4],
  ["A", 11],
]);
export const ACE_DROP = 10; // an ace counted 1 rather than 11

/** A round's result: the winning seat (null when both are over 21) and why. */
const outcome = (winner, reason) => ({ winner, reason });

export function rank(card) {
  return card.slice(0, -1);
}

/** A card's count: 6-10 their face, J=2, Q=3, K=4, A=11 (an ace may drop to 1 in a hand). */
export function value(card) {
  const face = rank(card);
  const named = VALUES.get(face);
  if (named !== undefined) return named;
  if (!/^[0-9]+$/.test(face)) throw new TypeError(`a card's rank is a number or J, Q, K, A: ${face}`);
  return Number(face);
}

/** Best total: each ace counts 11 unless that busts the hand, then 1. */
export function total(hand) {
  let best = 0;
  let aces = 0;
  for (const card of hand) {
    best += value(card);
    if (rank(card) === "A") aces += 1;
  }
  while (best > LIMIT && aces) {
    best -= ACE_DROP;
    aces -= 1;
  }
  return best;
}

/** The play page's name for ``total``. */
export { total as totoTotal };

/** A participant may take another card while the cards they can see total below 21. */
export function mayDraw(visible) {
  return total(visible) < LIMIT;
}

export function twoAces(firstTwo) {
  return firstTwo.length === 2 && firstTwo.every((card) => rank(card) === "A");
}

/** The player's two aces win at once, unless the dealer's first two are aces too. */
export function goldenPoint(player, dealer, playerTwo, dealerTwo) {
  if (!twoAces(playerTwo)) return null;
  if (twoAces(dealerTwo)) return outcome(dealer, "dealer_two_aces");
  return outcome(player, "golden_point");
}

/** Higher total not over 21 wins; over 21 loses; a tie goes to the dealer. */
export function showdown(player, dealer, playerCards, dealerCards) {
  const mine = total(playerCards);
  const theirs = total(dealerCards);
  if (mine > LIMIT && theirs > LIMIT) return outcome(null, "both_over_21");
  if (mine > LIMIT) return outcome(dealer, "player_over_21");
  if (theirs > LIMIT) return outcome(player, "dealer_over_21");
  if (mine === theirs) return outcome(dealer, "tie");
  return outcome(mine > theirs ? player : dealer, "higher_total");
}
