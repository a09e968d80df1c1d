"""A game of On the Underground (RULES-UNDERGROUND.md §3-§5): the position (position.py) with
the checked door, retirement and the stored form (`to_dict` / `from_dict`: the engine's).

The checked door `play(seat, json)` takes either a whole turn in §3's form
(`{"rails": [...], "route": [...]}`, only at the start of a turn; `route` may be omitted, or give
fewer legs than were taken: the others take the first tied way) or one atomic step (`{"step":
...}`, read by moves.parse_step, the one parser). It checks everything on a copy and leaves the
state unchanged when it refuses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.base import BoundToGame, check_retire
from games.errors import IllegalMoveError, InvalidMoveError, NotYourTurnError
from games.underground.building import RULE, why_illegal
from games.underground.moves import Leg, Move, Rail, Stop, parse_leg, parse_rail, parse_step
from games.underground.position import BUILD, ROUTE, UndergroundPosition
from games.underground.rules import COLOUR_INDEX, UndergroundRules

NOT_A_MOVE = "a move is a JSON object with 'rails' (a turn) or 'step'"


class UndergroundState(UndergroundPosition, BoundToGame):
    """One game of On the Underground: the position, and the doors that check (`play`), retire a
    seat and store it."""

    __slots__ = ()

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

    # ---- the checked door -------------------------------------------------------------------

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
            raise InvalidMoveError(NOT_A_MOVE, "move")
        if self.seat < 0:
            raise NotYourTurnError(
                "the game is over", "RULES-UNDERGROUND.md §4", refusal="game_over"
            )
        if seat != self.seat:
            raise NotYourTurnError(
                f"it is seat {self.seat}'s turn, not seat {seat}'s", "RULES-UNDERGROUND.md §3"
            )
        if "step" in move:
            return self._play_step(seat, parse_step(move, self.board.index))
        if "rails" not in move:
            raise InvalidMoveError(NOT_A_MOVE, "move")
        raw_rails = move.get("rails")
        if not isinstance(raw_rails, list):
            raise InvalidMoveError("'rails' must be a list", "rails")
        rails = [parse_rail(r, "rails", self.board.index) for r in raw_rails]
        raw_route = move.get("route")
        legs: list[Leg] | None = None
        if raw_route is not None:
            if not isinstance(raw_route, list):
                raise InvalidMoveError("'route' must be a list of legs", "route")
            legs = [parse_leg(r, "route", self.board.index) for r in raw_route]
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
