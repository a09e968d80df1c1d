"""Which AI levels each game offers (services/common/levels.py): a game may leave a named level
out where it measured no stronger than the one below (Metro X: `expert`), and every other part
(the lobby's meta, seat and clock validation, hints, the ladder) asks the same function."""

from __future__ import annotations

import pytest

import games
from services.common.levels import (
    DEFAULT_LEVEL,
    NAMED_LEVELS,
    describe,
    is_level,
    level_table,
    offered_levels,
    still_offered,
)
from services.engine.core.clocks import ClockError, ClockRules


@pytest.mark.parametrize("kind", games.kinds())
def test_every_game_offers_known_levels_in_order_with_the_default(kind: str) -> None:
    offered = offered_levels(kind)
    own = games.get(kind).ai_levels
    assert set(own or NAMED_LEVELS) == set(offered), "a game names a level no worker knows"
    assert list(offered) == [n for n in NAMED_LEVELS if n in offered]
    assert DEFAULT_LEVEL in offered and "random" in offered
    assert [row["name"] for row in level_table(kind)] == list(offered)


def test_metrox_leaves_out_expert_and_keeps_the_fixed_iteration_levels() -> None:
    assert offered_levels("metrox") == ("random", "easy", "medium", "hard")
    assert not is_level("expert", "metrox") and is_level("hard", "metrox")
    assert is_level("mcts-500", "metrox")
    assert "expert" not in describe("metrox") and "mcts-N" in describe("metrox")
    assert is_level("expert", "metro") and is_level("expert", "underground")
    assert is_level("expert")  # with no game: every level a worker knows


def test_a_clock_s_away_level_is_checked_against_the_game() -> None:
    clock = {"mode": "realtime", "ai_level": "expert"}
    assert ClockRules.parse(clock, "metro") is not None
    with pytest.raises(ClockError) as err:
        ClockRules.parse(clock, "metrox")
    assert err.value.field == "clock.ai_level" and "hard" in str(err.value)


def test_a_rematch_of_an_older_table_gets_the_nearest_level_the_game_still_offers() -> None:
    assert still_offered("expert", "metrox") == "hard"
    assert still_offered("expert", "metro") == "expert"
    assert still_offered("easy", "metrox") == "easy"
    assert still_offered("mcts-40", "metrox") == "mcts-40"
