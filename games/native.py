"""The compiled rules core: the hot modules that mypyc turns into C extensions at set-up.

The search runs the rules millions of times; compiled, the same Python source runs the Metro
search ~1.8x, the Metro X search ~2.5x and On the Underground's ~1.4x as many iterations a
second, with results unchanged (docs/ai.md, "A compiled core"; tests/ai/test_search_pinned.py).
`./dev setup` and the image's build stage compile them (`python games/native.py build`: a C
compiler at set-up only, none at run time); a checkout that was never set up runs them
interpreted, and says so (`status`).

An extension module shadows its source, so a build older than its source would run yesterday's
rules: `games/__init__.py` calls `check()` before any game is imported, and it refuses to run a
compiled module whose source changed since it was compiled (or a set only partly compiled).
Standard library only: the build runs this file as a script, without importing `games`.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The modules a search iteration spends its time in (profiled: docs/ai.md), as paths from ROOT.
# A class compiled here cannot be subclassed by an interpreted one: a game's state (the checked
# door) is compiled with the position it extends.
SOURCES: tuple[str, ...] = (
    "games/metro/board.py",
    "games/metro/chance.py",
    "games/metro/evaluate.py",
    "games/metro/placement.py",
    "games/metro/position.py",
    "games/metro/rollout.py",
    "games/metro/rules.py",
    "games/metro/state.py",
    "games/metro/tiles.py",
    "games/metrox/cards.py",
    "games/metrox/chance.py",
    "games/metrox/evaluate.py",
    "games/metrox/maps.py",
    "games/metrox/plan.py",
    "games/metrox/position.py",
    "games/metrox/rules.py",
    "games/metrox/state.py",
    "games/underground/building.py",
    "games/underground/chance.py",
    "games/underground/evaluate.py",
    "games/underground/map.py",
    "games/underground/moves.py",
    "games/underground/passenger.py",
    "games/underground/position.py",
    "games/underground/rules.py",
    "games/underground/scoring.py",
    "games/underground/state.py",
    "services/ai/players/ismcts.py",
)

# The C runtime every compiled module shares (mypyc's "group"): a top-level module at ROOT (in a
# package, mypyc would give every module a wrong `__file__`), so ROOT is on the import path:
# `./dev setup` puts it there (a .pth file), the image through PYTHONPATH.
GROUP = "metro_native_core"

# What the last build compiled: each source's SHA-256 (never committed; build/ is ignored).
MANIFEST = ROOT / "build" / "native-core.json"


class StaleCoreError(ImportError):
    """A compiled module does not match its source: `./dev setup` compiles it again."""


def digest(source: str) -> str:
    return hashlib.sha256((ROOT / source).read_bytes()).hexdigest()


def compiled_file(source: str) -> Path | None:
    """The extension module built from `source`, if there is one beside it (`shared_library()`
    is the group's: `source` a path without its `.py`)."""
    path = ROOT / source
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        candidate = path.with_name(path.stem + suffix)
        if candidate.exists():
            return candidate
    return None


def shared_library() -> Path | None:
    return compiled_file(f"{GROUP}__mypyc.py")


def _recorded() -> dict[str, str]:
    try:
        data = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return {}
    sources = data.get("sources") if isinstance(data, dict) else None
    return sources if isinstance(sources, dict) else {}


def status() -> str:
    """`compiled` (every listed module, each from its current source), `interpreted` (none),
    or what is wrong: a stale or partial build."""
    built = [s for s in SOURCES if compiled_file(s) is not None]
    if not built:
        return "interpreted"
    missing = [s for s in SOURCES if s not in built]
    if missing:
        return f"partly compiled: no extension module for {', '.join(missing)}"
    if shared_library() is None:
        return f"partly compiled: no shared library {GROUP}__mypyc"
    recorded = _recorded()
    stale = [s for s in SOURCES if recorded.get(s) != digest(s)]
    if stale:
        return f"out of date: {', '.join(stale)} changed since the last build"
    return "compiled"


def check() -> None:
    """Refuse a compiled core that does not match the sources (see the module's docstring)."""
    state = status()
    if state not in ("compiled", "interpreted"):
        raise StaleCoreError(
            f"the compiled rules core is {state}: run ./dev setup (it compiles the core again)"
        )


def clean() -> None:
    """Remove every extension module this build makes (and mypyc's shared runtime library)."""
    for source in SOURCES:
        while (found := compiled_file(source)) is not None:
            found.unlink()
    while (shared := shared_library()) is not None:
        shared.unlink()
    for stray in ROOT.glob("*__mypyc.*"):  # a build by the `mypyc` command (a hashed name)
        stray.unlink()
    MANIFEST.unlink(missing_ok=True)


def missing_packages() -> list[str]:
    """Debian's packages for what `_missing_tools` finds lacking (deploy/test-prereqs.sh)."""
    missing = _missing_tools()
    if "compiler" in missing:
        return ["gcc", "libc6-dev", "python3-dev"]
    return ["python3-dev"] if missing else []


def _missing_tools() -> str:
    """What the build needs and this machine lacks, in words ("" when nothing is missing)."""
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]  # what setuptools calls
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler}; Debian: apt-get install gcc)"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        return "no Python headers (Python.h; Debian: apt-get install python3-dev)"
    return ""


