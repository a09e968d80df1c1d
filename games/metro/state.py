"""A game of Metro (RULES.md §5-§9): the position (position.py) with the checked door, which
names the rule a refused move breaks and leaves the state untouched then, retirement, and the
stored form (`to_dict` / `from_dict`, secrets included: the engine's)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.base import BoundToGame, check_retire
from games.errors import IllegalMoveError, NotYourTurnError
from games.metro.moves import DRAW, MetroMove, move_text
from games.metro.placement import why_illegal
from games.metro.position import (
    END_NAMES,
    ENDS_IN_CENTRE,
    OPEN,
    RETIRED_DURING_DRAW,
    RETIRED_OTHER,
    RETIRED_OWN,
    RETIRED_OWN_DRAWN,
    HistoryEntry,
    MetroPosition,
    Retirement,
)
from games.metro.rules import MetroRules
from games.metro.tiles import CODES, INDEX, ROTATIONS, Placement


class MetroState(MetroPosition, BoundToGame):
    """One game of Metro: the position, and the doors that check (`play`), retire a seat and
    store it. Build it with `new`, `deal`, `empty` or `from_dict`."""

    __slots__ = ()

    # ---- a seat that leaves for good ----------------------------------------------------------

    def retire(self, seat: int) -> dict[str, Any]:
        """Take `seat` out for good (games.base.GameState.retire), the online variant's way
        of retiring a finished player (§7) reused in every variant: its hand, and a tile it
        had drawn, go back into the deck, which is reshuffled, so that all 60 tiles are still
        placed and the game ends by §5; its turns are skipped; its score is frozen (its routes
        that others complete later score nothing). While the seat to move holds a tile it drew,
        another seat's tiles go back when that turn ends. When fewer than two seats are left in
        play the game ends at once (or, while the last seat holds a tile it drew, after it
        places it): a game of one has nobody left to beat.

        The event says how many tiles go back, never which."""
        check_retire(seat, self.rules.players, self.seat < 0, self.retired_mask)
        if seat == self.seat:
            when = RETIRED_OWN_DRAWN if self.drawn >= 0 else RETIRED_OWN
        else:
            when = RETIRED_DURING_DRAW if self.drawn >= 0 else RETIRED_OTHER
        return self._retire(seat, when)

    def _retire(self, seat: int, when: int) -> dict[str, Any]:
        """`retire`, told when (a record's replay tells RETIRED_DURING_DRAW before the draw)."""
        n = self.rules.players
        returned = list(self.hands[seat])
        if when == RETIRED_OWN_DRAWN:
            returned.append(self.drawn)
            self.drawn = -1
        self.out[seat] = True
        self.retired_mask |= 1 << seat
        redeck = None
        if when != RETIRED_DURING_DRAW:
            self.hands[seat] = ()
            redeck = self._redeck(returned) if returned else None
        self.retirements = (*self.retirements, (seat, self.placed, when, redeck))
        if when in (RETIRED_OWN, RETIRED_OWN_DRAWN):
            self._pass_turn()
        elif n - self.retired_mask.bit_count() < 2 and when == RETIRED_OTHER:
            self.seat = -1
        return {
            "seat": seat,
            "action": "retire",
            "returned": len(returned),
            "reshuffled": redeck is not None,
            "turn": self.current_seat,
            "to_move": list(self.to_move()),
            "scores": self.scores[:],
            "status": "over" if self.is_over else "playing",
            "deck_count": self.deck_count,
        }

    # ---- the checked door -------------------------------------------------------------------

    def parse_move(self, move: Mapping[str, Any]) -> int:
        """Read an API move dict into a move code, or raise InvalidMoveError."""
        return MetroMove.parse(move).code

    def check(self, seat: int, move: int) -> None:
        """Raise the error that says why `seat` may not make `move` now; return if it may."""
        if self.seat < 0:
            raise NotYourTurnError("the game is over", "RULES.md §5", refusal="game_over")
        if seat != self.seat:
            raise NotYourTurnError(
                f"it is seat {self.seat}'s turn, not seat {seat}'s", "RULES.md §5"
            )
        if move == DRAW:
            if self.drawn >= 0:
                raise IllegalMoveError(
                    f"you already drew {CODES[self.drawn]}; place it before anything else",
                    "RULES.md §5",
                    refusal="metro.drawn_first",
                    params={"tile": CODES[self.drawn]},
                )
            if self.deck_pos >= len(self.deck):
                raise IllegalMoveError(
                    "the deck is empty: place a tile from your hand",
                    "RULES.md §5",
                    refusal="metro.deck_empty",
                )
            return
        tile, sq = divmod(move, 64)
        if self.drawn >= 0:
            physical = self.drawn
            if tile not in (ROTATIONS[physical] if self.rules.rotation else (physical,)):
                raise IllegalMoveError(
                    f"you drew {CODES[physical]}: this turn you must place that tile",
                    "RULES.md §5",
                    refusal="metro.place_drawn",
                    params={"tile": CODES[physical]},
                )
        else:
            hand = self.hands[seat]
            fits = [h for h in hand if tile in (ROTATIONS[h] if self.rules.rotation else (h,))]
            if not fits:
                held = ", ".join(CODES[h] for h in hand) or "nothing"
                raise IllegalMoveError(
                    f"{CODES[tile]} is not in your hand (you hold {held})",
                    "RULES.md §5",
                    refusal="metro.not_in_hand",
                    params={"tile": CODES[tile], "held": ", ".join(CODES[h] for h in hand) or "—"},
                )
            physical = fits[0]
        for t, mask in self.placements_for(physical, seat):
            if t == tile and mask >> sq & 1:
                return
        message, rule, refusal, params = why_illegal(
            self.frontier, self.occupied, tile, sq, self.extend_mask(seat)
        )
        raise IllegalMoveError(message, rule, refusal=refusal, params=params)

    def play(self, seat: int, move: Mapping[str, Any]) -> dict[str, Any]:
        """Check and apply an API move for `seat`; return the public event (no hidden tile)."""
        m = self.parse_move(move)
        self.check(seat, m)
        before = self.ends[:]
        was_out = self.out[:]
        from_draw = self.drawn >= 0
        reshuffles = self.reshuffles
        self.apply_code(m)
        event: dict[str, Any] = {"seat": seat, "action": "draw" if m == DRAW else "place"}
        if m != DRAW:
            event["placement"] = move_text(m)
            event["drawn"] = from_draw
            completed = [
                {
                    "station": st,
                    "owner": self.owner[st] if self.owner[st] >= 0 else None,
                    "end": END_NAMES[self.ends[st]],
                    "points": self.route_points(st),
                }
                for st in range(1, 33)
                if before[st] == OPEN and self.ends[st] != OPEN
            ]
            if completed:
                event["completed"] = completed
        newly_out = [
            i for i, (a, b) in enumerate(zip(was_out, self.out, strict=True)) if b and not a
        ]
        if newly_out:
            event["out"] = newly_out
        if self.reshuffles != reshuffles:
            event["reshuffled"] = True
        event.update(
            turn=self.current_seat,
            to_move=list(self.to_move()),
            scores=self.scores[:],
            status="over" if self.is_over else "playing",
            deck_count=self.deck_count,
        )
        return event

    def route_points(self, station: int) -> int:
        end = self.ends[station]
        if end == OPEN:
            return 0
        return self.lengths[station] * (2 if end == ENDS_IN_CENTRE else 1)

    # ---- serialisation (the engine's storage; holds secrets) ------------------------------------

    def to_dict(self) -> dict[str, Any]:
        codes = CODES
        return {
            "format": "metro-state/1",
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "deck0": [codes[t] for t in self.deck0],
            "deck": [codes[t] for t in self.deck],
            "deck_pos": self.deck_pos,
            "hands": [[codes[t] for t in hand] for hand in self.hands],
            "seat": self.seat,
            "drawn": codes[self.drawn] if self.drawn >= 0 else None,
            "out": self.out[:],
            "reshuffles": self.reshuffles,
            "retirements": [
                [seat, at, when, None if redeck is None else [codes[t] for t in redeck]]
                for seat, at, when, redeck in self.retirements
            ],
            "history": [
                [
                    seat,
                    move_text(move),
                    codes[phys],
                    from_draw,
                    None if redeck is None else [codes[t] for t in redeck],
                ]
                for seat, move, phys, from_draw, redeck in self.history_entries()
            ],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MetroState:
        """Inverse of to_dict: the board and routes are rebuilt from the history."""
        if data.get("format") != "metro-state/1":
            raise ValueError("not a metro-state/1 document")
        rules = MetroRules.parse(data["rules"])
        s = cls.empty(rules, [INDEX[c] for c in data["deck0"]], int(data["seed"]))
        retirements: list[Retirement] = [
            (int(seat), int(at), int(when),
             None if redeck is None else tuple(INDEX[c] for c in redeck))
            for seat, at, when, redeck in data.get("retirements", ())
        ]  # fmt: skip
        node: tuple[Any, HistoryEntry] | None = None
        for i, (seat, placement, phys, from_draw, redeck) in enumerate(data["history"]):
            for r in retirements:
                if r[1] == i:  # retired before this placement: its later routes score nothing
                    s.retired_mask |= 1 << r[0]
            p = Placement.parse(placement)
            s._place(p.tile_index, p.square)
            move = p.tile_index * 64 + p.square
            entry: HistoryEntry = (
                seat,
                move,
                INDEX[phys],
                bool(from_draw),
                None if redeck is None else tuple(INDEX[c] for c in redeck),
            )
            node = (node, entry)
        s.history = node
        for r in retirements:
            s.retired_mask |= 1 << r[0]
        s.retirements = tuple(retirements)
        s.deck = [INDEX[c] for c in data["deck"]]
        s.deck_pos = int(data["deck_pos"])
        s.hands = [tuple(INDEX[c] for c in hand) for hand in data["hands"]]
        s.seat = int(data["seat"])
        s.drawn = INDEX[data["drawn"]] if data["drawn"] is not None else -1
        s.out = [bool(x) for x in data["out"]]
        s.reshuffles = int(data["reshuffles"])
        s.draws = (
            sum(1 for *_, from_draw, _redeck in data["history"] if from_draw)
            + sum(1 for r in retirements if r[2] == RETIRED_OWN_DRAWN)
            + (s.drawn >= 0)
        )
        return s
