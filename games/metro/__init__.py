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

from pathlib import Path

from games.base import Game, Option, Parts
from games.metro import record
from games.metro.board import COLOURS
from games.metro.chance import MetroWorlds
from games.metro.compact import CODEC
from games.metro.evaluate import evaluate
from games.metro.moves import DRAW, MetroMove, move_schema, move_text
from games.metro.positions import positions
from games.metro.preview import previews
from games.metro.queries import answer
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES, INDEX, Placement
from games.metro.view import view
from games.metro.view_schema import view_schema
from games.registry import register_game

GAME = register_game(
    Game(
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
        parts=Parts(
            state=MetroState,
            normalise=MetroRules.normalise,
            parse_move=MetroMove.parse,
            move_schema=move_schema,
            events={
                "place": "a tile was placed (`placement`; `drawn`: the tile just drawn; "
                "`completed` routes and their points)",
                "draw": "the top tile was drawn (shown to its seat alone); the seat places it next",
            },
            view=view,
            view_schema=view_schema,
            record=record,
            sampler=MetroWorlds,
            evaluate=evaluate,
            query=answer,
            codec=CODEC,
            previews=previews,
            positions=positions,
        ),
    )
)

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
