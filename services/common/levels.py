"""The names of AI strength levels: the contract between the engine, which stores an AI seat's
level when a game is created, and the AI workers, which play it. One list, so a game can never
hold a level no worker knows (what each level does lives in services/ai/players/levels.py)."""

from __future__ import annotations

import re

import games
from services.common.wording import shown

NAMED_LEVELS = ("random", "easy", "medium", "hard", "expert")
DEFAULT_LEVEL = "medium"
MAX_ITERATIONS = 100_000
FIXED_ITERATIONS = re.compile(r"mcts-([0-9]{1,6})")  # "mcts-N": exactly N search iterations

# The documented thinking time of each searching level (the others answer at once). The engine
# leases an AI turn to the worker that claimed it for longer than this (job_lease_ms), so a
# slow search is never handed to a second worker that would run a duplicate one.
LEVEL_BUDGET_MS = {"hard": 700, "expert": 3000}
LEASE_BASE_MS = 3000  # reading the game, answering, a person's pace (services/ai/pace.py)
LEASE_BUDGET_FACTOR = 2  # a search may overrun its budget on a loaded machine (4.9 s seen)
LEASE_MS_PER_ITERATION = 1  # mcts-N: a floor of 1,000 iterations/s (the search does ~7,000)


def fixed_iterations(name: str) -> int | None:
    """N for a valid "mcts-N" level, else None."""
    match = FIXED_ITERATIONS.fullmatch(name)
    if match and 1 <= int(match.group(1)) <= MAX_ITERATIONS:
        return int(match.group(1))
    return None


def job_lease_ms(level: str) -> int:
    """How long an AI turn at `level` stays with the worker that claimed it before it is taken
    to be dead and the turn handed to another: the level's budget, doubled, plus a base."""
    iterations = fixed_iterations(level)
    budget = LEVEL_BUDGET_MS.get(level, 0)
    if iterations is not None:
        budget = iterations * LEASE_MS_PER_ITERATION
    return LEASE_BASE_MS + LEASE_BUDGET_FACTOR * budget


MAX_LEASE_MS = job_lease_ms(f"mcts-{MAX_ITERATIONS}")


def offered_levels(kind: str | None = None) -> tuple[str, ...]:
    """The named levels game `kind` offers, weakest first: its `ai_levels` (a game leaves out a
    level measured no stronger there than the one below), else every one; None: every one."""
    if kind is None:
        return NAMED_LEVELS
    own = games.get(kind).ai_levels
    return NAMED_LEVELS if own is None else tuple(n for n in NAMED_LEVELS if n in own)


def is_level(name: str, kind: str | None = None) -> bool:
    """A level a new AI seat or hint may ask for: a named one the game offers, or mcts-N. Every
    named level stays known to the workers, so a seat stored before a game left one out plays on."""
    return name in offered_levels(kind) or fixed_iterations(name) is not None


def level_error(name: str, field: str, kind: str | None = None) -> str | None:
    """Why `name` is refused for game `kind` (the message names `field`, the game and its
    levels), or None when it is a level a new seat, clock or hint may ask for: the one wording
    the engine's validation, the clock and the AI's hints all answer with."""
    if is_level(name, kind):
        return None
    where = f" for {games.get(kind).name}" if kind else ""
    return f"{field} must be one of {describe(kind)}{where}; got {shown(name)}"


def still_offered(name: str, kind: str) -> str:
    """`name` when game `kind` offers it, else the game's strongest level: a rematch of a table
    made before the game left a level out gets the nearest level it still offers."""
    return name if is_level(name, kind) else offered_levels(kind)[-1]


def describe(kind: str | None = None) -> str:
    return ", ".join([*offered_levels(kind), f"mcts-N (N 1-{MAX_ITERATIONS})"])


# What each named level means, for people (GET /api/meta, the lobby, the hint picker).
LEVEL_DESCRIPTIONS = {
    "random": "plays any legal move",
    "easy": "looks one move ahead, with slips",
    "medium": "looks one move ahead",
    "hard": "searches about 0.7 s a move",
    "expert": "searches about 3 s a move",
}


def level_table(kind: str | None = None) -> list[dict[str, str]]:
    """The named levels game `kind` offers, in order, with their descriptions."""
    return [{"name": n, "description": LEVEL_DESCRIPTIONS[n]} for n in offered_levels(kind)]
