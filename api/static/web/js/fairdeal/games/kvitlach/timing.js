// fairdeal/games/kvitlach/timing.py (SPEC 12.9, 6.4): which server timeout is due. The
// rules then check the timeout as any other command (its data name the deadline passed).

import { command } from "../../engine/base.js";
import * as dealing from "../../engine/dealing.js";
import { SEED_TIMEOUT, SERVER } from "../../engine/protocol.js";
import { BANKER, PLAYERS, inRound } from "./state.js";

/** The seed timeout or the move timeout whose deadline has passed, if any (else null). */
export function due(state, now) {
  if (!inRound(state) || state.play === null) return null;
  const current = state.round;
  const play = state.play;
  if (!current.sealed && current.seed_deadline !== null && now >= current.seed_deadline) {
    const data = { deadline: current.seed_deadline, seats: dealing.missingSeeds(current) };
    return command({ type: SEED_TIMEOUT, actor: SERVER, time: now, data, round: current.round_id });
  }
  if ((play.phase === PLAYERS || play.phase === BANKER) && play.deadline !== null && now >= play.deadline) {
    const data = { seat: play.turn, deadline: play.deadline };
    return command({ type: "move_timeout", actor: SERVER, time: now, data, round: current.round_id });
  }
  return null;
}
