"""The passenger (RULES-UNDERGROUND.md §3), the first worked example of §6, and the exact
search against a brute force over every set of lines."""

from __future__ import annotations

import itertools
import random
from collections import deque

import pytest

from games.errors import IllegalMoveError
from games.underground.map import Map
from games.underground.moves import Leg, Stop
from games.underground.passenger import best_ways, mask_colours
from games.underground.position import ROUTE
from games.underground.queries import query
from tests.rules.underground.helpers import BOARD, fresh, place_passenger, put

RED = ["shepherds_bush", "holland_park", "notting_hill_gate", "queensway", "lancaster_gate",
       "marble_arch", "bond_street", "oxford_circus"]  # fmt: skip
GREEN = ["leicester_square", "piccadilly_circus", "green_park", "bond_street", "baker_street",
         "great_portland_street"]  # fmt: skip
YELLOW = ["notting_hill_gate", "paddington", "edgware_road", "baker_street",
          "great_portland_street"]  # fmt: skip
FACE_UP = ["leicester_square", "oxford_circus", "turnham_green", "great_portland_street"]


def example():  # type: ignore[no-untyped-def]
    s = fresh()
    put(s, "red", RED)
    put(s, "green", GREEN)
    put(s, "yellow", YELLOW)
    place_passenger(s, "goldhawk_road", FACE_UP)
    return s


def rails_of(path: list[str], colour: str) -> list[dict]:
    return [{"colour": colour, "a": a, "b": b} for a, b in itertools.pairwise(path)]


def routes(frm: str, to: list[str]) -> list[dict]:
    board = {"rails": rails_of(RED, "red") + rails_of(GREEN, "green") + rails_of(YELLOW, "yellow")}
    return query({"op": "routes", "game": "underground", "board": board, "from": frm, "to": to})[
        "best"
    ]


def test_example_each_express_destination_alone() -> None:
    assert routes("goldhawk_road", ["leicester_square"]) == [
        {"to": "leicester_square", "walks": 1, "lines": ["red", "green"]}]  # fmt: skip
    assert routes("goldhawk_road", ["oxford_circus"]) == [
        {"to": "oxford_circus", "walks": 1, "lines": ["red"]}]  # fmt: skip
    assert routes("goldhawk_road", ["turnham_green"]) == [
        {"to": "turnham_green", "walks": 2, "lines": []}]  # fmt: skip


def test_example_oxford_circus_wins_then_two_tied_ways() -> None:
    assert routes("goldhawk_road", ["leicester_square", "oxford_circus", "turnham_green"]) == [
        {"to": "oxford_circus", "walks": 1, "lines": ["red"]}]  # fmt: skip
    assert routes("oxford_circus", ["great_portland_street"]) == [
        {"to": "great_portland_street", "walks": 0, "lines": ["red", "yellow"]},
        {"to": "great_portland_street", "walks": 0, "lines": ["red", "green"]},
    ]


def test_example_turn_default_route_and_points() -> None:
    s = example()
    before = s.scores[:]
    event = s.play(0, {"rails": []})
    assert event["route"] == [
        {"to": "oxford_circus", "lines": ["red"]},
        {"to": "great_portland_street", "lines": ["red", "yellow"]},
    ]
    assert [s.scores[i] - before[i] for i in range(2)] == [3, 0]
    assert event["passenger"] == "great_portland_street"
    assert len(event["face_up"]) == 4 and event["pile_count"] == 49
    assert s.discard == [BOARD.index["oxford_circus"], BOARD.index["great_portland_street"]]


def test_example_turn_mover_chooses_among_ties() -> None:
    s = example()
    before = s.scores[:]
    route = [{"to": "oxford_circus", "lines": ["red"]},
             {"to": "great_portland_street", "lines": ["green", "red"]}]  # fmt: skip
    event = s.play(0, {"rails": [], "route": route})
    assert event["route"][1] == {"to": "great_portland_street", "lines": ["red", "green"]}
    assert [s.scores[i] - before[i] for i in range(2)] == [2, 1]


