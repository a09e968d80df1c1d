"""The option table (RULES-UNDERGROUND.md §2, §5 "rules"): players and the map, validated in one
place; and the table's fixed numbers: the eleven line colours, lines per seat, face-up cards."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.errors import RulesError
from games.underground.map import MAP_IDS

COLOURS = (
    "red",
    "yellow",
    "blue",
    "purple",
    "black",
    "pink",
    "orange",
    "green",
    "brown",
    "white",
    "grey",
)
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
LINES_PER_SEAT = {2: 4, 3: 3, 4: 2, 5: 2}
SYMBOLS = "abcd"
FACE_UP = 4
# The Underground's own colours for the 11 line names: what the page draws each line in.
LINE_HEX = {
    "red": "#dc241f",
    "yellow": "#ffd329",
    "blue": "#0019a8",
    "purple": "#9b0058",
    "black": "#1c1c1c",
    "pink": "#f4a9be",
    "orange": "#ee7c0e",
    "green": "#00782a",
    "brown": "#b26300",
    "white": "#ffffff",
    "grey": "#a1a5a7",
}
# What `GET /api/meta` tells the page (Game.meta's `constants`): the page types none of it.
CONSTANTS = {
    "colours": list(COLOURS),
    "line_hex": LINE_HEX,
    "lines_per_seat": {str(k): v for k, v in LINES_PER_SEAT.items()},
    # each seat's lines by the number of seats (§2), as a view's `seats[i].colours` say them
    "seat_colours": {
        str(k): [list(COLOURS[i * v : (i + 1) * v]) for i in range(k)]
        for k, v in LINES_PER_SEAT.items()
    },
    "face_up": FACE_UP,
    "symbols": list(SYMBOLS),
}


@dataclass(frozen=True, slots=True)
class UndergroundRules:
    players: int = 2
    map: str = "london"

    @classmethod
    def parse(cls, data: Mapping[str, Any] | None) -> UndergroundRules:
        """Options from a JSON object; RulesError naming an unknown or out-of-range one by its
        field, `rules.<name>`, as every game does."""
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise RulesError("rules must be a JSON object", "rules")
        unknown = sorted(set(data) - {"players", "map"})
        if unknown:
            raise RulesError(f"unknown option {unknown[0]!r}", f"rules.{unknown[0]}")
        players = data.get("players", 2)
        if type(players) is not int or not 2 <= players <= 5:
            raise RulesError(f"players must be 2-5, got {players!r}", "rules.players")
        map_id = data.get("map", "london")
        if map_id not in MAP_IDS:
            raise RulesError(f"unknown map {map_id!r}; known maps: london", "rules.map")
        return cls(players, map_id)

    @classmethod
    def normalise(cls, data: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option with its default filled in, as JSON (`Game.normalise_rules`)."""
        return cls.parse(data).to_dict()

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "map": self.map}
