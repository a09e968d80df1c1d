"""The position of a Metro X game (RULES-METROX.md §2-§5) and the fast door of games.base.

Layout for speed (a random 4-player game is a few hundred moves): per seat, the filled stations
are one int bitmask and each line's windows one short string of marks (its length is the number
of windows used); completed lines are a bitmask too. Everything that only the view or the record
reads (transfer numbers, bonuses) lives in small tuples replaced on write, so `copy()` copies a
handful of flat lists. The checked door, retirement and the stored form are state.py's.

Window marks inside the state are one character each: "1".."5" a number, "a".."e" a skip of
1..5, "*" a transfer; `view` spells skips as "(2)".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping
from typing import Any, Self

from games.base import Outcome
from games.metrox import maps
from games.metrox.cards import (
    CODES,
    DECK,
    FREE,
    INFO,
    NUMBER,
    SKIP,
    TRANSFER,
    shuffle_source,
    shuffled,
)
from games.metrox.maps import MetroXMap
from games.metrox.moves import PASS, LineMove, MapMoves, MetroXMove, StationMove, moves_for
from games.metrox.rules import MAX_PLAYERS, normalise

# the one-character mark each card writes in a window (the free card writes none)
MARK = {
    c: ("*" if k == TRANSFER else chr(96 + n) if k == SKIP else str(n))
    for c, (k, n, _) in INFO.items()
    if k != FREE
}


def window_effect(m: MetroXMap, li: int, f: int, kind: int, num: int) -> tuple[int, int, int]:
    """What a window card (`kind`, `num`) played on line `li` does to a sheet whose filled
    stations are `f` (§3): (the stations it fills, the lines through them, the station a
    transfer fills or -1). Only the line's own stations of `f` matter."""
    bits, sl = m.line_bits[li], m.line_slines[li]
    size = len(bits)
    i = 0
    while i < size and f & bits[i]:
        i += 1
    fill = touched = 0
    if i == size:
        return 0, 0, -1
    if kind == NUMBER:
        stop = min(size, i + num)
        while i < stop and not f & bits[i]:
            fill |= bits[i]
            touched |= sl[i]
            i += 1
    elif kind == SKIP:
        k = 0
        while i < size and k < num:
            if not f & bits[i]:
                fill |= bits[i]
                touched |= sl[i]
                k += 1
            i += 1
    else:
        return bits[i], sl[i], m.line_stations[li][i]
    return fill, touched, -1


# per map: window_effect by `((filled stations of the line) << 8 | line) << 5 | kind << 3 | num`
# (a pure function of the key, remembered: `_resolve` plays one for every seat of every turn)
_effects: dict[str, dict[int, tuple[int, int, int]]] = {}
_free: dict[str, dict[int, tuple[MetroXMove, ...]]] = {}  # per map: `_free_moves` by sheet
# per map: (open lines, a line that fills up) -> the open lines without it (lines fill up in
# most turns of a rollout, and the same few tuples come back: building them was 7% of a search)
_dropped: dict[str, dict[tuple[tuple[LineMove, ...], int], tuple[LineMove, ...]]] = {}
EFFECTS_CACHED = 100_000

# SEATS[n]: every seat of an n-seat game, the usual `to_move()`
SEATS: tuple[tuple[int, ...], ...] = tuple(tuple(range(n)) for n in range(MAX_PLAYERS + 1))


# CARD[code]: (kind, number, shuffle icon, window_effect's part of the key, mark), for _resolve
CARD = {c: (k, n, sh, k << 3 | n, MARK.get(c, "")) for c, (k, n, sh) in INFO.items()}


def mark_text(ch: str) -> str:
    """A window as people read it: "3", "(2)" for a skip, "*" for a transfer."""
    if "a" <= ch <= "e":
        return f"({ord(ch) - 96})"
    return ch


def mark_char(text: str) -> str:
    if text.startswith("(") and text.endswith(")"):
        return chr(96 + int(text[1:-1]))
    return text


def penalty(empty: int) -> int:
    """§5: one point per empty station up to ten, two per station beyond."""
    return empty if empty <= 10 else 10 + 2 * (empty - 10)


