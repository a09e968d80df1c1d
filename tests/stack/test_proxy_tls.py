"""`metro up --proxy --tls` (issue 32): Caddy serves https://localhost from a local CA kept in the
run directory, with HSTS, in front of the gateway; plain clients that do not trust that CA are
refused by TLS, not served."""

from __future__ import annotations

import signal
import ssl
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from services.cli.proxy import caddy_binary
from tests.fixtures.processes import free_port
from tests.stack.test_up import up_argv, up_env, wait_up

pytestmark = pytest.mark.skipif(caddy_binary() is None, reason="needs caddy (test-prereqs.sh)")


@pytest.mark.timeout(300)
def test_the_proxy_serves_https_from_a_local_ca_with_hsts(tmp_path: Path) -> None:
    port = free_port()
    out_path = tmp_path / "up.out"
    with out_path.open("wb") as out:
        up = subprocess.Popen(
            up_argv(tmp_path, "--port", str(port), "--proxy", "--tls", "--ai-workers", "1"),
            env=up_env(tmp_path), stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    try:
        wait_up(up, lambda: out_path.read_text(errors="replace"), timeout=180)
        said = out_path.read_text()
        assert f"https://localhost:{port}/" in said
        root = tmp_path / "run" / "caddy" / "data" / "caddy" / "pki" / "authorities" / "local"
        context = ssl.create_default_context(cafile=str(root / "root.crt"))
        url = f"https://localhost:{port}/healthz"
        with urllib.request.urlopen(url, timeout=10, context=context) as reply:
            assert reply.status == 200
            assert reply.headers["Strict-Transport-Security"].startswith("max-age=31536000")
        with pytest.raises(urllib.error.URLError) as refused:  # the system's CAs do not know it
            urllib.request.urlopen(url, timeout=10, context=ssl.create_default_context())
        assert isinstance(refused.value.reason, ssl.SSLError), refused.value
    finally:
        up.send_signal(signal.SIGINT)
        try:
            up.wait(60)
        except subprocess.TimeoutExpired:
            up.kill()
            up.wait()
