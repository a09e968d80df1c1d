"""The `metro rules` door: one JSON query in, one JSON answer out, for any game, no server.

A query names its game with `"game"` (a `replay` query's record may name it instead); a query
that names none is about the default game (the first in `games.all_games()`), as RULES.md §10's
queries are. The game's own `query` answers it; errors come back as `{"error": ...}`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from games import registry
from games.errors import GameError


def game_of(query: Mapping[str, Any]) -> str:
    """The kind a query is about: its "game", else its record's, else the default game's."""
    kind = query.get("game")
    record = query.get("record")
    if kind is None and isinstance(record, Mapping):
        kind = record.get("game")
    return registry.default().kind if kind is None else kind


def answer(query: Any) -> dict[str, Any]:
    if not isinstance(query, Mapping):
        return {"error": "a query must be a JSON object with an 'op'"}
    # Checked here for every game: a list or object where a name belongs is no query.
    if not isinstance(query.get("op"), str):
        return {"error": "a query's 'op' must be a string"}
    if not isinstance(game_of(query), str):
        return {"error": "a query's 'game' must be a string"}
    try:
        game = registry.get(game_of(query))
        return game.query(query)
    except GameError as err:
        return {"error": str(err)}


def answer_line(line: str) -> str:
    """One line of JSON in, one line of JSON out."""
    try:
        query = json.loads(line)
    except ValueError as err:
        return json.dumps({"error": f"not valid JSON: {err}"})
    return json.dumps(answer(query))
