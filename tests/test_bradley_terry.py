"""Batch Bradley-Terry fits: derivatives, the MM reference, Ordo and BayesElo outputs."""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference.bradley_terry import bt_half_mm

import fastrate
from fastrate.errors import ConfigError, InputError
from fastrate.ratings import bradley_terry as bt
from fastrate.ratings.bradley_terry import BTConfig, fit

ORACLES = Path(__file__).resolve().parents[2] / "shared" / "data" / "bt_oracles"
STEM = "football_2000_2024_nonneutral_scc"


def _random_games(seed, n=6, g=80, draws=True):
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 150, n)
    while True:
        w = rng.integers(0, n, g)
        b = (w + rng.integers(1, n, g)) % n
        x = strength[w] - strength[b] + 40.0
        u = rng.random(g)
        pw = 1 / (1 + 10 ** (-(x - 80) / 400))
        pl = 1 / (1 + 10 ** ((x + 80) / 400))
        s = np.where(u < pw, 1.0, np.where(u > 1 - pl, 0.0, 0.5 if draws else 1.0))
        games = fastrate.Games.from_arrays([f"p{i}" for i in w], [f"p{i}" for i in b], s)
        try:
            fit(games, BTConfig(max_newton=1))
            return games
        except InputError:
            continue


def _theta_setup(games, model, fit_adv, fit_draw):
    pairs = bt.condense(games)
    n = games.n_players
    ia = n if fit_adv else -1
    idr = n + int(fit_adv) if fit_draw else -1
    rng = np.random.default_rng(1)
    theta = rng.normal(0, 100, n + int(fit_adv) + int(fit_draw))
    if fit_adv:
        theta[ia] = 30.0
    if fit_draw:
        theta[idr] = 90.0
    args = (pairs.white, pairs.black, pairs.advantaged, pairs.wins, pairs.draws, pairs.losses)
    return pairs, args, theta, ia, idr


@pytest.mark.parametrize("model,fit_adv,fit_draw", [("bt_half", True, False),
                                                    ("bt_half", False, False),
                                                    ("bayeselo", True, True),
                                                    ("bayeselo", False, True),
                                                    ("bayeselo", True, False)])
def test_gradient_and_hessian_vector_against_finite_differences(model, fit_adv, fit_draw):
    games = _random_games(3)
    pairs, args, theta, ia, idr = _theta_setup(games, model, fit_adv, fit_draw)
    bayes = model == "bayeselo"
    m, size = pairs.white.shape[0], theta.shape[0]
    grad, diag = np.empty(size), np.empty(size)
    mxx, mxd, mdd = np.empty(m), np.empty(m), np.empty(m)
    bt._gradient_curvature(*args, theta, ia, 25.0, idr, 70.0, bayes, grad, diag, mxx, mxd, mdd)

    def ll(t):
        return bt._log_likelihood(*args, t, ia, 25.0, idr, 70.0, bayes)

    def gr(t):
        out = np.empty(size)
        bt._gradient_curvature(*args, t, ia, 25.0, idr, 70.0, bayes, out, np.empty(size),
                               np.empty(m), np.empty(m), np.empty(m))
        return out

    h = 1e-3
    eye = np.eye(size)
    fd = np.array([(ll(theta + h * e) - ll(theta - h * e)) / (2 * h) for e in eye])
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-8)
    v = np.random.default_rng(2).normal(size=size)
    hv = np.empty(size)
    bt._hessian_vector(pairs.white, pairs.black, pairs.advantaged, mxx, mxd, mdd, ia, idr, v,
                       hv)
    fd_hv = -(gr(theta + h * v) - gr(theta - h * v)) / (2 * h)
    np.testing.assert_allclose(hv, fd_hv, rtol=1e-5, atol=1e-9)
    full = np.array([bt._hessian_vector(pairs.white, pairs.black, pairs.advantaged, mxx, mxd,
                                        mdd, ia, idr, e, hv) or hv.copy() for e in eye])
    np.testing.assert_allclose(np.diag(full), diag, rtol=1e-12, atol=1e-15)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 7))
def test_newton_equals_the_mm_reference(seed, n):
    games = _random_games(seed, n=n, g=12 * n)
    r = fit(games, BTConfig(tolerance_elo=1e-10))
    assert r.converged
    ref = bt_half_mm(games.white.tolist(), games.black.tolist(), games.score.tolist(),
                     games.n_players)
    np.testing.assert_allclose(r.rating, ref, atol=1e-7)


