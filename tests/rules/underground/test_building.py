"""Set-up and building (RULES-UNDERGROUND.md §2, §3), with the worked examples of §6."""

from __future__ import annotations

import pytest

from games.errors import IllegalMoveError, NotYourTurnError
from games.underground.moves import Rail, Stop
from games.underground.rules import COLOURS, UndergroundRules
from games.underground.scoring import enclosed_mask
from games.underground.state import UndergroundState
from tests.rules.underground.helpers import BOARD, fresh, put


def test_set_up() -> None:
    s = UndergroundState.new(UndergroundRules(5), 7)
    v = s.view(None)
    assert [x["score"] for x in v["seats"]] == [0, 1, 2, 3, 4]
    assert [x["colours"] for x in v["seats"]] == [
        ["red", "yellow"], ["blue", "purple"], ["black", "pink"], ["orange", "green"],
        ["brown", "white"],
    ]  # fmt: skip
    assert [x["branch_tokens"] for x in v["seats"][1:]] == [0, 0, 0, 0]
    assert v["seats"][0]["branch_tokens"] == 4  # seat 0, building: 4 if it stopped now
    assert len(v["face_up"]) == 4 and v["pile_count"] == 51
    assert v["passenger"] == "euston"
    assert sorted(v["connections"].values()) == ["a", "a", "b", "b", "c", "c", "d", "d"]
    assert v["to_move"] == [0]
    three = UndergroundState.new(UndergroundRules(3), 7).view(None)["seats"]
    assert [x["colours"] for x in three] == [
        ["red", "yellow", "blue"], ["purple", "black", "pink"], ["orange", "green", "brown"],
    ]  # fmt: skip
    two = UndergroundState.new(UndergroundRules(2), 7).view(None)["seats"]
    assert two[1]["colours"] == ["black", "pink", "orange", "green"]


def test_set_up_is_deterministic_by_seed() -> None:
    a = UndergroundState.new(UndergroundRules(2), 3).to_dict()
    b = UndergroundState.new(UndergroundRules(2), 3).to_dict()
    c = UndergroundState.new(UndergroundRules(2), 4).to_dict()
    assert a == b and a != c


def rail(colour: str, a: str, b: str) -> dict:
    return {"colour": colour, "a": a, "b": b}


def test_start_anywhere_then_extend_only_from_an_end() -> None:
    s = fresh()
    with pytest.raises(IllegalMoveError, match="start from a station of the red line"):
        s.play(0, {"rails": [rail("red", "euston", "warren_street"),
                             rail("red", "bank", "st_pauls")]})  # fmt: skip
    assert s.turn_number == 0 and not s.view(None)["rails"]
    s.play(0, {"rails": [rail("red", "euston", "warren_street"),
                         rail("red", "warren_street", "oxford_circus")]})  # fmt: skip
    assert s.scores[0] == 1  # euston is a national rail station
    assert s.tokens[0] == 2  # two rails not laid


def test_not_your_colour_or_turn() -> None:
    s = fresh()
    with pytest.raises(IllegalMoveError, match="black is not your colour"):
        s.play(0, {"rails": [rail("black", "euston", "warren_street")]})
    with pytest.raises(NotYourTurnError):
        s.play(1, {"rails": []})


def test_capacity_and_one_colour_per_section() -> None:
    s = fresh()
    # caledonian_road-holloway_road has one space
    sec = BOARD.section(BOARD.index["caledonian_road"], BOARD.index["holloway_road"])
    assert sec is not None and BOARD.sections[sec].spaces == 1
    put(s, "black", ["caledonian_road", "holloway_road"])
    with pytest.raises(IllegalMoveError, match="no free space"):
        s.play(0, {"rails": [rail("red", "caledonian_road", "holloway_road")]})
    put(s, "red", ["euston", "warren_street"])
    with pytest.raises(IllegalMoveError, match="red already runs along"):
        s.play(0, {"rails": [rail("red", "warren_street", "euston")]})


def test_a_terminus_stops_a_line_and_scores_2_and_a_token() -> None:
    s = fresh()
    gains = put(s, "red", ["north_acton", "west_acton", "ealing_broadway"])
    assert [(g["reason"], g["points"]) for g in gains] == [("terminus", 2)]
    # the line's only end is north_acton: ealing_broadway is not an end
    moves = s.legal_moves(0)
    from_ealing = [m for m in moves if isinstance(m, Rail) and m.colour == "red"
                   and "ealing_broadway" in (m.a, m.b)]  # fmt: skip
    # branching from the terminus costs 2 tokens: possible only with the skip tokens
    assert from_ealing == [Rail("red", "ealing_broadway", "ealing_common")]
    assert Stop() in moves


def test_branch_needs_two_tokens_counting_the_rails_not_laid() -> None:
    s = fresh()
    put(s, "red", ["holland_park", "notting_hill_gate", "queensway"])
    branch = rail("red", "notting_hill_gate", "high_street_kensington")
    # 3 rails -> 1 token first: not enough for the branch laid first
    with pytest.raises(IllegalMoveError, match="rail 2: this rail would leave an earlier branch"):
        s.play(0, {"rails": [branch, rail("red", "queensway", "lancaster_gate"),
                             rail("red", "lancaster_gate", "marble_arch")]})  # fmt: skip
    # 4 rails -> no token: a branch as the 4th rail is refused itself
    with pytest.raises(IllegalMoveError, match="rail 3: a branch costs 2"):
        s.play(0, {"rails": [rail("red", "queensway", "lancaster_gate"),
                             rail("red", "lancaster_gate", "marble_arch"),
                             rail("red", "marble_arch", "bond_street"), branch]})  # fmt: skip
    assert s.turn_number == 0
    # 2 rails -> 2 tokens first: the branch is paid
    s.play(0, {"rails": [branch, rail("red", "queensway", "lancaster_gate")]})
    assert s.tokens[0] == 0


