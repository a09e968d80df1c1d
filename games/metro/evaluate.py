"""How good a Metro position is for each seat, in points: the game's evaluation for the AI
(`Game.evaluate`), behind greedy play and the search's cut-off rollouts.

Points never go away in Metro: every tile adds crossings to the routes through it, and the game
is about whose routes collect them. So a seat's *worth* is its score plus what its open routes
hold already (their length), plus a bonus for each open route (it will still grow) and for a route
that runs into a square next to the central station (it may yet be doubled).
"""

from __future__ import annotations

from dataclasses import dataclass

from games.metro.board import CENTRE_SQUARES, NEIGHBOURS
from games.metro.position import OPEN, MetroPosition

# Squares beside the central station: a route entering one may end in the centre (doubled).
NEAR_CENTRE: frozenset[int] = frozenset(
    sq for c in CENTRE_SQUARES for sq in range(64) if NEIGHBOURS[c] >> sq & 1
)
_NEAR = tuple(sq in NEAR_CENTRE for sq in range(64))


@dataclass(frozen=True, slots=True)
class Weights:
    length: float = 1.0  # per crossing an open route already has
    open_bonus: float = 12.0  # an open route will still grow...
    open_bonus_early: float = 0.0  # ...and more so the emptier the board is
    near_centre: float = 0.3  # times the length, for an open route heading beside the centre


DEFAULT_WEIGHTS = Weights()


def evaluate(state: MetroPosition, w: Weights = DEFAULT_WEIGHTS) -> list[float]:
    """Each seat's score plus the estimated worth of its open routes; exact scores at the end."""
    out = list(map(float, state.scores))
    if state.seat < 0:
        return out
    owner, ends, lengths, heads = state.owner, state.ends, state.lengths, state.heads
    wl, wc = w.length, w.near_centre
    wo = w.open_bonus + w.open_bonus_early * (60 - state.placed) / 60
    gone = state.retired_mask  # a retired seat's routes will score nothing more
    # Station by station (index 0 has no owner), the lists walked together: the same sums in
    # the same order as indexing each, at a third of the cost (this runs once per rollout).
    for o, end, n, head in zip(owner, ends, lengths, heads, strict=True):
        if end == OPEN and o >= 0 and not gone >> o & 1:
            v = wl * n + wo
            if _NEAR[head >> 3]:
                v += wc * n
            out[o] += v
    return out
