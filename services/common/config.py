"""Configuration by environment, read in one place, with defaults that work on one machine.

Every service reads its settings here, so the names below are the whole list an operator needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from urllib.parse import urlsplit


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
    waiting_ttl_s: int
    rpc_deadline_s: float
    daily_secret: str = ""  # what the daily puzzles derive from ("": one kept in Redis)
    # The address people reach the site at: links the server makes (the party QR code) start
    # with it, never with a request's Host header, which anyone can set.
    public_url: str = "http://127.0.0.1:8000"
    # The archive (issue 29): PostgreSQL's URL ("": no archive; finished games then live only
    # GAME_TTL_FINISHED_S in Redis). With one, a finished game's keys are held ARCHIVE_HOLD_S
    # (a safety net) until an archiver has it, then given GAME_TTL_FINISHED_S.
    database_url: str = ""
    archive_hold_s: int = 30 * 24 * 3600
    # A finished game's `?chat=1` streams stay open this long after its end for chat lines
    # (a "gg" after the end shows live); other streams end with the game (issue 35).
    chat_after_end_s: int = 600
    # The most a start spends settling deadlines that passed while no engine ran, before ready.
    clock_catch_up_s: float = 5.0

    @property
    def archive(self) -> bool:
        return bool(self.database_url)

    @classmethod
    def from_env(cls) -> Settings:
        engine_port = _int("ENGINE_PORT", 50051)
        ai_port = _int("AI_PORT", 50052)
        gateway_host = os.environ.get("GATEWAY_HOST", "127.0.0.1")
        gateway_port = _int("GATEWAY_PORT", 8000)
        return cls(
            redis_url=_redis_url("REDIS_URL", "redis://127.0.0.1:6379/0"),
            engine_host=os.environ.get("ENGINE_HOST", "127.0.0.1"),
            engine_port=engine_port,
            engine_target=os.environ.get("ENGINE_TARGET", f"127.0.0.1:{engine_port}"),
            ai_port=ai_port,
            ai_target=os.environ.get("AI_TARGET", f"127.0.0.1:{ai_port}"),
            gateway_host=gateway_host,
            gateway_port=gateway_port,
            ai_service_token=os.environ.get("AI_SERVICE_TOKEN", ""),
            finished_ttl_s=_int("GAME_TTL_FINISHED_S", 24 * 3600),
            idle_ttl_s=_int("GAME_TTL_IDLE_S", 7 * 24 * 3600),
            # A game waiting for players that nobody joins is gone far sooner than a running one.
            waiting_ttl_s=_int("GAME_TTL_WAITING_S", 3600),
            rpc_deadline_s=_seconds("RPC_DEADLINE_S", 10.0),
            daily_secret=os.environ.get("DAILY_SECRET", ""),
            public_url=_public_url(gateway_host, gateway_port),
            database_url=_database_url(),
            archive_hold_s=max(60, _int("ARCHIVE_HOLD_S", 30 * 24 * 3600)),
            chat_after_end_s=max(0, _int("CHAT_AFTER_END_S", 600)),
            clock_catch_up_s=max(0.0, _seconds("CLOCK_CATCH_UP_S", 5.0)),
        )


def _database_url() -> str:
    """DATABASE_URL ("" when unset), checked so that a typo stops the start with a sentence."""
    raw = os.environ.get("DATABASE_URL", "").strip()
    if raw and urlsplit(raw).scheme not in ("postgresql", "postgres"):
        raise SystemExit(
            f"configuration: DATABASE_URL must be a postgresql:// URL, got {raw.split('@')[-1]!r}"
        )
    return raw


def _public_url(host: str, port: int) -> str:
    """PUBLIC_URL without its trailing slash, checked; by default what `metro up` serves (and
    prints): the gateway's own address, 127.0.0.1 for one that listens on every interface."""
    raw = os.environ.get("PUBLIC_URL", "").strip()
    if not raw:
        shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
        return f"http://{shown}:{port}"
    parts = urlsplit(raw)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or any(c.isspace() for c in raw)
        or parts.query
        or parts.fragment
    ):
        raise SystemExit(
            f"configuration: PUBLIC_URL must be the site's address, such as "
            f"https://metro.example.org (got {raw!r})"
        )
    return raw.rstrip("/")


