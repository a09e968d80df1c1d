"""Geometry of the scores while building (RULES-UNDERGROUND.md §3): loops and what they enclose.

A loop is a simple cycle of one colour's rails. When a rail joins two stations already on its
line, every simple cycle through that rail is new; `new_cycles` lists them (each a station list,
the new rail closing it from the last station back to the first). A station is enclosed by a loop
when its point lies strictly inside the loop's polygon (even-odd rule, straight segments between
the loop's stations, a point on the boundary is outside) and it is not on that loop.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

EPS = 1e-9


def on_segment(px: float, py: float, ax: float, ay: float, bx: float, by: float) -> bool:
    """Whether point p lies on the closed segment a-b."""
    cross = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    if abs(cross) > EPS:
        return False
    return (
        min(ax, bx) - EPS <= px <= max(ax, bx) + EPS
        and min(ay, by) - EPS <= py <= max(ay, by) + EPS
    )


def inside(px: float, py: float, poly: Sequence[tuple[float, float]]) -> bool:
    """Even-odd rule; a point on the polygon's boundary is outside."""
    n = len(poly)
    result = False
    ax, ay = poly[-1]
    for i in range(n):
        bx, by = poly[i]
        if on_segment(px, py, ax, ay, bx, by):
            return False
        if (ay > py) != (by > py):
            x_cross = ax + (py - ay) * (bx - ax) / (by - ay)
            if px < x_cross:
                result = not result
        ax, ay = bx, by
    return result


def enclosed_mask(
    cycle: Sequence[int], xs: Sequence[float], ys: Sequence[float], candidates: int
) -> int:
    """The stations of `candidates` (a bitmask) strictly inside the polygon of `cycle` and not
    on it."""
    poly = [(xs[i], ys[i]) for i in cycle]
    on = 0
    for i in cycle:
        on |= 1 << i
    cand = candidates & ~on
    if not cand:
        return 0
    x0 = min(p[0] for p in poly)
    x1 = max(p[0] for p in poly)
    y0 = min(p[1] for p in poly)
    y1 = max(p[1] for p in poly)
    out = 0
    while cand:
        low = cand & -cand
        i = low.bit_length() - 1
        cand ^= low
        x, y = xs[i], ys[i]
        if x0 < x < x1 and y0 < y < y1 and inside(x, y, poly):
            out |= low
    return out


def simple_paths(
    start: int, goal: int, neighbours: Callable[[int], Iterator[int]]
) -> Iterator[list[int]]:
    """Every simple path from `start` to `goal` (lists of stations, both ends included)."""
    path = [start]
    on_path = {start}
    stack: list[Iterator[int]] = [neighbours(start)]
    while stack:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            on_path.discard(path.pop())
            continue
        if nxt == goal:
            yield [*path, goal]
            continue
        if nxt in on_path:
            continue
        path.append(nxt)
        on_path.add(nxt)
        stack.append(neighbours(nxt))


def new_cycles(a: int, b: int, neighbours: Callable[[int], Iterator[int]]) -> Iterator[list[int]]:
    """The simple cycles a rail a-b closes, given the colour's rails before it (as `neighbours`):
    each is a simple path from a to b, closed by the new rail."""
    return simple_paths(a, b, neighbours)
