// The round told as data, as ``fairdeal-verify --explain`` tells it: who sat, the cards
// as dealt (with positions), what happened in order, the money (transfers, balances).

const iso = (ms) => new Date(ms).toISOString();

/** The story of a verified bundle's ``story`` (verify.js), or null when it has none. */
export function explain(story) {
  if (!story) return null;
  const named = story.round ? story.rounds.get(story.round) : [...story.rounds.values()].at(-1);
  const events = story.events.filter((e) => !named || e.round === named.id || e.seq >= (named?.opened.seq ?? 0));
  return {
    table: story.table,
    round: story.round,
    version: story.first.version,
    game: story.first.data.game,
    vouches:
      story.first.version === 1
        ? "a version-1 table: every move is the operator's word alone"
        : "a version-2 table: keyed seats sign their own moves; keyless seats' moves are the operator's word",
    seats: named ? named.seats : [],
    clientSeeds: named?.clientSeeds ?? [],
    serverSeed: named?.serverSeed ?? null,
    commitment: named?.commitment ?? null,
    cards: named ? named.dealt.map((d) => ({ ...d })) : [],
    happened: events.map((e) => ({ seq: e.seq, time: e.time, iso: iso(e.time), type: e.type, actor: e.actor, data: e.data })),
    money: story.money.history
      .filter((h) => !named || h.event.round === named.id || h.event.seq > named.opened.seq)
      .map((h) => ({ seq: h.event.seq, type: h.event.type, transfers: h.transfers, balances: h.balances ?? null })),
    balances: story.money.balances,
  };
}
