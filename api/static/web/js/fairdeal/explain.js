// The round told as data, as ``fairdeal-verify --explain`` tells it: who sat, the cards
// as dealt (with positions), each hand's total and result as its game tells them (the
// game's tell.js, from the events the replay checked), what happened in order, the money (transfers, balances, and each account before
// and after the round: who won how much), and what bounds when its head was logged.
//
// A dealer-blind round (version 3, SPEC 15.13) is told as verifier/explain.py tells it: its
// cards as the round opened them (the up-card by card_opened, the rest by cards_shown; "?"
// where none was opened), each event by its command data with its cryptographic members
// (keys, decks, shares, revealed keys) summarised in words, and no deck to derive by hand.

import { commandData } from "./blindround.js";
import { registry } from "./engine/registry.js";
import { quorumNames, witnessBound } from "./witnesses.js";

const iso = (ms) => new Date(ms).toISOString();
const BLIND = 3;
const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// A dealer-blind round's cryptographic members (SPEC 15.13), each told in words, not bytes
export const CRYPTO = Object.freeze({
  server_key: "the service's round key, with its proof",
  round_key: "the seat's round key, with its proof",
  deck: "a deck of ciphertexts with its shuffle proof",
  shares: "a decryption share of each position asked, with its proof",
  secret: "the seat's round key revealed",
});
export const BY_HAND_BLIND =
  "a dealer-blind round has no deck to derive from seeds: fairdeal-verify opened each card" +
  " above from the logged decryption shares and the revealed round keys (SPEC 15.12.4)";
const LAST_MS = 253402300799999n; // 9999-12-31T23:59:59.999Z, as far as Python's utc goes

/** Epoch milliseconds (a BigInt) as UTC ISO 8601; "?" out of range (verifier/explain.py). */
const utc = (ms) => (ms >= 0n && ms <= LAST_MS ? iso(Number(ms)) : "?");

/** The story of a verified bundle's ``story`` (verify.js), or null when it has none. */
export function explain(story) {
  if (!story) return null;
  const named = story.round ? story.rounds.get(story.round) : [...story.rounds.values()].at(-1);
  const events = story.events.filter((e) => !named || e.round === named.id || e.seq >= (named?.opened.seq ?? 0));
  const blind = story.first.version >= BLIND;
  const dealt = named ? cardsOf(named, blind) : [];
  return {
    table: story.table,
    round: story.round,
    version: story.first.version,
    game: story.first.data.game,
    vouches:
      story.first.version === 1
        ? "a version-1 table: every move is the operator's word alone"
        : blind
          ? "a version-3 (dealer-blind) table: every seat is keyed and signs its own moves"
          : "a version-2 table: keyed seats sign their own moves; keyless seats' moves are the operator's word",
    seats: named ? named.seats : [],
    clientSeeds: named?.clientSeeds ?? [],
    serverSeed: named?.serverSeed ?? null,
    commitment: named?.commitment ?? null,
    cards: dealt,
    happened: events.map((e) => happened(e)),
    money: story.money.history
      .filter((h) => !named || h.event.round === named.id || h.event.seq > named.opened.seq)
      .map((h) => ({ seq: h.event.seq, type: h.event.type, transfers: h.transfers, balances: h.balances ?? null })),
    balances: story.money.balances,
    hands: named && dealt.every((d) => d.card !== "?") ? handsOf(story.first.data.game, { ...named, dealt }) : [],
    accounts: named ? accounts(balancesBefore(story, named.opened.seq), story.money.balances) : [],
    ...logged(story.round ? `Round ${story.round}` : `The table's head (seq ${story.events.at(-1).seq})`, story.witnessed ?? null),
    checkByHand: blind ? BY_HAND_BLIND : null,
  };
}

/** An event as told: its data (in version 3, a seat's command data: the members it signed put
 * back, SPEC 15.13.11) and ``says``, its cryptographic members in words (explain.py's). */
