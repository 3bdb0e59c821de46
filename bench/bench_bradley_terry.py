"""Batch Bradley-Terry fit time (``fastrate.ratings.bradley_terry.fit``), both models.

Synthetic games from the BayesElo model (normal strengths, sd 200 Elo; advantage 35;
drawelo 100; random pairings, so almost every game is its own ordered pair). Smoke size:
200 players, 5,000 games; ``large``: 10,000 players, 1,000,000 games (targets: bayeselo
<= 0.5 s, bt_half <= 0.3 s, advantage and drawelo fitted; Davidson's model, not in the
targets, for comparison). Also the standard errors and the LOS of the top 100 (top 20
at the smoke size): ``exact`` (the certified series where it certifies its tolerance,
1e-3 Elo; docs/algorithms/bradley_terry.md "Fast exact errors"), the old exact paths in
the same run (``dense``: Cholesky and triangular inverse; ``cg``: a CG solve per LOS
player; run once at the large size) and ``conditional``. The LOS is timed cold (the
series' structure built in the call) and after ``standard_errors`` (structure cached).
``bench_bradley_terry_series_error`` checks the series against the dense errors (actual
error <= certified bound) and records both times.

    pytest bench/bench_bradley_terry.py --benchmark-only -m large
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest

import fastrate
from fastrate.ratings import bradley_terry as bt
from fastrate.ratings.bradley_terry import BTConfig, fit, los, standard_errors

SIZES = {"small": (200, 5_000), "large": (10_000, 1_000_000)}
CONFIGS = {"bt_half": BTConfig(advantage="fit"),
           "bayeselo": BTConfig(model="bayeselo", advantage="fit"),
           "davidson": BTConfig(model="davidson", advantage="fit")}


def bayeselo_games(n_players: int, n_games: int, *, advantage: float = 35.0,
                   drawelo: float = 100.0, sd: float = 200.0, seed: int = 0) -> fastrate.Games:
    """``n_games`` random pairings of ``n_players`` (every player in both colours), results
    drawn from BayesElo's model."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, sd, n_players)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    x = strength[white] - strength[black] + advantage
    p_win = 1.0 / (1.0 + 10.0 ** (-(x - drawelo) / 400.0))
    p_loss = 1.0 / (1.0 + 10.0 ** ((x + drawelo) / 400.0))
    u = rng.random(n_games)
    score = np.where(u < p_win, 1.0, np.where(u >= 1.0 - p_loss, 0.0, 0.5))
    names = np.array([f"p{i}" for i in range(n_players)], dtype=object)
    return fastrate.Games.from_arrays(names[white], names[black], score)


_CACHE: dict[str, fastrate.Games] = {}


def _games(size: str) -> fastrate.Games:
    if size not in _CACHE:
        _CACHE[size] = bayeselo_games(*SIZES[size])
    return _CACHE[size]


@pytest.mark.parametrize("model", list(CONFIGS))
@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_bradley_terry_fit(throughput, size, model):
    games = _games(size)
    throughput.info.update(implementation="fastrate", size=size, model=model)
    result = throughput(lambda: fit(games, CONFIGS[model]), games.n_games, rounds=5)
    assert result.converged
    throughput.info.update(n_newton=result.n_newton, n_pairs=result.n_pairs,
                           advantage=result.advantage, drawelo=result.drawelo)


# the uncertainty outputs on the same workloads (bayeselo, advantage and drawelo fitted):
# the targets for 10,000 players are standard errors <= 1 s and the LOS of the
# top 100 <= 0.1 s

_FITS: dict[str, Any] = {}


def _fit(size: str):
    if size not in _FITS:
        _FITS[size] = fit(_games(size), CONFIGS["bayeselo"])
    return _FITS[size]


def _cold() -> tuple:
    bt._SERIES_CACHE[:] = [None, None]  # the series' structure is built in the call
    return ()


@pytest.mark.parametrize("method", ["exact", "dense", "conditional"])
@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_bradley_terry_standard_errors(throughput, size, method):
    result = _fit(size)
    throughput.info.update(implementation="fastrate", size=size, method=method,
                           players=len(result.players))
    slow = size == "large" and method == "dense"
    se = throughput(lambda: standard_errors(result, method=method), len(result.players),
                    rounds=1 if slow else 3, setup=_cold, warmup=not slow)
    throughput.info.update(path=se.path, bound=se.bound, rho=se.rho)
    assert np.isfinite(se.rating).all()


@pytest.mark.parametrize("method", ["exact", "exact after standard_errors", "cg",
                                    "conditional"])
@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_bradley_terry_los(throughput, size, method):
    result = _fit(size)
    top = 20 if size == "small" else 100
    throughput.info.update(implementation="fastrate", size=size, method=method, top=top)
    how = method.split()[0]
    slow = size == "large" and method == "cg"

    def setup() -> tuple:
        _cold()
        if method == "exact after standard_errors":
            standard_errors(result)
        return ()

    names, matrix, info = throughput(
        lambda: los(result, top=top, method=how, details=True), top,
        rounds=1 if slow else 3, setup=setup, warmup=not slow)
    throughput.info.update(path=info["path"], bound=info["bound"])
    assert names.shape == (top,)


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_bradley_terry_series_error(throughput, size):
    """The series (forced) against the dense exact errors, timed in the same run: the
    actual largest error must be within the certified bound."""
    result = _fit(size)
    t0 = time.perf_counter()
    dense = standard_errors(result, method="dense")
    t_dense = time.perf_counter() - t0
    series = throughput(lambda: standard_errors(result, method="series"),
                        len(result.players), rounds=3, setup=_cold)
    err = float(np.abs(series.rating - dense.rating).max())
    assert err <= series.bound
    throughput.info.update(implementation="fastrate", size=size, dense_seconds=t_dense,
                           max_error_elo=err, bound_elo=series.bound, rho=series.rho,
                           advantage_error=abs(series.advantage - dense.advantage),
                           drawelo_error=abs(series.drawelo - dense.drawelo))
