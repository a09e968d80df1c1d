"""A Metro X seat that has chosen this turn may choose again (a hint, or the AI thinking anew):
its worlds leave its own choice out and must not count it either. Counted, the seat's new
choice resolved the turn at once, without the choices of the seats still to choose, so the
search judged a turn that cannot happen."""

from __future__ import annotations

import random

import games
from services.ai.players import InfoSet


def test_a_world_of_a_seat_that_chose_waits_for_the_seats_still_to_choose() -> None:
    state = games.get("metrox").new_state({"players": 3}, seed=7)
    turn = state.view(None)["turn_index"]
    state.apply(0, state.legal_moves(0)[0])  # seat 0 chose; seats 1 and 2 not yet
    state.apply(1, state.legal_moves(1)[0])  # seat 1 chose too
    info = InfoSet.from_state(state, 0)
    assert info.may_move
    rng = random.Random(1)
    for _ in range(20):
        world = info.sampler.sample(rng)
        assert set(world.to_move()) == {0, 2}  # its own choice is out; seat 1's is dealt
        world.apply(0, world.legal_moves(0)[0])
        assert world.to_move() == (2,), "the turn resolved without seat 2's choice"
        assert world.view(None)["turn_index"] == turn
        world.apply(2, world.legal_moves(2)[0])
        assert world.view(None)["turn_index"] == turn + 1  # now the turn resolves
