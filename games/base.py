"""The protocol every game of the platform implements, in the spirit of OpenSpiel.

The engine, the AI's search, the gateway and the page's shell know only this protocol: nothing
outside a game's own package names a game. A game is one package under `games/` that registers a
`Game` when imported (see `games.registry`); it brings its rules, its messages, its evaluation for
the AI (`Game.evaluate`) and its board module for the page (`<package>/web/page.js`).

States are plain data: `copy()` is cheap, `to_dict()` is JSON-safe (only the engine stores it:
it holds secrets), and `view(seat)` is the single projection of hidden information.

Two doors, as in python-chess:
- the checked door, `play(seat, move_json)`, for untrusted input: it parses, checks, applies and
  returns the public event, and raises the errors of `games.errors` leaving the state unchanged;
- the fast door, `legal_moves(seat)` / `apply(seat, move)`, for search: moves are the game's own
  typed values (hashable, immutable, `to_json()`), taken from `legal_moves` and never checked.

Turns. `to_move()` is the set of seats that must still move now: one seat in a sequential game,
every seat that has not chosen yet in a simultaneous turn (Metro X). In a simultaneous turn a
seat's choice is hidden until the last seat has chosen; `apply`/`play` of the last choice resolves
the turn. A seat that has chosen may choose again (its choice is replaced) until then, so
`legal_moves(seat)` is non-empty for every seat that may move or re-choose now.
`turn_number` counts public changes of the position: it moves with every resolved move or turn
and stays put while hidden choices of an open simultaneous turn come in. The engine uses it to
tell a hidden choice (stored apart, so that 50 seats choosing at once never conflict) from a
change that everyone sees.

Chance. `chance_outcomes(seat)` is the distribution of the next chance event (a tile drawn, a
card revealed) as `seat` knows it; `force_chance(outcome)` makes the next chance event yield that
outcome (search only: it rearranges hidden order, so call it on sampled worlds). Sampled worlds
come from `Game.world_sampler(view, seat)`: built once from one seat's view, it deals every hidden
thing anew per `sample(rng)`.

One shape per game. Every game's package has the same modules for the same jobs: `rules.py` (the
option table), `moves.py` (the move values and their one parser), `position.py` (the position and
the fast door), `state.py` (the checked door, `retire`, the stored form), `view.py` (the only
projection of hidden information), `record.py` (records and replay), `chance.py` (sampled worlds),
`evaluate.py` (the AI's heuristic), `queries.py` (`metro rules`), `view_schema.py`, and
`__init__.py`: one `register_game(Game(...))` that says what the game is and where its parts live
(`Parts`); the base `Game` forwards to them, so no game subclasses it. The view and the record
belong to the game (as OpenSpiel's observer does): `Game.view(state, seat)` and
`Game.record(state)`; a state's `view`/`record` only ask its game (`BoundToGame`, whose `game`
the registration sets), so no state module imports them and the imports run one way.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from games.errors import GameError

JSON = dict[str, Any]


@runtime_checkable
class Move(Protocol):
    """A move of one game: an immutable, hashable value with a JSON form (the API's body)."""

    def to_json(self) -> JSON: ...


M = TypeVar("M", bound=Move)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a game: every seat's final score and the seats that share the win."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]

    @classmethod
    def from_scores(cls, scores: Sequence[int], retired: Iterable[int] = ()) -> Outcome:
        """Highest score wins, ties share; a `retired` seat (GameState.retire) has lost: it is
        never a winner, and when every seat retired nobody wins."""
        gone = set(retired)
        left = [s for i, s in enumerate(scores) if i not in gone]
        if not left:
            return cls(tuple(scores), ())
        best = max(left)
        return cls(
            tuple(scores),
            tuple(i for i, s in enumerate(scores) if s == best and i not in gone),
        )


@dataclass(frozen=True, slots=True)
class Option:
    """One game option as the lobby offers it (`GET /api/meta`), from the game's own table.

    `kind`: "int" (between `minimum` and `maximum`), "bool", or "choice" (one of `choices`,
    pairs of value and label). `players` marks the option that sets the number of seats.
    """

    name: str
    kind: str
    default: Any
    label: str
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[tuple[Any, str], ...] = ()

    def to_json(self) -> JSON:
        out: JSON = {"name": self.name, "kind": self.kind, "default": self.default,
                     "label": self.label, "help": self.help}  # fmt: skip
        if self.minimum is not None:
            out["min"] = self.minimum
        if self.maximum is not None:
            out["max"] = self.maximum
        if self.choices:
            out["choices"] = [{"value": v, "label": label} for v, label in self.choices]
        return out

    def json_schema(self) -> JSON:
        """The JSON Schema of this option's value (the API's OpenAPI document uses it)."""
        out: JSON
        if self.kind == "int":
            out = {"type": "integer"}
            if self.minimum is not None:
                out["minimum"] = self.minimum
            if self.maximum is not None:
                out["maximum"] = self.maximum
        elif self.kind == "bool":
            out = {"type": "boolean"}
        elif self.kind == "choice":
            out = {"enum": [v for v, _ in self.choices]}
        else:
            out = {}
        out.update(title=self.label, default=self.default)
        if self.help:
            out["description"] = self.help
        return out


class GameState(Protocol):
    """One game in progress or finished."""

    @property
    def seat_count(self) -> int: ...

    @property
    def is_over(self) -> bool: ...

    @property
    def scores(self) -> list[int]:
        """Every seat's score now (the final scores once the game is over)."""

    @property
    def turn_number(self) -> int:
        """A public counter that changes with every change everyone sees (see the module)."""

    def to_move(self) -> tuple[int, ...]:
        """The seats that must still move now, ascending; () when the game is over."""

    # ---- the fast door ------------------------------------------------------------------------

    def legal_moves(self, seat: int) -> Sequence[Any]:
        """Every move `seat` may make now, each once (empty when it may not move)."""

    def apply(self, seat: int, move: Any) -> None:
        """Apply a move from `legal_moves(seat)` without checking it (search only)."""

    def random_move(self, seat: int, rand: Any) -> Any:
        """A uniformly random move of `legal_moves(seat)` (`rand()` in [0, 1)); games may make
        it faster than listing every move, never differently distributed."""

    def chance_outcomes(self, seat: int) -> Sequence[tuple[Hashable, float]]:
        """The next chance event as `seat` knows it: [(outcome, probability)]; [] if none."""

    def force_chance(self, outcome: Hashable) -> None:
        """Make the next chance event yield `outcome` (sampled worlds only)."""

    def copy(self) -> GameState: ...

    # ---- a seat that leaves for good ----------------------------------------------------------

    @property
    def retired(self) -> tuple[int, ...]:
        """The seats retired so far (see `retire`), in the order they retired."""

    def retire(self, seat: int) -> JSON:
        """Take `seat` out of the game for good ("time-out loses": its player ran out of time or
        left a table that chose so), and return the public record of the change.

        After it the seat is never among `to_move()`, its score stays as it was (whatever the
        others do later), it is never among the winners, and the game goes on and ends by its
        normal rules for the other seats. A choice the seat had made in an open simultaneous
        turn is dropped (if it was the last seat to choose, the turn resolves now); a turn the
        seat had under way ends where it stands. What the game does with the seat's pieces, and
        when too few seats are left, is the game's rules' own (each `retire` says): Metro and
        On the Underground end once fewer than two seats are left in play and no turn is under
        way; Metro X goes on while one seat is left (a solo game) and ends with the last one.

        The returned JSON-safe dict holds at least `seat`, `action` ("retire"), `scores`,
        `to_move` and `status` ("playing" or "over"); it is public, so it never tells anything
        the seat held hidden (its tiles, its choice). Records and views carry the retirement:
        a replay reproduces it. ValueError for a seat not in the game; GameError when the game
        is over or the seat has already retired.
        """

    # ---- the checked door ---------------------------------------------------------------------

    def play(self, seat: int, move: Mapping[str, Any]) -> JSON:
        """Check and apply `move` (the API's JSON) for `seat`; return the public event.

        The event holds nothing that any seat may not see (never a drawn tile, never a hidden
        choice). Raises InvalidMoveError, NotYourTurnError or IllegalMoveError and leaves the
        state unchanged when the move is refused.
        """

    # ---- what leaves the rules core -----------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """Scores and winners once the game is over, else None."""

    def view(self, seat: int | None) -> JSON:
        """What `seat` may see (None: a spectator); the only projection of hidden information.

        Holds at least `game`, `status` ("playing" or "over"), `rules`, `seats` (one object per
        seat with `seat` and `score`), `to_move`, and `winners` once over; the rest is the
        game's own (its rules file says what)."""

    def record(self, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
        """The complete replayable record (holds hidden order: only for finished games), naming
        `seats` (name, kind) when given."""

    def to_dict(self) -> JSON:
        """Everything, secrets included, JSON-safe: what the engine stores."""


class BoundToGame:
    """The base of every game's state class: `view` and `record` are the game's (`Game.view`,
    `Game.record`), so a state module never imports its game's view or record modules (they
    import it). Registering the game (`games.registry.register_game`) sets `game` on its state
    class, so a state knows its game from the moment the game exists."""

    __slots__ = ()
    game: ClassVar[Game]

    def view(self, seat: int | None) -> JSON:
        """What `seat` may see (None: a spectator): `Game.view`."""
        return self.game.view(self, seat)

    def record(self, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
        """The replayable record, with `seats` (name, kind) when given: `Game.record`."""
        return self.game.record(self, seats)


class WorldSampler(Protocol):
    """Full states consistent with what one seat has seen (an information set)."""

    def sample(self, rng: random.Random) -> GameState:
        """A new world: everything the seat cannot see dealt anew by `rng`."""


class StateClass(Protocol):
    """A game's state class as its `Parts` name it (BoundToGame and the game's own)."""

    game: ClassVar[Game]

    @classmethod
    def new(cls, rules: Mapping[str, Any] | None, seed: int) -> GameState:
        """A fresh game of the API's `rules`, shuffled by `seed`; RulesError for a bad option."""

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameState:
        """Inverse of GameState.to_dict."""


class RecordModule(Protocol):
    """A game's `record.py`: its records (games/record.py holds the header they share)."""

    def export(self, state: Any, seats: Sequence[Mapping[str, Any]] | None = ...) -> JSON: ...

    def replay(self, record: Mapping[str, Any]) -> GameState: ...

    def steps(self, record: Mapping[str, Any]) -> Iterator[tuple[int, GameState, int, JSON]]: ...


@dataclass(frozen=True, eq=False)
class Parts:
    """Where a game's parts live: its package's modules, named once in its `__init__.py`;
    `Game` forwards to them, so a game declares and never subclasses (as OpenSpiel's games
    register a type and a factory). Each field is what `Game`'s method of the same job says."""

    state: type[StateClass]  # state.py: `new` (Game.new_state), `from_dict`
    normalise: Callable[[Mapping[str, Any] | None], JSON]  # rules.py: Game.normalise_rules
    parse_move: Callable[[Any], Any]  # moves.py: the one parser
    move_schema: Callable[[], JSON]  # moves.py
    events: Mapping[str, str]  # the `action` of each public event: Game.event_actions
    view: Callable[[Any, int | None], JSON]  # view.py: the only projection of hidden things
    view_schema: Callable[[], JSON]  # view_schema.py
    record: RecordModule  # record.py: export, replay, steps
    sampler: Callable[[Mapping[str, Any], int], WorldSampler]  # chance.py: Game.world_sampler
    evaluate: Callable[[Any], list[float]]  # evaluate.py: the AI's heuristic
    query: Callable[[Mapping[str, Any]], JSON]  # queries.py: `metro rules`
    codec: Any = None  # compact.py's CODEC (Game.record_codec); None: records not archived
    daily: Callable[[bytes, int], JSON] | None = None  # the day's puzzle (Game.daily_rules)
    # What each legal move would score and change, for the seat that asks (Game.previews).
    previews: Callable[[Any, int, Sequence[Any]], list[JSON | None]] | None = None
    # The table's fixed numbers and names the page shows (Game.meta's `constants`).
    constants: Mapping[str, Any] | None = None
    # A finished record's positions for a replay, in the game's own form (Game.positions).
    positions: Callable[[Mapping[str, Any]], JSON] | None = None
    # A game whose worlds can be planned to the end (Metro X): for each of a seat's legal moves,
    # the seat's best final score found after it in one sampled world, its future known (None:
    # this world is not planned, e.g. other seats still play; no moves: [] at no cost); the
    # `hard` AI averages it over worlds (services/ai/players/hindsight.py), else searches a tree.
    hindsight: Callable[[Any, int, Sequence[Any], int], list[float] | None] | None = None


@dataclass(frozen=True)
class Game:
    """A game kind, as the registry holds it: what it is, and where its parts live (`parts`),
    declared by the game's package in one `register_game(Game(...))`; the methods forward."""

    kind: str  # the name in the API and in records, e.g. "metro"
    name: str  # shown to people
    description: str
    players: tuple[int, int]  # fewest and most seats
    colours: tuple[str, ...]  # seat colours in seat order (names the page knows)
    options: tuple[Option, ...]
    parts: Parts = field(compare=False, repr=False)
    order: int = 100  # place in listings; the lowest is the default game
    web_dir: Path | None = field(default=None, compare=False)  # the page's module for this game
    # The named AI levels this game offers, weakest first (services/common/levels.py names them
    # all); None: every one. A level measured no stronger here than the one below it is left out
    # rather than offered under a name that promises more (docs/ai.md, the level table).
    ai_levels: tuple[str, ...] | None = None

    @property
    def package(self) -> str:
        """The game's package (e.g. "games.metro"), where optional modules such as its
        `tutorial` live: the package of its declared state class."""
        return self.parts.state.__module__.rpartition(".")[0]

    # ---- creating and restoring states --------------------------------------------------------

    def normalise_rules(self, rules: Mapping[str, Any] | None) -> JSON:
        """The full options dict with defaults filled in; RulesError naming a bad option."""
        return self.parts.normalise(rules)

    def seat_count(self, rules: Mapping[str, Any]) -> int:
        """How many seats normalised `rules` call for."""
        return int(rules["players"])

    def new_state(self, rules: Mapping[str, Any], seed: int) -> GameState:
        """A fresh game, shuffled by `seed`; RulesError for a bad option."""
        return self.parts.state.new(rules, seed)

    def state_from_dict(self, data: Mapping[str, Any]) -> GameState:
        """Inverse of GameState.to_dict."""
        return self.parts.state.from_dict(data)

    def replay(self, record: Mapping[str, Any]) -> GameState:
        """Re-play a record; RecordError naming the first bad move."""
        return self.parts.record.replay(record)

    def replay_steps(self, record: Mapping[str, Any]) -> Iterator[tuple[int, GameState, int, JSON]]:
        """A finished record's decisions in order (post-game analysis): (the index of the
        record's entry it belongs to: a move, or a turn of simultaneous choices; the live state
        before the decision; the seat; its move JSON, one of that state's `legal_moves(seat)`
        once parsed); the state moves on when the next one is asked for. RecordError for a bad
        record."""
        return self.parts.record.steps(record)

    # ---- what leaves the rules core -----------------------------------------------------------

    def view(self, state: Any, seat: int | None) -> JSON:
        """What `seat` may see of `state` (GameState.view says what it holds); ValueError for a
        seat not in the game."""
        return self.parts.view(state, seat)

    def record(self, state: Any, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
        """The replayable record of `state` (GameState.record), naming `seats` when given."""
        return self.parts.record.export(state, seats)

    def record_codec(self) -> Any:
        """The game's own part of the compact record format (a `games.compact.RecordCodec`:
        its chance, retirements and record walk), or None when its records are not archived."""
        return self.parts.codec

    # ---- moves --------------------------------------------------------------------------------

    def parse_move(self, data: Any) -> Any:
        """A move value from the API's JSON; InvalidMoveError naming the bad field. Whether the
        move is legal is `play`'s business, not this one's. A legal move as listed (with its
        `preview`, see `previews`) reads as the move itself."""
        if isinstance(data, dict) and "preview" in data:
            data = {k: v for k, v in data.items() if k != "preview"}
        return self.parts.parse_move(data)

    def move_schema(self) -> JSON:
        """The JSON Schema of a move body (`POST /api/games/{id}/moves`, without the gateway's
        `expected_version` and `move_id`): for the API's OpenAPI document."""
        return self.parts.move_schema()

    def view_schema(self) -> JSON:
        """The JSON Schema of this game's own view fields (besides the common ones the gateway
        documents)."""
        return self.parts.view_schema()

    def event_actions(self) -> dict[str, str]:
        """The `action` of each public event this game's moves make (`state.play`), with what
        it means: the API's event schema and docs/bots.md's table are made from it, and a test
        holds real events to it."""
        return dict(self.parts.events)

    def daily_rules(self, digest: bytes, day: int = 0) -> JSON | None:
        """The rules of the day's solo puzzle, picked by `digest` (32 bytes the engine derives
        from the date and a server secret; the deck's seed comes from the same bytes, so the
        rules never name it) and `day` (the date's ordinal, for what rotates day by day); None:
        this game has no daily puzzle (no `Parts.daily`)."""
        return None if self.parts.daily is None else self.parts.daily(digest, day)

    def rules_schema(self) -> JSON:
        """The JSON Schema of the `rules` of a new game, from the game's option table."""
        return {
            "type": "object",
            "properties": {o.name: o.json_schema() for o in self.options},
            "additionalProperties": False,
        }

    # ---- for the AI ---------------------------------------------------------------------------

    def world_sampler(self, view: Mapping[str, Any], seat: int) -> WorldSampler:
        """Worlds consistent with `view` (one seat's view) in which that seat is to decide: in
        an open simultaneous turn its own hidden choice is left out, so it chooses again.
        ValueError if the view does not add up."""
        return self.parts.sampler(view, seat)

    def evaluate(self, state: GameState) -> list[float]:
        """Each seat's expected final score as the game's heuristic sees it (exact when over):
        what greedy play and the search's cut-off rollouts compare."""
        return self.parts.evaluate(state)

    def previews(self, state: GameState, seat: int, moves: Sequence[Any]) -> list[JSON | None]:
        """What each of `moves` (from `state.legal_moves(seat)`) would score and change, as
        `seat` may know it (a preview never tells what a chance event will bring), one entry
        per move (None: nothing to say); all None when the game has no previews. The engine
        adds each to its legal move's JSON as `preview`, so no page re-implements the rules to
        say what a move is worth. Pure: the state is not changed."""
        if self.parts.previews is None:
            return [None] * len(moves)
        return self.parts.previews(state, seat, moves)

    def positions(self, record: Mapping[str, Any]) -> JSON | None:
        """A finished `record`'s positions for a replay, as one JSON object in the game's own
        form: its `positions` list ([0] the set-up, [i] after the record's i-th entry, each what
        the page draws of it, public) with the `scores` of each, so what every position shares is
        said once; None when the game has none. RecordError for a bad record."""
        return None if self.parts.positions is None else self.parts.positions(record)

    # ---- `metro rules` ------------------------------------------------------------------------

    def query(self, query: Mapping[str, Any]) -> JSON:
        """Answer one position query of the game's rules file; GameError for a bad one."""
        return self.parts.query(query)

    def meta(self) -> JSON:
        """What `GET /api/meta` says about this game."""
        return {
            "game": self.kind,
            "name": self.name,
            "description": self.description,
            "players": list(self.players),
            "options": [o.to_json() for o in self.options],
            "colours": list(self.colours),
            "constants": dict(self.parts.constants or {}),
        }


def check_retire(seat: object, players: int, over: bool, retired_mask: int) -> int:
    """What every game's `retire` checks first: ValueError for a seat not in the game, GameError
    when the game is over or the seat has retired already (`retired_mask`: bit per seat)."""
    if type(seat) is not int or not 0 <= seat < players:
        raise ValueError(f"seat must be 0-{players - 1}, got {seat!r}")
    if over:
        raise GameError("the game is over")
    if retired_mask >> seat & 1:
        raise GameError(f"seat {seat} has already retired")
    return seat
