// The browser's Toto21 rules (games/toto21) against the Python rules' own answers: the named
// refusals, options and forged snapshots of toto21_cases.json (written by toto21_chains.py),
// and, when toto21_test.py hands them over (TOTO21_CHAINS), real Python-made chains replayed
// run by run: every command's drafts, and at every state its snapshot, views, legal actions,
// due timeouts and the outcome of forged commands; and the chains, each event tampered with
// in turn, replayed by engine/rules.js as by fairdeal.verifier.rules, giving the same
// finding (code and seq). The hand rules are hands.test.mjs's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import { canonical } from "../../api/static/web/js/fairdeal/canonical.js";
import { command, commandOf } from "../../api/static/web/js/fairdeal/engine/base.js";
import { FairdealError } from "../../api/static/web/js/fairdeal/engine/errors.js";
import { TABLE_STATE } from "../../api/static/web/js/fairdeal/engine/protocol.js";
import * as rules from "../../api/static/web/js/fairdeal/engine/rules.js";
import { commandData } from "../../api/static/web/js/fairdeal/engine/statements.js";
import { eventHash } from "../../api/static/web/js/fairdeal/events.js";
import { revealedSeeds } from "../../api/static/web/js/fairdeal/rounds.js";
import { GAME } from "../../api/static/web/js/fairdeal/games/toto21/index.js";
import { Party } from "../../api/static/web/js/fairdeal/games/toto21/party.js";

const read = (name) => JSON.parse(readFileSync(new URL(name, import.meta.url), "utf8"));
const CASES = read("./toto21_cases.json");
const CHAINS = process.env.TOTO21_CHAINS;

const VIEWERS = [null, 0, 1];
const ENGINE_MEMBERS = new Set(["game", "seat_keys"]); // a table_state's members beside the game's snapshot
const secretOf = (hex) => (hex === null ? null : hexToBytes(hex));

/** As toto21_chains.outcome: {ok: value}, or {error: the refusal's class, or "crash"} (and
 * a refusal's message, which a dealer-blind chain records too). */
function outcome(call) {
  try {
    return { ok: call() };
  } catch (e) {
    if (e instanceof FairdealError) return { error: e.constructor.name, message: e.message };
    return { error: "crash", message: `${e?.name}: ${e?.message}` };
  }
}

/** As toto21_chains.decided: the drafts and the snapshot they lead to. */
function decided(state, cmd, secret) {
  const decision = GAME.step(state, command(cmd), secret);
  return { drafts: decision.drafts, snapshot: GAME.snapshot(decision.state) };
}

/** Two outcomes alike: the same refusal, or values of the same canonical text. */
function same(got, want) {
  if ("error" in want || "error" in got) {
    return got.error === want.error && (want.message === undefined || got.message === want.message);
  }
  try {
    return canonical(got.ok) === canonical(want.ok);
  } catch {
    return false; // a value with no canonical form (undefined, a Map) is never Python's
  }
}

const text = (value) => {
  try {
    return canonical(value);
  } catch {
    return String(value);
  }
};

test("options: the defaults, the full form and every refusal are Python's", () => {
  for (const c of CASES.options) {
    assert.ok(same(outcome(() => GAME.options(c.raw)), c), c.name);
  }
});

/** The named cases' table, its commands decided one by one, each case tried on the way. */
function* namedCases() {
  const { options, secrets, commands, cases } = CASES.table;
  let state = GAME.new(options);
  const secret = (round) => (Object.hasOwn(secrets, round ?? "") ? hexToBytes(secrets[round]) : null);
  for (let at = 0; at <= commands.length; at++) {
    for (const c of cases.filter((x) => x.at === at)) {
      yield [c, outcome(() => decided(state, c.command, secret(c.command.round)))];
    }
    if (at < commands.length) state = GAME.step(state, command(commands[at]), secret(commands[at].round)).state;
  }
}

for (const [c, got] of namedCases()) {
  test(`refused as Python refuses: ${c.name} (${c.error})`, () => {
    assert.equal(got.error, c.error);
  });
}

