// The browser port of Kvitlach's rules (api/static/web/js/fairdeal/games/kvitlach) against
// the Python rules (its hand totals: hands.test.mjs). When KVITLACH_RECORDS names the file
// kvitlach_record.py writes (kvitlach_test.py makes one and runs this file with it): every
// call the Python rules answered, asked again of the port: the same drafts, refusals of the
// same class, the same states (their snapshots and public views), views, legal actions and
// timeouts; the logged chains replayed run by run, each command rebuilt from its run's first
// event as the replay does (SPEC 6.3); and the bundles verified as fairdeal-verify does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { hexToBytes } from "../../api/static/web/js/fairdeal/bytes.js";
import { canonical } from "../../api/static/web/js/fairdeal/canonical.js";
import { command, commandOf } from "../../api/static/web/js/fairdeal/engine/base.js";
import { FairdealError } from "../../api/static/web/js/fairdeal/engine/errors.js";
import { importOperatorKey, verifyText } from "../../api/static/web/js/fairdeal/index.js";
import { GAME } from "../../api/static/web/js/fairdeal/games/kvitlach/index.js";

const FILE = process.env.KVITLACH_RECORDS;
const SKIP = FILE ? false : "KVITLACH_RECORDS is not set: python -m pytest tests/js/kvitlach_test.py";
// JSON.parse reads them as the verifier's reader would: they hold no float nor big integer
// (but a bundle's text, which the verifier reads itself).
const lines = FILE ? readFileSync(FILE, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];

const secretOf = (hex) => (hex === null ? null : hexToBytes(hex));
const same = (a, b) => canonical(a) === canonical(b);

/** Why the port's throw is not Python's refusal (null when it is): a FairdealError by the
 * same class, any other exception as an exception that is none of the rules' own. */
function refusalDiffers(python, error) {
  if (python.crash) return error instanceof FairdealError ? `the port refuses (${error.name}), Python crashes` : null;
  if (error instanceof FairdealError && error.name === python.class) return null;
  return `the port throws ${error.name}: ${error.message}; Python ${python.class}`;
}

// The port's states, by the Python states' numbers.
const states = new Map();

/** The port's answer to one recorded call, and (when it makes a state) the state. */
function ask(entry, state) {
  const secret = Object.hasOwn(entry, "secret") ? secretOf(entry.secret) : null;
  switch (entry.op) {
    case "options":
      return { result: GAME.options(entry.raw) };
    case "new":
      return { state: GAME.new(entry.raw) };
    case "step": {
      const decision = GAME.step(state, command(entry.command), secret);
      return { result: decision.drafts, state: decision.state };
    }
    case "apply":
      return { state: GAME.apply(state, entry.event) };
    case "legal_actions":
      return { result: GAME.legalActions(state, entry.seat, secret) };
    case "view_for":
      return { result: GAME.viewFor(state, entry.seat, secret) };
    case "due":
      return { result: GAME.due(state, entry.now) };
    case "snapshot":
      return { result: GAME.snapshot(state) };
    case "restore":
      return { state: GAME.restore(entry.members) };
  }
  throw new Error(`no such call ${entry.op}`);
}

/** What differs between the port's answer to ``entry`` and Python's (null: nothing). */
function differs(entry) {
  if (Object.hasOwn(entry, "in") && !states.has(entry.in)) return "the port lost this state earlier";
  let answer;
  try {
    answer = ask(entry, states.get(entry.in));
  } catch (error) {
    if (!entry.error) return `the port throws ${error.name}: ${error.message}`;
    return refusalDiffers(entry.error, error);
  }
  if (entry.error) return `the port answers where Python refuses (${JSON.stringify(entry.error)})`;
  const expected = entry.op === "step" ? entry.drafts : entry.result;
  if (Object.hasOwn(answer, "result") && !same(answer.result, expected)) {
    return `the port answers ${canonical(answer.result).slice(0, 300)}`;
  }
  if (answer.state === undefined) return null;
  states.set(entry.out, answer.state);
  if (!same(GAME.snapshot(answer.state), entry.after.snapshot)) return "the state's snapshot differs";
  if (!same(GAME.viewFor(answer.state, null, null), entry.after.view)) {
    return `the state's public view differs: ${canonical(GAME.viewFor(answer.state, null, null)).slice(0, 300)}`;
  }
  return null;
}

