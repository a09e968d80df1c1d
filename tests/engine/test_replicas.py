"""Two engine replicas over one Redis: each one's cached snapshots go stale whenever the other
moves, and the commit's version check keeps every answer right."""

from __future__ import annotations

import random

import grpc
import pytest

import games
from tests.engine.helpers import choose, moves_of, record_of
from tests.fixtures.engine import doc


def test_moves_alternate_between_replicas(redis_url: str, engine_factory) -> None:
    a, b = engine_factory(redis_url).client(), engine_factory(redis_url).client()
    game_id, tokens = a.create_full({"players": 3, "hand_size": 2})
    rng = random.Random(11)
    view = b.view(game_id)
    turn = 0
    while view.status != "over":
        mover, other = (a, b) if turn % 2 == 0 else (b, a)
        if turn % 3 == 0:  # now and then the next move goes to the same replica twice
            mover, other = other, mover
        (seat,) = view.to_move
        legal = mover.legal(game_id, tokens[seat])
        action, placement = choose(moves_of(legal), rng, 0.3)
        move_id = f"m{turn}"
        answer = mover.move(game_id, tokens[seat], action, placement, move_id=move_id,
                            expected_version=legal.version)  # fmt: skip
        # The retry reaches the other replica, whose snapshot is a version behind.
        again = other.move(game_id, tokens[seat], action, placement, move_id=move_id,
                           expected_version=legal.version)  # fmt: skip
        # A duplicate changes nothing and answers the mover's view as it is now: nothing
        # moved in between, so that is the first answer's game, whichever replica answers.
        assert again.version == answer.version and again.seat == seat
        assert again == answer
        # A stale pin through the other replica is refused, not applied.
        if answer.status != "over":
            with pytest.raises(grpc.RpcError) as stale:
                (next_seat,) = answer.to_move
                other.move(game_id, tokens[next_seat], "draw", expected_version=legal.version)
            assert stale.value.code() == grpc.StatusCode.ABORTED
        view = (other if turn % 2 else mover).view(game_id)
        assert view.version == answer.version and list(view.to_move) == list(answer.to_move)
        turn += 1
    replayed = games.get("metro").replay(record_of(a, game_id))
    assert replayed.scores == [s["score"] for s in doc(view)["seats"]]
    events = list(b.events(game_id))
    assert [e.version for e in events] == list(range(1, view.version + 1))
