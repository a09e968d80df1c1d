"""Metro X, the flip-and-write game (RULES-METROX.md). Importing this module registers "metrox".

Where to look (the shape every game has, games.base): rules.py (options, §6), moves.py (move
values and their one parser), position.py (turns and scoring, §3-§5: the fast door), state.py
(the checked door, retirement, the stored form), view.py (what a seat may see), record.py
(records, §7), chance.py (sampled worlds), evaluate.py (the AI's heuristic), queries.py (§8);
and the game's own: maps.py (the sheets, §1), cards.py (the deck, §2).
"""

from __future__ import annotations

from pathlib import Path

from games.base import Game, Option, Parts
from games.metrox import maps, queries, record
from games.metrox.chance import MetroXSampler
from games.metrox.compact import CODEC
from games.metrox.evaluate import evaluate
from games.metrox.moves import move_schema, parse
from games.metrox.plan import hindsight
from games.metrox.positions import positions
from games.metrox.preview import previews
from games.metrox.rules import MAX_PLAYERS, MIN_PLAYERS, daily_rules, normalise
from games.metrox.state import MetroXState
from games.metrox.view import view
from games.metrox.view_schema import view_schema
from games.registry import register_game

# The Okabe-Ito palette (distinct under the common colour-vision deficiencies) and five darker
# companions, repeated to the 50 seats.
PALETTE = (
    "#0072b2",
    "#e69f00",
    "#009e73",
    "#cc79a7",
    "#d55e00",
    "#56b4e9",
    "#f0e442",
    "#000000",
    "#7f3c8d",
    "#8c6d31",
)
COLOURS = tuple(PALETTE[i % len(PALETTE)] for i in range(MAX_PLAYERS))


def _options() -> tuple[Option, ...]:
    shipped = maps.shipped()
    return (
        Option(
            "players",
            "int",
            2,
            "Players",
            "Everyone plays every turn at once; 1 is solo.",
            minimum=MIN_PLAYERS,
            maximum=MAX_PLAYERS,
        ),
        Option(
            "map",
            "choice",
            maps.beginner().id,
            "Map",
            "The sheet every player shares.",
            choices=tuple((m.id, m.name) for m in shipped.values()),
        ),
        Option(
            "daily",
            "text",
            None,
            "Daily puzzle",
            "A word of 1-32 letters, digits, - or _: everyone who plays the same word on the "
            "same map gets the same cards.",
        ),
    )


GAME = register_game(
    Game(
        kind="metrox",
        name="Metro X",
        description="Flip a card, everyone fills the same subway map at once: complete lines "
        "first for the big bonuses, and leave no station empty.",
        players=(MIN_PLAYERS, MAX_PLAYERS),
        colours=COLOURS,
        options=_options(),
        order=1,
        web_dir=Path(__file__).parent / "web",
        # `hard` plans sampled futures (services/ai/players/hindsight.py). `expert` (3 s of tree
        # search) was not stronger than the tree search `hard` had been: 43.4% in 38 two-player
        # games, and 94.0% against 93.5% of the best plan alone (docs/ai.md).
        ai_levels=("random", "easy", "medium", "hard"),
        parts=Parts(
            state=MetroXState,
            normalise=normalise,
            parse_move=parse,
            move_schema=move_schema,
            events={
                "choose": "a seat chose (the choice stays hidden until the turn resolves; "
                "`to_move`: the seats still to choose)",
                "resolve": "the last choice resolved the turn: every seat's choice, the lines "
                "completed, the `next_card`",
            },
            view=view,
            view_schema=view_schema,
            record=record,
            sampler=MetroXSampler,
            evaluate=evaluate,
            query=queries.answer,
            codec=CODEC,
            previews=previews,
            positions=positions,
            daily=daily_rules,
            hindsight=hindsight,
        ),
    )
)

__all__ = ["GAME", "MetroXState"]
