"""A game of Metro X (RULES-METROX.md §3-§6): the position (position.py) with the checked door,
retirement and the stored form (`to_dict` / `from_dict`, secrets included: the engine's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import JSON, BoundToGame, check_retire
from games.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError
from games.metrox.cards import FREE, INFO
from games.metrox.moves import PASS, LineMove, MetroXMove, StationMove
from games.metrox.moves import parse as parse_move
from games.metrox.position import MetroXPosition, mark_char, mark_text
from games.metrox.rules import normalise

RULE_MOVES = "RULES-METROX.md §3"


class MetroXState(MetroXPosition, BoundToGame):
    """One Metro X game: the position, and the doors that check (`play`), retire a seat and
    store it. Build it with `new` or `from_dict`."""

    __slots__ = ()

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

    def play(self, seat: Any, move: Mapping[str, Any]) -> JSON:
        """Check and store `seat`'s choice; the public event (§6 hides the choice until the
        turn resolves). `seat` is `Any` as in `check`: the checked door names a bad seat
        (NotYourTurnError), where a compiled `int` argument would raise a bare TypeError."""
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
