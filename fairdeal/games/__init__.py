"""The game plug-ins, by name. See README.md here for what a game provides and how to
add one: a package beside these two, its deck in ``cards``, and its ``GAME`` in
``_BUILT_IN`` below (or, for a game defined elsewhere, ``register(game)``)."""

from collections.abc import Mapping

from fairdeal import cards
from fairdeal.game import AnyGame

_BUILT_IN = ("fairdeal.games.toto21", "fairdeal.games.kvitlach")
_GAMES: dict[str, AnyGame] = {}


def registry() -> Mapping[str, AnyGame]:
    """Every game by name (the built-in ones imported on first use, so the core loads fast)."""
    if not _GAMES:
        _load_built_in()
    return _GAMES


def register(game: AnyGame) -> None:
    """Make ``game`` known by its name, with its decks: to the service, the CLI and the
    verifier alike (``unregister`` undoes it)."""
    if game.name in registry():
        raise ValueError(f"a game named {game.name!r} is already registered")
    _add(game)


def unregister(name: str) -> None:
    """Forget a game that ``register`` added, and its decks."""
    game = _GAMES.pop(name)
    for decks in game.decks:
        cards.remove_deck(name, decks)


def _load_built_in() -> None:
    from importlib import import_module

    for module in _BUILT_IN:
        _add(import_module(module).GAME)


def _add(game: AnyGame) -> None:
    cards.add_decks(game.name, game.decks)  # the built-in ones: checked, as cards has them
    _GAMES[game.name] = game
