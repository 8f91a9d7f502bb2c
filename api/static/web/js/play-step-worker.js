// A dealer-blind seat's shuffle step (SPEC 15.13.5), made off the page's thread: its proof
// takes seconds on a slow machine, during which the page stays responsive and checks the
// chain (play-blind.js). The task holds no secret: the deck, the joint key, the context.

import { makeStep } from "/static/web/js/fairdeal/games/toto21/party.js";

self.onmessage = ({ data }) => {
  try {
    self.postMessage({ made: makeStep(data) });
  } catch (e) {
    self.postMessage({ error: String(e?.message ?? e) });
  }
};
