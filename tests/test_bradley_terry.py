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
from reference.bradley_terry import bt_half_mm, davidson_fixed_point, game_log_likelihood

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
                                                    ("bayeselo", True, False),
                                                    ("davidson", True, True),
                                                    ("davidson", False, True),
                                                    ("davidson", True, False)])
def test_gradient_and_hessian_vector_against_finite_differences(model, fit_adv, fit_draw):
    games = _random_games(3)
    pairs, args, theta, ia, idr = _theta_setup(games, model, fit_adv, fit_draw)
    bayes = bt.MODELS.index(model)
    prec = np.zeros(theta.shape[0])
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
    bt._hessian_vector(pairs.white, pairs.black, pairs.advantaged, mxx, mxd, mdd, ia, idr, prec,
                       v, hv)
    fd_hv = -(gr(theta + h * v) - gr(theta - h * v)) / (2 * h)
    np.testing.assert_allclose(hv, fd_hv, rtol=1e-5, atol=1e-9)
    full = np.array([bt._hessian_vector(pairs.white, pairs.black, pairs.advantaged, mxx, mxd,
                                        mdd, ia, idr, prec, e, hv) or hv.copy() for e in eye])
    np.testing.assert_allclose(np.diag(full), diag, rtol=1e-12, atol=1e-15)
    # the block product (3 vectors at once) and the dense matrix agree with it
    vs = np.random.default_rng(4).normal(size=(3, size))
    out = np.empty(size * 3)
    bt._hessian_block(pairs.white, pairs.black, pairs.advantaged, mxx, mxd, mdd, ia, idr, prec,
                      3, vs.reshape(-1), out)
    np.testing.assert_allclose(out.reshape(3, size), vs @ full, rtol=1e-10, atol=1e-14)
    prob = bt._Problem(pairs, games.n_players, bayes, ia, idr, 25.0, 70.0, prec, prec, True)
    dense = bt._dense_information(prob, (grad, diag, mxx, mxd, mdd))
    np.testing.assert_allclose(dense, full.T, rtol=1e-10, atol=1e-14)


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
    assert table.column_names == ["player", "rating", "se", "ci_half_width", "games", "score",
                                  "draws", "opponent_rating"]
    games = fastrate.read_pgn(pgn)
    want = bt.fit(games, bt.BTConfig(advantage="fit", anchor="Brazil", mean_rating=2000.0))
    got = dict(zip(table.column("player").to_pylist(), table.column("rating").to_pylist()))
    assert got["Brazil"] == pytest.approx(2000.0)
    for name in ("Spain", "Germany", "Japan"):
        assert got[name] == pytest.approx(want.rating[want.players.id_of(name)], abs=1e-9)
    se = dict(zip(table.column("player").to_pylist(), table.column("se").to_pylist()))
    assert se["Brazil"] == 0.0 and se["Spain"] == pytest.approx(
        bt.standard_errors(want).as_dict()["Spain"], rel=1e-9)
    res = CliRunner().invoke(main, ["batch", str(pgn), "--advantage", "x"])
    assert res.exit_code == 1 and "--advantage must be a number or 'fit'" in res.output
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


# ----------------------------------------------------------------------------------
# Davidson's model, predictions, priors and anchors


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 6))
def test_davidson_newton_equals_davidsons_fixed_point(seed, n):
    games = _random_games(seed, n=n, g=15 * n)
    if not (games.score == 0.5).any():
        return
    r = fit(games, BTConfig(model="davidson", tolerance_elo=1e-12))
    assert r.converged and math.isnan(r.drawelo)
    ref, nu = davidson_fixed_point(games.white.tolist(), games.black.tolist(),
                                   games.score.tolist(), games.n_players)
    np.testing.assert_allclose(r.rating, ref, atol=1e-9)
    assert r.draw_nu == pytest.approx(nu, rel=1e-10)


