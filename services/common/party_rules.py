"""What the engine and the gateway agree on about party tables (services/engine/play/party.py): the
join code's shape, and which games can have one. Pure: no I/O.

Codes: 6 characters from 19 that are hard to mistake for each other on a screen or by ear (no
0/O/Q/D, 1/I/L, 2/Z, 5/S, 6/G, 8/B, U/V): 47 million codes. What a person types is upper-cased
and may hold spaces or dashes.
"""

from __future__ import annotations

import functools
import re

import games

ALPHABET = "ACEFHJKMNPRTWXY3479"
CODE_LENGTH = 6
_TYPED_SEPARATORS = re.compile(r"[\s-]+")


def normal_code(typed: str) -> str | None:
    """The code a person typed as it is stored (upper case, no spaces or dashes); None when it
    cannot be a code."""
    code = _TYPED_SEPARATORS.sub("", typed).upper()
    if len(code) != CODE_LENGTH or any(ch not in ALPHABET for ch in code):
        return None
    return code


@functools.cache
def moves_at_once(kind: str) -> bool:
    """Whether a game's seats move at once (a party needs that: 50 seats taking turns one by
    one is no party): asked of a fresh two-seat game, so no game is named here."""
    game = games.get(kind)
    players = max(2, game.players[0])
    if players > game.players[1]:
        return False
    rules = game.normalise_rules({"players": players})
    return len(game.new_state(rules, 0).to_move()) == players


def party_games() -> list[str]:
    """The kinds that offer party tables, in the registry's order."""
    return [g.kind for g in games.all_games() if moves_at_once(g.kind)]
