"""A game of Metro X in progress (RULES-METROX.md §2-§5), both doors of games.base.

Layout for speed (a random 4-player game is a few hundred moves): per seat, the filled stations
are one int bitmask and each line's windows one short string of marks (its length is the number
of windows used); completed lines are a bitmask too. Everything that only the view or the record
reads (transfer numbers, bonuses) lives in small tuples replaced on write, so `copy()` copies a
handful of flat lists.

Window marks inside the state are one character each: "1".."5" a number, "a".."e" a skip of
1..5, "*" a transfer; `view` spells skips as "(2)".
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from games.base import JSON, Outcome, check_retire
from games.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError
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
from games.metrox.moves import parse as parse_move
from games.metrox.rules import normalise

RULE_MOVES = "RULES-METROX.md §3"

# the one-character mark each card writes in a window (the free card writes none)
MARK = {
    c: ("*" if k == TRANSFER else chr(96 + n) if k == SKIP else str(n))
    for c, (k, n, _) in INFO.items()
    if k != FREE
}


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


class MetroXState:
    """One Metro X game. Build it with `new` or `from_dict`."""

    __slots__ = (
        "avail",
        "bonuses",
        "btotal",
        "card",
        "cards",
        "deck",
        "done",
        "filled",
        "first_taken",
        "forced",
        "last",
        "m",
        "mv",
        "n",
        "nchosen",
        "need",
        "over",
        "pending",
        "pos",
        "retired_mask",
        "retirements",
        "rules",
        "shuffles",
        "source",
        "tnums",
        "ttotal",
        "turn",
        "turns",
        "windows_left",
        "wins",
    )

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

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def new(cls, rules: Mapping[str, Any] | None, seed: int) -> MetroXState:
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
    def _blank(cls, rules: dict[str, Any]) -> MetroXState:
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

    def copy(self) -> MetroXState:
        c = MetroXState.__new__(MetroXState)
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
            f = self.filled[seat]
            st = self.mv.stations
            empties = [st[i] for i in range(len(st)) if not f >> i & 1]
            return empties if empties else [PASS]
        return list(self.avail[seat])

    def random_move(self, seat: int, rand: Any) -> Any:
        moves = self.legal_moves(seat)
        return moves[int(rand() * len(moves))]

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
        kind, num, shuffle = INFO[code]
        choices: tuple[MetroXMove | None, ...] = tuple(self.pending)
        filled, wins, done, avail = self.filled, self.wins, self.done, self.avail
        line_index, line_bits, line_slines = m.line_index, m.line_bits, m.line_slines
        mark = MARK.get(code, "")
        completed: list[tuple[int, int, int, bool]] = []
        done_now = 0
        for seat in range(self.n):
            move = choices[seat]
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
                w[li] += mark
                if len(w[li]) == m.windows[li]:
                    avail[seat] = tuple(x for x in avail[seat] if x.line != move.line)  # type: ignore[union-attr]
                bits = line_bits[li]
                size = len(bits)
                i = 0
                while i < size and f & bits[i]:
                    i += 1
                if i < size:
                    sl = line_slines[li]
                    if kind == NUMBER:
                        stop = min(size, i + num)
                        while i < stop and not f & bits[i]:
                            f |= bits[i]
                            touched |= sl[i]
                            i += 1
                    elif kind == SKIP:
                        k = 0
                        while i < size and k < num:
                            if not f & bits[i]:
                                f |= bits[i]
                                touched |= sl[i]
                                k += 1
                            i += 1
                    else:
                        st = m.line_stations[li][i]
                        f |= bits[i]
                        touched = sl[i]
                        value = 2 * m.degree[st]
                        self.tnums[seat] += ((st, value),)
                        self.ttotal[seat] += value
            filled[seat] = f
            cand = touched & ~done[seat]
            while cand:
                low = cand & -cand
                cand ^= low
                li = low.bit_length() - 1
                mask = m.line_mask[li]
                if f & mask == mask:
                    first = not self.first_taken & low
                    bonus = m.first_bonus[li] if first else m.later_bonus[li]
                    done[seat] |= low
                    self.bonuses[seat] += ((li, bonus, first, self.turn),)
                    self.btotal[seat] += bonus
                    completed.append((seat, li, bonus, first))
                    done_now |= low
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
        else:
            self._reveal(shuffle)
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

    # ---- the checked door ---------------------------------------------------------------------

    def check(self, seat: Any, data: Any) -> MetroXMove:
        """The interned move `data` stands for, if `seat` may make it now; raises otherwise."""
        if self.over:
            raise NotYourTurnError("the game is over", RULE_MOVES, refusal="game_over")
        if type(seat) is not int or not 0 <= seat < self.n:
            raise NotYourTurnError(f"there is no seat {seat!r} in this game", RULE_MOVES)
        if self.retired_mask >> seat & 1:
            raise NotYourTurnError(f"seat {seat} has retired from this game", RULE_MOVES)
        move = parse_move(data)
        m = self.m
        if INFO[self.card][0] == FREE:  # type: ignore[index]
            if isinstance(move, LineMove):
                raise IllegalMoveError(
                    f"card {self.card} is a free card: choose a station, or pass",
                    RULE_MOVES,
                    refusal="metrox.free_card",
                    params={"card": str(self.card)},
                )
            empty = self.empty(seat)
            if isinstance(move, StationMove):
                st = m.station_index.get(move.station)
                if st is None:
                    raise InvalidMoveError(f"there is no station {move.station!r}", "station")
                if self.filled[seat] >> st & 1:
                    raise IllegalMoveError(
                        f"station {move.station} is already filled",
                        RULE_MOVES,
                        refusal="metrox.station_filled",
                        params={"station": str(m.data["stations"][st].get("name", move.station))},
                    )
                return self.mv.stations[st]
            if empty:
                raise IllegalMoveError(
                    "a free card may pass only when no station is empty",
                    RULE_MOVES,
                    refusal="metrox.no_pass",
                )
            return PASS
        if not isinstance(move, LineMove):
            raise IllegalMoveError(
                f"card {self.card} is played on a line: choose a line",
                RULE_MOVES,
                refusal="metrox.line_card",
                params={"card": str(self.card)},
            )
        li = m.line_index.get(move.line)
        if li is None:
            raise InvalidMoveError(f"there is no line {move.line!r}", "line")
        if len(self.wins[seat][li]) >= m.windows[li]:
            raise IllegalMoveError(
                f"line {move.line} has no empty window",
                RULE_MOVES,
                refusal="metrox.line_full",
                params={"line": str(move.line)},
            )
        return self.mv.lines[li]

    def play(self, seat: int, move: Mapping[str, Any]) -> JSON:
        """Check and store `seat`'s choice; the public event (§6 hides the choice until the
        turn resolves)."""
        checked = self.check(seat, move)
        turn = self.turn
        self.apply(seat, checked)
        if self.turn == turn:
            return {"seat": seat, "action": "choose"}
        return self.resolve_event(seat)

    # ---- a seat that leaves for good ----------------------------------------------------------

    def retire(self, seat: int) -> JSON:
        """Take `seat` out for good (games.base.GameState.retire): its sheet stays as it is,
        so its score (bonuses, transfers, and the penalty of its empty stations as they are) is
        frozen; it chooses no more. A choice it had made this turn is dropped unseen; when
        every other seat has chosen, the turn resolves now (the event's `resolved`, the turn's
        public account). The game ends by §5 for the others; one seat left plays on alone
        (Metro X has a solo game); with the last seat gone the game ends where it stands."""
        check_retire(seat, self.n, self.over, self.retired_mask)
        if self.pending[seat] is not None:
            self.pending[seat] = None
            self.nchosen -= 1
        self.retired_mask |= 1 << seat
        self.retirements = (*self.retirements, (seat, self.turn))
        self.need -= 1
        event: JSON = {"seat": seat, "action": "retire"}
        if self.need == 0:
            self.over, self.card = True, None
        elif self.nchosen == self.need:
            self._resolve()
            event["resolved"] = self.resolve_event(seat)
        event.update(
            scores=self.scores,
            to_move=list(self.to_move()),
            status="over" if self.over else "playing",
            turn_index=self.turn,
        )
        return event

    def resolve_event(self, seat: int) -> JSON:
        """The public account of the turn that just resolved (by `seat`'s choice)."""
        assert self.last is not None
        code, choices, completed, reshuffled = self.last
        ids = self.m.line_ids
        return {
            "seat": seat,
            "action": "resolve",
            "card": code,
            "choices": [None if c is None else c.to_json() for c in choices],
            "completed": [
                {"seat": s, "line": ids[li], "bonus": b, "first": first}
                for s, li, b, first in completed
            ],
            "next_card": self.card,
            "reshuffled": reshuffled,
            "scores": self.scores,
            "to_move": list(self.to_move()),
        }

    # ---- what leaves the rules core -----------------------------------------------------------

    def view(self, seat: int | None) -> JSON:
        from games.metrox.view import view

        return view(self, seat)

    def record(self, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
        from games.metrox.record import export

        return export(self, seats)

    def to_dict(self) -> JSON:
        """Everything, the deck and the pending choices included; JSON-safe."""
        m = self.m
        sid, lid = m.station_ids, m.line_ids
        return {
            "game": "metrox",
            "rules": dict(self.rules),
            "source": self.source,
            "shuffles": self.shuffles,
            "deck": self.deck[:],
            "pos": self.pos,
            "forced": self.forced,
            "card": self.card,
            "filled": [[sid[i] for i in range(m.station_count) if f >> i & 1] for f in self.filled],
            "windows": [[[mark_text(c) for c in w] for w in ws] for ws in self.wins],
            "transfers": [[[sid[st], v] for st, v in t] for t in self.tnums],
            "bonuses": [
                [[lid[li], b, first, turn] for li, b, first, turn in bs] for bs in self.bonuses
            ],
            "pending": [None if p is None else p.to_json() for p in self.pending],
            "turn": self.turn,
            "over": self.over,
            "cards": self.cards[:],
            "turns": [[None if mv is None else mv.to_json() for mv in t] for t in self.turns],
            "retired": [[p, turn] for p, turn in self.retirements],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetroXState:
        """Inverse of to_dict (trusted input: the engine's own store)."""
        s = cls._blank(normalise(data["rules"]))
        m = s.m
        si, li = m.station_index, m.line_index
        s.source, s.shuffles = data["source"], data["shuffles"]
        s.deck, s.pos, s.forced, s.card = (
            list(data["deck"]),
            data["pos"],
            data["forced"],
            data["card"],
        )
        s.filled = [sum(1 << si[x] for x in f) for f in data["filled"]]
        s.wins = [["".join(mark_char(t) for t in w) for w in ws] for ws in data["windows"]]
        s.avail = [s.open_lines(p) for p in range(s.n)]
        s.tnums = [tuple((si[x], v) for x, v in t) for t in data["transfers"]]
        s.ttotal = [sum(v for _, v in t) for t in s.tnums]
        s.bonuses = [
            tuple((li[x], b, first, turn) for x, b, first, turn in bs) for bs in data["bonuses"]
        ]
        s.btotal = [sum(b[1] for b in bs) for bs in s.bonuses]
        s.done = [sum(1 << b[0] for b in bs) for bs in s.bonuses]
        s.first_taken = 0
        for bs in s.bonuses:
            for x, _, _, turn in bs:
                if turn < data["turn"]:
                    s.first_taken |= 1 << x
        s.pending = [None if p is None else s.intern(parse_move(p)) for p in data["pending"]]
        s.nchosen = sum(p is not None for p in s.pending)
        s.retirements = tuple((int(p), int(turn)) for p, turn in data.get("retired", ()))
        for p, _ in s.retirements:
            s.retired_mask |= 1 << p
        s.need = s.n - len(s.retirements)
        s.turn, s.over = data["turn"], data["over"]
        # Every seat still in fills one window per turn; a retired seat's stopped filling.
        s.windows_left = m.total_windows - max((sum(map(len, w)) for w in s.wins), default=0)
        s.cards = list(data["cards"])
        s.turns = [
            tuple(None if x is None else s.intern(parse_move(x)) for x in t) for t in data["turns"]
        ]
        return s

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
