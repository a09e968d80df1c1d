"""The 14-card deck (RULES-METROX.md §2) and its shuffles.

Cards are their codes ("3", "s2", "t", "f*"): the same strings in records, views and events, so
no translation sits on the hot path. A trailing `*` is the shuffle icon.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter

DECK: tuple[str, ...] = ("1", "2", "2", "3", "3", "4", "4", "5*", "s2", "s3", "t", "t", "f", "f*")
DECK_COUNTER = Counter(DECK)
CODES: tuple[str, ...] = tuple(sorted(DECK_COUNTER))

NUMBER, SKIP, TRANSFER, FREE = 0, 1, 2, 3


def _info(code: str) -> tuple[int, int, bool]:
    shuffle = code.endswith("*")
    body = code.rstrip("*")
    if body == "t":
        return TRANSFER, 0, shuffle
    if body == "f":
        return FREE, 0, shuffle
    if body.startswith("s"):
        return SKIP, int(body[1:]), shuffle
    return NUMBER, int(body), shuffle


# code -> (kind, n, shuffle icon)
INFO: dict[str, tuple[int, int, bool]] = {c: _info(c) for c in CODES}


def window_mark(code: str) -> str:
    """What a card writes in a window: "3" for a number, "(2)" for a skip, "*" for a transfer."""
    kind, n, _ = INFO[code]
    if kind == SKIP:
        return f"({n})"
    if kind == TRANSFER:
        return "*"
    return str(n)


def shuffle_source(seed: int, daily: str | None) -> str:
    """The name every shuffle of a game derives from: the daily string when there is one (so a
    daily puzzle deals the same cards to everyone), else the game's seed."""
    return f"daily:{daily}" if daily is not None else f"seed:{seed}"


_ORDERINGS = math.factorial(len(DECK))


def shuffled(source: str, index: int) -> list[str]:
    """Shuffle number `index` of a game: a pure function of its source, so states carry two
    plain values instead of a random generator, and a replay or a restore deals the same."""
    # Fisher-Yates driven by a 256-bit hash read as a mixed-radix number: 14! < 2**37, so the
    # bias is below 2**-200, and it costs a tenth of seeding a random.Random.
    x = int.from_bytes(hashlib.sha256(f"metrox/{source}/{index}".encode()).digest(), "big")
    # The digits taken below depend on x modulo 14! alone: reduce first, so that each divmod
    # works on a small int instead of a 256-bit one (the same deck, at half the cost).
    x %= _ORDERINGS
    deck = list(DECK)
    for i in range(len(deck) - 1, 0, -1):
        x, j = divmod(x, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck
