// SPEC 2: domain-separation tags, "fairdeal/v<n>/<name>" then one NUL byte.

const encoder = new TextEncoder();
const tag = (text) => encoder.encode(text + "\0");

export const SEED_COMMITMENT = tag("fairdeal/v1/seed-commitment");
export const SHUFFLE_KEY = tag("fairdeal/v1/shuffle-key");
export const STREAM = tag("fairdeal/v1/stream");
export const CARD_SALT = tag("fairdeal/v1/card-salt");
export const CARD_COMMITMENT = tag("fairdeal/v1/card-commitment");
export const EVENT = tag("fairdeal/v1/event");
export const EVENT_SIGNATURE = tag("fairdeal/v1/event-signature");
export const KEY_ID = tag("fairdeal/v1/key-id");
export const TOKEN = tag("fairdeal/v1/token");
export const CLIENT_SEED_COMMITMENT = tag("fairdeal/v2/client-seed-commitment");
export const SEAT_STATEMENT = tag("fairdeal/v2/seat-statement");

export const TAGS = {
  SEED_COMMITMENT,
  SHUFFLE_KEY,
  STREAM,
  CARD_SALT,
  CARD_COMMITMENT,
  EVENT,
  EVENT_SIGNATURE,
  KEY_ID,
  TOKEN,
  CLIENT_SEED_COMMITMENT,
  SEAT_STATEMENT,
};
