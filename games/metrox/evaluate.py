"""The AI's heuristic (games.base.Game.evaluate): each seat's expected final score, cheaply.

Every window left on a sheet will be used, on its own line (the game ends when the last one
is), so what a line can still fill is known up to the cards: walking each line from its first
empty station, each of its empty windows fills the expected share of the run it meets (a number
card stops at a filled station), which gives every empty station a chance to be filled by that
line, and by any of its lines together. From those chances:

- the penalty of the expected empty stations at the end (less the free cards still to come),
- every unfinished line's bonus times the chance that all its empty stations get filled (also a
  line without windows, finished through the lines that cross it),
- transfers still to come (about one window card in six) times the best numbers they could
  write now: twice the degree of the first empty station of a line with an empty window. A
  transfer is worth something before it is written, and a high-degree station kept first in
  line for it is worth keeping; a line whose stations are all filled offers nothing.

Exact once the game is over (the scores).
"""

from __future__ import annotations

from collections.abc import Sequence, Sized

from games.metrox.cards import DECK, FREE, INFO, TRANSFER
from games.metrox.maps import MetroXMap
from games.metrox.state import MetroXState

# Stations each window card can fill on an empty run as long as it (a transfer: one).
_REACH = sorted(1 if INFO[c][0] == TRANSFER else INFO[c][1] for c in DECK if INFO[c][0] != FREE)
_WINDOW_CARDS = len(_REACH)
# FILL[r]: expected stations a window fills on a run of r empty stations, E[min(reach, r)]
# (piecewise linear between whole r, so interpolation is exact).
FILL = [sum(min(x, r) for x in _REACH) / _WINDOW_CARDS for r in range(16)]
TRANSFERS_PER_WINDOW = sum(1 for c in DECK if INFO[c][0] == TRANSFER) / _WINDOW_CARDS
FREES_PER_WINDOW = sum(1 for c in DECK if INFO[c][0] == FREE) / _WINDOW_CARDS
TRANSFER_WEIGHT = 0.8  # a future transfer's number, discounted: the card may come late
# NEED[r]: windows (in expectation) that clear a run of r empty stations.
NEED = [0.0] + [r / FILL[r] for r in range(1, len(FILL))]
CACHE_LIMIT = 100_000  # entries per map before the cache starts afresh

# per map: (line, the line's filled stations, its empty windows) packed in one int -> (stations
# surely filled, the station left partly covered or -1, how much of it, the first empty or -1)
_lines: dict[str, dict[int, tuple[int, int, float, int]]] = {}


def _line(m: MetroXMap, li: int, f: int, k: int) -> tuple[int, int, float, int]:
    """What line `li` can still fill with `k` windows: walking its empty runs from the start,
    each run costs NEED[run] windows; the run where the windows end is covered in part."""
    bits, stations = m.line_bits[li], m.line_stations[li]
    size = len(bits)
    i = 0
    while i < size and f & bits[i]:
        i += 1
    first = stations[i] if i < size else -1
    sure, part, frac = 0, -1, 0.0
    left = float(k)
    while left > 1e-9 and i < size:
        j = i
        while j < size and not f & bits[j]:
            j += 1
        run = j - i
        need = NEED[min(run, len(NEED) - 1)]
        if left >= need:
            for t in range(i, j):
                sure |= bits[t]
            left -= need
        else:
            cover = left * FILL[min(run, len(FILL) - 1)]
            whole = int(cover)
            for t in range(i, i + whole):
                sure |= bits[t]
            if cover > whole:
                part, frac = stations[i + whole], cover - whole
            break
        i = j
        while i < size and f & bits[i]:
            i += 1
    return sure, part, frac, first


def seat_value(state: MetroXState, seat: int) -> float:
    """One seat's expected final score (the game is not over)."""
    return sheet_value(
        state.m,
        state.filled[seat],
        state.wins[seat],
        state.btotal[seat] + state.ttotal[seat],
        state.done[seat],
        state.first_taken,
        state.windows_left,
    )


def sheet_value(
    m: MetroXMap, f: int, w: Sequence[Sized], points: int, done: int, taken: int, left: int
) -> float:
    """A sheet's expected final score: `f` its filled stations, `w` per line what its windows
    hold (only the count matters), `points` its bonuses and transfer numbers so far, `done` its
    completed lines, `taken` the lines someone completed in an earlier turn, `left` the
    windows left (every sheet has as many)."""
    cache = _lines.get(m.id)
    if cache is None or len(cache) > CACHE_LIMIT:
        cache = _lines[m.id] = {}
    windows, masks, degree = m.windows, m.line_mask, m.degree
    sure = 0
    parts: dict[int, float] = {}  # partly covered station -> chance it stays empty
    firsts = 0  # the first empty station of every line with an empty window
    for li in range(len(windows)):
        k = windows[li] - len(w[li])
        if not k:
            continue
        key = (f & masks[li]) << 8 | li << 3 | k
        got = cache.get(key)
        if got is None:
            got = cache[key] = _line(m, li, f & masks[li], k)
        if got[3] < 0:
            continue
        sure |= got[0]
        firsts |= 1 << got[3]
        if got[1] >= 0:
            parts[got[1]] = parts.get(got[1], 1.0) * (1.0 - got[2])
    empty_end = float(len(m.station_ids) - (f | sure).bit_count())
    if parts:
        for st, miss in list(parts.items()):
            if sure >> st & 1:
                del parts[st]
            else:
                empty_end -= 1.0 - miss
    empty_end -= left * FREES_PER_WINDOW
    value = float(points)
    if empty_end > 0.0:
        value -= empty_end if empty_end <= 10 else 2 * empty_end - 10
    covered = f | sure
    for li in range(len(windows)):
        if done >> li & 1:
            continue
        missing = masks[li] & ~covered
        if not missing:
            value += m.later_bonus[li] if taken >> li & 1 else m.first_bonus[li]
            continue
        chance = 1.0
        while missing:
            low = missing & -missing
            stays_empty = parts.get(low.bit_length() - 1)
            if stays_empty is None:
                chance = 0.0
                break
            chance *= 1.0 - stays_empty
            missing ^= low
        if chance > 0.0:
            value += chance * (m.later_bonus[li] if taken >> li & 1 else m.first_bonus[li])
    transfers = left * TRANSFERS_PER_WINDOW
    if firsts and transfers > 0:
        best = []
        while firsts:
            low = firsts & -firsts
            firsts ^= low
            best.append(degree[low.bit_length() - 1])
        best.sort(reverse=True)
        gain = 0.0
        for v in best:
            if transfers <= 0:
                break
            gain += v * min(1.0, transfers)
            transfers -= 1.0
        value += 2 * TRANSFER_WEIGHT * gain
    return value


def evaluate(state: MetroXState) -> list[float]:
    if state.over:
        return [float(s) for s in state.scores]
    gone, m, left, taken = state.retired_mask, state.m, state.windows_left, state.first_taken
    filled, wins, btotal, ttotal, done = (
        state.filled, state.wins, state.btotal, state.ttotal, state.done
    )  # fmt: skip
    return [  # seat_value of each seat in, without the call between (once per search iteration)
        float(state.score(seat))
        if gone >> seat & 1
        else sheet_value(
            m, filled[seat], wins[seat], btotal[seat] + ttotal[seat], done[seat], taken, left
        )
        for seat in range(state.n)
    ]


__all__ = ["evaluate", "seat_value", "sheet_value"]
