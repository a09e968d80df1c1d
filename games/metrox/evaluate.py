"""The AI's heuristic (games.base.Game.evaluate): each seat's expected final score, cheaply.

Expected = bonuses and transfer numbers so far, minus the penalty on the empty stations that
the remaining windows will probably leave, plus a share of the bonus of every line close to
completion that still has a window on that sheet. Exact once the game is over.
"""

from __future__ import annotations

from games.metrox.position import penalty
from games.metrox.state import MetroXState

FILL_PER_WINDOW = 2.2  # stations a window fills on average (mean card effect, less waste)
CLOSE = (1.0, 0.6, 0.35, 0.15)  # chance to finish a line missing 0, 1, 2, 3 stations


def _penalty(empty: float) -> float:
    return empty if empty <= 10 else 10 + 2 * (empty - 10)


def evaluate(state: MetroXState) -> list[float]:
    if state.over:
        return [float(s) for s in state.scores]
    m = state.m
    future = state.windows_left * FILL_PER_WINDOW
    out = []
    gone = state.retired_mask
    for seat in range(state.n):
        if gone >> seat & 1:  # retired: its score is frozen
            out.append(float(state.score(seat)))
            continue
        f = state.filled[seat]
        empty = state.empty(seat)
        value = float(state.btotal[seat] + state.ttotal[seat])
        value -= _penalty(max(0.0, empty - future)) if future else penalty(empty)
        w = state.wins[seat]
        done = state.done[seat]
        for li in range(m.line_count):
            if done >> li & 1 or len(w[li]) >= m.windows[li]:
                continue
            missing = (m.line_mask[li] & ~f).bit_count()
            if missing < len(CLOSE):
                bonus = m.later_bonus[li] if state.first_taken >> li & 1 else m.first_bonus[li]
                value += bonus * CLOSE[missing]
        out.append(value)
    return out
