"""`python -m services.archive`: one archiver (services/archive/archiver.py) with the
environment's settings: REDIS_URL, DATABASE_URL (required), GAME_TTL_FINISHED_S, and
ARCHIVE_CLAIM_IDLE_MS (how long an entry stays pending before another archiver takes it over)
and HEALTH_PORT (an HTTP health answer for container checks).

It applies the schema's migrations first (safe while other archivers start too: migrate.py),
waiting for PostgreSQL as long as it takes. Run as many as the load needs."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import time
from typing import Any, cast

import psycopg
import uvloop

from services.archive.archiver import CLAIM_IDLE_MS, Archiver
from services.archive.migrate import migrate
from services.common.config import Settings
from services.common.grpc_server import serve_health_http

log = logging.getLogger("metro.archive")


def migrate_when_up(url: str) -> list[str]:
    """Apply the migrations once PostgreSQL answers (said once in the log while it does not)."""
    said = False
    while True:
        try:
            return migrate(url)
        except psycopg.OperationalError as err:
            if not said:
                log.warning("archiver: PostgreSQL is not answering yet (%s); waiting", err)
                said = True
            time.sleep(1.0)


async def run(settings: Settings) -> None:
    applied = await asyncio.to_thread(migrate_when_up, settings.database_url)
    if applied:
        log.info("archiver: applied migrations %s", ", ".join(applied))
    archiver = Archiver(
        settings.redis_url,
        settings.database_url,
        finished_ttl_s=settings.finished_ttl_s,
        claim_idle_ms=int(os.environ.get("ARCHIVE_CLAIM_IDLE_MS", "") or CLAIM_IDLE_MS),
    )
    health = await serve_health_http(cast(Any, archiver))  # HEALTH_PORT: the loop goes round
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await archiver.run(stop)
    finally:
        if health is not None:
            health.close()


def main() -> None:
    logging.basicConfig(
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s %(name)s[{os.getpid()}]: %(message)s",
    )
    settings = Settings.from_env()
    if not settings.archive:
        raise SystemExit("configuration: the archiver needs DATABASE_URL (a postgresql:// URL)")
    uvloop.run(run(settings))


if __name__ == "__main__":
    main()
