"""The contract's edges (issue 30, items 11 and 12): the party QR code's link is built from the
configured public address (`PUBLIC_URL`), never from the request's `Host` header; a JSON body sent
with `Transfer-Encoding: chunked` is read like any other (and bounded by the same size limit),
on the production server (uvicorn, the ASGI router) and on a threaded werkzeug server alike."""

from __future__ import annotations

import http.client
import io
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
import segno
from flask import Flask

from services.common.config import Settings
from services.gateway.app import create_app
from tests.fixtures.gateway import dead_target, gateway_config

CODE = "ACEFHJ"  # a well-formed join code (the QR code is drawn without asking the engine)
SEATS = {"seats": [{"kind": "human", "name": "Ada"}, {"kind": "ai", "level": "random"}]}


def expected_qr(url: str) -> bytes:
    """The SVG the gateway draws for `url` (the same segno settings as party_api.join_qr)."""
    out = io.BytesIO()
    segno.make(url, error="m").save(out, kind="svg", border=2, dark="#000", light="#fff",
                                    xmldecl=False, omitsize=True, title=f"Join {CODE}")  # fmt: skip
    return out.getvalue()


@pytest.fixture
def public_app() -> Iterator[Flask]:
    app = create_app(
        gateway_config(dead_target(), dead_target(), PUBLIC_URL="https://metro.example/play/")
    )
    yield app
    app.extensions["metro_gateway"].backends.close()


def test_the_qr_code_links_to_the_public_url_whatever_the_host_header(
    public_app: Flask,
) -> None:
    client = public_app.test_client()
    wanted = expected_qr(f"https://metro.example/play/#/join/{CODE}")
    for host in (None, "evil.example", "metro.example:8080"):
        headers = {"Host": host} if host else {}
        reply = client.get(f"/api/join/{CODE}/qr.svg", headers=headers)
        assert reply.status_code == 200, (host, reply.get_data(as_text=True)[:300])
        assert reply.get_data() == wanted, host
        assert b"evil" not in reply.get_data()


def test_the_public_url_defaults_to_what_metro_up_serves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PUBLIC_URL", raising=False)
    for host, port, url in (
        ("", "", "http://127.0.0.1:8000"),
        ("0.0.0.0", "8123", "http://127.0.0.1:8123"),
        ("192.168.1.20", "9000", "http://192.168.1.20:9000"),
    ):
        monkeypatch.setenv("GATEWAY_HOST", host)
        monkeypatch.setenv("GATEWAY_PORT", port)
        assert Settings.from_env().public_url == url
    monkeypatch.setenv("PUBLIC_URL", "https://play.example.org/")
    assert Settings.from_env().public_url == "https://play.example.org"
    for bad in ("play.example.org", "ftp://x.example", "https://", "https://a b.example"):
        monkeypatch.setenv("PUBLIC_URL", bad)
        with pytest.raises(SystemExit, match="PUBLIC_URL"):
            Settings.from_env()


def post_chunked(base: str, path: str, pieces: list[bytes]) -> tuple[int, Any]:
    """POST `pieces` as a chunked body (no Content-Length): (status, decoded JSON)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request(
            "POST", path, body=iter(pieces), encode_chunked=True,
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
        )  # fmt: skip
        reply = conn.getresponse()
        return reply.status, json.loads(reply.read() or b"null")
    finally:
        conn.close()


@pytest.mark.parametrize("server", ["gateway_server", "wsgi_gateway_server"])
def test_a_chunked_json_body_is_read(server: str, request: pytest.FixtureRequest) -> None:
    base: str = request.getfixturevalue(server)
    body = json.dumps(SEATS).encode()
    status, made = post_chunked(base, "/api/games", [body[:7], body[7:20], body[20:]])
    assert status == 201, made
    assert made["seat"] == 0 and made["token"] and made["game_id"]
    # Bounded by the same limit as a body with a Content-Length (64 KiB): 413, in the API's shape.
    big = json.dumps({**SEATS, "pad": "x" * 70_000}).encode()
    pieces = [big[i : i + 8192] for i in range(0, len(big), 8192)]
    status, refused = post_chunked(base, "/api/games", pieces)
    assert status == 413, refused
    assert refused["error"]["code"]