const groups = new Map();
for (const entry of lines.filter((l) => Object.hasOwn(l, "op"))) {
  if (!groups.has(entry.group)) groups.set(entry.group, []);
  groups.get(entry.group).push(entry);
}

test("the records hold every kind of table, refusal and call", { skip: SKIP }, () => {
  const names = [...groups.keys()];
  for (const prefix of ["table: ", "verifier: ", "named: ", "rules: "]) {
    assert.ok(names.filter((n) => n.startsWith(prefix)).length >= 9, prefix);
  }
  const ops = new Set(lines.map((l) => l.op));
  for (const op of ["options", "new", "step", "legal_actions", "view_for", "due", "snapshot", "restore"]) {
    assert.ok(ops.has(op), op);
  }
  const refused = new Set(lines.filter((l) => l.error?.class).map((l) => l.error.class));
  for (const name of ["OptionsError", "IllegalActionError", "OutOfTurnError", "LimitError", "NotDueError"]) {
    assert.ok(refused.has(name), name);
  }
  for (const name of ["SealedError", "EventSchemaError"]) assert.ok(refused.has(name), name);
});

// One test per group, in the order Python made the calls (states pass between groups).
for (const [group, entries] of groups) {
  const refusal = group.startsWith("named: ") ? entries.find((e) => e.error)?.error.class : null;
  const title = refusal ? `${group}: ${refusal}, as in Python` : `${group}: every call as in Python`;
  test(title, () => {
    if (group.startsWith("named: ")) assert.ok(refusal, "Python refused nothing here");
    const found = [];
    for (const [index, entry] of entries.entries()) {
      const reason = differs(entry);
      if (reason) found.push(`#${index} ${entry.op} ${JSON.stringify(entry.command ?? "").slice(0, 160)}: ${reason}`);
    }
    assert.deepEqual(found.slice(0, 5), []);
  });
}

/** The logged event against the port's draft, as the replay compares them. */
function records(event, draft, time) {
  return (
    event.type === draft.type &&
    event.actor === draft.actor &&
    event.round === draft.round &&
    event.time === time &&
    same(event.data, draft.data)
  );
}

const members = ({ game, ...rest }) => rest; // a table_state's data besides the game's name

for (const chain of lines.filter((l) => Object.hasOwn(l, "chain"))) {
  test(`the chain of ${chain.chain}: each run is the port's drafts for its first event`, () => {
    const [created, ...events] = chain.events;
    let state = GAME.new(created.data.options);
    let folded = state;
    let runs = 0;
    for (let index = 0; index < events.length; ) {
      const first = events[index];
      if (first.type === "table_state") {
        assert.ok(same(GAME.snapshot(state), members(first.data)), `seq ${first.seq}: the table at rest`);
        index += 1;
        continue;
      }
      const secret = Object.hasOwn(chain.seeds, first.round) ? secretOf(chain.seeds[first.round]) : null;
      const decision = GAME.step(state, commandOf(first), secret);
      assert.ok(decision.drafts.length, `seq ${first.seq}: the rules record nothing`);
      decision.drafts.forEach((draft, i) => {
        const event = events[index + i];
        assert.ok(event && records(event, draft, first.time), `seq ${first.seq + i}: the port gives ${draft.type}`);
        folded = GAME.apply(folded, event);
      });
      state = decision.state;
      index += decision.drafts.length;
      runs += 1;
    }
    // apply's fold over the logged events reaches the state the runs decided.
    assert.ok(same(GAME.viewFor(folded, null, null), GAME.viewFor(state, null, null)));
    assert.ok(runs >= 10);
  });
}

const operator = lines.find((l) => Object.hasOwn(l, "operator_key"))?.operator_key;
const keys = operator ? await importOperatorKey(operator) : null;

for (const bundle of lines.filter((l) => Object.hasOwn(l, "bundle"))) {
  test(`the bundle ${bundle.bundle}: the verdict, codes and rules findings of fairdeal-verify`, async () => {
    const result = await verifyText(bundle.text, { keys });
    const codes = [...new Set(result.findings.map((f) => f.code))].sort();
    const rules = result.findings.filter((f) => f.code.startsWith("rules.")).map((f) => [f.code, f.seq]);
    rules.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x - y));
    assert.deepEqual({ verdict: result.verdict, codes, rules }, {
      verdict: bundle.verdict,
      codes: bundle.codes,
      rules: bundle.rules,
    });
  });
}
