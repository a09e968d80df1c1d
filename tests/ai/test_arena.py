"""`metro arena`: seeded games of any kind with seats swapped (or played alone), a progress bar
on stderr, a table and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.ai.arena import main
from services.ai.tournament import percentile, scale_spec, tasks, wilson


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
    assert report["game"] == "metro" and report["rules"]["players"] == 2  # the default game
    assert report["games"] == 4 and len(report["results"]) == 4
    rows = {r["entrant"]: r for r in report["entrants"]}
    assert rows["medium"]["wins"] + rows["random"]["wins"] == 4
    assert rows["medium"]["mean_score"] > rows["random"]["mean_score"]
    # A level's time per move is held to its budget at the 95th percentile: every decision's
    # time is kept, and the row's p95 is theirs by the nearest rank.
    medium_ms = [
        ms
        for r in report["results"]
        for seat, who in enumerate(r["entrants"])
        if who == 0
        for ms in r["move_ms"][seat]
    ]
    assert len(medium_ms) == rows["medium"]["moves"]
    assert rows["medium"]["p95_ms"] == percentile(medium_ms, 0.95)
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
    assert main(["medium"]) == 2  # Metro has no solo game
    assert "give 2-6 entrants" in capsys.readouterr().err
    assert main(["medium", "random", "--game", "chess"]) == 2
    assert "unknown game 'chess'" in capsys.readouterr().err


def test_arena_takes_the_games_own_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "opts.json"
    argv = ["medium", "random", "easy", "--hand-size", "2", "--rotation", "--games", "3"]
    assert main([*argv, "--jobs", "1", "--quiet", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["rules"] == {"players": 3, "rotation": True, "hand_size": 2, "online": False}
    assert all(len(r["scores"]) == 3 for r in report["results"])


def test_arena_plays_a_simultaneous_game(tmp_path: Path) -> None:
    out = tmp_path / "x.json"
    assert main(["medium", "random", "--game", "metrox", "--games", "2", "--jobs", "1",
                 "--quiet", "--json", str(out)]) == 0  # fmt: skip
    report = json.loads(out.read_text())
    assert report["game"] == "metrox" and report["games"] == 2 and not report["solo"]
    assert {tuple(r["entrants"]) for r in report["results"]} == {(0, 1), (1, 0)}
    rows = {r["entrant"]: r for r in report["entrants"]}
    assert rows["medium"]["wins"] + rows["random"]["wins"] == 2


def test_arena_compares_solo_players_by_mean_score(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "solo.json"
    assert main(["medium", "random", "--game", "metrox", "--players", "1", "--games", "4",
                 "--jobs", "1", "--json", str(out)]) == 0  # fmt: skip
    header = capsys.readouterr().out.splitlines()[0].split()
    assert header == [
        "entrant",
        "games",
        "mean",
        "score",
        "ms/move",
        "p95",
        "ms",
    ]  # no wins when alone
    report = json.loads(out.read_text())
    assert report["solo"] and report["rules"]["players"] == 1 and report["games"] == 4
    # Every entrant plays every deal alone.
    assert sorted((r["deal"], r["entrants"][0]) for r in report["results"]) == [
        (0, 0), (0, 1), (1, 0), (1, 1)
    ]  # fmt: skip
    rows = {r["entrant"]: r for r in report["entrants"]}
    assert "wins" not in rows["medium"] and rows["medium"]["games"] == 2
    assert rows["medium"]["mean_score"] > rows["random"]["mean_score"]


def test_rotations_and_intervals() -> None:
    three = tasks(["medium", "easy", "random"], {}, 5, seed=1)
    assert len(three) == 6 and {t.rotation for t in three} == {0, 1, 2}
    assert all(t.rules["players"] == 3 and not t.solo for t in three)
    alone = tasks(["medium", "easy"], {}, 4, seed=1, game="metrox", solo=True)
    assert [(t.deal, t.rotation, t.rules["players"]) for t in alone] == [
        (0, 0, 1), (0, 1, 1), (1, 0, 1), (1, 1, 1)
    ]  # fmt: skip
    low, high = wilson(90, 100)
    assert 0.82 < low < 0.9 < high < 0.95
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == 1.0
    assert percentile(list(range(1, 101)), 0.95) == 95 and percentile([7.0], 0.95) == 7.0
    assert percentile([], 0.95) == 0.0


def test_arena_sprt_stops_as_soon_as_it_is_decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny real sequential test: medium against random is decided (H1) in 18 games of the
    cap of 60, deal by deal from both seats; the other way round H0 is accepted as soon."""
    out = tmp_path / "sprt.json"
    argv = ["medium", "random", "--sprt", "--games", "60", "--jobs", "1", "--quiet"]
    assert main([*argv, "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "H1 accepted: medium is stronger than random; 18 games" in printed
    report = json.loads(out.read_text())
    s = report["sprt"]
    assert s["decision"] == "H1" and s["games"] == 18 == len(report["results"])
    assert s["llr"] >= s["bounds"][1] and s["win_ci95"][0] > 0.6 and s["elapsed_s"] > 0
    assert [(r["deal"], r["rotation"]) for r in report["results"]] == [
        (d, k) for d in range(9) for k in (0, 1)
    ]  # each deal from both seats
    assert main(["random", "medium", "--sprt", "--games", "60", "--jobs", "2", "--quiet",
                 "--json", str(out)]) == 0  # fmt: skip
    s = json.loads(out.read_text())["sprt"]
    assert s["decision"] == "H0" and s["games"] == 14 and s["wins"] == 0
    # Only two entrants; a bad margin is refused.
    assert main(["medium", "random", "easy", "--sprt"]) == 2
    assert main(["medium", "random", "--sprt", "--h1", "0.4"]) == 2
    assert "0 < p0 < p1 < 1" in capsys.readouterr().err


def test_a_time_control_scales_every_timed_budget() -> None:
    assert scale_spec("hard", 0.1) == "hard:70"
    assert scale_spec("expert", 0.1) == "expert:300"
    assert scale_spec("hard:500", 0.5) == "hard:250"
    assert scale_spec("expert", 0.001) == "expert:10"  # the smallest budget a level takes
    assert scale_spec("medium", 0.1) == "medium" and scale_spec("mcts-50", 0.1) == "mcts-50"
    assert scale_spec("hard", 1) == "hard"


def test_a_test_cut_short_goes_on_where_it_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--resume`: a sequential test stopped by its cap (or a time limit, mid-deal) goes on from
    its --json: its whole deals count, play starts at the next deal, and the end is the one an
    unbroken run reaches (medium against random: H1 in 18 games, the same games)."""
    argv = ["medium", "random", "--sprt", "--jobs", "1", "--quiet"]
    first, again, whole = tmp_path / "first.json", tmp_path / "again.json", tmp_path / "whole.json"
    assert main([*argv, "--games", "6", "--json", str(first)]) == 0
    cut = json.loads(first.read_text())
    assert cut["sprt"]["decision"] == "none" and len(cut["results"]) == 6
    cut["results"] = cut["results"][:5]  # a time limit came in the middle of the third deal
    first.write_text(json.dumps(cut))
    assert main([*argv, "--games", "60", "--resume", str(first), "--json", str(again)]) == 0
    assert main([*argv, "--games", "60", "--json", str(whole)]) == 0
    resumed, unbroken = json.loads(again.read_text()), json.loads(whole.read_text())
    assert resumed["sprt"]["decision"] == "H1" and resumed["sprt"]["games"] == 18
    assert resumed["results"][:4] == cut["results"][:4]  # the earlier run's whole deals, kept

    def played(report: dict) -> list[dict]:  # type: ignore[type-arg]
        return [{k: v for k, v in r.items() if k not in ("think_s", "move_ms")}
                for r in report["results"]]  # fmt: skip

    assert played(resumed) == played(unbroken)  # the same deals, moves and scores (times differ)
    assert resumed["sprt"]["elapsed_s"] >= cut["elapsed_s"]
    capsys.readouterr()
    # Another match's file is refused, naming what differs.
    assert main([*argv, "--seed", "2", "--resume", str(first)]) == 2
    assert "seed" in capsys.readouterr().err
    assert main(["easy", "random", "--sprt", "--quiet", "--resume", str(first)]) == 2
    assert "entrants" in capsys.readouterr().err