def test_davidson_fixed_nu_and_no_draws():
    games = _random_games(11, draws=False)
    r0 = fit(games, BTConfig(model="davidson", draw_nu=0.0, tolerance_elo=1e-10))
    plain = fit(games, BTConfig(tolerance_elo=1e-10))  # no draws: ν = 0 is plain BT
    np.testing.assert_allclose(r0.rating, plain.rating, atol=1e-8)
    with pytest.raises(InputError, match="draw_nu cannot be fitted without draws"):
        fit(games, BTConfig(model="davidson"))
    drawn = _random_games(12)
    with pytest.raises(InputError, match="draw_nu=0 gives draws probability 0"):
        fit(drawn, BTConfig(model="davidson", draw_nu=0.0))
    with pytest.raises(ConfigError):
        BTConfig(model="davidson", draw_nu=-1.0)


@pytest.mark.parametrize("model", ["bt_half", "bayeselo", "davidson"])
def test_predict_gives_the_models_probabilities(model):
    games = _random_games(13, n=5, g=150)
    r = fit(games, BTConfig(model=model, advantage="fit"))
    names = r.players.names
    w, d, lo = bt.predict(r, names[[0, 1, 2]], names[[1, 2, 0]], neutral=[False, True, False])
    for k, (a, b, neutral) in enumerate([(0, 1, False), (1, 2, True), (2, 0, False)]):
        x = r.rating[a] - r.rating[b] + (0.0 if neutral else r.advantage)
        if model == "bt_half":
            want = (1 / (1 + 10 ** (-x / 400)), 0.0)
            want = (want[0], 0.0, 1 - want[0])
        elif model == "bayeselo":
            pw = 1 / (1 + 10 ** (-(x - r.drawelo) / 400))
            pl = 1 / (1 + 10 ** ((x + r.drawelo) / 400))
            want = (pw, 1 - pw - pl, pl)
        else:
            pa = 10 ** ((r.rating[a] + (0.0 if neutral else r.advantage)) / 400)
            pb = 10 ** (r.rating[b] / 400)
            den = pa + pb + r.draw_nu * math.sqrt(pa * pb)
            want = (pa / den, r.draw_nu * math.sqrt(pa * pb) / den, pb / den)
        assert (w[k], d[k], lo[k]) == pytest.approx(want, rel=1e-12, abs=1e-15)


def _ref_gradient(model, games, theta, n, fit_adv, fit_draw, adv=0.0, draw=0.0, h=1e-4):
    """Finite-difference gradient of the reference log-likelihood."""
    def ll(t):
        a = t[n] if fit_adv else adv
        d = t[n + int(fit_adv)] if fit_draw else draw
        return game_log_likelihood(model, t[:n], a, d, games.white.tolist(),
                                   games.black.tolist(), games.score.tolist())
    eye = np.eye(theta.shape[0])
    return np.array([(ll(theta + h * e) - ll(theta - h * e)) / (2 * h) for e in eye]), ll


def test_gaussian_prior_is_the_map():
    """The MAP's stationarity: the reference log-likelihood's gradient equals the prior's
    pull ``(R - mean) / sd^2``; a dict prior on one player fixes the level."""
    games = _random_games(14, n=5, g=60)
    n = games.n_players
    r = fit(games, BTConfig(model="bayeselo", gaussian_prior=(100.0, 150.0),
                            tolerance_elo=1e-10))
    theta = np.append(r.rating, r.drawelo)
    grad, _ = _ref_gradient("bayeselo", games, theta, n, False, True)
    np.testing.assert_allclose(grad[:n], (r.rating - 100.0) / 150.0 ** 2, atol=1e-7)
    assert abs(grad[n]) < 1e-7
    one = fit(games, BTConfig(gaussian_prior={"p1": (1500.0, 1e-3)}, tolerance_elo=1e-10))
    free = fit(games, BTConfig(tolerance_elo=1e-10))
    assert one.as_dict()["p1"] == pytest.approx(1500.0, abs=1e-3)
    diff = one.rating - free.rating
    np.testing.assert_allclose(diff, diff[0], atol=1e-6)  # same differences
    with pytest.raises(ConfigError, match="fixes the level"):
        BTConfig(gaussian_prior=(0.0, 100.0), anchor="p1")
    with pytest.raises(ConfigError, match="sd"):
        BTConfig(gaussian_prior=(0.0, 0.0))
    # a prior on every player: even data without a maximum-likelihood estimate
    only_wins = fastrate.Games.from_arrays(["a", "a"], ["b", "c"], [1.0, 1.0])
    r = fit(only_wins, BTConfig(gaussian_prior=(0.0, 200.0)))
    assert r.converged and r.rating[0] > 0 > r.rating[1]


