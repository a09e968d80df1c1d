"""Records (RULES-METROX.md §7) and the `metro rules` queries (§8)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from games.errors import GameError, RecordError
from games.metrox import GAME, maps
from games.metrox.state import MetroXState


def finished(players: int = 2, seed: int = 11, map_id: str = "lakeside") -> MetroXState:
    s = MetroXState.new({"players": players, "map": map_id}, seed)
    rand = random.Random(seed).random
    while not s.is_over:
        for p in s.to_move():
            s.apply(p, s.random_move(p, rand))
    return s


def test_record_shape_and_replay() -> None:
    s = finished()
    rec = s.record()
    assert set(rec) == {"format", "game", "rules", "seats", "cards", "turns", "scores"}
    assert rec["format"] == "metro-record/1" and rec["game"] == "metrox"
    assert rec["rules"] == {"players": 2, "map": "lakeside"}
    assert len(rec["cards"]) == len(rec["turns"]) and all(len(t) == 2 for t in rec["turns"])
    again = GAME.replay(json.loads(json.dumps(rec)))
    assert again.record() == rec and again.scores == s.scores
    assert GAME.query({"op": "replay", "game": "metrox", "record": rec}) == {"scores": s.scores}


def test_unfinished_record_names_the_open_card() -> None:
    s = MetroXState.new({"players": 1}, 3)
    s.apply(0, s.legal_moves(0)[0])
    rec = s.record()
    assert len(rec["cards"]) == 2 and len(rec["turns"]) == 1
    assert GAME.replay(rec).to_dict()["card"] == s.card


def _bad(rec: dict[str, Any]) -> dict[str, Any]:
    return GAME.query({"op": "replay", "record": rec})


def test_replay_names_the_first_bad_move() -> None:
    rec = finished().record()
    line_turn = next(i for i, c in enumerate(rec["cards"]) if not c.startswith("f"))
    rec["turns"][line_turn][1] = {"station": "s01"}
    answer = _bad(rec)
    assert answer["turn"] == line_turn and answer["seat"] == 1 and "line" in answer["error"]
    rec = finished().record()
    rec["turns"][0][0] = {"line": "nowhere"}
    assert _bad(rec)["turn"] == 0 and _bad(rec)["seat"] == 0


def test_replay_refuses_inconsistent_cards() -> None:
    rec = finished().record()
    first_plain = [c for c in rec["cards"][:3]]
    bad = dict(rec, cards=["1", "1", *rec["cards"][2:]])
    answer = _bad(bad)
    assert answer["turn"] == 1 and answer["seat"] is None and "no card '1'" in answer["error"]
    assert first_plain
    assert _bad(dict(rec, cards=["9", *rec["cards"][1:]]))["turn"] == 0
    # one turn too many, or one card too many
    assert "ended" in _bad(dict(rec, turns=[*rec["turns"], rec["turns"][-1]]))["error"]
    assert _bad(dict(rec, cards=[*rec["cards"], "1"]))["turn"] == len(rec["turns"])
    assert "scores" in _bad(dict(rec, scores=[0, 0]))["error"]
    assert _bad({"format": "other"})["turn"] is None
    with pytest.raises(RecordError):
        GAME.replay(dict(rec, rules={"players": 0}))


def test_cards_after_a_shuffle_may_repeat() -> None:
    # 5* ends the first deck, so "1" may come again at once.
    s = MetroXState.new({"players": 1}, 0)
    s.reveal_as("1")
    s.apply(0, s.legal_moves(0)[0])
    s.reveal_as("5*")
    s.apply(0, s.legal_moves(0)[0])
    s.reveal_as("1")
    s.apply(0, s.legal_moves(0)[0])
    rec = s.record()
    assert rec["cards"][:3] == ["1", "5*", "1"]
    assert GAME.replay(rec).scores == s.scores


def test_maps_and_map_queries() -> None:
    got_maps = GAME.query({"op": "maps", "game": "metrox"})["maps"]
    assert [e["id"] for e in got_maps] == [
        "lakeside", "amsterdam", "berlin", "madrid", "paris", "kessel"
    ]  # fmt: skip
    assert got_maps[0] == {
        "id": "lakeside", "name": "Lakeside", "beginner": True,
        "lines": 9, "stations": 47, "windows": 26,
    }  # fmt: skip
    assert got_maps[4] == {
        "id": "paris", "name": "Paris", "beginner": False,
        "lines": 12, "stations": 90, "windows": 30,
    }  # fmt: skip
    assert {e["id"]: e["beginner"] for e in got_maps if e["id"] not in ("lakeside", "kessel")} == {
        "amsterdam": True, "berlin": True, "madrid": False, "paris": False,
    }  # fmt: skip
    got = GAME.query({"op": "map", "game": "metrox", "map": "kessel"})
    assert got == json.loads((maps.MAP_DIR / "kessel.json").read_text())
    with pytest.raises(GameError):
        GAME.query({"op": "map", "map": "atlantis"})
    with pytest.raises(GameError):
        GAME.query({"op": "legal"})
