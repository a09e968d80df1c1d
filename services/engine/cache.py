"""Games as this replica last saw them, parsed, to skip work on the next call.

A snapshot is exact at its version and nothing more: every write still goes through the commit
script's version check, so a stale snapshot (another replica moved meanwhile) costs a retry,
never a wrong answer. Snapshot states are shared: copy before playing a move on one.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from metro.v1 import engine_pb2

from games.base import GameState
from services.engine.meta import GameMeta

CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game at one version. `state` is the position everyone plays from: `base` (the stored
    state, the start of the turn) with the `pending` hidden choices of an open simultaneous
    turn applied. `unresolved` is the resolving event when those choices complete the turn but
    its resolution was never committed (never cached: it is committed at once)."""

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
    from_cache: bool = False
    unresolved: dict[str, Any] | None = None
    # The views built from this snapshot, by seat (None: the public one). Never passed on by
    # `replace`: a changed snapshot starts empty, so a view is only ever its own version's.
    views: dict[int | None, engine_pb2.GameView] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )


def view_of(
    snap: Snapshot, seat: int | None, build: Callable[[], engine_pb2.GameView]
) -> engine_pb2.GameView:
    """`seat`'s view of `snap`, built once per snapshot: every watcher of a game fetches the
    view after each event, and all but the first get the one already made. The answer is
    shared: callers must not change it."""
    view = snap.views.get(seat)
    if view is None:
        view = build()
        snap.views[seat] = view
    return view


class GameCache:
    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._games: OrderedDict[str, Snapshot] = OrderedDict()

    def get(self, game_id: str) -> Snapshot | None:
        snap = self._games.get(game_id)
        if snap is not None:
            self._games.move_to_end(game_id)
        return snap

    def put(self, snap: Snapshot) -> None:
        self._games[snap.game_id] = snap
        self._games.move_to_end(snap.game_id)
        while len(self._games) > self.size:
            self._games.popitem(last=False)
