"""Metro, the tile-laying game (RULES.md). Importing this module registers the game "metro".

Where to look: board.py (squares, connectors, stations), tiles.py (tiles, notation),
placement.py (where a tile may go), state.py (turns, the two doors), routes.py (tracing),
view.py (what a seat may see), chance.py (unseen tiles, sampled worlds), record.py (records),
queries.py (the `metro rules` queries).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.metro.options import MetroRules
from games.metro.record import replay
from games.metro.state import DRAW, MetroState, move_text
from games.metro.tiles import CODES, INDEX, Placement
from games.registry import register


class MetroGame:
    kind = "metro"

    def new_state(self, rules: Mapping[str, Any], seed: int) -> MetroState:
        return MetroState.new(MetroRules.parse(rules), seed)

    def normalise_rules(self, rules: Mapping[str, Any]) -> dict[str, Any]:
        return MetroRules.parse(rules).to_dict()

    def state_from_dict(self, data: Mapping[str, Any]) -> MetroState:
        return MetroState.from_dict(data)

    def replay(self, record: Mapping[str, Any]) -> MetroState:
        return replay(record)


GAME = register(MetroGame())

__all__ = ["CODES", "DRAW", "GAME", "INDEX", "MetroRules", "MetroState", "Placement", "move_text"]
