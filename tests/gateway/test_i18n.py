"""The page's message catalogues (GET /i18n/<lang>.json): every language says everything the
English one says, with the same placeholders and valid plural forms; every key the page's code
asks for exists; a bad part file or an unknown language is a clear error.

The gateway runs in-process with its backends down: catalogues need neither engine nor AI."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

import games
from services.common.levels import NAMED_LEVELS
from services.gateway import i18n
from services.gateway.app import WEB_ROOT
from tests.fixtures.gateway import GatewayApi
from tests.fixtures.offline_gateway import LANGUAGES

# The CLDR plural categories each language's integers and decimals use (Intl.PluralRules):
# a counted sentence must give "one" and "other", and may give no category the language lacks.
PLURALS = {
    "en": {"one", "other"},
    "hu": {"one", "other"},
    "fr": {"one", "many", "other"},
    "es": {"one", "many", "other"},
}
PLACEHOLDER = re.compile(r"\{(\w+)\}")
REPO = Path(__file__).resolve().parents[2]
# t("a.b") / t('a.b') / t(`a.b`) with a literal key (no ${...}) in the page's code
LITERAL_KEY = re.compile(r"""\bt\(\s*(["'`])([A-Za-z0-9_.-]+)\1""")
COMMENT = re.compile(r"/\*.*?\*/|^[ \t]*//[^\n]*", re.S | re.M)


def placeholders(entry: Any) -> set[str]:
    texts = entry.values() if isinstance(entry, dict) else [entry]
    return {name for text in texts for name in PLACEHOLDER.findall(text)}


def test_every_language_is_offered(client: FlaskClient) -> None:
    assert i18n.languages(Path(WEB_ROOT) / "i18n") == sorted(LANGUAGES)


def test_every_language_has_exactly_the_english_keys(catalogues: dict[str, Any]) -> None:
    english = set(catalogues["en"])
    for lang in LANGUAGES:
        keys = set(catalogues[lang])
        assert not english - keys, f"{lang} lacks {sorted(english - keys)}"
        assert not keys - english, f"{lang} has keys English lacks: {sorted(keys - english)}"


def test_placeholders_agree_with_english(catalogues: dict[str, Any]) -> None:
    for lang in LANGUAGES:
        for key, entry in catalogues[lang].items():
            want = placeholders(catalogues["en"][key])
            assert placeholders(entry) == want, (lang, key, entry)


def test_plural_forms_are_the_language_s_own(catalogues: dict[str, Any]) -> None:
    for lang in LANGUAGES:
        for key, entry in catalogues[lang].items():
            if isinstance(entry, dict):
                assert {"one", "other"} <= set(entry) <= PLURALS[lang], (lang, key, sorted(entry))
                assert all(isinstance(v, str) and v.strip() for v in entry.values()), (lang, key)
            else:
                assert isinstance(entry, str) and entry.strip(), (lang, key)
            if isinstance(catalogues["en"][key], dict):
                # a counted sentence shows its number, in whatever form the language uses
                assert placeholders(entry), (lang, key)


def test_translations_are_not_left_in_english(catalogues: dict[str, Any]) -> None:
    """A sentence of several words that is the same as English was not translated (names,
    numbers and symbols may stay)."""
    for lang in ("hu", "fr", "es"):
        same = [
            key
            for key, entry in catalogues[lang].items()
            if isinstance(entry, str)
            and entry == catalogues["en"][key]
            and len(re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", entry))) >= 3
        ]
        assert not same, (lang, same)


def test_every_key_the_page_asks_for_exists(catalogues: dict[str, Any]) -> None:
    """Keys written literally in the shell's and every game's page code, and the keys built from
    the games' meta (web/words.js) and the AI levels (web/panel.js)."""
    sources = sorted((REPO / "web").glob("*.js"))
    for game in games.all_games():
        assert game.web_dir is not None, game.kind
        sources += sorted(Path(game.web_dir).glob("*.js"))
    wanted: dict[str, str] = {}
    for path in sources:
        code = COMMENT.sub("", path.read_text(encoding="utf-8"))
        for match in LITERAL_KEY.finditer(code):
            if "." in match.group(2):
                wanted[match.group(2)] = path.name
    for game in games.all_games():
        wanted[f"{game.kind}.name"] = "words.js"
        wanted[f"{game.kind}.description"] = "words.js"
        for option in game.options:
            wanted[f"{game.kind}.option.{option.name}"] = "words.js"
            if option.help:
                wanted[f"{game.kind}.option.{option.name}.help"] = "words.js"
    for level in NAMED_LEVELS:
        wanted[f"level.{level}"] = "panel.js"
        wanted[f"level.{level}.description"] = "panel.js"
    for lang in LANGUAGES:
        html = (REPO / "web" / "index.html").read_text(encoding="utf-8")
        for key in re.findall(r'data-i18n="([^"]+)"', html):
            wanted[key] = "index.html"
        for pairs in re.findall(r'data-i18n-attr="([^"]+)"', html):
            for pair in pairs.split(";"):
                wanted[pair.split(":")[1].strip()] = "index.html"
        missing = {k: v for k, v in wanted.items() if k not in catalogues[lang]}
        assert not missing, f"{lang} lacks {missing}"


def test_a_game_s_keys_start_with_its_kind() -> None:
    """A game's part can never clash with the shell's or another game's."""
    for game in games.all_games():
        assert game.web_dir is not None
        for lang in LANGUAGES:
            path = Path(game.web_dir) / "i18n" / f"{lang}.json"
            keys = json.loads(path.read_text(encoding="utf-8"))
            bad = [k for k in keys if not k.startswith(f"{game.kind}.")]
            assert not bad, (path, bad)


def test_an_unknown_language_is_a_404_json_error(client: FlaskClient) -> None:
    for lang in ("de", "xx", "EN", "en-GB", "..", "e"):
        reply = client.get(f"/i18n/{lang}.json")
        assert reply.status_code == 404, lang
        body = reply.get_json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
        if re.fullmatch(r"[a-z]{2,3}", lang):
            assert body["error"]["code"] == "unknown_language", body
            assert "en, es, fr, hu" in body["error"]["message"], body


def test_a_catalogue_is_cached_by_its_etag(client: FlaskClient) -> None:
    first = client.get("/i18n/fr.json")
    etag = first.headers["ETag"]
    assert "max-age" in first.headers["Cache-Control"]
    again = client.get("/i18n/fr.json", headers={"If-None-Match": etag})
    assert again.status_code == 304 and not again.data


def test_a_bad_part_is_a_loud_error_naming_file_and_key(tmp_path: Path, app: Flask) -> None:
    root = tmp_path / "i18n"
    (root / "en").mkdir(parents=True)
    part = root / "en" / "a.json"
    kind = games.all_games()[0].kind
    part.write_text(json.dumps({f"{kind}.name": "Clash"}), encoding="utf-8")
    with app.app_context(), pytest.raises(i18n.CatalogueError, match=r"already defined"):
        i18n.merged(root, "en")
    part.write_text(json.dumps({"x.count": {"few": "a", "one": "b"}}), encoding="utf-8")
    with app.app_context(), pytest.raises(i18n.CatalogueError, match=r"'x.count'.*'other'"):
        i18n.merged(root, "en")
    part.write_text("{not json", encoding="utf-8")
    with app.app_context(), pytest.raises(i18n.CatalogueError, match=r"a\.json: not readable"):
        i18n.merged(root, "en")


# ---- rule refusals in the player's language ---------------------------------------------------

# refusal="game_over", or a game's own code as a literal: "metro.square_taken"
REFUSAL = r"""refusal\s*=\s*["']([a-z_]+(?:\.[a-z_]+)?)["']|["']((?:%s)\.[a-z_]+)["']"""


def refusal_codes() -> set[str]:
    """Every refusal code a game raises (refusal="..." in its rules code, and the codes its
    why_illegal functions return)."""
    kinds = "|".join(g.kind for g in games.all_games())
    pattern = re.compile(REFUSAL % kinds)
    found: set[str] = set()
    for path in (REPO / "games").rglob("*.py"):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            found.add(match.group(1) or match.group(2))
    return found


def test_every_refusal_a_game_raises_has_a_sentence(catalogues: dict[str, Any]) -> None:
    codes = refusal_codes()
    assert {"game_over", "metro.square_taken", "underground.not_neighbours"} <= codes, codes
    for lang in LANGUAGES:
        for code in codes:
            kind, _, name = code.rpartition(".")
            key = f"{kind}.refusal.{name}" if kind else f"refusal.{name}"
            assert key in catalogues[lang], (lang, key)


def test_a_rule_refusal_carries_its_code_and_params(api: GatewayApi) -> None:
    """Through the real engine: the error body keeps API.md's code and English message, and adds
    the refusal's code and parameters for the page's catalogue."""
    status, made = api.post(
        "/api/games",
        {
            "game": "metro",
            "rules": {"players": 2},
            "seats": [{"kind": "human", "name": "Ada"}, {"kind": "open"}],
        },
    )
    assert status == 201, made
    game, token = made["game_id"], made["token"]
    api.post(f"/api/games/{game}/join", {"name": "Bob"})
    status, legal = api.get(f"/api/games/{game}/legal", token=token)
    assert status == 200, legal
    placement = next(m for m in legal["moves"] if m["action"] == "place")["placement"]
    status, body = api.post(
        f"/api/games/{game}/moves",
        {"action": "place", "placement": placement[:4] + "33"},
        token=token,
    )
    assert status == 422, body
    err = body["error"]
    assert err["code"] == "illegal_move" and "central station" in err["message"], err
    assert err["refusal"] == "metro.central_station", err
    assert err["params"] == {"row": 4, "col": 4}, err
    # an error that is no rule refusal has neither field
    status, body = api.get("/api/games/no-such-game")
    assert status == 404 and set(body["error"]) == {"code", "message"}, body


# ---- no sentence in the page's code ------------------------------------------------------------

STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|`((?:[^`\\]|\\.)*)`|'((?:[^'\\\n]|\\.)*)'""")
# three words or more, the first maybe capitalised: "Draw a tile", "the map query failed"
SENTENCE = re.compile(r"(?<![\w.#/-])[A-Za-z][a-z]+(?: [a-z]+){2,}")


def test_the_page_s_code_holds_no_sentence() -> None:
    """Every sentence a player may see comes from a catalogue: a string literal of three words
    or more in the shell's or a game's page code is a sentence someone forgot to move there.
    Console messages (for developers) and lines marked `i18n-ok` are not for players."""
    sources = sorted((REPO / "web").glob("*.js"))
    for game in games.all_games():
        assert game.web_dir is not None
        sources += sorted(Path(game.web_dir).glob("*.js"))
    found = []
    for path in sources:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            skip = "console." in line or "i18n-ok" in line
            if skip or line.lstrip().startswith(("//", "*", "/*")):
                continue
            code = re.sub(r"\s//\s.*$", "", line)
            for match in STRING.finditer(code):
                text = next(g for g in match.groups() if g is not None)
                if SENTENCE.search(re.sub(r"\$\{[^}]*\}", " ", text)):
                    found.append(f"{path.relative_to(REPO)}:{number}: {text[:60]!r}")
    assert not found, "\n".join(found)