test("restore: true snapshots come back as they were; every forged one is refused as Python refuses it", () => {
  const { members, forged } = CASES.restore;
  for (const m of members) assert.equal(canonical(GAME.snapshot(GAME.restore(m))), canonical(m), m.phase);
  for (const c of forged) {
    assert.ok(same(outcome(() => GAME.snapshot(GAME.restore(c.members))), c), c.name);
  }
});

/** As toto21_chains._BlindProbes.party: what a fresh party of each seat (games/toto21/party.js)
 * makes of a blind table's state, given the round's events so far ([type, actor, data]). */
function parties(state, events, table, expected) {
  const out = {};
  for (const seat of [0, 1]) {
    const fresh = new Party(seat, table, state.round.round_id);
    const calls = {
      shares: () => fresh.shares(state, events),
      reveal: () => fresh.reveal(state, events),
      own_cards: () => fresh.ownCards(state, events),
      step: () => fresh.step(state, events),
    };
    for (const [name, call] of Object.entries(calls)) {
      if (!Object.hasOwn(expected, `${seat} ${name}`)) continue;
      const result = outcome(call);
      out[`${seat} ${name}`] = "ok" in result ? { ok: true } : result;
    }
  }
  return out;
}

/** What the port makes of a state, against Python's ``at_rest``: the differences found.
 * `blind` ({table, events}: the round's events so far), at a dealer-blind table. */
function checkAtRest(state, want, where, blind = null) {
  const found = [];
  const differ = (what, got, expected) => {
    if (!same(got, expected)) {
      const said = (o) => text(o.ok ?? (o.message === undefined ? o.error : `${o.error}: ${o.message}`));
      found.push(`${where}: ${what}: got ${said(got)}, Python ${said(expected)}`);
    }
  };
  const secret = secretOf(want.secret);
  differ("snapshot", { ok: GAME.snapshot(state) }, { ok: want.snapshot });
  const restored = want.snapshot === null ? null : GAME.restore(want.snapshot);
  VIEWERS.forEach((seat, i) => {
    differ(`view for ${seat}`, outcome(() => GAME.viewFor(state, seat, secret)), want.views[i]);
    if (restored !== null) {
      differ(`restored view for ${seat}`, outcome(() => GAME.viewFor(restored, seat, secret)), want.restored_views[i]);
    }
  });
  [0, 1, 2].forEach((seat, i) => {
    differ(`legal actions of ${seat}`, outcome(() => GAME.legalActions(state, seat, secret)), want.legal[i]);
  });
  for (const [now, expected] of want.due) differ(`due at ${now}`, outcome(() => GAME.due(state, now)), expected);
  for (const probe of want.probes) {
    const got = outcome(() => decided(state, probe.command, secretOf(probe.secret)));
    differ(`probe ${text(probe.command)}`, got, probe);
  }
  if (want.party) {
    const roundId = state.round.round_id;
    const events = blind.events.filter((e) => e.round === roundId).map((e) => [e.type, e.actor, commandData(e.version, e.data)]);
    const got = parties(state, events, blind.table, want.party);
    for (const [name, expected] of Object.entries(want.party)) differ(`a fresh party's ${name}`, got[name], expected);
  }
  return found;
}

/** A chain replayed as fairdeal.table.runs replays it: each run's command rebuilt from its
 * first event and decided; a table_state checked against the snapshot. Also decided from
 * the state each snapshot restores, which must decide alike (SPEC 6.6), and folded with
 * ``apply`` over the logged events, which must give the state the decisions reach. */