def test_virtual_games_seed_a_player():
    """The computer-go seed: 2 virtual wins and 1 loss of Mogo_16 against Mogo_15 before
    any real game; with one real win and one loss that is 3 wins, 2 losses: a gap of
    400 log10(3/2) = 70.4 Elo (bt_half), the same as counting them as real games."""
    real = fastrate.Games.from_arrays(["Mogo_16", "Mogo_15"], ["Mogo_15", "Mogo_16"],
                                      [1.0, 1.0])
    cfg = BTConfig(virtual_games=[("Mogo_16", "Mogo_15", 2, 0, 1)], tolerance_elo=1e-10)
    r = fit(real, cfg).as_dict()
    assert r["Mogo_16"] - r["Mogo_15"] == pytest.approx(400 * math.log10(1.5), abs=1e-8)
    # only the virtual games: 2 of 3 points, 400 log10 2 = 120.4 Elo
    alone = fastrate.Games.from_arrays(["Mogo_16"], ["Mogo_15"], [0.5])
    r = fit(alone, BTConfig(virtual_games=[("Mogo_16", "Mogo_15", 1.5, 0, 1.5)]))
    assert r.rating[0] == pytest.approx(r.rating[1], abs=1e-6)
    with pytest.raises(InputError, match="'nobody' is not a player"):
        fit(real, BTConfig(virtual_games=[("nobody", "Mogo_15", 1, 0, 0)]))
    with pytest.raises(ConfigError, match="row 0"):
        BTConfig(virtual_games=[("a", "b", 0, 0, 0)])


def test_anchor_set_fixes_the_sets_mean():
    games = _random_games(15, n=6)
    free = fit(games, BTConfig(tolerance_elo=1e-10))
    r = fit(games, BTConfig(anchor=["p0", "p2", "p3"], mean_rating=1800.0,
                            tolerance_elo=1e-10))
    d = r.as_dict()
    assert (d["p0"] + d["p2"] + d["p3"]) / 3 == pytest.approx(1800.0)
    diff = r.rating - free.rating
    np.testing.assert_allclose(diff, diff[0], atol=1e-8)
    with pytest.raises(InputError, match="anchor: 'zz'"):
        fit(games, BTConfig(anchor=["p0", "zz"]))


# ----------------------------------------------------------------------------------
# uncertainty


def _reference_covariance(model, games, r, fit_adv, fit_draw, w):
    """The gauge covariance from a finite-difference Hessian of the reference
    log-likelihood and numpy's pseudo-inverse: ``A H^+ A^T``, ``A = I - 1 w^T``."""
    n = games.n_players
    theta = r.rating.copy()
    if fit_adv:
        theta = np.append(theta, r.advantage)
    if fit_draw:
        theta = np.append(theta, r.drawelo if model == "bayeselo"
                          else 400 * math.log10(r.draw_nu))
    size = theta.shape[0]
    h = 1e-2
    _, ll = _ref_gradient(model, games, theta, n, fit_adv, fit_draw, adv=r.advantage)
    eye = np.eye(size)
    hess = np.empty((size, size))
    for i in range(size):
        for j in range(i, size):
            a, b = h * eye[i], h * eye[j]
            hess[i, j] = hess[j, i] = -(ll(theta + a + b) - ll(theta + a - b)
                                        - ll(theta - a + b) + ll(theta - a - b)) / (4 * h * h)
    cov = np.linalg.pinv(hess, rcond=1e-12, hermitian=True)
    a = np.eye(size)
    if w is not None:
        a[:n, :n] -= np.outer(np.ones(n), w)
    return a @ cov @ a.T


