"""Metro, the tile-laying game (RULES.md). Importing this package registers the game "metro".

Where to look (the shape every game has, games.base): rules.py (the options), moves.py (move
values and their one parser), position.py (turns, routes kept as tiles go down, unseen tiles: the
fast door), state.py (the checked door, retirement, the stored form), view.py (what a seat may
see), record.py (records), chance.py (sampled worlds), evaluate.py (the AI's evaluation),
queries.py (the `metro rules` queries); and the game's own: board.py (squares, connectors,
stations), tiles.py (tiles, notation), placement.py (where a tile may go), routes.py (tracing),
web/page.js (the board on the page).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from games.base import Game, Option
from games.metro.board import COLOURS
from games.metro.chance import MetroWorlds
from games.metro.evaluate import evaluate
from games.metro.moves import DRAW, MetroMove, move_schema, move_text
from games.metro.queries import answer
from games.metro.record import export, replay, steps
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES, INDEX, Placement
from games.metro.view import view
from games.metro.view_schema import view_schema
from games.registry import register


class MetroGame(Game):
    def normalise_rules(self, rules: Mapping[str, Any] | None) -> dict[str, Any]:
        return MetroRules.parse(rules).to_dict()

    def new_state(self, rules: Mapping[str, Any], seed: int) -> MetroState:
        return MetroState.new(MetroRules.parse(rules), seed)

    def state_from_dict(self, data: Mapping[str, Any]) -> MetroState:
        return MetroState.from_dict(data)

    def record_codec(self) -> Any:
        """This game's part of the compact record format (games/compact.py)."""
        from games.metro.compact import CODEC

        return CODEC

    def replay(self, record: Mapping[str, Any]) -> MetroState:
        return replay(record)

    def replay_steps(self, record: Mapping[str, Any]) -> Iterator[tuple[int, Any, int, Any]]:
        return steps(record)

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return view(state, seat)

    def record(
        self, state: Any, seats: Sequence[Mapping[str, Any]] | None = None
    ) -> dict[str, Any]:
        return export(state, seats)

    def parse_move(self, data: Any) -> MetroMove:
        return MetroMove.parse(data)

    def move_schema(self) -> dict[str, Any]:
        return move_schema()

    def view_schema(self) -> dict[str, Any]:
        return view_schema()

    def event_actions(self) -> dict[str, str]:
        return {
            "place": "a tile was placed (`placement`; `drawn`: the tile just drawn; `completed` "
            "routes and their points)",
            "draw": "the top tile was drawn (shown to its seat alone); the seat places it next",
        }

    def world_sampler(self, view: Mapping[str, Any], seat: int) -> MetroWorlds:
        return MetroWorlds(view, seat)

    def evaluate(self, state: Any) -> list[float]:
        return evaluate(state)

    def query(self, query: Mapping[str, Any]) -> dict[str, Any]:
        return answer(query)


GAME = register(
    MetroGame(
        kind="metro",
        name="Metro",
        description="Lay track tiles so your stations' routes run long, or end in the centre.",
        players=(2, 6),
        colours=COLOURS,
        options=(
            Option("players", "int", 2, "Players", minimum=2, maximum=6),
            Option("rotation", "bool", False, "Rotation", "tiles may be turned"),
            Option("online", "bool", False, "Online rules", "extend your own routes"),
            Option(
                "hand_size",
                "choice",
                1,
                "Hand size",
                "tiles in hand",
                choices=((1, "1"), (2, "2"), (3, "3")),
            ),
        ),
        order=0,
        web_dir=Path(__file__).parent / "web",
    )
)
MetroState.game = GAME  # a state's view() and record() ask its game (games.base.BoundToGame)

__all__ = [
    "CODES",
    "DRAW",
    "GAME",
    "INDEX",
    "MetroMove",
    "MetroRules",
    "MetroState",
    "Placement",
    "move_text",
]
