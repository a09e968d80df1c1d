"""AI players for Metro: pure code (no I/O), deterministic given a seed.

A player sees only an `InfoSet` (what one seat's view shows) and answers a `SearchResult`:
ranked moves with values and visits. Levels (levels.py) name a player and its budget.
Where to look: infoset.py (a seat's knowledge, sampled worlds), evaluate.py (how good a position
is), simple.py (random, greedy), ismcts.py (information-set Monte Carlo tree search).
"""

from __future__ import annotations

from services.ai.players.base import Player, RankedMove, SearchResult
from services.ai.players.infoset import InfoSet
from services.ai.players.levels import DEFAULT_LEVEL, LEVELS, Level, UnknownLevelError, level_for

__all__ = [
    "DEFAULT_LEVEL",
    "LEVELS",
    "InfoSet",
    "Level",
    "Player",
    "RankedMove",
    "SearchResult",
    "UnknownLevelError",
    "level_for",
]
