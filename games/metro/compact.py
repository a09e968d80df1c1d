"""Metro's part of the compact record format (games/compact.py, docs/archive.md).

What it writes after the rules: whether any seat retired (1 symbol); the deck as a permutation
of the 60-tile set (log2 of its distinct orders, ~245 bits); then, replaying the record through
the fast door, each decision as its index among `legal_codes()` (a draw is a decision, so a
`draw_place` is two), with one extra "escape" symbol when the game has retirements: a
retirement comes next (its seat; whether it left during another seat's draw). After a move or
retirement that reshuffled the deck, the new order (`redeck`) as a permutation of the deck.

Decoding plays the same decisions and exports the record from the final state (record.export),
so what comes back is exactly what the game's own replay would have made.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.compact import Reader, Writer
from games.errors import GameError, RecordError
from games.metro.moves import DRAW, MetroMove
from games.metro.placement import legal_masks
from games.metro.position import (
    RETIRED_DURING_DRAW,
    RETIRED_OTHER,
    RETIRED_OWN,
    RETIRED_OWN_DRAWN,
)
from games.metro.record import _deck, _set_redeck
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import INDEX, SET_COUNTER

_SET = Counter({INDEX[c]: n for c, n in SET_COUNTER.items()})
_CODE_OF: dict[str, int] = {}  # placement text -> move code, filled as met


def _code(text: Any) -> int:
    code = _CODE_OF.get(text)  # type: ignore[arg-type]
    if code is None:
        code = MetroMove.parse({"action": "place", "placement": text}).code
        _CODE_OF[text] = code
    return code


def _options(state: MetroState) -> tuple[list[tuple[int, int, int]], int, int]:
    """The legal moves of the seat to move as `legal_codes()` lists them, without listing them:
    [(oriented tile, squares mask, squares)], the placements' count, and the count with DRAW
    (last). A move's index is then a popcount, not a list search (decoding's hot path)."""
    extend = state.extend_mask(state.seat)
    rotation = state.rules.rotation
    frontier = state.frontier
    opts = []
    total = 0
    for tile in state._tiles_to_place():
        for t, mask in legal_masks(frontier, tile, rotation, extend):
            count = mask.bit_count()
            opts.append((t, mask, count))
            total += count
    return opts, total, total + (state.drawn < 0 and state.deck_pos < len(state.deck))


def _put_code(out: Writer, state: MetroState, code: int, escape: bool) -> None:
    """Write `code` as its index in `state.legal_codes()` and apply it (one pass over the
    placement masks: the index is the squares before it, the radix all of them)."""
    if code == DRAW:
        _, i, n = _options(state)
        if n == i:
            i = -1
    else:
        tile, sq = divmod(code, 64)
        extend = state.extend_mask(state.seat)
        rotation, frontier = state.rules.rotation, state.frontier
        i, n = -1, 0
        for physical in state._tiles_to_place():
            for t, mask in legal_masks(frontier, physical, rotation, extend):
                if i < 0 and t == tile and mask >> sq & 1:
                    i = n + (mask & ((1 << sq) - 1)).bit_count()
                n += mask.bit_count()
        n += state.drawn < 0 and state.deck_pos < len(state.deck)
    if i < 0:
        raise RecordError(f"move {code} is not legal for seat {state.seat} here")
    out.put(i, n + escape)
    state.apply_code(code)


def _code_at(opts: list[tuple[int, int, int]], i: int) -> int:
    """The code of index `i` among the placements of `opts` (`i` below their count)."""
    for t, mask, count in opts:
        if i < count:
            for _ in range(i):
                mask &= mask - 1
            return t * 64 + (mask & -mask).bit_length() - 1
        i -= count
    raise AssertionError("unreachable: the index is below the placements' count")


class MetroCodec:
    """The hook (`Game.record_codec()`)."""

    tag = 1
    # Append only (games/compact.py RecordCodec.rules_layout).
    rules_layout = (("players", ()), ("rotation", ()), ("online", ()), ("hand_size", (1, 2, 3)))

    def encode(self, record: Mapping[str, Any], rules: JSON, out: Writer) -> MetroState:
        state = MetroState.deal(MetroRules.parse(rules), _deck(record))
        moves = record["moves"]
        if not isinstance(moves, list):
            raise RecordError("the record's 'moves' must be a list")
        escape = any(m.get("action") == "retire" for m in moves)
        out.put(escape, 2)
        out.put_perm(state.deck, Counter(_SET))
        n = state.rules.players
        for i, entry in enumerate(moves):
            try:
                self._put_entry(out, state, entry, escape, n)
            except GameError as err:
                raise RecordError(f"move {i}: {err}", move=i) from None
        return state

    def _put_entry(self, out: Writer, state: MetroState, entry: Any, escape: bool, n: int) -> None:
        seat, action = entry["seat"], entry["action"]
        if action == "place" or action == "draw_place":  # the common case first
            if seat != state.seat or seat < 0:
                raise RecordError(f"it is not seat {seat}'s turn")
            if action == "draw_place":
                _put_code(out, state, DRAW, escape)
            before = state.reshuffles
            _put_code(out, state, _code(entry["placement"]), escape)
            redeck = entry.get("redeck")
            if (redeck is not None or state.reshuffles != before) and _set_redeck(
                state, redeck, before, "this move retires a player"
            ):
                self._fix_history(state)
                out.put_perm(state.deck, Counter(state.deck))
            return
        if state.seat < 0 or action != "retire":
            raise RecordError(f"seat {seat} cannot {action!r} here")
        if entry.get("drawn") is True:
            if seat != state.seat:
                raise RecordError("'drawn': only the seat to move draws")
            _put_code(out, state, DRAW, escape)
        count = _options(state)[2]
        out.put(count, count + 1)  # the escape
        if type(seat) is not int or not 0 <= seat < n or state.retired_mask >> seat & 1:
            raise RecordError(f"seat {seat!r} cannot retire here")
        out.put(seat, n)
        during = entry.get("during_draw", False) is True
        if seat == state.seat:
            if during or entry.get("drawn", False) is not (state.drawn >= 0):
                raise RecordError("a retirement's flags do not fit its turn")
            when = RETIRED_OWN_DRAWN if state.drawn >= 0 else RETIRED_OWN
        else:
            if "drawn" in entry or state.drawn >= 0:
                raise RecordError("a retirement's flags do not fit its turn")
            out.put(during, 2)
            when = RETIRED_DURING_DRAW if during else RETIRED_OTHER
        before = state.reshuffles
        state._retire(seat, when)
        if _set_redeck(state, entry.get("redeck"), before, "this retirement puts tiles back"):
            s, at, w, _ = state.retirements[-1]
            state.retirements = (*state.retirements[:-1], (s, at, w, tuple(state.deck)))
            out.put_perm(state.deck, Counter(state.deck))

    @staticmethod
    def _fix_history(state: MetroState) -> None:
        prev, (s, m, phys, from_draw, _) = state.history  # type: ignore[misc]
        state.history = (prev, (s, m, phys, from_draw, tuple(state.deck)))

    def decode(self, rules: JSON, inp: Reader) -> MetroState:
        parsed = MetroRules.parse(rules)
        n = parsed.players
        escape = bool(inp.take(2))
        state = MetroState.deal(parsed, inp.take_perm(Counter(_SET)))
        while state.seat >= 0:
            opts, placements, count = _options(state)
            i = inp.take(count + escape)
            before = state.reshuffles
            if i < count:
                state.apply_code(_code_at(opts, i) if i < placements else DRAW)
                if state.reshuffles != before:
                    self._redeck(state, inp)
                    self._fix_history(state)
                continue
            seat = inp.take(n)
            if state.retired_mask >> seat & 1:
                raise RecordError(f"compact record: seat {seat} retires twice")
            if seat == state.seat:
                when = RETIRED_OWN_DRAWN if state.drawn >= 0 else RETIRED_OWN
            else:
                if state.drawn >= 0:
                    raise RecordError("compact record: a retirement while a tile is drawn")
                when = RETIRED_DURING_DRAW if inp.take(2) else RETIRED_OTHER
            state._retire(seat, when)
            if state.reshuffles != before:
                self._redeck(state, inp)
                s, at, w, _ = state.retirements[-1]
                state.retirements = (*state.retirements[:-1], (s, at, w, tuple(state.deck)))
        return state

    @staticmethod
    def _redeck(state: MetroState, inp: Reader) -> None:
        state.deck = inp.take_perm(Counter(state.deck))
        state.deck_pos = 0


CODEC = MetroCodec()
