"""Planning one sheet with the cards known (a sampled world's, or a solo deck's): a beam search
over whole turns. Two users: the `hard` AI's hindsight search in solo games (services/ai/players/
hindsight.py: the best final score after each move, averaged over sampled futures) and
bench/metrox_planner.py (the best plan of a known deck, the bound the AI is measured against).

A node is a sheet: its filled stations (a bitmask) and the windows used per line. Nodes with the
same sheet are merged keeping the most transfer points (nothing later depends on anything else),
and each turn keeps the `beam` best by the AI's own sheet value (games/metrox/evaluate.py), plus
the best node of every first move still alive, so that every first move gets a value. Pure and
I/O-free: it is compiled with the rules core (games/native.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from games.metrox.cards import FREE, INFO, shuffled
from games.metrox.evaluate import sheet_value
from games.metrox.maps import MetroXMap
from games.metrox.position import MetroXPosition, penalty, window_effect

PASS_ROOT = -1  # a first move that passes (a free card with no empty station)
STATION_ROOT = 1000  # a first move filling station i is STATION_ROOT + i; a line li is li

_PAD = tuple("x" * n for n in range(64))  # what sheet_value reads of a line's windows: its length


class SheetPlanner:
    """Beam search over one seat's sheets of one map for a known card sequence. `taken`: lines
    someone completed in an earlier turn (their later bonus is what completing them earns)."""

    def __init__(self, m: MetroXMap, taken: int = 0, base: int = 0, done: int = 0) -> None:
        self.m = m
        self.taken = taken
        self.base = base  # bonuses already earned (lines in `done`)
        self.done = done
        self.full = (1 << m.station_count) - 1
        self.bonus = [
            m.later_bonus[li] if taken >> li & 1 else m.first_bonus[li]
            for li in range(m.line_count)
        ]

    def bonuses(self, filled: int) -> int:
        """Bonuses of the lines complete in `filled`, those already earned included."""
        m = self.m
        total = self.base
        for li in range(m.line_count):
            if not self.done >> li & 1:
                mask = m.line_mask[li]
                if filled & mask == mask:
                    total += self.bonus[li]
        return total

    def score(self, filled: int, tt: int) -> int:
        """§5: the sheet's final score with `tt` transfer points."""
        return self.bonuses(filled) + tt - penalty(self.m.station_count - filled.bit_count())

    def rank(self, filled: int, lens: tuple[int, ...], tt: int) -> float:
        """How promising a node is: the AI's expected final score of the sheet."""
        m = self.m
        done = self.done
        for li in range(m.line_count):
            mask = m.line_mask[li]
            if filled & mask == mask:
                done |= 1 << li
        used = [_PAD[n] for n in lens]
        left = m.total_windows - sum(lens)
        return sheet_value(m, filled, used, self.bonuses(filled) + tt, done, self.taken, left)

    def line_effect(self, filled: int, li: int, code: str) -> tuple[int, int]:
        """(filled after, transfer number written) for `code` played on line `li`: the rules'
        own `window_effect`."""
        kind, num, _ = INFO[code]
        fill, _, station = window_effect(self.m, li, filled, kind, num)
        return filled | fill, 2 * self.m.degree[station] if station >= 0 else 0

    def _options(
        self, filled: int, lens: tuple[int, ...], code: str
    ) -> list[tuple[int, tuple[int, ...], int, int]]:
        """Every (filled, lens, transfer points gained, move) one card leads to; a move is a
        root code."""
        m = self.m
        out: list[tuple[int, tuple[int, ...], int, int]] = []
        if INFO[code][0] == FREE:
            empty = self.full & ~filled
            while empty:
                low = empty & -empty
                empty ^= low
                out.append((filled | low, lens, 0, STATION_ROOT + low.bit_length() - 1))
        else:
            for li in range(m.line_count):
                if lens[li] < m.windows[li]:
                    f2, gain = self.line_effect(filled, li, code)
                    lens2 = (*lens[:li], lens[li] + 1, *lens[li + 1 :])
                    out.append((f2, lens2, gain, li))
        if not out:
            out.append((filled, lens, 0, PASS_ROOT))
        return out

    def best_after(
        self,
        cards: Sequence[str],
        beam: int,
        filled: int,
        lens: tuple[int, ...],
        tt: int,
        roots: set[int],
    ) -> dict[int, int]:
        """The best final score found after each first move (a root code), the sheet starting
        at (`filled`, `lens`, `tt`) and `cards` revealed in turn from now; `roots`: the first
        moves to consider. Every one of them gets a value (`_prune` keeps each alive).

        A node holds, per first move that reached its sheet, the most transfer points it got
        there with: two first moves often meet in one sheet (a line now and another next turn,
        or the other way round), and the rest of the game is the same for both."""
        total = self.m.total_windows
        layer: dict[tuple[int, tuple[int, ...]], dict[int, int]] = {}
        for f2, l2, gain, move in self._options(filled, lens, cards[0]):
            if move in roots:
                _merge(layer, (f2, l2), move, tt + gain)
        for code in cards[1:]:
            if all(sum(key[1]) >= total for key in layer):
                break  # every window used: the game is over on every sheet kept
            nxt: dict[tuple[int, tuple[int, ...]], dict[int, int]] = {}
            for key, got in layer.items():
                if sum(key[1]) >= total:
                    for root, t0 in got.items():
                        _merge(nxt, key, root, t0)
                    continue
                for f2, l2, gain, _ in self._options(key[0], key[1], code):
                    k2 = (f2, l2)
                    for root, t0 in got.items():
                        _merge(nxt, k2, root, t0 + gain)
            layer = self._prune(nxt, beam)
        best: dict[int, int] = {}
        for (f, _lens), got in layer.items():
            for root, t in got.items():
                s = self.score(f, t)
                if root not in best or s > best[root]:
                    best[root] = s
        return best

    def _prune(
        self, nodes: dict[tuple[int, tuple[int, ...]], dict[int, int]], beam: int
    ) -> dict[tuple[int, tuple[int, ...]], dict[int, int]]:
        """The `beam` best nodes, and the best of each first move the beam would lose."""
        if len(nodes) <= beam:
            return nodes
        ranked = sorted(nodes, key=lambda k: -self.rank(k[0], k[1], max(nodes[k].values())))
        keep = ranked[:beam]
        alive: set[int] = set()
        for k in keep:
            alive.update(nodes[k])
        for k in ranked[beam:]:
            if not alive.issuperset(nodes[k]):
                keep.append(k)
                alive.update(nodes[k])
        return {k: nodes[k] for k in keep}


