// SPEC 7 (0), (15)-(18) for what fairdeal-verify pins besides the keys and for a checkpoint
// or a proof given as the input, as verifier/log.py and verifier/sources.py read and check
// them:
//
//   (0)  a checkpoint file: a signed note (line feeds after it are the file's), or the
//        service's {"size", "root_hash", "note"}; a consistency proof {from, to, proof
//        [, from_root, to_root]}; an inclusion proof {leaf_index, tree_size, head_hash,
//        proof [, root_hash]}: anything else rejects with a FairdealError of step 0
//   (15) an inclusion proof against the pinned checkpoint: log.not_in_checkpoint,
//        log.inclusion
//   (16) each checkpoint opened with the pinned keys only (note.js)
//   (17) two checkpoints: one extends the other (checkConsistency)
//   (18) with witnesses given, each checkpoint cosigned by a quorum of them (witnesses.js)

import { equalBytes, hexToBytes, isHex } from "./bytes.js";
import { FairdealError } from "./errors.js";
import { isObject, loads, refuseServerError, smallText, textOf } from "./inputs.js";
import { leafHash, verifyConsistency, verifyInclusion } from "./merkle.js";
import { openCheckpoint, readNote } from "./note.js";
import { importWitnesses, witnessFindings, witnessing } from "./witnesses.js";

const MAX_PROOF_HASHES = 128;
const CHECKPOINT_JSON = ["note", "root_hash", "size"];
const isInteger = (v) => Number.isSafeInteger(v) || typeof v === "bigint";
const wrongFormat = (reason) => new FairdealError("input.wrong_format", reason);
const finding = (code, reason, table = null, round = null) => ({ code, table, round, seq: null, reason });

/**
 * (0) What the options pin besides the keys, read and checked as fairdeal-verify reads its
 * command line: ``keys`` (a key set, importOperatorKey / keySetOf), ``origin``,
 * ``witnesses`` and ``quorum`` (importWitnesses), ``checkpoint`` and ``previousCheckpoint``
 * (a checkpoint file's text or bytes), ``consistencyProofs`` (each a proof file's text or
 * bytes), ``partial``. Resolves to {trust, pinned, findings}: the witnesses, what is pinned
 * ({partial, checkpoint, previous, proofs}) and the findings of steps 16 and 18 on the
 * pinned checkpoints. Rejects with a FairdealError of step 0 for what cannot be read, and
 * with a RangeError for options fairdeal-verify refuses as a usage error.
 */
export async function readPinned(opts = {}) {
  if (!opts.keys?.keys?.length) throw wrongFormat("no trusted key: give the operator's key");
  if (opts.previousCheckpoint != null && opts.checkpoint == null) {
    throw new RangeError("a previous checkpoint needs a checkpoint");
  }
  const trust = await importWitnesses(opts.witnesses, opts.quorum); // (0) each --witness
  const findings = [];
  const pinned = { partial: Boolean(opts.partial), checkpoint: null, previous: null, proofs: new Map() };
  const open = async (file, what) => {
    const found = readCheckpointFile(smallText(file, `the ${what}`), `the ${what}`);
    const { checkpoint, problem } = await openCheckpointFile(found, opts.keys, opts.origin ?? null);
    if (problem !== null) findings.push(problem);
    if (checkpoint !== null) findings.push(...(await witnessed(found.note, trust)));
    return checkpoint;
  };
  if (opts.checkpoint != null) pinned.checkpoint = await open(opts.checkpoint, "checkpoint");
  if (opts.previousCheckpoint != null) pinned.previous = await open(opts.previousCheckpoint, "previous checkpoint");
  for (const file of opts.consistencyProofs ?? []) {
    addProof(pinned, readConsistency(smallText(file, "the consistency proof")));
  }
  return { trust, pinned, findings };
}

/** The consistency proof pinned from size ``first`` to ``second``, or null. */
export function proofBetween(pinned, first, second) {
  return pinned.proofs.get(`${first}:${second}`) ?? null;
}

function addProof(pinned, proof) {
  pinned.proofs.set(`${proof.first}:${proof.second}`, proof);
}

/** (18) The findings of a checkpoint note's cosignatures by the given witnesses. */
async function witnessed(note, trust) {
  const w = await witnessing(note, trust);
  return w === null ? [] : witnessFindings(w).map((f) => finding(f.code, f.reason));
}

