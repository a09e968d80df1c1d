"""The players, pure: legal moves only in every variant, no peeking at hidden tiles,
reproducible for a seed, within their budget; and the levels that name them."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from games.metro import DRAW, MetroRules, MetroState
from services.ai.players import InfoSet, UnknownLevelError, level_for
from services.ai.players.levels import check_budget, parse_spec
from services.ai.players.policy import random_move

VARIANTS = [
    {"players": 2},
    {"players": 2, "rotation": True},
    {"players": 2, "hand_size": 2},
    {"players": 3, "hand_size": 3},
    {"players": 2, "online": True},
    {"players": 5, "online": True, "rotation": True, "hand_size": 2},
]
LEVELS = ("random", "easy", "medium", "mcts-30")


def positions(rules: dict[str, Any], seed: int, every: int = 1) -> list[MetroState]:
    """Positions along one random game (with draws), including mid-draw ones."""
    rng = random.Random(seed)
    state = MetroState.new(MetroRules.parse(rules), seed)
    out = []
    while not state.is_over:
        if state.placed % every == 0 or state.drawn >= 0:
            out.append(state.copy())
        moves = state.legal_moves()
        state.apply(DRAW if DRAW in moves and rng.random() < 0.25 else rng.choice(moves))
    return out


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: "-".join(f"{k}{v}" for k, v in r.items()))
def test_players_rank_exactly_the_legal_moves(rules: dict[str, Any]) -> None:
    players = [level_for(name).make() for name in LEVELS]
    checked = 0
    for state in positions(rules, seed=len(str(rules)), every=4):
        # A set: with rotation, two hand tiles of one rotation class list a move twice.
        legal = sorted(set(state.legal_moves()))
        info = InfoSet.from_state(state, state.seat)
        assert sorted(set(info.legal_moves())) == legal
        for player in players:
            ranked = [r.move for r in player.search(info, seed=checked).moves]
            assert sorted(ranked) == legal, player.name  # each legal move once
        checked += 1
    assert checked >= 10


def _rehide(state: MetroState, rng: random.Random) -> MetroState:
    """The same game as `state.seat` sees it, the hidden tiles dealt differently."""
    other = state.copy()
    me = state.seat
    hidden = [t for s, h in enumerate(state.hands) if s != me for t in h]
    hidden += state.deck[state.deck_pos :]
    rng.shuffle(hidden)
    hands = []
    for s, h in enumerate(state.hands):
        hands.append(h if s == me else tuple(hidden.pop() for _ in h))
    other.hands = hands
    other.deck, other.deck_pos = hidden, 0
    return other


@pytest.mark.parametrize("rules", [{"players": 2}, {"players": 3, "hand_size": 2}])
def test_the_ai_cannot_peek(rules: dict[str, Any]) -> None:
    """Two games that look the same from the seat (board, hand, history) but differ in the deck
    and the opponents' hands get the same answer for the same seed."""
    rng = random.Random(3)
    players = [level_for(name).make() for name in ("random", "easy", "medium", "mcts-200")]
    compared = 0
    for state in positions(rules, seed=5, every=7):
        twin = _rehide(state, rng)
        seat = state.seat
        assert twin.view(seat) == state.view(seat)
        assert (twin.hands, twin.deck[twin.deck_pos :]) != (
            state.hands,
            state.deck[state.deck_pos :],
        ) or not twin.deck_count
        for player in players:
            a = player.search(InfoSet.from_state(state, seat), seed=42)
            b = player.search(InfoSet.from_state(twin, seat), seed=42)
            assert a.moves == b.moves and a.iterations == b.iterations, player.name
        compared += 1
    assert compared >= 5


def test_sampled_worlds_agree_with_the_view() -> None:
    for state in positions({"players": 3, "hand_size": 2}, seed=8, every=5):
        seat = (state.seat + 1) % 3  # an observer who is not to move (sees a draw in progress)
        info = InfoSet.from_state(state, seat)
        view = state.view(seat)
        for k in range(3):
            world = info.sample(random.Random(k))
            assert world.hands[seat] == state.hands[seat]
            assert [len(h) for h in world.hands] == [len(h) for h in state.hands]
            assert world.deck_count == state.deck_count and world.seat == state.seat
            assert world.scores == state.scores and world.board == state.board
            assert (world.drawn >= 0) == (state.drawn >= 0)
            hidden = [t for s, h in enumerate(world.hands) if s != seat for t in h]
            hidden += world.deck[world.deck_pos :] + ([world.drawn] if world.drawn >= 0 else [])
            assert sorted(hidden) == list(info.pool)
            assert len(hidden) == sum(view["unseen"].values())


def test_search_is_reproducible_and_keeps_its_budget() -> None:
    state = positions({"players": 2}, seed=1, every=10)[2]
    info = InfoSet.from_state(state, state.seat)
    player = level_for("mcts-300").make()
    assert player.search(info, seed=1).moves == player.search(info, seed=1).moves
    hard = level_for("hard").make()
    started = time.perf_counter()
    result = hard.search(info, seed=1, budget_s=0.15)
    assert time.perf_counter() - started < 0.4
    assert result.iterations > 10 and result.moves[0].visits > 0


def test_rollout_moves_are_legal_and_uniform() -> None:
    rng = random.Random(2)
    for rules in VARIANTS:
        for state in positions(rules, seed=3, every=6):
            legal = set(state.legal_moves())
            assert {random_move(state, rng.random) for _ in range(30)} <= legal
    state = positions({"players": 2, "hand_size": 2}, seed=4)[10]
    counts = dict.fromkeys(state.legal_moves(), 0)
    for _ in range(300 * len(counts)):
        counts[random_move(state, rng.random)] += 1
    assert min(counts.values()) > 200 and max(counts.values()) < 400


def test_greedy_beats_random() -> None:
    medium, rand = level_for("medium").make(), level_for("random").make()
    for game in range(4):
        state = MetroState.new(MetroRules(), game)
        players = (medium, rand) if game % 2 == 0 else (rand, medium)
        while not state.is_over:
            info = InfoSet.from_state(state, state.seat)
            state.apply(players[state.seat].search(info, seed=state.placed).best)
        greedy_seat = game % 2
        assert state.scores[greedy_seat] > state.scores[1 - greedy_seat], state.scores


def test_levels() -> None:
    assert level_for("").name == "medium"
    assert not level_for("mcts-25").timed  # a fixed-iteration level
    for name in ("grandmaster", "mcts-0", "mcts-", "HARD", "mcts-1000000"):
        with pytest.raises(UnknownLevelError):
            level_for(name)
    check_budget(0)
    check_budget(700)
    for budget in (-1, 5, 30_001):
        with pytest.raises(UnknownLevelError):
            check_budget(budget)
    assert parse_spec("hard:500")[1] == 0.5
    with pytest.raises(UnknownLevelError):
        parse_spec("hard:fast")
