"""The engine, as the AI uses it: only the calls a player may make, with the caller's credential.

The AI never reads Redis; everything it knows about a game comes from GetView and
ListLegalMoves for one seat, so it can know nothing that seat may not.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

import grpc
from metro.v1 import engine_pb2, engine_pb2_grpc

import games
from games.errors import GameError
from services.common.grpc_util import (
    REPLAYED_METADATA,
    ServiceError,
    aio_insecure_channel,
    bearer,
)

SNAPSHOT_TRIES = 3


@dataclass(frozen=True, slots=True)
class Position:
    """A seat's view and its legal moves, read at one version."""

    game_id: str
    version: int
    game: str
    status: str
    seat: int | None  # the viewer's seat (None for a spectator)
    to_move: tuple[int, ...]
    view: dict[str, Any]  # the game's own view (its rules file), as the engine sent it
    legal: tuple[Any, ...]  # the engine's legal moves as the game's move values, in its order


class EngineApi:
    """A grpc.aio client of the engine; create it inside the running event loop."""

    def __init__(self, target: str, timeout_s: float) -> None:
        self.channel = aio_insecure_channel(target)
        self.stub = engine_pb2_grpc.EngineStub(self.channel)
        self.timeout_s = timeout_s

    async def close(self) -> None:
        await self.channel.close()

    async def position(self, game_id: str, token: str, seat: int | None) -> Position:
        """View and legal moves at the same version (read again if a move slipped between)."""
        md = bearer(token)
        view_req = engine_pb2.GetViewRequest(game_id=game_id)
        legal_req = engine_pb2.ListLegalMovesRequest(game_id=game_id)
        if seat is not None:
            view_req.seat = seat
            legal_req.seat = seat
        for _ in range(SNAPSHOT_TRIES):
            view, legal = await asyncio.gather(
                self.stub.GetView(view_req, metadata=md, timeout=self.timeout_s),
                self.stub.ListLegalMoves(legal_req, metadata=md, timeout=self.timeout_s),
            )
            if view.version == legal.version:
                try:
                    game = games.get(view.game)
                    moves = tuple(game.parse_move(json.loads(m)) for m in legal.moves)
                except (GameError, ValueError) as err:
                    raise ServiceError(
                        grpc.StatusCode.INTERNAL,
                        f"the engine's legal moves do not parse: {err}",
                        reason="internal",
                    ) from err
                return Position(
                    game_id=game_id,
                    version=view.version,
                    game=view.game,
                    status=view.status,
                    seat=view.seat if view.HasField("seat") else None,
                    to_move=tuple(view.to_move),
                    view=json.loads(view.json),
                    legal=moves,
                )
        raise ServiceError(
            grpc.StatusCode.ABORTED,
            "the game kept changing while the AI read it; ask again",
            reason="version_conflict",
        )

    async def apply(
        self, token: str, game_id: str, seat: int, version: int, move_id: str, move: Any
    ) -> tuple[engine_pb2.GameView, bool]:
        """Make `move` (a game's move value) for the AI seat; `version`: the job's. Returns the
        view and whether the move was made by this call: False when the engine answered the
        `move_id` from an earlier application (another worker that held the same job, or an
        earlier try), which made the turn's move, not necessarily this one."""
        request = engine_pb2.ApplyMoveRequest(
            game_id=game_id,
            expected_version=version,
            move_id=move_id,
            seat=seat,
            move_json=json.dumps(move.to_json(), separators=(",", ":")),
        )
        call = self.stub.ApplyMove(request, metadata=bearer(token), timeout=self.timeout_s)
        view = await call
        trailing = await call.trailing_metadata()
        replayed = any((key, value) == REPLAYED_METADATA[0] for key, value in (trailing or ()))
        return view, not replayed

    async def claim(self, token: str, worker_id: str, wait_ms: int) -> engine_pb2.BotTurn | None:
        request = engine_pb2.ClaimBotTurnRequest(worker_id=worker_id, wait_ms=wait_ms)
        reply = await self.stub.ClaimBotTurn(
            request, metadata=bearer(token), timeout=wait_ms / 1000 + self.timeout_s
        )
        return reply.turn if reply.HasField("turn") else None

    async def ack(self, token: str, job_id: str) -> None:
        request = engine_pb2.AckBotTurnRequest(job_id=job_id)
        await self.stub.AckBotTurn(request, metadata=bearer(token), timeout=self.timeout_s)
