"""Errors the page words itself: a refused field carries a stable `reason` and `params` beside
API.md's `code` and `message` (services/gateway/field_errors.py), every reason has a sentence in
every language, and a rule refusal names its rule once, with its section sign, for every game's
rules file (services/gateway/errors.py), through the real engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from games.metrox import maps
from services.gateway.errors import _rule_text
from services.gateway.field_errors import REASONS
from tests.fixtures.gateway import GatewayApi
from tests.fixtures.gateway import api_error as error

ROOT = Path(__file__).resolve().parents[2]
LANGS = ("en", "hu", "fr", "es")
ME = [{"kind": "human", "name": "Ada"}]


def create(api: GatewayApi, game: str, rules: dict[str, Any], seats: Any = None) -> dict[str, Any]:
    """The error of a refused create (it must be a 400), checked for API.md's shape."""
    status, body = api.post("/api/games", {"game": game, "rules": rules, "seats": seats or ME})
    assert status == 400, body
    return error(body)


@pytest.mark.parametrize(
    ("game", "rules", "reason", "params"),
    [
        ("metrox", {"players": 1, "daily": "no spaces!"}, "bad_format", {"option": "daily"}),
        ("metrox", {"players": 1, "daily": 7}, "not_text", {"option": "daily"}),
        ("metrox", {"players": 99}, "out_of_range", {"option": "players", "min": 1, "max": 50}),
        ("metrox", {"players": 1, "map": "atlantis"}, "not_a_choice", {"option": "map"}),
        ("metro", {"players": 2.5}, "not_whole_number", {"option": "players"}),
        ("metro", {"players": 2, "rotation": "yes"}, "not_true_false", {"option": "rotation"}),
        ("underground", {"players": 9}, "out_of_range", {"min": 2, "max": 5}),
        ("metro", {"players": 2, "colour": "red"}, "unknown_option", {"option": "colour"}),
    ],
)
def test_an_option_error_says_why_beside_the_english(
    api: GatewayApi, game: str, rules: dict[str, Any], reason: str, params: dict[str, Any]
) -> None:
    seats = ME + [{"kind": "open"}] * (int(rules.get("players", 2)) - 1) if game != "metrox" else ME
    err = create(api, game, rules, seats)
    assert err["code"] == "invalid_rules"  # API.md's code and English message, unchanged
    assert err["field"].startswith("rules.")
    assert err["reason"] == reason, err
    assert params.items() <= err["params"].items(), err
    if reason != "unknown_option":
        assert err["params"]["game"] == game


def test_the_daily_message_stays_the_engine_s_english(api: GatewayApi) -> None:
    err = create(api, "metrox", {"players": 1, "daily": "x" * 40})
    assert err["message"] == "'daily' must be 1..32 characters of A-Z a-z 0-9 - _"
    assert (err["field"], err["reason"]) == ("rules.daily", "bad_format")


def test_seat_and_name_errors_say_why(api: GatewayApi) -> None:
    long_name = [{"kind": "human", "name": "A" * 41}, {"kind": "open"}]
    err = create(api, "metro", {"players": 2}, long_name)
    assert (err["field"], err["reason"], err["params"]["max"]) == ("seats[0].name", "too_long", 40)
    err = create(api, "metro", {"players": 3}, ME)
    assert err["reason"] == "wrong_seat_count"
    assert err["params"] == {"field": "seats", "given": 1, "game": "metro", "min": 2, "max": 6,
                             "players": 3}  # fmt: skip
    err = create(api, "metro", {"players": 2}, [{"kind": "human", "name": 5}, {"kind": "open"}])
    assert (err["field"], err["reason"]) == ("seats[0].name", "not_text")
    err = create(api, "metro", {"players": 2}, [*ME, {"kind": "robot"}])
    assert (err["field"], err["reason"]) == ("seats[1].kind", "not_a_choice")
    status, body = api.post("/api/games", {"game": "chess", "seats": ME})
    err = error(body)
    assert status == 400 and (err["field"], err["reason"]) == ("game", "not_a_choice")
    status, body = api.post("/api/games", {"game": "metro", "seats": ME, "colour": "red"})
    err = error(body)
    assert (err["code"], err["field"], err["reason"]) == ("bad_request", "colour", "unknown_field")
    status, body = api.post("/api/games", {"game": "metro", "seats": "two"})
    assert (error(body)["field"], error(body)["reason"]) == ("seats", "not_list")


def test_join_and_list_errors_say_why(api: GatewayApi) -> None:
    status, made = api.post(
        "/api/games", {"game": "metro", "rules": {"players": 2}, "seats": [*ME, {"kind": "open"}]}
    )
    assert status == 201, made
    status, body = api.post(f"/api/games/{made['game_id']}/join", {"name": "B" * 60})
    err = error(body)
    assert status == 400 and (err["field"], err["reason"]) == ("name", "too_long"), err
    status, body = api.get("/api/games?status=finished-ish")
    err = error(body)
    assert status == 400 and (err["field"], err["reason"]) == ("status", "not_a_choice"), err
    # An error without a field is unchanged: API.md's two fields only.
    status, body = api.get("/api/games/no-such-game")
    assert status == 404 and set(error(body)) == {"code", "message"}


def test_every_reason_has_a_sentence_in_every_language() -> None:
    for lang in LANGS:
        words = json.loads((ROOT / "web" / "i18n" / lang / "errors.json").read_text("utf-8"))
        missing = [r for r in REASONS if f"error.reason.{r}" not in words]
        assert not missing, (lang, missing)


@pytest.mark.parametrize(
    ("sent", "shown"),
    [
        ("RULES.md ?6", "RULES.md §6"),
        ("RULES-METROX.md ?3", "RULES-METROX.md §3"),
        ("RULES-UNDERGROUND.md ?3 (the passenger)", "RULES-UNDERGROUND.md §3 (the passenger)"),
        ("is this? RULES.md", "is this? RULES.md"),
    ],
)
def test_rule_names_get_their_section_sign_back(sent: str, shown: str) -> None:
    assert _rule_text(sent) == shown


def test_a_metrox_refusal_names_its_rule_once_with_the_section_sign(api: GatewayApi) -> None:
    status, made = api.post("/api/games", {"game": "metrox", "rules": {"players": 1}, "seats": ME})
    assert status == 201, made
    game, token = made["game_id"], made["token"]
    view = api.view_when(game, token, lambda v: v["status"] == "playing")
    free = view["card"].rstrip("*") == "f"
    # The wrong kind of move for the card: a station for a line card, a line for a free card.
    station = maps.shipped()[view["rules"]["map"]].station_ids[0]
    wrong = {"line": view["lines"][0]["line"]} if free else {"station": station}
    status, body = api.post(f"/api/games/{game}/moves", wrong, token=token)
    assert status == 422, body
    err = error(body)
    assert err["rule"] == "RULES-METROX.md §3", err
    assert err["message"].count("RULES-METROX.md") == 1, err["message"]
    assert "RULES-METROX.md §3" in err["message"] and "?3" not in err["message"]
