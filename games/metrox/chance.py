"""Sampled worlds (games.base.WorldSampler): full states consistent with one seat's view.

What a seat cannot see in Metro X is the order of the current deck's unrevealed cards, every
later shuffle, and the pending choices of the seats that have already chosen this turn. A sample
deals those anew: the rest of the deck shuffled, a fresh shuffle source, and a uniformly random
legal choice for every other seat that has chosen. Sampled worlds carry no history (their record
is not the game's).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

from games.metrox.cards import DECK_COUNTER
from games.metrox.state import MetroXState


class MetroXSampler:
    """Built once from a view; `sample` copies the template and deals the hidden parts."""

    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        try:
            self.template, self.others = _template(view, seat)
        except (KeyError, TypeError, IndexError, AttributeError) as err:
            raise ValueError(f"not a Metro X view: {err!r}") from None
        self.seat = seat

    def sample(self, rng: random.Random) -> MetroXState:
        s = self.template.copy()
        if s.over:
            return s
        s.source = f"sample:{rng.getrandbits(64)}"
        rest = s.deck[s.pos + 1 :]
        shuffle(rest, rng.getrandbits)
        s.deck[s.pos + 1 :] = rest
        for p in self.others:
            moves = s.legal_moves(p)
            s.pending[p] = moves[rng.randrange(len(moves))]
        return s


def shuffle(cards: list[str], getrandbits: Any) -> None:
    """`random.Random.shuffle(cards)` with the same draws and swaps (CPython 3.11's: Fisher-Yates,
    each index drawn by `getrandbits` of its bit length, a draw past the range drawn again),
    without a call per card: a sample shuffles the deck's rest in every search iteration.
    tests/ai/test_metrox_search_speed.py holds it to `Random.shuffle`."""
    for i in range(len(cards) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _template(view: Mapping[str, Any], seat: int) -> tuple[MetroXState, list[int]]:
    if view.get("game") != "metrox":
        raise ValueError("not a Metro X view")
    revealed = list(view["revealed"])
    seen = Counter(revealed)
    if any(seen[c] > DECK_COUNTER[c] for c in seen):
        raise ValueError("the view's revealed cards are not from one deck")
    rest = list((Counter(DECK_COUNTER) - seen).elements())
    if len(rest) != view["deck_left"] or not revealed:
        raise ValueError("the view's deck does not add up")
    over = view["status"] == "over"
    if not over and view["card"] != revealed[-1]:
        raise ValueError("the view's card is not the last revealed one")
    sheets = view["sheets"]
    n = view["rules"]["players"]
    if len(sheets) != n or len(view["seats"]) != n:
        raise ValueError("the view's seats do not add up")
    line_ids = [ln["id"] for ln in view["map"]["lines"]]
    data = {
        "rules": view["rules"],
        "source": "",
        "shuffles": 0,
        "deck": revealed + rest,
        "pos": len(revealed) - 1,
        "forced": None,
        "card": view["card"],
        "filled": [sh["filled"] for sh in sheets],
        "windows": [[sh["windows"][x] for x in line_ids] for sh in sheets],
        "transfers": [list(sh["transfers"].items()) for sh in sheets],
        "bonuses": [
            [[b["line"], b["bonus"], b["first"], b["turn"]] for b in sh["bonuses"]] for sh in sheets
        ],
        # The seat's own choice is left out: a world is where the seat decides (again).
        "pending": [None] * n,
        "turn": view["turn_index"],
        "over": over,
        "cards": revealed,
        "turns": [],
        "retired": [[int(p), view["turn_index"]] for p in view.get("retired", ())],
    }
    state = MetroXState.from_dict(data)
    others = [p for p in range(n) if p != seat and view["seats"][p]["chosen"]]
    if sum(1 for p in range(n) if view["seats"][p]["chosen"]) >= state.need and not over:
        raise ValueError("every seat has chosen, yet the turn is open")
    # The choices a world holds: the others' (dealt by `sample`), never the seat's own, which
    # was left out above. Counting it too resolved the turn at the seat's new choice, without
    # the choices of the seats still to choose.
    state.nchosen = len(others)
    return state, others
