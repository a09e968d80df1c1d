"""Margins: how a search compares the game's evaluation across seats.

`Game.evaluate(state)` (each game's own heuristic, exact once the game is over) gives every seat's
expected final score. A seat wants to finish ahead, so a player judges a position by its *margin*:
its own value minus the best other seat's. Alone at the table (a solo game) the margin is simply
its own value.
"""

from __future__ import annotations

from collections.abc import Sequence


def margin(values: Sequence[float], seat: int) -> float:
    """Points ahead of the best other seat (negative when behind); the value itself when solo."""
    if len(values) == 1:
        return values[seat]
    best = max(v for i, v in enumerate(values) if i != seat)
    return values[seat] - best


def margins(values: Sequence[float]) -> list[float]:
    """margin() for every seat at once (the search backs up one value per seat)."""
    n = len(values)
    if n == 1:
        return [values[0]]
    if n == 2:
        d = values[0] - values[1]
        return [d, -d]
    top = max(range(n), key=values.__getitem__)
    second = max(v for i, v in enumerate(values) if i != top)
    best = values[top]
    return [v - (second if i == top else best) for i, v in enumerate(values)]
