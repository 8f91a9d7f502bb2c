// The browser's seat party (games/toto21/party.js, fairdeal/games/toto21/party.py's port) at a
// dealer-blind Toto21 table (SPEC 15.13) run by the browser's rules (games/toto21): two
// parties play whole rounds against the rules, as the play page will; each refusal the
// Python party makes is made here too (the Python-made chains of toto21_chains.py check the
// rules' side against Python's, toto21.test.mjs). The private key stays out of every printed
// and serialised form.
import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { bytesToHex } from "../../api/static/web/js/fairdeal/bytes.js";
import { command } from "../../api/static/web/js/fairdeal/engine/base.js";
import { clientSeedCommitment, seedCommitment } from "../../api/static/web/js/fairdeal/randomness.js";
import { GAME } from "../../api/static/web/js/fairdeal/games/toto21/index.js";
import * as hands from "../../api/static/web/js/fairdeal/games/toto21/hands.js";
import { Party, PartyRefusedError } from "../../api/static/web/js/fairdeal/games/toto21/party.js";

const TABLE = "bt";
const T0 = 1_760_000_000_000;

/** A table of the browser's rules with two seat parties: every command decided by GAME.step,
 * the drafts kept as the round's log ([type, actor, data], the data as the rules record them). */
class Table {
  constructor(options = {}) {
    this.state = GAME.new({ dealing: "blind", seed_time_ms: 10_000, ...options });
    this.now = T0;
    this.log = [];
    this.secret = null;
    this.roundId = null;
    this.parties = null;
    this.do("seat_joined", "seat:0", {}, null);
    this.do("seat_joined", "seat:1", {}, null);
    this.do("joiner_accepted", "seat:0", {}, null);
  }

  do(type, actor, data, round = this.roundId) {
    const cmd = command({ type, actor, time: this.now, data, round, table: TABLE });
    const decision = GAME.step(this.state, cmd, round === null ? null : this.secret);
    this.state = decision.state;
    this.log.push(...decision.drafts);
    return decision.drafts;
  }

  events() {
    return this.log.filter((d) => d.round === this.roundId).map((d) => [d.type, d.actor, d.data]);
  }

  open() {
    this.roundId = `${TABLE}.${this.state.rounds + 1}`;
    this.secret = new Uint8Array(32).fill(this.state.rounds + 7);
    this.do("round_opened", "server", { commitment: seedCommitment(bytesToHex(this.secret)) });
    this.parties = [0, 1].map((seat) => new Party(seat, TABLE, this.roundId));
    for (const seat of [0, 1]) {
      const commitment = clientSeedCommitment(this.roundId, seat, `seed-${seat}`);
      this.do("seed_commitment", `seat:${seat}`, this.parties[seat].commitmentData(commitment));
    }
    for (const seat of [0, 1]) this.do("client_seed", `seat:${seat}`, { seed: `seed-${seat}` });
  }

  /** The answer `seat`'s party gives to the request pending. */
  answer(seat) {
    const party = this.parties[seat];
    const kind = this.state.crypto.request.kind;
    if (kind === "shuffle_due") return this.do("deck_shuffled", party.actor, party.step(this.state, this.events()));
    if (kind === "shares_due") return this.do("decryption_shares", party.actor, party.shares(this.state, this.events()));
    return this.do("round_key", party.actor, party.reveal(this.state, this.events()));
  }

  /** The cards `seat` sees: its own face-down ones, opened by its party, and the up-card. */
  seen(seat) {
    const own = this.parties[seat].ownCards(this.state, this.events());
    const hand = this.state.hand;
    return hand.held
      .filter((h) => h.seat === seat && (own.has(h.position) || hand.known.has(h.position)))
      .map((h) => own.get(h.position) ?? hand.known.get(h.position).card);
  }

  /** One command: an answer, or a careful move (draw below 17). False once the round is over. */
  step() {
    const { round, crypto, hand } = this.state;
    if (round === null || round.revealed) return false;
    if (crypto.request !== null) {
      this.answer(crypto.request.seats[0]);
      return true;
    }
    const legal = GAME.legalActions(this.state, hand.turn, null);
    const seen = this.seen(hand.turn);
    this.do(hands.total(seen) < 17 && legal.includes("hit") ? "hit" : "stand", `seat:${hand.turn}`, {});
    return true;
  }
}

