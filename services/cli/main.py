"""The `metro` command: `metro rules` (position queries), `metro up` (the whole stack),
`metro arena` (AI tournaments). Subcommands import their code lazily so each starts fast."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def rules_main(stdin=sys.stdin, stdout=sys.stdout) -> int:  # type: ignore[no-untyped-def]
    """Answer RULES.md §10 queries: one JSON object per input line, one answer per line."""
    from games.queries import answer_line

    for line in stdin:
        if not line.strip():
            continue
        stdout.write(answer_line(line) + "\n")
        stdout.flush()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    # Named as it was run (pyproject's [project.scripts] installs it as `metro`).
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("rules", help="answer JSON-lines position queries on stdin (rules files)")
    sub.add_parser("up", help="run the whole stack: Redis, engine, AI, gateway", add_help=False)
    sub.add_parser("arena", help="play AI players against each other", add_help=False)
    if args and args[0] in ("up", "arena"):
        command, rest = args[0], args[1:]
        if command == "up":
            from services.cli.up import main as up_main

            return up_main(rest)
        from services.ai.arena import main as arena_main

        return arena_main(rest)
    ns = parser.parse_args(args)
    if ns.command == "rules":
        return rules_main()
    return 2


if __name__ == "__main__":
    sys.exit(main())