function happened(e) {
  const data = e.version >= BLIND ? commandData(e.version, e.data) : e.data;
  const says = e.version >= BLIND ? Object.keys(CRYPTO).filter((name) => Object.hasOwn(data, name)).map((name) => CRYPTO[name]) : [];
  return { seq: e.seq, time: e.time, iso: iso(e.time), type: e.type, actor: e.actor, data, says };
}

/** The round's dealt cards ({seq, position, seat, face, card}); a dealer-blind round's as the
 * round opened them, "?" where it opened none (a seat withheld its key). */
function cardsOf(round, blind) {
  if (!blind) return round.dealt.map((d) => ({ ...d }));
  const opened = new Map();
  for (const e of [round.opened, ...round.events]) {
    let shown;
    if (e.type === "card_opened") shown = [e.data];
    else if (e.type === "cards_shown") shown = Array.isArray(e.data.cards) ? e.data.cards.filter(isObject) : [];
    else continue;
    for (const card of shown) {
      if (Number.isSafeInteger(card.position) && typeof card.card === "string") opened.set(card.position, card.card);
    }
  }
  return round.dealt.map((d) => ({ ...d, card: opened.get(d.position) ?? "?" }));
}

/** Each hand of a round as its game tells it (none for a game this module does not know):
 * {seat, role, cards, total, result, besides}, ``besides`` the money the seat moved that was
 * no hand's result (a bank's funding, an ante), as phrases; none unless the game tells some. */
function handsOf(game, round) {
  const tell = registry().get(game)?.tell;
  const told = tell ? tell({ id: round.id, dealt: round.dealt, events: [round.opened, ...round.events] }) : [];
  return told.map((hand) => ({ besides: [], ...hand }));
}

/** When ``head`` was in the log, by the witnesses' word (step 18, ``witnessed`` as
 * witnesses.js reads the checkpoint; null: none given) or nobody's but the operator's:
 * {logged (a sentence, as verifier/explain.py says it), witnessBound ({posix, utc,
 * witnesses}, or null without a quorum)}. */
function logged(head, witnessed) {
  const bound = witnessed ? witnessBound(witnessed) : null;
  let said;
  if (!witnessed) {
    said = `${head}'s times are the operator's own claims, and no witness bounds them (pass --witness to require one)`;
  } else if (bound === null) {
    said =
      `${head}'s times are the operator's own claims: its checkpoint lacks the cosignatures of ` +
      `${witnessed.quorum} of the witnesses given, so no witness bounds them`;
  } else {
    said =
      `${head} was in the log no later than ${utc(bound * 1000n + 999n)} (the end of POSIX second ${bound}), ` +
      `the witness-bounded time: when ${witnessed.quorum} of the ${witnessed.given.length} witnesses given ` +
      `had cosigned its checkpoint (${quorumNames(witnessed).join(", ")})`;
  }
  const found =
    bound === null ? null : { posix: bound, utc: utc(bound * 1000n + 999n), witnesses: quorumNames(witnessed) };
  return { logged: `${said}.`, witnessBound: found };
}

/** The balances before the event at ``seq``: the last money event's before it. */
function balancesBefore(story, seq) {
  let before = story.startBalances;
  for (const h of story.money.history) if (h.event.seq < seq && h.balances) before = h.balances;
  return before;
}

/** Each account before and after, and its change (verifier/explain.py's _money). */
function accounts(before, after) {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names.map((account) => {
    const [from, to] = [before[account] ?? 0, after[account] ?? 0];
    return { account, before: from, after: to, change: to - from };
  });
}

/** "who won what": the accounts the round changed, as one line. */
export function whoWon(accountsTable) {
  const moved = accountsTable.filter((a) => a.change !== 0);
  if (!moved.length) return "no money moved";
  return moved.map((a) => `${a.account} ${a.change > 0 ? "won" : "lost"} ${Math.abs(a.change)}`).join(", ");
}
