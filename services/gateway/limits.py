"""Abuse limits: per-client request rates, hints at once, and live streams per process.

- **Rates** (flask-limiter, counted per client IP address): creating games, joining, moves,
  hints, seat changes (claim, leave, return, sit, rematch) and reads (views, legal moves, lists,
  records, event streams) each have a rate (services/common/config.py `GatewayLimits`) that a
  person playing never meets; a flood gets `429 rate_limited` with `Retry-After`. The counts
  live in Redis (`RATE_LIMIT_STORAGE_URL`, else `REDIS_URL`) so every gateway process and
  replica counts together; with no Redis configured each process counts alone, in memory. A
  Redis that stops answering is no outage: the counts fall back to memory until it is back.
- **Hints at once**: a hint holds a gateway thread and an AI search for seconds, so one game and
  one client may each have only a few hints being worked out at once (the next gets 429). The
  slots are a Redis sorted set per game and per client whose members expire by themselves, so a
  gateway that dies holding one frees it within a hint's deadline; without Redis, per process.
- **Recovery codes at once**: checking a recovery code costs the engine a slow hash (PBKDF2,
  100,000 rounds, services/engine/players/players.py), so a per-address rate alone lets many
  addresses
  together take the engine's cores (100 addresses at 10 tries a minute raised legal-move p99 from
  96 to 372 ms). Over every gateway at most `RECOVER_AT_ONCE` codes (default 1: one core's
  worth) are checked at once (the same expiring Redis slots as hints; without Redis, per
  process). bench/recover_storm.py: legal-move reads p99 3.3 s with no cap, 0.58 s at 2, 0.26 s
  at 1 (0.21 s with no storm) on a loaded 2-core machine. A code that cannot be one (wrong
  length or characters) is refused before any slot or hash. Whose code goes next is fair
  (services/gateway/costs.py `FairTurns`): each address waits in its own short queue and the
  addresses take turns, so a flood from one address cannot starve another's recovery (issue
  30: with one slot and 429 at once, a real user got through 1 time in 20; bench/
  bounded_costs.py recover: 0 of 10 codes before, 10 of 10 now, beside 6 flooding threads).
- **Quotas** (`QUOTAS`): creating games, players and analyses are also counted per address over
  a day (games) and for every address together (the `_all` rates), each a 429 of its own;
  `POST /api/rules` has a rate per address and a gate per process (costs.py `WorkGate`).
- **Live streams** (a game's and a player's own): served by the ASGI app's hub, not by Flask,
  and capped there (services/gateway/live/asgi.py `StreamSlots`: a memory budget per process,
  `503 busy`, and a cap per client address, `429`, both with Retry-After; caps.py counts the
  address over every worker and its rate of opens). They hold no thread, so moves and /healthz
  always find one.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import math
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import redis
from flask import Flask, Response, current_app, jsonify, request
from flask_limiter import Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded
from redis.exceptions import RedisClusterException
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from services.common.config import GatewayLimits
from services.common.redis_url import SENTINEL, SINGLE, parse, redacted, sync_client
from services.gateway.costs import FairTurns, WorkGate
from services.gateway.errors import ApiError, retry_later
from services.gateway.limit_safety import REPLAYABLE, ReplayMarks, after_limits

log = logging.getLogger(__name__)

EXTENSION = "metro_limits"
STREAM_RETRY_AFTER_S = 5
HINT_RETRY_AFTER_S = 2
REDIS_TIMEOUT_S = 1.0
# A cluster with no reachable node raises RedisClusterException, which is no RedisError.
REDIS_ERRORS = (redis.RedisError, RedisClusterException)
KEY_PREFIX = "metro:limits"

RECOVER_RETRY_AFTER_S = 2
SLOT_POLL_S = 0.02  # how often a recovery code waiting for the shared slot asks again
RECOVER_QUEUE = 2  # recovery codes of one address waiting for a turn, per process
RECOVER_WAIT_S = 10.0  # the longest a code waits for its turn and then for the shared slot
RULES_QUEUE = 8  # position queries waiting for a turn, per process

OPEN_GAMES_ENDPOINT = "games.create_game"
# Endpoint -> which rate of GatewayLimits applies (endpoints of one rate share its count).
RATED_ENDPOINTS = {
    "games.create_game": "create",
    "games.join_game": "join",
    "party.join_by_code": "join",
    "party.start_party": "seats",
    "party.party_info": "reads",
    "party.join_qr": "reads",
    "party.games_with_parties": "reads",
    "games.apply_move": "moves",
    "games.hint": "hints",
    "games.get_view": "reads",
    "games.legal_moves": "reads",
    "games.list_games": "reads",
    "games.record": "reads",
    "players.table": "reads",
    "players.rematch_state": "reads",
    "players.who_am_i": "reads",
    "players.my_games": "reads",
    "players.leaderboard": "reads",
    "games.leave_seat": "seats",
    "games.return_to_seat": "seats",
    "players.claim_seat": "seats",
    "players.sit_player": "seats",
    "players.rematch": "seats",
    "bots.accept_invitation": "bots",
    "bots.decline_invitation": "bots",
    "bots.get_ladder": "bots",
    "bots.set_ladder": "bots",
    "daily.daily_today": "reads",
    "daily.daily_results": "reads",
    "daily.start_daily": "create",
    "games.rules_query": "rules",
    "players.create_player": "players",
    "analysis.request_analysis": "analyses",
    "chat.send_chat": "chat",
    "chat.report_chat": "chat",
    "chat.get_chat": "reads",
}
# Endpoint -> its quotas beyond its rate (issue 30: bounded costs): GatewayLimits fields counted
# per address, or for every address together (the `_all` ones), each with its own 429.
QUOTAS = {
    "games.create_game": ("create_quota", "create_all"),
    "daily.start_daily": ("create_quota", "create_all"),
    "players.create_player": ("players_all",),
    "analysis.request_analysis": ("analyses_all",),
}
EVERYONE = "every client"  # the key of the quotas counted for every address together

# KEYS: the slot sets (game, client); ARGV: member, hold in ms, then each set's capacity.
# Expired members go first, so a slot left by a dead gateway frees itself. Returns 0 when the
# slot was taken in every set, else the 1-based index of the full set.
_TAKE_LUA = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local hold = tonumber(ARGV[2])
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then
    return i
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + hold, ARGV[1])
  redis.call('PEXPIRE', key, hold + 1000)
end
return 0
"""


