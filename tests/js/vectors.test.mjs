// The browser module against SPEC 9's committed vectors, every intermediate value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as fd from "../../api/static/web/js/fairdeal/index.js";
import { ByteStream, uniform, dealerChoice, sealInput } from "../../api/static/web/js/fairdeal/randomness.js";
import { statement } from "../../api/static/web/js/fairdeal/statements.js";
import { importRawEd25519, ed25519Verify } from "../../api/static/web/js/fairdeal/crypto.js";

const read = (name) => JSON.parse(readFileSync(new URL(`../vectors/${name}`, import.meta.url), "utf8"));
const V1 = read("fairdeal-v1.json");
const V2 = read("fairdeal-v2.json");
const B2 = read("fairdeal-bundle-2.json");
const hex = fd.bytesToHex;

test("tags are SPEC 2's bytes", () => {
  assert.equal(hex(fd.TAGS.SEED_COMMITMENT), "666169726465616c2f76312f736565642d636f6d6d69746d656e7400");
  assert.equal(hex(fd.TAGS.EVENT), "666169726465616c2f76312f6576656e7400");
  assert.equal(hex(fd.TAGS.KEY_ID), "666169726465616c2f76312f6b65792d696400");
  assert.equal(hex(fd.TAGS.CLIENT_SEED_COMMITMENT), V2.tags.CLIENT_SEED_COMMITMENT);
  assert.equal(hex(fd.TAGS.SEAT_STATEMENT), V2.tags.SEAT_STATEMENT);
  assert.equal(Object.keys(fd.TAGS).length, 11);
});

for (const d of V1.decks) {
  test(`deck vector ${d.round_id}: commitment, seal, shuffle key, stream, deck, salt, card, dealer`, async () => {
    assert.equal(await fd.seedCommitment(d.server_seed), d.commitment);
    assert.equal(sealInput(d.round_id, d.commitment, d.client_seeds, d.rules), d.seal_input);
    const key = await fd.shuffleKey(d.server_seed, d.round_id, d.client_seeds, d.rules);
    assert.equal(hex(key), d.shuffle_key);
    assert.equal(hex(await new ByteStream(key, "deck").read(64)), d.stream_deck_first_64_bytes);
    assert.deepEqual(await fd.shuffle(key, d.rules), d.deck);
    const salt = await fd.cardSalt(key, 0);
    assert.equal(hex(salt), d.salt_0);
    assert.equal(await fd.cardCommitment(salt, d.deck[0]), d.card_commitment_0);
    await fd.checkCardOpening(d.card_commitment_0, d.deck[0], d.salt_0);
    await assert.rejects(fd.checkCardOpening(d.card_commitment_0, d.deck[1] === d.deck[0] ? "X" : d.deck[1], d.salt_0), { code: "card.commitment" });
    assert.equal(await dealerChoice(key), d.dealer_choice);
  });
}

test("uniform: SPEC 3.5's crafted draws", async () => {
  for (const u of V1.uniform) {
    const bytes = Uint8Array.from(u.bytes);
    let at = 0;
    const stream = { read: (n) => bytes.slice(at, (at += n)) };
    assert.equal(await uniform(stream, u.n), u.result);
    assert.equal(at, bytes.length, `n=${u.n} reads every crafted byte`);
  }
});

test("event vectors: canonical text, hash, key id, signature, links", async () => {
  const ev = V1.events;
  const raw = fd.hexToBytes(ev.public_key);
  assert.equal(await fd.keyId(raw), ev.key_id);
  const keys = await fd.importOperatorKey(B2.verifier_key);
  assert.equal(keys.keys[0].id, ev.key_id);
  let previous = null;
  for (const c of ev.chain) {
    assert.equal(fd.canonical(c.event), c.canonical);
    assert.equal(await fd.eventHash(c.event), c.hash);
    await fd.checkSignedEvent(c, keys);
    fd.checkLink(previous, c);
    previous = c;
  }
  const [first, second] = ev.chain;
  await assert.rejects(fd.checkSignedEvent({ ...second, hash: first.hash }, keys), { code: "sig.hash_mismatch" });
  const flipped = second.signature.replace(/^./, (c) => (c === "0" ? "1" : "0"));
  await assert.rejects(fd.checkSignedEvent({ ...second, signature: flipped }, keys), { code: "sig.bad_signature" });
  await assert.rejects(fd.checkSignedEvent(second, fd.keySetOf([])), { code: "sig.unknown_key" });
  assert.throws(() => fd.checkLink(null, second), { code: "chain.gap" });
  assert.throws(() => fd.checkLink(second, { ...ev.chain[2], event: { ...ev.chain[2].event, prev: first.hash } }), { code: "chain.fork" });
});

