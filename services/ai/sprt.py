"""A sequential probability ratio test for `metro arena --sprt`: is entrant A stronger than B?

As engine developers' test farms do on small machines: instead of a fixed, large number of games,
play until the evidence decides. H0: A wins a share p0 of the games (default 50%: no stronger);
H1: A wins p1 (default 60%: stronger by the stated margin). After each game the log-likelihood
ratio of the results so far is compared with Wald's bounds, lower ln(beta / (1 - alpha)) and upper
ln((1 - beta) / alpha): at or above the upper one H1 is accepted, at or below the lower one H0,
in between another game is played, up to a cap (then no decision). With alpha = beta = 0.05 the
bounds are +-2.944; a one-sided run of wins decides H1 in 17 games, of losses H0 in 14.

A game scores x = 1 for A's win, 0 for its loss, 1/k for a win shared by k seats; the LLR adds
x ln(p1/p0) + (1 - x) ln((1 - p1)/(1 - p0)) per game (a shared result counts as half a win and
half a loss, the usual simplification for draws).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

H0_ACCEPTED = "H0"  # not stronger by the margin
H1_ACCEPTED = "H1"  # stronger by the margin
UNDECIDED = "none"  # the game cap came first


@dataclass(frozen=True, slots=True)
class Sprt:
    p0: float = 0.5
    p1: float = 0.6
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not 0 < self.p0 < self.p1 < 1:
            raise ValueError("need 0 < p0 < p1 < 1")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ValueError("alpha and beta must lie between 0 and 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        """Wald's (lower, upper) LLR bounds."""
        return (
            math.log(self.beta / (1 - self.alpha)),
            math.log((1 - self.beta) / self.alpha),
        )

    def llr_step(self, x: float) -> float:
        """The LLR a game adds, x being A's score in it (0..1)."""
        return x * math.log(self.p1 / self.p0) + (1 - x) * math.log((1 - self.p1) / (1 - self.p0))

    def llr(self, scores: Iterable[float]) -> float:
        return sum(self.llr_step(x) for x in scores)

    def decide(self, llr: float) -> str:
        """H1, H0, or "none" (play on) for an LLR."""
        low, high = self.bounds
        if llr >= high:
            return H1_ACCEPTED
        if llr <= low:
            return H0_ACCEPTED
        return UNDECIDED

    def run(self, scores: Iterable[float], cap: int) -> tuple[str, int, float]:
        """(decision, games used, LLR) over a sequence of A's game scores: stop at the first
        game where a hypothesis is accepted, or at `cap` games."""
        llr, n = 0.0, 0
        for x in scores:
            if n >= cap:
                break
            llr += self.llr_step(x)
            n += 1
            if self.decide(llr) != UNDECIDED:
                return self.decide(llr), n, llr
        return UNDECIDED, n, llr
