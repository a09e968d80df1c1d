"""Game records, `metro-record/1` (RULES.md §9): export, and replay that re-checks every move.

A seat that retired (`MetroState.retire`) has an entry of its own among the moves, where it
happened: `{"seat": 1, "action": "retire"}`, with `"drawn": true` when it had drawn a tile it
never placed, `"redeck": [...]` (the deck after its tiles went back) when it held any, and
`"during_draw": true` when it left while the seat to move held a drawn tile: that seat's next
entry (a `draw_place`) comes after it, and the retired seat's tiles go back with that
placement's `redeck`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.errors import GameError, RecordError
from games.metro.moves import move_text
from games.metro.position import (
    RETIRED_DURING_DRAW,
    RETIRED_OTHER,
    RETIRED_OWN,
    RETIRED_OWN_DRAWN,
    Retirement,
)
from games.metro.rules import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES, INDEX, SET_COUNTER
from games.record import check_header, header


def export(state: MetroState, seats: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The record of `state` so far. It holds the deck order: give it out only when finished."""
    moves: list[dict[str, Any]] = []
    retirements = list(state.retirements)
    for i, (seat, move, _phys, from_draw, redeck) in enumerate(state.history_entries()):
        while retirements and retirements[0][1] == i:
            moves.append(_retirement(retirements.pop(0)))
        entry: dict[str, Any] = {
            "seat": seat,
            "action": "draw_place" if from_draw else "place",
            "placement": move_text(move),
        }
        if redeck is not None:
            entry["redeck"] = [CODES[t] for t in redeck]
        moves.append(entry)
    moves.extend(_retirement(r) for r in retirements)
    if seats is None:
        seats = [{"name": f"Player {i + 1}", "kind": "human"} for i in range(state.rules.players)]
    return {
        **header("metro", names_game=False),
        "rules": state.rules.to_dict(),
        "seats": [dict(s) for s in seats],
        "deck": [CODES[t] for t in state.deck0],
        "moves": moves,
        "scores": state.scores[:],
    }


def _retirement(r: Retirement) -> dict[str, Any]:
    seat, _at, when, redeck = r
    entry: dict[str, Any] = {"seat": seat, "action": "retire"}
    if when == RETIRED_OWN_DRAWN:
        entry["drawn"] = True
    if when == RETIRED_DURING_DRAW:
        entry["during_draw"] = True
    if redeck is not None:
        entry["redeck"] = [CODES[t] for t in redeck]
    return entry


def _deck(record: Mapping[str, Any]) -> list[int]:
    deck = record.get("deck")
    if not isinstance(deck, list) or not all(isinstance(c, str) and c in INDEX for c in deck):
        raise RecordError("the record's 'deck' must be a list of tile codes")
    if Counter(deck) != SET_COUNTER:
        raise RecordError("the record's 'deck' must hold exactly the 60 tiles (RULES.md §2)")
    return [INDEX[c] for c in deck]


def replay(record: Mapping[str, Any]) -> MetroState:
    """Play a record's moves from its deck, checking each; RecordError names the first bad move."""
    record = check_header(record, "metro")
    try:
        rules = MetroRules.parse(record.get("rules"))
    except GameError as err:
        raise RecordError(str(err)) from None
    state = MetroState.deal(rules, _deck(record))
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("the record's 'moves' must be a list")
    for i, move in enumerate(moves):
        try:
            _replay_move(state, move)
        except GameError as err:
            raise RecordError(f"move {i}: {err}", move=i) from None
    return state


def _replay_move(state: MetroState, move: Any) -> None:
    if not isinstance(move, Mapping):
        raise RecordError("a move must be an object with seat, action and placement")
    seat, action = move.get("seat"), move.get("action")
    if type(seat) is not int:
        raise RecordError(f"'seat' must be an integer, got {seat!r}")
    if action not in ("place", "draw_place", "retire"):
        raise RecordError(f"unknown action {action!r}; expected 'place', 'draw_place' or 'retire'")
    if action == "retire":
        _replay_retire(state, seat, move)
        return
    if action == "draw_place":
        state.play(seat, {"action": "draw"})
    before = state.reshuffles
    state.play(seat, {"action": "place", "placement": move.get("placement")})
    if _set_redeck(state, move.get("redeck"), before, "this move retires a player"):
        prev, (s, m, phys, from_draw, _) = state.history  # type: ignore[misc]
        state.history = (prev, (s, m, phys, from_draw, tuple(state.deck)))


