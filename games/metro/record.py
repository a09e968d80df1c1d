"""Game records, `metro-record/1` (RULES.md §9): export, and replay that re-checks every move."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from games.errors import GameError, RecordError
from games.metro.moves import move_text
from games.metro.options import MetroRules
from games.metro.state import MetroState
from games.metro.tiles import CODES, INDEX, SET_COUNTER

FORMAT = "metro-record/1"


def export(state: MetroState, seats: Sequence[Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The record of `state` so far. It holds the deck order: give it out only when finished."""
    moves = []
    for seat, move, _phys, from_draw, redeck in state.history_entries():
        entry: dict[str, Any] = {
            "seat": seat,
            "action": "draw_place" if from_draw else "place",
            "placement": move_text(move),
        }
        if redeck is not None:
            entry["redeck"] = [CODES[t] for t in redeck]
        moves.append(entry)
    if seats is None:
        seats = [{"name": f"Player {i + 1}", "kind": "human"} for i in range(state.rules.players)]
    return {
        "format": FORMAT,
        "rules": state.rules.to_dict(),
        "seats": [dict(s) for s in seats],
        "deck": [CODES[t] for t in state.deck0],
        "moves": moves,
        "scores": state.scores[:],
    }


def _deck(record: Mapping[str, Any]) -> list[int]:
    deck = record.get("deck")
    if not isinstance(deck, list) or not all(isinstance(c, str) and c in INDEX for c in deck):
        raise RecordError("the record's 'deck' must be a list of tile codes")
    if Counter(deck) != SET_COUNTER:
        raise RecordError("the record's 'deck' must hold exactly the 60 tiles (RULES.md §2)")
    return [INDEX[c] for c in deck]


def replay(record: Mapping[str, Any]) -> MetroState:
    """Play a record's moves from its deck, checking each; RecordError names the first bad move."""
    if not isinstance(record, Mapping):
        raise RecordError("a record must be a JSON object")
    if record.get("format", FORMAT) != FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r}; expected {FORMAT!r}")
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
    if action not in ("place", "draw_place"):
        raise RecordError(f"unknown action {action!r}; expected 'place' or 'draw_place'")
    if action == "draw_place":
        state.play(seat, {"action": "draw"})
    before = state.reshuffles
    state.play(seat, {"action": "place", "placement": move.get("placement")})
    redeck = move.get("redeck")
    if state.reshuffles == before:
        if redeck is not None:
            raise RecordError("'redeck' given, but this move retired no player (RULES.md §9)")
        return
    if redeck is None:
        raise RecordError("this move retires a player; the record must give 'redeck' (RULES.md §9)")
    if not isinstance(redeck, list) or not all(isinstance(c, str) and c in INDEX for c in redeck):
        raise RecordError("'redeck' must be a list of tile codes")
    if Counter(redeck) != Counter(CODES[t] for t in state.deck):
        raise RecordError("'redeck' must hold exactly the tiles of the deck after the reshuffle")
    state.deck = [INDEX[c] for c in redeck]
    prev, (s, m, phys, from_draw, _) = state.history  # type: ignore[misc]
    state.history = (prev, (s, m, phys, from_draw, tuple(state.deck)))
