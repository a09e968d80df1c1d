"""The position of one Metro game (RULES.md §4-§7) and the fast door into it.

The fast, unchecked door for search is `legal_moves(seat)` / `apply(seat, move)` with the typed
moves of moves.py (inside, `legal_codes()` / `apply_code(code)` on their integer codes). The
checked door (`play`), retirement and the stored form are state.py's (`MetroState`, this class
with them).

The state is plain data. Lists are copied on `copy()`; the deck list and the history (a chain
of tuples) are never mutated in place, so copies share them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Self

from games.base import Outcome
from games.metro.board import CENTRE, DEPARTURE, EDGE, NEIGHBOURS, OWNER, SQUARES, STEP
from games.metro.moves import DRAW, MOVES, MetroMove, move_text
from games.metro.placement import (
    INITIAL_FRONTIER,
    OK_MASK,
    legal_masks,
    nth_square,
    squares_of,
)
from games.metro.rollout import random_turns_classic
from games.metro.rules import MetroRules
from games.metro.tiles import CODES, EXIT, INDEX, ROTATION_CLASS, ROTATIONS, SET_COUNTER, TILE_SET

TILE_COUNT = len(TILE_SET)

# THROUGH[tile << 9 | square * 8 + entry]: where a train entering `square` by `entry` goes on
# once `tile` lies there (STEP after EXIT; one lookup for each step of a route being extended).
THROUGH: tuple[int, ...] = tuple(
    STEP[(pos & ~7) | EXIT[t * 8 + (pos & 7)]] for t in range(len(CODES)) for pos in range(512)
)

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

# The moves that place an oriented tile on a set of squares, by `squares << 5 | tile` (a pure
# function of the key, remembered for `legal_moves`; emptied when it holds this many).
_PLACEMENTS: dict[int, tuple[MetroMove, ...]] = {}
PLACEMENTS_CACHED = 20_000


class MetroPosition:
    """One game's board, routes, scores, deck, hands and whose turn it is, and the fast door;
    `MetroState` (state.py) is the whole game. Build one with `MetroState.new`."""

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
    __slots__ = tuple(__annotations__)  # every field, named once: in the annotations above

    # ---- creation ---------------------------------------------------------------------------

    @classmethod
    def empty(cls, rules: MetroRules, deck: list[int], seed: int = 0) -> Self:
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
    def deal(cls, rules: MetroRules, deck: list[int], seed: int = 0) -> Self:
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
    def new(cls, rules: MetroRules | Mapping[str, Any] | None, seed: int) -> Self:
        """A fresh game shuffled by `seed`; `rules` parsed first when given as the API's JSON
        (what `Game.new_state` hands every game's state class)."""
        if not isinstance(rules, MetroRules):
            rules = MetroRules.parse(rules)
        deck = [INDEX[code] for code in TILE_SET]
        random.Random(seed).shuffle(deck)
        return cls.deal(rules, deck, seed)

    def copy(self) -> Self:
        cls = type(self)
        s = cls.__new__(cls)
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

    def _masks(self) -> list[tuple[int, int]]:
        """[(oriented tile, squares)] the seat to move may place now, in `_tiles_to_place`
        order: `legal_masks` for each tile. The classic rules (no rotation, no online
        variant), which searches play most, read OK_MASK directly: this runs on every
        random move of every rollout."""
        rules = self.rules
        if rules.rotation or rules.online:
            extend = self.extend_mask(self.seat)
            frontier, rotation = self.frontier, rules.rotation
            return [
                placement
                for tile in self._tiles_to_place()
                for placement in legal_masks(frontier, tile, rotation, extend)
            ]
        frontier = self.frontier
        if self.drawn >= 0:
            tiles: Iterable[int] = (self.drawn,)
        else:
            tiles = self.hands[self.seat]
            if len(tiles) > 1:
                tiles = dict.fromkeys(tiles)
        # legal_masks with one orientation and no `extend`: rule (c) where it can hold, else (d)
        return [(t, m) for t in tiles if (m := frontier & OK_MASK[t] or frontier)]

    def legal_codes(self) -> list[int]:
        """Every legal move of the seat to move, as codes (placements, then DRAW)."""
        if self.seat < 0:
            return []
        moves: list[int] = []
        for t, mask in self._masks():
            base = t * 64
            while mask:
                low = mask & -mask
                moves.append(base + low.bit_length() - 1)
                mask ^= low
        if self.drawn < 0 and self.deck_pos < len(self.deck):
            moves.append(DRAW)
        return moves

    def legal_moves(self, seat: int) -> list[MetroMove]:
        """`legal_codes` as moves. A search asks again and again at the same nodes (the same
        board, another dealt tile), so each (tile, squares) pair's moves are remembered."""
        if seat != self.seat or seat < 0:
            return []
        moves: list[MetroMove] = []
        for t, mask in self._masks():
            key = mask << 5 | t
            placed = _PLACEMENTS.get(key)
            if placed is None:
                if len(_PLACEMENTS) >= PLACEMENTS_CACHED:
                    _PLACEMENTS.clear()
                placed = _PLACEMENTS[key] = tuple(MOVES[t * 64 + sq] for sq in squares_of(mask))
            moves += placed
        if self.drawn < 0 and self.deck_pos < len(self.deck):
            moves.append(MOVES[DRAW])
        return moves

    def random_code(self, rand: Any) -> int:
        """A uniformly random legal move code of the seat to move, without listing them all:
        count the squares of each placement mask and pick the k-th set bit (the k-th move of
        `legal_codes`, so the same `rand()` picks the same move)."""
        options = self._masks()
        if len(options) == 1:  # one tile to place (the usual hand of one): no list to walk
            oriented, mask = options[0]
            total = mask.bit_count()
            can_draw = self.drawn < 0 and self.deck_pos < len(self.deck)
            pick = int(rand() * (total + can_draw))
            return DRAW if pick >= total else oriented * 64 + nth_square(mask, pick)
        counts = [mask.bit_count() for _, mask in options]
        total = sum(counts)
        can_draw = self.drawn < 0 and self.deck_pos < len(self.deck)
        pick = int(rand() * (total + can_draw))
        if pick >= total:
            return DRAW
        for (oriented, mask), count in zip(options, counts, strict=True):
            if pick < count:
                return oriented * 64 + nth_square(mask, pick)
            pick -= count
        raise AssertionError("unreachable: pick < total")

    def random_move(self, seat: int, rand: Any) -> MetroMove:
        return MOVES[self.random_code(rand)]

    def random_turns(self, turns: int, max_moves: int, rand: Any) -> None:
        """Up to `turns` turns of uniformly random moves: exactly the moves that as many
        `random_move` and `apply` calls would make from the same `rand()` draws, without the
        calls between (a search's rollout: ismcts.py `_rollout`). One seat moves per turn, so
        `max_moves` (the rollout's cap on moves, >= `turns`) never cuts a Metro rollout short."""
        rules = self.rules
        if rules.online or rules.rotation or self.retired_mask or rules.hand_size != 1:
            random_code, apply_code = self.random_code, self.apply_code
            for _ in range(turns):
                if self.seat < 0:
                    return
                apply_code(random_code(rand))
            return
        random_turns_classic(self, turns, rand)

    # ---- chance -----------------------------------------------------------------------------

    def unseen(self, seat: int | None, entries: list[HistoryEntry] | None = None) -> Counter[str]:
        """Tiles `seat` has not seen (RULES.md §5): the set minus the board minus its own hand
        and drawn tile. `entries`: the history, when the caller has walked it already."""
        left = Counter(SET_COUNTER)
        for entry in self.history_entries() if entries is None else entries:
            left[CODES[entry[2]]] -= 1
        if seat is not None:
            for t in self.hands[seat]:
                left[CODES[t]] -= 1
            if self.seat == seat and self.drawn >= 0:
                left[CODES[self.drawn]] -= 1
        return +left

    def chance_outcomes(self, seat: int) -> list[tuple[str, float]]:
        """The next tile off the deck as `seat` sees it: [(tile code, probability)], sorted by
        code; [] when the deck is empty. Every tile the seat has not seen is as likely to be on
        top (the deck and the other hands are one shuffled pool to it, RULES.md §5), so a
        code's chance is its unseen count over the unseen total."""
        if self.deck_count == 0:
            return []
        left = self.unseen(seat)
        total = sum(left.values())
        return [(code, n / total) for code, n in sorted(left.items())]

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
        if self.rules.online or self.retired_mask:
            redeck = self._end_turn()
        else:  # `_end_turn` with nobody out and no tiles to put back
            redeck = None
            self._pass_turn()
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
        held = self.hands[seat]
        if len(held) == 1 and held[0] == tile:  # the usual hand of one: refill it
            deck, pos = self.deck, self.deck_pos
            if pos < len(deck):
                self.hands[seat] = (deck[pos],)
                self.deck_pos = pos + 1
            else:
                self.hands[seat] = ()
            return tile
        hand = list(held)
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
        occupied = self.occupied = self.occupied | 1 << sq
        self.frontier = (self.frontier | NEIGHBOURS[sq]) & ~occupied  # next_frontier, inline
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
                pos = THROUGH[t << 9 | pos]
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

    def __repr__(self) -> str:
        return (
            f"<MetroState players={self.rules.players} placed={self.placed} "
            f"seat={self.current_seat} scores={self.scores}>"
        )
