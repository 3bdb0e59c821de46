"""Issue 12: the certified series for the standard errors and the likelihood of
superiority (fastrate/ratings/_bt_uncertainty.py) against the dense exact path."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bradley_terry import _football
from test_bradley_terry import _random_games as _games  # BayesElo-model pairings

import fastrate
from fastrate.errors import InputError
from fastrate.ratings import _bt_uncertainty as U
from fastrate.ratings import bradley_terry as bt
from fastrate.ratings.bradley_terry import BTConfig, fit

CONFIGS = {
    "bt_half mean": BTConfig(),
    "bt_half adv anchor": BTConfig(advantage="fit", anchor="p3"),
    "bayeselo adv+drawelo": BTConfig(model="bayeselo", advantage="fit"),
    "bayeselo anchor set": BTConfig(model="bayeselo", advantage="fit", anchor=["p0", "p5"],
                                    mean_rating=1500.0),
    "bayeselo fixed drawelo prior": BTConfig(model="bayeselo", drawelo=90.0, prior=2.0),
    "davidson adv+nu": BTConfig(model="davidson", advantage="fit"),
    "davidson anchor": BTConfig(model="davidson", anchor="p1"),
}


def _check_against_dense(r: bt.BTResult) -> bt.BTErrors:
    s = bt.standard_errors(r, method="series")
    d = bt.standard_errors(r, method="dense")
    assert s.path == "series" and d.path == "dense"
    assert 0.0 < s.rho < U.RHO_MAX and s.bound > 0.0
    err = np.abs(s.rating - d.rating)
    assert err.max() <= s.bound, (err.max(), s.bound)  # the bound is honest
    # the fitted parameters come from the Schur complement (solves only): to rounding
    for a, b in ((s.advantage, d.advantage), (s.drawelo, d.drawelo),
                 (s.draw_nu, d.draw_nu)):
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-8)
    return s


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(20, 70), per=st.integers(40, 120),
       which=st.sampled_from(sorted(CONFIGS)))
def test_series_equals_the_dense_errors_within_its_bound(seed, n, per, which):
    games = _games(seed, n, n * per // 2)
    try:
        r = fit(games, CONFIGS[which])
    except InputError:  # rare: a player without a draw/win on small data
        return
    s = _check_against_dense(r)
    cfg = CONFIGS[which]
    if isinstance(cfg.anchor, str):
        assert s.as_dict()[cfg.anchor] == 0.0


def test_bound_is_honest_where_it_is_loose():
    """Sparser pairings (about 16 opponents each): ρ near 0.5, a bound far above 1e-3
    Elo, still above the actual error on every player."""
    r = fit(_games(4, 400, 3200), BTConfig(model="bayeselo", advantage="fit", prior=2.0))
    s = _check_against_dense(r)
    assert s.rho > 0.4 and s.bound > 1e-3


def test_gaussian_prior_without_deflation():
    """A Gaussian prior: H is invertible, the series runs on A itself (no deflation)."""
    r = fit(_games(5, 60, 2000), BTConfig(gaussian_prior=(0.0, 15.0), advantage="fit"))
    _check_against_dense(r)
    loose = fit(_games(5, 60, 2000), BTConfig(gaussian_prior=(0.0, 1000.0)))
    with pytest.raises(InputError, match="series does not apply"):
        bt.standard_errors(loose, method="series")  # ρ near 1: nothing to gain
    assert bt.standard_errors(loose).path == "dense"


def test_exact_uses_the_series_when_certified(monkeypatch):
    monkeypatch.setattr(bt, "SERIES_MIN_PLAYERS", 0)
    r = fit(_games(6, 80, 8000), BTConfig(model="bayeselo", advantage="fit"))
    e = bt.standard_errors(r)
    assert e.path == "series" and e.method == "exact" and e.bound <= bt.SE_TOLERANCE
    d = bt.standard_errors(r, method="dense")
    assert np.abs(e.rating - d.rating).max() <= e.bound
    # a tolerance below the bound falls back to the dense path
    tight = bt.standard_errors(r, tolerance=e.bound / 2)
    assert tight.path == "dense" and tight.bound == 0.0
    np.testing.assert_array_equal(tight.rating, d.rating)


def test_fallback_on_the_football_data(monkeypatch):
    """17,140 matches of 270 teams in national leagues: a clustered graph (ρ near 1), so
    the series cannot certify anything useful and exact is the dense result."""
    monkeypatch.setattr(bt, "SERIES_MIN_PLAYERS", 0)
    games = _football()
    r = fit(games, BTConfig(model="bayeselo", advantage="fit"))
    e = bt.standard_errors(r)
    d = bt.standard_errors(r, method="dense")
    assert e.path == "dense"
    np.testing.assert_array_equal(e.rating, d.rating)
    assert e.advantage == d.advantage and e.drawelo == d.drawelo
    names, m, info = bt.los(r, top=8, details=True)
    assert info["path"] == "covariance"
    _, want = bt.los(r, top=8, method="dense")
    np.testing.assert_allclose(m, want, rtol=1e-9)


@pytest.mark.parametrize("which", ["bt_half adv anchor", "bayeselo adv+drawelo",
                                   "davidson adv+nu"])
def test_los_series_against_the_dense_covariance(which, monkeypatch):
    r = fit(_games(7, 90, 6000), CONFIGS[which])
    names, m, info = bt.los(r, top=12, method="series", details=True)
    assert info["path"] == "series" and info["bound"] > 0.0
    ids = np.array([r.players.id_of(x) for x in names])
    cov = bt.covariance(r, method="dense")[np.ix_(ids, ids)]
    dg = np.diag(cov)
    sd = np.sqrt(np.maximum(dg[:, None] + dg[None, :] - 2 * cov, 0.0))
    v, _ = U.difference_variances(bt._series_structure(*bt._information(r, None)[:2]), ids)
    off = ~np.eye(12, dtype=bool)
    assert np.abs(np.sqrt(v) - sd)[off].max() <= info["bound"]
    diff = r.rating[ids][:, None] - r.rating[ids][None, :]

    def phi(sd):
        with np.errstate(divide="ignore", invalid="ignore"):
            return 0.5 * np.vectorize(math.erfc)(-diff / (sd * math.sqrt(2)))

    want = phi(sd)
    # P(R_i > R_j) is monotone in the sd: within the values at sd +- bound
    lo, hi = phi(sd - info["bound"]), phi(sd + info["bound"])
    assert (m[off] >= np.minimum(lo, hi)[off] - 1e-15).all()
    assert (m[off] <= np.maximum(lo, hi)[off] + 1e-15).all()
    np.testing.assert_allclose(m[off], want[off], atol=1e-5)
    # exact with the series allowed: the same matrix when the bound is within tolerance
    monkeypatch.setattr(bt, "SERIES_MIN_PLAYERS", 0)
    _, m2, info2 = bt.los(r, top=12, details=True, tolerance=max(info["bound"], 1e-12))
    assert info2["path"] == "series"
    np.testing.assert_array_equal(m2, m)
    _, m3, info3 = bt.los(r, top=12, details=True, tolerance=info["bound"] / 2)
    assert info3["path"] == "covariance"
    np.testing.assert_allclose(m3[off], want[off], atol=1e-9)


def test_moments_are_the_same_bits_for_any_number_of_workers():
    r = fit(_games(8, 700, 40_000), BTConfig(model="bayeselo", advantage="fit"))
    prob, cur, _ = bt._information(r, None)
    s = bt._series_structure(prob, cur)
    one = U.diagonal_moments(s, 1)
    three = U.diagonal_moments(s, 3)
    for a, b in zip(one, three):
        assert a.tobytes() == b.tobytes()
    # against a dense A: the diagonals of A², A³, A⁴
    n = prob.n
    a = np.zeros((n, n))
    rows = np.repeat(np.arange(n), np.diff(s.offsets))
    np.add.at(a, (rows, s.nbr), s.a)
    a2 = a @ a
    np.testing.assert_allclose(one[0], np.diag(a2), rtol=1e-6)
    np.testing.assert_allclose(one[1], np.einsum("ij,ji->i", a2, a), rtol=1e-6)
    np.testing.assert_allclose(one[2], np.einsum("ij,ij->i", a2, a2), rtol=1e-6)
    # u is A's Perron vector (eigenvalue 1) and ρ bounds the rest of the spectrum
    np.testing.assert_allclose(a @ s.u, s.u, atol=1e-12)
    lam = np.linalg.eigvalsh(a - np.outer(s.u, s.u))
    assert np.abs(lam).max() <= s.rho


@pytest.mark.parametrize("which", list(CONFIGS))
def test_parameter_columns_in_one_pass_are_the_hessian_columns(which):
    r = fit(_games(12, 40, 3_000), CONFIGS[which])
    prob, cur, _ = bt._information(r, None)
    n, size = prob.n, prob.size
    cols = np.empty((size, size - n))
    args = (*prob.hargs, cur[2], cur[3], cur[4], prob.ia, prob.idr, prob.prec)
    bt._parameter_columns(*args, cols)
    dense = bt._dense_information(prob, cur)
    for c in range(size - n):
        e, want = np.zeros(size), np.empty(size)
        e[n + c] = 1.0
        bt._hessian_vector(*args, e, want)
        assert cols[:, c].tobytes() == want.tobytes()  # summed exactly as H e
        np.testing.assert_allclose(cols[:, c], dense[:, n + c], rtol=1e-12, atol=1e-12)


def test_neighbour_numbers_in_either_type_give_the_same_bits(monkeypatch):
    # up to 65,536 players the graph stores uint16 neighbours, else int32: the same sums
    r = fit(_games(13, 300, 20_000), BTConfig(model="bayeselo", advantage="fit"))
    assert U.neighbour_dtype(300) == np.uint16 and U.neighbour_dtype(70_000) == np.int32
    got = {}
    for dtype in (np.uint16, np.int32):
        monkeypatch.setattr(U, "NARROW_NEIGHBOURS_MAX", 1 << 16 if dtype == np.uint16 else 0)
        bt._SERIES_CACHE[:] = [None, None]
        se = bt.standard_errors(r, method="series")
        names, m, info = bt.los(r, top=20, method="series", details=True)
        assert bt._SERIES_CACHE[1].nbr.dtype == dtype
        got[dtype] = (se.rating.tobytes(), m.tobytes(), info["bound"])
    assert got[np.uint16] == got[np.int32]


def test_validation():
    r = fit(_games(9, 10, 300))
    with pytest.raises(fastrate.errors.ConfigError):
        bt.standard_errors(r, method="fast")
    with pytest.raises(fastrate.errors.ConfigError):
        bt.standard_errors(r, tolerance=0.0)
    with pytest.raises(fastrate.errors.ConfigError):
        bt.los(r, tolerance=-1.0)


def test_the_structure_cache_serves_only_its_own_result():
    """standard_errors then los (and the reverse) build the series' structure once; a
    different result (here the same games fitted without the advantage) gets its own."""
    games = _games(10, 60, 4000)
    r1 = fit(games, BTConfig(model="bayeselo", advantage="fit"))
    r2 = fit(games, BTConfig(model="bayeselo"))
    fresh1 = bt.standard_errors(r1, method="series")
    bt.los(r1, top=5, method="series")
    again = bt.standard_errors(r1, method="series")
    np.testing.assert_array_equal(again.rating, fresh1.rating)
    other = bt.standard_errors(r2, method="series")
    assert math.isnan(other.advantage)
    bt._SERIES_CACHE[:] = [None, None]
    np.testing.assert_array_equal(bt.standard_errors(r2, method="series").rating,
                                  other.rating)
    _, m, _ = bt.los(r1, top=5, method="series", details=True)  # after r2: rebuilt
    bt._SERIES_CACHE[:] = [None, None]
    np.testing.assert_array_equal(bt.los(r1, top=5, method="series")[1], m)


def test_los_of_many_players_uses_the_covariance(monkeypatch):
    """The series holds two dense top x n arrays: past LOS_SERIES_MAX_CELLS cells, exact
    takes the covariance path."""
    monkeypatch.setattr(bt, "SERIES_MIN_PLAYERS", 0)
    r = fit(_games(11, 80, 6000), BTConfig(model="bayeselo", advantage="fit"))
    assert bt.los(r, top=10, details=True)[2]["path"] == "series"
    monkeypatch.setattr(bt, "LOS_SERIES_MAX_CELLS", 10 * 80 - 1)
    names, m, info = bt.los(r, top=10, details=True)
    assert info["path"] == "covariance"
    np.testing.assert_allclose(m, bt.los(r, top=10, method="dense")[1], rtol=1e-12)


@pytest.mark.parametrize("connected", [True, False])
def test_cli_errors_auto_above_the_dense_limit(tmp_path, monkeypatch, connected):
    """`fastrate batch --errors auto` above AUTO_EXACT players: the certified series when it
    applies within its tolerance (well-connected data: the exact errors), else the
    conditional ones (a chain of players: the series does not apply); never the dense
    O(n^3) path."""
    from click.testing import CliRunner

    import fastrate.cli.batch as cli_batch
    from fastrate.cli import main

    monkeypatch.setattr(cli_batch, "AUTO_EXACT", 10)
    if connected:
        games = _games(5, n=60, g=6000)
    else:  # a chain: every player meets only his neighbours (spectral radius near 1)
        rng = np.random.default_rng(3)
        w = np.repeat(np.arange(39), 30)
        s = (rng.random(w.size) < 0.5).astype(float)
        games = fastrate.Games.from_arrays([f"p{i}" for i in w],
                                           [f"p{i + 1}" for i in w], s)
    names = games.players.names
    path = tmp_path / "g.csv"
    rows = ["white,black,score"] + [f"{names[w]},{names[b]},{s}" for w, b, s in
                                    zip(games.white, games.black, games.score)]
    path.write_text("\n".join(rows) + "\n")
    out = tmp_path / "r.csv"
    res = CliRunner().invoke(main, ["batch", str(path), "-o", str(out)])
    assert res.exit_code == 0, res.output
    import pyarrow.csv as pcsv
    table = pcsv.read_csv(out).to_pydict()
    got = dict(zip(table["player"], table["se"]))
    r = fit(games, BTConfig())
    want = bt.standard_errors(r, method="dense" if connected else "conditional")
    for name, se in zip(r.players.names, want.rating):
        assert got[name] == pytest.approx(se, abs=1e-3 if connected else 1e-9)
    if not connected:  # and they differ from the exact ones here
        exact = bt.standard_errors(r, method="dense")
        assert np.max(np.abs(exact.rating - want.rating)) > 1.0


@pytest.mark.parametrize("which", ["bayeselo adv+drawelo", "bayeselo fixed drawelo prior",
                                   "bt_half mean"])
@pytest.mark.parametrize("guess", ["rating", "none", "constant", "adversarial"])
def test_lanczos_from_any_start_reaches_the_top_of_the_dense_spectrum(which, guess):
    """ρ before the margin is the top |eigenvalue| of Ã (dense) to the Lanczos tolerance,
    whatever the start's guesses: the ratings' spread (the default), none (random only),
    a constant (deflated to nothing when the level is free) and an adversarial one, the
    eigenvector of the second-largest |eigenvalue| (the random part must still find the
    top)."""
    r = fit(_games(21, 150, 12_000), CONFIGS[which])
    prob, cur, _ = bt._information(r, None)
    st = U.structure(prob.n, prob.pairs.white, prob.pairs.black, cur[2], cur[1][:prob.n],
                     prob.project)
    n = prob.n
    a = np.zeros((n, n))
    rows = np.repeat(np.arange(n), np.diff(st.offsets))
    np.add.at(a, (rows, st.nbr), st.a)
    lam, vec = np.linalg.eigh(a - np.outer(st.u, st.u))
    order = np.argsort(-np.abs(lam))
    top = float(np.abs(lam[order[0]]))
    guesses = {"rating": (st.s, st.s * r.rating), "none": (), "constant": (np.ones(n),),
               "adversarial": (vec[:, order[1]],)}[guess]
    lz = U._Lanczos(st, guesses=guesses)
    U._run(st, lz, None)
    assert lz.done and lz.value <= top * (1 + 1e-12)
    assert lz.value >= top * (1 - 1e-4)
    assert np.linalg.norm(U.lanczos_start(st, 1, guesses)) == pytest.approx(1.0)
