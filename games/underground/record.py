"""Records, `metro-record/1` with `"game": "underground"` (RULES-UNDERGROUND.md §5): export, and
replay that re-checks every turn through the checked door.

A seat that retired (`UndergroundState.retire`) has an entry of its own among the moves, where
it happened: `{"seat": 2, "action": "retire", "rails": [...], "route": [...], "steps": [...]}`
(`steps`: the steps of the turn under way when it left, played first on replay; `rails` and
`route`: what its own turn, cut short, had done)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.errors import GameError, RecordError
from games.record import check_header, header
from games.underground.map import CONNECTION_SPOTS, load_map
from games.underground.rules import SYMBOLS, UndergroundRules
from games.underground.state import UndergroundState


def export(
    state: UndergroundState, seats: Sequence[Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The record so far (complete turns). It holds the card order: only for finished games."""
    if seats is None:
        seats = [{"name": f"Player {i + 1}", "kind": "human"} for i in range(state.rules.players)]
    return {
        **header("underground"),
        "rules": state.rules.to_dict(),
        "seats": [dict(s) for s in seats],
        "connections": dict(state.connections),
        "destinations": [state.board.sid(i) for i in state.deal],
        "moves": [_entry(m) for m in state.history],
        "scores": state.scores[:],
    }


def _entry(m: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "seat": m["seat"],
        "rails": [dict(r) for r in m["rails"]],
        "route": [dict(leg) for leg in m["route"]],
    }
    if m.get("action") == "retire":
        out["action"] = "retire"
        out["steps"] = [dict(s) for s in m["steps"]]
    return out


def start_of(record: Mapping[str, Any]) -> UndergroundState:
    """The set-up a record describes, checked (§2, §5)."""
    record = check_header(record, "underground")
    try:
        rules = UndergroundRules.parse(record.get("rules"))
    except GameError as err:
        raise RecordError(str(err)) from None
    board = load_map(rules.map)
    conn = record.get("connections")
    if (
        not isinstance(conn, Mapping)
        or sorted(conn) != sorted(CONNECTION_SPOTS)
        or Counter(conn.values()) != Counter({s: 2 for s in SYMBOLS})
    ):
        raise RecordError(
            "'connections' must put the 8 tokens (2 each of a, b, c, d) on the 8 connection spots"
        )
    dest = record.get("destinations")
    want = sorted(board.sid(i) for i in board.destinations)
    if not isinstance(dest, list) or sorted(map(str, dest)) != want or len(dest) != len(want):
        raise RecordError("'destinations' must list all 55 destination stations once each")
    return UndergroundState.deal_new(rules, conn, [str(d) for d in dest])


def replay(record: Mapping[str, Any]) -> UndergroundState:
    """Play a record's turns, checking each; RecordError names the first bad one."""
    state = start_of(record)
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("the record's 'moves' must be a list")
    for i, move in enumerate(moves):
        try:
            if not isinstance(move, Mapping):
                raise RecordError("a move must be an object with seat, rails and route")
            seat = move.get("seat")
            if type(seat) is not int:
                raise RecordError(f"'seat' must be an integer, got {seat!r}")
            state.replay_entry(move)
        except GameError as err:
            raise RecordError(f"move {i}: {err}", move=i) from None
    return state


def steps(
    record: Mapping[str, Any],
) -> Iterator[tuple[int, UndergroundState, int, dict[str, Any]]]:
    """A record's decisions in order, for post-game analysis: (the index of its entry in the
    record's moves, the state before it, the seat, its step JSON): each rail of a turn, its
    stop, and each route choice the passenger's tied ways left to the seat. The state is live:
    it moves on once the next decision is asked for. Retirements (and a turn a retirement cut
    into) are played, not yielded."""
    replay(record)  # the full check first: below, steps are taken as they come
    state = start_of(record)
    for i, move in enumerate(record.get("moves", [])):
        seat = move["seat"]
        if move.get("action", "turn") != "turn" or state.cur_steps:
            state.replay_entry(move)
            continue
        turns = state.turns
        for rail in move.get("rails") or []:
            step = {"step": "rail", **rail}
            yield i, state, seat, step
            state.play(seat, step)
        if state.turns == turns and state.seat == seat and not state.legs_taken:
            yield i, state, seat, {"step": "stop"}
            state.play(seat, {"step": "stop"})
        route = move.get("route") or []
        while state.turns == turns and state.seat == seat:
            step = {"step": "route", **route[len(state.legs_taken)]}
            yield i, state, seat, step
            state.play(seat, step)
