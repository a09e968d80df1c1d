"""Two checkouts measured in turn, A/B in one run: a bench's `--before PATH` worker is the same
bench file run with `--serve --root PATH`, importing that checkout's code and answering one
request at a time, so both sides see the same load. Imports nothing of the project: the
worker's `sys.path` must decide whose code it runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def checkout_root(bench_file: str) -> Path:
    """The checkout a bench imports its code from: its own, or with --root (the `--before`
    worker) the other one."""
    if "--root" in sys.argv:
        return Path(sys.argv[sys.argv.index("--root") + 1]).resolve()
    return Path(bench_file).resolve().parents[1]


class Before:
    """The other checkout's worker: `bench_file --serve --root root *args`, which reads one
    request a line (the fields, space-separated) and answers each with one number."""

    def __init__(self, bench_file: str, root: str, *args: str) -> None:
        argv = [sys.executable, bench_file, "--serve", "--root", root, *args]
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, *fields: object) -> float:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(" ".join(map(str, fields)) + "\n")
        self.proc.stdin.flush()
        return float(self.proc.stdout.readline())

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()
