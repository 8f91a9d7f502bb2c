// SPEC 6.7 for a page following a table's chain live: every keyed seat's statement checked
// on each event as it arrives, as the replay checks it (statements.js's admit), not only
// the page's own seat's, so that a move the operator logged for another seat without that
// seat's signature stops play at once. Also every table_state's seat_keys against the keys
// the chain bound (a lie there is the replay's rules.state).

import { canonical } from "./canonical.js";
import { commandOf } from "./engine/base.js";
import { GameError } from "./engine/errors.js";
import { SERVER, TABLE_STATE } from "./engine/protocol.js";
import { refusalCode } from "./engine/rules.js";
import { NO_KEYS, NOTHING_SEEN, SIGNED, admit, after, asSent, toJson } from "./engine/statements.js";
import { FairdealError } from "./errors.js";

/** One table's seats as its chain binds them, followed from seq 0, event by event. */
export class SeatStatements {
  constructor(tableId) {
    this.tableId = tableId;
    this.keys = NO_KEYS; // seat -> {key, n}
    this.seen = NOTHING_SEEN; // the events a statement may name
  }

  /** Check ``event`` (of hex hash ``hash``), the next of the chain, then follow it. Throws a
   * FairdealError whose code is the verifier's finding code (sig.seat_bad, …), naming the
   * seat and the event's seq. */
  async follow(event, hash) {
    if (event.version >= SIGNED) {
      if (event.type === TABLE_STATE) this.checkState(event);
      else if (event.actor !== SERVER) await this.checkStatement(event);
      this.seen = this.seen.then(event, hash);
    }
  }

  async checkStatement(event) {
    try {
      await admit(event.version, this.keys, this.seen, this.tableId, asSent(commandOf(event)));
    } catch (e) {
      if (!(e instanceof GameError)) throw e;
      const code = refusalCode(event, e);
      throw new FairdealError(code, `${event.actor}'s ${event.type}, which the operator logged: ${e.message}`);
    }
    this.keys = after(this.keys, [event]);
  }

  checkState(event) {
    if (canonical(event.data.seat_keys ?? null) !== canonical(toJson(this.keys))) {
      throw new FairdealError("rules.state", `the table_state at seq ${event.seq} states seat keys the chain did not bind`);
    }
  }
}
