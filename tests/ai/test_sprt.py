"""The sequential test's arithmetic (services/ai/sprt.py): Wald's bounds, known LLR values,
and decisions on synthetic sequences of results."""

from __future__ import annotations

import math
import random

import pytest

from services.ai.sprt import H0_ACCEPTED, H1_ACCEPTED, UNDECIDED, Sprt


def test_bounds_and_steps_have_their_known_values() -> None:
    s = Sprt()  # H0 50%, H1 60%, alpha = beta = 0.05
    low, high = s.bounds
    assert high == pytest.approx(math.log(19)) == pytest.approx(2.944439, abs=1e-6)
    assert low == pytest.approx(-2.944439, abs=1e-6)
    assert s.llr_step(1) == pytest.approx(math.log(1.2)) == pytest.approx(0.182322, abs=1e-6)
    assert s.llr_step(0) == pytest.approx(math.log(0.8)) == pytest.approx(-0.223144, abs=1e-6)
    assert s.llr_step(0.5) == pytest.approx(0.5 * (math.log(1.2) + math.log(0.8)))
    # 60 wins in 100 games: 60 ln 1.2 + 40 ln 0.8 = 2.0136.
    assert s.llr([1] * 60 + [0] * 40) == pytest.approx(2.013551, abs=1e-5)
    assert Sprt(alpha=0.05, beta=0.1).bounds == pytest.approx((math.log(0.1 / 0.95), math.log(18)))
    with pytest.raises(ValueError):
        Sprt(p0=0.6, p1=0.5)


def test_decisions_on_synthetic_sequences() -> None:
    s = Sprt()
    assert s.run([1] * 100, cap=200)[:2] == (H1_ACCEPTED, 17)  # 16 ln 1.2 = 2.917 < 2.944
    assert s.run([0] * 100, cap=200)[:2] == (H0_ACCEPTED, 14)  # 13 ln 0.8 = -2.901
    assert s.run([1, 0] * 100, cap=50)[:2] == (UNDECIDED, 50)  # even: drifts down slowly
    assert s.run([1, 0] * 500, cap=1000)[0] == H0_ACCEPTED
    assert s.run([0.5] * 1000, cap=1000)[0] == H0_ACCEPTED
    assert s.run([1] * 5, cap=10) == (UNDECIDED, 5, pytest.approx(5 * math.log(1.2)))
    # Simulated entrants: one that wins 75% is accepted as stronger in tens of games, one that
    # wins 45% is rejected, each on every one of 20 seeds (alpha = beta = 0.05 allows a rare miss
    # in general; these seeds are fixed).
    for seed in range(20):
        rng = random.Random(seed)
        decision, games, _ = s.run((float(rng.random() < 0.75) for _ in range(400)), cap=400)
        assert decision == H1_ACCEPTED and games <= 120, (seed, games)
        rng = random.Random(1000 + seed)
        decision, games, _ = s.run((float(rng.random() < 0.40) for _ in range(400)), cap=400)
        assert decision == H0_ACCEPTED, (seed, games)
