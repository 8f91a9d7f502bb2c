// fairdeal/games/kvitlach/hands.py (SPEC 12.4): what a list of Kvitlach card codes is worth.
// A 12 counts 12, 10 or 9, as its holder likes; every other card counts its number. The
// rules always take the holder's best value, so service, verifier and page agree unasked.

export const TWENTY_ONE = 21;
export const ELVAROON_TOTAL = 11;
export const TWELVE_VALUES = [12, 10, 9];
export const FRAMED = new Set([2, 11]);

export function number(card) {
  return Number(card);
}

export function isFramed(card) {
  return FRAMED.has(number(card));
}

/** Every total the hand can count, one for each way of valuing its 12s, ascending (the
 * Python's frozenset, in an order a page can show). */
export function totals(hand) {
  let sums = [0];
  for (const card of hand) {
    const values = card === "12" ? TWELVE_VALUES : [number(card)];
    sums = [...new Set(sums.flatMap((sum) => values.map((value) => sum + value)))];
  }
  return sums.sort((a, b) => a - b);
}

/** Over 21 even with every 12 at its lowest (9). */
export function isBust(hand) {
  return totals(hand)[0] > TWENTY_ONE;
}

/** The highest total not over 21; a bust hand's lowest total. */
export function best(hand) {
  const all = totals(hand);
  const fitting = all.filter((total) => total <= TWENTY_ONE);
  return fitting.length ? fitting.at(-1) : all[0];
}

/** Two framed cards (2 or 11) as the first two cards: an automatic 21. */
export function isFramedPair(hand) {
  return hand.length === 2 && hand.every(isFramed);
}

/** Exactly 21 by any valuation (12+12, 12+9, 12+11 among them) or a framed pair. */
export function isTwentyOne(hand) {
  return totals(hand).includes(TWENTY_ONE) || isFramedPair(hand);
}

/** How an immediate win was made, as logged: "21" or "framed". */
export function winReason(hand) {
  return totals(hand).includes(TWENTY_ONE) ? "21" : "framed";
}

export function canCallElvaroon(hand) {
  return totals(hand).includes(ELVAROON_TOTAL);
}
