"""The rules core: pure Python, no I/O, deterministic given a seed. Engine and AI import it."""

from games.registry import get, kinds, register

__all__ = ["get", "kinds", "register"]
