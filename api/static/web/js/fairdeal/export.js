// SPEC 7 (15)-(17) across the lines of an export, in input order, as verifier/export.py's
// Across does them, with what the options pin (pinned.js):
//
//   (15) every leaf in order, none missing: log.order, log.round_missing, and the root of
//        the leaves from leaf 0, recomputed as they stream by (RootBuilder), against each
//        checkpoint signed for that size: log.round_missing
//   (17) two checkpoints of one size with one root: checkpoint.fork; a table's bundle from
//        seq 0 holds the last head of its earlier one: export.fork; one from a table_state
//        starts where the earlier one ended: export.link, and in the state its replay
//        ended in: export.state (stateProblem)
//   with a pinned checkpoint, after the lines (finish): (15) every line's leaf below its
//        size (log.not_in_checkpoint), a whole export reaching it (log.round_missing); (17)
//        the lines' other checkpoints and the pinned previous one consistent with it, by
//        the export's own leaves or by the pinned proofs (checkpoint.rollback,
//        checkpoint.fork, checkpoint.inconsistent, input.missing_proof)

import { equalBytes, hexToBytes } from "./bytes.js";
import { canonical } from "./canonical.js";
import { RootBuilder, leafHash } from "./merkle.js";
import { checkConsistency, proofBetween } from "./pinned.js";

/** What a line gives the export when it is not a bundle that could be read. */
export const UNREAD = Object.freeze({
  table: null,
  round: null,
  across: { leafIndex: null, head: null, checkpoint: null, heads: [], start: null, end: null },
});

/**
 * The checks across bundles, fed each line's verifyBundle result (or UNREAD) in input
 * order, then ``finish``ed. What is pinned (pinned.js's readPinned): ``partial``, the input
 * is not the whole log from leaf 0 (a filtered export, as fairdeal-verify --partial, or one
 * bundle alone), so leaves may be missing around it; ``checkpoint`` and ``previous``, the
 * pinned checkpoints ({size, rootHash}); ``proofs``, the pinned consistency proofs.
 */
export class Across {
  constructor({ partial = false, checkpoint = null, previous = null, proofs = new Map() } = {}) {
    this.partial = partial;
    this.pinned = { checkpoint, previous, proofs };
    this.findings = [];
    this.nextLeaf = partial ? null : 0; // the whole log starts at leaf 0
    this.tree = new RootBuilder(); // null once a leaf is missing or unknown
    this.roots = new Map(); // checkpoint size (BigInt) -> root, as signed
    this.proven = new Set(); // sizes whose root the export's leaves reproduce
    this.decided = new Set(); // sizes whose root was compared with the leaves
    this.lastHead = new Map(); // table -> "seq:hash" of its last head at rest so far
    this.ends = new Map(); // table -> where its last bundle ended, and in what state
    this.outside = new Map(); // size -> root of the lines' other checkpoints than the pinned
    this.pinning = this.pin();
  }

  async pin() {
    for (const point of [this.pinned.checkpoint, this.pinned.previous]) {
      if (point !== null) await this.signedRoot(point.size, point.rootHash, null);
    }
  }

  find(code, result, reason) {
    this.findings.push({ code, table: result?.table ?? null, round: result?.round ?? null, seq: null, reason });
  }

  async add(result) {
    await this.pinning;
    const { checkpoint, start, end, heads } = result.across;
    await this.leaf(result);
    if (checkpoint !== null) await this.signedRoot(checkpoint.size, checkpoint.rootHash, result);
    if (start === null) this.sameHistory(result);
    else this.joined(result, start);
    if (result.table !== null && heads.length) this.lastHead.set(result.table, heads.at(-1));
    if (result.table !== null && end !== null) this.ends.set(result.table, end);
    if (this.pinned.checkpoint !== null) this.inPinned(this.pinned.checkpoint, result);
  }

  inPinned(pinned, result) {
    // (15) the round is in the pinned checkpoint (linked to it after the lines: finish)
    const { leafIndex: index, checkpoint } = result.across;
    if (index === null) return;
    if (BigInt(index) >= pinned.size) {
      this.find("log.not_in_checkpoint", result, `leaf ${index} is past the checkpoint's size ${pinned.size}`);
    } else if (checkpoint !== null && checkpoint.size !== pinned.size) {
      this.outside.set(checkpoint.size, checkpoint.rootHash);
    }
  }

  async leaf(result) {
    // (15) every leaf, in order, none missing
    const { leafIndex: index, head } = result.across;
    if (index === null || head === null) {
      this.tree = null;
      return;
    }
    if (this.nextLeaf === null) {
      this.nextLeaf = index;
      if (index !== 0) this.tree = null;
    }
    if (index < this.nextLeaf) return this.find("log.order", result, `leaf ${index} after leaf ${this.nextLeaf - 1}`);
    if (index > this.nextLeaf) {
      if (!this.partial) {
        this.find("log.round_missing", result, `leaves ${this.nextLeaf}..${index - 1} are missing from the export`);
      }
      this.tree = null;
    }
    this.nextLeaf = index + 1;
    if (this.tree !== null) {
      await this.tree.append(await leafHash(hexToBytes(head)));
      await this.compareRoot(BigInt(this.tree.size), result);
    }
  }

