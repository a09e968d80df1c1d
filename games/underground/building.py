"""Building rails (RULES-UNDERGROUND.md §3 "Build" and "Scores while building").

Functions over a position (`Network`: what they read and write of the position, which calls
them): what kind a rail would be (start, extend, branch), why a rail is refused, which rails are
legal now, and laying one with its scores.

Skipped-rail tokens, rendered exactly in atomic steps. §3 grants 4 - k tokens before the first
rail of a turn that lays k rails. A turn is laid rail by rail, so k is not known while it is
built; instead the turn keeps `t0` (tokens held when the turn began), `net` (tokens earned minus
tokens spent so far this turn) and `low` (the lowest `net` has been, 0 at the start; a branch
spends its 2 tokens before its own rail's terminus token comes). A turn of k rails is possible
under §3 exactly when `t0 + (4 - k) + low >= 0` (the balance never went below zero with the
grant paid up front). So a next rail (the (i+1)-th) is legal only when
`t0 + (3 - i) + low' >= 0`, `low'` the low after that rail's spending; stopping is always legal;
at the stop the seat holds `t0 + (4 - k) + net`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Protocol

from games.underground.map import Map
from games.underground.scoring import enclosed_mask, new_cycles

START, EXTEND, BRANCH = "start", "extend", "branch"
RULE = "RULES-UNDERGROUND.md §3"
RAILS_PER_TURN = 4
BRANCH_COST = 2
SYMBOL_NAMES = "abcd"


class Network(Protocol):
    """What building reads and writes of a position (the position module imports this one, so
    this one names the fields it needs instead of importing the position back)."""

    board: Map
    colour_names: tuple[str, ...]
    colours_of: tuple[tuple[int, ...], ...]
    sec_colours: list[int]
    deg: list[int]
    on_line: list[int]
    rail_count: list[int]
    enclosed: list[int]
    symbol_at: list[int]
    symbol_partner: list[int]
    symbols_scored: list[int]
    scores: list[int]
    laid: list[tuple[int, int]]
    t0: int
    net: int
    low: int
    xs: tuple[float, ...]
    ys: tuple[float, ...]

    def colour_neighbours(self, colour: int) -> Callable[[int], Iterator[int]]: ...


def is_end(state: Network, colour: int, station: int) -> bool:
    """An end: exactly one rail of the colour meets there, and it is not a terminus."""
    return (
        state.deg[colour * state.board.size + station] == 1
        and not state.board.terminus_mask >> station & 1
    )


def kind(state: Network, colour: int, a: int, b: int) -> str | None:
    """What a rail of `colour` on a-b would be, ignoring space and tokens; None: not joined."""
    if state.rail_count[colour] == 0:
        return START
    if is_end(state, colour, a) or is_end(state, colour, b):
        return EXTEND
    on = state.on_line[colour]
    if on >> a & 1 or on >> b & 1:
        return BRANCH
    return None


def budget_ok(state: Network, branch: bool) -> bool:
    """Whether one more rail (a branch or not) keeps §3's up-front token grant balanced."""
    i = len(state.laid)
    if i >= RAILS_PER_TURN:
        return False
    low = min(state.low, state.net - BRANCH_COST) if branch else state.low
    return state.t0 + (RAILS_PER_TURN - 1 - i) + low >= 0


def why_illegal(
    state: Network, seat: int, colour: int, a: int, b: int
) -> tuple[str, str, dict[str, str | int]] | None:
    """Why `seat` may not lay this rail now, or None if it may: (the English sentence, the
    refusal code, its params: colour and station names as the map shows them)."""
    board = state.board
    names = state.colour_names
    ends: dict[str, str | int] = {"a": board.stations[a].name, "b": board.stations[b].name}
    line: dict[str, str | int] = {"colour": names[colour]}
    if colour not in state.colours_of[seat]:
        return f"{names[colour]} is not your colour", "underground.not_your_colour", line
    sec = board.section(a, b)
    if sec is None:
        return (
            f"{board.sid(a)} and {board.sid(b)} are not neighbours",
            "underground.not_neighbours",
            ends,
        )
    col_mask = state.sec_colours[sec]
    if col_mask >> colour & 1:
        return (
            f"{names[colour]} already runs along {board.sid(a)}-{board.sid(b)}",
            "underground.already_runs",
            {**line, **ends},
        )
    if col_mask.bit_count() >= board.sections[sec].spaces:
        return (
            f"the section {board.sid(a)}-{board.sid(b)} has no free space",
            "underground.section_full",
            ends,
        )
    if len(state.laid) >= RAILS_PER_TURN:
        return "a turn lays at most 4 rails", "underground.four_rails", {}
    k = kind(state, colour, a, b)
    if k is None:
        return (
            f"a {names[colour]} rail must start from a station of the {names[colour]} line "
            f"(an end to extend, or any other station to branch)",
            "underground.start_on_line",
            line,
        )
    if not budget_ok(state, k == BRANCH):
        if k == BRANCH:
            return (
                "a branch costs 2 branch tokens, and you would not hold them (counting one "
                "token for each rail this turn will not lay)",
                "underground.branch_tokens",
                {},
            )
        return (
            "this rail would leave an earlier branch of this turn unpaid",
            "underground.branch_unpaid",
            {},
        )
    return None


