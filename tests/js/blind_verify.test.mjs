// The browser's own checks of dealer-blind rounds (rounds.js with blindround.js; SPEC
// 15.13.12, steps 1, 7, 8 and 9 of a version-3 chain) against the Python RoundChecker's, on
// the same events: the synthetic round of tests/verifier/blind_round.py, valid, and each named
// cheat (blind_verify_cases.py writes them with Python's findings). Every case gives the same
// findings in the same order (code and event); the reasons that do not quote an error of the
// cryptography are Python's, word for word. BLIND_VERIFY_CASES names another file of cases
// (test_blind_verify.py's, made afresh).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import test from "node:test";

import { RoundChecker, revealedSeeds } from "../../api/static/web/js/fairdeal/rounds.js";

const file = process.env.BLIND_VERIFY_CASES ?? new URL("./blind_verify_cases.json", import.meta.url);
const made = JSON.parse(await readFile(file, "utf8"));
const BLIND = 3;

async function findings(events) {
  const checker = new RoundChecker(made.deck_rules, revealedSeeds(events), false, BLIND, made.table);
  for (const event of events) await checker.check(event);
  checker.finish(events.at(-1) ?? null);
  return checker.findings.map((f) => ({ code: f.code, seq: f.event.seq, reason: f.reason }));
}

// A reason that quotes the cryptography's own error (its words are each language's) is
// compared up to the quote
const QUOTES = /^(.*?(?:'s proof of knowledge|'s round key|'s share of position \d+|'s secret|^step \d+ by \S+)): .*/;
// and a list as either language writes it (rounds.js's older reasons are JSON)
const unquoted = (reason) => reason.replace(QUOTES, "$1: …").replaceAll('"', "'").replaceAll(", ", ",");

const names = Object.keys(made.cases);
test("the cases are the valid round and every named cheat", () => {
  assert.ok(names.length >= 30, `${names.length} cases`);
  assert.deepEqual(made.cases["the valid round"].findings, []);
  const codes = new Set(names.flatMap((n) => made.cases[n].findings.map((f) => f.code)));
  for (const code of ["blind.key", "blind.server_key", "blind.shuffle", "blind.server_step", "card.ciphertext"]) {
    assert.ok(codes.has(code), code);
  }
  for (const code of ["blind.share", "blind.reveal", "blind.deck", "card.wrong_card", "card.shown"]) {
    assert.ok(codes.has(code), code);
  }
});

for (const name of names) {
  test(`as Python: ${name}`, async () => {
    const { events, findings: python } = made.cases[name];
    const js = await findings(events.map((i) => structuredClone(made.events[i])));
    const where = (list) => list.map((f) => `${f.code}@${f.seq}`);
    assert.deepEqual(where(js), where(python));
    assert.deepEqual(js.map((f) => unquoted(f.reason)), python.map((f) => unquoted(f.reason)));
  });
}
