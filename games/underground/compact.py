"""On the Underground's part of the compact record format (games/compact.py, docs/archive.md).

What it writes after the rules: whether any seat retired (1 symbol); the connection tokens as a
permutation of aabbccdd over the 8 spots (log2 2520 bits); the 55 destinations in deal order as
a permutation (log2 55! bits); then every step of every turn as it was taken (each rail, the
stop, each route choice the passenger's tied ways left), as its index among that step's legal
moves, with one extra "escape" symbol when the game has retirements: a seat retires next (its
seat), after the steps of the turn under way that the record's retirement names.

Decoding plays the same steps and exports the record from the final state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.compact import Reader, Writer
from games.errors import GameError, RecordError
from games.underground.building import legal_rails
from games.underground.map import CONNECTION_SPOTS, load_map
from games.underground.moves import Leg, Rail, Stop, parse_step
from games.underground.position import BUILD, ROUTE
from games.underground.record import start_of
from games.underground.rules import COLOUR_INDEX, SYMBOLS, UndergroundRules
from games.underground.state import UndergroundState

_SPOTS = sorted(CONNECTION_SPOTS)
_TOKENS = Counter({s: 2 for s in SYMBOLS})


def _step(state: UndergroundState, data: Any) -> Any:
    if not isinstance(data, Mapping):
        raise RecordError("a step is a JSON object")
    return parse_step(data, state.board.index)


def _legal(state: UndergroundState) -> tuple[list[Any], int]:
    """The legal steps of the seat to move in `legal_moves`' order, cheaply: the (colour,
    section) pairs of the rails and the count with the stop, or the passenger's ways (the
    fast door builds a Rail value for every pair; here only the chosen one is built)."""
    if state.phase == ROUTE:
        return state.ways, len(state.ways)
    rails = legal_rails(state, state.seat)
    return rails, len(rails) + 1


def _index(state: UndergroundState, move: Any) -> tuple[int, int]:
    """(the index of `move` among the legal steps, their count); index -1 when not legal."""
    legal, n = _legal(state)
    board = state.board
    if state.phase == ROUTE:
        key: Any = state._way(move) if isinstance(move, Leg) else None
    elif isinstance(move, Rail):
        a, b = board.index.get(move.a), board.index.get(move.b)
        sec = None if a is None or b is None else board.section(a, b)
        key = (COLOUR_INDEX.get(move.colour), sec)
    else:
        return (n - 1 if isinstance(move, Stop) else -1), n
    try:
        return legal.index(key), n
    except ValueError:
        return -1, n


def _put(out: Writer, state: UndergroundState, move: Any, escape: bool) -> None:
    i, n = _index(state, move)
    if i < 0:
        raise RecordError(f"step {move!r} of seat {state.seat} is not legal here")
    out.put(i, n + escape)
    state.apply(state.seat, move)


def _take(inp: Reader, state: UndergroundState, escape: bool) -> bool:
    """Read and apply one step; False for an escape."""
    legal, n = _legal(state)
    i = inp.take(n + escape)
    if i == n:
        if not escape:
            raise RecordError("compact record: an escape in a game without retirements")
        return False
    if state.phase == ROUTE:
        move: Any = state.leg_of(legal[i])
    else:
        move = state.rail_of(*legal[i]) if i < len(legal) else Stop()
    state.apply(state.seat, move)
    return True


class UndergroundCodec:
    """The hook (`Game.record_codec()`)."""

    tag = 3
    # Append only (games/compact.py RecordCodec.rules_layout).
    rules_layout = (("players", ()), ("map", ("london",)))

    def encode(self, record: Mapping[str, Any], rules: JSON, out: Writer) -> UndergroundState:
        state = start_of(record)
        moves = record["moves"]
        if not isinstance(moves, list):
            raise RecordError("the record's 'moves' must be a list")
        escape = any(m.get("action") == "retire" for m in moves)
        out.put(escape, 2)
        out.put_perm([state.connections[s] for s in _SPOTS], Counter(_TOKENS))
        dest = [state.board.sid(i) for i in state.deal]
        out.put_perm(dest, Counter(dest))
        for i, entry in enumerate(moves):
            try:
                self._put_entry(out, state, entry, escape)
            except GameError as err:
                raise RecordError(f"move {i}: {err}", move=i) from None
        return state

    def _put_entry(self, out: Writer, state: UndergroundState, entry: Any, escape: bool) -> None:
        seat = entry["seat"]
        if entry.get("action", "turn") == "retire":
            steps = entry.get("steps", [])
            done = len(state.cur_steps)
            if not isinstance(steps, list) or steps[:done] != state.cur_steps:
                raise RecordError("a retirement's steps are not those of the turn under way")
            for step in steps[done:]:
                _put(out, state, _step(state, step), escape)
            if state.seat < 0 or type(seat) is not int or not 0 <= seat < state.rules.players:
                raise RecordError(f"seat {seat!r} cannot retire here")
            if state.retired_mask >> seat & 1:
                raise RecordError(f"seat {seat} has already retired")
            out.put(_legal(state)[1], _legal(state)[1] + 1)  # the escape
            out.put(seat, state.rules.players)
            state.retire(seat)
            return
        if seat != state.seat:
            raise RecordError(f"it is not seat {seat}'s turn")
        turns = state.turns
        rails, route = entry["rails"], entry["route"]
        for rail in rails[len(state.laid) :]:
            _put(out, state, _step(state, {"step": "rail", **rail}), escape)
        if state.turns == turns and state.seat == seat and state.phase == BUILD:
            _put(out, state, _step(state, {"step": "stop"}), escape)
        while state.turns == turns and state.seat == seat:
            leg = route[len(state.legs_taken)]
            _put(out, state, _step(state, {"step": "route", **leg}), escape)

    def decode(self, rules: JSON, inp: Reader) -> UndergroundState:
        parsed = UndergroundRules.parse(rules)
        escape = bool(inp.take(2))
        tokens = inp.take_perm(Counter(_TOKENS))
        board = load_map(parsed.map)
        dest = inp.take_perm(Counter(board.sid(i) for i in board.destinations))
        state = UndergroundState.deal_new(parsed, dict(zip(_SPOTS, tokens, strict=True)), dest)
        n = parsed.players
        while state.seat >= 0:
            if not _take(inp, state, escape):
                seat = inp.take(n)
                if state.retired_mask >> seat & 1:
                    raise RecordError(f"compact record: seat {seat} retires twice")
                state.retire(seat)
        return state


CODEC = UndergroundCodec()
