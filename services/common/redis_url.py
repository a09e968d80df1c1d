"""What REDIS_URL names (one server, a Redis Cluster, or a primary behind Sentinel), and clients.

Three forms, the same ones the `limits` package (the gateway's rate limits) reads:

- `redis://[user:password@]host:port[/db]` (also `rediss://`, `unix://`): one server;
- `redis+cluster://[user:password@]host:port[,host:port…]`: a Redis Cluster, found from any of
  the nodes listed (the client learns the rest and follows slot moves and failovers);
- `redis+sentinel://[user:password@]host:port[,host:port…]/primary-name[/db]`: the primary that
  the Sentinels listed know by that name, found again after they fail it over. The password is
  the data servers'; `?sentinel_password=…` gives the Sentinels' own, when they have one.

Parsing is strict, so a typo stops a service at start with a sentence instead of at the first
move. Nothing here opens a connection until a command is sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import ClusterNode as AsyncClusterNode
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.asyncio.sentinel import Sentinel as AsyncSentinel
from redis.cluster import ClusterNode, RedisCluster
from redis.sentinel import Sentinel

from services.common import sentinel_connections as primary

SINGLE, CLUSTER, SENTINEL = "single", "cluster", "sentinel"
_SINGLE_SCHEMES = ("redis", "rediss", "unix", "redis+unix")
_CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
_SENTINEL_SCHEMES = ("redis+sentinel", "rediss+sentinel")


class RedisUrlError(ValueError):
    """REDIS_URL (or another Redis URL) does not say where Redis is; the message says why."""


@dataclass(frozen=True, slots=True)
class RedisTarget:
    mode: str  # SINGLE, CLUSTER or SENTINEL
    url: str  # as given (for a single server, handed to redis-py unchanged)
    nodes: tuple[tuple[str, int], ...] = ()  # cluster seeds, or the Sentinels
    username: str | None = None
    password: str | None = None
    primary: str = ""  # Sentinel: the primary's name
    db: int = 0
    tls: bool = False
    sentinel_password: str | None = None


def parse(url: str) -> RedisTarget:
    """The deployment a Redis URL names; RedisUrlError when it is malformed."""
    scheme = url.partition("://")[0].lower() if "://" in url else ""
    if scheme in _SINGLE_SCHEMES:
        return RedisTarget(SINGLE, url)
    if scheme not in _CLUSTER_SCHEMES + _SENTINEL_SCHEMES:
        raise RedisUrlError(
            f"a Redis URL must start with redis://, rediss://, unix://, redis+cluster:// or "
            f"redis+sentinel://; got {_redacted_scheme(url)}"
        )
    parts = urlsplit(url)
    userinfo, _, hosts = parts.netloc.rpartition("@")
    username, _, password = userinfo.partition(":")
    nodes = tuple(_host_port(item, url) for item in hosts.split(",") if item.strip())
    if not nodes:
        raise RedisUrlError(f"{scheme}:// needs at least one host:port")
    query = parse_qs(parts.query)
    path = [p for p in parts.path.split("/") if p]
    common: dict[str, Any] = {
        "nodes": nodes,
        "username": unquote(username) or None,
        "password": unquote(password) or None,
        "tls": scheme.startswith("rediss"),
    }
    if scheme in _CLUSTER_SCHEMES:
        if path:
            raise RedisUrlError("a Redis Cluster has only database 0: put no path after the hosts")
        return RedisTarget(CLUSTER, url, **common)
    if not path or len(path) > 2:
        raise RedisUrlError(
            "redis+sentinel:// needs the primary's name after the hosts, e.g. "
            "redis+sentinel://s1:26379,s2:26379/mymaster (optionally /db after it)"
        )
    db = 0
    if len(path) == 2:
        if not path[1].isdigit():
            raise RedisUrlError(
                f"the database after the primary's name must be a number, got {path[1]!r}"
            )
        db = int(path[1])
    given = query.get("sentinel_password")
    sentinel_password = given[0] if given else None
    return RedisTarget(
        SENTINEL,
        url,
        primary=unquote(path[0]),
        db=db,
        sentinel_password=sentinel_password,
        **common,
    )


def _host_port(item: str, url: str) -> tuple[str, int]:
    host, _, port = item.strip().rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RedisUrlError(
            f"each node must be host:port; got {item.strip()!r} in {_redacted_scheme(url)}"
        )
    return host.strip("[]"), int(port)


def _redacted_scheme(url: str) -> str:
    """The URL's scheme and hosts only: never a password in an error sentence."""
    if "://" not in url:
        return repr(url.rpartition("@")[2][:40])
    scheme, _, rest = url.partition("://")
    return f"{scheme}://{rest.rpartition('@')[2].partition('?')[0][:80]}"


