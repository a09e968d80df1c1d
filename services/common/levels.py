"""The names of AI strength levels: the contract between the engine, which stores an AI seat's
level when a game is created, and the AI workers, which play it. One list, so a game can never
hold a level no worker knows (what each level does lives in services/ai/players/levels.py)."""

from __future__ import annotations

import re

NAMED_LEVELS = ("random", "easy", "medium", "hard", "expert")
DEFAULT_LEVEL = "medium"
MAX_ITERATIONS = 100_000
FIXED_ITERATIONS = re.compile(r"mcts-([0-9]{1,6})")  # "mcts-N": exactly N search iterations


def fixed_iterations(name: str) -> int | None:
    """N for a valid "mcts-N" level, else None."""
    match = FIXED_ITERATIONS.fullmatch(name)
    if match and 1 <= int(match.group(1)) <= MAX_ITERATIONS:
        return int(match.group(1))
    return None


def is_level(name: str) -> bool:
    return name in NAMED_LEVELS or fixed_iterations(name) is not None


def describe() -> str:
    return ", ".join([*NAMED_LEVELS, f"mcts-N (N 1-{MAX_ITERATIONS})"])


# What each named level means, for people (GET /api/meta, the lobby, the hint picker).
LEVEL_DESCRIPTIONS = {
    "random": "plays any legal move",
    "easy": "looks one move ahead, with slips",
    "medium": "looks one move ahead",
    "hard": "searches about 0.7 s a move",
    "expert": "searches about 3 s a move",
}


def level_table() -> list[dict[str, str]]:
    """The named levels in order, with their descriptions."""
    return [{"name": n, "description": LEVEL_DESCRIPTIONS[n]} for n in NAMED_LEVELS]