function replay(chain) {
  const found = [];
  let state = GAME.new(chain.created.data.options);
  let folded = state;
  let restored = null;
  const blind = chain.created.version >= 3 ? { table: chain.created.table, events: [] } : null;
  chain.runs.forEach((run, index) => {
    blind?.events.push(...run.events);
    const first = run.events[0];
    const where = `run ${index} (seq ${first.seq}, ${first.type})`;
    if (first.type === TABLE_STATE) {
      const members = Object.fromEntries(Object.entries(first.data).filter(([key]) => !ENGINE_MEMBERS.has(key)));
      if (text(GAME.snapshot(state)) !== text(members)) found.push(`${where}: the snapshot is not the table_state`);
    } else {
      if (chain.created.version === 1 && text(commandOf(first)) !== text(run.command)) {
        found.push(`${where}: the command is not the first event's`);
      }
      const secret = secretOf(run.secret);
      const decision = outcome(() => GAME.step(state, command(run.command), secret));
      if (!same({ ok: decision.ok?.drafts }, { ok: run.drafts })) {
        found.push(`${where}: the drafts differ: ${text(decision.ok?.drafts ?? decision.error)}`);
        return;
      }
      if (restored !== null && text(GAME.step(restored, command(run.command), secret).drafts) !== text(run.drafts)) {
        found.push(`${where}: the restored state decides otherwise`);
      }
      state = decision.ok.state;
      // as fairdeal.table.follow folds them: with the members a seat signed put back (version 3)
      const recorded = (event) => ({ ...event, data: commandData(event.version, event.data) });
      folded = run.events.reduce((before, event) => GAME.apply(before, recorded(event)), folded);
      const known = secretOf(run.after.secret);
      VIEWERS.forEach((seat, i) => {
        if (!same(outcome(() => GAME.viewFor(folded, seat, known)), run.after.views[i])) {
          found.push(`${where}: the logged events fold into another state`);
        }
      });
    }
    found.push(...checkAtRest(state, run.after, where, blind));
    const snapshot = GAME.snapshot(state);
    restored = snapshot === null ? null : GAME.restore(snapshot);
  });
  return found;
}

/** As toto21_chains._finding: the rules finding ({code, seq} or null) on ``events``
 * replayed after the first (table_created, or a table_state to restart at), with the seeds
 * they reveal, as verify.js replays a bundle's. */
async function rulesFinding(events) {
  const texts = events.map((e) => canonical(e.data));
  const hashes = await Promise.all(events.map(eventHash));
  const [first, ...rest] = events;
  const begin = first.type === TABLE_STATE ? rules.restart : rules.start;
  let { replayed, finding } = begin(first, texts[0], hashes[0]);
  if (replayed !== null) {
    const seeds = new Map([...revealedSeeds(rest)].map(([id, seed]) => [id, hexToBytes(seed)]));
    ({ finding } = await rules.replay(replayed, rest, texts.slice(1), hashes.slice(1), seeds));
  }
  return finding === null ? null : { code: finding.code, seq: finding.seq };
}

/** Each tampered copy of the chain against Python's finding on it: the differences. */
async function tamperings(chain) {
  const events = [chain.created, ...chain.runs.flatMap((run) => run.events)];
  const found = [];
  for (const t of chain.tampered) {
    const replayed = events.slice(t.start, t.end);
    if (t.at !== null) replayed[t.at - t.start] = t.event;
    const got = await rulesFinding(replayed);
    if (text(got) !== text(t.finding)) {
      const what = t.at === null ? "none changed" : `event ${t.at} changed to ${text(t.event)}`;
      found.push(`${what}, replayed from ${t.start}: ${text(got)}, Python ${text(t.finding)}`);
    }
  }
  return found;
}

if (CHAINS) {
  const chains = JSON.parse(readFileSync(CHAINS, "utf8"));
  for (const [name, chain] of Object.entries(chains)) {
    test(`a Python-made chain replays alike, run by run, forged commands too: ${name}`, () => {
      assert.ok(chain.runs.length > 5);
      const found = replay(chain);
      assert.deepEqual(found.slice(0, 10), [], `${found.length} differences`);
    });
    test(`the verifier's rules find what Python's find, each event tampered with in turn: ${name}`, async () => {
      assert.ok(chain.tampered.some((t) => t.finding === null) && chain.tampered.some((t) => t.finding !== null));
      const found = await tamperings(chain);
      assert.deepEqual(found.slice(0, 10), [], `${found.length} differences`);
    });
  }
}
