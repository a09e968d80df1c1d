"""The option table (RULES.md §7, §9 "rules"): players and the variants, validated in one place."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.errors import RulesError


@dataclass(frozen=True, slots=True)
class MetroRules:
    players: int = 2
    rotation: bool = False
    hand_size: int = 1
    online: bool = False

    @classmethod
    def parse(cls, data: Mapping[str, Any] | None) -> MetroRules:
        """Options from a JSON object; unknown keys and out-of-range values are errors."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RulesError("rules must be a JSON object", field="rules")
        unknown = sorted(set(data) - {"players", "rotation", "hand_size", "online"})
        if unknown:
            raise RulesError(
                f"unknown rule option {unknown[0]!r}; known: players, rotation, hand_size, online",
                field=f"rules.{unknown[0]}",
            )
        players = data.get("players", 2)
        if type(players) is not int or not 2 <= players <= 6:
            raise RulesError(f"players must be an integer 2-6, got {players!r}", "rules.players")
        hand_size = data.get("hand_size", 1)
        if type(hand_size) is not int or not 1 <= hand_size <= 3:
            raise RulesError(
                f"hand_size must be 1, 2 or 3, got {hand_size!r}", field="rules.hand_size"
            )
        flags = {}
        for name in ("rotation", "online"):
            value = data.get(name, False)
            if not isinstance(value, bool):
                raise RulesError(f"{name} must be true or false, got {value!r}", f"rules.{name}")
            flags[name] = value
        return cls(players=players, hand_size=hand_size, **flags)

    @classmethod
    def normalise(cls, data: Mapping[str, Any] | None) -> dict[str, Any]:
        """Every option with its default filled in, as JSON (`Game.normalise_rules`)."""
        return cls.parse(data).to_dict()

    def to_dict(self) -> dict[str, Any]:
        # Written out: `dataclasses.asdict` deep-copies and costs more than the rest of a
        # stored state's encoding put together (it runs on every committed move).
        return {
            "players": self.players,
            "rotation": self.rotation,
            "hand_size": self.hand_size,
            "online": self.online,
        }
