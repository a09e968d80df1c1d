"""Move values (RULES-UNDERGROUND.md §3) and their one parser.

A whole turn (up to 4 rails, then the passenger's route) is far too big to list, so a turn is
split into atomic steps by the same seat, OpenSpiel-style:

- `Rail(colour, a, b)`: lay one rail (a < b by id), JSON `{"step": "rail", "colour", "a", "b"}`;
- `Stop()`: end the building, JSON `{"step": "stop"}`; the passenger then moves, and each leg
  with a single best way is taken at once;
- `Leg(to, lines)`: when a leg has tied best ways, the mover picks one, JSON
  `{"step": "route", "to", "lines"}`.

`parse_step` is the only reader of a step's JSON, for the game's `parse_move` and for the
state's `play` (whose whole-turn form reads its rails and legs with `parse_rail`/`parse_leg`):
both see the same errors. Station ids are checked against `stations`: the game's map in `play`,
every shipped map's stations in `Game.parse_move` (which knows no map).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from games.errors import InvalidMoveError
from games.underground.map import MAP_IDS, load_map
from games.underground.rules import COLOUR_INDEX, COLOURS


@dataclass(frozen=True, slots=True)
class Rail:
    colour: str
    a: str
    b: str

    @classmethod
    def of(cls, colour: str, a: str, b: str) -> Rail:
        return cls(colour, a, b) if a <= b else cls(colour, b, a)

    def to_json(self) -> dict[str, Any]:
        return {"step": "rail", "colour": self.colour, "a": self.a, "b": self.b}

    def rail_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "a": self.a, "b": self.b}


@dataclass(frozen=True, slots=True)
class Stop:
    def to_json(self) -> dict[str, Any]:
        return {"step": "stop"}


@dataclass(frozen=True, slots=True)
class Leg:
    to: str
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"step": "route", "to": self.to, "lines": list(self.lines)}

    def leg_json(self) -> dict[str, Any]:
        return {"to": self.to, "lines": list(self.lines)}


Move = Rail | Stop | Leg


@cache
def every_station() -> frozenset[str]:
    """The station ids of every shipped map: what a step may name before its map is known."""
    return frozenset(sid for m in MAP_IDS for sid in load_map(m).index)


def parse_rail(raw: Any, field: str, stations: Container[str]) -> Rail:
    """A rail `{"colour", "a", "b"}` (a step's or a whole turn's); InvalidMoveError in `field`."""
    if not isinstance(raw, Mapping):
        raise InvalidMoveError("a rail is an object with colour, a and b", field)
    colour, a, b = raw.get("colour"), raw.get("a"), raw.get("b")
    if colour not in COLOUR_INDEX:
        raise InvalidMoveError(f"unknown colour {colour!r}", field)
    if not isinstance(a, str) or a not in stations:
        raise InvalidMoveError(f"unknown station {a!r}", field)
    if not isinstance(b, str) or b not in stations:
        raise InvalidMoveError(f"unknown station {b!r}", field)
    return Rail.of(str(colour), a, b)


def parse_leg(raw: Any, field: str, stations: Container[str]) -> Leg:
    """A leg `{"to", "lines"}` (a step's or a whole turn's); InvalidMoveError in `field`."""
    if not isinstance(raw, Mapping):
        raise InvalidMoveError("a leg is an object with 'to' and 'lines'", field)
    to, lines = raw.get("to"), raw.get("lines", [])
    if not isinstance(to, str) or to not in stations:
        raise InvalidMoveError(f"unknown station {to!r}", field)
    if not isinstance(lines, list) or any(c not in COLOUR_INDEX for c in lines):
        raise InvalidMoveError("'lines' must be a list of colours", field)
    if len(set(lines)) != len(lines):
        raise InvalidMoveError("'lines' names a colour twice", field)
    return Leg(to, tuple(sorted(lines, key=COLOUR_INDEX.__getitem__)))


def parse_step(data: Any, stations: Container[str]) -> Move:
    """The step of a JSON body `{"step": "rail" | "stop" | "route", ...}`; InvalidMoveError
    naming the bad field. Whether the step is legal now is `play`'s business."""
    if not isinstance(data, Mapping):
        raise InvalidMoveError("a step is a JSON object with 'step'", "move")
    step = data.get("step")
    if step == "rail":
        return parse_rail(data, "step", stations)
    if step == "stop":
        return Stop()
    if step == "route":
        return parse_leg(data, "step", stations)
    raise InvalidMoveError(f"unknown step {step!r}; expected 'rail', 'stop' or 'route'", "step")


def parse_move(data: Any) -> Move:
    """A step from the API's JSON, naming any station of a shipped map (`Game.parse_move`: the
    map is the state's to check); a whole turn is `play`'s business, not a value."""
    return parse_step(data, every_station())


def move_schema() -> dict[str, Any]:
    """A whole turn ({"rails", "route"}) or one step ({"step": "rail" | "stop" | "route"}), as
    `UndergroundState.play` reads them (RULES-UNDERGROUND.md §3)."""
    station = {"type": "string", "minLength": 1, "description": "a station id of the map"}
    colour = {"enum": list(COLOURS)}
    rail = {"colour": colour, "a": station, "b": station}
    leg = {"to": station, "lines": {"type": "array", "items": colour, "uniqueItems": True}}

    def obj(title: str, props: dict[str, Any], required: list[str]) -> dict[str, Any]:
        return {"type": "object", "title": title, "properties": props, "required": required}

    return {
        "oneOf": [
            obj(
                "turn",
                {
                    "rails": {
                        "type": "array",
                        "maxItems": 4,
                        "items": obj("rail", rail, ["colour", "a", "b"]),
                    },
                    "route": {"type": "array", "items": obj("leg", leg, ["to"])},
                },
                ["rails"],
            ),
            obj("rail step", {"step": {"const": "rail"}, **rail}, ["step", "colour", "a", "b"]),
            obj("stop step", {"step": {"const": "stop"}}, ["step"]),
            obj("route step", {"step": {"const": "route"}, **leg}, ["step", "to"]),
        ]
    }
