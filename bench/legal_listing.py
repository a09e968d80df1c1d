"""Bench of the engine's legal listing with and without the moves' previews (issue 31.2), one
core; prints JSON.

The listing is what `services/engine/table.legal_of` does once per table version and seat: the
seat's legal moves, each as JSON text. `plain` lists them as before the previews; `previewed`
adds each move's `preview` (Game.previews) as the engine now does. Positions are those a seat
meets in seeded random games (every `--every`-th step of each); the two are timed interleaved,
round after round, on the same positions, so a loaded machine slows both alike; times are this
process's CPU time (`time.process_time`: on a shared, loaded machine the wall clock mostly counts
the wait for a core). Per round, the time per listing is the total over the positions divided by
their number; the report gives each
side's median and best round, the ratio of medians, and the listing's size in bytes. The view's
cost is reported beside it (the Underground's view now carries `rail_gains` and `score_from`):
`view_us`, and `rail_gains_us`, the part of it those take.

    .venv/bin/python bench/legal_listing.py [--game underground] [--games 3] [--rounds 7]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

import orjson

import games
from games.base import Game, GameState


def positions(game: Game, rules: dict[str, Any], n_games: int, every: int) -> list[GameState]:
    """States where a seat is to move, from seeded random games (copies: frozen in time)."""
    out: list[GameState] = []
    for seed in range(n_games):
        state = game.new_state(game.normalise_rules(rules), seed)
        rng = random.Random(seed)
        step = 0
        while not state.is_over:
            seat = state.to_move()[0]
            if step % every == 0:
                out.append(state.copy())
            moves = state.legal_moves(seat)
            state.apply(seat, moves[rng.randrange(len(moves))])
            step += 1
    return out


def plain(game: Game, state: GameState) -> list[bytes]:
    seat = state.to_move()[0]
    return [orjson.dumps(m.to_json()) for m in state.legal_moves(seat)]


def previewed(game: Game, state: GameState) -> list[bytes]:
    seat = state.to_move()[0]
    moves = state.legal_moves(seat)
    out = []
    for m, p in zip(moves, game.previews(state, seat, moves), strict=True):
        j = m.to_json()
        if p is not None:
            j["preview"] = p
        out.append(orjson.dumps(j))
    return out


def per_listing_us(
    fn: Callable[[Game, GameState], list[bytes]], game: Game, states: list[GameState]
) -> float:
    gc.disable()
    try:
        t0 = time.process_time()
        for s in states:
            fn(game, s)
        return (time.process_time() - t0) / len(states) * 1e6
    finally:
        gc.enable()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="underground")
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=3)
    ap.add_argument("--every", type=int, default=7, help="take every n-th step's position")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args()
    game = games.get(args.game)
    states = positions(game, {"players": args.players}, args.games, args.every)
    a: list[float] = []
    b: list[float] = []
    for _ in range(args.rounds):  # A/B interleaved
        a.append(per_listing_us(plain, game, states))
        b.append(per_listing_us(previewed, game, states))
    size_a = statistics.mean(sum(map(len, plain(game, s))) for s in states)
    size_b = statistics.mean(sum(map(len, previewed(game, s))) for s in states)
    moves = statistics.mean(len(s.legal_moves(s.to_move()[0])) for s in states)
    report: dict[str, Any] = {
        "game": args.game,
        "positions": len(states),
        "moves_per_listing": round(moves, 1),
        "plain_us": {"median": round(statistics.median(a), 1), "best": round(min(a), 1)},
        "previewed_us": {"median": round(statistics.median(b), 1), "best": round(min(b), 1)},
        "ratio_median": round(statistics.median(b) / statistics.median(a), 2),
        "plain_bytes": round(size_a),
        "previewed_bytes": round(size_b),
    }
    if args.game == "underground":
        from games.underground.preview import rail_gains

        t0 = time.process_time()
        for s in states:
            s.view(None)
        report["view_us"] = round((time.process_time() - t0) / len(states) * 1e6, 1)
        t0 = time.process_time()
        for s in states:
            rail_gains(s)  # type: ignore[arg-type]
        report["rail_gains_us"] = round((time.process_time() - t0) / len(states) * 1e6, 1)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
