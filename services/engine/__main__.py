"""`python -m services.engine [--processes N]`: run the engine with the environment's settings.

One process serves on one core (Python's GIL). `--processes N` runs N engine processes on the
same port (SO_REUSEPORT: the kernel spreads incoming connections over them); they share nothing
but Redis, exactly like replicas on separate machines. The parent only supervises: it forwards
SIGTERM/SIGINT and stops all when one dies, so that the orchestrator sees the failure.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import time

import uvloop

from services.common.config import Settings
from services.engine.server import serve


def _supervise(count: int) -> int:
    argv = [sys.executable, "-m", "services.engine", "--processes", "1"]
    children = [subprocess.Popen(argv) for _ in range(count)]
    stopping = False

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    while True:
        codes = [child.poll() for child in children]
        if all(code is not None for code in codes):
            return 0 if stopping else max(abs(c or 0) for c in codes) or 1
        if not stopping and any(code is not None for code in codes):
            logging.error("an engine process exited (%s); stopping the others", codes)
            stop(signal.SIGTERM, None)
        time.sleep(0.2)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m services.engine", description=__doc__)
    parser.add_argument(
        "--processes", type=int, default=1, help="engine processes sharing the port (default 1)"
    )
    args = parser.parse_args()
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s %(name)s[{os.getpid()}]: %(message)s",
    )
    if args.processes > 1:
        sys.exit(_supervise(args.processes))
    # uvloop: the event loop's own work (polling, callbacks, socket writes) in C; with
    # hiredis it takes about a tenth off the engine's CPU per move (bench/engine.py).
    uvloop.run(serve(Settings.from_env()))


if __name__ == "__main__":
    main()
