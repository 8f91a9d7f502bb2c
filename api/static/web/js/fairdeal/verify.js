// SPEC 7 for a round bundle (13.1) and an export (13.2), in the browser or in Node: every
// step fairdeal-verify takes, with the same verdict and the same finding codes (the
// conformance suite in conformance/ holds both to it).
//
//   (1)      the bundle's own schema
//   (1)-(5)  each signed event: schema, canonical form, seq/prev, signature, time   [chain]
//   (5)-(9)  timeouts, commitment, client seeds, shuffle, dealt and shown cards    [rounds]
//   (8)(9)   version 3 (dealer-blind): round keys, the shuffle chain, ciphertexts,  [blindround]
//            shares, opened, shown and revealed cards, the whole deck opened
//   (10)(11) the chain replayed through the game's rules: seat signatures, legal  [engine]
//            actions, every server decision, table_state restores
//   (12)(13) transfers, balances and conservation                                  [money]
//   (14)     every sealed round revealed; the bundle ends at its head              [rounds]
//   (15)(16) the head's inclusion under the bundle's own signed checkpoint     [merkle, note]
//   (15)(17) across the lines: leaf order, the root they make, links, forks,        [export]
//            states; with pinned checkpoints and proofs                            [pinned]
//   (18)     with witnesses given: that checkpoint cosigned by a quorum of them,   [witnesses]
//            not before the head it includes was logged

import { hexToBytes, isHex } from "./bytes.js";
import { canonical, parseJson } from "./canonical.js";
import { ChainChecker } from "./chain.js";
import { signedEvents } from "./compact.js";
import { FairdealError } from "./errors.js";
import { Across, UNREAD, restHeads } from "./export.js";
import { duplicatedOutside, serverSaid } from "./inputs.js";
import { leafHash, verifyInclusion } from "./merkle.js";
import { MoneyChecker, isBalances } from "./money.js";
import { openCheckpoint } from "./note.js";
import { RoundChecker, revealedSeeds, snapshotProblem } from "./rounds.js";
import { get } from "./engine/pytypes.js";
import { replay, restart, start } from "./engine/rules.js";
import { restingDraft } from "./engine/table.js";
import { readExport, readInput } from "./sources.js";
import { importWitnesses, witnessFindings, witnessing } from "./witnesses.js";

// Step 0's codes, and the two after which nothing was judged (SPEC 7): the verdict unusable.
const UNUSABLE_CODES = new Set([
  "input.unreadable",
  "input.malformed_json",
  "input.too_large",
  "input.wrong_format",
  "input.missing_proof",
  "sig.wrong_key",
  "rules.unknown_game",
]);
const FORMATS = ["fairdeal-bundle/1", "fairdeal-bundle/2", "fairdeal-bundle/3"];
const BUNDLE_KEYS = ["events", "format", "keys", "log", "round_id", "table_id"];
const LOG_TYPES = {
  origin: "string",
  verifier_key: "string",
  leaf_index: "integer",
  head_hash: "string",
  tree_size: "integer",
  inclusion_proof: "array",
  checkpoint: "string",
};
const MAX_EVENTS = 250_000;
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const typeOf = (v) =>
  Array.isArray(v) ? "array" : Number.isSafeInteger(v) ? "integer" : v === null ? "null" : typeof v;

export function verdictOf(findings) {
  if (findings.some((f) => UNUSABLE_CODES.has(f.code))) return "unusable";
  return findings.length ? "invalid" : "valid";
}

/**
 * Every step for one parsed bundle. ``keys``: the pinned key set (importOperatorKey);
 * ``origin``: the log name to expect (else the bundle's log.origin); ``witnesses``: the
 * witnesses' verifier key strings whose cosignatures its checkpoint needs, ``quorum`` of
 * them (default: all; step 18). Resolves to {verdict, findings, events, table, round,
 * story, across} (story: what explain.js tells; across: what an export checks across
 * bundles, export.js). Rejects as importWitnesses does for a bad witness key or quorum.
 */
export async function verifyBundle(bundle, opts = {}) {
  return checkBundle(bundle, opts, await importWitnesses(opts.witnesses, opts.quorum));
}

