"""The AI's evaluation of Metro X (games/metrox/evaluate.py): transfers valued before they are
written, by the stations they could still reach, never on lines whose stations are all filled."""

from __future__ import annotations

import random

from games.metrox import GAME, maps
from games.metrox.evaluate import TRANSFER_WEIGHT, sheet_value
from services.ai.players import InfoSet, level_for
from tests.rules.metrox.helpers import fill, force, fresh

LAKESIDE = maps.get("lakeside")


def _mask(*ids: str) -> int:
    return sum(1 << LAKESIDE.station_index[s] for s in ids)


def _done(f: int) -> int:
    return sum(1 << li for li, mask in enumerate(LAKESIDE.line_mask) if f & mask == mask)


def _points(f: int) -> int:
    return sum(LAKESIDE.first_bonus[li] for li in range(LAKESIDE.line_count) if _done(f) >> li & 1)


def _value(empty: tuple[str, ...], windows: list[str] | None = None, left: int = 26) -> float:
    full = (1 << LAKESIDE.station_count) - 1
    f = full & ~_mask(*empty)
    w = windows if windows is not None else [""] * LAKESIDE.line_count
    return sheet_value(LAKESIDE, f, w, _points(f), _done(f), 0, left)


def test_a_high_degree_station_first_in_line_is_worth_a_future_transfer() -> None:
    # Line A runs s18..s27; s22 lies on three lines, s21 on one. Two empty stations on A either
    # way, both surely filled by A's windows: the only difference is what a transfer could write.
    keep_s22 = _value(("s22", "s26"))
    keep_s21 = _value(("s21", "s26"))
    assert LAKESIDE.degree[LAKESIDE.station_index["s22"]] == 3
    assert LAKESIDE.degree[LAKESIDE.station_index["s21"]] == 1
    assert abs((keep_s22 - keep_s21) - 2 * TRANSFER_WEIGHT * (3 - 1)) < 1e-9


def test_no_transfer_credit_from_lines_whose_stations_are_all_filled() -> None:
    # Every station filled, windows left on every line: nothing a transfer could still write.
    assert _value(()) == float(_points((1 << LAKESIDE.station_count) - 1))


def test_stations_no_line_can_reach_count_as_empty() -> None:
    # s26 is on line A only; with A's four windows used it stays empty (a free card aside).
    a = LAKESIDE.line_index["A"]
    windows = [""] * LAKESIDE.line_count
    windows[a] = "1111"
    reachable = _value(("s26",))
    stranded = _value(("s26",), windows, left=22)
    assert stranded < reachable - 5  # line A's bonus lost, and (most of) a penalty point


def test_exact_once_over_and_one_value_per_seat() -> None:
    for players in (1, 2, 3):
        s = fresh(players=players, seed=players)
        rand = random.Random(players).random
        while not s.is_over:
            values = GAME.evaluate(s)
            assert len(values) == players and all(-150 < v < 200 for v in values)
            for p in s.to_move():
                s.apply(p, s.random_move(p, rand))
        assert GAME.evaluate(s) == [float(x) for x in s.scores]


def test_greedy_keeps_a_three_line_station_for_a_transfer() -> None:
    # Empty: s22 (first empty station of A, on A, B and C) and s10, s11 (line D only). A "2"
    # on A fills s22, on D s10-s11, on any other line nothing (its stations are all filled):
    # the evaluation keeps s22 for a transfer's 6 points.
    s = fresh(seed=4)
    empty = _mask("s22", "s10", "s11")
    fill(s, 0, *(sid for sid in LAKESIDE.station_ids if not empty & _mask(sid)))
    force(s, "2")
    ranked = level_for("medium").make().search(InfoSet.from_state(s, 0), seed=1).moves
    lines = [r.move.line for r in ranked]
    assert lines[0] != "A"
    assert lines.index("D") < lines.index("A")


def test_greedy_plays_a_transfer_where_it_writes_most() -> None:
    # A transfer card; only s22..s27 are empty. On A, B or C the transfer writes 6 in s22 (on
    # three lines); on any other line (its stations all filled) it writes nothing.
    s = fresh(seed=5)
    empty = _mask("s22", "s23", "s24", "s25", "s26", "s27")
    fill(s, 0, *(sid for sid in LAKESIDE.station_ids if not empty & _mask(sid)))
    force(s, "t")
    ranked = level_for("medium").make().search(InfoSet.from_state(s, 0), seed=2).moves
    lines = [r.move.line for r in ranked]
    assert lines[0] in {"A", "B", "C"}
    assert lines.index("E") > min(lines.index(x) for x in "ABC")
