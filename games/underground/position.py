"""The position of one On the Underground game (RULES-UNDERGROUND.md §2-§4) and the fast door.

The fast door lists and applies the atomic steps of moves.py (`Rail`, `Stop`, `Leg`) by the
seat whose turn it is. `to_move()` stays `(seat,)` until the turn is complete. Skipped-rail
tokens are exact (see `building`): a rail is legal only if §3's up-front grant for a turn
stopping no earlier would pay every branch of the turn. `turn_number` counts public changes:
every applied step (rails, the stop, chosen legs) moves it, whichever door they came through;
`turns` counts complete turns. The checked door (`play`), retirement and the stored form are
state.py's (`UndergroundState`, this class with them).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any, Self

from games.base import Outcome
from games.errors import IllegalMoveError
from games.underground.building import lay, legal_rails
from games.underground.map import CONNECTION_SPOTS, Map, load_map
from games.underground.moves import Leg, Move, Rail, Stop
from games.underground.passenger import best_ways, mask_colours
from games.underground.rules import (
    COLOUR_INDEX,
    COLOURS,
    FACE_UP,
    LINES_PER_SEAT,
    SYMBOLS,
    UndergroundRules,
)

BUILD, ROUTE = 0, 1


@functools.lru_cache(maxsize=1 << 15)
def _best_ways(
    board: Map, lines: tuple[tuple[int, int], ...], source: int, targets: int
) -> tuple[tuple[int, int], ...]:
    """best_ways, remembered: the passenger's routes are a pure function of the board, the
    lines, the start and the targets, and a search's rollouts ask for the same ones again and
    again (they were ~60% of an Underground search's time, issue 34)."""
    return tuple(best_ways(board, lines, source, targets)[1])


class UndergroundPosition:
    """One game's rails, scores, tokens, cards, the passenger and whose turn it is, and the fast
    door; `UndergroundState` (state.py) is the whole game. Build one with `UndergroundState.new`
    or `deal_new`."""

    rules: UndergroundRules
    board: Map
    colour_names: tuple[str, ...]
    colours_of: tuple[tuple[int, ...], ...]
    owner: tuple[int, ...]
    connections: dict[str, str]
    symbol_at: list[int]
    symbol_partner: list[int]
    deal: list[int]
    drawn: int
    face_up: list[int]
    discard: list[int]
    passenger: int
    sec_colours: list[int]
    deg: list[int]
    on_line: list[int]
    rail_count: list[int]
    enclosed: list[int]
    symbols_scored: list[int]
    scores: list[int]
    tokens: list[int]
    seat: int
    turns: int
    steps: int
    phase: int
    laid: list[tuple[int, int]]
    t0: int
    net: int
    low: int
    leg: int
    ways: list[tuple[int, int]]
    legs_taken: list[tuple[int, int]]
    turn_gains: list[dict[str, Any]]
    rail_gains: list[list[dict[str, Any]]]  # what each rail on the board scored, in order laid
    cur_steps: list[dict[str, Any]]
    history: list[dict[str, Any]]
    plan: list[tuple[int, int]] | None
    auto_route: bool
    retired_mask: int  # bit s: seat s has retired (`retire`): score frozen, turns skipped
    seed: int
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    __slots__ = tuple(__annotations__)  # every field, named once: in the annotations above

    # ---- creation ---------------------------------------------------------------------------

    @classmethod
    def deal_new(
        cls,
        rules: UndergroundRules,
        connections: Mapping[str, str],
        destinations: Sequence[str],
        seed: int = 0,
    ) -> Self:
        """A game ready for seat 0 with the connection tokens and the card order given."""
        board = load_map(rules.map)
        s = cls.__new__(cls)
        n = rules.players
        per = LINES_PER_SEAT[n]
        s.rules = rules
        s.board = board
        s.colour_names = COLOURS
        s.colours_of = tuple(tuple(range(i * per, (i + 1) * per)) for i in range(n))
        owner = [-1] * len(COLOURS)
        for seat, cols in enumerate(s.colours_of):
            for c in cols:
                owner[c] = seat
        s.owner = tuple(owner)
        s.connections = {spot: connections[spot] for spot in CONNECTION_SPOTS}
        s.symbol_at = [-1] * board.size
        by_symbol: dict[int, list[int]] = {}
        for spot, sym in s.connections.items():
            i = board.index[spot]
            s.symbol_at[i] = SYMBOLS.index(sym)
            by_symbol.setdefault(SYMBOLS.index(sym), []).append(i)
        s.symbol_partner = [-1] * board.size
        for pair in by_symbol.values():
            a, b = pair
            s.symbol_partner[a], s.symbol_partner[b] = b, a
        s.deal = [board.index[d] for d in destinations]
        s.drawn = FACE_UP
        s.face_up = s.deal[:FACE_UP]
        s.discard = []
        s.passenger = board.start
        s.sec_colours = [0] * len(board.sections)
        s.deg = [0] * (len(COLOURS) * board.size)
        s.on_line = [0] * len(COLOURS)
        s.rail_count = [0] * len(COLOURS)
        s.enclosed = [0] * len(COLOURS)
        s.symbols_scored = [0] * len(COLOURS)
        s.scores = list(range(n))
        s.tokens = [0] * n
        s.seat = 0
        s.turns = 0
        s.steps = 0
        s.history = []
        s.rail_gains = []
        s.plan = None
        s.auto_route = False
        s.retired_mask = 0
        s.seed = seed
        s.xs = tuple(st.x for st in board.stations)
        s.ys = tuple(st.y for st in board.stations)
        s._begin_turn()
        return s

    @classmethod
    def new(cls, rules: UndergroundRules | Mapping[str, Any] | None, seed: int) -> Self:
        """Set-up (§2): connection tokens shuffled onto the spots, the 55 cards shuffled;
        `rules` parsed first when given as the API's JSON (as `Game.new_state` hands them)."""
        if not isinstance(rules, UndergroundRules):
            rules = UndergroundRules.parse(rules)
        board = load_map(rules.map)
        rng = random.Random(seed)
        symbols = [c for c in SYMBOLS for _ in range(2)]
        rng.shuffle(symbols)
        connections = dict(zip(CONNECTION_SPOTS, symbols, strict=True))
        cards = [board.sid(i) for i in board.destinations]
        rng.shuffle(cards)
        return cls.deal_new(rules, connections, cards, seed)

    def copy(self) -> Self:
        """An independent copy: every list is copied (one level: the dicts in them are never
        changed in place), except the symbol tables, fixed once dealt. Written out, as the AI
        copies a state for every move it weighs."""
        cls = type(self)
        s = cls.__new__(cls)
        self._copy_into(s)
        return s

    def _copy_into(self, s: UndergroundPosition) -> None:
        s.rules = self.rules
        s.board = self.board
        s.colour_names = self.colour_names
        s.colours_of = self.colours_of
        s.owner = self.owner
        s.connections = self.connections
        s.symbol_at = self.symbol_at
        s.symbol_partner = self.symbol_partner
        s.deal = self.deal[:]
        s.drawn = self.drawn
        s.face_up = self.face_up[:]
        s.discard = self.discard[:]
        s.passenger = self.passenger
        s.sec_colours = self.sec_colours[:]
        s.deg = self.deg[:]
        s.on_line = self.on_line[:]
        s.rail_count = self.rail_count[:]
        s.enclosed = self.enclosed[:]
        s.symbols_scored = self.symbols_scored[:]
        s.scores = self.scores[:]
        s.tokens = self.tokens[:]
        s.seat = self.seat
        s.turns = self.turns
        s.steps = self.steps
        s.phase = self.phase
        s.laid = self.laid[:]
        s.t0 = self.t0
        s.net = self.net
        s.low = self.low
        s.leg = self.leg
        s.ways = self.ways[:]
        s.legs_taken = self.legs_taken[:]
        s.turn_gains = self.turn_gains[:]
        s.rail_gains = self.rail_gains[:]
        s.cur_steps = self.cur_steps[:]
        s.history = self.history[:]
        s.plan = None if self.plan is None else self.plan[:]
        s.auto_route = self.auto_route
        s.retired_mask = self.retired_mask
        s.seed = self.seed
        s.xs = self.xs
        s.ys = self.ys

    def _assign(self, other: UndergroundPosition) -> None:
        """Take every field of `other` (a trial copy that passed its checks)."""
        other._copy_into(self)

    def _begin_turn(self) -> None:
        self.phase = BUILD
        self.laid = []
        self.t0 = self.tokens[self.seat] if self.seat >= 0 else 0
        self.net = 0
        self.low = 0
        self.leg = 0
        self.ways = []
        self.legs_taken = []
        self.turn_gains = []
        self.cur_steps = []

    # ---- what everyone can ask --------------------------------------------------------------

    @property
    def seat_count(self) -> int:
        return self.rules.players

    @property
    def is_over(self) -> bool:
        return self.seat < 0

    @property
    def turn_number(self) -> int:
        return self.steps

    @property
    def retired(self) -> tuple[int, ...]:
        return tuple(m["seat"] for m in self.history if m.get("action") == "retire")

    @property
    def pile_count(self) -> int:
        return len(self.deal) - self.drawn

    def to_move(self) -> tuple[int, ...]:
        return () if self.seat < 0 else (self.seat,)

    def held_tokens(self, seat: int) -> int:
        """Branch tokens `seat` holds; for the seat building now, what it would hold if it
        stopped now (the grant for the rails it has not laid included)."""
        if seat == self.seat and self.phase == BUILD:
            return self.t0 + self.net + (4 - len(self.laid))
        return self.tokens[seat]

    def colour_neighbours(self, colour: int) -> Callable[[int], Iterator[int]]:
        """Neighbours along the colour's rails, for the loop search."""
        board = self.board
        sec_colours = self.sec_colours
        bit = 1 << colour

        def nbrs(s: int) -> Iterator[int]:
            for j, k in board.neighbours[s]:
                if sec_colours[k] & bit:
                    yield j

        return nbrs

    def rail_of(self, colour: int, sec: int) -> Rail:
        section = self.board.sections[sec]
        return Rail.of(COLOURS[colour], self.board.sid(section.a), self.board.sid(section.b))

    def lines(self) -> list[tuple[int, int]]:
        return [(1 << c, m) for c, m in enumerate(self.on_line) if m]

    def leg_of(self, way: tuple[int, int]) -> Leg:
        return Leg(self.board.sid(way[0]), tuple(COLOURS[c] for c in mask_colours(way[1])))

    # ---- the fast door ----------------------------------------------------------------------

    def legal_moves(self, seat: int) -> list[Move]:
        if seat != self.seat:
            return []
        if self.phase == ROUTE:
            return [self.leg_of(w) for w in self.ways]
        moves: list[Move] = [self.rail_of(c, k) for c, k in legal_rails(self, seat)]
        moves.append(Stop())
        return moves

    def random_move(self, seat: int, rand: Callable[[], float]) -> Move:
        """The move legal_moves(seat)[int(rand() * n)] would give, without making the others
        (a rollout's every step: building each rail's Rail was ~25% of a search, issue 34)."""
        if seat != self.seat or self.phase == ROUTE:
            moves = self.legal_moves(seat)
            return moves[int(rand() * len(moves))]
        rails = legal_rails(self, seat)
        pick = int(rand() * (len(rails) + 1))
        if pick == len(rails):
            return Stop()
        return self.rail_of(*rails[pick])

    def apply(self, seat: int, move: Any) -> None:
        self.steps += 1
        self.cur_steps.append(move.to_json())
        if isinstance(move, Rail):
            board = self.board
            c = COLOUR_INDEX[move.colour]
            sec = board.section(board.index[move.a], board.index[move.b])
            assert sec is not None
            gains = lay(self, seat, c, sec)
            self.rail_gains.append(gains)
            self.turn_gains.extend(gains)
        elif isinstance(move, Stop):
            self._stop()
        else:
            board = self.board
            mask = 0
            for name in move.lines:
                mask |= 1 << COLOUR_INDEX[name]
            self._take_leg((board.index[move.to], mask))
            self._advance_legs()

    def _stop(self) -> None:
        seat = self.seat
        skip = 4 - len(self.laid)
        self.tokens[seat] = self.t0 + skip + self.net
        if skip:
            self.turn_gains.append({"seat": seat, "reason": "skip", "points": 0, "tokens": skip})
        self.leg = 0
        self._advance_legs()

    def _advance_legs(self) -> None:
        board = self.board
        while self.leg < 2 and self.passenger >= 0:
            want = board.express_mask if self.leg == 0 else board.normal_mask
            targets = 0
            for card in self.face_up:
                if want >> card & 1:
                    targets |= 1 << card
            if not targets:
                self.leg += 1
                continue
            ways = list(_best_ways(board, tuple(self.lines()), self.passenger, targets))
            plan = self.plan
            if plan is not None and len(self.legs_taken) < len(plan):
                wanted = plan[len(self.legs_taken)]
                if wanted not in ways:
                    leg = self.leg_of(wanted)
                    options = "; ".join(
                        f"{w.to} by {'+'.join(w.lines) or 'walking'}"
                        for w in map(self.leg_of, ways)
                    )
                    raise IllegalMoveError(
                        f"leg {len(self.legs_taken)} to {leg.to} riding "
                        f"{list(leg.lines)} is not a best way; the best: {options}",
                        "RULES-UNDERGROUND.md §3 (the passenger)",
                        refusal="underground.not_a_best_way",
                        params={"to": board.stations[board.index[leg.to]].name},
                    )
                self.steps += len(ways) > 1  # a choice among ties: one step, as in the fast door
                self._take_leg(wanted)
                continue
            if len(ways) == 1 or self.auto_route:
                self.steps += len(ways) > 1
                self._take_leg(ways[0])
                continue
            self.phase = ROUTE
            self.ways = ways
            return
        self._finish_turn()

    def _take_leg(self, way: tuple[int, int]) -> None:
        to, mask = way
        for c in mask_colours(mask):
            owner = self.owner[c]
            if self.retired_mask >> owner & 1:
                continue  # the passenger rides a retired seat's line; its score is frozen
            self.scores[owner] += 1
            self.turn_gains.append({"seat": owner, "colour": COLOURS[c], "reason": "ride",
                                    "points": 1, "station": self.board.sid(to)})  # fmt: skip
        self.passenger = to
        if to in self.face_up:
            self.face_up.remove(to)
            self.discard.append(to)
        self.legs_taken.append(way)
        self.leg += 1
        self.phase = BUILD
        self.ways = []

    def _finish_turn(self, entry: dict[str, Any] | None = None) -> None:
        """End the turn: refill the face-up cards (§3), record the turn (or `entry`, the
        retirement that cut it short) and pass to the next seat in play, or end the game."""
        if self.passenger >= 0:
            while len(self.face_up) < FACE_UP and self.drawn < len(self.deal):
                self.face_up.append(self.deal[self.drawn])
                self.drawn += 1
            if self.drawn >= len(self.deal):
                self.passenger = -1  # §4: the pile is empty, the passenger leaves at once
        if entry is None:
            entry = {
                "seat": self.seat,
                "rails": [self.rail_of(c, k).rail_json() for c, k in self.laid],
                "route": [self.leg_of(w).leg_json() for w in self.legs_taken],
            }
        self.history.append(entry)
        self.turns += 1
        self.seat = self._next_seat()
        self.phase = BUILD
        self.laid = []
        self.cur_steps = []
        self.turn_gains = []
        self.legs_taken = []
        if self.seat >= 0:
            self.t0 = self.tokens[self.seat]
            self.net = 0
            self.low = 0
            self.leg = 0
            self.ways = []

    def _next_seat(self) -> int:
        """The seat after the mover that is still in play; -1 when the game ends: back at seat
        0 after the passenger left (§4), or fewer than two seats left in play (`retire`)."""
        n, gone = self.rules.players, self.retired_mask
        if gone and n - gone.bit_count() < 2:
            return -1
        nxt = self.seat
        while True:
            nxt = (nxt + 1) % n
            if self.passenger < 0 and nxt == 0:
                return -1
            if not gone >> nxt & 1:
                return nxt

    # ---- chance -----------------------------------------------------------------------------

    def chance_outcomes(self, seat: int) -> list[tuple[Hashable, float]]:
        """The next destination card drawn: every card of the pile is equally likely."""
        if self.seat < 0 or self.passenger < 0:
            return []
        pile = self.deal[self.drawn :]
        if not pile:
            return []
        p = 1.0 / len(pile)
        return [(sid, p) for sid in sorted(self.board.sid(i) for i in pile)]

    def force_chance(self, outcome: Hashable) -> None:
        """Put the card of station `outcome` on top of the pile."""
        i = self.board.index[str(outcome)]
        deal = self.deal[:]
        j = deal.index(i, self.drawn)
        deal[self.drawn], deal[j] = deal[j], deal[self.drawn]
        self.deal = deal

    # ---- what leaves the rules core ---------------------------------------------------------

    def outcome(self) -> Outcome | None:
        return Outcome.from_scores(self.scores, self.retired) if self.is_over else None

    def __repr__(self) -> str:
        return (
            f"<{type(self).__name__} players={self.rules.players} turns={self.turns} "
            f"seat={self.seat} scores={self.scores}>"
        )
