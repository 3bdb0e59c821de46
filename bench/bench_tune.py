"""Tuning throughput: configurations evaluated per second by ``fastrate.tune``.

* smoke (default run): a 12-configuration Elo grid on the bundled football example.
* ``large``: a 200-configuration Elo sweep on the ATP file (916k games, the whole file
  scored), reading the file once included (the issue's target: <= 10 s on the 2-core
  machine), with two threads; and the same 200-point sweep on a Dask ``LocalCluster``
  of two worker processes, whose overhead over the local run is recorded
  (``dask_overhead_s``, ``dask_vs_local``; the cluster's start is timed apart,
  ``cluster_start_s``). The Dask results are checked equal to the local ones first.

    pytest bench/bench_tune.py --benchmark-only -m large
"""

from __future__ import annotations

import time

import pytest

import fastrate
from bench.generate import ATP_PATH
from fastrate.tune import tune

#: the 200-configuration sweep: power-K Elo, K = a / (games + b)^c, random over the box
SWEEP = "elo:k_schedule=power,k_power[0]=50..1000:log,k_power[1]=1..100:log,k_power[2]=0.1..1"
N_CONFIGS = 200


def _read_atp():
    return fastrate.read_games(ATP_PATH, winner="winner_id", loser="loser_id",
                               drop_self_play=True, period="year")


def _sweep(games, **kw):
    return tune(games, SWEEP, strategy="random", trials=N_CONFIGS, seed=1, **kw)


def bench_tune_football_grid(throughput):
    games = fastrate.load_example("football", period="year")
    throughput.info.update(unit="configs")
    result = throughput(lambda: tune(games, "elo:k=10..60,advantage=0|50|100|150",
                                     strategy="grid", grid_points=3,
                                     score_from="2000-01-01", workers=2), 12)
    assert len(result.trials) == 12


@pytest.mark.large
def bench_tune_atp_200_configs_with_reading(throughput):
    if not ATP_PATH.exists():
        pytest.skip("the ATP file is not here")
    throughput.info.update(unit="configs", workers=2)

    def run():
        return _sweep(_read_atp(), workers=2)

    result = throughput(run, N_CONFIGS, rounds=3, warmup=True)
    assert len(result.trials) == N_CONFIGS


@pytest.mark.large
def bench_tune_atp_dask_overhead(throughput):
    if not ATP_PATH.exists():
        pytest.skip("the ATP file is not here")
    distributed = pytest.importorskip("distributed")
    games = _read_atp()
    t0 = time.perf_counter()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        start = time.perf_counter() - t0
        local = _sweep(games, workers=2)
        remote = _sweep(games, dask=client)  # warm: the workers load the kernels
        assert remote.to_arrow().equals(local.to_arrow())
        throughput.info.update(unit="configs", workers=2, cluster_start_s=start)
        throughput(lambda: _sweep(games, dask=client), N_CONFIGS, rounds=3, warmup=False)
        dask_s = throughput.info.get("seconds")
    if dask_s is not None:
        t_local = min(_timed(lambda: _sweep(games, workers=2)) for _ in range(3))
        throughput.info.update(local_s=t_local, dask_overhead_s=dask_s - t_local,
                               dask_vs_local=dask_s / t_local)


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t
