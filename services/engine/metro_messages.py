"""Metro's dicts (games.metro.view and its events) as Metro's messages (metro.proto).

Built field by field: a view goes out with every move, and this is several times faster than
a generic JSON-to-message parse. Keys the contract does not define are left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metro.v1 import metro_pb2


def rules(data: Mapping[str, Any], out: metro_pb2.MetroRules) -> None:
    for key in ("players", "rotation", "hand_size", "online"):
        if data.get(key) is not None:
            setattr(out, key, data[key])


def seat(data: Mapping[str, Any], out: metro_pb2.MetroSeat) -> None:
    out.hand_count = int(data.get("hand_count", 0))
    out.color = str(data.get("color", ""))
    out.stations.extend(data.get("stations", ()))


def _route_bytes(route: Mapping[str, Any]) -> bytes:
    """One route as MetroView's wire format (field `routes`, length-delimited)."""
    holder = metro_pb2.MetroView()
    r = holder.routes.add(
        station=route["station"],
        tiles=route.get("tiles", 0),
        end=route.get("end", ""),
        points=route.get("points", 0),
    )
    if route.get("owner") is not None:
        r.owner = route["owner"]
    for row, col, entry, exit_ in route.get("path", ()):
        r.path.add(row=row, col=col, entry=entry, exit=exit_)
    return holder.SerializeToString()


def view(data: Mapping[str, Any], out: metro_pb2.MetroView, memo: dict[Any, Any]) -> None:
    """`memo` (one per game, kept between calls) holds each station's route as last encoded:
    tiles already laid never change, so a route with the same tile count and end is the same
    route, and most routes are unchanged from one move to the next."""
    out.deck_count = int(data.get("deck_count", 0))
    out.board.extend(data.get("board", ()))
    out.board_tiles.extend(data.get("board_tiles", ()))
    out.hand.extend(data.get("hand", ()))
    if data.get("drawn") is not None:
        out.drawn = data["drawn"]
    parts = []
    for route in data.get("routes", ()):
        key = (route["station"], route.get("tiles", 0), route.get("end", ""))
        known = memo.get(route["station"])
        if known is None or known[0] != key:
            known = (key, _route_bytes(route))
            memo[route["station"]] = known
        parts.append(known[1])
    out.MergeFromString(b"".join(parts))
    out.unseen.update(data.get("unseen", {}))
    out.drawing = bool(data.get("drawing", False))
    out.moves = int(data.get("moves", 0))


def event(data: Mapping[str, Any], out: metro_pb2.MetroEvent) -> None:
    out.placement = str(data.get("placement") or "")
    out.deck_count = int(data.get("deck_count", 0))
    out.out.extend(data.get("out", ()))
    out.reshuffled = bool(data.get("reshuffled", False))
    out.drawn = bool(data.get("drawn", False))
    for done in data.get("completed", ()):
        c = out.completed.add(station=done["station"], end=done["end"], points=done["points"])
        if done.get("owner") is not None:
            c.owner = done["owner"]


def move(data: Mapping[str, Any], out: metro_pb2.MetroMove) -> None:
    out.action = str(data.get("action", ""))
    if data.get("placement"):
        out.placement = str(data["placement"])