def test_a_route_that_is_not_best_is_refused() -> None:
    s = example()
    with pytest.raises(IllegalMoveError, match="not a best way"):
        s.play(0, {"rails": [], "route": [{"to": "leicester_square", "lines": ["red", "green"]}]})
    assert s.turn_number == 0 and s.passenger == BOARD.index["goldhawk_road"]


def test_example_in_steps_asks_for_the_tie() -> None:
    s = example()
    s.apply(0, Stop())
    assert s.phase == ROUTE and s.to_move() == (0,)
    assert s.legal_moves(0) == [
        Leg("great_portland_street", ("red", "yellow")),
        Leg("great_portland_street", ("red", "green")),
    ]
    s.apply(0, Leg("great_portland_street", ("red", "green")))
    assert s.to_move() == (1,) and s.turns == 1 and s.turn_number == 2
    assert s.history[-1]["route"][1]["lines"] == ["red", "green"]


def test_leg_to_where_the_passenger_stands_costs_nothing() -> None:
    assert routes("oxford_circus", ["oxford_circus", "bank"]) == [
        {"to": "oxford_circus", "walks": 0, "lines": []}]  # fmt: skip


# ---- the exact search against a brute force --------------------------------------------------


def brute(board: Map, lines: list[tuple[int, int]], source: int, targets: int):  # type: ignore[no-untyped-def]
    """For every set S of colours: fewest walks riding only colours of S (0-1 BFS). The best
    ways are the targets at the overall fewest walks under the smallest such S."""
    colours = sorted({b for b, _ in lines})
    n = board.size
    found: dict[int, list[int]] = {}
    for k in range(1 << len(colours)):
        allowed = 0
        for i, b in enumerate(colours):
            if k >> i & 1:
                allowed |= b
        pieces = [st for b, st in lines if b & allowed]
        dist = [10**9] * n
        dist[source] = 0
        dq = deque([source])
        while dq:
            u = dq.popleft()
            for st in pieces:
                if st >> u & 1:
                    for v in range(n):
                        if st >> v & 1 and dist[v] > dist[u]:
                            dist[v] = dist[u]
                            dq.appendleft(v)
            for v, _ in board.neighbours[u]:
                if dist[v] > dist[u] + 1:
                    dist[v] = dist[u] + 1
                    dq.append(v)
        found[allowed] = dist
    targets_list = [t for t in range(n) if targets >> t & 1]
    full = max(found)
    walks = min(found[full][t] for t in targets_list)
    size = min(m.bit_count() for m, d in found.items() if any(d[t] == walks for t in targets_list))
    ways = [(t, m) for m, d in found.items() if m.bit_count() == size
            for t in targets_list if d[t] == walks]  # fmt: skip
    ways.sort(key=lambda w: (board.sid(w[0]), mask_colours(w[1])))
    return walks, ways


def random_network(rng: random.Random, size: int) -> int:
    st = rng.randrange(BOARD.size)
    on = 1 << st
    members = [st]
    for _ in range(size):
        u = rng.choice(members)
        v, _ = rng.choice(BOARD.neighbours[u])
        if not on >> v & 1:
            on |= 1 << v
            members.append(v)
    return on


@pytest.mark.parametrize("seed", range(60))
def test_best_ways_match_the_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    lines = []
    for c in rng.sample(range(11), rng.randint(1, 4)):
        lines.append((1 << c, random_network(rng, rng.randint(2, 14))))
        if rng.random() < 0.2:  # a colour in two pieces (a position query may give one)
            lines.append((1 << c, random_network(rng, rng.randint(1, 5))))
    source = rng.randrange(BOARD.size)
    targets = 0
    for t in rng.sample(range(BOARD.size), rng.randint(1, 4)):
        targets |= 1 << t
    assert best_ways(BOARD, lines, source, targets) == brute(BOARD, lines, source, targets)
