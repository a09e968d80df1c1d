"""The state of one Metro game (RULES.md §4-§7) and the two doors into it.

The fast, unchecked door for search is `legal_moves(seat)` / `apply(seat, move)` with the typed
moves of moves.py (inside, `legal_codes()` / `apply_code(code)` on their integer codes).
`play(seat, move_dict)` is the checked door for untrusted input: it parses, names the rule a
refused move breaks, and leaves the state untouched then.

The state is plain data. Lists are copied on `copy()`; the deck list and the history (a chain
of tuples) are never mutated in place, so copies share them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.base import Outcome, check_retire
from games.errors import IllegalMoveError, NotYourTurnError
from games.metro.board import CENTRE, DEPARTURE, EDGE, OWNER, SQUARES, STEP
from games.metro.moves import DRAW, MOVES, MetroMove, move_text
from games.metro.options import MetroRules
from games.metro.placement import (
    INITIAL_FRONTIER,
    legal_masks,
    next_frontier,
    why_illegal,
)
from games.metro.tiles import CODES, EXIT, INDEX, ROTATION_CLASS, ROTATIONS, TILE_SET, Placement

TILE_COUNT = len(TILE_SET)

OPEN, ENDS_AT_EDGE, ENDS_IN_CENTRE = 0, 1, 2
END_NAMES = ("open", "edge", "centre")

# One history entry per placement: (seat, move, physical tile, came from a draw, redeck or None).
HistoryEntry = tuple[int, int, int, bool, "tuple[int, ...] | None"]
# One entry per retired seat (`retire`): (seat, placements before it, when (one of RETIRED_*),
# the new deck order when its tiles went back at once, else None).
Retirement = tuple[int, int, int, "tuple[int, ...] | None"]
# When a seat retired: on another seat's turn (its tiles go back at once); on its own turn,
# before or after drawing a tile (the turn passes); on another seat's turn while that seat held
# a tile it drew (its tiles go back when that turn ends, so that the deck the drawer drew from
# is not reshuffled under it).
RETIRED_OTHER, RETIRED_OWN, RETIRED_OWN_DRAWN, RETIRED_DURING_DRAW = range(4)


class MetroState:
    """One game: board, routes, scores, deck, hands and whose turn it is."""

    __slots__ = (
        "board",
        "deck",
        "deck0",
        "deck_pos",
        "drawn",
        "draws",
        "ends",
        "frontier",
        "hands",
        "heads",
        "history",
        "lengths",
        "occupied",
        "open_routes",
        "out",
        "owner",
        "placed",
        "reshuffles",
        "retired_mask",
        "retirements",
        "rules",
        "scores",
        "seat",
        "seed",
        "waiting",
    )

    rules: MetroRules
    owner: tuple[int, ...]
    board: list[int]
    occupied: int
    frontier: int
    heads: list[int]
    waiting: list[tuple[int, ...]]
    lengths: list[int]
    ends: list[int]
    scores: list[int]
    open_routes: list[int]
    deck: list[int]
    deck0: tuple[int, ...]
    deck_pos: int
    hands: list[tuple[int, ...]]
    seat: int
    drawn: int
    draws: int
    placed: int
    out: list[bool]
    history: tuple[Any, HistoryEntry] | None
    seed: int
    reshuffles: int
    retired_mask: int  # bit s: seat s has retired (score frozen, turns skipped)
    retirements: tuple[Retirement, ...]

    # ---- creation ---------------------------------------------------------------------------

    @classmethod
    def empty(cls, rules: MetroRules, deck: list[int], seed: int = 0) -> MetroState:
        """The board before any tile, with `deck` in draw order and nothing dealt."""
        s = cls.__new__(cls)
        n = rules.players
        s.rules = rules
        s.owner = OWNER[n]
        s.board = [-1] * SQUARES
        s.occupied = 0
        s.frontier = INITIAL_FRONTIER
        s.heads = list(DEPARTURE)
        waiting: list[list[int]] = [[] for _ in range(SQUARES)]
        for station in range(1, 33):
            waiting[DEPARTURE[station] >> 3].append(station)
        s.waiting = [tuple(w) for w in waiting]
        s.lengths = [0] * 33
        s.ends = [OPEN] * 33
        s.scores = [0] * n
        s.open_routes = [0] * n
        for station in range(1, 33):
            if s.owner[station] >= 0:
                s.open_routes[s.owner[station]] += 1
        s.deck = deck
        s.deck0 = tuple(deck)
        s.deck_pos = 0
        s.hands = [() for _ in range(n)]
        s.seat = 0
        s.drawn = -1
        s.draws = 0
        s.placed = 0
        s.out = [False] * n
        s.history = None
        s.seed = seed
        s.reshuffles = 0
        s.retired_mask = 0
        s.retirements = ()
        return s

    @classmethod
    def deal(cls, rules: MetroRules, deck: list[int], seed: int = 0) -> MetroState:
        """A game ready for seat 0: tiles dealt one at a time in seat order (§5)."""
        s = cls.empty(rules, deck, seed)
        hands: list[list[int]] = [[] for _ in range(rules.players)]
        for _ in range(rules.hand_size):
            for hand in hands:
                hand.append(deck[s.deck_pos])
                s.deck_pos += 1
        s.hands = [tuple(h) for h in hands]
        return s

    @classmethod
    def new(cls, rules: MetroRules, seed: int) -> MetroState:
        deck = [INDEX[code] for code in TILE_SET]
        random.Random(seed).shuffle(deck)
        return cls.deal(rules, deck, seed)

    def copy(self) -> MetroState:
        s = MetroState.__new__(MetroState)
        s.rules = self.rules
        s.owner = self.owner
        s.board = self.board[:]
        s.occupied = self.occupied
        s.frontier = self.frontier
        s.heads = self.heads[:]
        s.waiting = self.waiting[:]
        s.lengths = self.lengths[:]
        s.ends = self.ends[:]
        s.scores = self.scores[:]
        s.open_routes = self.open_routes[:]
        s.deck = self.deck
        s.deck0 = self.deck0
        s.deck_pos = self.deck_pos
        s.hands = self.hands[:]
        s.seat = self.seat
        s.drawn = self.drawn
        s.draws = self.draws
        s.placed = self.placed
        s.out = self.out[:]
        s.history = self.history
        s.seed = self.seed
        s.reshuffles = self.reshuffles
        s.retired_mask = self.retired_mask
        s.retirements = self.retirements
        return s

    # ---- what everyone can ask --------------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.seat < 0

    @property
    def current_seat(self) -> int | None:
        return None if self.seat < 0 else self.seat

    @property
    def seat_count(self) -> int:
        return self.rules.players

    @property
    def deck_count(self) -> int:
        return len(self.deck) - self.deck_pos

    def extend_mask(self, seat: int) -> int | None:
        """Online variant: squares the seat's open routes run into; None in the classic rules."""
        if not self.rules.online:
            return None
        mask = 0
        owner, ends, heads = self.owner, self.ends, self.heads
        for station in range(1, 33):
            if owner[station] == seat and ends[station] == OPEN:
                mask |= 1 << (heads[station] >> 3)
        return mask

    def placements_for(self, tile: int, seat: int | None = None) -> list[tuple[int, int]]:
        """[(oriented tile, squares mask)] where the physical `tile` may go now for `seat`."""
        who = self.seat if seat is None else seat
        return legal_masks(self.frontier, tile, self.rules.rotation, self.extend_mask(who))

    def to_move(self) -> tuple[int, ...]:
        return () if self.seat < 0 else (self.seat,)

    @property
    def turn_number(self) -> int:
        """Moves made so far, draws included, and turns passed by a retiring seat to move:
        every move changes what everyone sees."""
        if not self.retirements:
            return self.placed + self.draws
        own = (RETIRED_OWN, RETIRED_OWN_DRAWN)
        return self.placed + self.draws + sum(1 for r in self.retirements if r[2] in own)

    @property
    def retired(self) -> tuple[int, ...]:
        return tuple(r[0] for r in self.retirements)

    def outcome(self) -> Outcome | None:
        return Outcome.from_scores(self.scores, self.retired) if self.seat < 0 else None

    def _tiles_to_place(self) -> tuple[int, ...]:
        """The physical tiles the seat to move may place, one per distinct set of placements:
        the drawn tile alone; else the hand, without repeats (under `rotation`, tiles that are
        turns of one another have the same placements and count once). The one source of
        "which moves are legal" for both `legal_codes` and `random_move`."""
        if self.drawn >= 0:
            return (self.drawn,)
        hand = self.hands[self.seat]
        if len(hand) < 2:
            return hand
        if self.rules.rotation:
            by_shape: dict[int, int] = {}
            for t in hand:
                by_shape.setdefault(ROTATION_CLASS[t], t)
            return tuple(by_shape.values())
        return tuple(dict.fromkeys(hand))

    def legal_codes(self) -> list[int]:
        """Every legal move of the seat to move, as codes (placements, then DRAW)."""
        if self.seat < 0:
            return []
        extend = self.extend_mask(self.seat)
        rotation = self.rules.rotation
        moves: list[int] = []
        for tile in self._tiles_to_place():
            for t, mask in legal_masks(self.frontier, tile, rotation, extend):
                base = t * 64
                while mask:
                    low = mask & -mask
                    moves.append(base + low.bit_length() - 1)
                    mask ^= low
        if self.drawn < 0 and self.deck_pos < len(self.deck):
            moves.append(DRAW)
        return moves

    def legal_moves(self, seat: int) -> list[MetroMove]:
        if seat != self.seat:
            return []
        return [MOVES[c] for c in self.legal_codes()]

    def random_code(self, rand: Any) -> int:
        """A uniformly random legal move code of the seat to move, without listing them all:
        count the squares of each placement mask and pick the k-th set bit."""
        extend = self.extend_mask(self.seat)
        rotation = self.rules.rotation
        options = []
        total = 0
        for tile in self._tiles_to_place():
            for oriented, mask in legal_masks(self.frontier, tile, rotation, extend):
                count = mask.bit_count()
                options.append((oriented, mask, count))
                total += count
        can_draw = self.drawn < 0 and self.deck_pos < len(self.deck)
        pick = int(rand() * (total + can_draw))
        if pick >= total:
            return DRAW
        for oriented, mask, count in options:
            if pick < count:
                for _ in range(pick):
                    mask &= mask - 1  # drop the lowest set square
                return oriented * 64 + (mask & -mask).bit_length() - 1
            pick -= count
        raise AssertionError("unreachable: pick < total")

    def random_move(self, seat: int, rand: Any) -> MetroMove:
        return MOVES[self.random_code(rand)]

    # ---- chance -----------------------------------------------------------------------------

    def chance_outcomes(self, seat: int) -> list[tuple[str, float]]:
        """The next tile off the deck as `seat` sees it: every tile it has not seen is as
        likely as its count (RULES.md §5). [] when the deck is empty."""
        from games.metro.chance import draw_outcomes

        return draw_outcomes(self, seat)

    def force_chance(self, outcome: Any) -> None:
        """Put a tile of code `outcome` on top of the deck, swapping it with the top tile from
        wherever it is hidden (deeper in the deck, or another seat's hand)."""
        tile = INDEX[outcome]
        if self.deck_pos >= len(self.deck) or self.deck[self.deck_pos] == tile:
            return
        deck = self.deck[:]  # shared with copies: never changed in place
        top = deck[self.deck_pos]
        if tile in deck[self.deck_pos :]:
            at = deck.index(tile, self.deck_pos)
            deck[at], deck[self.deck_pos] = top, tile
        else:
            for s, hand in enumerate(self.hands):
                if s != self.seat and tile in hand:
                    held = list(hand)
                    held[held.index(tile)] = top
                    self.hands[s] = tuple(held)
                    deck[self.deck_pos] = tile
                    break
            else:
                raise ValueError(f"no hidden {outcome} to draw")
        self.deck = deck

    # ---- the fast door ----------------------------------------------------------------------

    def apply(self, seat: int, move: MetroMove) -> None:
        """Apply a move from `legal_moves(seat)` without checking it (search only)."""
        self.apply_code(move.code)

    def apply_code(self, move: int) -> None:
        """Apply a move code from `legal_codes()` without checking it."""
        if move == DRAW:
            self.drawn = self.deck[self.deck_pos]
            self.deck_pos += 1
            self.draws += 1
            return
        tile, sq = divmod(move, 64)
        seat = self.seat
        if self.drawn >= 0:
            physical, from_draw = self.drawn, True
            self.drawn = -1
        else:
            physical, from_draw = self._take_from_hand(seat, tile), False
        self._place(tile, sq)
        redeck = self._end_turn()
        self.history = (self.history, (seat, move, physical, from_draw, redeck))

    def put(self, tile: int, sq: int, physical: int | None = None) -> None:
        """Lay a tile on the board with no turn or hand bookkeeping: for setting up positions
        (queries, sampled worlds, tests). The caller is responsible for its legality."""
        self._place(tile, sq)
        entry: HistoryEntry = (
            self.seat,
            tile * 64 + sq,
            tile if physical is None else physical,
            False,
            None,
        )
        self.history = (self.history, entry)

    def _take_from_hand(self, seat: int, tile: int) -> int:
        """Remove the physical tile that `tile` (as oriented) came from; refill the hand."""
        hand = list(self.hands[seat])
        # A rotated placement comes from the hand tile it is an orientation of.
        physical = tile if tile in hand else next(h for h in hand if tile in ROTATIONS[h])
        hand.remove(physical)
        if self.deck_pos < len(self.deck):
            hand.append(self.deck[self.deck_pos])
            self.deck_pos += 1
        self.hands[seat] = tuple(hand)
        return physical

    def _place(self, tile: int, sq: int) -> None:
        """Put a tile on the board and run every route waiting at that square onward."""
        board = self.board
        board[sq] = tile
        self.occupied |= 1 << sq
        self.frontier = next_frontier(self.frontier, self.occupied, sq)
        waiting = self.waiting
        stations = waiting[sq]
        waiting[sq] = ()
        heads, lengths = self.heads, self.lengths
        for station in stations:
            pos = heads[station]
            n = lengths[station]
            while True:
                at = pos >> 3
                t = board[at]
                if t < 0:
                    heads[station] = pos
                    lengths[station] = n
                    waiting[at] = (*waiting[at], station)
                    break
                n += 1
                pos = STEP[(pos & ~7) | EXIT[t * 8 + (pos & 7)]]
                if pos < 0:
                    lengths[station] = n
                    self._complete(station, n, pos)
                    break
        self.placed += 1

    def _complete(self, station: int, length: int, end: int) -> None:
        self.ends[station] = ENDS_AT_EDGE if end == EDGE else ENDS_IN_CENTRE
        self.heads[station] = -1
        owner = self.owner[station]
        if owner >= 0:
            if not self.retired_mask >> owner & 1:  # a retired seat's score is frozen
                self.scores[owner] += length * 2 if end == CENTRE else length
            self.open_routes[owner] -= 1

    def _end_turn(self) -> tuple[int, ...] | None:
        """Pass the turn (§5), retiring finished players in the online variant (§7), and put
        back the tiles of a seat that retired during this turn's draw (`retire`)."""
        returned = self._retire_finished() if self.rules.online else []
        if self.retired_mask:
            for seat in range(self.rules.players):
                if self.retired_mask >> seat & 1 and self.hands[seat]:
                    returned.extend(self.hands[seat])
                    self.hands[seat] = ()
        redeck = self._redeck(returned) if returned else None
        self._pass_turn()
        return redeck

    def _pass_turn(self) -> None:
        """The next seat that is not out and can move takes the turn, or the game ends: all
        tiles placed, (online) nobody has an open route, or fewer than two seats are left in
        play after retirements (`retire`)."""
        n = self.rules.players
        if (
            self.placed == TILE_COUNT
            or (self.rules.online and all(self.out))
            or (self.retired_mask and n - self.retired_mask.bit_count() < 2)
        ):
            self.seat = -1
            return
        nxt = self.seat
        for _ in range(n):
            nxt = (nxt + 1) % n
            if not self.out[nxt] and (self.hands[nxt] or self.deck_pos < len(self.deck)):
                self.seat = nxt
                return
        self.seat = -1  # nobody can move: only reachable when no tile is left to place

    def _retire_finished(self) -> list[int]:
        """Online: players with no open route are out; their hands go back (the caller
        reshuffles the deck, recorded as "redeck"). Returns the tiles that go back."""
        returned: list[int] = []
        for seat in range(self.rules.players):
            if not self.out[seat] and self.open_routes[seat] == 0:
                self.out[seat] = True
                returned.extend(self.hands[seat])
                self.hands[seat] = ()
        return returned

    def _redeck(self, returned: list[int]) -> tuple[int, ...]:
        """Put `returned` tiles back into the deck and reshuffle it (§7); the new order."""
        deck = self.deck[self.deck_pos :] + returned
        self.reshuffles += 1
        random.Random(f"{self.seed}:{self.reshuffles}").shuffle(deck)
        self.deck, self.deck_pos = deck, 0
        return tuple(deck)

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

    # ---- history ----------------------------------------------------------------------------

    def history_entries(self) -> list[HistoryEntry]:
        """Placements in the order they were made."""
        out: list[HistoryEntry] = []
        node = self.history
        while node is not None:
            node, entry = node
            out.append(entry)
        out.reverse()
        return out

    def board_placements(self) -> list[str]:
        """The placed tiles in placement order, in the notation of §8."""
        return [move_text(entry[1]) for entry in self.history_entries()]

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

    # ---- views, records (thin wrappers so the state meets games.base.GameState) -------------

    def view(self, seat: int | None) -> dict[str, Any]:
        from games.metro.view import view

        return view(self, seat)

    def record(self) -> dict[str, Any]:
        from games.metro.record import export

        return export(self)

    def __repr__(self) -> str:
        return (
            f"<MetroState players={self.rules.players} placed={self.placed} "
            f"seat={self.current_seat} scores={self.scores}>"
        )
