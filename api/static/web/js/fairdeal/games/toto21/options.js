// fairdeal/games/toto21/options.py (SPEC 11.1): the match conditions the creator sets and
// the joiner accepts. Every option but `dealing` is an integer with a range; a missing one
// takes its default. The full form (all five, sorted by name, and `dealing` at a
// dealer-blind table only, SPEC 15.13.1) is what table_created logs.

import { unknownOptions } from "../../engine/base.js";
import { OptionsError } from "../../engine/errors.js";
import { BLIND_DEALING, DEALING } from "../../engine/protocol.js";
import { get, isDict, isExactInt } from "../../engine/pytypes.js";

export const NAME = "toto21";
export const TARGETS = [2, 4, 6, 8, 10];
export const DEFAULT_TARGET = 4;
// name: [lowest, highest, default]
export const RANGES = {
  game_time_ms: [60_000, 86_400_000, 1_800_000],
  move_time_ms: [5_000, 600_000, 30_000],
  seed_time_ms: [1_000, 600_000, 30_000],
  stake: [0, 10 ** 12, 0],
};
export const COMMITTED_DEALING = "committed";
export const DEALINGS = [COMMITTED_DEALING, BLIND_DEALING];
// At a dealer-blind table seed_time_ms is also each automatic step's time (a shuffle step
// takes a browser party 1-2 s): SPEC 15.13.1's floor
export const BLIND_SEED_TIME_MS = 10_000;

export class Options {
  constructor({ target, move_time_ms, game_time_ms, stake, seed_time_ms, dealing = COMMITTED_DEALING }) {
    Object.assign(this, { target, move_time_ms, game_time_ms, stake, seed_time_ms, dealing });
  }

  /** A dealer-blind table (SPEC 15.13). */
  get blind() {
    return this.dealing === BLIND_DEALING;
  }

  /** The full form, sorted by name: `dealing` only when blind, so every committed table's
   * options keep the form they were logged in (SPEC 15.13.1). */
  toJson() {
    const { dealing, game_time_ms, move_time_ms, seed_time_ms, stake, target } = this;
    const values = { game_time_ms, move_time_ms, seed_time_ms, stake, target };
    return this.blind ? { dealing, ...values } : values;
  }
}

/** The options with defaults filled in; OptionsError for anything out of range. */
export function parse(raw) {
  if (!isDict(raw)) throw new OptionsError("toto21 options are an object");
  const known = (name) => Object.hasOwn(RANGES, name) || name === "target" || name === DEALING;
  const unknown = Object.keys(raw).filter((name) => !known(name));
  if (unknown.length) throw unknownOptions("Toto21", unknown, [...Object.keys(RANGES), "target", DEALING]);
  const target = integer(raw, "target", DEFAULT_TARGET);
  if (!TARGETS.includes(target)) throw new OptionsError(`target must be one of ${TARGETS.join(", ")}`);
  const dealing = get(raw, DEALING, COMMITTED_DEALING);
  if (typeof dealing !== "string" || !DEALINGS.includes(dealing)) {
    throw new OptionsError(`dealing must be one of ${DEALINGS.join(", ")}`);
  }
  const ranges = Object.fromEntries(Object.entries(RANGES).map(([name, limits]) => [name, ranged(raw, name, ...limits)]));
  if (dealing === BLIND_DEALING && ranges.seed_time_ms < BLIND_SEED_TIME_MS) {
    throw new OptionsError(`seed_time_ms is at least ${BLIND_SEED_TIME_MS} at a blind table`);
  }
  return new Options({ target, dealing, ...ranges });
}

function integer(raw, name, fallback) {
  const value = get(raw, name, fallback);
  if (!isExactInt(value)) throw new OptionsError(`${name} must be an integer`); // bool and float too
  return value;
}

function ranged(raw, name, lowest, highest, fallback) {
  const value = integer(raw, name, fallback);
  if (!(lowest <= value && value <= highest)) throw new OptionsError(`${name} must be in ${lowest}..${highest}`);
  return value;
}
