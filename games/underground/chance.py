"""Sampled worlds (RULES-UNDERGROUND.md §5): the only hidden thing is the order of the pile.

A sampler is built once from one seat's view: the public prefix of the deal (`revealed`) and
the turns so far are replayed onto a state whose pile holds the unseen cards; each `sample`
copies it and shuffles the pile anew.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.errors import GameError
from games.underground.map import load_map
from games.underground.rules import UndergroundRules
from games.underground.state import UndergroundState


class UndergroundSampler:
    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        rules = UndergroundRules.parse(view["rules"])
        board = load_map(rules.map)
        revealed = [str(x) for x in view["revealed"]]
        unseen = sorted(set(board.sid(i) for i in board.destinations) - set(revealed))
        if len(unseen) != int(view["pile_count"]) or len(revealed) + len(unseen) != 55:
            raise ValueError("the view's cards do not add up to the 55 destination cards")
        state = UndergroundState.deal_new(rules, view["connections"], revealed + unseen)
        try:
            for m in view["moves"]:
                state.replay_entry(m)
            state.play_steps(view["steps"])
        except GameError as err:
            raise ValueError(f"the view's moves do not replay: {err}") from None
        if state.scores != [s["score"] for s in view["seats"]]:
            raise ValueError("the view's scores do not match its moves")
        self.base = state
        self.seat = seat

    def sample(self, rng: random.Random) -> UndergroundState:
        world = self.base.copy()
        pile = world.deal[world.drawn :]
        rng.shuffle(pile)
        world.deal = world.deal[: world.drawn] + pile
        return world