def legal_rails(state: Network, seat: int) -> list[tuple[int, int]]:
    """Every legal rail for `seat` now, as (colour, section), each once, in a stable order."""
    if len(state.laid) >= RAILS_PER_TURN:
        return []
    board = state.board
    n = board.size
    plain = budget_ok(state, False)
    branch = budget_ok(state, True)
    if not plain and not branch:
        return []
    out: list[tuple[int, int]] = []
    sec_colours = state.sec_colours
    sections = board.sections
    for c in state.colours_of[seat]:
        bit = 1 << c
        if state.rail_count[c] == 0:
            if plain:
                for k, sec in enumerate(sections):
                    m = sec_colours[k]
                    if m.bit_count() < sec.spaces:
                        out.append((c, k))
            continue
        seen: set[int] = set()
        on = state.on_line[c]
        deg = state.deg
        term = board.terminus_mask
        ends: list[int] = []
        others: list[int] = []
        while on:
            low = on & -on
            s = low.bit_length() - 1
            on ^= low
            if deg[c * n + s] == 1 and not term >> s & 1:
                ends.append(s)
            else:
                others.append(s)
        for group, ok in ((ends, plain), (others, branch)):
            if not ok:
                continue
            for s in group:
                for _j, k in board.neighbours[s]:
                    if k in seen:
                        continue
                    m = sec_colours[k]
                    if m & bit or m.bit_count() >= sections[k].spaces:
                        continue
                    seen.add(k)
                    out.append((c, k))
    return out


def gains_of(state: Network, seat: int, colour: int, sec: int) -> list[dict[str, Any]]:
    """What laying a legal rail would score for `seat` (§3), as `lay` returns it, without
    changing anything: the legal moves' previews (Game.previews) and `lay` share it."""
    board = state.board
    n = board.size
    section = board.sections[sec]
    a, b = section.a, section.b
    k = kind(state, colour, a, b)
    name = state.colour_names[colour]
    gains: list[dict[str, Any]] = []
    if k == BRANCH:
        gains.append({"seat": seat, "colour": name, "reason": "branch", "points": 0,
                      "tokens": -BRANCH_COST})  # fmt: skip
    on = state.on_line[colour]
    cycles: list[list[int]] = []
    if k != START and on >> a & 1 and on >> b & 1:  # the rail closes a loop
        cycles = list(new_cycles(a, b, state.colour_neighbours(colour)))
    new = [s for s in (a, b) if not on >> s & 1]
    for s in new:
        on |= 1 << s
    for s in new:
        st = board.stations[s]
        if st.rail:
            gains.append({"seat": seat, "colour": name, "reason": "rail", "points": 1,
                          "station": st.id})  # fmt: skip
        if st.terminus:
            gains.append({"seat": seat, "colour": name, "reason": "terminus", "points": 2,
                          "tokens": 1, "station": st.id})  # fmt: skip
    scored = state.symbols_scored[colour]
    for s in new:
        sym = state.symbol_at[s]
        if sym < 0 or scored >> sym & 1:
            continue
        if on >> state.symbol_partner[s] & 1:
            scored |= 1 << sym
            gains.append({"seat": seat, "colour": name, "reason": "symbol", "points": 3,
                          "symbol": SYMBOL_NAMES[sym]})  # fmt: skip
    if cycles:
        xs, ys = state.xs, state.ys
        got = 0
        for cycle in cycles:
            cand = ((1 << n) - 1) & ~state.enclosed[colour] & ~got
            got |= enclosed_mask(cycle, xs, ys, cand)
        for i in range(n):
            if got >> i & 1:
                gains.append({"seat": seat, "colour": name, "reason": "enclosed",
                              "points": 1, "station": board.stations[i].id})  # fmt: skip
    return gains


def lay(state: Network, seat: int, colour: int, sec: int) -> list[dict[str, Any]]:
    """Lay a legal rail and score it for `seat`; returns the gains (§3) as event entries."""
    gains = gains_of(state, seat, colour, sec)
    board = state.board
    n = board.size
    section = board.sections[sec]
    a, b = section.a, section.b
    for g in gains:  # in order: a branch spends before its own rail's terminus token comes
        reason = g["reason"]
        if reason == "branch":
            state.net -= BRANCH_COST
            state.low = min(state.low, state.net)
        elif reason == "terminus":
            state.net += 1
        elif reason == "symbol":
            state.symbols_scored[colour] |= 1 << SYMBOL_NAMES.index(g["symbol"])
        elif reason == "enclosed":
            state.enclosed[colour] |= 1 << board.index[g["station"]]
        state.scores[seat] += g["points"]
    state.sec_colours[sec] |= 1 << colour
    state.deg[colour * n + a] += 1
    state.deg[colour * n + b] += 1
    state.rail_count[colour] += 1
    state.laid.append((colour, sec))
    state.on_line[colour] |= 1 << a | 1 << b
    return gains
