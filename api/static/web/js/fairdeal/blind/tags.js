// SPEC 15.1, 15.11.1 and 15.12: the version-3 tags, "fairdeal/v3/<name>" then one NUL byte (SPEC 2's rule).

import { utf8 } from "../bytes.js";

const tag = (text) => utf8(text + "\0");

export const CARD_POINT = tag("fairdeal/v3/card-point");
export const ROUND_KEY = tag("fairdeal/v3/round-key");
export const KEY_PROOF = tag("fairdeal/v3/key-proof");
export const SHARE_PROOF = tag("fairdeal/v3/share-proof");
// A round's proof contexts, the service's proof nonces and its step key (SPEC 15.12.1–15.12.3).
export const PROOF_CONTEXT = tag("fairdeal/v3/proof-context");
export const SERVER_NONCE = tag("fairdeal/v3/server-nonce");
export const SERVER_STEP = tag("fairdeal/v3/server-step");


// The shuffle proof's tags (SPEC 15.11.1).
export const SHUFFLE_GENERATOR = tag("fairdeal/v3/shuffle-generator");
export const SHUFFLE_STATEMENT = tag("fairdeal/v3/shuffle-statement");
export const SHUFFLE_U_SEED = tag("fairdeal/v3/shuffle-u-seed");
export const SHUFFLE_U = tag("fairdeal/v3/shuffle-u");
export const SHUFFLE_CHALLENGE = tag("fairdeal/v3/shuffle-challenge");

export const BLIND_TAGS = {
  CARD_POINT,
  ROUND_KEY,
  KEY_PROOF,
  SHARE_PROOF,
  PROOF_CONTEXT,
  SERVER_NONCE,
  SERVER_STEP,
  SHUFFLE_GENERATOR,
  SHUFFLE_STATEMENT,
  SHUFFLE_U_SEED,
  SHUFFLE_U,
  SHUFFLE_CHALLENGE,
};