def test_game_order_does_not_matter():
    games = _random_games(5, n=8, g=200)
    perm = np.random.default_rng(0).permutation(games.n_games)
    names = games.players.names
    shuffled = fastrate.Games.from_arrays(names[games.white[perm]], names[games.black[perm]],
                                          games.score[perm])
    for cfg in (BTConfig(advantage="fit", tolerance_elo=1e-10),
                BTConfig(model="bayeselo", advantage="fit", tolerance_elo=1e-10)):
        a, b = fit(games, cfg).as_dict(), fit(shuffled, cfg).as_dict()
        for k in a:
            assert a[k] == pytest.approx(b[k], abs=1e-9)


def test_swapping_colours_mirrors_the_advantage():
    games = _random_games(6, n=8, g=200)
    names = games.players.names
    swapped = fastrate.Games.from_arrays(names[games.black], names[games.white],
                                         1.0 - games.score)
    for cfg in (BTConfig(advantage="fit", tolerance_elo=1e-10),
                BTConfig(model="bayeselo", advantage="fit", tolerance_elo=1e-10)):
        a, b = fit(games, cfg), fit(swapped, cfg)
        assert b.advantage == pytest.approx(-a.advantage, abs=1e-8)
        da, db = a.as_dict(), b.as_dict()
        for k in da:
            assert da[k] == pytest.approx(db[k], abs=1e-8)
        assert b.log_likelihood == pytest.approx(a.log_likelihood, rel=1e-12)


def test_only_wins_and_disconnected_graphs_are_refused():
    only_wins = fastrate.Games.from_arrays(["a", "a", "b", "c"], ["b", "c", "c", "b"],
                                           [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(InputError, match=r"1 of 3 players .*'a'"):
        fit(only_wins)
    two_islands = fastrate.Games.from_arrays(["a", "b", "c", "d"], ["b", "a", "d", "c"],
                                             [1.0, 1.0, 1.0, 1.0])
    with pytest.raises(InputError, match="2 of 4 players"):
        fit(two_islands)


def test_strong_components():
    comp = bt.strong_components(5, np.array([0, 1, 2, 3, 4]), np.array([1, 2, 0, 4, 3]))
    assert comp[0] == comp[1] == comp[2] != comp[3] == comp[4]


def test_config_validation():
    with pytest.raises(ConfigError):
        BTConfig(model="elo")
    with pytest.raises(ConfigError):
        BTConfig(drawelo=0.0)
    games = fastrate.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0])
    with pytest.raises(InputError, match="without draws"):
        fit(games, BTConfig(model="bayeselo"))


def test_anchor_and_mean():
    games = _random_games(8)
    r = fit(games, BTConfig(mean_rating=1500.0))
    assert r.rating.mean() == pytest.approx(1500.0)
    a = fit(games, BTConfig(anchor="p0", mean_rating=2000.0)).as_dict()
    assert a["p0"] == pytest.approx(2000.0)


def _football():
    if not (ORACLES / f"{STEM}.pgn").exists():
        pytest.skip("bt_oracles reference data not present")
    from fastrate.io.pgn_games import read_pgn
    return read_pgn(ORACLES / f"{STEM}.pgn")


def test_bt_half_equals_ordo_on_the_elo_scale():
    """Ordo 1.2.6 ``-a 0 -W -D -z 200.2409...`` (the Elo logistic scale): its ratings are
    the bt_half MLE with a fitted white advantage (Ordo's -D draw rate only feeds its
    error bars), mean 0. Ordo prints 4 decimals and stops at its own tolerance."""
    games = _football()
    r = fit(games, BTConfig(advantage="fit"))
    assert r.converged
    path = ORACLES / f"ordo_{STEM}_WD_eloscale.csv"
    with path.open() as fh:
        ordo = {row["PLAYER"]: float(row["RATING"]) for row in csv.DictReader(fh)}
    mine = r.as_dict()
    assert len(ordo) == len(mine) == 270
    assert max(abs(mine[k] - v) for k, v in ordo.items()) <= 0.01
    assert r.advantage == pytest.approx(95.8, abs=0.05)  # "White Advantage = 95.8"


