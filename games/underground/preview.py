"""What moves score, said by the rules themselves (issue 31.2: the page keeps no copy of them).

- `previews`: for each legal step of the seat to move, what it would score and change (§3): a
  rail's gains as `lay` would return them, a route choice's rides, a stop's skipped-rail tokens.
  Pure and public: nothing a chance event brings (the refill after the passenger) is told.
- `rail_gains` / `breakdown`: what each rail on the board scored when it was laid, and where each
  seat's points come from (the view carries both, so the page explains the numbers it shows).
- `positions`: a finished record's positions for a replay (Game.positions).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.errors import GameError, RecordError
from games.underground.building import RAILS_PER_TURN, gains_of
from games.underground.moves import Leg, Rail
from games.underground.position import UndergroundPosition
from games.underground.record import replay, start_of
from games.underground.rules import COLOUR_INDEX

JSON = dict[str, Any]
BUILDING = ("rail", "terminus", "symbol", "enclosed")  # the reasons a rail scores (§3)


def _summed(seat: int, gains: list[JSON]) -> JSON:
    """A preview: the gains, with the points and tokens they bring to `seat`."""
    mine = [g for g in gains if g.get("seat") == seat]
    return {
        "points": sum(g["points"] for g in mine),
        "tokens": sum(g.get("tokens", 0) for g in mine),
        "gained": gains,
    }


def previews(state: UndergroundPosition, seat: int, moves: Sequence[Any]) -> list[JSON | None]:
    """Each of `moves` (legal steps of `seat`) with what it would bring (Game.previews):
    `{"points", "tokens", "gained"}`: `points` and `tokens` what `seat` gets, `gained` as the
    step's event says it (every seat's: a ride pays the line's owner). The stop's preview
    counts only its skipped-rail tokens: where the passenger then goes may hang on a tie the
    seat picks next."""
    board = state.board
    out: list[JSON | None] = []
    for m in moves:
        if isinstance(m, Rail):
            sec = board.section(board.index[m.a], board.index[m.b])
            gains = [] if sec is None else gains_of(state, seat, COLOUR_INDEX[m.colour], sec)
        elif isinstance(m, Leg):
            gains = [
                {"seat": owner, "colour": c, "reason": "ride", "points": 1, "station": m.to}
                for c in m.lines
                if not state.retired_mask >> (owner := state.owner[COLOUR_INDEX[c]]) & 1
            ]
        else:
            skip = RAILS_PER_TURN - len(state.laid)
            gains = [{"seat": seat, "reason": "skip", "points": 0, "tokens": skip}] if skip else []
        out.append(_summed(seat, gains))
    return out


def rail_gains(state: UndergroundPosition) -> list[list[JSON]]:
    """What each rail on the board scored when laid, in the view's `rails` order (the position
    keeps them as it lays its rails: the view reads them, fresh lists of the same gains)."""
    return [[dict(g) for g in gains] for gains in state.rail_gains]


def breakdown(state: UndergroundPosition, gains: list[list[JSON]]) -> list[JSON]:
    """Where each seat's points come from: `start` (§2: seat i starts with i), the building
    reasons summed from `gains` (rail_gains), and `ride`, the rest of its score (a retired
    seat's rides stop with its frozen score, whatever its lines carry later)."""
    out: list[JSON] = [{"start": i, **dict.fromkeys(BUILDING, 0)} for i in range(len(state.scores))]
    for rail in gains:
        for g in rail:
            if g["reason"] in BUILDING:
                out[g["seat"]][g["reason"]] += g["points"]
    for i, row in enumerate(out):
        row["ride"] = state.scores[i] - row["start"] - sum(row[r] for r in BUILDING)
        row["total"] = state.scores[i]
    return out


def positions(record: Mapping[str, Any]) -> JSON:
    """A finished record's replay (Game.positions): `rails`, every rail in the order laid with
    `gains`, what it scored; `positions`, [0] the set-up and [i] after the record's i-th move:
    `{"rails": how many of `rails` are down, "passenger", "face_up", "pile_count", "scores"}`.
    RecordError for a bad record."""
    replay(record)  # the full check first: below, moves are taken as they come
    state = start_of(record)
    out = [_position(state)]
    try:
        for move in record.get("moves", []):
            state.replay_entry(move)
            out.append(_position(state))
    except GameError as err:  # replay() passed, so this is a bug, not the record's fault
        raise RecordError(f"the record could not be replayed: {err}") from None
    gains = rail_gains(state)
    laid = [r for m in state.history for r in m["rails"]]
    rails = [{**r, "gains": g} for r, g in zip(laid, gains, strict=False)]
    return {"rails": rails, "positions": out}


def _position(state: UndergroundPosition) -> JSON:
    board = state.board
    return {
        "rails": sum(len(m["rails"]) for m in state.history) + len(state.laid),
        "passenger": board.sid(state.passenger) if state.passenger >= 0 else None,
        "face_up": [board.sid(i) for i in state.face_up],
        "pile_count": state.pile_count,
        "scores": state.scores[:],
    }
