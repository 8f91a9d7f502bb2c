// What a table is, in words, from its public view: the game and rule set, the money and the
// times it is played for, and who sits there. The invite shows it before a player joins, and
// the table keeps it in view.

const seconds = (ms) => (ms % 60000 === 0 ? `${ms / 60000} min` : `${Math.round(ms / 1000)} s`);

/** The table's game as a title: "Toto21", "Kvitlach, Pressburg rules". */
export function gameTitle(view) {
  if (view.game === "toto21") return "Toto21";
  return `Kvitlach, ${view.options.rule_set === "pressburg" ? "Pressburg" : "classic"} rules`;
}

/** Where its rules are explained on /rules. */
export function rulesLink(view) {
  return view.game === "toto21" ? "/rules#toto21" : `/rules#kvitlach-${view.options.rule_set}`;
}

/** The conditions, one short phrase each. */
export function terms(view) {
  const o = view.options;
  if (view.game === "toto21") {
    return [
      `first to ${o.target} points`,
      o.stake ? `a stake of ${o.stake} from each player, the winner takes both` : "no stake: played for points only",
      `${seconds(o.move_time_ms)} a move`,
      `${seconds(o.game_time_ms)} of game time`,
      ...(o.dealing === "blind" ? ["dealer-blind: nobody, the operator included, sees a card before its owner"] : []),
    ];
  }
  const draws = o.banker_must_draw === "none" ? "the banker draws as they like" : `the banker must draw at ${o.banker_must_draw} or less`;
  const exit = { mandatory: "a 4 or 7 ends a banker's term from its 4th round", optional: "a banker may step down on a 4 or 7 from the 4th round", off: "no 4-or-7 rule" }[o.banker_exit];
  return [
    `${o.decks} deck${o.decks === 1 ? "" : "s"}, up to ${o.max_seats} seats`,
    `the banker funds the bank with ${o.bank_funding}`,
    o.ante ? `each player pays an ante of ${o.ante} once a term` : "no ante",
    `bets of 1 to ${o.max_bet}`,
    draws,
    exit,
    `${seconds(o.move_time_ms)} a move`,
  ];
}

/** Who sits there, and whether a newcomer can join: {said, open}. */
export function seating(view) {
  const taken = view.seats.length;
  if (view.game === "toto21") {
    if (view.phase === "over") return { said: "The match is over.", open: false };
    if (view.phase === "open") return { said: taken ? "The creator is waiting for a second player." : "Nobody has sat down yet.", open: true };
    return { said: "Both seats are taken: the match is on.", open: false };
  }
  const most = view.options.max_seats;
  const who = view.seats.map((s) => `seat ${s}${s === view.banker ? " (banker)" : ""}`).join(", ");
  const said = `${taken} of ${most} seats taken${who ? `: ${who}` : ""}.`;
  return { said, open: taken < most };
}

/** The least a Kvitlach newcomer must bring to play a round: the ante and one chip to bet. */
export function leastBuyIn(view) {
  return view.game === "kvitlach" ? view.options.ante + 1 : null;
}
