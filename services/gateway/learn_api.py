"""First-game tutorials: `GET /api/learn/<kind>`, a game's scripted first game, step by step.

A game that offers one has a `tutorial` module in its package (`games/<kind>/tutorial.py`) whose
`steps()` lists the learner's steps: the learner's view before the step (the game's own
`view(seat)`), the one move to make (None at the end) and what to say (catalogue keys with their
parameters). Nothing here names a game. The answer shapes each view as the engine shapes a live
game's (the common fields of API.md), so the game's own page module draws it unchanged, and gives
the move as `legal`, the list the page offers: the page then lets the learner make only that move.

The script is the rules core's, played in this process: no engine, no Redis, no state. It is the
same for everyone, so it is computed once per process and may be cached by the browser.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
from functools import cache
from typing import Any

from flask import Blueprint, Response

import games
from games.errors import GameError
from services.gateway.errors import ApiError

bp = Blueprint("learn", __name__, url_prefix="/api")

KIND = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_AGE_S = 300


def _tutorial_module(kind: str) -> Any:
    """The game's `tutorial` module; ApiError 404 for an unknown game or one without a tutorial."""
    if not KIND.match(kind):
        raise ApiError(404, "game_not_found", f"no game {kind[:32]!r}")
    try:
        game = games.get(kind)
    except GameError:
        raise ApiError(404, "game_not_found", f"no game {kind!r}") from None
    name = f"{game.package}.tutorial"
    if importlib.util.find_spec(name) is None:
        raise ApiError(404, "no_tutorial", f"{kind!r} has no tutorial")
    return importlib.import_module(name)


def page_view(kind: str, view: dict[str, Any], version: int, learner: int) -> dict[str, Any]:
    """`view` (the game's `view(learner)`) with the common fields a live game's view carries."""
    doc = dict(view)
    status = "over" if view.get("status") == "over" else "playing"
    to_move = list(view.get("to_move", ())) if status == "playing" else []
    doc.update(
        game_id="tutorial",
        game=kind,
        version=version,
        status=status,
        # names are the page's words, in its language
        seats=[
            {
                **seat,
                "seat": i,
                "name": "",
                "kind": "human" if i == learner else "ai",
                "level": None,
            }
            for i, seat in enumerate(view.get("seats", []))
        ],
        to_move=to_move,
        last_event_id="",
        turn_version=version,
        seat=learner,
        winners=list(view.get("winners") or ()),
    )
    return doc


@cache
def tutorial_body(kind: str) -> bytes:
    """The whole tutorial of `kind` as the JSON the page reads (computed once per process)."""
    module = _tutorial_module(kind)
    learner = int(getattr(module, "LEARNER", 0))
    steps = []
    for i, step in enumerate(module.steps()):
        move = step.get("move")
        steps.append(
            {
                "view": page_view(kind, step["view"], i + 1, learner),
                "legal": [move] if move is not None else [],
                "say": step["say"],
            }
        )
    return json.dumps({"game": kind, "seat": learner, "steps": steps}, ensure_ascii=False).encode()


@bp.get("/learn/<kind>")
def tutorial(kind: str) -> Response:
    """A game's first-game tutorial: its steps, each a view, the move to make and the words."""
    response = Response(tutorial_body(kind), mimetype="application/json")
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE_S}"
    return response
