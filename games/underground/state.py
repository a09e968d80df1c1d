"""The state of one On the Underground game (RULES-UNDERGROUND.md §2-§4) and the two doors.

A whole turn (up to 4 rails, then the passenger's route) is far too big to list, so the fast
door splits it into atomic steps by the same seat, OpenSpiel-style:

- `Rail(colour, a, b)`: lay one rail (a < b by id), JSON `{"step": "rail", "colour", "a", "b"}`;
- `Stop()`: end the building, JSON `{"step": "stop"}`; the passenger then moves, and each leg
  with a single best way is taken at once;
- `Leg(to, lines)`: when a leg has tied best ways, the mover picks one, JSON
  `{"step": "route", "to", "lines"}`.

`to_move()` stays `(seat,)` until the turn is complete. Skipped-rail tokens are exact (see
`building`): a rail is legal only if §3's up-front grant for a turn stopping no earlier would
pay every branch of the turn. `turn_number` counts public changes: every applied step (rails,
the stop, chosen legs) moves it, whichever door they came through; `turns` counts complete turns.

The checked door `play(seat, json)` takes either a whole turn in §3's form
(`{"rails": [...], "route": [...]}`, only at the start of a turn; `route` may be omitted, or give
fewer legs than were taken: the others take the first tied way) or one atomic step (`{"step":
...}`). It checks everything on a copy and leaves the state unchanged when it refuses.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from games.errors import (
    IllegalMoveError,
    InvalidMoveError,
    NotYourTurnError,
    RulesError,
)
from games.underground.building import RULE, lay, legal_rails, why_illegal
from games.underground.map import CONNECTION_SPOTS, MAP_IDS, Map, load_map
from games.underground.passenger import best_ways, mask_colours

COLOURS = (
    "red",
    "yellow",
    "blue",
    "purple",
    "black",
    "pink",
    "orange",
    "green",
    "brown",
    "white",
    "grey",
)
COLOUR_INDEX = {c: i for i, c in enumerate(COLOURS)}
LINES_PER_SEAT = {2: 4, 3: 3, 4: 2, 5: 2}
SYMBOLS = "abcd"
FACE_UP = 4
BUILD, ROUTE = 0, 1
EXPRESS, NORMAL = "express", "normal"


@dataclass(frozen=True, slots=True)
class UndergroundRules:
    players: int = 2
    map: str = "london"

    @classmethod
    def parse(cls, data: Mapping[str, Any] | None) -> UndergroundRules:
        data = {} if data is None else data
        if not isinstance(data, Mapping):
            raise RulesError("rules must be a JSON object", "rules")
        unknown = sorted(set(data) - {"players", "map"})
        if unknown:
            raise RulesError(f"unknown option {unknown[0]!r}", unknown[0])
        players = data.get("players", 2)
        if type(players) is not int or not 2 <= players <= 5:
            raise RulesError(f"players must be 2-5, got {players!r}", "players")
        map_id = data.get("map", "london")
        if map_id not in MAP_IDS:
            raise RulesError(f"unknown map {map_id!r}; known maps: london", "map")
        return cls(players, map_id)

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "map": self.map}


@dataclass(frozen=True, slots=True)
class Rail:
    colour: str
    a: str
    b: str

    @classmethod
    def of(cls, colour: str, a: str, b: str) -> Rail:
        return cls(colour, a, b) if a <= b else cls(colour, b, a)

    def to_json(self) -> dict[str, Any]:
        return {"step": "rail", "colour": self.colour, "a": self.a, "b": self.b}

    def rail_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "a": self.a, "b": self.b}


@dataclass(frozen=True, slots=True)
class Stop:
    def to_json(self) -> dict[str, Any]:
        return {"step": "stop"}


@dataclass(frozen=True, slots=True)
class Leg:
    to: str
    lines: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"step": "route", "to": self.to, "lines": list(self.lines)}

    def leg_json(self) -> dict[str, Any]:
        return {"to": self.to, "lines": list(self.lines)}


Move = Rail | Stop | Leg


def _invalid(message: str, field: str) -> InvalidMoveError:
    return InvalidMoveError(message, field)


class UndergroundState:
    """One game: rails, scores, tokens, cards, the passenger and whose turn it is."""

    __slots__ = (
        "auto_route",
        "board",
        "colour_names",
        "colours_of",
        "connections",
        "cur_steps",
        "deal",
        "deg",
        "discard",
        "drawn",
        "enclosed",
        "face_up",
        "history",
        "laid",
        "leg",
        "legs_taken",
        "low",
        "net",
        "on_line",
        "owner",
        "passenger",
        "phase",
        "plan",
        "rail_count",
        "retired_mask",
        "rules",
        "scores",
        "seat",
        "sec_colours",
        "seed",
        "steps",
        "symbol_at",
        "symbol_partner",
        "symbols_scored",
        "t0",
        "tokens",
        "turn_gains",
        "turns",
        "ways",
        "xs",
        "ys",
    )

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
    cur_steps: list[dict[str, Any]]
    history: list[dict[str, Any]]
    plan: list[tuple[int, int]] | None
    auto_route: bool
    retired_mask: int  # bit s: seat s has retired (`retire`): score frozen, turns skipped
    seed: int
    xs: tuple[float, ...]
    ys: tuple[float, ...]

    # ---- creation ---------------------------------------------------------------------------

    @classmethod
    def deal_new(
        cls,
        rules: UndergroundRules,
        connections: Mapping[str, str],
        destinations: Sequence[str],
        seed: int = 0,
    ) -> UndergroundState:
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
        s.plan = None
        s.auto_route = False
        s.retired_mask = 0
        s.seed = seed
        s.xs = tuple(st.x for st in board.stations)
        s.ys = tuple(st.y for st in board.stations)
        s._begin_turn()
        return s

    @classmethod
    def new(cls, rules: UndergroundRules, seed: int) -> UndergroundState:
        """Set-up (§2): connection tokens shuffled onto the spots, the 55 cards shuffled."""
        board = load_map(rules.map)
        rng = random.Random(seed)
        symbols = [c for c in SYMBOLS for _ in range(2)]
        rng.shuffle(symbols)
        connections = dict(zip(CONNECTION_SPOTS, symbols, strict=True))
        cards = [board.sid(i) for i in board.destinations]
        rng.shuffle(cards)
        return cls.deal_new(rules, connections, cards, seed)

    def copy(self) -> UndergroundState:
        """An independent copy: every list is copied (one level: the dicts in them are never
        changed in place), except the symbol tables, fixed once dealt. Written out, as the AI
        copies a state for every move it weighs."""
        s = UndergroundState.__new__(UndergroundState)
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
        s.cur_steps = self.cur_steps[:]
        s.history = self.history[:]
        s.plan = None if self.plan is None else self.plan[:]
        s.auto_route = self.auto_route
        s.retired_mask = self.retired_mask
        s.seed = self.seed
        s.xs = self.xs
        s.ys = self.ys
        return s

    def _assign(self, other: UndergroundState) -> None:
        for name in UndergroundState.__slots__:
            setattr(self, name, getattr(other, name))

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
        moves = self.legal_moves(seat)
        return moves[int(rand() * len(moves))]

    def apply(self, seat: int, move: Any) -> None:
        self.steps += 1
        self.cur_steps.append(move.to_json())
        if isinstance(move, Rail):
            board = self.board
            c = COLOUR_INDEX[move.colour]
            sec = board.section(board.index[move.a], board.index[move.b])
            assert sec is not None
            self.turn_gains.extend(lay(self, seat, c, sec))
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
            _walks, ways = best_ways(board, self.lines(), self.passenger, targets)
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

    # ---- a seat that leaves for good ----------------------------------------------------------

    def retire(self, seat: int) -> dict[str, Any]:
        """Take `seat` out for good (games.base.GameState.retire). Its lines stay on the
        board and the passenger may still ride them, but they score for nobody: its score is
        frozen. Its turns are skipped; the game ends by §4 (back at seat 0 after the passenger
        left, seat 0 counted whether retired or not). The turn it had under way ends where it
        stands: its rails stay, the passenger does not move on (legs it had taken stay), the
        face-up cards are refilled, and its branch tokens are what stopping then would give.
        Fewer than two seats left in play: the game ends at once, or when the turn under way
        ends; one seat alone has nobody left to beat.

        The history (views' and records' `moves`) gets `{"seat", "action": "retire", "rails",
        "route", "steps"}`: `steps`, the steps of the turn under way so far (the retiring seat's
        own, or the mover's: a replay plays them first); `rails` and `route` those of the turn it
        cut short (empty when it was not its turn)."""
        from games.base import check_retire  # (imported here, as outcome() does)

        n = self.rules.players
        check_retire(seat, n, self.seat < 0, self.retired_mask)
        self.retired_mask |= 1 << seat
        entry: dict[str, Any] = {"seat": seat, "action": "retire", "rails": [], "route": [],
                                 "steps": [dict(x) for x in self.cur_steps]}  # fmt: skip
        if seat == self.seat:
            if self.phase == BUILD and not self.legs_taken:
                self.tokens[seat] = self.held_tokens(seat)
            entry["rails"] = [self.rail_of(c, k).rail_json() for c, k in self.laid]
            entry["route"] = [self.leg_of(w).leg_json() for w in self.legs_taken]
            self.steps += 1  # the turn passes: a public change
            self._finish_turn(entry)
        else:
            self.history.append(entry)
            if n - self.retired_mask.bit_count() < 2 and not self.cur_steps:
                self.seat = -1
        return {
            "seat": seat,
            "action": "retire",
            "scores": self.scores[:],
            "branch_tokens": [self.held_tokens(i) for i in range(n)],
            "face_up": [self.board.sid(i) for i in self.face_up],
            "pile_count": self.pile_count,
            "passenger": self.board.sid(self.passenger) if self.passenger >= 0 else None,
            "to_move": list(self.to_move()),
            "turn_number": self.steps,
            "status": "over" if self.is_over else "playing",
        }

    def play_steps(self, steps: Sequence[Any]) -> None:
        """Play the steps of the turn under way (`steps`, all of them so far) beyond those
        already played: a retirement within the turn may have played its first ones."""
        done = len(self.cur_steps)
        if list(steps[:done]) != self.cur_steps:
            raise IllegalMoveError("the steps are not those of the turn under way", RULE)
        for step in steps[done:]:
            if not isinstance(step, Mapping):
                raise InvalidMoveError("a step is a JSON object", "steps")
            self.play(self.seat, step)

    def replay_entry(self, entry: Mapping[str, Any]) -> None:
        """Play one entry of `moves` (a record's, a view's, the stored state's) through the
        checked door: a turn `{"seat", "rails", "route"}`, or a retirement (see `retire`).
        GameError when it breaks a rule."""
        seat = entry.get("seat")
        if type(seat) is not int:
            raise InvalidMoveError(f"'seat' must be an integer, got {seat!r}", "seat")
        if entry.get("action", "turn") == "retire":
            steps = entry.get("steps", [])
            if not isinstance(steps, list):
                raise InvalidMoveError("a retirement's 'steps' must be a list", "steps")
            self.play_steps(steps)
            if not 0 <= seat < self.rules.players:
                raise InvalidMoveError(f"there is no seat {seat}", "seat")
            if self.seat < 0 or self.retired_mask >> seat & 1:
                raise IllegalMoveError(
                    f"seat {seat} cannot retire: the game is over or it has retired", RULE
                )
            self.retire(seat)
            return
        if entry.get("action", "turn") != "turn":
            raise InvalidMoveError(f"unknown action {entry.get('action')!r}", "action")
        rails, route = entry.get("rails"), entry.get("route", [])
        if not self.cur_steps:
            self.play(seat, {"rails": rails, "route": route})
            return
        # The turn began before a retirement in it: go on from where it stands, step by step.
        if seat != self.seat:
            raise NotYourTurnError(f"it is seat {self.seat}'s turn, not seat {seat}'s", RULE)
        if not isinstance(rails, list) or not isinstance(route, list):
            raise InvalidMoveError("'rails' and 'route' must be lists", "rails")
        laid = [self.rail_of(c, k).rail_json() for c, k in self.laid]
        if rails[: len(laid)] != laid:
            raise IllegalMoveError("the turn's rails are not those laid before it", RULE)
        turns = self.turns
        if self.phase == BUILD and not self.legs_taken:
            for rail in rails[len(laid) :]:
                self.play(seat, {"step": "rail", **rail} if isinstance(rail, Mapping) else rail)
            self.play(seat, {"step": "stop"})
        while self.turns == turns:
            i = len(self.legs_taken)
            if i >= len(route) or not isinstance(route[i], Mapping):
                raise IllegalMoveError(f"the turn's route names no leg {i}", RULE)
            self.play(seat, {"step": "route", **route[i]})

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

    # ---- the checked door -------------------------------------------------------------------

    def parse_step(self, move: Mapping[str, Any]) -> Move:
        step = move.get("step")
        if step == "rail":
            return self._parse_rail(move, "step")
        if step == "stop":
            return Stop()
        if step == "route":
            return self._parse_leg(move, "step")
        raise _invalid(f"unknown step {step!r}; expected 'rail', 'stop' or 'route'", "step")

    def _parse_rail(self, raw: Any, field: str) -> Rail:
        if not isinstance(raw, Mapping):
            raise _invalid("a rail is an object with colour, a and b", field)
        colour, a, b = raw.get("colour"), raw.get("a"), raw.get("b")
        if colour not in COLOUR_INDEX:
            raise _invalid(f"unknown colour {colour!r}", field)
        for x in (a, b):
            if not isinstance(x, str) or x not in self.board.index:
                raise _invalid(f"unknown station {x!r}", field)
        assert isinstance(a, str) and isinstance(b, str)
        return Rail.of(str(colour), a, b)

    def _parse_leg(self, raw: Any, field: str) -> Leg:
        if not isinstance(raw, Mapping):
            raise _invalid("a leg is an object with 'to' and 'lines'", field)
        to, lines = raw.get("to"), raw.get("lines", [])
        if not isinstance(to, str) or to not in self.board.index:
            raise _invalid(f"unknown station {to!r}", field)
        if not isinstance(lines, list) or any(c not in COLOUR_INDEX for c in lines):
            raise _invalid("'lines' must be a list of colours", field)
        if len(set(lines)) != len(lines):
            raise _invalid("'lines' names a colour twice", field)
        return Leg(to, tuple(sorted(lines, key=COLOUR_INDEX.__getitem__)))

    def _way(self, leg: Leg) -> tuple[int, int]:
        mask = 0
        for c in leg.lines:
            mask |= 1 << COLOUR_INDEX[c]
        return self.board.index[leg.to], mask

    def _check_rail(self, seat: int, rail: Rail, where: str) -> None:
        board = self.board
        why = why_illegal(
            self, seat, COLOUR_INDEX[rail.colour], board.index[rail.a], board.index[rail.b]
        )
        if why is not None:
            message, refusal, params = why
            raise IllegalMoveError(f"{where}{message}", RULE, refusal=refusal, params=params)

    def play(self, seat: int, move: Mapping[str, Any]) -> dict[str, Any]:
        if not isinstance(move, Mapping):
            raise _invalid("a move is a JSON object with 'rails' (a turn) or 'step'", "move")
        if self.seat < 0:
            raise NotYourTurnError(
                "the game is over", "RULES-UNDERGROUND.md §4", refusal="game_over"
            )
        if seat != self.seat:
            raise NotYourTurnError(
                f"it is seat {self.seat}'s turn, not seat {seat}'s", "RULES-UNDERGROUND.md §3"
            )
        if "step" in move:
            return self._play_step(seat, self.parse_step(move))
        if "rails" not in move:
            raise _invalid("a move is a JSON object with 'rails' (a turn) or 'step'", "move")
        raw_rails = move.get("rails")
        if not isinstance(raw_rails, list):
            raise _invalid("'rails' must be a list", "rails")
        rails = [self._parse_rail(r, "rails") for r in raw_rails]
        raw_route = move.get("route")
        legs: list[Leg] | None = None
        if raw_route is not None:
            if not isinstance(raw_route, list):
                raise _invalid("'route' must be a list of legs", "route")
            legs = [self._parse_leg(r, "route") for r in raw_route]
        if self.laid or self.phase != BUILD or self.cur_steps:
            raise IllegalMoveError(
                "this turn is under way: continue it step by step",
                "RULES-UNDERGROUND.md §3",
                refusal="underground.turn_under_way",
            )
        if len(rails) > 4:
            raise IllegalMoveError(
                "a turn lays at most 4 rails", RULE, refusal="underground.four_rails"
            )
        trial = self.copy()
        for i, rail in enumerate(rails):
            trial._check_rail(seat, rail, f"rail {i}: ")
            trial.apply(seat, rail)
        trial.plan = [trial._way(leg) for leg in legs] if legs is not None else []
        trial.auto_route = True
        turn_gains = trial.turn_gains
        legs_taken = trial.legs_taken
        trial.steps += 1
        trial.cur_steps.append(Stop().to_json())
        trial._stop()
        taken = [trial.leg_of(w).leg_json() for w in legs_taken]
        if legs is not None and len(legs) > len(taken):
            raise IllegalMoveError(
                f"the route names {len(legs)} legs; the passenger made {len(taken)}",
                "RULES-UNDERGROUND.md §3 (the passenger)",
                refusal="underground.route_legs",
                params={"count": len(legs), "made": len(taken)},
            )
        trial.plan = None
        trial.auto_route = False
        self._assign(trial)
        return self._event(seat, "turn", [r.rail_json() for r in rails], taken, turn_gains)

    def _play_step(self, seat: int, move: Move) -> dict[str, Any]:
        if isinstance(move, Leg):
            if self.phase != ROUTE:
                raise IllegalMoveError(
                    "the passenger is not waiting for a route choice",
                    "RULES-UNDERGROUND.md §3",
                    refusal="underground.no_route_choice",
                )
            if self._way(move) not in self.ways:
                raise IllegalMoveError(
                    f"{move.to} by {list(move.lines)} is not one of the tied best ways",
                    "RULES-UNDERGROUND.md §3 (the passenger)",
                    refusal="underground.not_a_best_way",
                    params={"to": self.board.stations[self.board.index[move.to]].name},
                )
        elif self.phase == ROUTE:
            raise IllegalMoveError(
                "choose the passenger's route first (a 'route' step)",
                "RULES-UNDERGROUND.md §3",
                refusal="underground.route_first",
            )
        elif isinstance(move, Rail):
            self._check_rail(seat, move, "")
        trial = self.copy()
        gain_list, leg_list = trial.turn_gains, trial.legs_taken
        gains_at, legs_at = len(gain_list), len(leg_list)
        turns = trial.turns
        trial.apply(seat, move)
        gains = gain_list[gains_at:]
        legs = [trial.leg_of(w).leg_json() for w in leg_list[legs_at:]]
        self._assign(trial)
        action = {Rail: "rail", Stop: "stop", Leg: "route"}[type(move)]
        rails = [move.rail_json()] if isinstance(move, Rail) else []
        event = self._event(seat, action, rails, legs, gains)
        event["turn_complete"] = self.turns != turns
        if self.phase == ROUTE:
            event["ways"] = [self.leg_of(w).leg_json() for w in self.ways]
        return event

    def _event(
        self,
        seat: int,
        action: str,
        rails: list[dict[str, Any]],
        route: list[dict[str, Any]],
        gains: list[dict[str, Any]],
    ) -> dict[str, Any]:
        board = self.board
        return {
            "seat": seat,
            "action": action,
            "rails": rails,
            "route": route,
            "gained": gains,
            "scores": self.scores[:],
            "branch_tokens": [self.held_tokens(i) for i in range(self.rules.players)],
            "passenger": board.sid(self.passenger) if self.passenger >= 0 else None,
            "face_up": [board.sid(i) for i in self.face_up],
            "pile_count": self.pile_count,
            "to_move": list(self.to_move()),
            "turn_number": self.steps,
            "status": "over" if self.is_over else "playing",
        }

    # ---- what leaves the rules core ---------------------------------------------------------

    def outcome(self) -> Any:
        from games.base import Outcome

        return Outcome.from_scores(self.scores, self.retired) if self.is_over else None

    def view(self, seat: int | None) -> dict[str, Any]:
        from games.underground.view import view

        return view(self, seat)

    def record(self) -> dict[str, Any]:
        from games.underground.record import export

        return export(self)

    def to_dict(self) -> dict[str, Any]:
        board = self.board
        return {
            "format": "underground-state/1",
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "connections": dict(self.connections),
            "destinations": [board.sid(i) for i in self.deal],
            "moves": [dict(m) for m in self.history],
            "steps": [dict(s) for s in self.cur_steps],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UndergroundState:
        if data.get("format") != "underground-state/1":
            raise ValueError("not an underground-state/1 document")
        rules = UndergroundRules.parse(data["rules"])
        s = cls.deal_new(rules, data["connections"], data["destinations"], int(data["seed"]))
        for m in data["moves"]:
            s.replay_entry(m)
        s.play_steps(data["steps"])
        return s

    def __repr__(self) -> str:
        return (
            f"<UndergroundState players={self.rules.players} turns={self.turns} "
            f"seat={self.seat} scores={self.scores}>"
        )
