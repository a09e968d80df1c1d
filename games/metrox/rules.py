"""Game options (RULES-METROX.md §6): players, map and the optional daily puzzle string."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from games.errors import RulesError
from games.metrox import maps

MIN_PLAYERS, MAX_PLAYERS = 1, 50
DAILY = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
KEYS = ("players", "map", "daily")


def normalise(rules: Mapping[str, Any] | None) -> dict[str, Any]:
    """Every option with its default filled in; RulesError naming `rules.<key>` otherwise.

    `daily` is left out when absent or null, so the rules of an ordinary game stay
    `{"players", "map"}` as §6 and §7 show them."""
    if rules is None:
        rules = {}
    if not isinstance(rules, Mapping):
        raise RulesError("rules must be a JSON object", "rules")
    for key in rules:
        if key not in KEYS:
            raise RulesError(f"unknown option {key!r}; known: {', '.join(KEYS)}", f"rules.{key}")
    players = rules.get("players", 2)
    if type(players) is not int:
        raise RulesError("'players' must be an integer", "rules.players")
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise RulesError(f"'players' must be {MIN_PLAYERS}..{MAX_PLAYERS}", "rules.players")
    map_id = rules.get("map", maps.beginner().id)
    if not isinstance(map_id, str) or map_id not in maps.shipped():
        raise RulesError(
            f"unknown map {map_id!r}; known maps: {', '.join(maps.shipped())}", "rules.map"
        )
    out: dict[str, Any] = {"players": players, "map": map_id}
    daily = rules.get("daily")
    if daily is not None:
        if not isinstance(daily, str) or not DAILY.match(daily):
            raise RulesError("'daily' must be 1..32 characters of A-Z a-z 0-9 - _", "rules.daily")
        out["daily"] = daily
    return out


def daily_rules(digest: bytes, day: int = 0) -> dict[str, Any]:
    """The day's solo puzzle (`Game.daily_rules`): the shipped maps in turn, one a day in id
    order (every city and every map of our own within as many days as there are maps); the
    deck is the digest's, so `digest` picks nothing here."""
    ids = sorted(maps.shipped())
    return normalise({"players": 1, "map": ids[day % len(ids)]})
