"""Error codes named in the responses that can carry them: a client reads from the document
which `error.code` a status means on each operation, not only the generic sentence."""

from __future__ import annotations

from typing import Any

JSON = dict[str, Any]

# The archive's routes (services/gateway/archive_api.py): PostgreSQL down or not configured.
ARCHIVE_OPERATIONS = (
    ("get", "/api/players/{player_id}"),
    ("get", "/api/players/{player_id}/games"),
    ("get", "/api/players/{player_id}/games/export"),
    ("delete", "/api/players/me"),
    ("get", "/api/players/me/export"),
)
# The costly calls that fail closed while the rate limits' store fails (limit_safety.py's
# FAIL_CLOSED endpoints; tests/gateway/test_openapi.py checks the two lists agree).
COSTLY_OPERATIONS = (
    ("post", "/api/games"),
    ("post", "/api/games/{game_id}/join"),
    ("post", "/api/games/{game_id}/hint"),
    ("post", "/api/rules"),
    ("post", "/api/games/{game_id}/analysis"),
    ("post", "/api/players"),
    ("post", "/api/games/{game_id}/rematch"),
    ("post", "/api/invitations/{invitation_id}/accept"),
    ("post", "/api/daily/{game}/games"),
    ("post", "/api/join/{code}"),
    ("post", "/api/games/{game_id}/start"),
)
ARCHIVE_UNAVAILABLE = (
    " `archive_unavailable`: the archive (PostgreSQL) does not answer or none is configured."
)
LIMITS_UNAVAILABLE = (
    " `limits_unavailable`: the rate limits cannot be counted right now, so this costly call is "
    "refused for a moment; wait `Retry-After` seconds."
)
IDEMPOTENCY_MISMATCH = (
    " `idempotency_mismatch`: this `move_id` was used before with a different move."
)


def name_refusals(paths: JSON) -> None:
    """Add the codes above to the descriptions of the responses that carry them (in place)."""
    for method, path in ARCHIVE_OPERATIONS:
        _named(paths, method, path, "503", ARCHIVE_UNAVAILABLE)
    for method, path in COSTLY_OPERATIONS:
        _named(paths, method, path, "503", LIMITS_UNAVAILABLE)
    _named(paths, "post", "/api/games/{game_id}/moves", "422", IDEMPOTENCY_MISMATCH)


def _named(paths: JSON, method: str, path: str, status: str, text: str) -> None:
    responses = paths[path][method]["responses"]
    response = responses.get(status)
    if response is None:  # the status was not documented there: it is now
        response = {"description": "", "content": {"application/json": {"schema": {
            "$ref": "#/components/schemas/Error"}}}}  # fmt: skip
    # A copy: the generic responses are shared between operations.
    responses[status] = {**response, "description": (response["description"] + text).strip()}
