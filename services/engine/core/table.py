"""A table: one game as the engine holds it in memory, parsed, at one version.

There is one in-memory shape of a game (`Table`); `store.StoredGame` is only the row as read
from Redis before parsing, and `store.Change` is what one commit writes (built in tables.py
only). Each replica keeps the tables it served last (`TableCache`) to skip work on the next
call. A table is exact at its version and nothing more: every write still goes through the
commit script's version check, so a stale one (another replica moved meanwhile) costs a retry,
never a wrong answer. Table states are shared: copy before playing a move on one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from metro.v1 import engine_pb2

import games
from games.base import GameState
from services.engine.core import messages
from services.engine.core.meta import GameMeta

CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Table:
    """A game at one version. `state` is the position everyone plays from: `base` (the stored
    state, the start of the turn) with the `pending` hidden choices of an open simultaneous
    turn applied."""

    game_id: str
    version: int
    status: str
    meta: GameMeta
    meta_json: str
    state: GameState
    last_event_id: str
    created_at_ms: int
    base: GameState | None = None
    pending: dict[int, str] = field(default_factory=dict)  # seat -> its choice's JSON
    turn_version: int = 0  # the version the current turn began at
    from_cache: bool = False  # read from this replica's memory, not from Redis just now
    # The views built from this table, by seat (None: the public one). Never passed on by
    # `replace`: a changed table starts empty, so a view is only ever its own version's.
    views: dict[int | None, engine_pb2.GameView] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # The legal moves listed from this table, by seat (as `views`).
    legal: dict[int, engine_pb2.ListLegalMovesResponse] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def turn_start(self) -> GameState:
        """The stored state: the start of the turn, before any hidden choice."""
        return self.base if self.base is not None else self.state


def view_of(
    table: Table, seat: int | None, build: Callable[[], engine_pb2.GameView]
) -> engine_pb2.GameView:
    """`seat`'s view of `table`, built once per table: every watcher of a game fetches the
    view after each event, and all but the first get the one already made. The answer is
    shared: callers must not change it."""
    view = table.views.get(seat)
    if view is None:
        view = build()
        table.views[seat] = view
    return view


def seat_view(table: Table, seat: int | None) -> engine_pb2.GameView:
    """What `seat` (None: a spectator) sees of `table` (messages.py builds it)."""
    return view_of(
        table,
        seat,
        lambda: messages.game_view(
            game_id=table.game_id,
            meta=table.meta,
            version=table.version,
            status=table.status,
            last_event_id=table.last_event_id,
            view=table.state.view(seat),
            seat=seat,
            turn_version=table.turn_version,
        ),
    )


def legal_of(table: Table, seat: int) -> engine_pb2.ListLegalMovesResponse:
    """`seat`'s legal moves at `table`'s version (none unless the game is being played), listed
    once per table like `view_of`. Shared: callers must not change it. Each move's JSON carries
    the game's `preview` of it for this seat when the game gives one (Game.previews)."""
    listed = table.legal.get(seat)
    if listed is None:
        listed = engine_pb2.ListLegalMovesResponse(seat=seat, version=table.version)
        if table.status == "playing":
            moves = table.state.legal_moves(seat)
            previews = games.get(table.meta.kind).previews(table.state, seat, moves)
            listed.moves.extend(
                orjson.dumps(_with_preview(m.to_json(), p)).decode()
                for m, p in zip(moves, previews, strict=True)
            )
        table.legal[seat] = listed
    return listed


def _with_preview(move: dict[str, Any], preview: dict[str, Any] | None) -> dict[str, Any]:
    """The move's JSON with its `preview` added (unchanged when there is none)."""
    if preview is not None:
        move["preview"] = preview
    return move


class TableCache:
    """The tables this replica served last (least recently used ones are dropped)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._tables: OrderedDict[str, Table] = OrderedDict()

    def get(self, game_id: str) -> Table | None:
        table = self._tables.get(game_id)
        if table is not None:
            self._tables.move_to_end(game_id)
        return table

    def put(self, table: Table) -> None:
        self._tables[table.game_id] = table
        self._tables.move_to_end(table.game_id)
        while len(self._tables) > self.size:
            self._tables.popitem(last=False)
