"""Whole-history rating (``fastrate.ratings.whr``): one converged fit.

* smoke: 2,000 synthetic games among 100 players over 200 days;
* ``large``: the ATP file (916,641 games, 28,564 players, daily time steps: 865k
  player-days), converged to the default tolerance (no rating moves by more than 0.001
  Elo in the last sweep); the target is 30 s on a 2-core machine;
* the ``whr`` package (2.2, C++) on a small set (3,000 games, 200 players, 300 days):
  both converge (the package: ``iterate_until_converge``, which stops when no rating
  changes in its second decimal for 10 sweeps), the ratings are checked to agree within
  0.05 Elo before the time counts, and ``fastrate_vs_this`` is the speed ratio.

    pytest bench/bench_whr.py --benchmark-only -m large
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.generate import atp_games
from fastrate.data import Games
from fastrate.ratings import whr


def _synthetic(n_players: int, n_games: int, n_days: int, seed: int = 0) -> Games:
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, 200.0, n_players)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    p = 1.0 / (1.0 + 10.0 ** (-(skill[white] - skill[black]) / 400.0))
    score = (rng.random(n_games) < p).astype(np.float64)
    day = np.sort(rng.integers(0, n_days, n_games)).astype(np.float64)
    return Games.from_arrays(white, black, score, time=day,
                             players=[f"p{i}" for i in range(n_players)])


def bench_whr_smoke(throughput):
    games = _synthetic(100, 2_000, 200)
    fit = throughput(lambda: whr.fit(games), games.n_games)
    assert fit.converged
    throughput.info.update(implementation="fastrate", data="synthetic", sweeps=fit.iterations)


@pytest.mark.large
def bench_whr_atp(throughput):
    games = atp_games(None)
    if games is None:
        pytest.skip("the ATP file is not present")
    fit = throughput(lambda: whr.fit(games), games.n_games, rounds=2)
    assert fit.converged
    throughput.info.update(implementation="fastrate", data="atp", sweeps=fit.iterations,
                           player_days=len(fit.history))


@pytest.mark.large
def bench_whr_package(throughput):
    pkg = pytest.importorskip("whr")
    games = _synthetic(200, 3_000, 300, seed=1)
    names = games.players.names
    rows = [[str(names[w]), str(names[b]), "B" if s == 1.0 else "W", int(t)]
            for w, b, s, t in zip(games.white, games.black, games.score, games.time)]
    config = whr.WHRConfig(w2=300.0)

    def theirs():
        base = pkg.Base(config={"w2": 300.0, "virtual_games": 2})
        base.create_games(rows)
        base.iterate_until_converge(False)
        return base

    base = theirs()
    fit = whr.fit(games, config)
    for i, name in enumerate(names.tolist()):
        mine = fit.history.trajectory(name)["rating"]
        other = np.array([x[1] for x in base.ratings_for_player(str(name))])
        assert np.max(np.abs(mine - other)) < 0.05, i
    throughput(theirs, games.n_games, rounds=3)
    throughput.info.update(implementation="whr 2.2 (C++)", data="synthetic 200 players")
    throughput.compare(lambda: whr.fit(games, config), games.n_games)


@pytest.mark.parametrize("period", [pytest.param(None),
                                    pytest.param("year", marks=pytest.mark.large)])
def bench_whr_walk_forward(throughput, period):
    """Walk-forward ``rate``: one warm-started refit per period (smoke: synthetic, 10
    periods; ``large``: ATP with yearly periods, 57 refits)."""
    if period is None:
        games = _synthetic(100, 2_000, 200)
        names = games.players.names
        games = Games.from_arrays(names[games.white], names[games.black], games.score,
                                  time=games.time, period=games.time // 20)
    else:
        games = atp_games(period)
        if games is None:
            pytest.skip("the ATP file is not present")
    ratings = throughput(lambda: whr.rate(games), games.n_games, rounds=1)
    throughput.info.update(implementation="fastrate", data="synthetic" if period is None
                           else f"atp, {period}", periods=int(np.unique(games.period).size))
    assert ratings.predictions.shape == (games.n_games,)