@pytest.mark.parametrize("model,fit_adv,anchor", [("bt_half", True, None),
                                                  ("bayeselo", True, "p1"),
                                                  ("bayeselo", False, ("p0", "p4")),
                                                  ("davidson", True, None),
                                                  ("davidson", False, "p2")])
def test_standard_errors_equal_the_pseudo_inverse(model, fit_adv, anchor):
    games = _random_games(16, n=5, g=70)
    cfg = BTConfig(model=model, advantage="fit" if fit_adv else 0.0, anchor=anchor,
                   tolerance_elo=1e-11)
    r = fit(games, cfg)
    n = games.n_players
    w = bt._gauge(r.players, cfg)
    fit_draw = model != "bt_half"
    ref = _reference_covariance(model, games, r, fit_adv, fit_draw, w)
    se = bt.standard_errors(r)
    np.testing.assert_allclose(se.rating, np.sqrt(np.maximum(np.diag(ref)[:n], 0)),
                               rtol=1e-5, atol=1e-6)
    if anchor == "p1":
        assert se.as_dict()["p1"] == 0.0
    if fit_adv:
        assert se.advantage == pytest.approx(math.sqrt(ref[n, n]), rel=1e-5)
    else:
        assert math.isnan(se.advantage)
    k = n + int(fit_adv)
    if model == "bayeselo":
        assert se.drawelo == pytest.approx(math.sqrt(ref[k, k]), rel=1e-5)
    if model == "davidson":
        assert se.draw_nu == pytest.approx(bt.C * r.draw_nu * math.sqrt(ref[k, k]), rel=1e-5)
    for method in ("dense", "cg"):
        cov = bt.covariance(r, method=method)
        np.testing.assert_allclose(cov, ref[:n, :n], rtol=1e-5, atol=1e-6 * np.abs(ref).max())
    sub = bt.covariance(r, ["p3", "p1"], method="cg")
    ids = [r.players.id_of("p3"), r.players.id_of("p1")]
    np.testing.assert_allclose(sub, ref[np.ix_(ids, ids)], rtol=1e-5,
                               atol=1e-6 * np.abs(ref).max())
    lo, hi = se.interval(0.95)
    np.testing.assert_allclose(hi - r.rating, 1.959963984540054 * se.rating, rtol=1e-12)
    # the likelihood of superiority from the same covariance
    names, m = bt.los(r, top=3)
    ids = [r.players.id_of(x) for x in names]
    assert (np.diff(r.rating[ids]) <= 0).all()
    for a in range(3):
        for b in range(3):
            if a == b:
                assert math.isnan(m[a, b])
                continue
            i, j = ids[a], ids[b]
            sd = math.sqrt(ref[i, i] + ref[j, j] - 2 * ref[i, j])
            want = 0.5 * math.erfc(-(r.rating[i] - r.rating[j]) / sd / math.sqrt(2))
            assert m[a, b] == pytest.approx(want, rel=1e-5)


