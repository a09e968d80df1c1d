"""On the Underground (RULES-UNDERGROUND.md). Importing this module registers the game
"underground".

Where to look (the shape every game has, games.base): rules.py (options and the table's
numbers), moves.py (the steps and their one parser), position.py (set-up, turns, the fast door,
§2-§4), state.py (the checked door, retirement, the stored form), view.py (what a seat sees),
record.py (records), preview.py (what each legal step would score, what each rail scored,
a record's replay positions: the page's numbers, issue 31.2), chance.py (sampled worlds),
evaluate.py (the AI's heuristic), queries.py (`metro rules` queries); and the game's own:
map.py (the board as data, §1), building.py (rails and their scores, §3), scoring.py (loops
and enclosure), passenger.py (the passenger's best ways).
"""

from __future__ import annotations

from pathlib import Path

from games.base import Game, Option, Parts
from games.registry import register_game
from games.underground import record
from games.underground.chance import UndergroundSampler
from games.underground.compact import CODEC
from games.underground.evaluate import evaluate
from games.underground.moves import Leg, Rail, Stop, move_schema, parse_move
from games.underground.preview import positions, previews
from games.underground.queries import query
from games.underground.rules import COLOURS, CONSTANTS, UndergroundRules
from games.underground.state import UndergroundState
from games.underground.view import view
from games.underground.view_schema import view_schema

SEAT_COLOURS = ("yellow", "blue", "orange", "green", "purple")

GAME = register_game(
    Game(
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
        parts=Parts(
            state=UndergroundState,
            normalise=UndergroundRules.normalise,
            parse_move=parse_move,
            move_schema=move_schema,
            events={
                "rail": "a rail laid (one step of a turn)",
                "stop": "the seat stopped laying rails: the passenger rides (`route`, `gained`)",
                "route": "the seat picked one of the passenger's tied ways",
                "turn": "a whole turn sent at once (rails, route)",
            },
            view=view,
            view_schema=view_schema,
            record=record,
            sampler=UndergroundSampler,
            evaluate=evaluate,
            query=query,
            codec=CODEC,
            previews=previews,
            constants=CONSTANTS,
            positions=positions,
        ),
    )
)

__all__ = ["COLOURS", "GAME", "Leg", "Rail", "Stop", "UndergroundState"]
