"""Strength levels: a name for a player and its budget. The same code plays at every level.

| level    | player                           | budget               |
|----------|----------------------------------|----------------------|
| random   | uniform random legal move        | none                 |
| easy     | greedy with Gumbel noise (3 pts) | none                 |
| medium   | greedy (one move ahead)          | none                 |
| hard     | hindsight planning (Metro X),    | 0.7 s                |
|          | else ISMCTS                      |                      |
| expert   | ISMCTS                           | 3 s                  |
| mcts-N   | ISMCTS, exactly N iterations     | none (reproducible)  |

`mcts-N` (N = 1..100000) exists for reproducible analysis and tests: its answer depends only
on the view and the seed, not on how fast the machine is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from services.ai.players.base import Player
from services.ai.players.hindsight import HindsightPlayer
from services.ai.players.ismcts import ISMCTSPlayer
from services.ai.players.simple import GreedyPlayer, RandomPlayer
from services.common.levels import (
    DEFAULT_LEVEL,
    LEVEL_BUDGET_MS,
    NAMED_LEVELS,
    describe,
    fixed_iterations,
)
from services.common.wording import shown

MIN_BUDGET_MS = 10
MAX_BUDGET_MS = 30_000


class UnknownLevelError(ValueError):
    """A level name that is not listed, or a budget out of range."""


@dataclass(frozen=True, slots=True)
class Level:
    name: str
    description: str
    make: Callable[[], Player]
    budget_ms: int  # default thinking time; 0 for players that do not search by time

    @property
    def timed(self) -> bool:
        return self.budget_ms > 0


LEVELS: dict[str, Level] = {
    lv.name: lv
    for lv in (
        Level("random", "a uniformly random legal move", RandomPlayer, 0),
        Level("easy", "greedy with noise: often good, sometimes careless",
              lambda: GreedyPlayer(noise=3.0, name="easy"), 0),
        Level("medium", "greedy: the best position one move ahead",
              lambda: GreedyPlayer(name="medium"), 0),
        Level("hard", "hindsight planning over sampled futures where the game can be "
              "planned (Metro X), else information-set MCTS; 0.7 s a move",
              lambda: HindsightPlayer(0.7, "hard", ISMCTSPlayer(budget_s=0.7, name="hard")),
              LEVEL_BUDGET_MS["hard"]),
        Level("expert", "information-set MCTS, 3 s a move",
              lambda: ISMCTSPlayer(budget_s=3.0, name="expert"), LEVEL_BUDGET_MS["expert"]),
    )
}  # fmt: skip
if tuple(LEVELS) != NAMED_LEVELS:  # the shared list is the contract with the engine
    raise RuntimeError("services/common/levels.py and the AI's level table disagree")


def level_for(name: str) -> Level:
    """The level called `name` ("" means the default); UnknownLevelError otherwise."""
    name = name or DEFAULT_LEVEL
    if name in LEVELS:
        return LEVELS[name]
    n = fixed_iterations(name)
    if n is not None:
        return Level(name, f"information-set MCTS, exactly {n} iterations",
                     lambda: ISMCTSPlayer(iterations=n, name=name), 0)  # fmt: skip
    raise UnknownLevelError(f"unknown level {shown(name)}; known levels: {describe()}")


def check_budget(budget_ms: int) -> None:
    """0 means the level's default; anything else must lie in the allowed range."""
    if budget_ms != 0 and not MIN_BUDGET_MS <= budget_ms <= MAX_BUDGET_MS:
        raise UnknownLevelError(
            f"budget_ms must be 0 (the level's default) or {MIN_BUDGET_MS}-{MAX_BUDGET_MS}, "
            f"got {budget_ms}"
        )


def parse_spec(spec: str) -> tuple[Level, float | None]:
    """An arena entrant "level" or "level:budget_ms": the level and its time budget in seconds."""
    name, _, budget = spec.partition(":")
    level = level_for(name)
    if not budget:
        return level, None
    if not budget.isdigit():
        raise UnknownLevelError(f"budget in {spec!r} must be whole milliseconds")
    check_budget(int(budget))
    return level, int(budget) / 1000
