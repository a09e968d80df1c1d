"""The `metro rules` queries of Metro X (RULES-METROX.md §8): maps, map, replay."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import JSON
from games.errors import GameError, RecordError
from games.metrox import maps
from games.metrox.record import TurnError, replay


def maps_query(query: Mapping[str, Any]) -> JSON:
    return {"maps": [m.summary() for m in maps.shipped().values()]}


def map_query(query: Mapping[str, Any]) -> JSON:
    map_id = query.get("map", maps.beginner().id)
    return maps.get(map_id).data


def replay_query(query: Mapping[str, Any]) -> JSON:
    """Scores, or the first bad move: {"error", "turn", "seat"} (turn/seat null when the fault
    is in the record as a whole, seat null when it is a card)."""
    try:
        state = replay(query.get("record"))
    except TurnError as err:
        return {"error": str(err), "turn": err.turn, "seat": err.seat}
    except RecordError as err:
        return {"error": str(err), "turn": None, "seat": None}
    return {"scores": state.scores}


OPS = {"maps": maps_query, "map": map_query, "replay": replay_query}


def answer(query: Any) -> JSON:
    """One query's answer; GameError for a query that is not one of §8's."""
    if not isinstance(query, Mapping):
        raise GameError("a query must be a JSON object with an 'op'")
    op = query.get("op")
    if op not in OPS:
        raise GameError(f"unknown op {op!r} for metrox; known: {', '.join(OPS)}")
    return OPS[op](query)
