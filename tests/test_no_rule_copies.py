"""The rules live in one language (issue 31.2): Python's rules core says what a move scores and
changes (each legal move's `preview`), what a finished game's positions were (GET /positions) and
the seats' colours (the view, /api/meta); the page draws what it is told. These checks fail when a
copy of a rule comes back into the page's JavaScript (web/, games/*/web/):

- the modules that held the copies stay gone, and nothing imports them;
- no function, method or arrow function is named for a rule the server works out (tracing a
  route, the points a placement completes, what a card does to a sheet, a sheet's score, the
  empty-station penalty, a replay's positions): the names the copies had and their kin;
- no seat-colour table is typed in: the colours of each game's seats, as its Python declares
  them (`Game.colours`), never appear as a run of string literals in seat order.

Metro and Metro X are checked here; Underground's page has its own helper's check.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import games

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("metro", "metrox")

# The files that held rule copies (routes.js traced Metro's routes and scored them, sheet.js
# applied Metro X's cards and scored sheets): gone for good.
GONE = ("games/metro/web/routes.js", "games/metrox/web/sheet.js")

# A rule's name, as the copies named them and as a new copy would likely be named again.
RULE_NAME = re.compile(
    r"^(trace\w*|\w*[cC]ompletions|ownerByStation|lineEffect|\w*[aA]pplyMove|completeLines|"
    r"breakdown|penalty|\w*[pP]enalty|replayPositions|emptySheet|hasWindow|windowMark|"
    r"routeScores?|scoreRoutes?|sheetScore)$"
)
# Where a JavaScript file defines a callable: `function f(`, `const f = (` / `= x =>` /
# `= function`, and a class's `f(...) {` (with `static`, `async`, `get` or `#`).
DEFINITIONS = (
    re.compile(r"\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\("),
    re.compile(
        r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?"
        r"(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)"
    ),
    re.compile(r"^\s+(?:static\s+|async\s+|get\s+)*#?([A-Za-z_$][\w$]*)\s*\([^()]*\)\s*\{", re.M),
)
STRING = re.compile(r"""(["'])((?:\\.|(?!\1).)*)\1""")
RUN = 4  # this many seat colours in seat order, one literal after another, make a table


def _js_files() -> list[Path]:
    """The shell's scripts and those of the games checked here."""
    dirs = [ROOT / "web", *(ROOT / "games" / kind / "web" for kind in KINDS)]
    return sorted(p for d in dirs for p in d.rglob("*.js"))


def defined_names(text: str) -> set[str]:
    """The names of the callables a JavaScript text defines (see DEFINITIONS)."""
    return {m.group(1) for pattern in DEFINITIONS for m in pattern.finditer(text)}


def colour_runs(text: str, colours: tuple[str, ...], run: int = RUN) -> list[list[str]]:
    """Runs of `run` or more string literals of `text`, one right after another (commas and
    white space between), that are `colours` in seat order from any seat on."""
    literals = [(m.start(), m.end(), m.group(2).lower()) for m in STRING.finditer(text)]
    wanted = [c.lower() for c in colours]
    found: list[list[str]] = []
    i = 0
    while i < len(literals):
        if literals[i][2] not in wanted:
            i += 1
            continue
        at = wanted.index(literals[i][2])
        j = i + 1
        while (
            j < len(literals)
            and re.fullmatch(r"[\s,]*", text[literals[j - 1][1] : literals[j][0]])
            and at + (j - i) < len(wanted)
            and literals[j][2] == wanted[at + (j - i)]
        ):
            j += 1
        if j - i >= run:
            found.append([lit[2] for lit in literals[i:j]])
        i = j
    return found


def test_the_rule_copies_are_gone_and_nothing_imports_them() -> None:
    assert not [f for f in GONE if (ROOT / f).exists()]
    importers = {
        str(p.relative_to(ROOT))
        for p in _js_files()
        for f in GONE
        if f"/{Path(f).name}" in p.read_text() or f'"./{Path(f).name}"' in p.read_text()
    }
    assert not importers, importers


def test_no_page_script_defines_a_rule() -> None:
    copies = {
        str(p.relative_to(ROOT)): sorted(
            n for n in defined_names(p.read_text()) if RULE_NAME.match(n)
        )
        for p in _js_files()
    }
    copies = {f: names for f, names in copies.items() if names}
    assert not copies, f"rule functions defined in the page's JavaScript: {copies}"


@pytest.mark.parametrize("kind", KINDS)
def test_no_page_script_types_in_a_seat_colour_table(kind: str) -> None:
    colours = tuple(dict.fromkeys(games.get(kind).colours))  # a palette repeated to 50 seats
    tables = {
        str(p.relative_to(ROOT)): runs
        for p in _js_files()
        if (runs := colour_runs(p.read_text(), colours))
    }
    assert not tables, (
        f"{kind}'s seat colours typed in (read them from the view or /api/meta): {tables}"
    )


# ---- the checks themselves, on what the removed copies looked like --------------------------


def test_the_checks_find_what_the_copies_held() -> None:
    copy = """
export function traceRoute(board, s) { return 1; }
const completions = (board, seats) => [];
export const lineEffect = function (index) {};
class Sheet {
  static breakdown(sheet) { return 0; }
  #penalty(e) { return e; }
}
const SEAT_COLOURS = ["yellow", "blue", "orange", "green", "purple", "black"];
const PALETTE = ['#0072b2', '#e69f00',
  '#009e73', '#cc79a7', "#d55e00"];
"""
    names = {n for n in defined_names(copy) if RULE_NAME.match(n)}
    assert names == {"traceRoute", "completions", "lineEffect", "breakdown", "penalty"}
    metro = tuple(games.get("metro").colours)
    assert colour_runs(copy, metro) == [["yellow", "blue", "orange", "green", "purple", "black"]]
    metrox = tuple(dict.fromkeys(games.get("metrox").colours))
    assert colour_runs(copy, metrox) == [["#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00"]]
    # a name-to-shade map (keys, not a seat order) and three colours are no table
    assert not colour_runs(
        'const S = { yellow: "#f0e442", blue: "#0072b2" }; ["a", "yellow"]', metro
    )
    assert not colour_runs('["#0072b2", "#e69f00", "#009e73"]', metrox)
