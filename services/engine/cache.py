"""Games as this replica last saw them, parsed, to skip work on the next call.

A snapshot is exact at its version and nothing more: every write still goes through the commit
script's version check, so a stale snapshot (another replica moved meanwhile) costs a retry,
never a wrong answer. Snapshot states are shared: copy before playing a move on one.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from games.base import GameState
from services.engine.meta import GameMeta

CACHE_SIZE = 4096


@dataclass(frozen=True, slots=True)
class Snapshot:
    game_id: str
    version: int
    status: str
    meta: GameMeta
    meta_json: str
    state: GameState
    last_event_id: str
    created_at_ms: int
    from_cache: bool = False
    memo: dict[Any, Any] = field(default_factory=dict)  # per game, shared by its snapshots


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
