// fairdeal/games/__init__.py: the game plug-ins, by name. ../games/index.js registers the
// built-in ones (the one place they are named); a test's game is register()ed too.
// Exports: registry, register, unregister.

import { addDecks, removeDeck } from "./cards.js";

const GAMES = new Map();

/** Every game by name: a Map name -> game. */
export function registry() {
  return GAMES;
}

/** Make `game` known by its name, with its decks (`unregister` undoes it). */
export function register(game) {
  if (GAMES.has(game.name)) throw new RangeError(`a game named ${JSON.stringify(game.name)} is already registered`);
  addDecks(game.name, game.decks); // the built-in ones: checked, as cards has them
  GAMES.set(game.name, game);
}

/** Forget a game that `register` added, and its decks. */
export function unregister(name) {
  const game = GAMES.get(name);
  if (game === undefined) throw new RangeError(`no game named ${JSON.stringify(name)}`);
  GAMES.delete(name);
  for (const decks of game.decks.keys()) removeDeck(name, decks);
}
