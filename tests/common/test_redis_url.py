"""REDIS_URL's three forms (one server, a cluster, Sentinel): what each names, the client each
gets, and a clear sentence, without any password, for every malformed one."""

from __future__ import annotations

import pytest
import redis
from redis.sentinel import SentinelConnectionPool

from services.common import sentinel_connections
from services.common.config import Durability, Settings
from services.common.redis_url import (
    CLUSTER,
    SENTINEL,
    SINGLE,
    RedisUrlError,
    async_client,
    parse,
    redacted,
    sync_client,
)


@pytest.mark.parametrize(
    "url", ["redis://h:6379/0", "rediss://:pw@h:6380/1", "unix:///tmp/r.sock", "redis://h"]
)
def test_one_server_urls_go_to_redis_py_unchanged(url: str) -> None:
    target = parse(url)
    assert target.mode == SINGLE and target.url == url


def test_a_cluster_url_lists_its_seed_nodes() -> None:
    target = parse("redis+cluster://ann:p%40ss@10.0.0.1:7000,10.0.0.2:7001, [::1]:7002")
    assert target.mode == CLUSTER
    assert target.nodes == (("10.0.0.1", 7000), ("10.0.0.2", 7001), ("::1", 7002))
    assert (target.username, target.password, target.tls) == ("ann", "p@ss", False)
    assert parse("rediss+cluster://n1:7000").tls


def test_a_sentinel_url_names_the_primary_and_the_sentinels_password() -> None:
    target = parse("redis+sentinel://:data@s1:26379,s2:26379/mymaster/2?sentinel_password=sp")
    assert target.mode == SENTINEL and target.primary == "mymaster" and target.db == 2
    assert target.nodes == (("s1", 26379), ("s2", 26379))
    assert (target.password, target.sentinel_password) == ("data", "sp")


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://u:secret@h:1", "must start with redis://"),
        ("u:secret@h:6379", "must start with redis://"),
        ("redis+cluster://u:secret@", "at least one host:port"),
        ("redis+cluster://u:secret@h1:7000,h2", "each node must be host:port; got 'h2'"),
        ("redis+cluster://u:secret@h1:99999", "each node must be host:port"),
        ("redis+cluster://u:secret@h1:7000/0", "only database 0"),
        ("redis+sentinel://u:secret@s1:26379", "needs the primary's name"),
        ("redis+sentinel://u:secret@s1:26379/m/x", "must be a number, got 'x'"),
        ("redis+sentinel://u:secret@s1:26379/m/1/2", "needs the primary's name"),
    ],
)
def test_a_malformed_url_says_what_is_wrong_and_never_the_password(url: str, words: str) -> None:
    with pytest.raises(RedisUrlError) as bad:
        parse(url)
    assert words in str(bad.value) and "secret" not in str(bad.value)


def test_a_bad_redis_url_stops_the_start_with_its_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REDIS_URL", "redis+cluster://u:secret@nohostport")
    with pytest.raises(SystemExit) as stop:
        Settings.from_env()
    assert "REDIS_URL" in str(stop.value) and "secret" not in str(stop.value)


def test_replica_durability_is_read_and_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Durability.from_env() == Durability(min_replicas=0, wait_ms=1000)
    monkeypatch.setenv("REDIS_MIN_REPLICAS", "1")
    monkeypatch.setenv("REDIS_REPLICA_WAIT_MS", "250")
    assert Durability.from_env() == Durability(min_replicas=1, wait_ms=250)
    monkeypatch.setenv("REDIS_MIN_REPLICAS", "-1")
    with pytest.raises(SystemExit, match="REDIS_MIN_REPLICAS must be 0 or more"):
        Durability.from_env()


def test_each_form_gets_its_client_without_connecting() -> None:
    assert type(sync_client("redis://127.0.0.1:1/0")) is redis.Redis
    cluster_url = "redis+cluster://127.0.0.1:1"
    with pytest.raises(redis.exceptions.RedisClusterException):
        sync_client(cluster_url)  # the blocking cluster client asks its seeds at once
    assert type(async_client(cluster_url)).__name__ == "RedisCluster"  # asks on first use
    primary = sync_client("redis+sentinel://:pw@127.0.0.1:1/mymaster/3")
    assert isinstance(primary.connection_pool, SentinelConnectionPool)
    assert primary.connection_pool.connection_kwargs["db"] == 3


@pytest.mark.parametrize("tls", [False, True])
def test_a_sentinel_primary_reconnects_through_the_sentinels(tls: bool) -> None:
    """Both flavours, plain and TLS, use the connections that ask the Sentinels again when a
    command's retry reconnects (tests/cluster/test_sentinel.py shows why, on real servers)."""
    url = f"{'rediss' if tls else 'redis'}+sentinel://127.0.0.1:1/mymaster"
    sync_class = sync_client(url).connection_pool.connection_class
    async_class = async_client(url).connection_pool.connection_class
    assert sync_class is (
        sentinel_connections.PrimarySSLConnection if tls else sentinel_connections.PrimaryConnection
    )
    assert async_class is (
        sentinel_connections.AsyncPrimarySSLConnection
        if tls
        else sentinel_connections.AsyncPrimaryConnection
    )


def test_a_single_server_client_talks_to_a_real_server(redis_url: str) -> None:
    with sync_client(redis_url, decode_responses=True) as client:
        assert client.ping() is True


def test_urls_are_redacted_for_logs() -> None:
    assert redacted("redis+sentinel://:pw@s:1/m?sentinel_password=sp") == (
        "redis+sentinel://:***@s:1/m?sentinel_password=***"
    )
    assert redacted("redis+cluster://ann:pw@h:1,h:2") == "redis+cluster://ann:***@h:1,h:2"
    assert redacted("redis://h:6379/0") == "redis://h:6379/0"