def _merge(
    nodes: dict[tuple[int, tuple[int, ...]], dict[int, int]],
    key: tuple[int, tuple[int, ...]],
    root: int,
    tt: int,
) -> None:
    """Record that first move `root` reaches sheet `key` with `tt` transfer points."""
    got = nodes.get(key)
    if got is None:
        nodes[key] = {root: tt}
    elif tt > got.get(root, -1):
        got[root] = tt


def cards_to_come(state: MetroXPosition) -> list[str]:
    """The card revealed now and every card after it until the sheets' last window is filled,
    as this state's deck and shuffle source deal them: the future of a sampled world (in the
    real game the source is hidden, so only a world's, or a known solo deck's)."""
    out = [state.card] if state.card is not None else []
    if state.card is None:
        return out
    deck, pos, shuffles, forced = state.deck, state.pos, state.shuffles, state.forced
    need = state.windows_left
    card = state.card
    while True:
        if INFO[card][0] != FREE:
            need -= 1
        if need <= 0:
            return out
        if INFO[card][2]:
            shuffles += 1
            deck = shuffled(state.source, shuffles)
            pos = 0
            if forced is not None:
                i = deck.index(forced)
                deck[0], deck[i] = deck[i], deck[0]
                forced = None
        else:
            pos += 1
        card = deck[pos]
        out.append(card)


def sheet_of(state: MetroXPosition, seat: int) -> tuple[int, tuple[int, ...], int]:
    """A seat's sheet as the planner holds it: (filled, windows used per line, transfer points)."""
    return state.filled[seat], tuple(len(w) for w in state.wins[seat]), state.ttotal[seat]


def planner_for(state: MetroXPosition, seat: int) -> SheetPlanner:
    """A planner for `seat`'s sheet in `state`: its bonuses so far and the lines already taken."""
    return SheetPlanner(state.m, state.first_taken, state.btotal[seat], state.done[seat])


def hindsight(
    world: MetroXPosition, seat: int, moves: Sequence[object], beam: int
) -> list[float] | None:
    """`Game.hindsight`: for each of `moves` (the seat's legal moves), the best final score of
    the seat's sheet found after it, the world's cards to come known (a sampled world deals
    them); no moves: an empty list, at no cost (the question "is this world planned?"). None
    when other seats still play: planning one sheet while others race it to the first bonuses
    lost two-player games even to the greedy `medium` (docs/ai.md), so those are left to the
    tree search."""
    if any(p != seat and not world.retired_mask >> p & 1 for p in range(world.n)):
        return None
    if not moves:
        return []
    m = world.m
    roots: list[int] = []
    for move in moves:
        line = getattr(move, "line", None)
        station = getattr(move, "station", None)
        if isinstance(line, str):
            roots.append(m.line_index[line])
        elif isinstance(station, str):
            roots.append(STATION_ROOT + m.station_index[station])
        else:
            roots.append(PASS_ROOT)
    planner = planner_for(world, seat)
    filled, lens, tt = sheet_of(world, seat)
    best = planner.best_after(cards_to_come(world), beam, filled, lens, tt, set(roots))
    return [float(best[r]) for r in roots]