def test_standard_errors_with_a_gaussian_prior_and_conditional():
    games = _random_games(17, n=5, g=70)
    r = fit(games, BTConfig(gaussian_prior=(0.0, 100.0), tolerance_elo=1e-11))
    n = games.n_players
    ref = _reference_covariance("bt_half", games, r, False, False, None)
    prior = np.eye(n) / 100.0 ** 2
    want = np.linalg.inv(np.linalg.pinv(ref) + prior)  # the prior's curvature added
    se = bt.standard_errors(r)
    np.testing.assert_allclose(se.rating, np.sqrt(np.diag(want)), rtol=1e-5)
    cond = bt.standard_errors(r, method="conditional")
    hess = np.linalg.inv(want)
    np.testing.assert_allclose(cond.rating, 1 / np.sqrt(np.diag(hess)), rtol=1e-5)
    assert cond.method == "conditional"


def test_bootstrap_is_deterministic_and_near_the_exact_errors():
    games = _random_games(18, n=6, g=600)
    r = fit(games, BTConfig(model="bayeselo", advantage="fit"))
    one = bt.bootstrap(r, samples=40, seed=3, workers=1)
    two = bt.bootstrap(r, samples=40, seed=3, workers=2)
    assert one.n_samples == two.n_samples == 40
    np.testing.assert_array_equal(one.rating, two.rating)
    assert one.advantage == two.advantage and one.drawelo == two.drawelo
    exact = bt.standard_errors(r)
    ratio = one.rating / exact.rating
    assert 0.6 < ratio.min() and ratio.max() < 1.5, ratio
    other = bt.bootstrap(r, samples=40, seed=4, workers=2)
    assert not np.array_equal(one.rating, other.rating)


def test_cli_batch_davidson_los_and_anchor_set(tmp_path):
    """`--model davidson --draw fit`, an anchor set `A,B=ELO`, the ± column (95% half-width
    of the exact standard errors) and `--los N` printed after the table."""
    from click.testing import CliRunner

    from fastrate.cli import main

    games = _random_games(19, n=6, g=200)
    path = tmp_path / "g.csv"
    names = games.players.names
    rows = ["white,black,score"] + [f"{names[w]},{names[b]},{s}" for w, b, s in
                                    zip(games.white, games.black, games.score)]
    path.write_text("\n".join(rows) + "\n")
    res = CliRunner().invoke(main, ["batch", str(path), "--model", "davidson", "--draw", "fit",
                                    "--anchor", "p0,p1=1500", "--los", "3", "--top", "6"])
    assert res.exit_code == 0, res.output
    want = fit(games, BTConfig(model="davidson", anchor=["p0", "p1"], mean_rating=1500.0))
    se = bt.standard_errors(want)
    best = int(np.argmax(want.rating))
    line = next(x for x in res.output.splitlines() if x.startswith("1 "))
    assert f"{want.rating[best]:.1f}" in line and f"{1.959964 * se.rating[best]:.1f}" in line
    assert f"nu {want.draw_nu:.4f}" in res.output
    assert "likelihood of superiority" in res.output
    lines = res.output.splitlines()
    k = lines.index(next(x for x in lines if x.startswith("likelihood of superiority")))
    assert len(lines) - k == 5  # title, heads, 3 rows


def test_conditional_los_uses_the_two_by_two_blocks():
    games = _random_games(20, n=5, g=80)
    r = fit(games, BTConfig(model="bayeselo", advantage="fit"))
    prob, cur, _ = bt._information(r, None)
    full = bt._dense_information(prob, cur)
    names, m = bt.los(r, top=4, method="conditional")
    ids = [r.players.id_of(x) for x in names]
    for a in range(4):
        for b in range(4):
            if a != b:
                i, j = ids[a], ids[b]
                block = full[np.ix_([i, j], [i, j])]
                var = np.array([1.0, -1.0]) @ np.linalg.inv(block) @ np.array([1.0, -1.0])
                want = 0.5 * math.erfc(-(r.rating[i] - r.rating[j]) / math.sqrt(2 * var))
                assert m[a, b] == pytest.approx(want, rel=1e-10)