def redacted(url: str) -> str:
    """A Redis URL fit for a log line: every password (the servers', the Sentinels') is ***."""
    if "://" not in url:
        return _redacted_scheme(url)
    scheme, _, rest = url.partition("://")
    userinfo, at, hosts = rest.rpartition("@")
    if at:
        user = userinfo.partition(":")[0]
        rest = f"{user}:***@{hosts}" if ":" in userinfo else rest
    hosts, question, query = rest.partition("?")
    query = "&".join(
        f"{name}=***" if name.endswith("password") else f"{name}{eq}{value}"
        for name, eq, value in (item.partition("=") for item in query.split("&") if item)
    )
    return f"{scheme}://{hosts}{question}{query}"


def async_client(url: str, **options: Any) -> Any:
    """An asyncio client for the deployment `url` names (options: redis-py connection options).

    Typed as Any: redis.asyncio.Redis and RedisCluster share the commands used here but no type.
    """
    return _client(url, _ASYNC, options)


def sync_client(url: str, **options: Any) -> Any:
    """A blocking client for the deployment `url` names (the gateway is threaded, not async)."""
    return _client(url, _SYNC, options)


# redis-py's classes for one server, a cluster (and its nodes) and Sentinel, and the connection
# classes to a Sentinel's primary (plain, TLS), per flavour.
_ASYNC = (
    aioredis.Redis, AsyncRedisCluster, AsyncClusterNode, AsyncSentinel,
    (primary.AsyncPrimaryConnection, primary.AsyncPrimarySSLConnection),
)  # fmt: skip
_SYNC = (
    redis.Redis, RedisCluster, ClusterNode, Sentinel,
    (primary.PrimaryConnection, primary.PrimarySSLConnection),
)  # fmt: skip


def _client(url: str, classes: tuple[Any, ...], options: dict[str, Any]) -> Any:
    plain, cluster, node, sentinel_class, connections = classes
    target = parse(url)
    if target.mode == SINGLE:
        return plain.from_url(url, **options)
    auth: dict[str, Any] = {"username": target.username, "password": target.password}
    if target.mode == CLUSTER:
        return cluster(
            startup_nodes=[node(host, port) for host, port in target.nodes],
            ssl=target.tls,
            **auth,
            **options,
        )
    sentinel = sentinel_class(
        list(target.nodes),
        sentinel_kwargs=_sentinel_kwargs(target, options),
        ssl=target.tls,
        **auth,
    )
    return sentinel.master_for(
        target.primary,
        db=target.db,
        connection_class=connections[1 if target.tls else 0],
        **options,
    )


def _sentinel_kwargs(target: RedisTarget, options: dict[str, Any]) -> dict[str, Any]:
    """How to talk to the Sentinels themselves: short timeouts, their own password if any."""
    kwargs: dict[str, Any] = {
        "socket_timeout": options.get("socket_connect_timeout", 2.0),
        "socket_connect_timeout": options.get("socket_connect_timeout", 2.0),
    }
    if target.sentinel_password:
        kwargs["password"] = target.sentinel_password
    return kwargs
