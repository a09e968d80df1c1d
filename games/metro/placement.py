"""Where a tile may go (RULES.md §6, and the `online` variant of §7). The one place for that rule.

Placements are computed as bitmasks over squares: `frontier` is the set of empty squares that
satisfy rules (a) and (b); a static table per tile removes the squares where it would make a
route of length one (c); the online "extend your own route" rule narrows the squares first, and
(d) waives (c) among those. Everything is integer arithmetic, because the AI calls it constantly.
"""

from __future__ import annotations

from games.metro.board import (
    BORDER_MASK,
    CENTRE_SQUARES,
    NEIGHBOURS,
    PLAYABLE,
    PLAYABLE_MASK,
    edge_connectors,
    row_col,
)
from games.metro.tiles import CODES, ROTATIONS, pairs_of


def _makes_length_one(code: str, sq: int) -> bool:
    """Rule (c): a track joining two connectors that both face the board edge."""
    facing = edge_connectors(sq)
    return any(a in facing and b in facing for a, b in pairs_of(code))


# OK_MASK[t]: squares where tile t does not make a route of length one.
OK_MASK: tuple[int, ...] = tuple(
    PLAYABLE_MASK & ~sum(1 << sq for sq in PLAYABLE if _makes_length_one(code, sq))
    for code in CODES
)

INITIAL_FRONTIER = BORDER_MASK


def next_frontier(frontier: int, occupied: int, sq: int) -> int:
    """The frontier after a tile lands on `sq` (`occupied` already includes it)."""
    return (frontier | NEIGHBOURS[sq]) & ~occupied


def legal_masks(
    frontier: int, tile: int, rotation: bool, extend: int | None
) -> list[tuple[int, int]]:
    """[(oriented tile, squares)] where the physical `tile` may be placed.

    `extend` is None in the classic rules; in the `online` variant it is the mask of squares that
    the mover's open routes run into. In that order (RULES.md §7): first keep only the squares
    that extend an own open route (every square of (a) and (b) when none does); then, among
    those, rule (c), waived by (d) only when no orientation has a square that satisfies it. The
    own-route rule is never given up to satisfy (c).
    """
    orients = ROTATIONS[tile] if rotation else (tile,)
    base = frontier & extend if extend is not None and frontier & extend else frontier
    strict = [(t, base & OK_MASK[t]) for t in orients if base & OK_MASK[t]]
    if strict:
        return strict
    return [(t, base) for t in orients] if base else []


# NTH_IN_BYTE[b][k]: the position of the k-th (from 0) set bit of the byte b, lowest first.
NTH_IN_BYTE: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(8) if b >> i & 1) for b in range(256)
)


def nth_square(mask: int, k: int) -> int:
    """The k-th (from 0) square of `mask`, lowest first (`squares_of(mask)[k]`), found by
    halving the mask three times instead of clearing k bits one at a time."""
    sq = 0
    n = (mask & 0xFFFFFFFF).bit_count()
    if k >= n:
        k -= n
        mask >>= 32
        sq = 32
    n = (mask & 0xFFFF).bit_count()
    if k >= n:
        k -= n
        mask >>= 16
        sq += 16
    n = (mask & 0xFF).bit_count()
    if k >= n:
        k -= n
        mask >>= 8
        sq += 8
    return sq + NTH_IN_BYTE[mask & 0xFF][k]


def squares_of(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def why_illegal(
    frontier: int, occupied: int, tile: int, sq: int, extend: int | None
) -> tuple[str, str, str, dict[str, str | int]]:
    """(message, rule, refusal code, its params) explaining why `tile` (as oriented) may not
    go on `sq`; the params count rows and columns from 1, as the board shows them."""
    r, c = row_col(sq)
    where = f"({r},{c})"
    at: dict[str, str | int] = {"row": r + 1, "col": c + 1}
    if sq in CENTRE_SQUARES:
        return (
            f"square {where} is the central station and takes no tile",
            "RULES.md §6(a)",
            "metro.central_station",
            at,
        )
    if occupied >> sq & 1:
        return f"square {where} already holds a tile", "RULES.md §6(a)", "metro.square_taken", at
    if not frontier >> sq & 1:
        return (
            f"square {where} is neither on the border nor next to a placed tile",
            "RULES.md §6(b)",
            "metro.not_connected",
            at,
        )
    if extend is not None and frontier & extend and not extend >> sq & 1:
        return (
            f"square {where} extends none of your open routes, and another square does",
            "RULES.md §7 online",
            "metro.extend_own",
            at,
        )
    if not OK_MASK[tile] >> sq & 1:
        return (
            f"{CODES[tile]} on {where} would make a route of length one, and the tile has "
            "other placements",
            "RULES.md §6(c)-(d)",
            "metro.short_route",
            {**at, "tile": CODES[tile]},
        )
    return (
        f"{CODES[tile]} may not go on {where}",
        "RULES.md §6",
        "metro.tile_not_here",
        {**at, "tile": CODES[tile]},
    )
