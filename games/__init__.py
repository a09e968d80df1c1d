"""The rules core: pure Python, no I/O, deterministic given a seed. Engine and AI import it.
Its hot modules run compiled where `./dev setup` built them (games/native.py).

One package per game (games/<kind>/), each behind the protocol of `games.base`."""

from games import native

native.check()  # before any game's module loads: never a compiled module older than its source

from games.registry import all_games, default, get, kinds, register_game  # noqa: E402

__all__ = ["all_games", "default", "get", "kinds", "register_game"]
