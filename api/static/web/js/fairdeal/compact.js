// SPEC 13.1.1: the third bundle format's compact events turned back into signed events (5.3),
// as fairdeal/compact.py's ``expanded`` does. Nothing is checked here: a compact event this
// cannot turn is left as it stands (and every one after it), and the chain check refuses it.

import { base64ToBytes, bytesToHex } from "./bytes.js";
import { FIELDS, eventHash, hasShape } from "./chain.js";
import { DUPLICATE, EncodingError } from "./canonical.js";
import { DECK_SHUFFLED } from "./engine/protocol.js";

const MEMBERS = new Set([...FIELDS, "key_id", "signature"]);
const REQUIRED = ["seq", "type", "data", "signature"];
// A shuffle proof's members in SPEC 15.11.6's order; true: an array of N values.
const PROOF_LAYOUT = [
  ["c", true], ["c_hat", true], ["t1", false], ["t2", false], ["t3", false], ["t41", false],
  ["t42", false], ["t_hat", true], ["s1", false], ["s2", false], ["s3", false], ["s4", false],
  ["s_hat", true], ["s_prime", true],
]; // prettier-ignore
const VALUE = 32; // bytes of an element or a scalar (SPEC 15.2)
// The members a compact event may leave out when they equal the event's before it.
const INHERITED = ["version", "table", "round", "time", "actor", "key_id"];
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** The bundle's events as signed events: the compact format's turned back, others' as they are. */
export function signedEvents(bundle) {
  return bundle.format === "fairdeal-bundle/3" ? expanded(bundle.events) : bundle.events;
}

/** Compact events as signed events, in order; from the first one that cannot be turned, each
 * as it stands. */
export function expanded(entries) {
  const turned = [];
  let before = null;
  for (const [index, entry] of entries.entries()) {
    const signed = turn(entry, before);
    if (signed === null) return [...turned, ...entries.slice(index)];
    turned.push(signed);
    before = { ...signed.event, key_id: signed.key_id, prev: signed.hash };
  }
  return turned;
}

function turn(entry, before) {
  if (!isObject(entry) || entry[DUPLICATE] || !Object.keys(entry).every((name) => MEMBERS.has(name))) return null;
  const required = before === null ? [...MEMBERS] : REQUIRED;
  if (!required.every((name) => Object.hasOwn(entry, name))) return null;
  if (before !== null && Object.hasOwn(entry, "prev")) return null;
  // An inheritable member not of its field's shape (SPEC 5.1) is not turned: none carries a
  // large value into every event after it.
  if (!INHERITED.every((name) => !Object.hasOwn(entry, name) || hasShape(name, entry[name]))) return null;
  const known = before ?? {};
  const event = Object.fromEntries(FIELDS.map((name) => [name, Object.hasOwn(entry, name) ? entry[name] : known[name]]));
  if (entry.type === DECK_SHUFFLED) event.data = rebuilt(entry.data);
  let hash;
  try {
    hash = eventHash(event);
  } catch (e) {
    if (e instanceof EncodingError || e instanceof TypeError) return null;
    throw e;
  }
  const keyId = Object.hasOwn(entry, "key_id") ? entry.key_id : known.key_id;
  return { event, hash, key_id: keyId, signature: entry.signature };
}

/** A deck_shuffled's data with its packed steps unpacked: in the data (the service's step) and
 * in its signed.data (a seat's, SPEC 15.13.11); copies, the entry's objects never changed. */
function rebuilt(data) {
  if (!isObject(data) || data[DUPLICATE]) return data;
  let outer = unpack(data);
  const signed = data.signed;
  if (isObject(signed) && !signed[DUPLICATE] && isObject(signed.data) && !signed.data[DUPLICATE]) {
    const inner = unpack(signed.data);
    if (inner !== signed.data) outer = { ...outer, signed: { ...signed, data: inner } };
  }
  return outer;
}

function unpack(step) {
  if (typeof step.deck !== "string" || typeof step.proof !== "string") return step;
  const deck = unbase64(step.deck);
  const proof = unbase64(step.proof);
  if (deck === null || proof === null || deck.length === 0) return step;
  const count = deck.length / (2 * VALUE);
  if (!Number.isInteger(count) || proof.length !== (5 * count + 9) * VALUE) return step;
  const values = [];
  for (let i = 0; i < proof.length; i += VALUE) values.push(bytesToHex(proof.subarray(i, i + VALUE)));
  const unpackedProof = {};
  for (const [name, isArray] of PROOF_LAYOUT) {
    unpackedProof[name] = isArray ? values.splice(0, count) : values.shift();
  }
  const unpackedDeck = [];
  for (let i = 0; i < deck.length; i += 2 * VALUE) {
    unpackedDeck.push({ a: bytesToHex(deck.subarray(i, i + VALUE)), b: bytesToHex(deck.subarray(i + VALUE, i + 2 * VALUE)) });
  }
  return { ...step, deck: unpackedDeck, proof: unpackedProof };
}

/** RFC 4648 base64url without padding, in its one canonical spelling, or null. */
function unbase64(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const standard = text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return base64ToBytes(standard);
  } catch (e) {
    if (e instanceof TypeError) return null;
    throw e;
  }
}
