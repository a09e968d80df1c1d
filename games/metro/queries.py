"""Position queries (RULES.md §10): one JSON object in, one JSON object out, no server.

Placements are played from the empty board in classic seat order, each checked against the
board before it; no hands or deck are involved, only the set's copy counts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.errors import GameError, InvalidMoveError
from games.metro.moves import move_text
from games.metro.placement import squares_of
from games.metro.position import TILE_COUNT
from games.metro.record import replay
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import INDEX, ROTATIONS, SET_COUNTER, Placement, check_code


class _Position:
    """A board built placement by placement, with whose turn it is for the online rule."""

    def __init__(self, rules: MetroRules) -> None:
        self.state = MetroState.empty(rules, [])
        self.left = Counter({INDEX[c]: n for c, n in SET_COUNTER.items()})

    def physical(self, tile: int) -> int | None:
        """The set's tile this placement uses: the code itself, or (rotation) a rotation of it."""
        if self.left[tile] > 0:
            return tile
        if self.state.rules.rotation:
            return next((t for t in ROTATIONS[tile] if self.left[t] > 0), None)
        return None

    def try_place(self, text: str) -> bool:
        try:
            p = Placement.parse(text)
        except InvalidMoveError:
            return False
        if not p.on_board or self.state.placed == TILE_COUNT:
            return False
        phys = self.physical(p.tile_index)
        if phys is None:
            return False
        legal = any(
            t == p.tile_index and mask >> p.square & 1
            for t, mask in self.state.placements_for(phys)
        )
        if not legal:
            return False
        self.left[phys] -= 1
        self.state.put(p.tile_index, p.square, phys)
        self._next_seat()
        return True

    def _next_seat(self) -> None:
        s = self.state
        n = s.rules.players
        if s.rules.online:
            for seat in range(n):
                if s.open_routes[seat] == 0:
                    s.out[seat] = True
            if all(s.out):
                return
        nxt = s.seat
        for _ in range(n):
            nxt = (nxt + 1) % n
            if not s.out[nxt]:
                s.seat = nxt
                return


def _sequence(query: Mapping[str, Any]) -> list[str]:
    text = query.get("placements", "")
    if not isinstance(text, str):
        raise InvalidMoveError("'placements' must be a string of concatenated placements")
    if len(text) % 6:
        raise InvalidMoveError(
            f"'placements' has 6 characters per placement; got {len(text)} characters"
        )
    return [text[i : i + 6] for i in range(0, len(text), 6)]


def _position(query: Mapping[str, Any]) -> tuple[_Position, int | None]:
    """The position after the query's placements, and the index of the first invalid one."""
    position = _Position(MetroRules.parse(query.get("rules")))
    for i, text in enumerate(_sequence(query)):
        if not position.try_place(text):
            return position, i
    return position, None


def _valid_position(query: Mapping[str, Any]) -> _Position:
    position, bad = _position(query)
    if bad is not None:
        raise InvalidMoveError(f"placement {bad} is not valid on the board before it")
    return position


def validate(query: Mapping[str, Any]) -> dict[str, Any]:
    _, bad = _position(query)
    return {"valid": True} if bad is None else {"valid": False, "first_invalid": bad}


def legal(query: Mapping[str, Any]) -> dict[str, Any]:
    position = _valid_position(query)
    tile = INDEX[check_code(query.get("tile"))]
    if position.state.placed == TILE_COUNT:
        return {"legal": []}
    found = [
        move_text(t * 64 + sq)
        for t, mask in position.state.placements_for(tile)
        for sq in squares_of(mask)
    ]
    return {"legal": sorted(found)}


def score(query: Mapping[str, Any]) -> dict[str, Any]:
    return {"scores": _valid_position(query).state.scores[:]}


def replay_scores(query: Mapping[str, Any]) -> dict[str, Any]:
    record = query.get("record")
    try:
        state = replay(record)  # type: ignore[arg-type]
    except GameError as err:
        answer: dict[str, Any] = {"error": str(err)}
        move = getattr(err, "move", None)
        if move is not None:
            answer["move"] = move
        return answer
    return {"scores": state.scores[:]}


OPS = {"validate": validate, "legal": legal, "score": score, "replay": replay_scores}


def answer(query: Any) -> dict[str, Any]:
    """The answer to one query object; errors come back as {"error": ...}, never raised."""
    if not isinstance(query, Mapping):
        return {"error": "a query must be a JSON object with an 'op'"}
    op = query.get("op")
    if query.get("game", "metro") != "metro":
        return {"error": f"this is Metro's query door, not {query.get('game')!r}'s"}
    if op not in OPS:
        return {"error": f"unknown op {op!r}; known: {', '.join(OPS)}"}
    try:
        return OPS[op](query)
    except GameError as err:
        return {"error": str(err)}