@pytest.mark.parametrize("model", ["bayeselo", "davidson"])
def test_a_draw_parameter_running_off_is_refused(model):
    """a beats b every time, b and c always draw, a and c split wins and draws: strongly
    connected, yet the draw models' likelihood rises forever (a far above b and c, the draw
    parameter to infinity)."""
    g = fastrate.Games.from_arrays(["a", "b", "c"] * 4, ["b", "c", "a"] * 4,
                                   [1.0, 0.5, 0.5, 1.0, 0.5, 0.0] * 2)
    with pytest.raises(InputError, match=f"the {model} model does not exist"):
        fit(g, BTConfig(model=model))
    assert fit(g).converged  # bt_half has its maximum


def test_blocked_triangular_inverse():
    rng = np.random.default_rng(0)
    for n in (3, 65, 700):
        a = rng.normal(size=(n, n))
        low = np.linalg.cholesky(a @ a.T + n * np.eye(n))
        inv = bt._lower_inverse(low)
        assert np.abs(np.triu(inv, 1)).max() == 0.0
        np.testing.assert_allclose(inv @ low, np.eye(n), atol=1e-12)


def test_exact_errors_agree_with_the_cg_covariance_on_many_players():
    """Dense (blocked) and conjugate-gradient paths on 150 players, anchored at a set."""
    games = _random_games(21, n=150, g=6000)
    r = fit(games, BTConfig(model="bayeselo", advantage="fit", anchor=["p1", "p2"]))
    se = bt.standard_errors(r)
    names = r.players.names[:40]
    cov = bt.covariance(r, names, method="cg")
    np.testing.assert_allclose(np.sqrt(np.diag(cov)), se.rating[:40], rtol=1e-7)
    dense = bt.covariance(r, names, method="dense")
    np.testing.assert_allclose(cov, dense, rtol=1e-6, atol=1e-8 * np.abs(dense).max())


def test_cli_gaussian_prior_and_virtual_games(tmp_path):
    """Issue 12: the Gaussian prior and the virtual games of the computer-go seeding from
    the command line give the API's fit."""
    import json

    from click.testing import CliRunner

    from fastrate.cli import main

    path = tmp_path / "g.csv"
    path.write_text("white,black,score\na,b,1\nb,c,0.5\nc,a,0\na,c,1\nb,a,0\n")
    out = CliRunner().invoke(main, ["batch", str(path), "--gaussian-prior", "0:300",
                                    "--virtual", "c,a,1,0,1", "--format", "json"])
    assert out.exit_code == 0, out.output
    got = {r["player"]: r["rating"] for r in json.loads(out.stdout)}
    want = fit(fastrate.read_games(path), BTConfig(gaussian_prior=(0.0, 300.0),
                                                   virtual_games=(("c", "a", 1, 0, 1),)))
    assert got == pytest.approx({n: want.rating[i] for i, n in
                                 enumerate(want.players.names.tolist())}, abs=1e-9)
    plain = fit(fastrate.read_games(path), BTConfig(gaussian_prior=(0.0, 300.0)))
    assert abs(plain.rating[0] - want.rating[0]) > 1.0  # the virtual games count
    out = CliRunner().invoke(main, ["batch", str(path), "--gaussian-prior", "a=100:50",
                                    "--gaussian-prior", "b=0:50", "--gaussian-prior",
                                    "c=-50:80", "--format", "json"])
    assert out.exit_code == 0, out.output
    bad = CliRunner().invoke(main, ["batch", str(path), "--virtual", "a,b,1"])
    assert bad.exit_code != 0 and "--virtual must be PLAYER,OPPONENT" in bad.output


# ----------------------------------------------------------------------------------
# the TCEC archive: real engine games, a large White advantage, many draws, and groups
# of engines that never met


TCEC = Path(__file__).resolve().parents[2] / "shared" / "data" / "chess_tcec"


def _tcec():
    path = TCEC / "tcec_standard.pgn.gz"
    if not path.exists():
        pytest.skip(f"TCEC data not found at {path}")
    return fastrate.read_pgn(path)