def client_ip() -> str:
    """Who a limit counts: the client's address (behind GATEWAY_PROXIES trusted proxies, the
    one they saw)."""
    return request.remote_addr or "unknown"


class Guard:
    """The limits of one app: its limiter, hint slots and stream slots."""

    def __init__(self, settings: GatewayLimits, hint_hold_s: float) -> None:
        self.settings = settings
        self.limiter: Limiter | None = None
        self.hints = HintSlots(
            settings.storage_url, settings.hints_per_game, settings.hints_per_client, hint_hold_s
        )
        self.recoveries = RecoverySlots(settings.storage_url, settings.recover_at_once, hint_hold_s)
        # Whose recovery code is checked next (per process, addresses in turn) and the position
        # queries worked out at once (services/gateway/costs.py).
        self.recovery_turns = FairTurns(RECOVER_QUEUE, RECOVER_WAIT_S, RECOVER_RETRY_AFTER_S)
        self.rules = WorkGate("position queries", settings.rules_at_once, RULES_QUEUE, 5.0)


def install(app: Flask, settings: GatewayLimits, *, hint_hold_s: float) -> Guard:
    """Put the limits on `app` (after its blueprints are registered)."""
    if settings.proxies:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=settings.proxies, x_proto=settings.proxies
        )
    guard = Guard(settings, hint_hold_s)
    app.extensions[EXTENSION] = guard
    if settings.enabled:
        guard.limiter = _limiter(app, settings, ReplayMarks(settings.storage_url))

    @app.errorhandler(RateLimitExceeded)
    def rate_limited(err: RateLimitExceeded) -> Response:
        if isinstance(err.response, Response):
            return err.response
        return too_many("Too many requests; slow down.", 60)

    return guard


