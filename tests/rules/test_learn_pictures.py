"""Metro's "Learn to play" pictures are traced by the rules core (issue 31.2): the JSON file the
page draws is what `games/metro/learn_pictures.py` computes today, each route ends and scores as
its caption says in every language, and the page's script follows no track itself."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from games.metro import learn_pictures

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "games" / "metro" / "web"
LANGS = sorted(p.name for p in (WEB / "i18n").iterdir() if (p / "learn.json").exists())


def test_the_page_s_file_is_the_rules_core_s() -> None:
    written = learn_pictures.JSON_FILE.read_text()
    assert written == learn_pictures.as_json(), (
        "games/metro/web/learn_pictures.json is stale: run `python -m games.metro.learn_pictures`"
    )


def test_each_picture_ends_as_its_caption_says() -> None:
    """The edge picture's route leaves the board (the page's own tracing once drew one still
    open, worth nothing, under a caption that said 3 points); the centre one reaches it."""
    pictures = learn_pictures.pictures()
    assert pictures["route_edge"]["end"] == "edge"
    assert pictures["route_centre"]["end"] == "centre"
    for name, pic in pictures.items():
        assert pic["points"] == len(pic["path"]) * (2 if pic["end"] == "centre" else 1), name


@pytest.mark.parametrize("lang", LANGS)
def test_each_caption_names_the_station_and_the_points(lang: str) -> None:
    words = json.loads((WEB / "i18n" / lang / "learn.json").read_text())
    for name, pic in learn_pictures.pictures().items():
        caption = words[f"metro.learn.pic.{name}"]
        numbers = [int(n) for n in re.findall(r"\d+", caption)]
        assert pic["station"] in numbers, (lang, name, caption)
        assert pic["points"] == numbers[-1], (lang, name, caption)


def test_a_route_that_leaves_its_window_is_refused() -> None:
    spec = {**learn_pictures.PICTURES["route_edge"], "cols": 2,
            "tiles": [("aaaa", 0, 0), ("acba", 0, 1), ("bbbb", 0, 2)]}  # fmt: skip
    with pytest.raises(ValueError, match="leaves the picture's window"):
        learn_pictures.picture(spec)


def test_the_learn_script_draws_the_served_steps_and_traces_nothing() -> None:
    script = (WEB / "learn.js").read_text()
    assert "learn_pictures.json" in script
    imported = " ".join(re.findall(r"^import \{([^}]*)\}", script, re.M))
    assert "partners" not in imported and "step" not in imported.split(", "), imported