# setuptools with mypyc's extensions, built in place (the `mypyc` command's own recipe, with
# the group named); argv: mypy's options, then the sources.
_SETUP = f"""
import sys
from mypyc.build import mypycify
from setuptools import setup
setup(
    name="metro-native-core",
    script_args=["build_ext", "--inplace"],
    ext_modules=mypycify(sys.argv[1:], opt_level="3", group_name="{GROUP}"),
)
"""


def build(python_executable: str | None = None, or_interpreted: bool = False) -> bool:
    """Compile SOURCES unless the last build already matches them; True if it compiled.
    `python_executable`: the environment whose packages mypy reads (the image's build stage
    compiles with a tools environment for the runtime's one). `or_interpreted`: where the
    machine cannot compile, say so and leave the core interpreted (`./dev up` on a machine with
    Python alone: the games play the same, the AI searches about half as far)."""
    if status() == "compiled":  # every module built, each from its current source
        return False
    missing = _missing_tools()
    if missing and or_interpreted:
        clean()
        print(f"native: the rules core runs interpreted (searches ~2x slower): {missing}")
        return False
    if missing:
        raise SystemExit(f"native: cannot compile the rules core: {missing}")
    clean()
    options = ["--python-executable", python_executable] if python_executable else []
    done = subprocess.run(
        [sys.executable, "-c", _SETUP, *options, *SOURCES], cwd=ROOT, capture_output=True, text=True
    )
    if done.returncode != 0:
        clean()
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit("native: mypyc could not compile the rules core (output above)")
    MANIFEST.parent.mkdir(exist_ok=True)
    sources = {s: digest(s) for s in SOURCES}
    MANIFEST.write_text(json.dumps({"sources": sources}, indent=1, sort_keys=True) + "\n")
    if status() != "compiled":
        raise SystemExit(f"native: after the build the core is {status()}")
    return True


def main(argv: list[str]) -> int:
    if argv[:1] == ["build"]:
        args = argv[1:]
        lenient = "--or-interpreted" in args
        args = [a for a in args if a != "--or-interpreted"]
        python = args[1] if args[:1] == ["--python-executable"] and len(args) > 1 else None
        if build(python, lenient):
            print("native: compiled the rules core")
        return 0
    if argv[:1] == ["clean"]:
        clean()
        return 0
    if argv[:1] == ["needs"]:
        print(" ".join(missing_packages()))
        return 0
    if argv[:1] == ["status"]:
        print(status())
        return 0
    print(
        "usage: python games/native.py build [--or-interpreted] [--python-executable PY]"
        " | clean | needs | status"
    )
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
