// The service's HTTP API as the play page calls it: JSON in, JSON out, one error shape.

// The service's error codes (api/service/errors.py, and the games' refusals) in words for a player.
// Where the server's own message says what to change (which setting, which amount), it
// follows the words.
const PLAIN = {
  not_found: "No such table here: check the table id or the invite link.",
  token_missing: "This page holds no seat at this table, so it cannot move for one.",
  token_invalid: "This seat's pass to the table no longer works: the seat has left the table, or was turned away.",
  operator_only: "Only the table service's operator may do that.",
  rate_limited: "Too many requests from this browser just now: wait a few seconds, then try again.",
  over_limit: "That amount is more than allowed here",
  illegal_action: "The rules do not allow that move now.",
  out_of_turn: "It is not your turn yet.",
  not_due: "It is too early for that: its deadline has not passed.",
  round_sealed: "Too late: this round's seeds are already sealed.",
  round_not_current: "That round is over: the table has moved on. The page shows the table as it is now.",
  round_not_finished: "That round is not over yet.",
  table_full: "This table is full: no seat is free. You can watch it.",
  conflict: "The table changed meanwhile: look again, then try again.",
  idempotency_key_reused: "This request was already sent with other contents: try again.",
  invalid_options: "These settings are not accepted",
  invalid_input: "Something given is not accepted",
  bad_request: "The server could not take this request",
  malformed_json: "The server could not read this request.",
  request_too_large: "This request is too large for the server.",
  invalid_seed: "The server refused this seat's seed.",
  commitment_mismatch: "The server refused this seat's seed: it does not match its commitment.",
  signature_missing: "The server wants this seat's signature on the move and got none.",
  signature_invalid: "The server found this seat's signature on the move wrong.",
  signature_unexpected: "The server takes no signature from this seat.",
  signature_replayed: "This move was signed before: look again, then try again.",
  signature_stale: "The table moved on while this move was signed: look again, then try again.",
  database_unavailable: "The server is busy for a moment: try again in a few seconds.",
  not_ready: "The server is starting: try again in a few seconds.",
  unreadable_answer: "The server's answer could not be read: try again.",
};
// The codes whose plain words end with the server's message (what to change).
const WITH_MESSAGE = new Set(["over_limit", "invalid_options", "invalid_input", "bad_request"]);

/** ``code`` (and the server's ``message``) as a sentence for the player. */
export function plainWords(status, code, message = "") {
  const said = message.trim().replace(/[.\s]+$/, "");
  const words = PLAIN[code];
  if (words && WITH_MESSAGE.has(code)) return said ? `${words}: ${said}.` : `${words}.`;
  if (words) return words;
  if (said) return `The server refused this: ${said}.`;
  return status >= 500 ? "The server could not do this just now: try again in a few seconds." : "The server refused this.";
}

/** The service's error body, with the HTTP status: ``code`` is its stable error code (and
 * ``status`` the HTTP status), ``serverMessage`` its message as sent; ``message`` says it in
 * plain words for the player. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(plainWords(status, code, message));
    this.name = "ApiError";
    Object.assign(this, { status, code, details, serverMessage: message });
  }
}

/** The server's clock minus this browser's, in ms, from the last answer's Date header. */
export let clockSkewMs = 0;

/** ``method path`` with a JSON ``body`` (if any) and a seat's bearer ``token`` (if any). */
export async function api(method, path, { body, token, idempotencyKey } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
  const sentAt = Date.now();
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    cache: "no-store",
    credentials: "omit",
  });
  const date = Date.parse(response.headers.get("Date") ?? "");
  if (!Number.isNaN(date)) clockSkewMs = date + 500 - (sentAt + Date.now()) / 2;
  let answer = null;
  try {
    answer = await response.json();
  } catch {
    throw new ApiError(response.status, "unreadable_answer", "the answer is not JSON");
  }
  if (!response.ok) {
    const error = answer?.error ?? {};
    throw new ApiError(response.status, error.code ?? "error", error.message ?? "", error.details);
  }
  return answer;
}

/** A fresh Idempotency-Key: a command sent again after a lost answer is applied once. */
export function newIdempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
