"""Ladder simulator throughput: simulated games per second over all seeds (the seeds
run in parallel), by scheduler and rating system.

``small``: the computer-go post's ladder (34 players), 20k games x 8 seeds (500 x 2 in
the smoke run); ``large``: 1,000 players, 200k games x 16 seeds (nearest and gaussian;
greedy is O(players) per game).

    pytest bench/bench_pairing.py --benchmark-only
    pytest bench/bench_pairing.py --benchmark-only -m large
"""

from __future__ import annotations

import pytest

from fastrate.stats import pairing as P

SIZES = {"small": (34, 20_000, 8), "large": (1_000, 200_000, 16)}


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
@pytest.mark.parametrize("system", P.SYSTEMS)
@pytest.mark.parametrize("scheduler", P.SCHEDULERS)
def bench_ladder_simulate(throughput, scheduler, system, size):
    if size == "large" and scheduler == "greedy":
        pytest.skip("greedy scores every opponent: O(players) per game")
    players, n_games, n_seeds = SIZES[size]
    if not throughput.enabled:
        n_games, n_seeds = 500, 2
    ladder = P.Ladder.geometric(players)
    throughput.info.update(implementation="fastrate", scheduler=scheduler, system=system,
                           players=players, seeds=n_seeds)
    result = throughput(lambda: P.simulate(ladder, scheduler, system, n_games,
                                           n_seeds=n_seeds, n_points=10),
                        n_games * n_seeds)
    assert result.rmse.shape == (n_seeds, 11)
