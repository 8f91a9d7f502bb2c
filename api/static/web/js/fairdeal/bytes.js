// Bytes and their text forms: lowercase hex (SPEC 1), canonical base64, UTF-8.
// Strict readers: what they accept is exactly what the log writes.

const HEX = /^(?:[0-9a-f]{2})*$/;
const HEX_DIGITS = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** Lowercase hex of an even length to bytes; TypeError for anything else. */
export function hexToBytes(hex) {
  if (typeof hex !== "string" || !HEX.test(hex)) {
    throw new TypeError("not lowercase hex of whole bytes");
  }
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

export function bytesToHex(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX_DIGITS[bytes[i]];
  return out;
}

/** True when ``text`` is exactly ``digits`` lowercase hex digits. */
export function isHex(text, digits) {
  return typeof text === "string" && text.length === digits && HEX.test(text);
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function bytesToBase64(bytes) {
  let out = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : "=";
    out += i + 2 < bytes.length ? B64[n & 63] : "=";
  }
  return out;
}

/** Standard padded base64 that re-encodes to the same text; TypeError otherwise. */
export function base64ToBytes(text) {
  if (typeof text !== "string" || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new TypeError("bad base64");
  }
  const pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  const full = new Uint8Array((text.length / 4) * 3);
  for (let i = 0, o = 0; i < text.length; i += 4, o += 3) {
    let n = 0;
    for (let j = 0; j < 4; j++) n = (n << 6) | Math.max(0, B64.indexOf(text[i + j]));
    full[o] = n >> 16;
    full[o + 1] = (n >> 8) & 255;
    full[o + 2] = n & 255;
  }
  const out = full.slice(0, full.length - pad);
  if (bytesToBase64(out) !== text) throw new TypeError("non-canonical base64");
  return out;
}

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** UTF-8 of text that is valid Unicode; TypeError for a lone surrogate (SPEC 1). */
export function utf8(text) {
  if (!text.isWellFormed()) throw new TypeError("a string is not valid Unicode");
  return encoder.encode(text);
}

/** Text of valid UTF-8 bytes; TypeError otherwise. */
export function fromUtf8(bytes) {
  return strictDecoder.decode(bytes);
}

export function concatBytes(...parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** ``i`` (a safe non-negative integer) as 8 bytes, big-endian (SPEC 1). */
export function u64be(i) {
  if (!Number.isSafeInteger(i) || i < 0) throw new TypeError("u64be of a non-negative integer");
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(i));
  return out;
}

/** Byte-for-byte equality, over every byte (no early exit). */
export function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
