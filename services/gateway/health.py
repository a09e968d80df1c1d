"""/healthz: is this gateway able to serve? It asks the engine and the AI (grpc.health.v1) over the
process's own channels, so the answer also proves those channels work. /readyz: does this gateway
take new requests? It asks nothing else (services/gateway/drain.py).

It reads and feeds the backends' circuits (backends.Circuit): a backend whose circuit is open is
reported down at once, without a check; a check that cannot reach it opens the circuit, one that
gets an answer closes it."""

from __future__ import annotations

import grpc
from flask import Blueprint, Response, jsonify
from grpc_health.v1 import health_pb2, health_pb2_grpc

from services.gateway.backends import Circuit
from services.gateway.calls import clients, unreachable
from services.gateway.drain import draining

bp = Blueprint("health", __name__)

CHECK_TIMEOUT_S = 2.0
_SERVING = health_pb2.HealthCheckResponse.SERVING


def probe(stub: health_pb2_grpc.HealthStub) -> grpc.Future:
    """Start one check; both run at once, so a dead backend costs the timeout once."""
    return stub.Check.future(health_pb2.HealthCheckRequest(service=""), timeout=CHECK_TIMEOUT_S)


def check(stub: health_pb2_grpc.HealthStub, circuit: Circuit) -> grpc.Future | None:
    """Start one check, or none while the backend's circuit is open."""
    return None if circuit.retry_after() is not None else probe(stub)


def verdict(call: grpc.Future | None, circuit: Circuit) -> str:
    """ "ok", or a short reason the backend is not serving."""
    if call is None:
        return "down (unavailable)"
    try:
        reply = call.result()
    except grpc.RpcError as err:
        if unreachable(err):
            circuit.down()
        elif circuit.is_open:
            circuit.up()  # (a trial answered by something: not "unreachable")
        code = err.code() if isinstance(err, grpc.Call) else None
        return f"down ({getattr(code, 'name', 'error').lower()})"
    circuit.up()
    if reply.status != _SERVING:
        status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
        return f"down ({status.lower()})"
    return "ok"


@bp.get("/healthz")
def healthz() -> tuple[Response, int]:
    c = clients()
    circuits = c.circuits["engine"], c.circuits["ai"]
    calls = check(c.engine_health, circuits[0]), check(c.ai_health, circuits[1])
    engine, ai = (verdict(call, circuit) for call, circuit in zip(calls, circuits, strict=True))
    down = [name for name, state in (("engine", engine), ("ai", ai)) if state != "ok"]
    body: dict[str, object] = {"ok": not down, "engine": engine, "ai": ai}
    if down:
        body["error"] = {"code": "unavailable", "message": f"Down: {', '.join(down)}."}
    return jsonify(body), 503 if down else 200


@bp.get("/readyz")
def readyz() -> tuple[Response, int]:
    """What the proxy in front checks (deploy/Caddyfile): this gateway alone, never the engine or
    the AI, whose outage every gateway answers by itself with the API's JSON 503 (a proxy that
    took every gateway out would answer an empty error instead). 503 while it drains."""
    if draining():
        message = "This gateway is stopping; another one takes new requests."
        return jsonify({"ready": False, "error": {"code": "draining", "message": message}}), 503
    return jsonify({"ready": True}), 200
