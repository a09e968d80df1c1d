"""Party tables' part of the OpenAPI document (services/gateway/party_api.py): the party create
body of `POST /api/games`, joining by code, the host's start, the party's state and the QR code
of the join page."""

from __future__ import annotations

from services.gateway.openapi.common import (
    GAME_ID,
    JSON,
    MAX_NAME,
    SEAT_ONLY,
    body,
    obj,
    ref,
    responses,
)
from services.gateway.openapi.paths import IDEMPOTENCY_KEY

CODE = {
    "name": "code",
    "in": "path",
    "required": True,
    "description": "The join code the host's screen shows: 6 of `ACEFHJKMNPRTWXY3479` (no "
    "look-alikes); typed in any case, spaces and dashes ignored.",
    "schema": {"type": "string", "pattern": "^[A-Za-z0-9 -]{1,20}$"},
}


def party_schemas() -> JSON:
    integer, string = {"type": "integer"}, {"type": "string"}
    return {
        "CreateParty": obj(
            {
                "party": {"const": True},
                "game": {
                    **string,
                    "description": "a game whose seats move at once (GET /api/party/games)",
                },
                "host_only": {
                    "type": "boolean",
                    "default": False,
                    "description": "the host only hosts: no seat, only the host token",
                },
                "name": {**string, "maxLength": MAX_NAME, "description": "the host's seat"},
                "rules": {
                    "type": "object",
                    "description": "the game's options; `players`: the most seats (default "
                    "the game's most); at the start the game is dealt for the seats taken",
                },
                "clock": {
                    **ref("ClockRules"),
                    "description": "the per-turn timer (`move_s`): a seat that has not chosen "
                    "in time gets the clock's time-out",
                },
            },
            ["party"],
            additionalProperties=False,
        ),
        "PartyCreated": obj(
            {
                "game_id": string,
                "seat": {"type": ["integer", "null"], "description": "null: host only"},
                "token": {**string, "description": "the host's seat token ('' host only)"},
                "join_code": string,
                "host_token": {
                    **string,
                    "description": "starts the table: keep it secret (it is no seat's token: "
                    "with it `GET /api/games/{game_id}` answers the public view, as a spectator)",
                },
            },
            ["game_id", "seat", "token", "join_code", "host_token"],
        ),
        "PartyGames": obj(
            {
                "games": {
                    "type": "array",
                    "items": obj({"game": string, "max_seats": integer}, ["game", "max_seats"]),
                }
            },
            ["games"],
        ),
        "JoinByCode": obj({"name": {**string, "maxLength": MAX_NAME}}, additionalProperties=False),
        "Party": obj(
            {
                "game_id": string,
                "join_code": string,
                "status": {"enum": ["open", "started"]},
                "seats_taken": integer,
                "max_seats": integer,
                "host_only": {"type": "boolean"},
            },
            ["game_id", "join_code", "status", "seats_taken", "max_seats", "host_only"],
        ),
    }


def party_paths() -> JSON:
    join = {
        "operationId": "joinByCode",
        "summary": "Take a seat at a party table by its code, until the host starts it. 404 "
        "`party_not_found`; 409 `party_started` or `party_full`; 429 beyond the join rate.",
        "tags": ["party"],
        "parameters": [IDEMPOTENCY_KEY],
        "requestBody": {"required": False, "content": body(ref("JoinByCode"))["content"]},
        "responses": responses(
            200, ref("Joined"), "The seat and its token.", 400, 404, 409, 413, 429, 503
        ),
    }
    start = {
        "operationId": "startParty",
        "summary": "The host starts the table with the seats taken (host token); starting a "
        "started table answers it as it is. 409 `party_empty` before anyone joined.",
        "tags": ["party"],
        "security": SEAT_ONLY,
        "responses": responses(200, ref("Party"), "Started.", 400, 403, 404, 409, 429, 503),
    }
    info = {
        "operationId": "getParty",
        "summary": "A party table's code and state (public, as its host screen shows it).",
        "tags": ["party"],
        "responses": responses(200, ref("Party"), "The party.", 400, 404, 429, 503),
    }
    qr = {
        "operationId": "joinQrCode",
        "summary": "A QR code (SVG) of the join page `<origin>/#/join/<code>`.",
        "tags": ["party"],
        "responses": {
            "200": {
                "description": "The QR code.",
                "content": {"image/svg+xml": {"schema": {"type": "string"}}},
            },
            **{k: v for k, v in responses(200, {}, "", 400, 429).items() if k != "200"},
        },
    }
    listed = {
        "operationId": "partyGames",
        "summary": "The games that offer party tables (their seats move at once).",
        "tags": ["party"],
        "responses": responses(200, ref("PartyGames"), "The games.", 429),
    }
    return {
        "/api/party/games": {"get": listed},
        "/api/join/{code}": {"parameters": [CODE], "post": join},
        "/api/join/{code}/qr.svg": {"parameters": [CODE], "get": qr},
        "/api/games/{game_id}/start": {"parameters": [GAME_ID], "post": start},
        "/api/games/{game_id}/party": {"parameters": [GAME_ID], "get": info},
    }


def with_party_create(paths: JSON) -> JSON:
    """`POST /api/games` takes a party body too (`"party": true`) and answers its code."""
    create = paths["/api/games"]["post"]
    content = create["requestBody"]["content"]["application/json"]
    content["schema"] = {"oneOf": [content["schema"], ref("CreateParty")]}
    created = create["responses"]["201"]["content"]["application/json"]
    created["schema"] = {"anyOf": [created["schema"], ref("PartyCreated")]}
    create["summary"] += ' With `"party": true`: a party table people join by code.'
    # A party table is joined by its code only: unlisted, and its game id seats no one.
    paths["/api/games"]["get"]["summary"] += " Party tables are not listed as open."
    paths["/api/games/{game_id}/join"]["post"]["summary"] += (
        " A party table answers 409 `join_by_code`: it is joined by its code only."
    )
    paths["/api/games/{game_id}"]["get"]["summary"] += (
        " A party table's host token reads it as a spectator."
    )
    return paths
