"""How an outcome becomes openskill ranks: winners first, then by score, seats that left last."""

from services.engine.players.ratings import ranks


def test_winners_share_first_and_the_rest_follow_by_score() -> None:
    assert ranks([10, 5, 20, 20], [2, 3]) == [2, 3, 1, 1]


def test_a_seat_that_left_ranks_after_every_seat_that_played_on() -> None:
    # Seat 1 left with the best score so far: still behind both who finished.
    assert ranks([10, 30, 20], [2], retired=[1]) == [2, 4, 1]
    # Two leavers keep their order by score among themselves.
    assert ranks([10, 30, 20, 5], [0], retired=[1, 2]) == [1, 4, 5, 2]