async function checkBundle(bundle, { keys, origin = null } = {}, trust = null) {
  const problem = shapeProblem(bundle); // (1) the bundle itself
  if (problem !== null) {
    const [table, round] = names(bundle);
    const findings = [{ code: "schema.bundle", table, round, seq: null, reason: problem }];
    return { verdict: verdictOf(findings), findings, events: 0, table, round, story: null, across: UNREAD.across };
  }
  const table = bundle.table_id;
  const round = bundle.round_id;
  const opening = bundle.format !== FORMATS[0]; // the later formats may start at a table_state
  const chain = new ChainChecker(table, keys, opening); // (1)-(5)
  const read = await chain.check(signedEvents(bundle)); // the compact format's turned back (13.1.1)
  const findings = [...chain.findings];
  const events = read.map((r) => r.signed.event);
  const hashes = read.map((r) => r.hash);
  let story = null;
  if (chain.intact) story = await checkTable(table, round, events, hashes, findings); // (5)-(14)
  const logged = await checkLog(table, round, bundle.log, hashes.at(-1) ?? null, keys, origin, findings); // (15) (16)
  const witnessed = await witnessing(bundle.log.checkpoint, trust);
  if (logged.checkpoint !== null && witnessed !== null) {
    const headTime = logged.included ? events.at(-1).time : null; // (18)
    findings.push(...witnessFindings(witnessed, headTime).map((f) => ({ ...f, table, round, seq: null })));
  }
  if (story !== null) story.witnessed = witnessed;
  const across = {
    leafIndex: bundle.log.leaf_index,
    head: logged.head,
    checkpoint: logged.checkpoint,
    heads: restHeads(events, hashes),
    ...(story === null ? { start: null, end: null } : links(story)),
  };
  return { verdict: verdictOf(findings), findings, events: bundle.events.length, table, round, story, across };
}

/** Where an intact chain joins its table's (as verifier/bundle.py's Link): its start, if it
 * starts at a table_state (its seq, prev, time and data); its end at its head (seq, hash,
 * time) and, if the replay reached it, the table_state data the rules give there (6.6). */
function links(story) {
  const { first, events, hashes, replayed } = story;
  const last = events.at(-1);
  const start =
    first.type === "table_state" ? { seq: first.seq, hash: first.prev, time: first.time, data: first.data } : null;
  const state = replayed === null ? null : (restingDraft(replayed)?.data ?? null);
  return { start, end: { seq: last.seq, hash: hashes.at(-1), time: last.time, state } };
}

async function checkTable(table, round, events, hashes, findings) {
  const at = (code, event, reason) => ({ code, table, round: event.round, seq: event.seq, reason });
  const [first, ...rest] = events;
  const texts = events.map((e) => canonical(e.data)); // an intact chain: every event has one (2)
  const data = first.data;
  let balances = {};
  let started;
  if (first.type === "table_state") {
    started = restart(first, texts[0], hashes[0]);
    balances = isBalances(data.balances) ? { ...data.balances } : {};
    const problem = snapshotProblem(first);
    if (problem) findings.push(at("schema.data", first, problem));
  } else {
    started = start(first, texts[0], hashes[0]);
  }
  const decks = isObject(data.options) ? get(data.options, "decks", 1) : 1; // as Python's dict.get
  const deckRules = { game: get(data, "game"), decks };
  // (5) timeouts, (6)-(9), (14)
  const bounded = first.type === "table_state";
  const seeds = revealedSeeds(rest);
  const rounds = new RoundChecker(deckRules, seeds, bounded, first.version, table);
  for (const event of rest) await rounds.check(event);
  rounds.finish(rest.at(-1) ?? null);
  findings.push(...rounds.findings.map((f) => at(f.code, f.event, f.reason)));
  // (10) (11) the chain replayed through the rules, unless they cannot start the table
  let { replayed, finding } = started;
  if (replayed !== null) {
    const secrets = new Map([...seeds].map(([id, seed]) => [id, hexToBytes(seed)]));
    ({ replayed, finding } = await replay(replayed, rest, texts.slice(1), hashes.slice(1), secrets));
  }
  if (finding !== null) findings.push(finding);
  // (12) (13) money
  const money = new MoneyChecker(balances);
  for (const event of rest) money.check(event);
  findings.push(...money.findings.map((f) => at(f.code, f.event, f.reason)));
  // (14) the bundle ends at its head
  const problem = endsAtHead(round, events);
  if (problem) findings.push({ code: "round.unfinished", table, round, seq: events.at(-1).seq, reason: problem });
  return { table, round, first, events, hashes, rounds: rounds.rounds, money, startBalances: balances, replayed };
}

