"""Whole games: the end (§4), records and replay (§5), views, sampled worlds, the registry."""

from __future__ import annotations

import json
import random

import pytest

from games import get
from games.errors import InvalidMoveError, RecordError
from games.underground import GAME
from games.underground.queries import query
from games.underground.rules import UndergroundRules
from games.underground.state import UndergroundState


def random_game(players: int, seed: int) -> UndergroundState:
    s = UndergroundState.new(UndergroundRules(players), seed)
    rng = random.Random(seed)
    while not s.is_over:
        seat = s.to_move()[0]
        s.apply(seat, s.random_move(seat, rng.random))
    return s


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3), (5, 4)])
def test_random_games_end_with_equal_turns(players: int, seed: int) -> None:
    s = random_game(players, seed)
    assert s.to_move() == () and s.passenger == -1 and s.pile_count == 0
    assert s.turns % players == 0
    assert [m["seat"] for m in s.history] == [i % players for i in range(s.turns)]
    out = s.outcome()
    assert out is not None and list(out.scores) == s.scores
    assert s.view(None)["winners"] == list(out.winners)


def test_record_replays_to_the_same_scores() -> None:
    s = random_game(3, 11)
    record = json.loads(json.dumps(s.record()))
    assert record["game"] == "underground" and record["rules"] == {"players": 3, "map": "london"}
    assert len(record["destinations"]) == 55 and len(record["connections"]) == 8
    assert query({"op": "replay", "record": record}) == {"scores": s.scores}
    assert GAME.replay(record).scores == s.scores


def test_a_bad_record_names_the_move() -> None:
    record = random_game(2, 5).record()
    record["moves"][3]["rails"] = [{"colour": "red", "a": "euston", "b": "warren_street"}]
    answer = query({"op": "replay", "record": record})
    assert answer["move"] == 3 and "not your colour" in answer["error"]
    with pytest.raises(RecordError):
        GAME.replay({"format": "metro-record/1", "rules": {"players": 2}, "moves": []})


def test_state_round_trips_mid_turn() -> None:
    s = UndergroundState.new(UndergroundRules(2), 9)
    rng = random.Random(9)
    for _ in range(37):
        seat = s.to_move()[0]
        s.apply(seat, s.random_move(seat, rng.random))
    data = json.loads(json.dumps(s.to_dict()))
    t = GAME.state_from_dict(data)
    assert t.to_dict() == s.to_dict() and t.view(0) == s.view(0)
    assert t.legal_moves(t.to_move()[0]) == s.legal_moves(s.to_move()[0])


def test_both_doors_agree() -> None:
    s = UndergroundState.new(UndergroundRules(2), 21)
    rng = random.Random(21)
    for _ in range(6):
        seat = s.to_move()[0]
        t = s.copy()
        while t.turns == s.turns:
            t.apply(seat, t.random_move(seat, rng.random))
        move = t.history[-1]
        event = s.play(seat, {"rails": move["rails"], "route": move["route"]})
        assert event["action"] == "turn" and event["route"] == move["route"]
        assert s.to_dict() == t.to_dict() and s.turn_number == t.turn_number


def test_play_steps_and_refusals() -> None:
    s = UndergroundState.new(UndergroundRules(2), 1)
    ev = s.play(0, {"step": "rail", "colour": "red", "a": "euston", "b": "warren_street"})
    assert ev["action"] == "rail" and ev["turn_complete"] is False and s.turn_number == 1
    with pytest.raises(Exception, match="under way"):
        s.play(0, {"rails": []})
    with pytest.raises(InvalidMoveError):
        s.play(0, {"step": "jump"})
    with pytest.raises(InvalidMoveError):
        s.play(0, {"step": "rail", "colour": "red", "a": "atlantis", "b": "euston"})
    ev = s.play(0, {"step": "stop"})
    assert ev["action"] == "stop" and ev["turn_complete"] is True and s.to_move() == (1,)
    assert s.tokens[0] == 3


def test_view_hides_only_the_pile_order() -> None:
    a = UndergroundState.new(UndergroundRules(2), 1)
    b = a.copy()
    b.deal = b.deal[: b.drawn] + list(reversed(b.deal[b.drawn :]))
    assert a.view(0) == b.view(0) == a.view(None)
    assert a.view(None)["turn"] == {"seat": 0, "step": "build", "rails": [], "legs": [],
                                    "ways": []}  # fmt: skip


def test_world_sampler_and_chance() -> None:
    s = UndergroundState.new(UndergroundRules(3), 4)
    rng = random.Random(4)
    for _ in range(50):
        seat = s.to_move()[0]
        s.apply(seat, s.random_move(seat, rng.random))
    sampler = GAME.world_sampler(s.view(1), 1)
    world = sampler.sample(random.Random(1))
    assert world.view(1) == s.view(1)
    assert sorted(world.deal[world.drawn :]) == sorted(s.deal[s.drawn :])
    outcomes = s.chance_outcomes(1)
    assert len(outcomes) == s.pile_count and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    target = outcomes[-1][0]
    world.force_chance(target)
    assert world.board.sid(world.deal[world.drawn]) == target


def test_registered_game() -> None:
    assert get("underground") is GAME
    meta = GAME.meta()
    assert meta["players"] == [2, 5] and len(meta["colours"]) == 5
    assert GAME.normalise_rules({}) == {"players": 2, "map": "london"}
    assert GAME.web_dir is not None and GAME.web_dir.is_dir()
    s = GAME.new_state({"players": 4}, 3)
    assert len(GAME.evaluate(s)) == 4
    assert query({"op": "map", "game": "underground"})["start"] == "euston"
