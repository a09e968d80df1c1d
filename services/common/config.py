"""Configuration by environment, read in one place, with defaults that work on one machine.

Every service reads its settings here, so the names below are the whole list an operator needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise SystemExit(f"configuration: {name} must be an integer, got {raw!r}") from None


@dataclass(frozen=True)
class Settings:
    redis_url: str
    engine_host: str
    engine_port: int
    engine_target: str
    ai_port: int
    ai_target: str
    gateway_host: str
    gateway_port: int
    ai_service_token: str
    finished_ttl_s: int
    idle_ttl_s: int
    rpc_deadline_s: float

    @classmethod
    def from_env(cls) -> Settings:
        engine_port = _int("ENGINE_PORT", 50051)
        ai_port = _int("AI_PORT", 50052)
        return cls(
            redis_url=os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
            engine_host=os.environ.get("ENGINE_HOST", "127.0.0.1"),
            engine_port=engine_port,
            engine_target=os.environ.get("ENGINE_TARGET", f"127.0.0.1:{engine_port}"),
            ai_port=ai_port,
            ai_target=os.environ.get("AI_TARGET", f"127.0.0.1:{ai_port}"),
            gateway_host=os.environ.get("GATEWAY_HOST", "127.0.0.1"),
            gateway_port=_int("GATEWAY_PORT", 8000),
            ai_service_token=os.environ.get("AI_SERVICE_TOKEN", ""),
            finished_ttl_s=_int("GAME_TTL_FINISHED_S", 24 * 3600),
            idle_ttl_s=_int("GAME_TTL_IDLE_S", 7 * 24 * 3600),
            rpc_deadline_s=float(os.environ.get("RPC_DEADLINE_S", "10")),
        )


@dataclass(frozen=True)
class AiWorkerSettings:
    """What only an AI worker reads, so a mistake here stops the AI workers and nothing else."""

    host: str
    bot_workers: int
    search_threads: int

    @classmethod
    def from_env(cls) -> AiWorkerSettings:
        return cls(
            # Every interface by default: in a container the AI is reached by its service name.
            host=os.environ.get("AI_HOST", "0.0.0.0"),
            bot_workers=_int("AI_BOT_WORKERS", 1),
            search_threads=max(1, _int("AI_SEARCH_THREADS", 4)),
        )