function endsAtHead(round, events) {
  const last = events.at(-1);
  if (round === null) {
    let open = null;
    for (const e of events) {
      if (e.type === "round_opened") open = e.round;
      else if (e.type === "round_revealed" && e.round === open) open = null;
    }
    return open === null ? null : "the bundle names no round but ends with a round open";
  }
  if (last.type === "round_revealed" && last.round === round) return null;
  return `the bundle does not end with round ${round}'s round_revealed`;
}

/** (15) (16) Resolves to {head, checkpoint, included}: the head if head_hash states it,
 * the checkpoint if it opened, and whether the head's inclusion in it is proved. */
async function checkLog(table, round, entry, head, keys, origin, findings) {
  const place = (code, reason) => findings.push({ code, table, round, seq: null, reason });
  // (15) the stated head
  if (head === null || !isHex(entry.head_hash, 64) || entry.head_hash !== head) {
    place("log.head", "head_hash is not the hash of the bundle's last event");
    return { head: null, checkpoint: null, included: false };
  }
  const opened = await openLogged(entry, keys, origin, place); // (16)
  if (opened === null) return { head, checkpoint: null, included: false };
  const included = await checkInclusion(entry, head, opened, place); // (15)
  return { head, checkpoint: opened, included };
}

/** (16) The bundle's checkpoint, opened with the pinned keys only, or null. */
async function openLogged(entry, keys, origin, place) {
  if (origin !== null && entry.origin !== origin) {
    place("checkpoint.origin", `log ${JSON.stringify(entry.origin)}, not ${JSON.stringify(origin)}`);
    return null;
  }
  try {
    // as verifier/log.py: an empty name is no name, and the note's first line is its own
    return await openCheckpoint(entry.checkpoint, keys, origin || entry.origin || entry.checkpoint.split("\n", 1)[0]);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    place(e.code, e.message);
    return null;
  }
}

/** (15) The head's inclusion in ``checkpoint``: true when proved. */
async function checkInclusion(entry, head, checkpoint, place) {
  if (BigInt(entry.tree_size) !== checkpoint.size) {
    place("log.inclusion", `tree_size ${entry.tree_size} is not the checkpoint's ${checkpoint.size}`);
    return false;
  }
  const proof = entry.inclusion_proof;
  if (proof.length > 128 || !proof.every((h) => isHex(h, 64))) {
    place("log.inclusion", "inclusion_proof is a list of at most 128 hashes of 64 lowercase hex digits");
    return false;
  }
  try {
    const leaf = await leafHash(hexToBytes(head));
    await verifyInclusion(leaf, entry.leaf_index, entry.tree_size, proof.map(hexToBytes), checkpoint.rootHash);
    return true;
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    place("log.inclusion", `leaf ${entry.leaf_index} of ${entry.tree_size}: ${e.message}`);
    return false;
  }
}

/** (1) Why ``obj`` is not of a bundle's shape, or null. */
export function shapeProblem(obj) {
  const said = serverSaid(obj); // an error body saved where a bundle should be: relay it
  if (said !== null) return `not a bundle: ${said}`;
  if (!isObject(obj) || Object.keys(obj).sort().join() !== BUNDLE_KEYS.join()) {
    return `a bundle has exactly the members ${BUNDLE_KEYS.join(", ")}`;
  }
  if (!FORMATS.includes(obj.format)) return `format is ${JSON.stringify(obj.format)}, not one of ${FORMATS.join(", ")}`;
  if (typeof obj.table_id !== "string" || !(obj.round_id === null || typeof obj.round_id === "string")) {
    return "table_id is a string and round_id a string or null";
  }
  if (!Array.isArray(obj.events) || obj.events.length < 1 || obj.events.length > MAX_EVENTS) {
    return `events is a list of 1 to ${MAX_EVENTS} signed events`;
  }
  if (!Array.isArray(obj.keys) || !isObject(obj.log)) return "keys is a list and log an object";
  const entry = obj.log;
  const names = Object.keys(LOG_TYPES);
  if (Object.keys(entry).length !== names.length || names.some((n) => typeOf(entry[n]) !== LOG_TYPES[n])) {
    return "log has origin, verifier_key, leaf_index, head_hash, tree_size, proof, checkpoint";
  }
  return null;
}