test("SPEC 1.1's canonical examples, and what has no canonical encoding", () => {
  const bytes = (s) => hex(fd.utf8(fd.canonical(s)));
  assert.equal(bytes('a "quoted" \\ seed'), "22612020".slice(0, 4) + "20" + "5c22" + "71756f746564" + "5c22" + "20" + "5c5c" + "20" + "73656564" + "22");
  assert.equal(bytes("ünïcode ✓\n\u0007\u2028"), "22c3bc6ec3af636f646520e29c935c6e5c7530303037e280a822");
  assert.equal(fd.canonical({ b: [1, -2, null, true], a: "x/\u007f" }), '{"a":"x/\u007f","b":[1,-2,null,true]}');
  for (const bad of [1.5, 2 ** 53, NaN, "\ud800", { "é": 1 }, 10n]) {
    assert.throws(() => fd.canonical(bad), { code: "canonical.encoding" }, String(bad));
  }
  let deep = 1;
  for (let i = 0; i < 32; i++) deep = [deep];
  assert.equal(fd.canonical(deep).length, 65);
  assert.throws(() => fd.canonical([deep]), { code: "canonical.encoding" });
  let deepEmpty = [];
  for (let i = 0; i < 32; i++) deepEmpty = [deepEmpty];
  assert.throws(() => fd.canonical(deepEmpty), { code: "canonical.encoding" });
});

test("the strict reader refuses duplicates, keeps fractions and exponents for refusal", () => {
  assert.throws(() => fd.parseStrict('{"a":1,"a":2}'), { code: "input.malformed_json" });
  assert.throws(() => fd.canonical(fd.parseJson('{"a":1,"a":2}').value), { code: "canonical.duplicate_key" });
  assert.throws(() => fd.canonical(fd.parseStrict('{"a":1.0}')), { code: "canonical.encoding" });
  assert.throws(() => fd.canonical(fd.parseStrict("1e2")), { code: "canonical.encoding" });
  assert.throws(() => fd.canonical(fd.parseStrict("9007199254740992")), { code: "canonical.encoding" });
  assert.equal(fd.canonical(fd.parseStrict("-0")), "0");
  for (const bad of ["NaN", "[1,]", "{'a':1}", '"\u0001"', "01", "[1] x"]) {
    assert.throws(() => fd.parseStrict(bad), { code: "input.malformed_json" }, bad);
  }
  assert.deepEqual(fd.parseStrict('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}'));
});

test("version 2: client-seed commitment and the seats' statements", async () => {
  const c = V2.client_seed_commitment;
  assert.equal(await fd.clientSeedCommitment(c.round, c.seat, c.seed), c.commitment);
  assert.equal(c.commitment, "87a3eede13bd8bbb27f157bd532d1e3fd046ae9bebae7da42e286b2d0ccb6bf2");
  for (const s of V2.statements) {
    const signed = s.event.data.signed;
    const fields = {
      table: s.event.table,
      round: s.event.round,
      seat: s.seat,
      type: s.event.type,
      data: signed.data,
      n: signed.n,
      after: signed.after,
    };
    assert.equal(fd.canonical(statement(fields)), s.canonical);
    const message = fd.statementBytes(fields);
    assert.equal(hex(message), s.message_hex);
    const key = await importRawEd25519(fd.hexToBytes(s.public_key));
    assert.ok(await ed25519Verify(key, fd.hexToBytes(s.signature), message));
  }
});
