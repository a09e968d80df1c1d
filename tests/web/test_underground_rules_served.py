"""On the Underground's rules live in Python only (issue 31.2): the page shows the server's
numbers and tables and keeps no copy of them. This fails when a copy comes back: a JS file of the
page that makes scoring gains itself, types the line colours' table, the seats' lines or the
face-up count, or measures loops; and it checks that the page reads what replaced them (each legal
move's `preview`, the view's `rail_gains` and `score_from`, GET /api/meta's `constants`) and that
those constants are the rules core's own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import games
from games.underground.rules import COLOURS, FACE_UP, LINE_HEX, LINES_PER_SEAT

ROOT = Path(__file__).resolve().parents[2]
GAME_WEB = ROOT / "games" / "underground" / "web"
REASONS = ("rail", "terminus", "symbol", "enclosed", "branch", "ride", "skip")


def _js() -> dict[str, str]:
    """Every JavaScript file of the page: the shell's (web/) and every game's (games/*/web/)."""
    dirs = [ROOT / "web", *sorted((ROOT / "games").glob("*/web"))]
    return {str(p.relative_to(ROOT)): p.read_text() for d in dirs for p in sorted(d.rglob("*.js"))}


def test_no_page_file_makes_gains_itself() -> None:
    """A gain object written in JS (`reason: "terminus"`, `points: 2` ...) is the scoring rule
    re-typed: gains come from the server (previews, `rail_gains`, events) and are only read."""
    made = re.compile(r"""reason\s*:\s*["'](""" + "|".join(REASONS) + r""")["']""")
    found = {f: made.findall(text) for f, text in _js().items() if made.search(text)}
    assert not found, f"JS files that build scoring gains themselves: {found}"


def test_no_page_file_types_the_line_tables() -> None:
    """The line colours' hex values, the colours in their order (§2), the lines per seat and the
    face-up count are GET /api/meta's `constants`: no JS file spells them out. (The line colours
    are looked for in the game's own files, black and white left out, which any drawing uses as
    ink; the lobby's thumbnail picture of each game, web/gallery.js, is a picture, not a table.)"""
    hexes = {LINE_HEX[c].lower() for c in COLOURS if c not in {"black", "white"}}
    in_order = re.compile(r"\s*,\s*".join(rf"""["']{c}["']""" for c in COLOURS[:3]))
    pairs = (rf"""["']?{k}["']?\s*:\s*{v}""" for k, v in LINES_PER_SEAT.items())
    per_seat = re.compile(r"\{\s*" + r"\s*,\s*".join(pairs))
    face_up = re.compile(rf"\bFACE_UP\s*=\s*{FACE_UP}\b")
    problems = {}
    for f, text in _js().items():
        lower = text.lower()
        bad = [h for h in sorted(hexes) if h in lower and f.startswith("games/underground/")]
        bad += [p.pattern for p in (in_order, per_seat, face_up) if p.search(text)]
        if bad:
            problems[f] = bad
    assert not problems, f"JS files re-typing the rules' tables: {problems}"


def test_no_page_file_measures_loops_or_replays_records() -> None:
    """Which stations a loop encloses (an even-odd crossing test) and a record's positions are
    the rules core's: no JS file computes where an edge crosses a station's row, and none walks
    a record's moves to lay its rails again."""
    crossing = re.compile(r"\(\s*\w+\s*>\s*\w+\s*\)?\s*!==\s*\(?\s*\w+\s*>\s*\w+")
    relaying = re.compile(r"for\s*\(\s*const\s+\w+\s+of\s+record\.moves")
    found = {
        f: [p.pattern for p in (crossing, relaying) if p.search(text)]
        for f, text in _js().items()
        if f.startswith("games/underground/") and (crossing.search(text) or relaying.search(text))
    }
    assert not found, f"JS files re-implementing the Underground's rules: {found}"
    assert not (GAME_WEB / "network.js").exists()


def test_the_page_reads_the_servers_numbers() -> None:
    """What replaced the copies is read: the legal move's `preview`, the view's `rail_gains` and
    `score_from`, /api/meta's `constants`, and the replay's positions as the page is given them."""
    text = {p.name: p.read_text() for p in GAME_WEB.glob("*.js")}
    assert ".preview?.gained" in text["state.js"]
    assert "rail_gains" in text["state.js"] and "score_from" in text["state.js"]
    assert '"/api/meta"' in text["lines.js"] and "constants" in text["lines.js"]
    assert "replay(record, view, shown)" in text["page.js"]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_meta_constants_are_the_rules(players: int) -> None:
    """/api/meta's constants (what the page draws from) are the rules core's: each seat's lines
    as a view says them, the colours, their line colours, the face-up count."""
    game = games.get("underground")
    constants = game.meta()["constants"]
    view = game.new_state({"players": players}, players).view(None)
    assert constants["seat_colours"][str(players)] == [s["colours"] for s in view["seats"]]
    assert constants["lines_per_seat"][str(players)] == len(view["seats"][0]["colours"])
    assert constants["colours"] == list(COLOURS) and set(constants["line_hex"]) == set(COLOURS)
    assert constants["face_up"] == FACE_UP == len(view["face_up"])
