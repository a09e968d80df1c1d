"""Records `metro-record/1` (RULES.md §9): replay checks every move and names the first bad one."""

from __future__ import annotations

import copy
import dataclasses
import random

import pytest

import games
from games.errors import RecordError
from games.metro.rules import MetroRules
from games.metro.state import MetroState

METRO = games.get("metro")


def finished(rules: MetroRules, seed: int = 3) -> MetroState:
    state = METRO.new_state(rules.to_dict(), seed)
    rng = random.Random(seed)
    while not state.is_over:
        state.apply_code(rng.choice(state.legal_codes()))
    return state


def test_record_shape() -> None:
    state = finished(MetroRules())
    record = state.record()
    assert set(record) == {"format", "rules", "seats", "deck", "moves", "scores"}
    assert record["rules"] == {"players": 2, "rotation": False, "hand_size": 1, "online": False}
    assert len(record["deck"]) == 60
    # deck[0] is dealt to seat 0 and deck[1] to seat 1 with hand size 1
    first = record["moves"][0]
    assert first["seat"] == 0 and first["action"] in ("place", "draw_place")
    if first["action"] == "place":
        assert first["placement"][:4] == record["deck"][0]
    else:
        assert first["placement"][:4] == record["deck"][2]
    assert {m["action"] for m in record["moves"]} <= {"place", "draw_place"}


def test_online_records_carry_the_redeck_and_replay() -> None:
    for seed in range(40):
        state = finished(MetroRules(players=3, online=True), seed)
        record = state.record()
        if any("redeck" in m for m in record["moves"]):
            assert METRO.replay(record).scores == state.scores
            broken = copy.deepcopy(record)
            move = next(m for m in broken["moves"] if "redeck" in m)
            del move["redeck"]
            with pytest.raises(RecordError, match="redeck"):
                METRO.replay(broken)
            return
    pytest.fail("no online game in 40 seeds retired a player before the end")


def test_replay_names_the_first_bad_move() -> None:
    record = finished(MetroRules()).record()
    bad = copy.deepcopy(record)
    bad["moves"][5]["seat"] = 1 - bad["moves"][5]["seat"]
    with pytest.raises(RecordError) as err:
        METRO.replay(bad)
    assert err.value.move == 5 and "turn" in str(err.value)

    bad = copy.deepcopy(record)
    # move 7's own tile, on the square move 3 already filled
    bad["moves"][7]["placement"] = (
        bad["moves"][7]["placement"][:4] + bad["moves"][3]["placement"][4:]
    )
    with pytest.raises(RecordError) as err:
        METRO.replay(bad)
    assert err.value.move == 7 and "already holds a tile" in str(err.value)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(format="chess-pgn"), "format"),
        (lambda r: r.update(deck=r["deck"][:59]), "60 tiles"),
        (lambda r: r.update(rules={"players": 9}), "players"),
        (lambda r: r.update(moves="e4"), "moves"),
        (lambda r: r["moves"][0].update(action="fly"), "unknown action"),
    ],
)
def test_malformed_records_are_named(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    record = finished(MetroRules()).record()
    mutate(record)
    with pytest.raises(RecordError, match=message):
        METRO.replay(record)


@pytest.mark.parametrize(
    "rules",
    [MetroRules(), MetroRules(players=6, rotation=True, hand_size=3, online=True)],
)
def test_rules_to_dict_names_every_option_and_parses_back(rules: MetroRules) -> None:
    """to_dict is written out by hand (it runs on every committed move): an option added to
    MetroRules must be added there too, or stored games would lose it."""
    data = rules.to_dict()
    assert set(data) == {f.name for f in dataclasses.fields(MetroRules)}
    assert MetroRules.parse(data) == rules
