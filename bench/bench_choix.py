"""Batch Bradley-Terry against choix (the Python package for Luce-model inference) on the
same decisive games, choix's model.

The workload is bench/bench_bradley_terry.py's (``bayeselo_games``: BayesElo-model games,
advantage 35, drawelo 100) with the draws dropped: plain Bradley-Terry without draws or
advantage, the model choix fits, among the players of the largest strongly connected
component of the win graph (elsewhere the maximum-likelihood ratings are infinite; the
smoke size loses a few unbeaten players). fastrate fits it with ``BTConfig(model="bt_half",
advantage=0.0)`` (stops when no rating moves by 1e-6 Elo); choix with
``choix.ilsr_pairwise`` (iterative Luce spectral ranking, Maystre & Grossglauser 2015: its
fastest unregularised maximum-likelihood method for pairwise data; ``alpha=0``, its
default ``tol=1e-8`` on the L1 change of the natural-log strengths). choix's strengths
are converted to Elo (times 400 / ln 10), both sets centred, and they must agree to
``TOL_ELO`` before the ratio counts: at the smoke and medium sizes an untimed choix run is
checked before anything is timed; at the large size (minutes per choix run) its one timed
run is checked before fastrate is timed and the ratio recorded (``fastrate_vs_this``).

Sizes: ``small`` (smoke) 100 players / 2,000 games (about 1,500 decisive); ``medium``
2,000 / 100,000 and ``large`` 10,000 / 1,000,000 under ``-m large``.

    pytest bench/bench_choix.py --benchmark-only -m large
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import fastrate
from bench.bench_bradley_terry import bayeselo_games
from fastrate.ratings.bradley_terry import BTConfig, fit, largest_component

SIZES = {"small": (100, 2_000), "medium": (2_000, 100_000), "large": (10_000, 1_000_000)}
CONFIG = BTConfig(model="bt_half", advantage=0.0)
#: the largest allowed difference of a centred rating (Elo)
TOL_ELO = 1e-3
ELO_PER_NAT = 400.0 / math.log(10.0)

_CACHE: dict[str, tuple[fastrate.Games, list[tuple[int, int]]]] = {}


def decisive_games(size: str) -> tuple[fastrate.Games, list[tuple[int, int]]]:
    """The workload's decisive games as Games and as choix's ``(winner, loser)`` list."""
    if size not in _CACHE:
        games = bayeselo_games(*SIZES[size])
        keep = games.score != 0.5
        names = games.players.names
        g = fastrate.Games.from_arrays(names[games.white[keep]], names[games.black[keep]],
                                       games.score[keep])
        # without draws a few strong players win every game (no finite MLE): both rate the
        # largest strongly connected component
        g, _ = largest_component(g)
        win = g.score == 1.0
        winner = np.where(win, g.white, g.black).tolist()
        loser = np.where(win, g.black, g.white).tolist()
        _CACHE[size] = g, list(zip(winner, loser))
    return _CACHE[size]


def _check(games: fastrate.Games, params: np.ndarray) -> float:
    ours = fit(games, CONFIG)
    assert ours.converged
    theirs = ELO_PER_NAT * (params - params.mean())
    diff = float(np.abs((ours.rating - ours.rating.mean()) - theirs).max())
    assert diff <= TOL_ELO, f"choix differs from fastrate by {diff} Elo"
    return diff


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("medium", marks=pytest.mark.large),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_choix_ilsr(throughput, size):
    choix = pytest.importorskip("choix")
    games, data = decisive_games(size)
    n = games.n_players
    throughput.info.update(implementation="choix.ilsr_pairwise", size=size,
                           players=n, decisive_games=games.n_games)
    out: dict[str, np.ndarray] = {}

    def run() -> None:
        out["params"] = choix.ilsr_pairwise(n, data, alpha=0.0, max_iter=1000)

    large = size == "large"
    if throughput.enabled and not large:  # equal before any time is taken
        run()
        _check(games, out.pop("params"))
    throughput(run, games.n_games, rounds=1 if large else 3, warmup=False)
    throughput.info["max_abs_diff"] = _check(games, out["params"])
    throughput.compare(lambda: fit(games, CONFIG), games.n_games)