def test_tcec_connectivity_report():
    """1,865 engines in 76 groups that never met (the largest 1,635 engines); 340 are
    outside the largest strongly connected component of the 'scored against' graph, so
    the maximum-likelihood fit is refused, naming them, and with a prior the 230 that
    never met the main group still are."""
    g = _tcec()
    met = bt._pair_components(g.n_players, bt.add_prior(bt.condense(g), g.n_players, 1.0))
    assert np.unique(met).size == 76 and np.bincount(met).max() == 1635
    with pytest.raises(InputError, match="340 of 1865 players are outside the largest"):
        fit(g, BTConfig(model="bayeselo", advantage="fit"))
    with pytest.raises(InputError, match="230 of 1865 players .*never met the rest"):
        fit(g, BTConfig(model="bayeselo", advantage="fit", prior=2.0))
    kept, left_out = bt.largest_component(g)
    assert (kept.n_players, kept.n_games, left_out.size) == (1525, 19142, 340)


def test_tcec_bayeselo_fit_with_advantage_and_drawelo_reaches_the_maximum():
    """The BayesElo model with advantage and drawelo fitted on the largest component: it
    converges (uncapped Newton steps once threw a two-game engine 2,241 then 43,473 Elo
    into the logistic's flat tail and stopped), to the limit of the fits with a
    vanishing prior, and no small move of the ratings, the advantage or drawelo raises
    the games' log-likelihood (the slow reference formula, game by game)."""
    kept, _ = bt.largest_component(_tcec())
    config = BTConfig(model="bayeselo", advantage="fit", drawelo="fit")
    r = fit(kept, config)
    assert r.converged
    assert r.advantage == pytest.approx(127.08, abs=0.01)
    assert r.drawelo == pytest.approx(328.82, abs=0.01)
    tiny_prior = fit(kept, BTConfig(model="bayeselo", advantage="fit", drawelo="fit",
                                    prior=1e-6))
    assert np.abs(tiny_prior.rating - r.rating).max() < 0.01
    args = (kept.white.tolist(), kept.black.tolist(), kept.score.tolist())
    best = game_log_likelihood("bayeselo", r.rating.tolist(), r.advantage, r.drawelo, *args)
    assert best == pytest.approx(r.log_likelihood, rel=1e-9)
    rng = np.random.default_rng(12)
    moves = [(rng.standard_normal(kept.n_players), 0.0, 0.0) for _ in range(4)]
    moves += [(np.zeros(kept.n_players), d, 0.0) for d in (-1.0, 1.0)]
    moves += [(np.zeros(kept.n_players), 0.0, d) for d in (-1.0, 1.0)]
    for dr, da, dd in moves:
        dr = dr / max(np.abs(dr).max(), 1e-300)
        moved = game_log_likelihood("bayeselo", (r.rating + dr).tolist(), r.advantage + da,
                                    r.drawelo + dd, *args)
        assert moved < best


def test_batch_cli_warns_and_skips_the_errors_of_a_fit_that_did_not_converge(monkeypatch):
    """Without the step cap the TCEC fit above stops unconverged: the CLI says so on
    stderr and prints no standard errors or LOS for ratings that are not the maximum."""
    from click.testing import CliRunner

    from fastrate.cli import main

    if not (TCEC / "tcec_standard.pgn.gz").exists():
        pytest.skip("TCEC data not found")
    monkeypatch.setattr(bt, "MAX_STEP_ELO", math.inf)
    r = CliRunner().invoke(main, ["batch", str(TCEC / "tcec_standard.pgn.gz"), "--model",
                                  "bayeselo", "--advantage", "fit", "--largest-component",
                                  "--los", "5", "--top", "3"])
    assert r.exit_code == 0, r.output
    assert "fastrate: warning: the bayeselo fit did NOT converge" in r.output
    assert "likelihood of superiority (%)" not in r.output and "±" not in r.output
