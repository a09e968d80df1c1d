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


def register_game(game: Game) -> Game:
    """Register `game` under its kind and bind its state class to it (`BoundToGame.game`: a
    state's `view` and `record` ask its game), so that the one call in a game's `__init__.py`
    is the whole of its wiring. ValueError for a kind or state class registered twice."""
    state = game.parts.state
    known = _GAMES.get(game.kind)
    if known is not None and known is not game:
        raise ValueError(f"game {game.kind!r} is registered already")
    if getattr(state, "game", game) is not game:
        raise ValueError(f"{state.__name__} belongs to {state.game.kind!r} already")
    state.game = game
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
