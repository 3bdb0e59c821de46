"""Walk-forward evaluation of a batch Bradley-Terry model (``bradley_terry``): one refit
per rating period on the games before it, plus the final fit.

* football (the bundled 49,520 international matches): smoke with 10-year periods (16
  refits); ``large`` with yearly (154) and monthly (1,474) periods, next to Elo's time
  on the same games;
* ``large`` synthetic: 2,000 players, 200,000 games from the BayesElo model in 50
  periods.

The spec is ``bradley_terry:model=bayeselo,advantage=fit,prior=2`` (and ``bt_half`` on
the synthetic set). ``extra_info`` holds the log loss, the number of periods and Elo's
time on the same games.

    pytest bench/bench_bradley_terry_walk.py --benchmark-only -m large
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from bench.bench_bradley_terry import bayeselo_games
from fastrate.data import Games
from fastrate.datasets import load_example
from fastrate.evaluate import evaluate

BAYESELO = "bradley_terry:model=bayeselo,advantage=fit,prior=2"
SPECS = {"bayeselo": BAYESELO, "bt_half": "bradley_terry:advantage=fit,prior=2"}


def _with_periods(games: Games, n_periods: int) -> Games:
    """``games`` split into ``n_periods`` equal consecutive periods."""
    names = games.players.names
    period = np.arange(games.n_games) * n_periods // games.n_games
    return Games.from_arrays(names[games.white], names[games.black], games.score,
                             period=period)


def _run(throughput, games: Games, spec: str, rounds: int) -> None:
    table = throughput(lambda: evaluate(games, [spec]), games.n_games, rounds=rounds)
    t0 = time.perf_counter()
    elo = evaluate(games, ["elo"])
    elo_s = time.perf_counter() - t0
    throughput.info.update(spec=spec, periods=int(np.unique(games.period).shape[0]),
                           log_loss=float(table[spec]["log_loss"]),
                           elo_log_loss=float(elo["elo"]["log_loss"]), elo_seconds=elo_s)
    assert 0.0 < table[spec]["log_loss"] < 0.7


@pytest.mark.parametrize("period", [pytest.param("10y"),
                                    pytest.param("year", marks=pytest.mark.large),
                                    pytest.param("month", marks=pytest.mark.large)])
def bench_walk_forward_football(throughput, period):
    games = load_example("football", period=period)
    throughput.info.update(implementation="fastrate", data="football", period=period)
    _run(throughput, games, BAYESELO, rounds=3 if period != "month" else 1)


@pytest.mark.large
@pytest.mark.parametrize("model", list(SPECS))
def bench_walk_forward_synthetic(throughput, model):
    games = _with_periods(bayeselo_games(2_000, 200_000, seed=3), 50)
    throughput.info.update(implementation="fastrate", data="synthetic 2k players",
                           model=model)
    _run(throughput, games, SPECS[model], rounds=1)
