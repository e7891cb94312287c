"""Standings: wins with a Wilson 95 % interval, average score, and an OpenSkill rating.

Win counting: a match won alone counts 1; a win shared by k seats (Six Dozens' equal capitals,
Durak's equal fool counts, a drawn 2-player Durak game) counts 1/k to each. Two equal players
thus expect 1/n of the matches of an n-seat game.

Interval: Wilson's score interval at 95 % (z = 1.96) for that share of the matches. It treats
matches as independent; in the duplicate format the two seatings of a deal are positively
correlated for strength differences, which only makes the interval conservative for the
question "is A stronger than B".

Rating: OpenSkill's Plackett–Luce model (PyPI `openskill`, Weng & Lin 2011) rather than Elo,
because it rates free-for-all matches of any size (Six Dozens up to 4 seats, Durak up to 6)
with ties (shared wins) in one update, and carries its own uncertainty (sigma); Elo is defined
for two players. Each match ranks its winners first, the others tied behind. Matches are rated
in schedule order (not completion order), so ratings are repeatable. The model's dynamics are
off (tau = 0): a bot's strength does not change during a tournament, so the sequential updates
approximate the estimate from all matches instead of tracking recent form (with the default
tau, the last few hundred matches of a long run would decide the order). Standings are sorted
by the conservative ordinal ``mu − 3·sigma``; players within a few sigma of each other are not
told apart by it, nor by their win-rate intervals.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from kozyr.tournament.spec import MatchResult

Z95 = 1.959963984540054


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for `successes` out of `n` (0..1 bounds); (0, 1) for n = 0."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class Standing:
    """One player's line in the standings."""

    player: str
    matches: int
    wins: float
    win_rate: float
    ci_low: float
    ci_high: float
    avg_score: float
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        """The conservative rating mu − 3·sigma the standings sort by."""
        return self.mu - 3 * self.sigma


def standings(names: Sequence[str], results: Sequence[MatchResult]) -> list[Standing]:
    """The standings of `names` (player index order) over `results`, best first."""
    model = PlackettLuce(tau=0.0)
    ratings = [model.rating(name=n) for n in names]
    played = [0] * len(names)
    wins = [0.0] * len(names)
    score = [0.0] * len(names)
    for r in sorted(results, key=lambda r: r.index):
        for seat, p in enumerate(r.lineup):
            played[p] += 1
            wins[p] += r.share(seat)
            score[p] += r.scores[seat]
        teams = [[ratings[p]] for p in r.lineup]
        ranks = [1.0 if seat in r.winners else 2.0 for seat in range(len(r.lineup))]
        rated = model.rate(teams, ranks=ranks)
        for p, team in zip(r.lineup, rated, strict=True):
            ratings[p] = team[0]
    out = []
    for p, name in enumerate(names):
        n = played[p]
        low, high = wilson(wins[p], n)
        out.append(
            Standing(
                name,
                n,
                wins[p],
                wins[p] / n if n else 0.0,
                low,
                high,
                score[p] / n if n else 0.0,
                ratings[p].mu,
                ratings[p].sigma,
            )
        )
    out.sort(key=lambda s: -s.ordinal)
    return out
