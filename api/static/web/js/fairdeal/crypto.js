// WebCrypto, the same in browsers and Node 20: SHA-256, HMAC-SHA256, Ed25519 (SPEC 1).

import { concatBytes } from "./bytes.js";

const subtle = globalThis.crypto.subtle;
const ED25519 = { name: "Ed25519" };

export async function sha256(bytes) {
  return new Uint8Array(await subtle.digest("SHA-256", bytes));
}

/** An HMAC-SHA256 key, imported once and used for many messages. */
export async function hmacKey(keyBytes) {
  return subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

export async function hmac(key, message) {
  const k = key instanceof Uint8Array ? await hmacKey(key) : key;
  return new Uint8Array(await subtle.sign("HMAC", k, message));
}

/** Import a raw 32-byte Ed25519 public key; null when WebCrypto refuses it. */
export async function importRawEd25519(raw) {
  try {
    return await subtle.importKey("raw", raw, ED25519, true, ["verify"]);
  } catch {
    return null;
  }
}

/** Import a DER SubjectPublicKeyInfo Ed25519 key (TypeError when it is not one). */
export async function importSpkiEd25519(der) {
  try {
    return await subtle.importKey("spki", der, ED25519, true, ["verify"]);
  } catch (e) {
    throw new TypeError(`not an Ed25519 public key: ${e.message}`);
  }
}

export async function rawOf(cryptoKey) {
  return new Uint8Array(await subtle.exportKey("raw", cryptoKey));
}

/** True when ``signature`` (64 bytes) is ``cryptoKey``'s over ``message``. */
export async function ed25519Verify(cryptoKey, signature, message) {
  if (!cryptoKey || signature.length !== 64) return false;
  try {
    return await subtle.verify(ED25519, cryptoKey, signature, message);
  } catch {
    return false;
  }
}

export async function sha256Of(...parts) {
  return sha256(concatBytes(...parts));
}
