"""AI players for every game of the platform: pure code (no I/O), deterministic given a seed.

Written only against the game protocol (games/base.py): nothing here names a game. A player sees
only an `InfoSet` (what one seat's view shows) and answers a `SearchResult`: the game's own move
values, ranked, with values and visits. Levels (levels.py) name a player and its budget.
Where to look: infoset.py (a seat's knowledge, sampled worlds from the game's sampler),
evaluate.py (margins over the game's evaluation), simple.py (random, greedy), ismcts.py
(information-set Monte Carlo tree search, decoupled for simultaneous turns).
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
