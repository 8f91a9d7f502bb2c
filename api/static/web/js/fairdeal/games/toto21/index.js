// fairdeal/games/toto21/__init__.py (SPEC 11): Toto21, two seats, a 36-card deck, a dealer
// chosen each round by the shuffle key. ``GAME`` is the plug-in object the table engine
// drives.

import { plugin } from "../../engine/base.js";
import { toto21Deck } from "../../engine/cards.js";
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
  decks: new Map([[1, toto21Deck()]]),
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
