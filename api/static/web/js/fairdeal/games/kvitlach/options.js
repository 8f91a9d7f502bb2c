// fairdeal/games/kvitlach/options.py (SPEC 12.1): a Kvitlach table's options, validated,
// with every default filled in. The filled options are what table_created logs, so
// parse(parse(x).toJson()) equals parse(x). Defaults that differ by rule set follow it.

import { unknownOptions } from "../../engine/base.js";
import { canonicalDeck } from "../../engine/cards.js";
import { OptionsError } from "../../engine/errors.js";
import { floorDiv, get, isExactInt } from "../../engine/pytypes.js";

export const NAME = "kvitlach";
export const CLASSIC = "classic";
export const PRESSBURG = "pressburg";
export const MAX_AMOUNT = 10 ** 12;
// Seats (banker included) per number of decks: enough cards that running out is rare.
export const SEAT_LIMITS = new Map([
  [1, 4],
  [2, 7],
]);
export const MIN_TIME_MS = 1_000;
export const MAX_TIME_MS = 3_600_000;
export const DEFAULT_TIME_MS = 30_000;

const CHOICES = {
  rule_set: [CLASSIC, PRESSBURG],
  banker_must_draw: ["none", "15", "16"],
  banker_exit: ["mandatory", "optional", "off"],
  order: ["left", "alternate"],
};
const RULE_SET_DEFAULTS = {
  [CLASSIC]: { banker_must_draw: "16", banker_exit: "mandatory", order: "left" },
  [PRESSBURG]: { banker_must_draw: "none", banker_exit: "optional", order: "alternate" },
};

// The Options fields, in their order (what table_created logs, by name).
export const KEYS = [
  "rule_set",
  "decks",
  "bank_funding",
  "ante",
  "max_bet",
  "banker_must_draw",
  "banker_exit",
  "order",
  "max_seats",
  "seed_time_ms",
  "move_time_ms",
];

/** A table's options in full, by their Python field names (``toJson`` is what
 * table_created logs). */
export class Options {
  constructor(fields) {
    for (const key of KEYS) this[key] = fields[key];
    Object.freeze(this);
  }

  toJson() {
    return Object.fromEntries(KEYS.map((key) => [key, this[key]]));
  }
}

/** The full options of a table, or OptionsError naming the first bad one. */
export function parse(raw) {
  const unknown = Object.keys(raw).filter((key) => !KEYS.includes(key));
  if (unknown.length) throw unknownOptions("Kvitlach", unknown, KEYS);
  const ruleSet = choice(raw, "rule_set", CLASSIC);
  const decks = integer(raw, "decks", 1, 2, 1);
  const funding = integer(raw, "bank_funding", 2, MAX_AMOUNT, 100);
  if (funding % 2) throw new OptionsError("bank_funding must be even (the others put in half of it)");
  const full = { rule_set: ruleSet, decks, bank_funding: funding };
  full.ante = integer(raw, "ante", 0, MAX_AMOUNT, floorDiv(funding, 2));
  full.max_bet = integer(raw, "max_bet", 1, funding, floorDiv(funding, 2));
  for (const [key, fallback] of Object.entries(RULE_SET_DEFAULTS[ruleSet])) full[key] = choice(raw, key, fallback);
  const seats = SEAT_LIMITS.get(decks);
  full.max_seats = integer(raw, "max_seats", 2, seats, seats);
  for (const key of ["seed_time_ms", "move_time_ms"]) {
    full[key] = integer(raw, key, MIN_TIME_MS, MAX_TIME_MS, DEFAULT_TIME_MS);
  }
  return new Options(full);
}

export function canonicalOrder(options) {
  return canonicalDeck(NAME, options.decks);
}

function integer(raw, key, low, high, fallback) {
  const value = get(raw, key, fallback);
  if (!isExactInt(value) || !(low <= value && value <= high)) {
    throw new OptionsError(`${key} must be an integer from ${low} to ${high}`);
  }
  return value;
}

function choice(raw, key, fallback) {
  const value = get(raw, key, fallback);
  if (typeof value !== "string" || !CHOICES[key].includes(value)) {
    throw new OptionsError(`${key} must be one of ${CHOICES[key].join(", ")}`);
  }
  return value;
}
