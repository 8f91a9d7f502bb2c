// The service's HTTP API as the play page calls it: JSON in, JSON out, one error shape.

/** The service's error body, with the HTTP status: ``code`` is its stable error code. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(`${status} ${code}: ${message}`);
    this.name = "ApiError";
    Object.assign(this, { status, code, details });
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
