"""Metro X, the flip-and-write game (RULES-METROX.md). Importing this module registers "metrox".

Where to look (the shape every game has, games.base): rules.py (options, §6), moves.py (move
values and their one parser), position.py (turns and scoring, §3-§5: the fast door), state.py
(the checked door, retirement, the stored form), view.py (what a seat may see), record.py
(records, §7), chance.py (sampled worlds), evaluate.py (the AI's heuristic), queries.py (§8);
and the game's own: maps.py (the sheets, §1), cards.py (the deck, §2).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.base import JSON, Game, Option
from games.metrox import maps, queries
from games.metrox.chance import MetroXSampler
from games.metrox.evaluate import evaluate
from games.metrox.moves import MetroXMove, move_schema, parse
from games.metrox.record import export, replay, steps
from games.metrox.rules import MAX_PLAYERS, MIN_PLAYERS, normalise
from games.metrox.state import MetroXState
from games.metrox.view import view
from games.metrox.view_schema import view_schema
from games.registry import register

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


@dataclass(frozen=True)
class MetroXGame(Game):
    """The registry's entry for Metro X."""

    def normalise_rules(self, rules: Mapping[str, Any] | None) -> JSON:
        return normalise(rules)

    def new_state(self, rules: Mapping[str, Any], seed: int) -> MetroXState:
        return MetroXState.new(rules, seed)

    def state_from_dict(self, data: Mapping[str, Any]) -> MetroXState:
        return MetroXState.from_dict(data)

    def record_codec(self) -> Any:
        """This game's part of the compact record format (games/compact.py)."""
        from games.metrox.compact import CODEC

        return CODEC

    def replay(self, record: Mapping[str, Any]) -> MetroXState:
        return replay(record)

    def replay_steps(self, record: Mapping[str, Any]) -> Iterator[tuple[int, Any, int, Any]]:
        return steps(record)

    def view(self, state: Any, seat: int | None) -> JSON:
        return view(state, seat)

    def record(self, state: Any, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
        return export(state, seats)

    def parse_move(self, data: Any) -> MetroXMove:
        return parse(data)

    def move_schema(self) -> JSON:
        return move_schema()

    def view_schema(self) -> JSON:
        return view_schema()

    def event_actions(self) -> dict[str, str]:
        return {
            "choose": "a seat chose (the choice stays hidden until the turn resolves; "
            "`to_move`: the seats still to choose)",
            "resolve": "the last choice resolved the turn: every seat's choice, the lines "
            "completed, the `next_card`",
        }

    def world_sampler(self, view: Mapping[str, Any], seat: int) -> MetroXSampler:
        return MetroXSampler(view, seat)

    def evaluate(self, state: Any) -> list[float]:
        return evaluate(state)

    def query(self, query: Mapping[str, Any]) -> JSON:
        return queries.answer(query)

    def daily_rules(self, digest: bytes, day: int = 0) -> JSON:
        """Solo on the day's map: the shipped maps in turn, one a day in id order (every city
        and every map of our own within as many days as there are maps); the deck is the
        digest's."""
        ids = sorted(maps.shipped())
        return normalise({"players": 1, "map": ids[day % len(ids)]})


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


GAME = register(
    MetroXGame(
        kind="metrox",
        name="Metro X",
        description="Flip a card, everyone fills the same subway map at once: complete lines "
        "first for the big bonuses, and leave no station empty.",
        players=(MIN_PLAYERS, MAX_PLAYERS),
        colours=COLOURS,
        options=_options(),
        order=1,
        web_dir=Path(__file__).parent / "web",
    )
)
MetroXState.game = GAME  # a state's view() and record() ask its game (games.base.BoundToGame)

__all__ = ["GAME", "MetroXGame", "MetroXState"]
