"""/healthz: is this gateway able to serve? It asks the engine and the AI (grpc.health.v1) over the
process's own channels, so the answer also proves those channels work."""

from __future__ import annotations

import grpc
from flask import Blueprint, Response, jsonify
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.gateway.calls import clients

bp = Blueprint("health", __name__)

CHECK_TIMEOUT_S = 2.0
_SERVING = health_pb2.HealthCheckResponse.SERVING


def probe(stub: health_pb2_grpc.HealthStub) -> grpc.Future:
    """Start one check; both run at once, so a dead backend costs the timeout once."""
    return stub.Check.future(health_pb2.HealthCheckRequest(service=""), timeout=CHECK_TIMEOUT_S)


def verdict(call: grpc.Future) -> str:
    """ "ok", or a short reason the backend is not serving."""
    try:
        reply = call.result()
    except grpc.RpcError as err:
        code = err.code() if isinstance(err, grpc.Call) else None
        return f"down ({getattr(code, 'name', 'error').lower()})"
    if reply.status != _SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return f"down ({status.lower()})"
    return "ok"


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    c = clients()
    calls = probe(c.engine_health), probe(c.ai_health)
    engine, ai = (verdict(call) for call in calls)
    down = [name for name, state in (("engine", engine), ("ai", ai)) if state != "ok"]
    body: dict[str, object] = {"ok": not down, "engine": engine, "ai": ai}
    if down:
        body["error"] = {"code": "unavailable", "message": f"Down: {', '.join(down)}."}
    return jsonify(body), 503 if down else 200
