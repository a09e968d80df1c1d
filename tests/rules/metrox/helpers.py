"""Shared helpers for the Metro X rules tests: states with chosen cards, and a reference model."""

from __future__ import annotations

from typing import Any

from games.metrox.cards import INFO
from games.metrox.state import MetroXState

A = ["s18", "s19", "s20", "s21", "s22", "s23", "s24", "s25", "s26", "s27"]  # lakeside line A
B = ["s02", "s09", "s15", "s22", "s31", "s39", "s46"]


def fresh(players: int = 1, map_id: str = "lakeside", seed: int = 0) -> MetroXState:
    return MetroXState.new({"players": players, "map": map_id}, seed)


def force(state: MetroXState, code: str) -> None:
    """Make `code` the revealed card (from the deck if it can be, else by editing it: unit
    tests of one card's effect do not care about the deck's composition)."""
    try:
        state.reveal_as(code)
    except ValueError:
        state.deck[state.pos] = code
        state.card = code
        state.cards[-1] = code


def turn(state: MetroXState, code: str, *moves: dict[str, Any]) -> dict[str, Any]:
    """One turn with card `code`, each seat's move in seat order, through the checked door."""
    force(state, code)
    event: dict[str, Any] = {}
    for seat, move in enumerate(moves):
        event = state.play(seat, move)
    return event


def fill(state: MetroXState, seat: int, *ids: str) -> None:
    for sid in ids:
        state.filled[seat] |= 1 << state.m.station_index[sid]


def filled(state: MetroXState, seat: int) -> set[str]:
    m = state.m
    return {m.station_ids[i] for i in range(m.station_count) if state.filled[seat] >> i & 1}


def reference_scores(state: MetroXState) -> list[int]:
    """§3-§5 recounted from the map data and the history alone, with sets and dicts: an
    independent model of the rules the fast state must agree with."""
    data = state.m.data
    lines = {ln["id"]: ln for ln in data["lines"]}
    degree: dict[str, int] = {}
    for ln in data["lines"]:
        for s in ln["stations"]:
            degree[s] = degree.get(s, 0) + 1
    n = state.n
    full: list[set[str]] = [set() for _ in range(n)]
    points = [0] * n
    done: list[set[str]] = [set() for _ in range(n)]
    taken: set[str] = set()
    for i, moves in enumerate(state.turns):
        kind, num, _ = INFO[state.cards[i]]
        for p, mv in enumerate(moves):
            js = mv.to_json()
            if "station" in js:
                full[p].add(js["station"])
            elif "line" in js:
                seq = lines[js["line"]]["stations"]
                empties = [s for s in seq if s not in full[p]]
                if not empties:
                    continue
                if kind == 0:
                    start = seq.index(empties[0])
                    for s in seq[start : start + num]:
                        if s in full[p]:
                            break
                        full[p].add(s)
                elif kind == 1:
                    full[p].update(empties[:num])
                else:
                    full[p].add(empties[0])
                    points[p] += 2 * degree[empties[0]]
        now: set[str] = set()
        for p in range(n):
            for lid, ln in lines.items():
                if lid not in done[p] and all(s in full[p] for s in ln["stations"]):
                    done[p].add(lid)
                    points[p] += ln["bonus"][0] if lid not in taken else ln["bonus"][1]
                    now.add(lid)
        taken |= now
    out = []
    for p in range(n):
        e = len(degree) - len(full[p])
        out.append(points[p] - (e if e <= 10 else 10 + 2 * (e - 10)))
    return out