def _limiter(app: Flask, settings: GatewayLimits, marks: ReplayMarks) -> Limiter:
    url = settings.storage_url
    if not url:
        log.warning(
            "rate limits are counted in memory, per gateway process: set "
            "RATE_LIMIT_STORAGE_URL (or REDIS_URL) so that every process counts together"
        )
    storage_uri, options = _storage(url)
    try:
        limiter = Limiter(
            client_ip,
            app=app,
            storage_uri=storage_uri,
            storage_options=options,
            strategy="sliding-window-counter",
            key_prefix=KEY_PREFIX,
            # A Redis that stops answering costs no request: counts go on in memory meanwhile.
            swallow_errors=True,
            in_memory_fallback_enabled=True,
            headers_enabled=False,
            on_breach=_breached,
        )
    except RedisClusterException as err:
        # Unlike one server, a cluster's client needs its slot map before the first count.
        raise SystemExit(
            f"gateway: the Redis Cluster for rate limits ({redacted(url)}) does not answer: "
            f"{str(err).rstrip('.')}. Start it first (or set RATE_LIMIT_ENABLED=0)."
        ) from None
    for endpoint, which in RATED_ENDPOINTS.items():
        # Innermost, so it runs once every limit has let the request through (limit_safety.py:
        # costly calls fail closed while the store fails; a passed Idempotency-Key is marked).
        view = after_limits(limiter, endpoint, marks, app.view_functions[endpoint])
        rate: str = getattr(settings, which)
        # A repeat of a key that passed before is no new request (limit_safety.py).
        replay = functools.partial(marks.replayed, endpoint) if endpoint in REPLAYABLE else None
        limit = limiter.shared_limit(rate, scope=which, exempt_when=replay)  # one count per rate
        if endpoint == OPEN_GAMES_ENDPOINT:
            # Games with an open seat are listed in everyone's lobby: far fewer of those, so
            # that one client cannot fill the lobby (the others are limited by `create` only).
            view = limiter.limit(  # type: ignore[assignment]
                settings.open_games,
                scope="open_games",
                exempt_when=lambda: not _lists_open_seat() or marks.replayed(OPEN_GAMES_ENDPOINT),
            )(view)
        view = limit(view)  # type: ignore[assignment]
        # Checked after the address's own rates: a refused request is no count for everyone.
        for quota in QUOTAS.get(endpoint, ()):
            everyone = quota.endswith("_all")
            view = limiter.shared_limit(  # type: ignore[assignment]
                getattr(settings, quota), scope=quota, key_func=_everyone if everyone else None,
                exempt_when=replay,
            )(view)  # fmt: skip
        app.view_functions[endpoint] = view
    return limiter


def _everyone() -> str:
    return EVERYONE


# Seats that are, or may become, open to anyone: a bot's reserved seat opens when it declines
# (issue 30.3: one's own bot account declining made 25 open tables in 10 s from one address).
_OPENS = ("open", "bot")


def _lists_open_seat() -> bool:
    """Whether the create request asks for a game with an open seat (or one that may open).

    Never raises: flask-limiter takes any error of a check for its store failing (it would count
    in memory and fail the costly calls closed, 503), so a body too large to read is no open
    seat here and the view refuses it, 413; nor is a body nested too deep to parse (the view's
    parser answers 400)."""
    try:
        body = request.get_json(silent=True)
    except (HTTPException, RecursionError):
        return False
    seats = body.get("seats") if isinstance(body, dict) else None
    return isinstance(seats, list) and any(
        isinstance(seat, dict) and seat.get("kind") in _OPENS for seat in seats
    )


def _storage(url: str) -> tuple[str, dict[str, Any]]:
    """flask-limiter's storage URI and options for a Redis URL of any form (one server, a
    cluster, Sentinel: services/common/redis_url.py). The `limits` package reads the same
    redis+cluster:// and redis+sentinel:// schemes, but not their TLS forms nor a password of
    the Sentinels' own, so those travel as options."""
    if not url:
        return "memory://", {}
    target = parse(url)
    timeouts: dict[str, Any] = {"socket_timeout": 1, "socket_connect_timeout": 1}
    if target.mode == SINGLE:
        return url, timeouts
    scheme, _, rest = url.partition("://")
    uri = scheme.lower().replace("rediss+", "redis+") + "://" + rest.partition("?")[0]
    options = {**timeouts, **({"ssl": True} if target.tls else {})}
    if target.mode == SENTINEL:
        options["sentinel_kwargs"] = {"password": target.sentinel_password, **timeouts}
    return uri, options


def _breached(limit: RequestLimit) -> Response:
    what = limit.limit
    wait = max(1, math.ceil(limit.reset_at - time.time()))
    who = "from all clients together" if EVERYONE in limit.request_args else "from one client"
    message = (
        f"Too many requests: at most {what.amount} per {_window(what)} {who} here. "
        f"Try again in {wait} s."
    )
    return too_many(message, wait)


def _window(limit: Any) -> str:
    multiples = int(getattr(limit, "multiples", 1))
    unit = str(limit.GRANULARITY.name)
    return unit if multiples == 1 else f"{multiples} {unit}s"


def too_many(message: str, retry_after_s: int) -> Response:
    reply = jsonify(error={"code": "rate_limited", "message": message})
    reply.status_code = 429
    reply.headers["Retry-After"] = str(retry_after_s)
    return reply


def guard() -> Guard:
    found: Guard = current_app.extensions[EXTENSION]
    return found


