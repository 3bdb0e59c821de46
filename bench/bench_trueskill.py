"""TrueSkill throughput: fastrate on the generated match workloads (1v1, 4-player
free-for-all, 2v2, 8-player free-for-all; ``bench/generate_matches.py``) and against the
``trueskill`` package on a subsample of the same matches.

The full sizes (``-m large``) are the issue's targets: 2M 1v1 games and 20k 8-player
free-for-alls among 50k players (200k 4-FFAs and 2v2s). The peer comparison rates the
first ``PEER_MATCHES`` matches (20,000 at full size: every 8-player free-for-all), with
the players renumbered to those who play in them (so neither side pays for the
workload's other players), once with the package (pure Python; its default backend,
``rounds=1``), checks that every player's mu and sigma equal fastrate's to ``PEER_TOL``
(its erfc and ppf are approximations good to ~1e-7 relative), and only then records
fastrate's speed-up on the same matches. The package's ``rate`` only updates ratings,
so the like-for-like ratio (``fastrate_vs_this``) times fastrate's final-only run
(``rate(..., predictions=False)``, checked to give the same ratings to the bit as the
full run); ``fastrate_with_predictions_vs_this`` times the full run (every team's win
probability and every pair's expected score as well). ``bench_trueskill_fastrate``
times both forms on the full workloads.

    pytest bench/bench_trueskill.py --benchmark-only -m large
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from bench.generate_matches import first, matches_workload
from fastrate.data.matches import Matches

trueskill = pytest.importorskip("fastrate.ratings.trueskill")

CONFIG = trueskill.TrueSkillConfig()
SMOKE_SCALE = 0.0005
PEER_MATCHES = {False: 50, True: 20_000}
PEER_TOL = 1e-4
SHAPES = ["1v1", "ffa4", "2v2", "ffa8"]


def _scale(shape: str, large: bool) -> float:
    if large:
        return 1.0
    return SMOKE_SCALE if shape != "ffa8" else 0.01


def _params():
    return [pytest.param(s, False, id=f"{s}-small") for s in SHAPES] + [
        pytest.param(s, True, id=f"{s}-large", marks=pytest.mark.large) for s in SHAPES]


@pytest.mark.parametrize("predictions", [True, False], ids=["predictions", "final"])
@pytest.mark.parametrize("shape,large", _params())
def bench_trueskill_fastrate(throughput, shape, large, predictions):
    m = matches_workload(shape, scale=_scale(shape, large))
    throughput.info.update(implementation="fastrate", shape=shape, unit="matches",
                           predictions=predictions)
    r = throughput(lambda: trueskill.rate(m, CONFIG, predictions=predictions), m.n_matches)
    assert np.isfinite(r.state["mu"]).all()


def _subsample(m, n):
    """The first ``n`` matches of ``m``, players renumbered to those who play in them."""
    from fastrate.data.players import PlayerIndex

    m = first(m, n)
    ids, player = np.unique(m.player, return_inverse=True)
    return Matches(match_team_offsets=m.match_team_offsets,
                   team_player_offsets=m.team_player_offsets,
                   player=np.ascontiguousarray(player, dtype=np.int64), rank=m.rank,
                   players=PlayerIndex(m.players.names[ids]))


def _package_run(ts, m):
    env = ts.TrueSkill(mu=CONFIG.mu, sigma=CONFIG.sigma, beta=CONFIG.beta, tau=CONFIG.tau,
                       draw_probability=CONFIG.draw_probability, backend=None)
    state: dict[int, object] = {}
    for teams, ranks in m.iter_matches():
        groups = [[state[int(p)] if int(p) in state else env.create_rating() for p in t]
                  for t in teams]
        out = env.rate(groups, [int(x) for x in ranks])
        for t, o in zip(teams, out):
            for p, x in zip(t, o):
                state[int(p)] = x
    return state


@pytest.mark.parametrize("shape,large", _params())
def bench_trueskill_package(throughput, shape, large):
    ts = pytest.importorskip("trueskill")
    m = _subsample(matches_workload(shape, scale=_scale(shape, large)), PEER_MATCHES[large])
    throughput.info.update(implementation="trueskill package", shape=shape, unit="matches",
                           subsample=m.n_matches)
    out: dict[str, dict[int, object]] = {}

    def run() -> None:
        out["state"] = _package_run(ts, m)

    # one timed run (the large ones take tens of seconds), its result checked before
    # fastrate's time on the same matches is taken and the ratio recorded
    throughput(run, m.n_matches, rounds=1 if large else None, warmup=not large)
    state = out["state"]
    ours = trueskill.rate(m, CONFIG)
    ids = np.array(sorted(state))
    diff = max(np.abs(ours.state["mu"][ids] - [state[i].mu for i in ids]).max(),
               np.abs(ours.state["sigma"][ids] - [state[i].sigma for i in ids]).max())
    assert diff < PEER_TOL, f"trueskill package differs by {diff}"
    throughput.info["max_abs_diff"] = float(diff)
    final = trueskill.rate(m, CONFIG, predictions=False)
    for key in ("mu", "sigma", "games_played"):
        np.testing.assert_array_equal(final.state[key], ours.state[key])
    throughput.compare(lambda: trueskill.rate(m, CONFIG), m.n_matches,
                       key="fastrate_with_predictions_vs_this")
    throughput.compare(lambda: trueskill.rate(m, CONFIG, predictions=False), m.n_matches)


def cpu_time_ratios(shapes=SHAPES, n=PEER_MATCHES[True]):
    """The like-for-like ratios again in CPU time (``time.process_time``), a cross-check
    on a shared machine (see ``bench.bench_weng_lin.cpu_time_ratios``). One line per
    workload."""
    from bench.bench_weng_lin import cpu_best

    ts = pytest.importorskip("trueskill")
    for shape in shapes:
        m = _subsample(matches_workload(shape, scale=1.0), n)
        trueskill.rate(m, CONFIG, predictions=False)
        trueskill.rate(m, CONFIG)
        peer = cpu_best(partial(_package_run, ts, m), 1)
        final = cpu_best(partial(trueskill.rate, m, CONFIG, predictions=False), 30)
        full = cpu_best(partial(trueskill.rate, m, CONFIG), 30)
        print(f"{shape:5s} trueskill {m.n_matches / peer:9.0f}/s  final-only "
              f"{peer / final:7.0f}x  with predictions {peer / full:7.0f}x", flush=True)


if __name__ == "__main__":  # python -m bench.bench_trueskill
    cpu_time_ratios()
