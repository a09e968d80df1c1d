"""`metro up --gateways N --proxy`: Caddy in front of N gateways, and their rolling upgrade.

Why Caddy: it is in Debian (bookworm: 2.6), maintained, a single static binary, gets and renews
certificates by itself for a real domain (ACME) and makes a local CA for `localhost`, and
reloads its configuration without dropping connections (which the rolling upgrade relies on).

The proxy listens where the gateway would (--host, --port) and spreads requests round-robin over
the gateways, each on a port of its own on 127.0.0.1 that trusts forwarded headers from the
proxy alone (GATEWAY_PROXIES=1). A request that cannot reach a gateway (refused: it is stopping)
is tried on another for up to LB_TRY_S. Live streams are passed on unbuffered.

The rolling upgrade (SIGHUP to `metro up`, or `roll()`), one gateway at a time:
1. drain: SIGTERM; the gateway answers 503 on /readyz for GATEWAY_DRAIN_S while it still serves
   (services/gateway/drain.py), so the proxy's check (every second) takes it out before it
   stops listening: no request meets a refused connection, which Caddy 2.6 cannot retry for an
   HTTP/1.1 POST. Then it stops listening (the proxy opens a connection per request, `keepalive
   off`: a request never rides a kept-alive connection that the stopping gateway is closing);
   requests under way finish; open live streams end after a few seconds (the gateway's graceful
   shutdown) and each page resumes on another gateway with Last-Event-ID (every stream opens
   with a `retry:` hint), so no event is missed;
2. replace: the gateway is started again (new code, if it changed on disk);
3. health gate: it must pass its health check, and the proxy's own check must have seen it
   (HEALTH_SETTLE_S), before the next one is drained.
The proxy's configuration is never reloaded for this: Caddy 2.6 ends the proxied requests and
streams of the old configuration on a reload.
"""

from __future__ import annotations

import shutil
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.common.healthcheck import check_http

# A drained gateway's stop: requests under way end in milliseconds; live streams get the
# gateway's own grace (services/gateway/live/worker.py GRACEFUL_S) and are then ended.
DRAIN_GRACE_S = 15.0
DRAIN_S = 3  # GATEWAY_DRAIN_S behind the proxy: three of its checks (health_interval 1s)
GUNICORN_CONF = Path(__file__).resolve().parents[2] / "deploy" / "gunicorn.conf.py"
GATEWAY_STOP_GRACE_S = 5
HEALTH_SETTLE_S = 2.5  # the proxy checks each gateway every second
LB_TRY_S = 10  # how long the proxy tries other gateways for a request none took yet
HSTS = "max-age=31536000; includeSubDomains"


def gateway_argv(python: str) -> list[str]:
    """The gateway as production runs it: gunicorn with deploy/gunicorn.conf.py, which reads
    GATEWAY_HOST, GATEWAY_PORT, WEB_CONCURRENCY (workers) and GATEWAY_THREADS from the
    environment. Open live streams get a short grace on stop (browsers reconnect). Without the
    config file (an installed package, no source tree): the development server."""
    if not GUNICORN_CONF.is_file():
        return [python, "-m", "services.gateway"]
    return [
        python, "-m", "gunicorn", "-c", str(GUNICORN_CONF),
        "--graceful-timeout", str(GATEWAY_STOP_GRACE_S),
        "services.gateway.live.asgi:create_asgi()",
    ]  # fmt: skip


def caddy_binary() -> str | None:
    return shutil.which("caddy")


def caddyfile(host: str, port: int, upstreams: list[int], tls: bool) -> str:
    """The proxy's configuration: `tls` serves https://localhost with Caddy's local CA (its root
    is under the run directory: caddy/data/caddy/pki/authorities/local/root.crt) and HSTS."""
    servers = " ".join(f"127.0.0.1:{p}" for p in upstreams)
    site = f"https://localhost:{port}" if tls else f"http://:{port}"
    tls_lines = f'\ttls internal\n\theader Strict-Transport-Security "{HSTS}"\n' if tls else ""
    return (
        "{\n"
        "\tadmin off\n"
        + ("" if tls else "\tauto_https off\n")
        + "\tlocal_certs\n"  # never ACME from here: `metro up` is one machine
        "\tskip_install_trust\n"  # the local CA is not put in the system's store
        "}\n"
        f"{site} {{\n"
        f"\tbind {host}\n"
        f"{tls_lines}"
        f"\treverse_proxy {servers} {{\n"
        "\t\tlb_policy round_robin\n"
        f"\t\tlb_try_duration {LB_TRY_S}s\n"
        "\t\tlb_try_interval 100ms\n"
        "\t\thealth_uri /readyz\n"  # this gateway alone: not the engine, not the AI
        "\t\thealth_interval 1s\n"
        "\t\thealth_timeout 2s\n"
        "\t\tfail_duration 2s\n"
        "\t\tflush_interval -1\n"
        "\t\ttransport http {\n\t\t\tkeepalive off\n\t\t}\n"
        "\t}\n"
        "}\n"
    )