# ---- hints at once ---------------------------------------------------------------------------


class HintSlots:
    """At most `per_game` hints at once for one game and `per_client` for one client."""

    def __init__(self, url: str, per_game: int, per_client: int, hold_s: float) -> None:
        self.per_game = per_game
        self.per_client = per_client
        self.hold_ms = max(1000, int(hold_s * 1000))
        self._url = url
        self._redis: Any = None  # redis.Redis, or a RedisCluster (the same commands)
        self._take: Any = None
        self._lock = threading.Lock()
        self._local: Counter[str] = Counter()
        self._warned_at = 0.0

    @contextlib.contextmanager
    def hold(self, game_id: str, client: str) -> Iterator[None]:
        """A slot for one hint of `client` in `game_id` while the block runs; 429 when full."""
        # One hash tag for both sets: the script takes them at once, so on a Redis Cluster
        # they must share a slot (hints are few; one slot carries them all).
        keys = [f"{KEY_PREFIX}:{{hints}}:game:{game_id[:64]}",
                f"{KEY_PREFIX}:{{hints}}:client:{client}"]  # fmt: skip
        release = self._take_slot(keys)
        try:
            yield
        finally:
            release()

    def _connect(self) -> None:
        """The client, made on first use: a cluster client asks its nodes for the slot map
        as it is made, and a cluster down when the gateway starts must not stop the gateway."""
        if self._redis is None:
            client = sync_client(
                self._url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
            self._take = client.register_script(_TAKE_LUA)
            self._redis = client

    def _take_slot(self, keys: list[str]) -> Callable[[], None]:
        if self._url:
            member = uuid.uuid4().hex
            try:
                self._connect()
                full = int(self._take(keys=keys, args=[member, self.hold_ms, *self._caps()]))
            except REDIS_ERRORS as err:
                self._warn(err)
            else:
                if full:
                    raise self._refusal(full)
                return lambda: self._give_back_redis(keys, member)
        return self._take_local(keys)

    def _caps(self) -> tuple[int, ...]:
        return self.per_game, self.per_client

    def _give_back_redis(self, keys: list[str], member: str) -> None:
        assert self._redis is not None
        try:
            pipe = self._redis.pipeline(transaction=False)
            for key in keys:
                pipe.zrem(key, member)
            pipe.execute()
        except REDIS_ERRORS as err:
            self._warn(err)  # the slot frees itself when its hold ends

    def _take_local(self, keys: list[str]) -> Callable[[], None]:
        with self._lock:
            for i, (key, cap) in enumerate(zip(keys, self._caps(), strict=True), 1):
                if self._local[key] >= cap:
                    raise self._refusal(i)
            for key in keys:
                self._local[key] += 1

        def give_back() -> None:
            with self._lock:
                for key in keys:
                    self._local[key] -= 1
                    if self._local[key] <= 0:
                        del self._local[key]

        return give_back

    def _refusal(self, which: int) -> ApiError:
        if which == 1:
            what = f"{self.per_game} hints are being worked out for this game already"
        else:
            what = f"{self.per_client} of your hints are being worked out already"
        return retry_later(
            429, "rate_limited", f"{what}; ask again when one is answered.", HINT_RETRY_AFTER_S
        )

    def _warn(self, err: Exception) -> None:
        now = time.monotonic()
        if now - self._warned_at > 60:
            self._warned_at = now
            log.warning("hint slots: Redis is not answering (%s); counting per process", err)


class RecoverySlots(HintSlots):
    """At most `cap` recovery codes being checked at once, over every gateway sharing the Redis:
    the same expiring slots as hints, with one set for everyone."""

    KEY = f"{KEY_PREFIX}:{{recover}}:all"

    def __init__(self, url: str, cap: int, hold_s: float) -> None:
        super().__init__(url, cap, cap, hold_s)
        self.cap = cap

    @contextlib.contextmanager
    def hold_one(self, wait_s: float = 0.0) -> Iterator[None]:
        """A slot while the block runs, waited for up to `wait_s` (another gateway's check ends
        within a hash's time); 429 when every slot is still taken then."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                release = self._take_slot([self.KEY])
                break
            except ApiError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(SLOT_POLL_S)
        try:
            yield
        finally:
            release()

    def _caps(self) -> tuple[int, ...]:
        return (self.cap,)

    def _refusal(self, which: int) -> ApiError:
        return retry_later(
            429,
            "rate_limited",
            "Too many recovery codes are being checked right now; try again in a moment.",
            RECOVER_RETRY_AFTER_S,
        )
