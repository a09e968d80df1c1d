"""What one seat may see (RULES-METROX.md §6): the only projection of hidden information.

The deck order and the seed never leave; another seat's pending choice never leaves (only that it
has chosen). The shape, for the page module:

    {"game": "metrox", "status": "playing" | "over", "rules": {"players", "map"[, "daily"]},
     "seats": [{"seat": 0, "score": -47, "chosen": false, "filled": 0, "empty": 47,
                "retired": false}, ...],
     "to_move": [0, 1], "winners": [0] (only once over),
     "retired": [2],                   # seats out for good (`retire`), in the order they left
     "map": {...the map exactly as §1...},
     "turn_index": 3,                  # resolved turns so far
     "card": "s2" | null,              # the revealed card of the open turn; null once over
     "revealed": ["3", "t", "s2"],     # cards revealed since the last shuffle, in order
     "deck_left": 11,                  # unrevealed cards of the current deck
     "windows_left": 23,               # empty windows on every sheet
     "sheets": [{"seat": 0,
                 "filled": ["s01", "s07"],            # map order
                 "transfers": {"s07": 6},             # stations holding a transfer number
                 "windows": {"A": ["3", "(2)", "*"], "B": []},   # one entry per map line
                 "bonuses": [{"line": "A", "bonus": 9, "first": true, "turn": 2}]}, ...],
     "lines": [{"line": "A", "first_taken": true,
                "completed": [{"seat": 0, "turn": 2, "first": true}]}, ...],
     "choice": {"line": "C"} | null,   # the viewer's own pending choice only
     "final": [{"seat": 0, "bonuses": 9, "transfers": 6, "empty": 12, "penalty": 14,
                "total": 1}, ...]      # only once over
    }

`map` is the map's own object, shared: read it, never change it. Once over, `revealed` and
`deck_left` still describe the deck of the last turn. `turn` in sheets and lines is the 0-based
index of the resolved turn (the record's `turns[i]`).
"""

from __future__ import annotations

from games.base import JSON
from games.metrox.position import mark_text, penalty
from games.metrox.state import MetroXState


def view(state: MetroXState, seat: int | None) -> JSON:
    """What `seat` may see (None: a spectator); ValueError for a seat not in the game, as in
    every game (a bad seat once got a spectator's view)."""
    s, m = state, state.m
    if seat is not None and not (type(seat) is int and 0 <= seat < s.n):
        raise ValueError(f"seat must be 0-{s.n - 1} or None, got {seat!r}")
    sid, lid = m.station_ids, m.line_ids
    scores = s.scores
    out: JSON = {
        "game": "metrox",
        "status": "over" if s.over else "playing",
        "rules": dict(s.rules),
        "seats": [
            {
                "seat": p,
                "score": scores[p],
                "chosen": s.pending[p] is not None,
                "filled": s.filled[p].bit_count(),
                "empty": s.empty(p),
                "retired": bool(s.retired_mask >> p & 1),
            }
            for p in range(s.n)
        ],
        "to_move": list(s.to_move()),
        "retired": list(s.retired),
    }
    if s.over:
        out["winners"] = list(s.outcome().winners)  # type: ignore[union-attr]
    sheets = []
    completions: list[list[JSON]] = [[] for _ in lid]
    for p in range(s.n):
        f = s.filled[p]
        bonuses = []
        for li, bonus, first, turn in s.bonuses[p]:
            bonuses.append({"line": lid[li], "bonus": bonus, "first": first, "turn": turn})
            completions[li].append({"seat": p, "turn": turn, "first": first})
        sheets.append(
            {
                "seat": p,
                "filled": [sid[i] for i in range(m.station_count) if f >> i & 1],
                "transfers": {sid[st]: v for st, v in s.tnums[p]},
                "windows": {lid[li]: [mark_text(c) for c in w] for li, w in enumerate(s.wins[p])},
                "bonuses": bonuses,
            }
        )
    for c in completions:
        c.sort(key=lambda e: (e["turn"], e["seat"]))
    own = s.pending[seat] if seat is not None else None
    out.update(
        {
            "map": m.data,
            "turn_index": s.turn,
            "card": s.card,
            "revealed": s.deck[: s.pos + 1],
            "deck_left": len(s.deck) - s.pos - 1,
            "windows_left": s.windows_left,
            "sheets": sheets,
            "lines": [
                {
                    "line": lid[li],
                    "first_taken": bool(completions[li]),
                    "completed": completions[li],
                }
                for li in range(m.line_count)
            ],
            "choice": own.to_json() if own is not None else None,
        }
    )
    if s.over:
        out["final"] = [
            {
                "seat": p,
                "bonuses": s.btotal[p],
                "transfers": s.ttotal[p],
                "empty": s.empty(p),
                "penalty": penalty(s.empty(p)),
                "total": scores[p],
            }
            for p in range(s.n)
        ]
    return out
