"""What one seat may see (RULES-UNDERGROUND.md §5): everything but the order of the pile.

The view, for every seat and for spectators alike (nothing is private to one seat):

    {"game": "underground", "status": "playing" | "over", "rules": {"players": n, "map": id},
     "seats": [{"seat": i, "score": int, "colours": ["red", ...], "branch_tokens": int,
                "retired": bool, "score_from": {"start", "rail", "terminus", "symbol",
                "enclosed", "ride", "total"}}, ...]  (where the score came from),
     "retired": [seat, ...]            (seats out for good, `retire`, in the order they left),
     "to_move": [seat] | [], "turn_number": int (steps applied), "turns": int (turns complete),
     "winners": [seat, ...]            (only once over),
     "map": "london"                   (the map itself: the `map` query),
     "rails": [{"colour", "a", "b"}, ...]   (every rail, in the order laid; a < b),
     "rail_gains": [[gain, ...], ...]  (what each of `rails` scored when laid, as its event's
                                        `gains` say it: the page explains its numbers with it),
     "passenger": station id | null    (null once it has left the board, §4),
     "face_up": [station id, ...]      (the face-up destination cards, in the order drawn),
     "discard": [station id, ...], "pile_count": int,
     "revealed": [station id, ...]     (every card drawn so far, in deal order: the public
                                        prefix of the deal, what a sampled world keeps),
     "connections": {spot id: "a" | "b" | "c" | "d"},
     "scored": {colour: {"symbols": ["a", ...], "enclosed": [station id, ...]}}
                                       (the once-per-colour bookkeeping beyond the stations a
                                        line touches, which score their rail/terminus points),
     "turn": {"seat": i, "step": "build" | "route", "rails": [rails laid this turn],
              "legs": [legs taken this turn], "ways": [tied best ways to choose from]} | null,
     "moves": [{"seat", "rails", "route"}, ...]  (completed turns and retirements, as in a
                                                 record: a retirement adds "action": "retire"
                                                 and "steps"),
     "steps": [step json, ...]                    (the steps of the turn under way)}

`branch_tokens` of the seat building now counts the tokens for the rails it has not laid (what it
would hold if it stopped now).
"""

from __future__ import annotations

from typing import Any

from games.underground.position import ROUTE
from games.underground.preview import breakdown, rail_gains
from games.underground.rules import COLOURS, SYMBOLS
from games.underground.state import UndergroundState


def view(state: UndergroundState, seat: int | None) -> dict[str, Any]:
    n = state.rules.players
    if seat is not None and not (type(seat) is int and 0 <= seat < n):
        raise ValueError(f"seat must be 0-{n - 1} or None, got {seat!r}")
    board = state.board
    sid = board.sid
    rails = [
        {"colour": r["colour"], "a": r["a"], "b": r["b"]} for m in state.history for r in m["rails"]
    ]
    rails += [state.rail_of(c, k).rail_json() for c, k in state.laid]
    scored: dict[str, Any] = {}
    for c, name in enumerate(COLOURS):
        if state.owner[c] < 0:
            continue
        scored[name] = {
            "symbols": [SYMBOLS[i] for i in range(4) if state.symbols_scored[c] >> i & 1],
            "enclosed": [sid(i) for i in range(board.size) if state.enclosed[c] >> i & 1],
        }
    gains = rail_gains(state)
    score_from = breakdown(state, gains)
    turn: dict[str, Any] | None = None
    if state.seat >= 0:
        turn = {
            "seat": state.seat,
            "step": "route" if state.phase == ROUTE else "build",
            "rails": [state.rail_of(c, k).rail_json() for c, k in state.laid],
            "legs": [state.leg_of(w).leg_json() for w in state.legs_taken],
            "ways": [state.leg_of(w).leg_json() for w in state.ways],
        }
    out: dict[str, Any] = {
        "game": "underground",
        "status": "over" if state.is_over else "playing",
        "rules": state.rules.to_dict(),
        "seats": [
            {
                "seat": i,
                "score": state.scores[i],
                "colours": [COLOURS[c] for c in state.colours_of[i]],
                "branch_tokens": state.held_tokens(i),
                "retired": bool(state.retired_mask >> i & 1),
                "score_from": score_from[i],
            }
            for i in range(n)
        ],
        "retired": list(state.retired),
        "to_move": list(state.to_move()),
        "turn_number": state.steps,
        "turns": state.turns,
        "map": board.id,
        "rails": rails,
        "rail_gains": gains,
        "passenger": sid(state.passenger) if state.passenger >= 0 else None,
        "face_up": [sid(i) for i in state.face_up],
        "discard": [sid(i) for i in state.discard],
        "pile_count": state.pile_count,
        "revealed": [sid(i) for i in state.deal[: state.drawn]],
        "connections": dict(state.connections),
        "scored": scored,
        "turn": turn,
        "moves": [dict(m) for m in state.history],
        "steps": [dict(s) for s in state.cur_steps],
    }
    outcome = state.outcome()
    if outcome is not None:
        out["winners"] = list(outcome.winners)
    return out