function names(obj) {
  if (!isObject(obj)) return [null, null];
  return [
    typeof obj.table_id === "string" ? obj.table_id : null,
    typeof obj.round_id === "string" ? obj.round_id : null,
  ];
}

/**
 * What fairdeal-verify is given, checked as it checks it (SPEC 7): ``input`` is the text
 * (a saved file, a paste) or the bytes of a bundle, an export, a checkpoint note (or the
 * service's JSON form of one), a consistency or an inclusion proof, told from its content
 * (sources.js); or null, to check the pinned checkpoints alone. ``opts``: ``keys``
 * (importOperatorKey), and fairdeal-verify's other options: ``origin``, ``witnesses`` and
 * ``quorum``, ``partial``, ``checkpoint`` and ``previousCheckpoint`` (a checkpoint file's
 * text or bytes), ``consistencyProofs`` (each a proof file's text or bytes). Resolves to
 * {verdict, findings, events, bundles}; what cannot be read is one finding of step 0 (the
 * verdict unusable). Rejects with a RangeError where fairdeal-verify refuses its command
 * line: a witness quorum out of range, a previous checkpoint without a checkpoint, nothing
 * to check.
 */
export async function verifyText(input, opts = {}) {
  return verifyRead(() => readInput(input, opts), opts);
}

/**
 * An export (13.2), its text or bytes: one bundle a line, each verified as a bundle; a
 * line that cannot be read is unusable on its own (step 0) and the others are still
 * checked. Then the checks across the lines (export.js), their findings after the lines'.
 * ``opts`` as verifyText's; ``partial``: the export is filtered, not the whole log from
 * leaf 0 (fairdeal-verify --partial).
 */
export async function verifyExport(jsonlText, opts = {}) {
  return verifyRead(() => readExport(jsonlText, opts), opts);
}

/** What ``reading`` read (sources.js), verified: its lines, or the findings it made. */
async function verifyRead(reading, opts) {
  let read;
  try {
    read = await reading();
  } catch (e) {
    if (!(e instanceof FairdealError) || !e.code.startsWith("input.")) throw e;
    const findings = [{ code: e.code, table: null, round: null, seq: null, reason: e.message }];
    return { verdict: verdictOf(findings), findings, events: 0, bundles: [] };
  }
  if (!read.lines) return { verdict: verdictOf(read.findings), findings: read.findings, events: 0, bundles: [] };
  return verifyLines(read, opts);
}

async function verifyLines({ lines, isExport, trust, pinned, findings: found }, opts) {
  const findings = [...found];
  const bundles = [];
  const across = new Across(pinned); // a bundle alone: one leaf (pinned.partial)
  let events = 0;
  for (const line of lines) {
    const read = readLine(line, isExport);
    if (read.finding) {
      findings.push(read.finding);
      await across.add(UNREAD);
      continue;
    }
    const result = await checkBundle(read.value, opts, trust);
    findings.push(...result.findings);
    events += result.events;
    bundles.push(result);
    await across.add(result);
  }
  await across.finish();
  findings.push(...across.findings);
  return { verdict: verdictOf(findings), findings, events, bundles };
}

/** (0) One line ({number, text}, its text null when not UTF-8) read strictly: {value} or
 * {finding}. A member name twice inside the events is step 2's; anywhere else the line
 * cannot be read. */
function readLine(line, isExport) {
  const unread = (reason) => ({
    finding: {
      code: "input.malformed_json",
      table: null,
      round: null,
      seq: null,
      reason: isExport ? `line ${line.number}: ${reason}` : reason,
    },
  });
  if (line.text === null) return unread("not UTF-8 text");
  if (line.text.startsWith("\ufeff")) return unread("starts with a byte order mark");
  let read;
  try {
    read = parseJson(line.text);
  } catch (e) {
    return unread(e.message);
  }
  if (read.duplicates && duplicatedOutside(read.value, "events")) {
    return unread("a member name appears twice in one object, outside the events");
  }
  return { value: read.value };
}