def _redis_url(name: str, default: str) -> str:
    """A Redis URL for one server, a cluster or Sentinel (services/common/redis_url.py),
    checked here so that a typo stops the start with a sentence."""
    from services.common.redis_url import RedisUrlError, parse

    raw = os.environ.get(name, "").strip() or default
    try:
        parse(raw)
    except RedisUrlError as err:
        raise SystemExit(f"configuration: {name}: {err}") from None
    return raw


@dataclass(frozen=True)
class Durability:
    """How many replicas must hold a change before the engine answers it (WAIT after each
    commit). 0, the default, suits one server; with replicas (a cluster, or Sentinel) set
    REDIS_MIN_REPLICAS=1 so that a promoted replica never lacks an acknowledged move. A change
    not confirmed within REDIS_REPLICA_WAIT_MS is answered "outcome unknown" (gRPC UNKNOWN)
    instead; the client's retry (same move_id or idempotency key) is answered once the replicas
    have it."""

    min_replicas: int
    wait_ms: int

    @classmethod
    def from_env(cls) -> Durability:
        min_replicas = _int("REDIS_MIN_REPLICAS", 0)
        wait_ms = _int("REDIS_REPLICA_WAIT_MS", 1000)
        if min_replicas < 0:
            raise SystemExit(
                f"configuration: REDIS_MIN_REPLICAS must be 0 or more, got {min_replicas}"
            )
        if wait_ms < 1:
            raise SystemExit(
                f"configuration: REDIS_REPLICA_WAIT_MS must be 1 or more, got {wait_ms}"
            )
        return cls(min_replicas=min_replicas, wait_ms=wait_ms)


# Threads per gateway process that run the Flask API (LiveLimits.threads; deploy/gunicorn.conf.py).
# Live streams hold none: the ASGI app's hub serves them (services/gateway/live/).
DEFAULT_GATEWAY_THREADS = 256


