// fairdeal/cards.py: the decks, by the stable card codes the log uses (SPEC 4).
// Exports: TOTO21_RANKS, TOTO21_SUITS, KVITLACH_NUMBERS, KVITLACH_COPIES_PER_DECK,
// toto21Deck, kvitlachDeck, canonicalDeck, addDecks, removeDeck.
//
// Apart from the games because the verifier's own shuffle check (SPEC 7 step 8, through
// ../randomness.js) reads them too; registering a game adds its decks here.

export const TOTO21_RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const TOTO21_SUITS = ["C", "D", "H", "S"];

export const KVITLACH_NUMBERS = Array.from({ length: 12 }, (_, i) => i + 1);
export const KVITLACH_COPIES_PER_DECK = 2;

/** The 36-card Toto21 deck: suits C, D, H, S, each with ranks 6..10, J, Q, K, A. */
export function toto21Deck() {
  return TOTO21_SUITS.flatMap((suit) => TOTO21_RANKS.map((rank) => rank + suit));
}

/** One deck is 24 cards (two of each 1..12); two decks are 48, the first deck first. */
export function kvitlachDeck(decks) {
  if (decks !== 1 && decks !== 2) throw new RangeError("Kvitlach is played with 1 or 2 decks");
  const one = Array.from({ length: KVITLACH_COPIES_PER_DECK }, () => KVITLACH_NUMBERS.map(String)).flat();
  return Array.from({ length: decks }, () => one).flat();
}

// A deck's key: Python's (game, decks), where True is 1.
const keyOf = (game, decks) => JSON.stringify([game, typeof decks === "boolean" ? Number(decks) : decks]);

// Every deck there is (SPEC 4), by game name and number of decks.
const BUILT_IN = new Map([
  [keyOf("toto21", 1), Object.freeze(toto21Deck())],
  [keyOf("kvitlach", 1), Object.freeze(kvitlachDeck(1))],
  [keyOf("kvitlach", 2), Object.freeze(kvitlachDeck(2))],
]);
const DECKS = new Map(BUILT_IN);

/** The unshuffled deck a game's rules name; RangeError (Python's ValueError) for none. */
export function canonicalDeck(game, decks) {
  const order = DECKS.get(keyOf(game, decks));
  if (order === undefined) throw new RangeError(`no deck for game ${JSON.stringify(game)} with ${decks} deck(s)`);
  return order;
}

/** Make a registered game's decks known (`orders`: a Map of decks to order); a deck
 * already known must be given in the same order, else none is added. */
export function addDecks(game, orders) {
  for (const [decks, order] of orders) {
    const known = DECKS.get(keyOf(game, decks));
    if (known !== undefined && (known.length !== order.length || known.some((card, i) => card !== order[i]))) {
      throw new RangeError(`the deck (${JSON.stringify(game)}, ${decks}) is already known, in another order`);
    }
  }
  for (const [decks, order] of orders) DECKS.set(keyOf(game, decks), Object.freeze([...order]));
}

/** Forget a deck addDecks added; the built-in ones stay. */
export function removeDeck(game, decks) {
  if (!BUILT_IN.has(keyOf(game, decks))) DECKS.delete(keyOf(game, decks));
}
