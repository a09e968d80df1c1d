"""The passenger's best ways (RULES-UNDERGROUND.md §3 "The passenger").

In a game each line (colour) is one connected network (a colour starts once and only grows from
its own stations), so riding colour c takes the passenger from any station of c to any other
station of c at no walk. A *way* is identified by where it ends and the set of lines ridden:
`(to, mask)`, mask bit c set when colour c is ridden. Among all ways to any target the best
are those with the fewest walks, then the fewest lines; `best_ways` returns every tied best way.

The search is exact, over states (station, set of lines ridden), in layers of walks (a 0-1 BFS):
within a layer the states are closed under rides, taking masks in order of size, and then every
state walks one section. A state (s, m) is dropped when some (s, m') with m' a subset of m was
reached with no more walks: every way through it is matched by one through (s, m') with no more
walks and no more lines, and ties only where both end with the same lines (the same way). Masks
of one layer grow only by riding, so all smaller masks of the layer are final when a mask is
filled. The first layer that touches a target gives the fewest walks; its smallest masks that
touch a target give the ways.
"""

from __future__ import annotations

from collections.abc import Sequence

from games.errors import GameError
from games.underground.map import Map


class TooCostly(GameError):
    """A search that would take more than its work budget (a position query's, never a game's:
    in a game each colour is one network, and the search stays small)."""


def _popcount(x: int) -> int:
    return x.bit_count()


def _bits(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def best_ways(
    board: Map,
    lines: Sequence[tuple[int, int]],
    source: int,
    targets: int,
    budget: int | None = None,
) -> tuple[int, list[tuple[int, int]]]:
    """(fewest walks, every tied best way as (station, colour mask)), the ways sorted by the
    station's id and then by the colours in §2 order.

    `lines`: the rideable networks as (colour bit, stations bitmask); in a game each colour is
    one network, a position query may give a colour in several pieces (riding a second piece of
    a colour already ridden adds no line). `targets`: a non-empty bitmask of stations.
    `budget`: the most work (states compared, about 50 ns each) the search may do, None for no
    limit; TooCostly past it, so that a hostile position query costs a bounded time."""
    if not targets:
        raise ValueError("no target")
    if targets >> source & 1:
        return 0, [(source, 0)]
    active = [(bit, st) for bit, st in lines if bit and st]
    nmask = board.neighbour_mask
    visited: dict[int, int] = {0: 1 << source}
    new: dict[int, int] = {0: 1 << source}
    walks = 0
    spent = 0

    def spend(work: int) -> None:
        nonlocal spent
        spent += work
        if budget is not None and spent > budget:
            raise TooCostly(
                f"this position is too costly to search (more than {budget} steps); "
                "send fewer rails, in fewer pieces per colour"
            )

    while True:
        # Close the layer under rides, smallest masks first.
        by_size: dict[int, list[int]] = {}
        for m in new:
            by_size.setdefault(_popcount(m), []).append(m)
        size = min(by_size)
        top = max(by_size)
        while size <= top:
            for m in by_size.get(size, ()):
                # Pieces of colours already ridden: more stations under the same mask.
                grown = True
                while grown:
                    grown = False
                    cur = new[m]
                    for bit, stations in active:
                        if m & bit and cur & stations:
                            add = stations & ~visited[m]
                            if add:
                                spend(len(visited))
                                for m3, v3 in visited.items():
                                    if m3 != m and m3 & ~m == 0:
                                        add &= ~v3
                            if add:
                                visited[m] |= add
                                new[m] |= add
                                grown = True
                cur = new[m]
                for bit, stations in active:
                    if m & bit or not cur & stations:
                        continue
                    m2 = m | bit
                    add = stations
                    spend(len(visited))
                    for m3, v3 in visited.items():
                        if m3 & ~m2 == 0:
                            add &= ~v3
                    if add:
                        visited[m2] = visited.get(m2, 0) | add
                        if m2 in new:
                            new[m2] |= add
                        else:
                            new[m2] = add
                            by_size.setdefault(size + 1, []).append(m2)
                            top = max(top, size + 1)
            size += 1
        best = -1
        for m, v in visited.items():
            if v & targets:
                p = _popcount(m)
                if best < 0 or p < best:
                    best = p
        if best >= 0:
            ways = [
                (t, m)
                for m, v in visited.items()
                if _popcount(m) == best and v & targets
                for t in _bits(v & targets)
            ]
            ids = board.stations
            ways.sort(key=lambda w: (ids[w[0]].id, _bits(w[1])))
            return walks, ways
        # Walk one section from every state first reached in this layer.
        nxt: dict[int, int] = {}
        for m, cur in new.items():
            step = 0
            while cur:
                low = cur & -cur
                step |= nmask[low.bit_length() - 1]
                cur ^= low
            spend(len(visited))
            for m3, v3 in visited.items():
                if m3 & ~m == 0:
                    step &= ~v3
            if step:
                nxt[m] = step
        for m, add in nxt.items():
            visited[m] |= add
        if not nxt:
            raise ValueError("no target is reachable")
        new = nxt
        walks += 1


def mask_colours(mask: int) -> tuple[int, ...]:
    """The colour indices of a mask, ascending (§2 order)."""
    return _bits(mask)
