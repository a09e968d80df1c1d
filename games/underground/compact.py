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
from games.compact import Reader, Writer, put_escape, put_move, take_move
from games.errors import GameError, RecordError
from games.underground.map import CONNECTION_SPOTS, load_map
from games.underground.moves import parse_step
from games.underground.position import BUILD
from games.underground.record import start_of
from games.underground.rules import SYMBOLS, UndergroundRules
from games.underground.state import UndergroundState

_SPOTS = sorted(CONNECTION_SPOTS)
_TOKENS = Counter({s: 2 for s in SYMBOLS})


def _step(state: UndergroundState, data: Any) -> Any:
    if not isinstance(data, Mapping):
        raise RecordError("a step is a JSON object")
    return parse_step(data, state.board.index)


class UndergroundCodec:
    """The hook (`Game.record_codec()`)."""

    tag = 3

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
                put_move(out, state, state.seat, _step(state, step), escape)
            if state.seat < 0 or type(seat) is not int or not 0 <= seat < state.rules.players:
                raise RecordError(f"seat {seat!r} cannot retire here")
            if state.retired_mask >> seat & 1:
                raise RecordError(f"seat {seat} has already retired")
            put_escape(out, state, state.seat)
            out.put(seat, state.rules.players)
            state.retire(seat)
            return
        if seat != state.seat:
            raise RecordError(f"it is not seat {seat}'s turn")
        turns = state.turns
        rails, route = entry["rails"], entry["route"]
        for rail in rails[len(state.laid) :]:
            put_move(out, state, seat, _step(state, {"step": "rail", **rail}), escape)
        if state.turns == turns and state.seat == seat and state.phase == BUILD:
            put_move(out, state, seat, _step(state, {"step": "stop"}), escape)
        while state.turns == turns and state.seat == seat:
            leg = route[len(state.legs_taken)]
            put_move(out, state, seat, _step(state, {"step": "route", **leg}), escape)

    def decode(self, rules: JSON, inp: Reader) -> UndergroundState:
        parsed = UndergroundRules.parse(rules)
        escape = bool(inp.take(2))
        tokens = inp.take_perm(Counter(_TOKENS))
        board = load_map(parsed.map)
        dest = inp.take_perm(Counter(board.sid(i) for i in board.destinations))
        state = UndergroundState.deal_new(parsed, dict(zip(_SPOTS, tokens, strict=True)), dest)
        n = parsed.players
        while state.seat >= 0:
            if take_move(inp, state, state.seat, escape) is None:
                seat = inp.take(n)
                if state.retired_mask >> seat & 1:
                    raise RecordError(f"compact record: seat {seat} retires twice")
                state.retire(seat)
        return state


CODEC = UndergroundCodec()
