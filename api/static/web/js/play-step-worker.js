// A dealer-blind seat's shuffle step (SPEC 15.13.5), made off the page's thread: its proof
// takes seconds on a slow machine, during which the page stays responsive and checks the
// chain (play-blind.js). The task holds no secret: the deck, the joint key, the context.

import { makeStep } from "/static/web/js/fairdeal/games/toto21/party.js";

self.onmessage = ({ data: { id, task } }) => {
  try {
    self.postMessage({ id, made: makeStep(task) });
  } catch (e) {
    self.postMessage({ id, error: String(e?.message ?? e) });
  }
};
