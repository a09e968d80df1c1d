"""Secrets: seat tokens and the AI service credential.

A seat token is shown once (on create or join) and only its keyed hash is stored, so a copy of
the database does not let anyone play. Every comparison runs in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

TOKEN_BYTES = 24
MAX_TOKEN_LENGTH = 256


def new_token() -> str:
    """A fresh seat token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(game_id: str, token: str) -> str:
    """What is stored for a seat: HMAC-SHA256 keyed by the game id, so equal tokens in two
    games hash differently and a hash from one game is useless in another."""
    return hmac.new(game_id.encode(), token.encode(), hashlib.sha256).hexdigest()


def token_matches(stored_hash: str, game_id: str, token: str) -> bool:
    if not stored_hash:
        return False
    return hmac.compare_digest(stored_hash, token_hash(game_id, token))


def is_service_credential(token: str | None, credential: str) -> bool:
    """True when `token` is the configured AI service credential (never when none is set)."""
    if not token or not credential:
        return False
    return hmac.compare_digest(token.encode(), credential.encode())
