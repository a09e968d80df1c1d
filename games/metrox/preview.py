"""What each of a seat's legal moves would do to its sheet (RULES-METROX.md §3-§5): the stations
it fills, the window mark, a transfer's number, the lines it completes with their bonus, and the
seat's score after it, so the page previews a choice without applying cards itself. Kept apart
from the fast door: only the engine's legal listing calls it, once per seat and version.

A preview is worked out on a scratch copy in which the asking seat chooses alone: the other
seats' hidden choices of the open turn are dropped first, so nothing of theirs can show; what is
read besides that seat's own sheet (the revealed card, the lines completed in earlier turns) is
public. A first-completion bonus is previewed as if no other seat completes the same line this
turn (§4 tells only once the turn resolves).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from games.base import JSON
from games.metrox.cards import FREE, INFO
from games.metrox.moves import LineMove
from games.metrox.position import MetroXPosition, mark_text


def _one(state: MetroXPosition, seat: int, move: Any) -> JSON:
    """`move`'s effect on `seat`'s sheet, from a copy resolved with that seat choosing alone."""
    m = state.m
    c = state.copy()
    c.pending = [None] * c.n
    c.nchosen, c.need = 0, 1
    # end the copy with this turn: resolving then reveals no card (the deck stays untouched)
    c.windows_left = 0 if INFO[c.card][0] == FREE else 1  # type: ignore[index]
    c.apply(seat, move)
    new = c.filled[seat] & ~state.filled[seat]
    fills = []
    while new:  # the stations filled, in map order
        low = new & -new
        fills.append(m.station_ids[low.bit_length() - 1])
        new ^= low
    transfer = None
    if len(c.tnums[seat]) > len(state.tnums[seat]):
        st, value = c.tnums[seat][-1]
        transfer = {"station": m.station_ids[st], "value": value}
    mark = None
    if isinstance(move, LineMove):
        li = m.line_index[move.line]
        mark = mark_text(c.wins[seat][li][-1])
    completes = [
        {"line": m.line_ids[li], "bonus": bonus, "first": first}
        for li, bonus, first, _turn in c.bonuses[seat][len(state.bonuses[seat]) :]
    ]
    return {
        "fills": fills,
        "mark": mark,
        "transfer": transfer,
        "completes": completes,
        "score": c.score(seat),
    }


# The previews of recent (sheet, card) pairs: within a turn every choice of any seat makes a new
# version, and each seat's listing is asked again, but a seat's previews depend only on its own
# sheet, the card and the lines taken in earlier turns, which the turn does not change.
_KNOWN: dict[tuple[Any, ...], list[JSON | None]] = {}
KNOWN_MAX = 4096


def previews(state: Any, seat: int, moves: Sequence[Any]) -> list[JSON | None]:
    """One preview per move of `moves` (`seat`'s legal moves, in order); a pass has none to
    show but the score, which it leaves as it is. Shared with later calls: read, never change."""
    s: MetroXPosition = state
    key = (
        s.m.id, s.card, s.first_taken, s.filled[seat], tuple(s.wins[seat]), s.done[seat],
        s.btotal[seat], s.ttotal[seat], tuple(moves),
    )  # fmt: skip
    known = _KNOWN.get(key)
    if known is None:
        known = [_one(s, seat, move) for move in moves]
        _KNOWN[key] = known
        if len(_KNOWN) > KNOWN_MAX:
            _KNOWN.pop(next(iter(_KNOWN)), None)  # the oldest (a thread may have dropped it)
    return known
