"""Game kinds by name. Every subpackage of `games` is a game; importing it registers it (as in
OpenSpiel), so adding a game is adding a package: nothing here or in the services names one."""

from __future__ import annotations

import pkgutil
from importlib import import_module
from pathlib import Path

from games.base import Game
from games.errors import RulesError

_GAMES: dict[str, Game] = {}
_loaded = False


def register(game: Game) -> Game:
    _GAMES[game.kind] = game
    return game


def _load_all() -> None:
    """Import every game package once (each registers itself)."""
    global _loaded
    if _loaded:
        return
    # The folder, not `games.__path__`: the package imports this module, so this one may not
    # import it back (no import circle).
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.ispkg:
            import_module(f"games.{info.name}")
    _loaded = True


def all_games() -> list[Game]:
    """Every game, in listing order (the first is the default)."""
    _load_all()
    return sorted(_GAMES.values(), key=lambda g: (g.order, g.kind))


def kinds() -> list[str]:
    return [g.kind for g in all_games()]


def default() -> Game:
    """The game a request that names none is about."""
    return all_games()[0]


def get(kind: str) -> Game:
    """The game called `kind`; RulesError naming the known kinds otherwise."""
    _load_all()
    try:
        return _GAMES[kind]
    except (KeyError, TypeError):
        known = ", ".join(kinds())
        raise RulesError(f"unknown game {kind!r}; known games: {known}", field="game") from None
