// fairdeal/games/kvitlach/__init__.py (SPEC 12): Kvitlach, a banker against the table,
// cards 1-12, 21 or as near as possible. Two rule sets (classic, pressburg) and table
// options. ``GAME`` is the plug-in the table engine drives; the hand totals (hands.js) are
// the pages' too.

import { plugin } from "../../engine/base.js";
import { kvitlachDeck } from "../../engine/cards.js";
import { apply } from "./apply.js";
import { decide } from "./decide.js";
import { NAME, parse } from "./options.js";
import { restore, snapshot } from "./rest.js";
import { makeState } from "./state.js";
import { due } from "./timing.js";
import { tell } from "./tell.js";
import { legalActions, viewFor } from "./views.js";

export const GAME = plugin({
  name: NAME,
  decks: new Map([1, 2].map((decks) => [decks, kvitlachDeck(decks)])),
  parse,
  start: (options) => makeState({ options }),
  step: decide,
  apply,
  legalActions,
  viewFor,
  due,
  snapshot,
  restore,
  tell,
});