test("two browser parties play a blind round to its reveal against the browser's rules", () => {
  const table = new Table({ target: 2 });
  table.open();
  while (table.step());
  const types = table.events().map(([type]) => type);
  for (const kind of ["deck_shuffled", "decryption_shares", "card_opened", "keys_due", "round_key", "round_revealed"]) {
    assert.ok(types.includes(kind), `${kind} in ${types.join(" ")}`);
  }
  assert.equal(types.filter((type) => type === "deck_shuffled").length, 3, "the service's step and each seat's");
  // every card a party opened is the one the showdown shows
  const shown = new Map(
    table.log
      .filter((d) => d.round === table.roundId && (d.type === "cards_shown" || d.type === "card_opened"))
      .flatMap((d) => (d.type === "card_opened" ? [[d.data.position, d.data.card]] : d.data.cards.map((c) => [c.position, c.card]))),
  );
  let opened = 0;
  for (const [seat, party] of table.parties.entries()) {
    for (const [position, card] of party.ownCards(table.state, table.events())) {
      assert.equal(card, shown.get(position), `seat ${seat}, position ${position}`);
      opened += 1;
    }
  }
  assert.ok(opened >= 2, "the player's two face-down cards at least");
});

test("a party refuses what Python's refuses: another's step, its own card's share, an early key", () => {
  const table = new Table();
  table.open();
  const [first, second] = table.parties;
  assert.throws(() => second.step(table.state, table.events()), PartyRefusedError, "not asked for its step");
  assert.throws(() => first.reveal(table.state, table.events()), /no keys_due asks this seat for its key/);
  assert.throws(() => first.shares(table.state, table.events()), /no shares_due asks this seat for shares/);
  // a forged log: seat 1's round key left out, or proved for another table
  const events = table.events();
  const keyless = events.filter(([type, actor]) => !(type === "seed_commitment" && actor === "seat:1"));
  assert.throws(() => first.step(table.state, keyless), /the log does not hold every party's round key/);
  const forged = events.map(([type, actor, data]) =>
    type === "seed_commitment" && actor === "seat:1"
      ? [type, actor, { ...data, round_key: first.commitmentData("ab".repeat(32)).round_key }]
      : [type, actor, data],
  );
  assert.throws(() => first.step(table.state, forged), /seat:1's round key: seat:1's round key: the proof does not verify/);
  while (table.state.crypto.request?.kind !== "shares_due") table.step();
  // the service asking a seat for the share of its own face-down card
  const request = table.state.crypto.request;
  const hand = table.state.hand;
  const own = hand.held.find((h) => h.seat === hand.player && h.face === "down").position;
  const greedy = {
    ...table.state,
    crypto: { ...table.state.crypto, request: { ...request, positions: new Map([[hand.player, [own]]]) } },
  };
  assert.throws(() => table.parties[hand.player].shares(greedy, table.events()), new RegExp(`share of position ${own}: refused`));
  assert.throws(() => table.parties[hand.dealer].open(table.state, table.events(), own), /is not this seat's face-down card/);
  while (table.step());
});

test("a party's private key is in no printed or serialised form", () => {
  // the key is only ever given by reveal, at the showdown
  const table = new Table();
  table.open();
  while (table.state.crypto.request?.kind !== "keys_due") table.step();
  const party = table.parties[table.state.crypto.request.seats[0]];
  const secret = party.reveal(table.state, table.events()).secret;
  for (const shown of [JSON.stringify(party), String(party), inspect(party, { showHidden: true, depth: 9 })]) {
    assert.ok(!shown.includes(secret), shown);
  }
  assert.deepEqual(Object.keys(party), ["seat", "table", "round_id"]);
  assert.notEqual(new Party(0, TABLE, `${TABLE}.1`).publicKey(), party.publicKey(), "a fresh key each time");
});

// A lying operator against a seat's party (tests/games/test_toto21_blind_party.py's cases): the
// service signs whatever server events it likes and the rules' fold takes them as they come;
// the party reads the round's events itself and refuses, with Python's words.

/** The state and round events after the operator's `drafts` ([type, actor, data]), folded by
 * the rules as the play page folds what it is served. */
function forged(table, ...drafts) {
  let state = table.state;
  const events = table.events();
  for (const [type, actor, data] of drafts) {
    state = GAME.apply(state, { type, actor, data, round: table.roundId, time: table.now, table: TABLE, version: 3 });
    events.push([type, actor, data]);
  }
  return [state, events];
}

function toFirstMove() {
  const table = new Table();
  table.open();
  while (table.state.crypto.request !== null) table.answer(table.state.crypto.request.seats[0]);
  return table;
}

const asked = (table, seats, positions) => ["shares_due", "server", { deadline: table.now + 10_000, requests: seats.map((seat) => ({ seat, positions })) }];

test("a lying operator: the player's own card dealt again as the dealer's is not shared", () => {
  const table = toFirstMove();
  const { hand, crypto } = table.state;
  const again = { position: 0, seat: hand.dealer, face: "down", ciphertext: { ...crypto.decks.at(-1)[0] }, server_share: crypto.shares.get(0).server };
  const [state, events] = forged(table, ["card_dealt", "server", again], asked(table, [hand.player], [0]));
  assert.throws(() => table.parties[hand.player].shares(state, events), /a card dealt that no deal or draw deals/);
});

test("a lying operator: a step logged after the deal is not shared from", () => {
  const table = toFirstMove();
  const hand = table.state.hand;
  const last = table.events().findLast(([type]) => type === "deck_shuffled")[2];
  const [state, events] = forged(table, ["deck_shuffled", "server", { ...last }], asked(table, [hand.player], [3]));
  assert.throws(() => table.parties[hand.player].shares(state, events), /step 3 by server/);
});

test("a lying operator: steps the service logs for the seats are refused", () => {
  const table = new Table();
  table.open();
  const first = table.events().find(([type]) => type === "deck_shuffled")[2];
  const seat = table.state.crypto.request.seats[0];
  const [state, events] = forged(table, ["deck_shuffled", "server", { ...first }]);
  assert.throws(() => table.parties[seat].checkChain(state, events), /step 1 by server: the service shuffles first/);
});

for (const endedBy of ["the player's stand", "the player's move timeout"]) {
  test(`a lying operator: no key is revealed while the dealer has still to play (${endedBy})`, () => {
    const table = toFirstMove();
    const hand = table.state.hand;
    const turn =
      endedBy === "the player's stand" ? ["stand", `seat:${hand.player}`, {}] : ["move_timeout", "server", { seat: hand.player, deadline: hand.move_deadline }];
    const [state, events] = forged(table, turn, ["keys_due", "server", { deadline: table.now + 10_000, seats: [0, 1] }]);
    assert.throws(() => table.parties[hand.player].reveal(state, events), /not after the dealer's turn or a claim/);
  });
}

test("a lying operator: a party whose key is revealed answers nothing more", () => {
  const table = new Table();
  table.open();
  while (table.step());
  assert.throws(() => table.parties[0].commitmentData("00".repeat(32)), /key for round .* is revealed/);
});

test("a lying operator: a round whose seats are not two distinct seats is refused", () => {
  const table = toFirstMove();
  const state = { ...table.state, round: { ...table.state.round, seats: [0, 0] } };
  assert.throws(() => table.parties[0].checkChain(state, table.events()), /seats \[0, 0\] are not two seats/);
});

test("the honest round is read as the rules deal it", () => {
  const table = toFirstMove();
  const hand = table.state.hand;
  const read = table.parties[0].checkChain(table.state, table.events());
  assert.deepEqual(read.roles, [hand.dealer, hand.player]);
  assert.deepEqual(read.cards, new Map(hand.held.map((h) => [h.position, [h.seat, h.face]])));
  assert.equal(read.decks.length, 4);
  assert.equal(read.keys.size, 3);
});