class Proxy:
    """The proxy's files under the run directory, and its reloads."""

    def __init__(self, run_dir: Path, host: str, port: int, tls: bool) -> None:
        self.dir = run_dir / "caddy"
        self.config = self.dir / "Caddyfile"
        self.host, self.port, self.tls = host, port, tls
        self.binary = caddy_binary() or "caddy"
        # Caddy's local CA (XDG_DATA_HOME below): clients of https://localhost trust this root.
        self.root_ca = self.dir / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"

    def env(self, base: dict[str, str]) -> dict[str, str]:
        """Caddy keeps its local CA and certificates under XDG_DATA_HOME: ours, not $HOME."""
        self.dir.mkdir(parents=True, exist_ok=True)
        return {**base, "XDG_DATA_HOME": str(self.dir / "data"),
                "XDG_CONFIG_HOME": str(self.dir / "config"), "HOME": str(self.dir)}  # fmt: skip

    def write(self, upstreams: list[int]) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        self.config.write_text(caddyfile(self.host, self.port, upstreams, self.tls))

    def argv(self) -> list[str]:
        return [self.binary, "run", "--config", str(self.config), "--adapter", "caddyfile"]


def roll(
    gateways: list[object],
    replace: Callable[[object], str | None],
    say: Callable[[str], None],
    settle_s: float = HEALTH_SETTLE_S,
) -> bool:
    """The rolling upgrade: `replace(part)` drains, stops and starts one gateway and waits for
    its health (None when healthy, else why not); then the proxy is given time to see it, and
    the next one goes. False when one did not come back (the others still serve)."""
    for part in gateways:
        name = getattr(part, "name", "gateway")
        say(f"rolling upgrade: draining {name}")
        failed = replace(part)
        if failed:
            say(f"rolling upgrade stopped: {failed}")
            return False
        time.sleep(settle_s)
        say(f"rolling upgrade: {name} replaced and healthy")
    say("rolling upgrade done")
    return True


class Front:
    """`metro up`'s gateways behind the proxy: started after the engine, rolled on SIGHUP."""

    def __init__(self, count: int, tls: bool) -> None:
        self.count = count
        self.tls = tls
        self.gateways: list[tuple[object, int]] = []
        self.proxy: Proxy | None = None
        self.env: dict[str, str] = {}

    def start(self, stack: Any, base: dict[str, str], argv: list[str], engine: object) -> str:
        """Start the gateways, each healthy, then the proxy on --host/--port; its URL."""
        args = stack.args
        if caddy_binary() is None:
            raise stack.failure(
                "--proxy needs Caddy (Debian: apt-get install caddy; deploy/test-prereqs.sh)"
            )
        self.env = base
        for i in range(self.count):
            port = free_port()
            healthz = f"http://127.0.0.1:{port}/healthz"
            env = {**base, "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": str(port),
                   "GATEWAY_PROXIES": "1", "GATEWAY_DRAIN_S": str(DRAIN_S)}  # fmt: skip
            part = stack.add(f"gateway-{i + 1}", argv, env, _http_check(healthz))
            part.needs = [engine]
            self.gateways.append((part, port))
        stack.wait_healthy([part for part, _ in self.gateways])
        self.proxy = Proxy(stack.run_dir, args.host, args.port, self.tls)
        self.proxy.write([port for _, port in self.gateways])
        probe = "127.0.0.1" if args.host in ("0.0.0.0", "", "::") else args.host
        url = f"https://localhost:{args.port}/" if self.tls else f"http://{probe}:{args.port}/"
        check = _tls_check(url, self.proxy) if self.tls else _http_check(f"{url}healthz")
        proxy = stack.add("proxy", self.proxy.argv(), self.proxy.env(base), check)
        stack.wait_healthy([proxy])
        if self.tls:
            stack.say(f"proxy: the local CA's root is {self.proxy.root_ca}")
        return url

    def roll(self, stack: Any) -> bool:
        """The rolling upgrade of every gateway, one at a time (see the module's doc)."""
        assert self.proxy is not None

        def replace(part: Any) -> str | None:
            # The arbiter alone: it drains, then stops its workers (a SIGTERM to every worker
            # would close them at once, before the proxy has taken the gateway out).
            part.stop(grace=DRAIN_GRACE_S, group=False)
            part.start()
            try:
                stack.wait_healthy([part])
            except stack.failure as exc:
                return str(exc)
            return None

        stack.say("rolling upgrade of the gateways")
        return roll([part for part, _ in self.gateways], replace, stack.say)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _http_check(url: str) -> Callable[[], str | None]:
    return lambda: check_http(url, timeout=2.0)


def _tls_check(url: str, proxy: Proxy) -> Callable[[], str | None]:
    """The proxy's health over HTTPS, trusting its local CA (once it has made one)."""

    def check() -> str | None:
        if not proxy.root_ca.is_file():
            return "no local CA yet"
        context = ssl.create_default_context(cafile=str(proxy.root_ca))
        try:
            with urllib.request.urlopen(f"{url}healthz", timeout=2.0, context=context) as reply:
                return None if reply.status == 200 else f"HTTP {reply.status}"
        except (urllib.error.URLError, OSError) as exc:
            return str(getattr(exc, "reason", exc))

    return check
