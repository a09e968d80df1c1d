"""The page's message catalogues: `GET /i18n/<lang>.json`, one merged catalogue per language.

A language is a folder `web/i18n/<lang>/` holding the shell's part files (`*.json`, merged in name
order, so another engineer adds a part by adding a file). Every registered game adds its own part,
`games/<kind>/web/i18n/<lang>.json` (and any `games/<kind>/web/i18n/<lang>/*.json`, e.g. its
rules pages), found through the registry: nothing here names a game. A key
defined twice is a mistake worth a loud failure, not a silent winner.

A catalogue is a flat object: key -> text with `{name}` placeholders, or key -> {plural category
("zero", "one", "two", "few", "many", "other") -> text} for counted sentences (web/i18n.js).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, request

import games
from services.gateway.errors import ApiError

bp = Blueprint("i18n", __name__)

LANG = re.compile(r"^[a-z]{2,3}$")
PLURAL_CATEGORIES = frozenset({"zero", "one", "two", "few", "many", "other"})
MAX_AGE_S = 300  # the page reloads a catalogue at most this stale; ETag makes a reload cheap


class CatalogueError(Exception):
    """A catalogue file that is not what the page can use (named with the file and key)."""


def _shell_root() -> Path:
    return Path(current_app.static_folder or "") / "i18n"


def languages(shell_root: Path) -> list[str]:
    """The languages the shell has a folder for, sorted."""
    if not shell_root.is_dir():
        return []
    return sorted(p.name for p in shell_root.iterdir() if p.is_dir() and LANG.match(p.name))


def _part_files(shell_root: Path, lang: str) -> list[Path]:
    """The files that make up `lang`'s catalogue: the shell's parts, then each game's."""
    parts = sorted((shell_root / lang).glob("*.json"))
    for game in games.all_games():
        if game.web_dir is not None:
            path = Path(game.web_dir) / "i18n" / f"{lang}.json"
            if path.is_file():
                parts.append(path)
            # more parts of a game's own, e.g. its rules and tutorial: i18n/<lang>/*.json
            parts += sorted((Path(game.web_dir) / "i18n" / lang).glob("*.json"))
    return parts


def _check_entry(path: Path, key: Any, value: Any) -> None:
    if not isinstance(key, str) or not key:
        raise CatalogueError(f"{path}: every key must be a non-empty string")
    if isinstance(value, str):
        return
    if isinstance(value, dict) and value and "other" in value:
        bad = set(value) - PLURAL_CATEGORIES
        if not bad and all(isinstance(v, str) for v in value.values()):
            return
    raise CatalogueError(
        f"{path}: {key!r} must be a text or a plural object with an 'other' text "
        f"(categories: {', '.join(sorted(PLURAL_CATEGORIES))})"
    )


def merged(shell_root: Path, lang: str) -> dict[str, Any]:
    """`lang`'s whole catalogue; CatalogueError on a malformed part or a key defined twice."""
    out: dict[str, Any] = {}
    origin: dict[str, Path] = {}
    for path in _part_files(shell_root, lang):
        try:
            part = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise CatalogueError(f"{path}: not readable JSON: {err}") from None
        if not isinstance(part, dict):
            raise CatalogueError(f"{path}: a catalogue part is one JSON object")
        for key, value in part.items():
            _check_entry(path, key, value)
            if key in out:
                raise CatalogueError(f"{path}: {key!r} is already defined in {origin[key]}")
            out[key] = value
            origin[key] = path
    return out


# (lang) -> (file stamps, body, etag): rebuilt when any part file changes (development edits).
_cache: dict[str, tuple[tuple[tuple[str, float], ...], bytes, str]] = {}


def _stamps(shell_root: Path, lang: str) -> tuple[tuple[str, float], ...]:
    return tuple((str(p), p.stat().st_mtime) for p in _part_files(shell_root, lang))


def catalogue_body(shell_root: Path, lang: str) -> tuple[bytes, str]:
    """(JSON body, ETag) of `lang`'s merged catalogue."""
    stamps = _stamps(shell_root, lang)
    hit = _cache.get(lang)
    if hit and hit[0] == stamps:
        return hit[1], hit[2]
    body = json.dumps(merged(shell_root, lang), ensure_ascii=False, sort_keys=True).encode()
    etag = hashlib.sha256(body).hexdigest()[:32]
    _cache[lang] = (stamps, body, etag)
    return body, etag


@bp.get("/i18n/<lang>.json")
def catalogue(lang: str) -> Response:
    """One language's messages for the page (shell and every game), cacheable with an ETag."""
    root = _shell_root()
    known = languages(root)
    if lang not in known:
        raise ApiError(
            404,
            "unknown_language",
            f"no catalogue for language {lang[:16]!r}; known languages: {', '.join(known)}",
        )
    body, etag = catalogue_body(root, lang)
    headers = {
        "ETag": f'"{etag}"',
        "Cache-Control": f"public, max-age={MAX_AGE_S}",
        "Vary": "Accept-Encoding",
    }
    if request.if_none_match.contains(etag):
        return Response(status=304, headers=headers)
    return Response(body, mimetype="application/json", headers=headers)
