"""Load through a running site while a command replaces its parts (issue 32): how many requests
fail, and whether every live stream resumes with no gap, during a rolling upgrade of a real
deployment (the compose stack behind Caddy, or anything at a URL).

    .venv/bin/python bench/upgrade_load.py --url https://localhost:8443 \
        --cacert root.crt --streams 200 -- deploy/rolling-upgrade.sh

Why a script and not only tests/stack/test_rolling_upgrade.py: that test runs `metro up`'s
processes; this one points at any URL (HTTPS with the proxy's local CA), so the compose stack on
a real Docker engine is measured the same way. It makes one two-player game, opens N streams of
its events (each resumed with Last-Event-ID whenever it ends, as a browser does), plays both
seats (a view, the legal moves and a move every `--pace` seconds; any answer but 2xx counts as
failed: no retry hides one), runs the command once every stream has an event, then plays on for
`--after` requests and checks that every stream saw every version exactly once. The site's
rate limits must allow one client that much (RATE_LIMIT_ENABLED=0, GATEWAY_STREAMS_PER_CLIENT,
GATEWAY_STREAM_OPENS). A measurement, not a test: prints one JSON object; exit status 1 when a
request failed, a stream had a gap, or the command failed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import ssl
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from typing import Any


class Site:
    """Where the requests go: host, port and TLS context of the URL."""

    def __init__(self, url: str, cacert: str | None, http2: bool = False) -> None:
        self.url, self.cacert, self.http2 = url.rstrip("/"), cacert, http2
        parts = urllib.parse.urlsplit(url)
        self.tls = parts.scheme == "https"
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or (443 if self.tls else 80)
        self.context = ssl.create_default_context(cafile=cacert) if self.tls else None

    def connection(self, timeout: float) -> http.client.HTTPConnection:
        if self.tls:
            return http.client.HTTPSConnection(
                self.host, self.port, timeout=timeout, context=self.context
            )
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def call(self, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
        """One JSON request on a connection of its own; status 0 when none was answered."""
        if self.http2:
            return self.call_http2(method, path, body, token)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn = self.connection(30)
        try:
            data = None if body is None else json.dumps(body)
            conn.request(method, path, body=data, headers=headers)
            reply = conn.getresponse()
            raw = reply.read()
            return reply.status, json.loads(raw or b"null")
        except (OSError, http.client.HTTPException, ValueError) as err:
            return 0, repr(err)
        finally:
            conn.close()

    def call_http2(self, method: str, path: str, body: Any, token: str) -> tuple[int, Any]:
        """The same request over HTTP/2, as browsers reach the proxy (the standard library
        speaks only HTTP/1.1): by curl. Caddy 2.6 retries an HTTP/2 POST with its buffered body
        but an HTTP/1.1 one with a closed body (502), so the two are measured apart."""
        argv = ["curl", "-sS", "--http2", "-X", method, "-H", "Content-Type: application/json",
                "--max-time", "30", "-w", "\n%{http_code}"]  # fmt: skip
        if self.cacert:
            argv += ["--cacert", self.cacert]
        if token:
            argv += ["-H", f"Authorization: Bearer {token}"]
        if body is not None:
            argv += ["--data-binary", json.dumps(body)]
        done = subprocess.run([*argv, self.url + path], capture_output=True, text=True)
        raw, _, status = done.stdout.rpartition("\n")
        if done.returncode != 0 or not status.isdigit():
            return 0, done.stderr.strip()
        try:
            return int(status), json.loads(raw or "null")
        except ValueError as err:
            return int(status), repr(err)


class Listener(threading.Thread):
    """One live stream of the game, resumed with Last-Event-ID whenever it ends."""

    def __init__(self, site: Site, game_id: str, stop: threading.Event) -> None:
        super().__init__(daemon=True)
        self.site, self.game_id, self.stop = site, game_id, stop
        self.versions: list[int] = []
        self.last_id: str | None = None
        self.resumed = 0
        self.refused: list[str] = []

    def run(self) -> None:
        while not self.stop.is_set():
            conn = self.site.connection(10)
            headers = {"Accept": "text/event-stream"}
            if self.last_id is not None:
                headers["Last-Event-ID"] = self.last_id
            try:
                conn.request("GET", f"/api/games/{self.game_id}/events", headers=headers)
                reply = conn.getresponse()
                if reply.status != 200:
                    self.refused.append(f"{reply.status} {reply.read(200)!r}")
                    self.stop.wait(0.5)
                    continue
                self.read(reply)
            except (OSError, http.client.HTTPException):
                pass  # the stream ended (its gateway stopped): resume, as a browser does
            finally:
                conn.close()
            if not self.stop.is_set():
                self.resumed += 1

    def read(self, reply: http.client.HTTPResponse) -> None:
        fields: dict[str, str] = {}
        while not self.stop.is_set():
            line = reply.readline().decode()
            if line == "":
                return
            line = line.rstrip("\n")
            if line == "":
                if "data" in fields and fields.get("event", "message") == "message":
                    self.versions.append(int(json.loads(fields["data"])["version"]))
                    self.last_id = fields.get("id", self.last_id)
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")


class Player(threading.Thread):
    """Plays both seats; every answer that is not 2xx is a failure."""

    def __init__(self, site: Site, game_id: str, tokens: list[str], pace: float,
                 stop: threading.Event) -> None:  # fmt: skip
        super().__init__(daemon=True)
        self.site, self.game_id, self.tokens, self.pace, self.stop = (
            site, game_id, tokens, pace, stop)  # fmt: skip
        self.failed: list[tuple[str, int, Any]] = []
        self.requests = self.moves = 0
        self.over = False

    def request(self, method: str, path: str, body: Any = None, token: str = "") -> Any:
        self.requests += 1
        status, answer = self.site.call(method, path, body, token)
        if not 200 <= status < 300:
            self.failed.append((path, status, f"{time.time():.1f} {answer}"))
            return None
        return answer

    def run(self) -> None:
        path = f"/api/games/{self.game_id}"
        while not self.stop.is_set():
            view = self.request("GET", path, token=self.tokens[0])
            if view is not None and view["status"] == "over":
                self.over = True
            if view is None or view["status"] != "playing":
                self.stop.wait(self.pace)
                continue
            token = self.tokens[view["turn"]]
            legal = self.request("GET", f"{path}/legal", token=token)
            if legal and legal["moves"]:
                move = {**legal["moves"][0], "expected_version": view["version"],
                        "move_id": uuid.uuid4().hex}  # fmt: skip
                if self.request("POST", f"{path}/moves", move, token) is not None:
                    self.moves += 1
            self.stop.wait(self.pace)


def contiguous(versions: list[int]) -> list[int]:
    """What a stream that missed and repeated nothing saw: each version once, in order."""
    return list(range(versions[0], versions[0] + len(versions)))


def wait_for(predicate: Any, what: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit(f"upgrade_load: gave up waiting for {what}")
        time.sleep(0.2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the site, e.g. https://localhost:8443")
    parser.add_argument("--cacert", help="the CA to trust (the proxy's local root.crt)")
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--pace", type=float, default=1.0, help="seconds between moves")
    parser.add_argument("--after", type=int, default=10, help="requests played after")
    parser.add_argument("--http2", action="store_true",
                        help="the player over HTTP/2, as browsers (by curl)")  # fmt: skip
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- the upgrade command")
    args = parser.parse_args()
    command = [c for c in args.command if c != "--"] if args.command else []
    site = Site(args.url, args.cacert, args.http2)

    seats = [{"kind": "human", "name": "Ada"}, {"kind": "open"}]
    status, made = site.call("POST", "/api/games", {"game": "metro", "seats": seats})
    assert status == 201, (status, made)
    game_id = made["game_id"]
    status, joined = site.call("POST", f"/api/games/{game_id}/join", {"name": "Bo"})
    assert status == 200, (status, joined)
    stop = threading.Event()
    listeners = [Listener(site, game_id, stop) for _ in range(args.streams)]
    for listener in listeners:
        listener.start()
    player = Player(site, game_id, [made["token"], joined["token"]], args.pace, stop)
    player.start()
    wait_for(lambda: player.moves >= 2 and all(x.versions for x in listeners),
             "the first moves and an event on every stream", 120)  # fmt: skip

    started = time.monotonic()
    done = subprocess.run(command, check=False) if command else None
    took = time.monotonic() - started
    before = player.requests
    wait_for(lambda: player.requests >= before + args.after, "play after the command", 120)
    status, now = site.call("GET", f"/api/games/{game_id}", token=made["token"])
    assert status == 200, (status, now)
    wait_for(lambda: all(x.versions and x.versions[-1] >= now["version"] for x in listeners),
             f"every stream to reach version {now['version']}", 60)  # fmt: skip
    stop.set()
    player.join(30)
    gaps = [x.versions for x in listeners if x.versions != contiguous(x.versions)]
    refused = [r for x in listeners for r in x.refused]
    report = {
        "command": command,
        "player_http": "2" if args.http2 else "1.1",
        "command_status": None if done is None else done.returncode,
        "command_s": round(took, 1),
        "requests": player.requests,
        "failed": len(player.failed),
        "failures": [f"{p} {s} {str(a)[:120]}" for p, s, a in player.failed[:10]],
        "moves": player.moves,
        "game_over_during_run": player.over,
        "streams": args.streams,
        "resumed": sum(x.resumed for x in listeners),
        "streams_with_gap_or_repeat": len(gaps),
        "stream_refusals": len(refused),
        "refusal_samples": refused[:3],
        "final_version": now["version"],
    }
    print(json.dumps(report))
    bad = report["failed"] or gaps or refused or (done is not None and done.returncode)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