  async signedRoot(size, root, result) {
    // (17) two signed checkpoints of one size must agree
    const known = this.roots.get(size);
    if (known !== undefined && !equalBytes(known, root)) {
      return this.find("checkpoint.fork", result, `two roots for size ${size}`);
    }
    this.roots.set(size, root);
    if (this.tree !== null && BigInt(this.tree.size) === size) await this.compareRoot(size, null);
  }

  async compareRoot(size, result) {
    // (15) an export from leaf 0 reproduces the root signed for its size; (17) the pinned
    // previous checkpoint's too
    const signed = this.roots.get(size);
    if (signed === undefined || this.tree === null) return;
    this.decided.add(size);
    if (equalBytes(signed, await this.tree.root())) {
      this.proven.add(size);
      return;
    }
    const code = this.pinned.previous?.size === size ? "checkpoint.inconsistent" : "log.round_missing";
    this.find(code, result, `the export's leaves do not make the signed root of size ${size}`);
  }

  /** After the last line: what only the whole export shows against the pinned checkpoints. */
  async finish() {
    await this.pinning;
    const { checkpoint, previous } = this.pinned;
    if (checkpoint !== null && !this.proven.has(checkpoint.size)) await this.byProofs(checkpoint);
    if (checkpoint !== null && previous !== null) await this.consistent(previous, checkpoint);
  }

  async byProofs(pinned) {
    // (15) a whole export reaches the pinned size; (17) the rounds whose bundles name
    // another checkpoint: a consistency proof links it to the pinned one
    const whole = this.tree !== null && !this.partial;
    if (whole && this.nextLeaf !== null && BigInt(this.nextLeaf) < pinned.size) {
      this.find("log.round_missing", null, `the export ends at leaf ${this.nextLeaf - 1} of ${pinned.size}`);
    }
    for (const [size, rootHash] of this.outside) {
      const own = { size, rootHash };
      const [old, next] = size < pinned.size ? [own, pinned] : [pinned, own];
      if (this.decided.has(old.size) && this.decided.has(next.size)) continue;
      await this.link(old, next);
    }
  }

  async consistent(previous, pinned) {
    // (17) the pinned checkpoint extends the pinned previous one, unless the export's own
    // leaves compared both roots
    const both = this.decided.has(previous.size) && this.decided.has(pinned.size);
    if (!both || previous.size > pinned.size) await this.link(previous, pinned);
  }

  async link(old, next) {
    const problem = await checkConsistency(old, next, proofBetween(this.pinned, old.size, next.size));
    if (problem !== null) this.findings.push(problem);
  }

  sameHistory(result) {
    // (17) a table's later bundle holds its earlier bundle's last head, at the same seq
    const heads = result.across.heads;
    if (result.table === null || !heads.length) return;
    const earlier = this.lastHead.get(result.table);
    if (earlier !== undefined && !heads.includes(earlier)) {
      const seq = earlier.split(":")[0];
      this.find("export.fork", result, `does not contain seq ${seq} of the table's earlier bundle`);
    }
  }

  joined(result, start) {
    // (17) a bundle that starts at a table_state starts where the table's previous bundle
    // ended, with the state that bundle ended in
    const end = this.ends.get(result.table ?? "");
    if (end === undefined) {
      if (!this.partial) {
        this.find("export.link", result, `the table's first bundle starts at seq ${start.seq}, not at seq 0`);
      }
      return; // a partial export: it proves its round from its state
    }
    if (start.seq !== end.seq + 1 || start.hash !== end.hash || start.time < end.time) {
      const reason =
        `starts at seq ${start.seq} after hash ${start.hash.slice(0, 16)}, time ${start.time}; the table's ` +
        `previous bundle ends at seq ${end.seq}, hash ${end.hash.slice(0, 16)}, time ${end.time}`;
      return this.find("export.link", result, reason);
    }
    const problem = end.state === null ? null : stateProblem(start.data, end.state);
    if (problem !== null) this.find("export.state", result, `its table_state at seq ${start.seq}: ${problem}`);
  }
}

/**
 * Why a table_state's ``data`` is not the snapshot (6.6) of the state its table's previous
 * bundle's replay ended in, ``known`` (the table_state data the rules give there), compared
 * as canonical text: the first member they differ in, or null when they are the same.
 */
export function stateProblem(data, known) {
  if (canonical(data) === canonical(known)) return null;
  const names = [...new Set([...Object.keys(data), ...Object.keys(known)])].sort();
  const member = names.find((n) => canonical(data[n] ?? null) !== canonical(known[n] ?? null));
  return `${member} is ${canonical(data[member] ?? null).slice(0, 80)}, the previous bundle ends with ${canonical(known[member] ?? null).slice(0, 80)}`;
}

/** (seq, hash) of each event after which no round is open, as "seq:hash": every head a
 * leaf can hold (``events`` as the chain read them, ``hashes`` their hex hashes). */
export function restHeads(events, hashes) {
  const heads = [];
  let open = null;
  events.forEach((event, i) => {
    if (event.type === "round_opened") open = event.round;
    else if (event.type === "round_revealed" && event.round === open) open = null;
    if (open === null) heads.push(`${event.seq}:${hashes[i]}`);
  });
  return heads;
}
