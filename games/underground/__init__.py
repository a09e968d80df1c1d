"""On the Underground (RULES-UNDERGROUND.md). Importing this module registers the game
"underground".

Where to look (the shape every game has, games.base): rules.py (options and the table's
numbers), moves.py (the steps and their one parser), position.py (set-up, turns, the fast door,
§2-§4), state.py (the checked door, retirement, the stored form), view.py (what a seat sees),
record.py (records), chance.py (sampled worlds), evaluate.py (the AI's heuristic), queries.py
(`metro rules` queries); and the game's own: map.py (the board as data, §1), building.py (rails
and their scores, §3), scoring.py (loops and enclosure), passenger.py (the passenger's best ways).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.base import Game, GameState, Option, WorldSampler
from games.registry import register
from games.underground.chance import UndergroundSampler
from games.underground.evaluate import evaluate
from games.underground.map import load_map
from games.underground.moves import Leg, Move, Rail, Stop, every_station, move_schema, parse_step
from games.underground.queries import query as run_query
from games.underground.record import export, steps
from games.underground.record import replay as replay_record
from games.underground.rules import COLOURS, UndergroundRules
from games.underground.state import UndergroundState
from games.underground.view import view
from games.underground.view_schema import view_schema

SEAT_COLOURS = ("yellow", "blue", "orange", "green", "purple")


@dataclass(frozen=True)
class UndergroundGame(Game):
    def normalise_rules(self, rules: Mapping[str, Any] | None) -> dict[str, Any]:
        return UndergroundRules.parse(rules).to_dict()

    def new_state(self, rules: Mapping[str, Any], seed: int) -> UndergroundState:
        return UndergroundState.new(UndergroundRules.parse(rules), seed)

    def state_from_dict(self, data: Mapping[str, Any]) -> UndergroundState:
        return UndergroundState.from_dict(data)

    def record_codec(self) -> Any:
        """This game's part of the compact record format (games/compact.py)."""
        from games.underground.compact import CODEC

        return CODEC

    def replay(self, record: Mapping[str, Any]) -> UndergroundState:
        return replay_record(record)

    def replay_steps(self, record: Mapping[str, Any]) -> Iterator[tuple[int, Any, int, Any]]:
        return steps(record)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def record(
        self, state: Any, seats: Sequence[Mapping[str, Any]] | None = None
    ) -> dict[str, Any]:
        return export(state, seats)

    def parse_move(self, data: Any) -> Move:
        """An atomic step ({"step": ...}), by the state's own parser (moves.parse_step) with
        the stations of every shipped map; a whole turn is `play`'s business, not a value."""
        return parse_step(data, every_station())

    def view_schema(self) -> dict[str, Any]:
        return view_schema()

    def event_actions(self) -> dict[str, str]:
        return {
            "rail": "a rail laid (one step of a turn)",
            "stop": "the seat stopped laying rails: the passenger rides (`route`, `gained`)",
            "route": "the seat picked one of the passenger's tied ways",
            "turn": "a whole turn sent at once (rails, route)",
        }

    def move_schema(self) -> dict[str, Any]:
        return move_schema()

    def world_sampler(self, view: Mapping[str, Any], seat: int) -> WorldSampler:
        return UndergroundSampler(view, seat)

    def evaluate(self, state: GameState) -> list[float]:
        assert isinstance(state, UndergroundState)
        return evaluate(state)

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
UndergroundState.game = GAME  # a state's view() and record() ask its game (base.BoundToGame)

__all__ = ["COLOURS", "GAME", "Leg", "Rail", "Stop", "UndergroundGame", "UndergroundState"]