/**
 * (0) A checkpoint file (text or bytes): {note, stated}, ``stated`` the {size, rootHash} its
 * JSON form states beside the note (unsigned), else null. Rejects with a FairdealError of
 * step 0 unless it holds a signed note's text; its signatures are step 16's.
 */
export function readCheckpointFile(input, what) {
  const text = textOf(input, what);
  let found;
  if (text.trimStart().startsWith("{")) {
    found = checkpointJson(loads(text), what);
  } else {
    // a signature line is never empty: a note ends at its first line feed of two
    found = { note: text.endsWith("\n\n") ? text.replace(/\n+$/, "\n") : text, stated: null };
  }
  try {
    readNote(found.note);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    throw wrongFormat(`${what} is not a signed note: ${e.message}`);
  }
  return found;
}

function checkpointJson(obj, what) {
  refuseServerError(obj, what);
  const exact =
    isObject(obj) &&
    Object.keys(obj).sort().join() === CHECKPOINT_JSON.join() &&
    isInteger(obj.size) &&
    isHex(obj.root_hash, 64) &&
    typeof obj.note === "string";
  if (!exact) throw wrongFormat(`${what} in JSON is exactly size, root_hash (64 lowercase hex) and note`);
  return { note: obj.note, stated: { size: BigInt(obj.size), rootHash: hexToBytes(obj.root_hash) } };
}

/**
 * (16) A checkpoint file's note opened with the pinned keys, under ``origin`` (else its
 * own first line): {checkpoint, problem}, either null; the size and root its JSON form
 * states, if any, must be the note's (checkpoint.malformed, the checkpoint still opened).
 */
export async function openCheckpointFile(found, keys, origin) {
  let checkpoint;
  try {
    checkpoint = await openCheckpoint(found.note, keys, origin || found.note.split("\n", 1)[0]);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    return { checkpoint: null, problem: finding(e.code, e.message) };
  }
  const { stated } = found;
  if (stated === null || (stated.size === checkpoint.size && equalBytes(stated.rootHash, checkpoint.rootHash))) {
    return { checkpoint, problem: null };
  }
  return { checkpoint, problem: finding("checkpoint.malformed", "its size and root_hash are not its signed note's") };
}

/**
 * (17) ``next`` extends ``old`` (each {size, rootHash}): one size, one root; else the
 * ``proof`` (readConsistency's, or null) is needed, and the roots it states, if any, are
 * the checkpoints'. Resolves to a finding, or null.
 */
export async function checkConsistency(old, next, proof) {
  if (next.size < old.size) return finding("checkpoint.rollback", `size ${next.size} after size ${old.size}`);
  if (next.size === old.size) {
    if (equalBytes(old.rootHash, next.rootHash)) return null;
    return finding("checkpoint.fork", `two roots signed for size ${next.size}`);
  }
  if (old.size === 0n) return null; // every tree extends the empty one
  if (proof === null) {
    return finding("input.missing_proof", `no consistency proof from size ${old.size} to ${next.size}`);
  }
  const states = (root, actual) => root === null || equalBytes(root, actual);
  if (!states(proof.fromRoot, old.rootHash) || !states(proof.toRoot, next.rootHash)) {
    const reason = `${old.size} -> ${next.size}: from_root and to_root are not the checkpoints' roots`;
    return finding("checkpoint.inconsistent", reason);
  }
  try {
    await verifyConsistency(old.size, next.size, proof.proof, old.rootHash, next.rootHash);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    return finding("checkpoint.inconsistent", `${old.size} -> ${next.size}: ${e.message}`);
  }
  return null;
}

/** (0) A list of hex hashes from the input (a FairdealError of step 0 if it is not one). */
function hashes(value, what) {
  if (!Array.isArray(value) || value.length > MAX_PROOF_HASHES) {
    throw wrongFormat(`${what} is a list of at most ${MAX_PROOF_HASHES} hashes`);
  }
  if (!value.every((h) => isHex(h, 64))) throw wrongFormat(`${what} holds 64-digit lowercase hex hashes`);
  return value.map(hexToBytes);
}

const optionalHash = (obj, member) => (Object.hasOwn(obj, member) ? hashes([obj[member]], member)[0] : null);

