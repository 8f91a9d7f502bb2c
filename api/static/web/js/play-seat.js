// A seat of this page: its Ed25519 key, made here and never extractable, bound when the seat
// is taken; its bearer token; its commands, each signed over the statement of SPEC 6.7
// after the head of the chain this page has checked; its client seeds, made here,
// committed, and revealed once the chain shows the reveals open (seeds_committed). Kept in
// this browser (play-keep.js) where it can be, so that a reload resumes it: the statement
// number and the seeds are saved before each command leaves.

import { bytesToHex, clientSeedCommitment, statementBytes } from "/static/web/js/fairdeal/index.js";
import { ApiError, api, newIdempotencyKey } from "./play-api.js";
import { CheckFailure } from "./play-chain.js";
import { claimSeat, forgetSeat, keepSeat, keptSeats, loadSeat } from "./play-keep.js";

const ED25519 = { name: "Ed25519" };
// Commands outside a round, and where each goes; every other action is the round's.
const TABLE_ACTIONS = new Set(["seat_left", "banker_exit"]);

/** A fresh key pair: the private key cannot be exported, so it never leaves this browser. */
export async function newSeatKey() {
  const pair = await crypto.subtle.generateKey(ED25519, false, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  return { privateKey: pair.privateKey, publicHex: bytesToHex(raw) };
}

function randomSeed() {
  return bytesToHex(crypto.getRandomValues(new Uint8Array(16)));
}

export class Seat {
  constructor({ tableId, seat, token, key, chain, joinedSeq }) {
    Object.assign(this, { tableId, seat, token, key, chain, joinedSeq });
    this.n = 0; // the last statement number used
    this.seeds = new Map(); // round id -> the seed committed and not yet revealed
    this.kept = false; // whether this browser keeps it (a reload resumes it)
    this.onUnkept = null; // called if keeping it fails after all
    this.release = null; // lets go of this tab's hold on the seat (claimSeat)
  }

  /** The seat this browser keeps at ``tableId`` (a record for ``resume``), or null. */
  static kept(tableId) {
    return loadSeat(tableId);
  }

  /** Every seat this browser keeps: [{table, seat}], to offer a way back to each. */
  static async keptList() {
    return (await keptSeats()).map(({ table, seat }) => ({ table, seat }));
  }

  /** Take a seat: create a table (``game``, ``options``) or join one; the chain checked. */
  static async take({ tableId, game, options, join, chainFor }) {
    const key = await newSeatKey();
    const body = { join: join ?? {}, key: key.publicHex };
    const reply = tableId
      ? await api("POST", `/v1/tables/${tableId}/seats`, { body })
      : await api("POST", "/v1/tables", { body: { ...body, game, options } });
    const chain = await chainFor(reply.table_id);
    await chain.receive(reply.events);
    const joined = reply.events.map((s) => s.event).find((e) => e.type === "seat_joined");
    if (!joined || joined.actor !== `seat:${reply.seat}` || joined.data.key !== key.publicHex) {
      throw new CheckFailure("receipt.statement", joined?.seq ?? null, "the seat_joined receipt does not bind this seat's key");
    }
    const { table_id: id, seat, token } = reply;
    return new Seat({ tableId: id, seat, token, key, chain, joinedSeq: joined.seq });
  }

  /** The seat kept in ``record``, on a fresh chain checked from its first event. The last n
   * is the kept one or the chain's, whichever is higher; a kept seed whose commitment the
   * chain does not show never reached the log, and a fresh one will be committed. */
  static async resume(record, chainFor) {
    const { table, seat, token, privateKey, publicHex, joinedSeq } = record;
    const release = await claimSeat(table);
    if (!release) return null; // another tab of this browser plays it
    const chain = await chainFor(table);
    let logged;
    try {
      logged = await syncedFor(chain, seat, joinedSeq);
    } catch (e) {
      release();
      if (e instanceof ApiError && e.code === "not_found") await forgetSeat(table, publicHex); // no such table here now
      throw e;
    }
    if (logged.key !== publicHex) {
      release();
      throw new CheckFailure("receipt.statement", joinedSeq, "the chain's seat_joined does not bind the key kept for this seat");
    }
    const resumed = new Seat({ tableId: table, seat, token, key: { privateKey, publicHex }, chain, joinedSeq });
    resumed.n = Math.max(record.n, logged.n);
    for (const [roundId, seed] of Object.entries(record.seeds)) {
      if (logged.commits.has(roundId)) resumed.seeds.set(roundId, seed);
    }
    Object.assign(resumed, { kept: true, release });
    return resumed;
  }

  /** What this browser keeps of the seat, with ``n`` as the last statement number used. */
  record(n = this.n) {
    const { tableId: table, seat, token, joinedSeq } = this;
    const { privateKey, publicHex } = this.key;
    return { table, seat, token, privateKey, publicHex, joinedSeq, n, seeds: Object.fromEntries(this.seeds) };
  }

  /** Keep the seat in this browser, unless another tab plays a seat at this table; whether
   * it is kept. */
  async keep() {
    this.release = await claimSeat(this.tableId);
    this.kept = Boolean(this.release) && (await keepSeat(this.record()));
    return this.kept;
  }

  /** Save ``n`` (and the seeds) before a command signed with it leaves; if that fails, the
   * seat is held in memory only from now on, its stale record forgotten. */
  async save(n) {
    if (!this.kept || (await keepSeat(this.record(n)))) return;
    this.kept = false;
    await forgetSeat(this.tableId, this.key.publicHex);
    this.onUnkept?.();
  }

  /** This browser keeps the seat no more (it left, or was turned away). */
  async forget() {
    this.kept = false;
    await forgetSeat(this.tableId, this.key.publicHex);
    this.release?.();
  }

  /** The table as this seat sees it (legal_actions, its own hidden cards with salts). */
  view() {
    return api("GET", `/v1/tables/${this.tableId}`, { token: this.token });
  }

  openRound() {
    return this.post(`/v1/tables/${this.tableId}/rounds`, {}).then(async (reply) => {
      await this.chain.receive(reply.events);
      return reply;
    });
  }

  decide(accept) {
    const path = `/v1/tables/${this.tableId}/seats/1/decision`;
    return this.command(path, accept ? "joiner_accepted" : "joiner_rejected", { seat: 1 }, { accept }, null);
  }

  /** A move: in the round ``roundId``, or at the table for its table-level actions. */
  act(kind, data, roundId) {
    const body = { type: kind, data };
    if (TABLE_ACTIONS.has(kind)) return this.command(`/v1/tables/${this.tableId}/actions`, kind, data, body, null);
    return this.command(`/v1/rounds/${roundId}/actions`, kind, data, body, roundId);
  }

  /** Commit to a fresh seed for ``roundId``; the seed stays here until the reveals open.
   * ``dataFor(commitment)`` makes the command's data (at a dealer-blind table, with the
   * round key of the seat's party: play-blind.js). */
  async commitSeed(roundId, dataFor = (commitment) => ({ commitment })) {
    const seed = randomSeed();
    const data = dataFor(await clientSeedCommitment(roundId, this.seat, seed));
    this.seeds.set(roundId, seed);
    try {
      return await this.command(`/v1/rounds/${roundId}/seeds`, "seed_commitment", data, data, roundId);
    } catch (e) {
      this.seeds.delete(roundId);
      throw e;
    }
  }

  /** Reveal each kept seed whose round's reveals the checked chain shows open. */
  async revealDue() {
    for (const [roundId, seed] of [...this.seeds]) {
      if (this.chain.revealsOpen === roundId) {
        const data = { seed };
        await this.command(`/v1/rounds/${roundId}/seeds`, "client_seed", data, data, roundId);
        this.seeds.delete(roundId);
      } else if (this.chain.seeding !== roundId) {
        this.seeds.delete(roundId); // the round went on without it (timed out, voided)
      }
    }
  }

  /** POST a signed command; on signature_stale, catch up on the chain and sign once more;
   * on signature_replayed (n not above the seat's last), sign above the last n named. */
  async command(path, kind, data, body, roundId) {
    const idempotencyKey = newIdempotencyKey();
    try {
      return await this.send(path, kind, data, body, roundId, idempotencyKey);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      const lastN = e.details?.last_n;
      if (e.code === "signature_replayed" && Number.isSafeInteger(lastN) && lastN > this.n) this.n = lastN;
      else if (e.code === "signature_stale") await this.chain.sync();
      else throw e;
      return this.send(path, kind, data, body, roundId, newIdempotencyKey());
    }
  }

  async send(path, kind, data, body, roundId, idempotencyKey) {
    const n = this.n + 1;
    const after = this.chain.after;
    const message = statementBytes({ table: this.tableId, round: roundId, seat: this.seat, type: kind, data, n, after });
    const signature = bytesToHex(new Uint8Array(await crypto.subtle.sign(ED25519, this.key.privateKey, message)));
    const signed = { n, after, signature };
    await this.save(n); // before it leaves: a reload must never sign this n again
    let reply;
    try {
      reply = await this.post(path, { ...body, signed }, idempotencyKey);
    } catch (e) {
      if (!(e instanceof ApiError)) this.n = n; // it may have been applied: never reuse n
      throw e;
    }
    this.n = n;
    await this.chain.receive(reply.events);
    this.checkRecorded(reply.events, kind, roundId, { ...signed, data });
    return reply;
  }

  /** The reply's first own receipt records this command, with exactly the statement signed. */
  checkRecorded(events, kind, roundId, statement) {
    const first = events.map((s) => s.event).find((e) => e.type !== "table_state");
    const same = (a, b) => JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
    if (
      !first ||
      first.type !== kind ||
      first.actor !== `seat:${this.seat}` ||
      (roundId !== null && first.round !== roundId) ||
      !same(first.data.signed, statement)
    ) {
      throw new CheckFailure("receipt.statement", first?.seq ?? null, `the receipt does not record the ${kind} this seat signed`);
    }
  }

  post(path, body, idempotencyKey = newIdempotencyKey()) {
    return api("POST", path, { body, token: this.token, idempotencyKey });
  }
}

/** Sync ``chain`` (every event checked) and note what ``seat``, joined at ``joinedSeq``, has
 * logged since: the key it joined with, its highest n, the rounds it committed a seed in. */
async function syncedFor(chain, seat, joinedSeq) {
  const logged = { key: null, n: 0, commits: new Set() };
  const listener = ({ event: e }) => {
    if (e.actor !== `seat:${seat}` || e.seq < joinedSeq) return;
    if (e.seq === joinedSeq && e.type === "seat_joined") logged.key = e.data.key;
    if (Number.isSafeInteger(e.data?.signed?.n)) logged.n = Math.max(logged.n, e.data.signed.n);
    if (e.type === "seed_commitment") logged.commits.add(e.round);
  };
  chain.listeners.push(listener);
  try {
    await chain.sync();
  } finally {
    chain.listeners.splice(chain.listeners.indexOf(listener), 1);
  }
  return logged;
}

function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sorted(value[k])]));
  }
  return value;
}
