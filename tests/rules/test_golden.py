"""Golden playthroughs: the rules' answers along fixed games must not change unnoticed."""

from __future__ import annotations

import json

import pytest

from tests.rules.playthrough import CASES, GOLDEN, playthrough


@pytest.mark.parametrize("name", sorted(CASES))
def test_playthrough_matches_golden_file(name: str) -> None:
    rules, seed = CASES[name]
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    actual = json.loads(json.dumps(playthrough(rules, seed)))
    for i, (want, got) in enumerate(zip(expected["turns"], actual["turns"], strict=False)):
        assert got == want, f"turn {i} differs"
    assert len(actual["turns"]) == len(expected["turns"])
    assert actual["record"] == expected["record"]