@dataclass(frozen=True)
class GatewayLimits:
    """What only the gateway's Flask API reads: per-client rate limits and hint caps (the live
    streams' caps are LiveLimits').

    Rates are flask-limiter's notation ("30/minute"), counted per client IP address. They are
    kept in Redis (RATE_LIMIT_STORAGE_URL, else the engine's REDIS_URL) so that every gateway
    process counts together; with neither set each process counts alone, in memory.
    """

    enabled: bool
    storage_url: str  # "" when none is configured: in memory, per process
    create: str
    open_games: str  # creates of games with an open seat (the lobby lists those)
    join: str
    moves: str
    hints: str
    hints_per_game: int  # hints being worked out at once for one game
    hints_per_client: int  # and for one client
    proxies: int  # reverse proxies in front whose X-Forwarded-For is trusted
    reads: str = "1200/minute"  # views, legal moves, lists, records, events (far above a page's)
    seats: str = "60/minute"  # claim, leave, return, sit, rematch
    recover_at_once: int = 1  # recovery codes checked at once over all gateways (a slow hash)
    bots: str = "300/minute"  # the bot API: invitations, ladder
    # Bounded costs (issue 30): what one address, and every address together, may store or spend.
    create_quota: str = "400/day"  # games created by one address (a day's share of the store)
    create_all: str = "600/minute"  # games created by every address together
    players: str = "30/hour"  # players created by one address (a slow hash each)
    players_all: str = "300/minute"  # ... by every address together
    analyses: str = "30/hour"  # analyses queued by one address
    analyses_all: str = "120/minute"  # ... by every address together
    rules: str = "60/minute"  # position queries (POST /api/rules) of one address
    rules_at_once: int = 1  # position queries worked out at once by one gateway process
    chat: str = "30/minute"  # chat lines (and reports) one address sends (issue 35)

    @classmethod
    def from_env(cls) -> GatewayLimits:
        return cls(
            enabled=os.environ.get("RATE_LIMIT_ENABLED", "1").strip().lower()
            not in ("0", "false", "no", "off"),
            storage_url=_redis_url("RATE_LIMIT_STORAGE_URL", "")
            if os.environ.get("RATE_LIMIT_STORAGE_URL", "").strip()
            else os.environ.get("REDIS_URL", ""),
            create=_rate("RATE_LIMIT_CREATE", "30/minute"),
            open_games=_rate("RATE_LIMIT_OPEN_GAMES", "10/hour"),
            join=_rate("RATE_LIMIT_JOIN", "60/minute"),
            moves=_rate("RATE_LIMIT_MOVES", "600/minute"),
            hints=_rate("RATE_LIMIT_HINTS", "20/minute"),
            hints_per_game=max(1, _int("HINTS_PER_GAME", 2)),
            hints_per_client=max(1, _int("HINTS_PER_CLIENT", 2)),
            proxies=max(0, _int("GATEWAY_PROXIES", 0)),
            reads=_rate("RATE_LIMIT_READS", "1200/minute"),
            seats=_rate("RATE_LIMIT_SEATS", "60/minute"),
            recover_at_once=max(1, _int("RECOVER_AT_ONCE", 1)),
            bots=_rate("RATE_LIMIT_BOTS", "300/minute"),
            create_quota=_rate("RATE_LIMIT_CREATE_QUOTA", "400/day"),
            create_all=_rate("RATE_LIMIT_CREATE_ALL", "600/minute"),
            players=_rate("RATE_LIMIT_PLAYERS", "30/hour"),
            players_all=_rate("RATE_LIMIT_PLAYERS_ALL", "300/minute"),
            analyses=_rate("RATE_LIMIT_ANALYSES", "30/hour"),
            analyses_all=_rate("RATE_LIMIT_ANALYSES_ALL", "120/minute"),
            rules=_rate("RATE_LIMIT_RULES", "60/minute"),
            rules_at_once=max(1, _int("RULES_AT_ONCE", 1)),
            chat=_rate("RATE_LIMIT_CHAT", "30/minute"),
        )


# Live streams on the async server (services/gateway/live/, issue 21): each open stream costs
# memory only, so the cap per process is a memory budget over an estimate of one stream's cost
# (bench/watchers.py measures it: docs/gateway.md "Live updates").
DEFAULT_STREAM_MEMORY_MB = 512
DEFAULT_STREAM_COST_KB = 48


@dataclass(frozen=True)
class LiveLimits:
    """What bounds the async live streams of one gateway process."""

    max_streams: int  # open streams at once: GATEWAY_MAX_STREAMS, else memory_mb / cost_kb
    per_client: int  # open streams of one client address (0: no limit)
    buffer_kb: int  # a stream with more than this waiting unsent is dropped (a slow reader)
    buffer_events: int  # ... or more than this many messages
    threads: int  # threads that run the Flask API beside the streams
    opens: int = 30  # streams one address may open per `opens_window_s` (0: no limit; issue 30)
    opens_window_s: int = 10

    @classmethod
    def from_env(cls) -> LiveLimits:
        memory_mb = max(1, _int("GATEWAY_STREAM_MEMORY_MB", DEFAULT_STREAM_MEMORY_MB))
        cost_kb = max(1, _int("GATEWAY_STREAM_COST_KB", DEFAULT_STREAM_COST_KB))
        by_memory = memory_mb * 1024 // cost_kb
        return cls(
            max_streams=max(1, _int("GATEWAY_MAX_STREAMS", by_memory)),
            per_client=max(0, _int("GATEWAY_STREAMS_PER_CLIENT", 64)),
            buffer_kb=max(1, _int("GATEWAY_STREAM_BUFFER_KB", 256)),
            buffer_events=max(1, _int("GATEWAY_STREAM_BUFFER_EVENTS", 512)),
            threads=max(4, _int("GATEWAY_THREADS", DEFAULT_GATEWAY_THREADS)),
            opens=max(0, _int("GATEWAY_STREAM_OPENS", 30)),
            opens_window_s=max(1, _int("GATEWAY_STREAM_OPENS_WINDOW_S", 10)),
        )


