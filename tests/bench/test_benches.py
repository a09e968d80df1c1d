"""Benches that cannot rot: every bench in bench/ runs here with tiny arguments, as a subprocess,
and must print one JSON object with its usual keys. Nothing here asserts a time (a bench is a
measurement, not a test); a bench that crashes after an API change fails here instead of
waiting for the next person who runs it by hand (bench/rules.py once did: MetroState.legal_moves
had come to take a seat and nothing noticed).

Benches that start a stack (Redis, engine, gateway) wait for each part's health themselves; the
only limit here is a generous safety timeout for a hung process.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
SUPPORT = {"support.py", "checkouts.py"}  # imported by benches, not benches themselves
HUNG_S = 300  # a safety net for a hung bench, never a measure of speed

# bench file: (tiny arguments, keys its JSON object must have)
CASES: dict[str, tuple[list[str], set[str]]] = {
    "rules.py": (
        ["--games", "2", "--repeat", "5"],
        {"bench", "random_games_2p_classic", "random_games_variants", "mid_game"},
    ),
    "metrox_rules.py": (
        ["--games", "2", "--players", "2", "--repeat", "5"],
        {"games_per_s", "choices_per_s", "legal_moves_us", "apply_turn_us", "view_us"},
    ),
    "underground_rules.py": (
        ["--seconds", "0", "--queries", "2"],
        {"games_per_s", "route_us", "route_p99_us", "route_queries"},
    ),
    "engine.py": (
        ["--seconds", "1", "--concurrency", "2", "--processes", "1", "--channels", "1"],
        {"bench", "machine", "redis", "engine_processes", "levels"},
    ),
    "engine_simultaneous.py": (
        ["--seats", "3", "--turns", "2"],
        {"bench", "submissions_per_s_while_racing"},
    ),
    "gateway.py": (
        ["--games", "2", "--seconds", "1", "--warmup", "0", "--client-processes", "1"],
        {"benchmark", "moves_per_s", "move_ms"},
    ),
    "watchers.py": (
        [
            *("--watchers", "3", "--games", "1", "--workers", "1", "--threads", "8"),
            *("--moves", "3", "--rate", "50"),
        ],
        {"benchmark", "gateway", "streams", "moves", "view_reads", "events"},
    ),
    "player_streams.py": (
        ["--streams", "2"],
        {"bench", "streams", "gateway_threads", "gateway_rss_kb"},
    ),
    "analysis.py": (
        ["--hints", "2", "--games", "1", "--iterations", "5", "--level", "medium"],
        {"bench", "hints_alone", "hints_during_analysis", "analyses", "p95_rise_pct"},
    ),
    "recover_storm.py": (
        ["--addresses", "3", "--seconds", "1"],
        {"bench", "recover_at_once", "recover_statuses", "legal_ms_alone", "legal_ms_in_storm"},
    ),
    "scale_out.py": (
        [
            *("--games", "2", "--seconds", "1", "--warmup", "0", "--client-processes", "1"),
            *("--setups", "cluster_only"),  # the cluster's path; `single` is gateway.py's stack
        ],
        {"benchmark", "cluster_only"},
    ),
    "ai.py": (
        [
            *("--parts", "speed,greedy,hard,suggest", "--games", "1", "--jobs", "1"),
            *("--speed-seconds", "0.2", "--suggest-calls", "1", "--hard-level", "mcts-20"),
        ],
        {"game", "rules", "speed", "greedy_vs_random", "hard_vs_greedy", "suggest", "targets"},
    ),
    "archive.py": (
        ["--games", "2", "--db-games", "60", "--players", "20", "--reads", "4"],
        {"bench", "codec", "postgres"},
    ),
    "archive_size.py": (
        ["--games", "20", "--pool", "10"],
        {"bench", "kind", "games", "bytes_per_game", "record_bytes_mean", "write_games_per_s"},
    ),
    "analysis_time.py": (
        ["--game", "metro", "--iterations", "5", "--budget-s", "2"],
        {"bench", "game", "decisions", "wall_s", "cpu_s", "labels"},
    ),
    "search_speed.py": (
        ["--games", "metro", "--positions", "1", "--seconds", "0.1", "--rounds", "1"],
        {"bench", "metro", "seconds"},
    ),
    "move_time.py": (
        ["--positions", "1", "--levels", "hard"],
        {
            "bench",
            "positions",
            "metro/2/hard",
            "metrox/2/hard",
            "underground/2/hard",
            "metrox/1/hard",
        },
    ),
    "bounded_costs.py": (
        ["rules", "--flood", "1"],
        {"bench", "mode", "query_cpu_s", "query_answer", "flood_statuses", "meta_ms_in_flood"},
    ),
    "metrox_planner.py": (
        [
            *("--maps", "lakeside", "--decks", "1", "--beam", "10", "--check"),
            *("--levels", "mcts-5", "--exact", "2"),
        ],
        {"bench", "planner", "exact", "levels", "load_avg_start"},
    ),
    "metrox_exact.py": (
        ["lakeside", "107", "--limit", "2"],
        {"map", "seed", "score", "upper_bound", "optimal", "solve_s"},
    ),
    "metrox_maps.py": (
        ["--maps", "paris,amsterdam", "--games", "1", "--level", "random"],
        {"bench", "level", "maps", "seconds"},
    ),
    "legal_listing.py": (
        ["--games", "1", "--rounds", "1", "--every", "20"],
        {"game", "positions", "plain_us", "previewed_us", "plain_bytes", "previewed_bytes"},
    ),
    "gateway_ab.py": (
        [
            *("a=.", "b=.:threaded", "--rounds", "1", "--seconds", "1"),
            *("--games", "2", "--warmup", "0", "--client-processes", "1"),
        ],
        {"sides", "load_avg_1m", "cpus", "seconds"},
    ),
}
# Benches that measure a site already running: each has a test of its own below.
AGAINST_A_SITE = {"upgrade_load.py"}


def test_every_bench_has_a_smoke_case() -> None:
    """A new bench gets a case here, so that it cannot rot either."""
    found = {p.name for p in BENCH.glob("*.py")} - SUPPORT
    cases = set(CASES) | AGAINST_A_SITE
    assert found == cases, f"benches without a case, or cases without a bench: {found ^ cases}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_bench_prints_one_json_object(name: str) -> None:
    args, keys = CASES[name]
    proc = subprocess.run(
        [sys.executable, str(BENCH / name), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HUNG_S,
        check=False,
    )
    assert proc.returncode == 0, f"{name} failed:\n{proc.stderr[-4000:]}"
    try:
        out = json.loads(proc.stdout)
    except json.JSONDecodeError as err:
        pytest.fail(f"{name} did not print one JSON object ({err}):\n{proc.stdout[-2000:]}")
    assert isinstance(out, dict), f"{name} printed {type(out).__name__}, not an object"
    missing = keys - out.keys()
    assert not missing, f"{name}: keys missing from its JSON: {sorted(missing)}"


def test_upgrade_load_plays_through_a_command_against_a_running_gateway(
    gateway_process: str,
) -> None:
    """bench/upgrade_load.py against a real gateway, its "upgrade" a command that changes
    nothing: every request answered, every stream without a gap, one JSON object."""
    proc = subprocess.run(
        [
            sys.executable, str(BENCH / "upgrade_load.py"), "--url", gateway_process,
            "--streams", "2", "--pace", "0.1", "--after", "3", "--", "true",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=HUNG_S, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, f"upgrade_load failed:\n{proc.stdout[-2000:]}{proc.stderr[-4000:]}"
    out = json.loads(proc.stdout)
    assert out["failed"] == 0 and out["streams_with_gap_or_repeat"] == 0, out
    assert out["command_status"] == 0 and out["requests"] > 0 and out["moves"] > 0, out
