"""Views built incrementally or once per version equal the full build, and view deltas rebuild
the newer view exactly: random games of every game kind in the registry."""

from __future__ import annotations

import importlib
import random
from dataclasses import replace
from typing import Any

import orjson
import pytest

import games
from games.base import GameState
from services.engine.core.table import Table, view_of
from services.gateway.delta import apply, diff


def exact(doc: Any) -> bytes:
    """A view's canonical JSON: equal bytes iff equal JSON (true is never 1, 1 never 1.0)."""
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def full_view(kind: str, state: GameState, seat: int | None) -> Any:
    """The view built from scratch: the game's view module forgets what it remembers."""
    module = importlib.import_module(f"games.{kind}.view")
    clear = getattr(module, "clear_caches", None)
    if clear is not None:
        clear()
    return orjson.loads(orjson.dumps(state.view(seat), option=orjson.OPT_NON_STR_KEYS))


def random_game(kind: str, seed: int, players: int) -> list[GameState]:
    """Every state of one game of random legal moves, first to last (copies)."""
    game = games.get(kind)
    rules = game.normalise_rules({"players": players})
    state = game.new_state(rules, seed)
    rng = random.Random(seed)
    states = [state.copy()]
    for _ in range(400):
        if state.is_over:
            break
        seat = rng.choice(state.to_move())
        state.apply(seat, rng.choice(list(state.legal_moves(seat))))
        states.append(state.copy())
    return states


def player_counts(kind: str) -> list[int]:
    low, high = games.get(kind).players
    return sorted({max(low, 2), min(high, 4)})


CASES = [(kind, n, seed) for kind in games.kinds() for n in player_counts(kind) for seed in (1, 2)]


@pytest.mark.parametrize(("kind", "players", "seed"), CASES)
def test_incremental_views_and_deltas_equal_the_full_build(
    kind: str, players: int, seed: int
) -> None:
    states = random_game(kind, seed, players)
    assert len(states) > 3
    seats: list[int | None] = [None, *range(players)]
    # Incremental first, move after move, as a server builds them...
    built = [
        {seat: orjson.loads(orjson.dumps(s.view(seat), option=orjson.OPT_NON_STR_KEYS))
         for seat in seats}
        for s in states
    ]  # fmt: skip
    rng = random.Random(seed)
    for i, state in enumerate(states):
        for seat in seats:
            # ...then each from scratch: the same JSON.
            assert exact(built[i][seat]) == exact(full_view(kind, state, seat)), (i, seat)
            if i == 0:
                continue
            # A delta from the previous version, and from one further back, rebuilds it.
            for before in {i - 1, rng.randrange(i)}:
                patch = diff(built[before][seat], built[i][seat])
                assert exact(apply(built[before][seat], patch)) == exact(built[i][seat])
                # A patch carries the newer view's values only, and only what changed.
                assert len(exact(patch)) <= len(exact(built[i][seat])) + 64 * len(patch)


def test_a_delta_of_equal_views_is_empty_and_whole_replacements_work() -> None:
    assert diff({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2}]}) == []
    assert diff({"a": 1}, {"a": True}) == [{"op": "replace", "path": "/a", "value": True}]
    old = {"x/y": 1, "t~": [1, 2, 3], "gone": 0, "l": [[1], 2]}
    new = {"x/y": 2, "t~": [1], "new": None, "l": [[1, 5], 2, 3]}
    patch = diff(old, new)
    assert {"op": "replace", "path": "/x~1y", "value": 2} in patch
    assert exact(apply(old, patch)) == exact(new)
    assert apply(1, diff(1, [2])) == [2]


def test_the_view_cache_is_per_snapshot_and_never_carried_to_a_changed_one() -> None:
    game = games.get(games.kinds()[0])
    state = game.new_state(game.normalise_rules({}), 5)
    snap = Table(
        game_id="g", version=3, status="playing", meta=None,  # type: ignore[arg-type]
        meta_json="{}", state=state, last_event_id="1-0", created_at_ms=0,
    )  # fmt: skip
    calls: list[int | None] = []

    def build(seat: int | None) -> Any:
        calls.append(seat)
        return object()

    first = view_of(snap, 0, lambda: build(0))
    assert view_of(snap, 0, lambda: build(0)) is first
    assert view_of(snap, None, lambda: build(None)) is not first
    assert calls == [0, None]
    moved = replace(snap, version=4)
    assert moved.views == {}
    assert view_of(moved, 0, lambda: build(0)) is not first
    assert calls == [0, None, 0]
