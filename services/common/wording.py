"""How a client's own string is quoted back in an error sentence, the same everywhere."""

from __future__ import annotations


def shown(value: str) -> str:
    """A short, safe rendering of a client's string for an error sentence (a long one would
    overflow the trailing metadata that carries the message)."""
    if len(value) > 40:
        return f"a string of {len(value)} characters"
    return repr(value)
