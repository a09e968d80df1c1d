"""The AI's heuristic (games.base.Game.evaluate): each seat's expected final score, cheaply.

Score, plus: 0.5 per branch token, 0.4 per open end of a line (room to grow), and 0.6 per face-up
destination a seat's line touches (the passenger will likely ride it). Exact once over.
"""

from __future__ import annotations

from games.underground.position import UndergroundPosition


def evaluate(state: UndergroundPosition) -> list[float]:
    if state.is_over:
        return [float(s) for s in state.scores]
    out = []
    n = state.board.size
    open_mask = ~state.board.terminus_mask
    deg = state.deg
    dest = 0
    for card in state.face_up:
        dest |= 1 << card
    riding = state.passenger >= 0
    for seat in range(state.rules.players):
        if state.retired_mask >> seat & 1:  # retired: its score is frozen
            out.append(float(state.scores[seat]))
            continue
        v = float(state.scores[seat]) + 0.5 * state.held_tokens(seat)
        for c in state.colours_of[seat]:
            on = state.on_line[c]
            if not on:
                continue
            ends = 0
            rest = on & open_mask  # an end is never a terminus (is_end)
            base = c * n
            while rest:
                low = rest & -rest
                if deg[base + low.bit_length() - 1] == 1:
                    ends += 1
                rest ^= low
            v += 0.4 * ends
            if riding:
                v += 0.6 * (on & dest).bit_count()
        out.append(v)
    return out
