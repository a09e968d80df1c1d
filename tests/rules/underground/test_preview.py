"""The Underground's numbers for the page come from the rules (games/underground/preview.py,
issue 31.2): each legal step's preview is what playing it does, the view's `rail_gains` are what
each rail's event said, `score_from` adds up to the score, and a record's replay positions are
the positions the game went through. Whole random games, retirements included."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

import games
from games.errors import RecordError
from games.underground.moves import Rail, Stop
from games.underground.state import UndergroundState

GAME = games.get("underground")
BUILDING = ("rail", "terminus", "symbol", "enclosed")


def _random_game(seed: int, players: int, check: bool) -> tuple[UndergroundState, list[list[Any]]]:
    """A whole game of random steps (a seat retires in some seeds); with `check`, every legal
    step's preview is compared with what playing it does. Returns the end and every rail's
    event gains in the order laid."""
    state = GAME.new_state({"players": players}, seed)
    assert isinstance(state, UndergroundState)
    pick = random.Random(seed)
    gains: list[list[Any]] = []
    retire_at = pick.randrange(20, 60) if seed % 3 == 0 else -1
    while not state.is_over:
        if state.steps == retire_at and 1 not in state.retired:
            state.retire(1)
            continue
        seat = state.to_move()[0]
        moves = state.legal_moves(seat)
        previews = GAME.previews(state, seat, moves)
        assert len(previews) == len(moves)
        if check:
            for move, preview in zip(moves, previews, strict=True):
                _check(state, seat, move, preview)
        move = pick.choice(moves)
        if isinstance(move, Stop) and len(state.laid) < 2 and pick.random() < 0.7:
            move = pick.choice(moves)  # lay more rails than a plain draw would
        event = state.play(seat, move.to_json())
        if isinstance(move, Rail):
            gains.append(event["gained"])
    return state, gains


def _check(state: UndergroundState, seat: int, move: Any, preview: Any) -> None:
    played = state.copy()
    before = played.scores[:]
    held = played.held_tokens(seat)
    event = played.play(seat, move.to_json())
    assert preview is not None
    if isinstance(move, Stop):
        skip = [g for g in event["gained"] if g["reason"] == "skip"]
        assert preview["gained"] == skip  # what comes after is the passenger's
        assert preview["tokens"] == (skip[0]["tokens"] if skip else 0)
        return
    if isinstance(move, Rail):
        assert preview["gained"] == event["gained"], move
        assert preview["points"] == played.scores[seat] - before[seat]
        assert played.held_tokens(seat) == held + preview["tokens"] - 1  # one rail less to skip
        return
    # a route choice: its rides, then those of a next leg the passenger takes by itself
    assert preview["gained"] == event["gained"][: len(preview["gained"])], move
    assert all(g["reason"] == "ride" for g in preview["gained"])


@pytest.mark.parametrize("seed", range(4))
def test_every_preview_is_what_the_step_does(seed: int) -> None:
    """Every legal step of every position of whole games: the preview's gains are the gains the
    step's event reports, and its points are the mover's score change."""
    _random_game(seed, 2 + seed % 4, check=True)


@pytest.mark.parametrize("seed", range(6))
def test_view_explains_its_scores(seed: int) -> None:
    """The view's `rail_gains` are each rail's event gains, in order; each seat's `score_from`
    adds up to its score, its building parts are the sums of its rails' gains, and its start is
    its seat number (§2), a retired seat's included."""
    state, gains = _random_game(seed, 2 + seed % 4, check=False)
    view = state.view(None)
    assert len(view["rail_gains"]) == len(view["rails"]) == len(gains)
    assert view["rail_gains"] == gains
    for i, seat in enumerate(view["seats"]):
        parts = seat["score_from"]
        assert parts["start"] == i and parts["total"] == seat["score"]
        assert sum(parts[k] for k in ("start", *BUILDING, "ride")) == seat["score"]
        for reason in BUILDING:
            mine = [g["points"] for r in gains for g in r if g["seat"] == i]
            assert parts[reason] == sum(
                g["points"] for r in gains for g in r if g["seat"] == i and g["reason"] == reason
            ), mine


@pytest.mark.parametrize("seed", range(3))
def test_positions_follow_the_game(seed: int) -> None:
    """A finished record's replay positions: one per move and the set-up, the last one the
    game's end (rails, passenger, cards, scores), scores starting at 0, 1, 2 ...; the rails carry
    the gains the view gave them."""
    state, _ = _random_game(seed, 2 + seed, check=False)
    record = state.record()
    answer = GAME.positions(record)
    assert answer is not None
    positions = answer["positions"]
    assert len(positions) == len(record["moves"]) + 1
    assert positions[0]["scores"] == list(range(state.rules.players))
    assert positions[0]["rails"] == 0 and positions[0]["passenger"] == "euston"
    view = state.view(None)
    last = positions[-1]
    assert last["scores"] == [s["score"] for s in view["seats"]]
    assert last["rails"] == len(view["rails"]) == len(answer["rails"])
    assert last["face_up"] == view["face_up"] and last["passenger"] == view["passenger"]
    assert [r["gains"] for r in answer["rails"]] == view["rail_gains"]
    assert all(a["rails"] <= b["rails"] for a, b in itertools.pairwise(positions))


def test_positions_of_a_bad_record_say_why() -> None:
    """A record whose move breaks the rules gets no positions: RecordError, as its replay."""
    state, _ = _random_game(1, 2, check=False)
    record = state.record()
    record["moves"][2]["rails"] = [{"colour": "grey", "a": "euston", "b": "warren_street"}]
    with pytest.raises(RecordError):
        GAME.positions(record)
