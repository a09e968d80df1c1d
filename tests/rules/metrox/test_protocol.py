"""The game protocol for Metro X: simultaneous turns, events, options, views, the Game entry."""

from __future__ import annotations

import random

import pytest

from games import registry
from games.errors import InvalidMoveError, NotYourTurnError, RulesError
from games.metrox import GAME
from games.metrox.moves import PASS, LineMove, StationMove
from tests.rules.metrox.helpers import force, fresh

RESOLVE_KEYS = {
    "seat",
    "action",
    "card",
    "choices",
    "completed",
    "next_card",
    "reshuffled",
    "scores",
    "to_move",
}


def test_registered_entry() -> None:
    assert registry.get("metrox") is GAME
    assert (GAME.kind, GAME.name, GAME.players, GAME.order) == ("metrox", "Metro X", (1, 50), 1)
    assert len(GAME.colours) == 50 and len(set(GAME.colours[:10])) == 10
    names = [o.name for o in GAME.options]
    assert names == ["players", "map", "daily"]
    assert GAME.options[1].default == "lakeside"
    assert GAME.options[1].choices == (
        ("lakeside", "Lakeside"), ("amsterdam", "Amsterdam"), ("berlin", "Berlin"),
        ("madrid", "Madrid"), ("paris", "Paris"), ("kessel", "Kesselstadt"),
    )  # fmt: skip
    assert GAME.web_dir is not None and GAME.web_dir.name == "web"


def test_normalise_rules() -> None:
    assert GAME.normalise_rules(None) == {"players": 2, "map": "lakeside"}
    assert GAME.normalise_rules({"players": 50, "map": "kessel", "daily": "2024-06-01"}) == {
        "players": 50,
        "map": "kessel",
        "daily": "2024-06-01",
    }
    assert GAME.normalise_rules({"daily": None}) == {"players": 2, "map": "lakeside"}
    bad = [
        ({"colour": 1}, "rules.colour"),
        ({"players": "2"}, "rules.players"),
        ({"players": True}, "rules.players"),
        ({"players": 0}, "rules.players"),
        ({"players": 51}, "rules.players"),
        ({"map": "nowhere"}, "rules.map"),
        ({"daily": ""}, "rules.daily"),
        ({"daily": "a b"}, "rules.daily"),
        ({"daily": "x" * 33}, "rules.daily"),
        ({"daily": 7}, "rules.daily"),
    ]
    for rules, field in bad:
        with pytest.raises(RulesError) as err:
            GAME.normalise_rules(rules)
        assert err.value.field == field, rules
    assert GAME.seat_count({"players": 7, "map": "lakeside"}) == 7


def test_daily_string_fixes_the_cards_for_everyone() -> None:
    a = GAME.new_state({"players": 1, "daily": "monday"}, 1)
    b = GAME.new_state({"players": 3, "daily": "monday"}, 999)
    c = GAME.new_state({"players": 1, "daily": "tuesday"}, 1)
    assert a.deck == b.deck  # type: ignore[attr-defined]
    assert [a.deck, a.card] != [c.deck, c.card]  # type: ignore[attr-defined]
    d, e = GAME.new_state({"players": 1}, 1), GAME.new_state({"players": 1}, 2)
    assert d.deck != e.deck  # type: ignore[attr-defined]


def test_parse_move() -> None:
    assert GAME.parse_move({"line": "C"}) == LineMove("C")
    assert GAME.parse_move({"station": "s17"}) == StationMove("s17")
    assert GAME.parse_move({"pass": True}) is PASS
    assert LineMove("C").to_json() == {"line": "C"} and PASS.to_json() == {"pass": True}
    for bad, field in [
        ([], "move"),
        ({}, "move"),
        ({"line": 3}, "line"),
        ({"pass": False}, "pass"),
        ({"line": "A", "station": "s1"}, "station"),
    ]:
        with pytest.raises(InvalidMoveError) as err:
            GAME.parse_move(bad)
        assert err.value.field == field


def test_hidden_choices_then_one_resolving_call() -> None:
    s = fresh(players=3)
    force(s, "2")
    assert s.to_move() == (0, 1, 2)
    assert s.play(1, {"line": "B"}) == {"seat": 1, "action": "choose"}
    assert s.to_move() == (0, 2) and s.turn_number == 0
    assert s.play(1, {"line": "C"}) == {"seat": 1, "action": "choose"}  # re-choose
    assert s.legal_moves(1) != []
    assert s.play(0, {"line": "A"}) == {"seat": 0, "action": "choose"}
    ev = s.play(2, {"line": "A"})
    assert set(ev) == RESOLVE_KEYS
    assert ev["action"] == "resolve" and ev["seat"] == 2 and ev["card"] == "2"
    assert ev["choices"] == [{"line": "A"}, {"line": "C"}, {"line": "A"}]
    assert ev["completed"] == [] and ev["next_card"] == s.card and ev["to_move"] == [0, 1, 2]
    assert ev["scores"] == s.scores and s.turn_number == 1
    assert s.turns[0] == (LineMove("A"), LineMove("C"), LineMove("A"))


