"""The docs can be followed from the repository alone (issue 31, item 6).

Errors quote the rules files to clients ("RULES.md §5" in a refusal's `rule` and message), so
every section the code cites must exist in the normative copies under docs/rules/; and every
relative link of the README and of docs/ must lead to a file that exists, so a newcomer never
follows the front door into nothing. Plain text checks: no services, no network.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES_DIR = ROOT / "docs" / "rules"
CONTRACT = ("API.md", "RULES.md", "RULES-METROX.md", "RULES-UNDERGROUND.md")

# "RULES.md §6(b)", "RULES-METROX.md §2-§5", "RULES.md §6(c)-(d)"; a range may use an en dash
CITE = re.compile(
    r"(RULES(?:-[A-Z]+)?\.md) ?§ ?(\d+)(?:\(([a-z])\)(?:-\(([a-z])\))?)?(?: ?[-\u2013] ?§ ?(\d+))?"
)
SECTION = re.compile(r"^## (\d+)\. ", re.M)
# [text](target) outside code blocks; an address with a scheme is not checked
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def sections(name: str) -> dict[int, str]:
    """A rules file's numbered sections (`## N. Title`), each with its text."""
    text = (RULES_DIR / name).read_text(encoding="utf-8")
    found = list(SECTION.finditer(text))
    return {
        int(m.group(1)): text[m.end() : found[i + 1].start() if i + 1 < len(found) else None]
        for i, m in enumerate(found)
    }


def citations() -> list[tuple[str, str, int, str]]:
    """(where, file, section, clause letter or "") for every rules citation in games/ and
    services/: Python, JavaScript and the games' data alike (a refusal's text may live in any)."""
    out = []
    for top in ("games", "services"):
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix not in {".py", ".js", ".json", ".lua"} or not path.is_file():
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for m in CITE.finditer(text):
                where = f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}"
                name, first, letter, last_letter, last = m.groups()
                out.append((where, name, int(first), letter or ""))
                if last_letter:
                    out.append((where, name, int(first), last_letter))
                if last:
                    out.append((where, name, int(last), ""))
    return out


CITATIONS = citations()


def test_the_contract_is_in_the_repository() -> None:
    for name in CONTRACT:
        assert (RULES_DIR / name).is_file(), f"docs/rules/{name} is missing"
    assert (RULES_DIR / "README.md").is_file()


def test_the_code_cites_the_rules() -> None:
    # The check below must have something to check: errors cite the rules by section.
    assert len(CITATIONS) > 50, CITATIONS
    assert {name for _, name, _, _ in CITATIONS} >= set(CONTRACT) - {"API.md"}


@pytest.mark.parametrize(
    "name", sorted({name for _, name, _, _ in CITATIONS}), ids=lambda name: name
)
def test_every_cited_section_exists(name: str) -> None:
    """Each `RULES*.md §N` in the code names a section of docs/rules/<file>; a lettered clause
    (`§6(b)`) is one that section lists."""
    assert (RULES_DIR / name).is_file(), f"{name} is cited but not in docs/rules/"
    have = sections(name)
    missing = []
    for where, cited, number, letter in CITATIONS:
        if cited != name:
            continue
        if number not in have:
            missing.append(f"{where}: {name} §{number}")
        elif letter and f"({letter})" not in have[number]:
            missing.append(f"{where}: {name} §{number}({letter})")
    assert not missing, f"cited sections that {name} does not have: {missing}"


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("doc", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    """`[text](path)` leads to a file or folder of the repository, and `#anchor` (on its own or
    after a Markdown file) to one of that file's headings."""
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in anchors(file)):
            broken.append(target)
    assert not broken, f"{doc.relative_to(ROOT)} links to what does not exist: {broken}"


def anchors(doc: Path) -> set[str]:
    """The `#anchors` GitHub gives a Markdown file's headings: lower case, punctuation dropped,
    spaces as hyphens, a repeated heading numbered (`-1`, `-2`)."""
    text = FENCE.sub("", doc.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    out = set()
    for title in re.findall(r"^#{1,6} +(.+?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def test_the_walk_through_names_real_files() -> None:
    """docs/adding-a-game.md is followed step by step: every file or folder of the repository it
    names in code quotes exists (the example game `tiny` and `<placeholders>` aside)."""
    text = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    named = re.findall(r"`((?:games|services|tests|web|bench|protos|docs)/[^`\s]*)`", text)
    assert len(named) > 30, named
    missing = [p for p in named if "tiny" not in p.lower() and "<" not in p
               and not (ROOT / p).exists()]  # fmt: skip
    assert not missing, f"docs/adding-a-game.md names what does not exist: {missing}"


def test_the_walk_through_names_real_code() -> None:
    """Every dotted name the walk-through quotes (`games.base.check_retire`,
    `games.registry._load_all`) is a module or an attribute of one, so a rename in the code
    that leaves the walk-through behind fails here."""
    text = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:games|services)(?:\.[A-Za-z_]\w*)+)`", text))
    assert len(named) >= 3, named
    missing = []
    for name in sorted(named):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                found: object = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                found = getattr(found, attr, None)
            if found is None:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert not missing, f"docs/adding-a-game.md names what the code does not have: {missing}"


def test_the_front_door_stays_short() -> None:
    """The README is the front door (issue 31): what, the two commands, where things live,
    links; the rest lives in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 200, f"README.md has {lines} lines; move detail into docs/"


def test_no_gthread() -> None:
    """The gateway is one ASGI app: no doc may still describe threaded gunicorn workers."""
    for doc in markdown_files():
        if doc.parent == RULES_DIR:
            continue  # the normative copies are kept unchanged
        assert "gthread" not in doc.read_text(encoding="utf-8").lower(), doc
