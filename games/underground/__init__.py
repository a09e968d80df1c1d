"""On the Underground (RULES-UNDERGROUND.md). Importing this module registers the game
"underground".

Where to look: map.py (the board as data, §1), state.py (set-up, turns, the two doors, §2-§4),
building.py (rails and their scores, §3), scoring.py (loops and enclosure), passenger.py (the
passenger's best ways), view.py (what a seat sees), record.py (records), chance.py (sampled
worlds), queries.py (`metro rules` queries).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.base import Game, GameState, Option, WorldSampler
from games.errors import InvalidMoveError
from games.registry import register
from games.underground.chance import UndergroundSampler
from games.underground.map import load_map
from games.underground.queries import query as run_query
from games.underground.record import replay as replay_record
from games.underground.state import (
    COLOURS,
    Leg,
    Move,
    Rail,
    Stop,
    UndergroundRules,
    UndergroundState,
)

SEAT_COLOURS = ("yellow", "blue", "orange", "green", "purple")


@dataclass(frozen=True)
class UndergroundGame(Game):
    def normalise_rules(self, rules: Mapping[str, Any] | None) -> dict[str, Any]:
        return UndergroundRules.parse(rules).to_dict()

    def new_state(self, rules: Mapping[str, Any], seed: int) -> UndergroundState:
        return UndergroundState.new(UndergroundRules.parse(rules), seed)

    def state_from_dict(self, data: Mapping[str, Any]) -> UndergroundState:
        return UndergroundState.from_dict(data)

    def replay(self, record: Mapping[str, Any]) -> UndergroundState:
        return replay_record(record)

    def parse_move(self, data: Any) -> Move:
        """An atomic step ({"step": ...}); a whole turn is `play`'s business, not a value."""
        if not isinstance(data, Mapping):
            raise InvalidMoveError("a move is a JSON object with 'step'", "move")
        step = data.get("step")
        if step == "stop":
            return Stop()
        if step == "rail":
            c, a, b = data.get("colour"), data.get("a"), data.get("b")
            if c not in COLOURS or not isinstance(a, str) or not isinstance(b, str):
                raise InvalidMoveError("a rail step has colour, a and b", "step")
            return Rail.of(str(c), a, b)
        if step == "route":
            to, lines = data.get("to"), data.get("lines", [])
            if not isinstance(to, str) or not isinstance(lines, list):
                raise InvalidMoveError("a route step has 'to' and 'lines'", "step")
            if any(x not in COLOURS for x in lines):
                raise InvalidMoveError("'lines' must be colours", "step")
            return Leg(to, tuple(sorted(lines, key=COLOURS.index)))
        raise InvalidMoveError(f"unknown step {step!r}; expected 'rail', 'stop' or 'route'", "step")

    def view_schema(self) -> dict[str, Any]:
        from games.underground.view_schema import view_schema

        return view_schema()

    def move_schema(self) -> dict[str, Any]:
        """A whole turn ({"rails", "route"}) or one step ({"step": "rail" | "stop" | "route"}),
        as `UndergroundState.play` reads them (RULES-UNDERGROUND.md §3)."""
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

    def world_sampler(self, view: Mapping[str, Any], seat: int) -> WorldSampler:
        return UndergroundSampler(view, seat)

    def evaluate(self, state: GameState) -> list[float]:
        """Score, plus: 0.5 per branch token, 0.4 per open end of a line (room to grow), and
        0.6 per face-up destination a seat's line touches (the passenger will likely ride it)."""
        assert isinstance(state, UndergroundState)
        if state.is_over:
            return [float(s) for s in state.scores]
        out = []
        n = state.board.size
        open_mask = ~state.board.terminus_mask
        deg = state.deg
        dest = 0
        for card in state.face_up:
            dest |= 1 << card
        riding = state.passenger >= 0
        for seat in range(state.rules.players):
            if state.retired_mask >> seat & 1:  # retired: its score is frozen
                out.append(float(state.scores[seat]))
                continue
            v = float(state.scores[seat]) + 0.5 * state.held_tokens(seat)
            for c in state.colours_of[seat]:
                on = state.on_line[c]
                if not on:
                    continue
                ends = 0
                rest = on & open_mask  # an end is never a terminus (is_end)
                base = c * n
                while rest:
                    low = rest & -rest
                    if deg[base + low.bit_length() - 1] == 1:
                        ends += 1
                    rest ^= low
                v += 0.4 * ends
                if riding:
                    v += 0.6 * (on & dest).bit_count()
            out.append(v)
        return out

    def query(self, query: Mapping[str, Any]) -> dict[str, Any]:
        return run_query(query)

    def map_json(self) -> dict[str, Any]:
        return load_map("london").to_json()


GAME = register(
    UndergroundGame(
        kind="underground",
        name="On the Underground",
        description=(
            "Build Underground lines across London; the passenger rides them to its "
            "destinations and pays their owners."
        ),
        players=(2, 5),
        colours=SEAT_COLOURS,
        options=(
            Option("players", "int", 2, "Players", "2-5 seats", minimum=2, maximum=5),
            Option("map", "choice", "london", "Map", choices=(("london", "London"),)),
        ),
        order=2,
        web_dir=Path(__file__).parent / "web",
    )
)

__all__ = ["COLOURS", "GAME", "Leg", "Rail", "Stop", "UndergroundGame", "UndergroundState"]