def test_seat_errors() -> None:
    s = fresh(players=2)
    for seat in (2, -1, "0"):
        with pytest.raises(NotYourTurnError):
            s.play(seat, {"line": "A"})  # type: ignore[arg-type]
    assert s.legal_moves(5) == []


def test_solo_resolves_every_choice() -> None:
    s = fresh(players=1)
    assert s.to_move() == (0,)
    ev = s.play(0, s.legal_moves(0)[0].to_json())
    assert ev["action"] == "resolve" and s.turn_number == 1 and s.to_move() == (0,)


def test_fifty_players() -> None:
    s = GAME.new_state({"players": 50}, 3)
    rand = random.Random(0).random
    while not s.is_over:
        seats = s.to_move()
        assert seats == tuple(range(50))
        events = [s.play(p, s.random_move(p, rand).to_json()) for p in seats]
        assert all(e == {"seat": p, "action": "choose"} for p, e in enumerate(events[:-1]))
        assert events[-1]["action"] == "resolve"
    assert len(s.outcome().scores) == 50  # type: ignore[union-attr]


def test_view_shows_only_the_viewers_choice() -> None:
    s = fresh(players=3)
    force(s, "3")
    s.play(0, {"line": "A"})
    s.play(1, {"line": "B"})
    v0, v1, v2, spectator = s.view(0), s.view(1), s.view(2), s.view(None)
    assert v0["choice"] == {"line": "A"} and v1["choice"] == {"line": "B"}
    assert v2["choice"] is None and spectator["choice"] is None
    assert [x["chosen"] for x in v2["seats"]] == [True, True, False]
    assert v2["to_move"] == [2]
    assert set(v0) == {
        "game",
        "status",
        "rules",
        "seats",
        "to_move",
        "retired",
        "map",
        "turn_index",
        "card",
        "revealed",
        "deck_left",
        "windows_left",
        "sheets",
        "lines",
        "choice",
    }
    assert v0["deck_left"] == 13 and v0["revealed"] == [s.card] and v0["turn_index"] == 0


def test_view_when_over() -> None:
    s = fresh(players=2, seed=8)
    rand = random.Random(8).random
    while not s.is_over:
        for p in s.to_move():
            s.apply(p, s.random_move(p, rand))
    v = s.view(1)
    assert v["status"] == "over" and v["card"] is None and v["to_move"] == []
    assert v["winners"] == list(s.outcome().winners)  # type: ignore[union-attr]
    for row, score in zip(v["final"], s.scores, strict=True):
        assert row["total"] == score == row["bonuses"] + row["transfers"] - row["penalty"]
    assert GAME.evaluate(s) == [float(x) for x in s.scores]


def test_evaluate_mid_game_is_finite_per_seat() -> None:
    s = fresh(players=4, seed=1)
    rand = random.Random(1).random
    for _ in range(40):
        p = s.to_move()[0]
        s.apply(p, s.random_move(p, rand))
    values = GAME.evaluate(s)
    assert len(values) == 4 and all(-200 < v < 200 for v in values)


def test_world_sampler_keeps_the_view() -> None:
    s = fresh(players=3, seed=6)
    rand = random.Random(6).random
    for _ in range(13):
        p = s.to_move()[0]
        s.apply(p, s.random_move(p, rand))
    s.apply(2, s.random_move(2, rand))
    view = s.view(1)
    sampler = GAME.world_sampler(view, 1)
    rng = random.Random(1)
    decks = set()
    for _ in range(5):
        w = sampler.sample(rng)
        assert w.view(1) == view
        decks.add(tuple(w.deck))  # type: ignore[attr-defined]
        for p in w.to_move():
            w.apply(p, w.random_move(p, rng.random))
        assert w.turn_number == s.turn_number + 1
    assert len(decks) > 1
    with pytest.raises(ValueError):
        GAME.world_sampler({**view, "deck_left": 3}, 1)


def test_a_seat_that_has_chosen_decides_again_in_its_sampled_worlds() -> None:
    s = fresh(players=3, seed=8)
    rand = random.Random(8).random
    s.apply(1, s.random_move(1, rand))
    view = s.view(1)
    assert view["choice"] is not None and 1 not in view["to_move"]
    w = GAME.world_sampler(view, 1).sample(random.Random(2))
    assert 1 in w.to_move() and w.legal_moves(1) == s.legal_moves(1)
    seen = w.view(1)
    assert seen["choice"] is None
    assert {k: v for k, v in seen.items() if k not in ("choice", "seats", "to_move")} == {
        k: v for k, v in view.items() if k not in ("choice", "seats", "to_move")
    }