def test_atomic_steps_render_the_up_front_grant_exactly() -> None:
    s = fresh()
    put(s, "red", ["holland_park", "notting_hill_gate", "queensway"])
    s.apply(0, Rail("red", "high_street_kensington", "notting_hill_gate"))  # branch first
    assert s.held_tokens(0) == 1  # 0 + 3 (if it stopped now) - 2
    s.apply(0, Rail("red", "lancaster_gate", "queensway"))
    assert s.held_tokens(0) == 0
    # a third rail would leave the branch unpaid: no rail is legal, only the stop
    assert s.legal_moves(0) == [Stop()]
    s.apply(0, Stop())
    assert s.tokens[0] == 0 and s.to_move() == (1,)


def test_example_red_reaches_ealing_broadway_then_branches_to_paddington() -> None:
    s = fresh()
    put(s, "red", ["west_acton", "north_acton", "east_acton", "white_city", "shepherds_bush",
                   "holland_park", "notting_hill_gate", "queensway", "lancaster_gate",
                   "marble_arch", "bond_street", "baker_street"])  # fmt: skip
    before = s.scores[0]
    event = s.play(0, {"rails": [rail("red", "west_acton", "ealing_broadway"),
                                 rail("red", "notting_hill_gate", "paddington"),
                                 rail("red", "baker_street", "marylebone")]})  # fmt: skip
    building = [(g["reason"], g["points"], g.get("tokens"), g.get("station"))
                for g in event["gained"] if g["reason"] != "ride"]  # fmt: skip
    assert building == [
        ("terminus", 2, 1, "ealing_broadway"),
        ("branch", 0, -2, None),
        ("rail", 1, None, "paddington"),
        ("rail", 1, None, "marylebone"),
        ("skip", 0, 1, None),
    ]
    rides = sum(g["points"] for g in event["gained"] if g["reason"] == "ride" and g["seat"] == 0)
    assert s.scores[0] - before == 4 + rides
    assert s.tokens[0] == 0


def test_example_green_reaches_victoria_then_closes_a_loop_at_charing_cross() -> None:
    """§6, third example, as the seed tells it: green extends down to Victoria (+3, a second
    station of its symbol), then on to Charing Cross, closing a loop around 4 stations (+4);
    Holborn, inside it too, was enclosed before and scores nothing again."""
    s = fresh()
    # earlier turns: a green loop around Holborn through Charing Cross (symbol a, as Victoria),
    # and the line on from Warren Street down Oxford Circus to Green Park, its one end
    loop = put(s, "green", ["kings_cross_st_pancras", "euston", "warren_street", "goodge_street",
                            "tottenham_court_road", "leicester_square", "charing_cross", "temple",
                            "blackfriars", "farringdon", "kings_cross_st_pancras"])  # fmt: skip
    before = sorted(g["station"] for g in loop if g["reason"] == "enclosed")
    assert before == [
        "chancery_lane", "covent_garden", "euston_square", "holborn", "russell_square",
    ]  # fmt: skip
    put(s, "green", ["warren_street", "oxford_circus", "green_park"])
    s.play(0, {"rails": []})
    green = s.owner[COLOURS.index("green")]
    assert s.to_move() == (green,)
    score = s.scores[green]
    event = s.play(green, {"rails": [rail("green", "green_park", "victoria"),
                                     rail("green", "victoria", "st_jamess_park"),
                                     rail("green", "st_jamess_park", "westminster"),
                                     rail("green", "westminster", "charing_cross")]})  # fmt: skip
    building = [(g["reason"], g["points"], g.get("station") or g.get("symbol"))
                for g in event["gained"] if g["reason"] != "ride"]  # fmt: skip
    assert building == [
        ("rail", 1, "victoria"),  # Victoria is a national rail station
        ("symbol", 3, "a"),  # Victoria joins Charing Cross, the other station of symbol a
        ("enclosed", 1, "goodge_street"),
        ("enclosed", 1, "leicester_square"),
        ("enclosed", 1, "piccadilly_circus"),
        ("enclosed", 1, "tottenham_court_road"),
    ]
    rides = sum(
        g["points"] for g in event["gained"] if g["reason"] == "ride" and g["seat"] == green
    )
    assert s.scores[green] - score == 1 + 3 + 4 + rides
    # Holborn lies inside the loop closed at Charing Cross, but was enclosed before
    i = BOARD.index
    outer = [i[x] for x in ("charing_cross", "westminster", "st_jamess_park", "victoria",
                            "green_park", "oxford_circus", "warren_street", "euston",
                            "kings_cross_st_pancras", "farringdon", "blackfriars",
                            "temple")]  # fmt: skip
    inner = enclosed_mask(outer, s.xs, s.ys, (1 << BOARD.size) - 1)
    assert inner >> i["holborn"] & 1
    assert sorted(BOARD.sid(k) for k in range(BOARD.size) if inner >> k & 1) == sorted(
        [*before, "goodge_street", "leicester_square", "piccadilly_circus", "tottenham_court_road"]
    )
    # a symbol pair scores once per colour
    assert s.view(None)["scored"]["green"]["symbols"] == ["a"]
