"""Game kinds by name. Importing a game's module registers it, as in OpenSpiel."""

from __future__ import annotations

from importlib import import_module

from games.base import Game
from games.errors import RulesError

_GAMES: dict[str, Game] = {}
_KNOWN_MODULES = {"metro": "games.metro"}


def register(game: Game) -> Game:
    _GAMES[game.kind] = game
    return game


def get(kind: str) -> Game:
    """The game called `kind`; raises RulesError naming the known kinds otherwise."""
    if kind not in _GAMES and kind in _KNOWN_MODULES:
        import_module(_KNOWN_MODULES[kind])
    try:
        return _GAMES[kind]
    except KeyError:
        known = ", ".join(sorted(_KNOWN_MODULES))
        raise RulesError(f"unknown game {kind!r}; known games: {known}", field="game") from None


def kinds() -> list[str]:
    return sorted(_KNOWN_MODULES)
