"""Fast rollout moves: a uniformly random legal move without listing every legal move.

`MetroState.legal_moves()` builds one int per (tile, square); a rollout needs only one of them.
Counting the squares in each placement mask and picking the k-th set bit gives the same
distribution (each legal move equally likely, "draw" included) at a fraction of the cost.
"""

from __future__ import annotations

from collections.abc import Callable

from games.metro import DRAW, MetroState


def random_move(world: MetroState, rand: Callable[[], float]) -> int:
    """A legal move of the seat to move, each with equal probability (`rand` in [0, 1))."""
    if world.drawn >= 0:
        tiles: tuple[int, ...] = (world.drawn,)
    else:
        tiles = world.hands[world.seat]
        if len(tiles) > 1:
            tiles = tuple(dict.fromkeys(tiles))
    options = []
    total = 0
    for tile in tiles:
        for oriented, mask in world.placements_for(tile):
            count = mask.bit_count()
            options.append((oriented, mask, count))
            total += count
    can_draw = world.drawn < 0 and world.deck_pos < len(world.deck)
    pick = int(rand() * (total + can_draw))
    if pick >= total:
        return DRAW
    for oriented, mask, count in options:
        if pick < count:
            for _ in range(pick):
                mask &= mask - 1  # drop the lowest set square
            return oriented * 64 + (mask & -mask).bit_length() - 1
        pick -= count
    raise AssertionError("unreachable: pick < total")