def test_bayeselo_equals_bayeselo_mm11():
    """BayesElo ``mm 1 1`` (advantage and drawelo fitted, prior 2 virtual draws): the
    fitted values agree to its printed 3 decimals; its printed ratings are ours times
    its scale ``4 f(drawelo)(1 - f(drawelo))`` (the slope of the expected score at 0),
    rounded to integers: within 1 Elo."""
    games = _football()
    r = fit(games, BTConfig(model="bayeselo", advantage="fit", prior=2.0))
    assert r.converged
    assert r.advantage == pytest.approx(102.715, abs=0.002)
    assert r.drawelo == pytest.approx(124.787, abs=0.002)
    f = 1.0 / (1.0 + 10.0 ** (-r.drawelo / 400.0))
    scale = 4.0 * f * (1.0 - f)
    be = {}
    lines = (ORACLES / f"be_{STEM}_mm11.txt").read_text().splitlines()[1:]
    for line in lines:
        m = re.match(r"\s*\d+ (.+?)\s+(-?\d+)\s+\d+\s+\d+\s+\d+", line)
        be[m.group(1)] = float(m.group(2))
    mine = r.as_dict()
    assert len(be) == 270
    assert max(abs(scale * mine[k] - v) for k, v in be.items()) <= 1.0
    assert not math.isnan(r.log_likelihood)


def test_cli_batch_fits_and_writes(tmp_path):
    """`fastrate batch` fits a PGN with a fitted advantage; the written table holds the
    same ratings as fit(), anchored; bad options and a disconnected graph are one line."""
    import pyarrow.csv as pacsv
    from click.testing import CliRunner

    from fastrate.cli import main

    pgn = ORACLES / f"{STEM}.pgn"
    if not pgn.exists():
        pytest.skip("the bt_oracles data is not here")
    out = tmp_path / "fit.csv"
    res = CliRunner().invoke(main, ["batch", str(pgn), "--advantage", "fit",
                                    "--anchor", "Brazil=2000", "-o", str(out), "--top", "3"])
    assert res.exit_code == 0, res.output
    table = pacsv.read_csv(out)
    assert table.column_names == ["player", "rating", "games", "score", "draws"]
    games = fastrate.read_pgn(pgn)
    want = bt.fit(games, bt.BTConfig(advantage="fit", anchor="Brazil", mean_rating=2000.0))
    got = dict(zip(table.column("player").to_pylist(), table.column("rating").to_pylist()))
    assert got["Brazil"] == pytest.approx(2000.0)
    for name in ("Spain", "Germany", "Japan"):
        assert got[name] == pytest.approx(want.rating[want.players.id_of(name)], abs=1e-9)
    res = CliRunner().invoke(main, ["batch", str(pgn), "--advantage", "x"])
    assert res.exit_code == 1 and "--advantage must be a number of Elo or 'fit'" in res.output
    res = CliRunner().invoke(main, ["batch", "--example", "football"])
    assert res.exit_code == 1 and res.output.count("\n") == 1
    assert "outside the largest strongly connected component" in res.output


def test_largest_component_and_the_prior_connect_what_they_can():
    """Ordo's choice: rate the largest strongly connected component (players left out
    named), or add BayesElo's prior, which links every pair that met but cannot place
    players who never met the rest."""
    import fastrate

    # a, b, c play each other; d only loses to a; x and y only play each other
    g = fastrate.Games.from_arrays(["a", "b", "c", "a", "x"], ["b", "c", "a", "d", "y"],
                                   [1.0, 0.5, 1.0, 1.0, 1.0])
    with pytest.raises(InputError, match=r"3 of 6 players are outside .* 'd', 'x', 'y'; rate "
                       r"the largest component alone .* or add a prior"):
        fit(g)
    kept, left = bt.largest_component(g)
    assert kept.n_games == 3 and sorted(left.tolist()) == ["d", "x", "y"]
    assert fit(kept).converged
    with pytest.raises(InputError, match=r"2 of 6 players .*never met the rest"):
        fit(g, BTConfig(prior=2.0))
    kept, left = bt.largest_component(g, prior=2.0)
    assert kept.n_games == 4 and sorted(left.tolist()) == ["x", "y"]
    r = fit(kept, BTConfig(prior=2.0))
    assert r.converged and np.isfinite(r.rating).all()
    assert r.rating[r.players.id_of("d")] < r.rating[r.players.id_of("a")]
