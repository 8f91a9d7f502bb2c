// fairdeal/games/toto21/options.py (SPEC 11.1): the match conditions the creator sets and
// the joiner accepts. Every option is an integer with a range; a missing one takes its
// default. The full form (all five, sorted by name) is what table_created logs.

import { unknownOptions } from "../../engine/base.js";
import { OptionsError } from "../../engine/errors.js";
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

export class Options {
  constructor({ target, move_time_ms, game_time_ms, stake, seed_time_ms }) {
    Object.assign(this, { target, move_time_ms, game_time_ms, stake, seed_time_ms });
  }

  /** The options as table_created logs them: sorted by name. */
  toJson() {
    const { game_time_ms, move_time_ms, seed_time_ms, stake, target } = this;
    return { game_time_ms, move_time_ms, seed_time_ms, stake, target };
  }
}

/** The options with defaults filled in; OptionsError for anything out of range. */
export function parse(raw) {
  if (!isDict(raw)) throw new OptionsError("toto21 options are an object");
  const unknown = Object.keys(raw).filter((name) => !Object.hasOwn(RANGES, name) && name !== "target");
  if (unknown.length) throw unknownOptions("Toto21", unknown, [...Object.keys(RANGES), "target"]);
  const target = integer(raw, "target", DEFAULT_TARGET);
  if (!TARGETS.includes(target)) throw new OptionsError(`target must be one of ${TARGETS.join(", ")}`);
  const ranges = Object.entries(RANGES).map(([name, limits]) => [name, ranged(raw, name, ...limits)]);
  return new Options({ target, ...Object.fromEntries(ranges) });
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