def _rate(name: str, default: str) -> str:
    """A rate such as "30/minute" or "5 per second"; checked here so a typo stops the start."""
    raw = os.environ.get(name, "").strip() or default
    from limits import parse_many  # imported here: only the gateway needs the package

    try:
        parse_many(raw)
    except ValueError:
        raise SystemExit(
            f"configuration: {name} must be a rate such as '30/minute', got {raw!r}"
        ) from None
    return raw


@dataclass(frozen=True)
class AiWorkerSettings:
    """What only an AI worker reads, so a mistake here stops the AI workers and nothing else."""

    host: str
    bot_workers: int
    search_threads: int  # hint searches at once; bot moves have threads of their own
    analysis_workers: int = 1  # post-game analyses at once, each in a niced process of its own
    analysis_iterations: int = 800  # the fixed search budget of each analysed move

    @classmethod
    def from_env(cls) -> AiWorkerSettings:
        return cls(
            # Every interface by default: in a container the AI is reached by its service name.
            host=os.environ.get("AI_HOST", "0.0.0.0"),
            bot_workers=_int("AI_BOT_WORKERS", 1),
            search_threads=max(1, _int("AI_SEARCH_THREADS", 2)),
            analysis_workers=max(0, _int("AI_ANALYSIS_WORKERS", 1)),
            analysis_iterations=min(100_000, max(1, _int("ANALYSIS_ITERATIONS", 800))),
        )


def _seconds(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        return float(raw) if raw else default
    except ValueError:
        raise SystemExit(f"configuration: {name} must be seconds (a number), got {raw!r}") from None


@dataclass(frozen=True)
class BotSettings:
    """Bot accounts and the bot ladder (issue 24; the engine reads these)."""

    max_games: int  # unfinished games one bot may hold at once
    calls_per_minute: int  # a bot's invitation, ladder and event-stream calls, counted per bot
    ladder_interval_s: float  # how often the ladder scheduler looks for pairings
    ladder_games_per_hour: int  # ladder games one bot is given at most in an hour
    ladder_levels: tuple[str, ...]  # AI levels the ladder pairs bots with
    ladder_move_s: int  # the clock of a ladder game: seconds a move (then the AI plays)
    pause_timeouts: int  # time-outs in a row that pause a bot
    pause_illegal: int  # illegal moves in a row that pause a bot
    pause_s: int  # how long a paused bot is left out of the ladder

    @classmethod
    def from_env(cls) -> BotSettings:
        levels = os.environ.get("LADDER_AI_LEVELS", "easy,medium")
        return cls(
            max_games=max(1, _int("BOT_MAX_GAMES", 8)),
            calls_per_minute=max(1, _int("BOT_CALLS_PER_MINUTE", 120)),
            ladder_interval_s=max(0.2, _seconds("LADDER_INTERVAL_S", 300.0)),
            ladder_games_per_hour=max(1, _int("LADDER_GAMES_PER_HOUR", 4)),
            ladder_levels=tuple(x.strip() for x in levels.split(",") if x.strip()),
            ladder_move_s=max(5, _int("LADDER_MOVE_S", 60)),
            pause_timeouts=max(1, _int("BOT_PAUSE_TIMEOUTS", 3)),
            pause_illegal=max(1, _int("BOT_PAUSE_ILLEGAL", 5)),
            pause_s=max(1, _int("BOT_PAUSE_S", 3600)),
        )
