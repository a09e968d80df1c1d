"""The record header, once for every game (games/record.py): each game's export opens with the
same `FORMAT`, and each game's replay refuses a record of another format or of another game with
the same words, before it reads anything of the game's own."""

from __future__ import annotations

import pytest

import games
from games.errors import RecordError
from games.record import FORMAT

KINDS = games.kinds()


def fresh_record(kind: str) -> dict[str, object]:
    game = games.get(kind)
    return game.record(game.new_state(game.normalise_rules(None), 5))


@pytest.mark.parametrize("kind", KINDS)
def test_every_record_opens_with_the_one_format_and_names_its_game(kind: str) -> None:
    record = fresh_record(kind)
    assert next(iter(record)) == "format" and record["format"] == FORMAT
    # RULES.md §9's record (the default game's) names no game; every other game's does.
    assert record.get("game", games.default().kind) == kind
    assert games.get(kind).replay(record).to_move() is not None  # it replays as it is


@pytest.mark.parametrize("kind", KINDS)
def test_a_record_of_another_game_is_refused_by_its_header(kind: str) -> None:
    other = next(k for k in KINDS if k != kind)
    with pytest.raises(RecordError, match=f"^this is a record of '{other}', not of '{kind}'$"):
        games.get(kind).replay({**fresh_record(kind), "game": other})


@pytest.mark.parametrize("kind", KINDS)
def test_another_format_or_no_object_is_refused_by_the_header(kind: str) -> None:
    game = games.get(kind)
    with pytest.raises(RecordError, match=r"^unknown record format 'metro-record/2'; expected"):
        game.replay({**fresh_record(kind), "format": "metro-record/2"})
    with pytest.raises(RecordError, match=r"^a record must be a JSON object$"):
        game.replay([FORMAT])  # type: ignore[arg-type]
