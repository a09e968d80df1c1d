"""The public chance model (RULES.md §5): which tiles a seat has not seen, and sampled worlds.

An AI sees only its seat's view. To search, it deals the unseen tiles at random into the
opponents' hands and the deck (a *determinization*), once per iteration: `MetroWorlds`, the game's
one information-set sampler (`Game.world_sampler`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.errors import GameError
from games.metro.position import RETIRED_OTHER
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import INDEX, Placement


def world_from_view(view: Mapping[str, Any], seat: int, rng: random.Random) -> MetroState:
    """A full state consistent with what `seat` sees in `view`, hidden tiles dealt by `rng`."""
    rules = MetroRules.parse(view["rules"])
    state = MetroState.empty(rules, [], seed=rng.getrandbits(32))
    physical = view.get("board_tiles") or [text[:4] for text in view["board"]]
    for text, code in zip(view["board"], physical, strict=True):
        p = Placement.parse(text)
        state.put(p.tile_index, p.square, INDEX[code])
    # A retired seat's score froze when it left (later routes scored nothing): take the view's.
    retired = [int(s) for s in view.get("retired", ())]
    by_seat = {int(info["seat"]): info for info in view["seats"]}
    for s in retired:
        state.scores[s] = int(by_seat[s]["score"])
        state.retired_mask |= 1 << s
    state.retirements = tuple((s, state.placed, RETIRED_OTHER, None) for s in retired)
    if state.scores != [s["score"] for s in view["seats"]]:
        raise GameError("the view's scores do not match its board")
    # Sorted first: a view decoded from the engine's proto map has no defined key order, and the
    # same seed must sample the same world.
    pool = [INDEX[code] for code, n in sorted(view["unseen"].items()) for _ in range(n)]
    others = sum(s["hand_count"] for s in view["seats"] if s["seat"] != seat)
    other_draw = bool(view.get("drawing")) and not view.get("drawn") and view["turn"] is not None
    if len(pool) != others + int(view["deck_count"]) + other_draw:
        raise GameError(
            f"the view's {len(pool)} unseen tiles do not match the hidden ones: {others} in other "
            f"hands, {view['deck_count']} in the deck, {int(other_draw)} drawn by another seat"
        )
    rng.shuffle(pool)
    hands = []
    for info in view["seats"]:
        if info["seat"] == seat:
            hands.append(tuple(INDEX[c] for c in view["hand"]))
        else:
            hands.append(tuple(pool.pop() for _ in range(info["hand_count"])))
    state.hands = hands
    turn = view["turn"]
    state.seat = -1 if turn is None else int(turn)
    if view.get("drawn"):
        state.drawn = INDEX[view["drawn"]]
    elif view.get("drawing") and turn is not None:
        state.drawn = pool.pop()  # another seat is holding a tile it drew
    state.deck = pool[: view["deck_count"]]
    state.deck_pos = 0
    state.out = [bool(s["out"]) or s.get("retired", False) for s in view["seats"]]
    return state


class MetroWorlds:
    """The worlds one seat cannot tell apart (its information set), built from its view.

    The board is replayed once, here; `sample` then deals the unseen tiles anew into the other
    hands, another seat's pending drawn tile and the deck: one determinization per call, cheap
    enough for every search iteration."""

    __slots__ = ("base", "hand_counts", "other_drawing", "pool", "seat")

    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        self.seat = seat
        self.base = world_from_view(view, seat, random.Random(0))
        self.pool = tuple(
            sorted(INDEX[code] for code, n in view["unseen"].items() for _ in range(n))
        )
        seats = sorted(view["seats"], key=lambda s: int(s["seat"]))
        self.hand_counts = tuple(0 if s["seat"] == seat else int(s["hand_count"]) for s in seats)
        self.other_drawing = self.base.drawn >= 0 and not view.get("drawn")

    def sample(self, rng: random.Random) -> MetroState:
        state = self.base.copy()
        rand = rng.random
        pool = sorted(self.pool, key=lambda _: rand())  # a uniform shuffle, faster than shuffle()
        hands = list(state.hands)
        for i, count in enumerate(self.hand_counts):
            if i != self.seat:
                hands[i] = tuple(pool[len(pool) - count :]) if count else ()
                del pool[len(pool) - count :]
        state.hands = hands
        if self.other_drawing:
            state.drawn = pool.pop()
        state.deck = pool
        state.deck_pos = 0
        state.seed = rng.getrandbits(32)
        return state
