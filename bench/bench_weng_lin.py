"""Weng-Lin throughput on the generated match workloads: 2M 1v1 games, 200k four-player
free-for-alls, 200k 2v2 matches and 20k eight-player free-for-alls among 50k players
(``bench.generate_matches``; the smoke run uses 1/2000 of each), for all five models.

Targets (single thread, Plackett-Luce): >= 25M 1v1 games/s and >= 5M 4-player
free-for-alls/s. The peer is the ``openskill`` package (6.2; its wheel is compiled with
mypyc) on the first 20k matches of each workload, rated match by match through its
``rate()``; its ratings on the first 2k are checked equal to fastrate's (1e-9) before
its time counts, and the ratio fastrate/openskill on
the same matches is recorded (target >= 1000). openskill's ``rate()`` only updates
ratings, so the like-for-like ratio (``fastrate_vs_this``) times fastrate's final-only
run (``rate(..., predictions=False)``, checked to give the same ratings to the bit as
the full run); ``fastrate_with_predictions_vs_this`` times the full run, which also
computes every team's win probability and every pair's expected score. Throughput is
in matches per second; ``bench_weng_lin_fastrate`` times both forms
(``predictions``).

    pytest bench/bench_weng_lin.py --benchmark-only -m large
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from bench.generate_matches import first, matches_workload
from fastrate.data.matches import Matches
from fastrate.data.players import PlayerIndex

weng_lin = pytest.importorskip("fastrate.ratings.weng_lin")

MODELS = weng_lin.MODELS
SHAPES = ("1v1", "ffa4", "2v2", "ffa8")
PEER_MATCHES = {"small": 50, "large": 20_000}
CHECKED = 2_000
SMOKE_SCALE = 0.0005
SIZES = [pytest.param("small"), pytest.param("large", marks=pytest.mark.large)]


def workload(shape: str, size: str):
    return matches_workload(shape, scale=1.0 if size == "large" else SMOKE_SCALE)


def rate_matches(m, config, predictions=True):
    return weng_lin.rate(m, config, predictions=predictions)


def model_config(model):
    """The model's config, built once outside the timed calls (as openskill's model
    object is built once per run)."""
    return weng_lin.WengLinConfig(model=model)


@pytest.mark.parametrize("predictions", [True, False], ids=["predictions", "final"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("model", MODELS)
def bench_weng_lin_fastrate(throughput, model, shape, size, predictions):
    m = workload(shape, size)
    throughput.info.update(implementation="fastrate", model=model, size=size, shape=shape,
                           unit="matches", predictions=predictions)
    config = model_config(model)
    r = throughput(lambda: rate_matches(m, config, predictions), m.n_matches)
    assert np.isfinite(r.rating).all()


def peer_subsample(m, k):
    """The first ``k`` matches, players renumbered to those who play in them (so
    neither side pays for the workload's other players)."""
    m = first(m, k)
    ids, player = np.unique(m.player, return_inverse=True)
    return Matches(match_team_offsets=m.match_team_offsets,
                   team_player_offsets=m.team_player_offsets,
                   player=np.ascontiguousarray(player, dtype=np.int64), rank=m.rank,
                   players=PlayerIndex(m.players.names[ids]))


def openskill_rate(m, model_cls):
    """openskill's ``rate()`` match by match over ``m``. Returns (mu, sigma) per player
    (players it never saw keep the defaults)."""
    model = model_cls()
    mto, tpo = m.match_team_offsets.tolist(), m.team_player_offsets.tolist()
    player, rank = m.player.tolist(), m.rank.tolist()
    ratings: dict[int, object] = {}
    for g in range(m.n_matches):
        t0, t1 = mto[g], mto[g + 1]
        ids = [player[tpo[t]:tpo[t + 1]] for t in range(t0, t1)]
        teams = [[ratings[p] if p in ratings else model.rating() for p in team]
                 for team in ids]
        out = model.rate(teams, ranks=rank[t0:t1])
        for team_ids, team in zip(ids, out):
            for p, r in zip(team_ids, team):
                ratings[p] = r
    mu = np.full(len(m.players), model.mu)
    sigma = np.full(len(m.players), model.sigma)
    for p, r in ratings.items():
        mu[p], sigma[p] = r.mu, r.sigma
    return mu, sigma


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("model", MODELS)
def bench_weng_lin_openskill(throughput, model, shape, size):
    cls = openskill_classes()[model]
    m = peer_subsample(workload(shape, size), PEER_MATCHES[size])
    throughput.info.update(implementation="openskill 6.2", model=model, size=size,
                           shape=shape, unit="matches", subsample=m.n_matches)
    # equal on the first CHECKED matches; over many more, Thurstone-Mosteller's guarded
    # v/w (a branch at Phi < 2.2e-16) can turn last-bit differences into 1e-5 ones
    check = peer_subsample(m, CHECKED)
    config = model_config(model)
    ours = rate_matches(check, config)
    mu, sigma = openskill_rate(check, cls)
    np.testing.assert_allclose(mu, ours.state["mu"], rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(sigma, ours.state["sigma"], rtol=1e-9, atol=1e-9)
    throughput.info["max_abs_diff"] = float(np.abs(mu - ours.state["mu"]).max())
    # best of 3 (one round on the smoke size): a single run of a few seconds on a shared
    # machine catches other jobs, and fastrate's time is a best round too
    throughput(lambda: openskill_rate(m, cls), m.n_matches, rounds=3 if size == "large" else 1)
    full, final = rate_matches(m, config), rate_matches(m, config, predictions=False)
    for key in ("mu", "sigma", "games_played"):
        np.testing.assert_array_equal(final.state[key], full.state[key])
    throughput.compare(lambda: rate_matches(m, config), m.n_matches,
                       key="fastrate_with_predictions_vs_this")
    throughput.compare(lambda: rate_matches(m, config, predictions=False), m.n_matches)


def openskill_classes() -> dict:
    """openskill's model class of each of fastrate's Weng-Lin models (skips the test
    without openskill)."""
    models = pytest.importorskip("openskill.models")
    return {"plackett_luce": models.PlackettLuce,
            "bradley_terry_full": models.BradleyTerryFull,
            "bradley_terry_part": models.BradleyTerryPart,
            "thurstone_mosteller_full": models.ThurstoneMostellerFull,
            "thurstone_mosteller_part": models.ThurstoneMostellerPart}


def cpu_best(fn, repeats):
    """Fastest of ``repeats`` calls of ``fn`` in CPU time of this process (seconds)."""
    import time

    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def cpu_time_ratios(shapes=SHAPES, models=MODELS, n=PEER_MATCHES["large"]):
    """The like-for-like ratios again in CPU time (``time.process_time``) instead of
    wall time, a cross-check on a shared machine: a run of openskill of several seconds
    shares the CPU with other jobs, while fastrate's best of many short rounds finds
    quiet moments, which inflates the wall-time ratio. Prints one line per workload."""
    classes = openskill_classes()
    for shape in shapes:
        m = peer_subsample(workload(shape, "large"), n)
        for model in models:
            config = model_config(model)
            rate_matches(m, config, False)
            rate_matches(m, config)
            peer = cpu_best(partial(openskill_rate, m, classes[model]), 2)
            final = cpu_best(partial(rate_matches, m, config, False), 50)
            full = cpu_best(partial(rate_matches, m, config), 50)
            print(f"{shape:5s} {model:25s} openskill {m.n_matches / peer:9.0f}/s  "
                  f"final-only {peer / final:7.0f}x  with predictions {peer / full:7.0f}x",
                  flush=True)


if __name__ == "__main__":  # python -m bench.bench_weng_lin
    cpu_time_ratios()
