"""The game plug-ins. A new game is a new module here plus one line in ``registry``."""

from functools import cache

from fairdeal.games.base import Game


@cache
def registry() -> dict[str, Game]:
    """Every game by name (imported on first use, so the core loads fast)."""
    from fairdeal.games import kvitlach, toto21

    return {game.name: game for game in (toto21.GAME, kvitlach.GAME)}
