"""`metro arena`: seeded games with seats swapped, a progress bar on stderr, a table and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.ai.arena import main
from services.ai.tournament import tasks, wilson


def test_arena_plays_seeded_games_with_seats_swapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "arena.json"
    assert main(["medium", "random", "--games", "4", "--jobs", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr()
    assert "4/4 games" in printed.err  # the progress bar
    header = printed.out.splitlines()[0].split()
    assert header[:4] == ["entrant", "games", "wins", "win"] and "ms/move" in header
    report = json.loads(out.read_text())
    assert report["games"] == 4 and len(report["results"]) == 4
    rows = {r["entrant"]: r for r in report["entrants"]}
    assert rows["medium"]["wins"] + rows["random"]["wins"] == 4
    assert rows["medium"]["mean_score"] > rows["random"]["mean_score"]
    # Each deal is played from both sides.
    seats = {(r["deal"], tuple(r["entrants"])) for r in report["results"]}
    assert seats == {(0, (0, 1)), (0, (1, 0)), (1, (0, 1)), (1, (1, 0))}
    # Seeded: the same command gives the same games.
    again = tmp_path / "again.json"
    main(["medium", "random", "--games", "4", "--jobs", "2", "--quiet", "--json", str(again)])
    assert json.loads(again.read_text())["results"][0]["scores"] == report["results"][0]["scores"]


def test_arena_refuses_bad_entrants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["medium", "grandmaster"]) == 2
    assert "unknown level" in capsys.readouterr().err
    assert main(["medium"]) == 2


def test_rotations_and_intervals() -> None:
    three = tasks(["medium", "easy", "random"], {"players": 3}, 5, seed=1)
    assert len(three) == 6 and {t.rotation for t in three} == {0, 1, 2}
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.9 < high < 0.95
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
