"""The rules core: pure Python, no I/O, deterministic given a seed. Engine and AI import it.

One package per game (games/<kind>/), each behind the protocol of `games.base`."""

from games.registry import all_games, default, get, kinds, register_game

__all__ = ["all_games", "default", "get", "kinds", "register_game"]