/** (0) The service's consistency proof (text or bytes): {first, second (BigInt), proof,
 * fromRoot, toRoot}, the roots null where it does not state them. */
export function readConsistency(input) {
  const obj = loads(textOf(input, "the consistency proof"));
  refuseServerError(obj, "the consistency proof");
  if (!isObject(obj) || !isInteger(obj.from) || !isInteger(obj.to)) {
    throw wrongFormat("a consistency proof has integer from and to");
  }
  const proof = hashes(obj.proof, "proof");
  const [fromRoot, toRoot] = [optionalHash(obj, "from_root"), optionalHash(obj, "to_root")];
  return { first: BigInt(obj.from), second: BigInt(obj.to), proof, fromRoot, toRoot };
}

/** (0) The service's inclusion proof, parsed: {table, round, index, size (BigInt), head,
 * root (null where it states none), proof}. */
export function readInclusion(obj) {
  if (!isInteger(obj.leaf_index) || !isInteger(obj.tree_size)) {
    throw wrongFormat("leaf_index and tree_size are integers");
  }
  const head = hashes([obj.head_hash], "head_hash")[0];
  const name = (v) => (typeof v === "string" ? v : null);
  const proof = hashes(obj.proof, "proof");
  return {
    table: name(obj.table_id),
    round: name(obj.round_id),
    index: BigInt(obj.leaf_index),
    size: BigInt(obj.tree_size),
    head,
    root: optionalHash(obj, "root_hash"),
    proof,
  };
}

/** (15) An inclusion proof given as the input, against the pinned checkpoint: findings. */
export async function checkInclusionProof(proof, checkpoint) {
  const at = (code, reason) => [finding(code, reason, proof.table, proof.round)];
  if (proof.size !== checkpoint.size) {
    return at("log.not_in_checkpoint", `proof for size ${proof.size}, not ${checkpoint.size}`);
  }
  if (proof.root !== null && !equalBytes(proof.root, checkpoint.rootHash)) {
    return at("log.inclusion", "root_hash is not the checkpoint's root");
  }
  try {
    await verifyInclusion(await leafHash(proof.head), proof.index, proof.size, proof.proof, checkpoint.rootHash);
  } catch (e) {
    if (!(e instanceof FairdealError)) throw e;
    return at("log.inclusion", `leaf ${proof.index} of ${proof.size}: ${e.message}`);
  }
  return [];
}

/** (17) The pinned checkpoint extends the pinned previous one, when both are given. */
export async function checkpointsOnly(pinned) {
  const { checkpoint, previous } = pinned;
  if (checkpoint === null || previous === null) return [];
  const problem = await checkConsistency(previous, checkpoint, proofBetween(pinned, previous.size, checkpoint.size));
  return problem === null ? [] : [problem];
}

/** (16) (18) (17) A checkpoint given as the input: opened, its witnesses, and consistent
 * with the pinned checkpoints. */
export async function checkpointInput(found, opts, trust, pinned) {
  const { checkpoint, problem } = await openCheckpointFile(found, opts.keys, opts.origin ?? null);
  const findings = problem === null ? [] : [problem];
  if (checkpoint === null) return findings;
  findings.push(...(await witnessed(found.note, trust)));
  for (const other of [pinned.previous, pinned.checkpoint]) {
    if (other === null) continue;
    const [old, next] = other.size <= checkpoint.size ? [other, checkpoint] : [checkpoint, other];
    const broken = await checkConsistency(old, next, proofBetween(pinned, old.size, next.size));
    if (broken !== null) findings.push(broken);
  }
  return findings;
}

/** (17) A consistency proof given as the input, between the two pinned checkpoints. */
export async function consistencyInput(text, pinned) {
  const proof = readConsistency(text);
  if (pinned.checkpoint === null || pinned.previous === null) {
    throw new FairdealError("input.missing_proof", "a consistency proof needs both checkpoints");
  }
  addProof(pinned, proof);
  return checkpointsOnly(pinned);
}

/** (15) An inclusion proof given as the input, against the pinned checkpoint. */
export async function inclusionInput(text, pinned) {
  const proof = readInclusion(loads(text));
  if (pinned.checkpoint === null) {
    throw new FairdealError("input.missing_proof", "an inclusion proof needs a checkpoint");
  }
  return checkInclusionProof(proof, pinned.checkpoint);
}
