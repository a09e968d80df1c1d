"""Records (RULES-METROX.md §7): export, and replay that re-checks every card and move.

A record names the revealed cards instead of a seed, so replay deals them: each card must be one
that the deck could show at that point (the rest of the current deck, or any of the 14 after a
shuffle card), and the first card that could not is refused before any move is played.

A seat that retired (`MetroXState.retire`) is listed in `"retired": [{"seat": 2, "turn": 5}]`
(in the order they left; `turn` indexes `turns`, the turn open when it left): its move in that
turn and every later one is null. A game that ended because its last seat left names one card
more than its turns (the card of the turn that never resolved).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from games.base import JSON
from games.errors import GameError, RecordError
from games.metrox.cards import DECK_COUNTER, INFO
from games.metrox.rules import normalise
from games.metrox.state import MetroXState
from games.record import check_header, header


class TurnError(RecordError):
    """A record's move that breaks a rule: `turn` and `seat` say which (§8's replay answer)."""

    def __init__(self, message: str, turn: int, seat: int | None) -> None:
        super().__init__(message, move=turn)
        self.turn = turn
        self.seat = seat


def export(state: MetroXState, seats: Sequence[Mapping[str, Any]] | None = None) -> JSON:
    """The record of `state` so far. A finished game's record has one card per turn; an open
    game's also names the card of the open turn (its deck: give it out only when finished)."""
    if seats is None:
        seats = [{"name": f"Player {i + 1}", "kind": "human"} for i in range(state.n)]
    out: JSON = {
        **header("metrox"),
        "rules": dict(state.rules),
        "seats": [dict(s) for s in seats],
        "cards": state.cards[:],
        "turns": [[None if mv is None else mv.to_json() for mv in t] for t in state.turns],
        "scores": state.scores,
    }
    if state.retirements:
        out["retired"] = [{"seat": p, "turn": turn} for p, turn in state.retirements]
    return out


def check_retired(retired: Any, n: int, turns: int) -> list[tuple[int, int]]:
    """The record's retirements: (seat, turn) pairs, each seat once, turns in order."""
    if retired is None:
        return []
    if not isinstance(retired, list):
        raise RecordError("the record's 'retired' must be a list of {seat, turn} objects")
    out: list[tuple[int, int]] = []
    for i, r in enumerate(retired):
        seat = r.get("seat") if isinstance(r, Mapping) else None
        turn = r.get("turn") if isinstance(r, Mapping) else None
        if type(seat) is not int or type(turn) is not int:
            raise RecordError(f"retired[{i}] must be an object with integer 'seat' and 'turn'")
        if not 0 <= seat < n:
            raise RecordError(f"retired[{i}]: there is no seat {seat} in this game")
        if any(seat == s for s, _ in out):
            raise RecordError(f"retired[{i}]: seat {seat} retires twice")
        if not 0 <= turn <= turns or (out and turn < out[-1][1]):
            raise RecordError(f"retired[{i}]: turn {turn} is out of order or past the turns")
        out.append((seat, turn))
    return out


def check_cards(cards: Any) -> list[str]:
    """§2: the cards must read as decks of 14 dealt in order, a new deck after each `*`."""
    if not isinstance(cards, list) or not cards:
        raise RecordError("the record's 'cards' must be a non-empty list of card codes")
    seen: Counter[str] = Counter()
    for i, card in enumerate(cards):
        if not isinstance(card, str) or card not in INFO:
            raise TurnError(f"cards[{i}]: {card!r} is not a card code", i, None)
        seen[card] += 1
        if seen[card] > DECK_COUNTER[card]:
            raise TurnError(
                f"cards[{i}]: no card {card!r} is left in the deck since the last shuffle", i, None
            )
        if INFO[card][2]:
            seen.clear()
    return cards


def replay(record: Any) -> MetroXState:
    """Play a record, checking every card and move; TurnError names the first bad one."""
    record = check_header(record, "metrox")
    try:
        rules = normalise(record.get("rules"))
    except GameError as err:
        raise RecordError(str(err)) from None
    cards = check_cards(record.get("cards"))
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise RecordError("the record's 'turns' must be a list")
    state = MetroXState.new(rules, 0)
    state.reveal_as(cards[0])
    retired = check_retired(record.get("retired"), state.n, len(turns))
    for i, turn in enumerate(turns):
        _retire(state, retired, i)
        if state.over:
            raise TurnError(f"turn {i}: the game ended before this turn", i, None)
        if i >= len(cards):
            raise TurnError(f"turn {i}: the record names no card for it", i, None)
        if not isinstance(turn, list) or len(turn) != state.n:
            raise TurnError(f"turn {i}: a turn is a list of {state.n} moves, one per seat", i, None)
        for seat, move in enumerate(turn):
            if state.retired_mask >> seat & 1:
                if move is not None:
                    raise TurnError(
                        f"turn {i}, seat {seat}: the seat has retired; its move must be null",
                        i,
                        seat,
                    )
                continue
            try:
                checked = state.check(seat, move)
            except GameError as err:
                raise TurnError(f"turn {i}, seat {seat}: {err}", i, seat) from None
            state.apply(seat, checked)  # the last choice of the turn resolves it
        _next_card(state, cards, i)
    _retire(state, retired, len(turns))
    if state.over and state.windows_left > 0:  # ended by its last seat leaving
        if len(cards) != len(turns) + 1:
            raise RecordError("a game its last seat left names one card more than its turns")
    elif state.over and len(cards) != len(turns):
        raise TurnError(f"cards[{len(turns)}]: the game ended before that card", len(turns), None)
    if not state.over and len(cards) != len(turns) + 1:
        raise RecordError("an unfinished record names one card more than its turns")
    scores = record.get("scores")
    if state.over and scores is not None and scores != state.scores:
        raise RecordError(f"the record's scores {scores} are not the replayed {state.scores}")
    return state


def _retire(state: MetroXState, retired: list[tuple[int, int]], turn: int) -> None:
    """The seats that retired in `turn`, before its moves (their choices were dropped)."""
    for seat, at in retired:
        if at == turn:
            if state.over:
                message = f"turn {turn}: seat {seat} retires after the game ended"
                raise TurnError(message, turn, seat)
            state.retire(seat)


def _next_card(state: MetroXState, cards: list[str], i: int) -> None:
    """Turn `i` has resolved; the next card is the record's."""
    if not state.over and i + 1 < len(cards):
        try:
            state.reveal_as(cards[i + 1])
        except ValueError:
            raise TurnError(
                f"cards[{i + 1}]: {cards[i + 1]!r} is not left in the deck", i + 1, None
            ) from None


def steps(record: Mapping[str, Any]) -> Iterator[tuple[int, MetroXState, int, JSON]]:
    """A record's decisions in order, for post-game analysis: (its turn, the state before it,
    the seat, its move JSON), each seat's choice of a turn apart, in seat order (the choices
    before it in the same turn are hidden from that seat's view). The state is live: it moves
    on once the next decision is asked for. The record is checked by `replay` first."""
    replay(record)
    cards = check_cards(record.get("cards"))
    turns = record["turns"]
    state = MetroXState.new(normalise(record.get("rules")), 0)
    state.reveal_as(cards[0])
    retired = check_retired(record.get("retired"), state.n, len(turns))
    for i, turn in enumerate(turns):
        _retire(state, retired, i)
        for seat, move in enumerate(turn):
            if state.retired_mask >> seat & 1:
                continue
            yield i, state, seat, move
            state.apply(seat, state.check(seat, move))
        _next_card(state, cards, i)
