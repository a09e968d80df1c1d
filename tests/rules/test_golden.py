"""Golden playthroughs: the rules' answers along fixed games must not change unnoticed, for
every registered game."""

from __future__ import annotations

import json

import pytest

from tests.rules.playthrough import CASES, GOLDEN, playthrough


@pytest.mark.parametrize("name", sorted(CASES))
def test_playthrough_matches_golden_file(name: str) -> None:
    kind, rules, seed = CASES[name]
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    actual = json.loads(json.dumps(playthrough(kind, rules, seed)))
    for i, (want, got) in enumerate(zip(expected["turns"], actual["turns"], strict=False)):
        assert got == want, f"turn {i} differs"
    assert len(actual["turns"]) == len(expected["turns"])
    assert actual["record"] == expected["record"]


def test_every_game_has_golden_playthroughs() -> None:
    import games

    assert {kind for kind, _, _ in CASES.values()} == set(games.kinds())
    assert sorted(p.stem for p in GOLDEN.glob("*.json")) == sorted(CASES)
