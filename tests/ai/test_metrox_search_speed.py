"""What the Metro X search's speed-ups must keep (issue 34 item 4, third round).

Moves are interned (games/metrox/moves.py): equal moves are one object, so the search hashes and
compares them by identity; a parsed move must still be the legal one, a line and a station of the
same id must differ, and a copy or an unpickled move must be the live one. A sampled world's deck
is shuffled without `Random.shuffle`'s call per card (games/metrox/chance.py `shuffle`): the
same draws, the same order, the generator left in the same state."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import FrozenInstanceError

import pytest

import games
from games.metrox.chance import shuffle
from games.metrox.moves import PASS, LineMove, StationMove


def test_equal_moves_are_one_object() -> None:
    assert LineMove("A") is LineMove("A")
    assert StationMove("s1") is StationMove("s1")
    assert LineMove("A") == LineMove("A") and hash(LineMove("A")) == hash(LineMove("A"))
    assert LineMove("A") != StationMove("A")
    assert LineMove("A") != LineMove("B")
    assert {LineMove("A"): 1}[LineMove("A")] == 1


def test_parsed_moves_are_the_legal_ones() -> None:
    game = games.get("metrox")
    state = game.new_state(game.normalise_rules({"players": 2}), 7)
    for move in state.legal_moves(0):
        parsed = game.parse_move(move.to_json())
        assert parsed is move and parsed == move


def test_copies_are_the_live_move() -> None:
    move = LineMove("C")
    assert copy.copy(move) is move and copy.deepcopy(move) is move
    assert pickle.loads(pickle.dumps(move)) is move
    assert pickle.loads(pickle.dumps(StationMove("s3"))) is StationMove("s3")
    assert pickle.loads(pickle.dumps(PASS)) == PASS


def test_moves_stay_frozen() -> None:
    move = LineMove("D")
    with pytest.raises(FrozenInstanceError):
        move.line = "E"  # type: ignore[misc]
    assert LineMove("D").line == "D" and repr(move) == "LineMove(line='D')"


@pytest.mark.parametrize("size", range(16))
def test_shuffle_is_random_shuffle(size: int) -> None:
    for seed in range(200):
        ours, theirs = [str(i) for i in range(size)], [str(i) for i in range(size)]
        mine, ref = random.Random(seed), random.Random(seed)
        shuffle(ours, mine.getrandbits)
        ref.shuffle(theirs)
        assert ours == theirs
        assert mine.getrandbits(64) == ref.getrandbits(64)  # the same draws were taken