def _replay_retire(state: MetroState, seat: int, move: Mapping[str, Any]) -> None:
    drawn, during = move.get("drawn", False), move.get("during_draw", False)
    for name, flag in (("drawn", drawn), ("during_draw", during)):
        if type(flag) is not bool:
            raise RecordError(f"{name!r} must be true or false, got {flag!r}")
    if drawn and during:
        raise RecordError("a retirement is 'drawn' (its own draw) or 'during_draw', not both")
    if drawn:
        state.play(seat, {"action": "draw"})  # checks that it was the seat's turn
    if not 0 <= seat < state.rules.players:
        raise RecordError(f"there is no seat {seat} in this game")
    if state.is_over:
        raise RecordError(f"seat {seat} cannot retire: the game is over")
    if seat in state.retired:
        raise RecordError(f"seat {seat} has already retired")
    if during and seat == state.current_seat:
        raise RecordError(f"'during_draw': seat {seat} is the seat to move, not another")
    if seat == state.current_seat:
        when = RETIRED_OWN_DRAWN if drawn else RETIRED_OWN
    else:
        when = RETIRED_DURING_DRAW if during else RETIRED_OTHER
    before = state.reshuffles
    state._retire(seat, when)
    if _set_redeck(state, move.get("redeck"), before, "this retirement puts tiles back"):
        seat, at, when, _ = state.retirements[-1]
        state.retirements = (*state.retirements[:-1], (seat, at, when, tuple(state.deck)))


def _set_redeck(state: MetroState, redeck: Any, before: int, why: str) -> bool:
    """Check a move's `redeck` against whether it reshuffled the deck and take its order
    (True); False when the move reshuffled nothing."""
    if state.reshuffles == before:
        if redeck is not None:
            raise RecordError("'redeck' given, but this move put no tile back (RULES.md §9)")
        return False
    if redeck is None:
        raise RecordError(f"{why}; the record must give 'redeck' (RULES.md §9)")
    if not isinstance(redeck, list) or not all(isinstance(c, str) and c in INDEX for c in redeck):
        raise RecordError("'redeck' must be a list of tile codes")
    if Counter(redeck) != Counter(CODES[t] for t in state.deck):
        raise RecordError("'redeck' must hold exactly the tiles of the deck after the reshuffle")
    state.deck = [INDEX[c] for c in redeck]
    state.deck_pos = 0
    return True


def steps(record: Mapping[str, Any]) -> Iterator[tuple[int, MetroState, int, dict[str, Any]]]:
    """A record's decisions in order, for post-game analysis: (the index of its entry in the
    record's moves, the state before it, the seat, its move JSON), the draw of a `draw_place`
    and its placement apart. The state is live: it moves on once the next decision is asked
    for. Retirements are played, not yielded."""
    state = replay({**record, "moves": []})
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("the record's 'moves' must be a list")
    for i, move in enumerate(moves):
        if not isinstance(move, Mapping) or type(move.get("seat")) is not int:
            raise RecordError(f"move {i}: a move must be an object with seat and action", move=i)
        seat, action = move["seat"], move.get("action")
        entry = move
        try:
            if action == "draw_place":
                yield i, state, seat, {"action": "draw"}
                state.play(seat, {"action": "draw"})
                entry = {**move, "action": "place"}
            if action in ("place", "draw_place"):
                yield i, state, seat, {"action": "place", "placement": move.get("placement")}
            _replay_move(state, entry)
        except GameError as err:
            raise RecordError(f"move {i}: {err}", move=i) from None


def states(record: Mapping[str, Any]) -> Iterator[MetroState]:
    """The positions of a record for its replay: the set-up, then the state after each of the
    record's entries (retirements too), checked as `replay` checks them. The state is live: it
    moves on once the next one is asked for."""
    state = replay({**record, "moves": []})
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("the record's 'moves' must be a list")
    yield state
    for i, move in enumerate(moves):
        try:
            _replay_move(state, move)
        except GameError as err:
            raise RecordError(f"move {i}: {err}", move=i) from None
        yield state
