"""Park & Newman network win-loss scores (``fastrate.ratings.network_scores``): games/s on
the batch Bradley-Terry workload (bench/bench_bradley_terry.py's ``bayeselo_games``:
BayesElo-model games with draws, random pairings), default ``α = 0.8 / λ_max`` (the
power iteration for ``λ_max`` included in the time). Smoke size: 200 players, 5,000
games; ``large``: 10,000 players, 1,000,000 games.

    pytest bench/bench_network_scores.py --benchmark-only -m large
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.bench_bradley_terry import bayeselo_games
from fastrate.ratings.network_scores import network_scores

SIZES = {"small": (200, 5_000), "large": (10_000, 1_000_000)}


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_network_scores(throughput, size):
    games = bayeselo_games(*SIZES[size])
    throughput.info.update(implementation="fastrate", size=size)
    result = throughput(lambda: network_scores(games), games.n_games, rounds=5)
    assert np.isfinite(result.score).all()
    throughput.info.update(alpha=result.alpha, lambda_max=result.lambda_max,
                           n_iterations=result.n_iterations)