class MetroXPosition:
    """One Metro X game's position and its fast door; `MetroXState` (state.py) is the whole
    game. Build one with `MetroXState.new` or `MetroXState.from_dict`."""

    rules: dict[str, Any]
    m: MetroXMap
    mv: MapMoves
    n: int
    source: str  # what every shuffle of this game derives from (hidden)
    shuffles: int  # how many shuffles so far (0: the first deck)
    deck: list[str]  # the current deck, in order (hidden beyond `pos`)
    pos: int  # index in `deck` of the revealed card
    forced: str | None  # the card a sampled world puts on top of the next shuffle
    card: str | None  # the revealed card of the open turn; None once over
    filled: list[int]  # per seat: bitmask of filled stations
    wins: list[list[str]]  # per seat, per line: the marks written in its windows
    avail: list[tuple[LineMove, ...]]  # per seat: the lines with an empty window, in map order
    tnums: list[tuple[tuple[int, int], ...]]  # per seat: (station, number) of transfers
    ttotal: list[int]
    bonuses: list[tuple[tuple[int, int, bool, int], ...]]  # per seat: (line, bonus, first, turn)
    btotal: list[int]
    done: list[int]  # per seat: bitmask of completed lines
    first_taken: int  # lines completed by someone in an earlier turn
    pending: list[MetroXMove | None]
    nchosen: int
    need: int  # how many seats choose each turn: the seats not retired
    retired_mask: int  # bit p: seat p has retired (`retire`)
    retirements: tuple[tuple[int, int], ...]  # (seat, the turn it retired in), in order
    turn: int  # resolved turns
    windows_left: int  # empty windows on every sheet
    over: bool
    cards: list[str]  # every revealed card, in order (the record's `cards`)
    turns: list[tuple[MetroXMove | None, ...]]  # every resolved turn's moves (None: retired)
    last: tuple[str, tuple[MetroXMove | None, ...], list[tuple[int, int, int, bool]], bool] | None
    __slots__ = tuple(__annotations__)  # every field, named once: in the annotations above

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Mapping[str, Any] | None, seed: int) -> Self:
        """A fresh game: the first deck shuffled (by the daily string if any, else `seed`) and
        its top card revealed."""
        r = normalise(rules)
        s = cls._blank(r)
        s.source = shuffle_source(seed, r.get("daily"))
        s.deck = shuffled(s.source, 0)
        s.card = s.deck[0]
        s.cards = [s.card]
        return s

    @classmethod
    def _blank(cls, rules: dict[str, Any]) -> Self:
        s = cls.__new__(cls)
        s.rules = rules
        s.m = maps.get(rules["map"])
        s.mv = moves_for(s.m)
        n = s.n = rules["players"]
        s.source, s.shuffles, s.deck, s.pos, s.forced, s.card = "", 0, list(DECK), 0, None, None
        s.filled = [0] * n
        s.wins = [[""] * s.m.line_count for _ in range(n)]
        s.avail = [s.mv.lines] * n
        s.tnums, s.ttotal = [()] * n, [0] * n
        s.bonuses, s.btotal, s.done = [()] * n, [0] * n, [0] * n
        s.first_taken = 0
        s.pending, s.nchosen, s.need = [None] * n, 0, n
        s.retired_mask, s.retirements = 0, ()
        s.turn, s.windows_left, s.over = 0, s.m.total_windows, False
        s.cards, s.turns, s.last = [], [], None
        return s

    def copy(self) -> Self:
        cls = type(self)
        c = cls.__new__(cls)
        c.rules, c.m, c.mv, c.n = self.rules, self.m, self.mv, self.n
        c.source, c.shuffles, c.deck, c.pos = self.source, self.shuffles, self.deck[:], self.pos
        c.forced, c.card = self.forced, self.card
        c.filled = self.filled[:]
        c.wins = [w[:] for w in self.wins]
        c.avail = self.avail[:]
        c.tnums, c.ttotal = self.tnums[:], self.ttotal[:]
        c.bonuses, c.btotal, c.done = self.bonuses[:], self.btotal[:], self.done[:]
        c.first_taken = self.first_taken
        c.pending, c.nchosen, c.need = self.pending[:], self.nchosen, self.need
        c.retired_mask, c.retirements = self.retired_mask, self.retirements
        c.turn, c.windows_left, c.over = self.turn, self.windows_left, self.over
        c.cards, c.turns, c.last = self.cards[:], self.turns[:], self.last
        return c

    # ---- the protocol's properties ------------------------------------------------------------

    @property
    def seat_count(self) -> int:
        return self.n

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def turn_number(self) -> int:
        return self.turn

    def empty(self, seat: int) -> int:
        return self.m.station_count - self.filled[seat].bit_count()

    def score(self, seat: int) -> int:
        """§5, as if the game ended now."""
        return self.btotal[seat] + self.ttotal[seat] - penalty(self.empty(seat))

    @property
    def scores(self) -> list[int]:
        return [self.score(s) for s in range(self.n)]

    def to_move(self) -> tuple[int, ...]:
        if self.over:
            return ()
        p, gone = self.pending, self.retired_mask
        if not self.nchosen and not gone:  # a fresh turn, everyone in: every seat
            return SEATS[self.n]
        return tuple(s for s in range(self.n) if p[s] is None and not gone >> s & 1)

    @property
    def retired(self) -> tuple[int, ...]:
        return tuple(r[0] for r in self.retirements)

    def outcome(self) -> Outcome | None:
        return Outcome.from_scores(self.scores, self.retired) if self.over else None

    # ---- the fast door ------------------------------------------------------------------------

    def legal_moves(self, seat: int) -> list[Any]:
        """The one place that says which moves are legal (random_move indexes this list)."""
        if self.over or not 0 <= seat < self.n or self.retired_mask >> seat & 1:
            return []
        if INFO[self.card][0] == FREE:  # type: ignore[index]
            return list(self._free_moves(self.filled[seat]))
        return list(self.avail[seat])

    def _free_moves(self, f: int) -> tuple[MetroXMove, ...]:
        """A free card's moves on a sheet whose filled stations are `f`: every empty station, in
        map order, or the pass. Remembered (a search lists them at the same sheets again)."""
        cache = _free.get(self.m.id)
        if cache is None or len(cache) >= EFFECTS_CACHED:
            cache = _free[self.m.id] = {}
        moves = cache.get(f)
        if moves is None:
            st = self.mv.stations
            moves = cache[f] = tuple(st[i] for i in range(len(st)) if not f >> i & 1) or (PASS,)
        return moves

    def random_move(self, seat: int, rand: Any) -> Any:
        """`legal_moves(seat)[int(rand() * len(...))]`, without building the list."""
        if self.over or not 0 <= seat < self.n or self.retired_mask >> seat & 1:
            moves = self.legal_moves(seat)
            return moves[int(rand() * len(moves))]
        if INFO[self.card][0] != FREE:  # type: ignore[index]
            lines = self.avail[seat]
            return lines[int(rand() * len(lines))]
        stations = self.mv.stations
        empty = ((1 << len(stations)) - 1) & ~self.filled[seat]
        k = int(rand() * (empty.bit_count() or 1))
        if not empty:
            return PASS
        for _ in range(k):  # the k-th empty station, in map order
            empty &= empty - 1
        return stations[(empty & -empty).bit_length() - 1]

    def random_turns(self, turns: int, max_moves: int, rand: Any) -> None:
        """Up to `turns` turns of `random_move` for every seat to move, stopping before a turn
        once `max_moves` moves are made (a search's rollout, ismcts.py `_rollout`): the same
        moves, applied as `apply` does, without a call per move."""
        for _ in range(turns):
            if not self.nchosen and not self.retired_mask and not self.over:
                # a fresh turn: everyone chooses (`to_move` is every seat)
                if max_moves <= 0:
                    return
                max_moves -= self.n
                if INFO[self.card][0] == FREE:  # type: ignore[index]
                    random_move = self.random_move
                    self.pending = [random_move(seat, rand) for seat in SEATS[self.n]]
                else:  # `random_move` of a window card: one of the seat's open lines
                    self.pending = [ln[int(rand() * len(ln))] for ln in self.avail]
                self.nchosen = self.need
                self._resolve()
                continue
            movers = self.to_move()
            if not movers or max_moves <= 0:
                return
            max_moves -= len(movers)
            random_move = self.random_move
            for seat in movers:
                move = random_move(seat, rand)
                pending = self.pending
                if pending[seat] is None:
                    self.nchosen += 1
                pending[seat] = move
                if self.nchosen == self.need:
                    self._resolve()

    def apply(self, seat: int, move: Any) -> None:
        """Store `seat`'s choice; the last choice of the turn resolves it at once."""
        if self.pending[seat] is None:
            self.nchosen += 1
        self.pending[seat] = move
        if self.nchosen == self.need:
            self._resolve()

    def _resolve(self) -> None:
        """Apply every choice (§3), settle bonuses (§4), end (§5) or reveal the next card."""
        m = self.m
        code: str = self.card  # type: ignore[assignment]
        kind, num, shuffle, card_key, mark = CARD[code]
        choices: tuple[MetroXMove | None, ...] = tuple(self.pending)
        filled, wins, done, avail = self.filled, self.wins, self.done, self.avail
        line_index, line_mask, windows = m.line_index, m.line_mask, m.windows
        effects = _effects.get(m.id)
        if effects is None:
            effects = _effects[m.id] = {}
            _dropped[m.id] = {}
        dropped = _dropped[m.id]
        completed: list[tuple[int, int, int, bool]] = []
        done_now = 0
        for seat, move in enumerate(choices):
            if move is None:  # a retired seat: its sheet stays as it was
                continue
            f = filled[seat]
            touched = 0
            if kind == FREE:
                if type(move) is StationMove:
                    st = m.station_index[move.station]
                    f |= 1 << st
                    touched = m.station_lines[st]
            else:
                li = line_index[move.line]  # type: ignore[union-attr]
                w = wins[seat]
                marks = w[li] = w[li] + mark
                if len(marks) == windows[li]:  # the line is full: drop it
                    was = avail[seat]
                    now = dropped.get((was, li))
                    if now is None:
                        if len(dropped) >= EFFECTS_CACHED:
                            dropped.clear()
                        line = self.mv.lines[li]  # moves are interned
                        now = dropped[was, li] = tuple([x for x in was if x is not line])
                    avail[seat] = now
                key = ((f & line_mask[li]) << 8 | li) << 5 | card_key
                effect = effects.get(key)
                if effect is None:
                    if len(effects) >= EFFECTS_CACHED:
                        effects.clear()
                    effect = effects[key] = window_effect(m, li, f, kind, num)
                fill, touched, st = effect
                f |= fill
                if st >= 0:  # a transfer: its number is twice the station's degree
                    value = 2 * m.degree[st]
                    self.tnums[seat] += ((st, value),)
                    self.ttotal[seat] += value
            filled[seat] = f
            cand = touched & ~done[seat]
            while cand:
                low = cand & -cand
                cand ^= low
                li = low.bit_length() - 1
                mask = line_mask[li]
                if f & mask == mask:
                    first = not self.first_taken & low
                    bonus = m.first_bonus[li] if first else m.later_bonus[li]
                    done[seat] |= low
                    self.bonuses[seat] += ((li, bonus, first, self.turn),)
                    self.btotal[seat] += bonus
                    completed.append((seat, li, bonus, first))
                    done_now |= low
        if done_now:
            self.first_taken |= done_now
        self.turns.append(choices)
        self.turn += 1
        self.pending = [None] * self.n
        self.nchosen = 0
        if kind != FREE:
            self.windows_left -= 1
        if self.windows_left == 0:
            self.over = True
            self.card = None
        elif shuffle:
            self._reveal(shuffle)
        else:  # `_reveal` without a shuffle: the next card of the deck
            self.pos += 1
            self.card = self.deck[self.pos]
            self.cards.append(self.card)
        self.last = (code, choices, completed, shuffle and not self.over)

    def _reveal(self, reshuffle: bool) -> None:
        if reshuffle:
            self.shuffles += 1
            self.deck = shuffled(self.source, self.shuffles)
            self.pos = 0
            if self.forced is not None:
                i = self.deck.index(self.forced)
                self.deck[0], self.deck[i] = self.deck[i], self.deck[0]
                self.forced = None
        else:
            self.pos += 1
        self.card = self.deck[self.pos]
        self.cards.append(self.card)

    # ---- chance -------------------------------------------------------------------------------

    def unrevealed(self) -> list[str]:
        """The cards the next reveal may show: the current deck's rest, or all 14 after `*`."""
        if self.over:
            return []
        if INFO[self.card][2]:  # type: ignore[index]
            return list(DECK)
        return self.deck[self.pos + 1 :]

    def chance_outcomes(self, seat: int) -> list[tuple[Hashable, float]]:
        rest = self.unrevealed()
        counts = Counter(rest)
        return [(c, counts[c] / len(rest)) for c in CODES if counts[c]]

    def force_chance(self, outcome: Hashable) -> None:
        """Put `outcome` on top of what the next reveal draws from (sampled worlds only)."""
        if outcome not in self.unrevealed():
            raise ValueError(f"card {outcome!r} cannot be revealed next")
        if INFO[self.card][2]:  # type: ignore[index]
            self.forced = outcome  # type: ignore[assignment]
            return
        i = self.deck.index(outcome, self.pos + 1)  # type: ignore[arg-type]
        j = self.pos + 1
        self.deck[i], self.deck[j] = self.deck[j], self.deck[i]

    def reveal_as(self, card: str) -> None:
        """Make the card revealed now `card`, from what the current deck still holds (replay of
        a record, which names the cards instead of a seed); ValueError when it cannot be."""
        if self.over or card not in self.deck[self.pos :]:
            raise ValueError(f"card {card!r} is not left in the deck")
        i = self.deck.index(card, self.pos)
        self.deck[i], self.deck[self.pos] = self.deck[self.pos], self.deck[i]
        self.card = card
        self.cards[-1] = card

    def open_lines(self, seat: int) -> tuple[LineMove, ...]:
        w, ln = self.wins[seat], self.mv.lines
        return tuple(ln[i] for i, cap in enumerate(self.m.windows) if len(w[i]) < cap)

    def intern(self, move: MetroXMove) -> MetroXMove:
        """The map's own value for a parsed move (ids unknown to the map raise KeyError)."""
        if isinstance(move, LineMove):
            return self.mv.lines[self.m.line_index[move.line]]
        if isinstance(move, StationMove):
            return self.mv.stations[self.m.station_index[move.station]]
        return PASS
