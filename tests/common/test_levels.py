"""Which AI levels each game offers (services/common/levels.py): a game may leave a named level
out where it measured no stronger than the one below (Metro X left out `expert` until its
hindsight planner; the tests below leave it out of a patched Metro X), and every other part (the
lobby's meta, seat and clock validation, hints, the ladder) asks the same function."""

from __future__ import annotations

import dataclasses

import pytest

import games
from games import registry
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


@pytest.fixture
def metrox_without_expert(monkeypatch: pytest.MonkeyPatch) -> None:
    """Metro X as it was registered before its `expert` was measured stronger than `hard`."""
    game = games.get("metrox")
    patched = dataclasses.replace(game, ai_levels=("random", "easy", "medium", "hard"))
    monkeypatch.setitem(registry._GAMES, "metrox", patched)


def test_every_game_offers_expert_now() -> None:
    """Metro X's `expert` plans sampled futures and beats `hard` (docs/ai.md): offered again."""
    for kind in games.kinds():
        assert offered_levels(kind)[-1] == "expert", kind


@pytest.mark.usefixtures("metrox_without_expert")
def test_a_game_leaves_out_a_level_and_keeps_the_fixed_iteration_levels() -> None:
    assert offered_levels("metrox") == ("random", "easy", "medium", "hard")
    assert not is_level("expert", "metrox") and is_level("hard", "metrox")
    assert is_level("mcts-500", "metrox")
    assert "expert" not in describe("metrox") and "mcts-N" in describe("metrox")
    assert is_level("expert", "metro") and is_level("expert", "underground")
    assert is_level("expert")  # with no game: every level a worker knows


@pytest.mark.usefixtures("metrox_without_expert")
def test_a_clock_s_away_level_is_checked_against_the_game() -> None:
    clock = {"mode": "realtime", "ai_level": "expert"}
    assert ClockRules.parse(clock, "metro") is not None
    with pytest.raises(ClockError) as err:
        ClockRules.parse(clock, "metrox")
    assert err.value.field == "clock.ai_level" and "hard" in str(err.value)


@pytest.mark.usefixtures("metrox_without_expert")
def test_a_rematch_of_an_older_table_gets_the_nearest_level_the_game_still_offers() -> None:
    assert still_offered("expert", "metrox") == "hard"
    assert still_offered("expert", "metro") == "expert"
    assert still_offered("easy", "metrox") == "easy"
    assert still_offered("mcts-40", "metrox") == "mcts-40"
