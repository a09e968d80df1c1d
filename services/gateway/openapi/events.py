"""The events of a game's stream (`GET /api/games/{id}/events`) in the OpenAPI document, made from
one source: the engine's own actions (ENGINE_ACTIONS, the table-level changes it commits) and each
game's (`Game.event_actions()`, what its moves make). docs/bots.md's table of actions is the same
text (`actions_table`, checked by tests/bots/test_contract.py; print it with
`python -m services.gateway.openapi.events`), and the tests hold real events of every game to the
schema, so the document, the guide and the server cannot drift apart silently.
"""

from __future__ import annotations

import games
from services.gateway.openapi.common import JSON, obj, ref

# The changes the engine itself commits (services/engine: lobby, party, invitations, away).
ENGINE_ACTIONS: dict[str, str] = {
    "create": "the table was made (`scores`; `to_move` is empty while a seat is open)",
    "join": "a seat was taken (`name`; `bot`: by a bot account accepting its invitation)",
    "start": "a party table started (`players`)",
    "declined": "an invited bot declined: the seat is open",
    "bot": "a bot account sat at the seat (by `POST /api/games/{id}/player`): it is marked as "
    "a bot's",
    "left": "a player handed their `seats` to the AI (`then`: ai; at a table whose time-out "
    "loses, lose, with `retired`)",
    "timeout": "time ran out for `seats` (`then`: ai, the AI plays them until they move again; "
    "lose, they are out for good, with `retired`)",
    "returned": "a player took back their `seats` from the AI",
    "resigned": "a player gave up (`seat`): it retired for good, with `retired` (a loss)",
    "offer": "a seat offered the table to stop (`offer`: n, kind abort or end, by, accepted)",
    "offer_accepted": "a seat accepted the open `offer`; others still to answer",
    "offer_declined": "a seat declined the open `offer`: it is off",
    "offer_agreed": "the last seat accepted: the game is over, unrated (`winners`; none for "
    "an abort)",
}


def game_actions() -> dict[str, dict[str, str]]:
    """Each game kind's own actions, from the registry."""
    return {game.kind: game.event_actions() for game in games.all_games()}


def all_actions() -> list[str]:
    """Every action an event may name: the engine's, then each game's (no duplicates)."""
    out = list(ENGINE_ACTIONS)
    for actions in game_actions().values():
        out += [a for a in actions if a not in out]
    return out


def event_schema() -> JSON:
    """`GameEvent`: the data of one `message` of a game's stream."""
    seats = {"type": "array", "items": {"type": "integer", "minimum": 0}}
    return obj(
        {
            "event_id": ref("EventId"),
            "game_id": {"type": "string"},
            "version": {"type": "integer", "minimum": 0, "description": "the game's version "
                        "after this event (as the view's `version`)"},
            "status": {"enum": ["waiting", "playing", "over"]},
            "to_move": {**seats, "description": "the seats that must move now ([] unless "
                        "playing); in every event"},
            "action": {"enum": all_actions(), "description": "what happened (docs/bots.md, "
                       "Events: the table of actions)"},
            "seat": {"type": "integer", "minimum": 0, "description": "the seat it concerns"},
            "seats": seats,
            "by": {"enum": ["player", "ai"], "description": "a move's: who made it ('ai': for "
                   "an AI seat, or for a person's seat while they are away)"},
            "scores": {"type": "array", "items": {"type": "integer"}},
            "returned": {**seats, "description": "seats a move took back from the AI"},
            "delta": {"type": "object", "description": "?delta=1 only (docs/api-deltas.md)"},
            "legal": ref("LegalMoves"),
        },
        ["event_id", "game_id", "version", "status", "to_move", "action"],
        description="The data of one message of a game's event stream: these fields in every "
        "event; the rest is the action's own (the game's rules file). Actions: "
        + "; ".join(f"{a}: {text}" for a, text in ENGINE_ACTIONS.items())
        + "; "
        + "; ".join(
            f"{kind}: " + ", ".join(actions) for kind, actions in game_actions().items()
        )
        + ".",
    )  # fmt: skip


def actions_table() -> str:
    """docs/bots.md's table of event actions (Markdown), from the same source as the schema."""
    rows = ["| action | game | what happened |", "|---|---|---|"]
    rows += [f"| `{a}` | every game | {text} |" for a, text in ENGINE_ACTIONS.items()]
    for kind, actions in game_actions().items():
        rows += [f"| `{a}` | {kind} | {text} |" for a, text in actions.items()]
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(actions_table(), end="")
