"""The page kit (issue 20.4): a board module (games/<kind>/web/*.js) imports only from /kit.js,
/i18n.js and its own folder, never from the shell's other files; web/kit.js re-exports exactly
what the boards use, each name from a shell file that has it; and the page-module contract at the
top of web/game.js names the kit. Read from the files themselves: no browser needed."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web"
IMPORT = re.compile(
    r"""\bimport\s*(?:\{(?P<names>[^}]*)\}|[\w*\s,]+)?\s*(?:from\s*)?["'](?P<src>[^"']+)["']"""
)
DYNAMIC = re.compile(r"""\bimport\(\s*["'`](?P<src>[^"'`]+)["'`]""")
EXPORT_FROM = re.compile(
    r"""export\s*\{(?P<names>[^}]*)\}\s*from\s*["']\./(?P<file>[\w-]+\.js)["']"""
)
ALLOWED = {"/kit.js", "/i18n.js"}


COMMENT = re.compile(r"/\*[\s\S]*?\*/|^[ \t]*//[^\n]*", re.MULTILINE)


def code_of(path: Path) -> str:
    """A module's text without its comments (which may quote imports)."""
    return COMMENT.sub("", path.read_text(encoding="utf-8"))


def board_modules() -> list[Path]:
    return sorted(ROOT.glob("games/*/web/**/*.js"))


def names_of(block: str) -> set[str]:
    """`a, b as c` -> {"a", "b"} (the exported name before any `as`)."""
    return {n.split(" as ")[0].strip() for n in block.split(",") if n.strip()}


def kit_exports() -> dict[str, str]:
    """Each name web/kit.js re-exports, with the shell file it comes from."""
    text = (WEB / "kit.js").read_text(encoding="utf-8")
    out: dict[str, str] = {}
    for m in EXPORT_FROM.finditer(text):
        for name in names_of(m.group("names")):
            assert name not in out, f"kit.js exports {name} twice"
            out[name] = m.group("file")
    assert "export *" not in text, "the kit lists its names: no export *"
    return out


def test_board_modules_import_only_the_kit_i18n_and_their_own_folder() -> None:
    modules = board_modules()
    assert len(modules) >= 8, modules
    wrong: list[str] = []
    for path in modules:
        text = code_of(path)
        for m in [*IMPORT.finditer(text), *DYNAMIC.finditer(text)]:
            src = m.group("src")
            own = src.startswith("./") and ".." not in src
            if src not in ALLOWED and not own:
                wrong.append(f"{path.relative_to(ROOT)} imports {src}")
    assert not wrong, "\n".join(wrong)


def test_the_kit_is_exactly_what_the_boards_use() -> None:
    exports = kit_exports()
    used: set[str] = set()
    for path in board_modules():
        for m in IMPORT.finditer(code_of(path)):
            if m.group("src") == "/kit.js":
                used |= names_of(m.group("names") or "")
    assert used <= set(exports), f"not in the kit: {sorted(used - set(exports))}"
    assert set(exports) <= used, f"in the kit, used by no board: {sorted(set(exports) - used)}"
    # Each name comes from a shell file that exports it.
    for name, file in exports.items():
        source = (WEB / file).read_text(encoding="utf-8")
        declared = re.search(
            rf"^export\s+(?:async\s+)?(?:function\*?|class|const|let)\s+{re.escape(name)}\b",
            source,
            re.MULTILINE,
        )
        assert declared, f"kit.js takes {name} from {file}, which does not export it"


def test_the_page_module_contract_names_the_kit() -> None:
    contract = (WEB / "game.js").read_text(encoding="utf-8").split("\nimport", 1)[0]
    assert "/kit.js" in contract, "web/game.js's page-module contract does not mention the kit"


def shell_imports(file: str) -> set[str]:
    """The shell files `file` (in web/) imports, directly or through others ("./x.js", "/x.js")."""
    seen: set[str] = set()
    todo = [file]
    while todo:
        text = code_of(WEB / todo.pop())
        for m in [*IMPORT.finditer(text), *DYNAMIC.finditer(text), *EXPORT_FROM.finditer(text)]:
            src = m.groupdict().get("src") or f"./{m.group('file')}"
            name = src.removeprefix("./").removeprefix("/")
            shell_file = "/" not in name and name.endswith(".js") and (WEB / name).is_file()
            if shell_file and name not in seen:
                seen.add(name)
                todo.append(name)
    return seen


def test_the_kit_does_not_reach_up_into_the_game_screen() -> None:
    """Issue 31.3: the kit sits below the shell's game screen. A board module imports the kit and
    the game screen loads board modules, so the kit taking anything from game.js (signedValue
    once) would make the layers a circle; it lives in dom.js."""
    reached = shell_imports("kit.js")
    assert "dom.js" in reached, reached
    assert "game.js" not in reached, f"kit.js reaches web/game.js through {sorted(reached)}"
