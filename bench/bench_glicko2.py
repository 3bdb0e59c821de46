"""Glicko-2 throughput: fastrate against a vectorised NumPy version, the C baseline and
the ``glicko2`` package.

Glicko-2 with rating periods (``small``: 1k players, 20k games, 20 periods;
``large``: 100k players, 2M games, 20 periods; ATP: monthly periods). The NumPy
baseline vectorises each period, including the Illinois volatility solve (all players
of a period iterate together, each stopping at its own tolerance); the C baseline is
the same loop as fastrate's kernel; both are checked against fastrate before their
time counts. The ``glicko2`` package (``Player.update_player`` per player and period)
runs on a 20k-game subsample; its volatility step differs slightly from the paper
(see SPEC §1.3), so its ratings are compared loosely and the difference reported.

    pytest bench/bench_glicko2.py --benchmark-only -m large
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.conftest import HUGE_PARAM, SIZE_PARAMS
from bench.generate import subsample

glicko2 = pytest.importorskip("fastrate.ratings.glicko2")

PEER_GAMES = 20_000
CONFIG = glicko2.Glicko2Config()
NO_PERIOD = np.iinfo(np.int64).min


#: Glicko-2's volatility is the Illinois iteration's bracket end, determined to about
#: ``epsilon``: a last-bit difference in an exp (fastrate's own exp/log against the C
#: library's, or the C library's FMA and non-FMA versions) can make an iteration keep
#: the other end of a bracket narrower than epsilon, so implementations agree to ~1e-7
#: relative on long histories (the ATP file), not to rounding
RTOL = 1e-7


def _rate(games):
    return glicko2.rate(games, CONFIG)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_glicko2_fastrate(throughput, games, size):
    throughput.info.update(implementation="fastrate", size=size)
    result = throughput(lambda: _rate(games), games.n_games)
    assert result.volatility.shape[0] == games.n_players


def _f(x, delta2, phi2, v, a, tau2):
    ex = np.exp(x)
    w = phi2 + v + ex
    return ex * (delta2 - phi2 - v - ex) / (2.0 * w * w) - (x - a) / tau2


def numpy_volatility(sigma, phi2, v, delta, tau, epsilon, max_iterations):
    """Glickman's step 5 (Illinois algorithm) for many players at once; every player
    takes exactly the iterations the scalar algorithm would."""
    a = np.log(sigma * sigma)
    tau2 = tau * tau
    delta2 = delta * delta
    big_a = a.copy()
    big_b = np.empty_like(a)
    above = delta2 > phi2 + v
    big_b[above] = np.log(delta2[above] - phi2[above] - v[above])
    idx = np.flatnonzero(~above)
    k = np.ones(idx.shape[0])
    todo = np.arange(idx.shape[0])
    while todo.shape[0]:
        j = idx[todo]
        neg = _f(a[j] - k[todo] * tau, delta2[j], phi2[j], v[j], a[j], tau2) < 0.0
        k[todo[neg]] += 1.0
        todo = todo[neg]
    big_b[idx] = a[idx] - k * tau
    f_a = _f(big_a, delta2, phi2, v, a, tau2)
    f_b = _f(big_b, delta2, phi2, v, a, tau2)
    act = np.flatnonzero(np.abs(big_b - big_a) > epsilon)
    it = 0
    while act.shape[0] and it < max_iterations:
        it += 1
        ja, jb, fa, fb = big_a[act], big_b[act], f_a[act], f_b[act]
        c = ja + (ja - jb) * fa / (fb - fa)
        fc = _f(c, delta2[act], phi2[act], v[act], a[act], tau2)
        swap = fc * fb <= 0.0
        big_a[act] = np.where(swap, jb, ja)
        f_a[act] = np.where(swap, fb, fa / 2.0)
        big_b[act] = c
        f_b[act] = fc
        act = act[np.abs(c - big_a[act]) > epsilon]
    return np.exp(big_a / 2.0)


def numpy_glicko2(games, cfg=CONFIG) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Glicko-2 with NumPy, one vectorised step per rating period (fastrate's rules:
    ``phi^2 += sigma^2`` per missed period, applied when a player next plays).
    Returns (rating, rd, volatility)."""
    n = games.n_players
    scale = cfg.scale
    rating = np.full(n, float(cfg.initial_rating))
    rd = np.full(n, float(cfg.initial_rd))
    vol = np.full(n, float(cfg.initial_volatility))
    last = np.full(n, NO_PERIOD, dtype=np.int64)
    k3 = 3.0 / (math.pi * math.pi)
    period = games.period if games.period is not None else np.zeros(games.n_games, np.int64)
    cut = np.flatnonzero(period[1:] != period[:-1]) + 1
    bounds = np.concatenate(([0], cut, [games.n_games])).tolist()
    pred = np.empty(games.n_games)
    phi2 = np.empty(n)
    mu = np.empty(n)
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        p = int(period[lo])
        w, b, s = games.white[lo:hi], games.black[lo:hi], games.score[lo:hi]
        t = np.flatnonzero(np.bincount(w, minlength=n) + np.bincount(b, minlength=n))
        ph2 = (rd[t] / scale) ** 2
        lt = last[t]
        gap = np.where(lt != NO_PERIOD, p - np.where(lt != NO_PERIOD, lt, p), 0)
        ph2 = np.where(gap > 1, ph2 + (gap - 1) * vol[t] * vol[t], ph2)
        phi2[t] = ph2
        mu[t] = (rating[t] - 1500.0) / scale
        g_w = 1.0 / np.sqrt(1.0 + k3 * phi2[w])
        g_b = 1.0 / np.sqrt(1.0 + k3 * phi2[b])
        diff = mu[w] - mu[b]
        e_ab = 1.0 / (1.0 + np.exp(-g_b * diff))
        e_ba = 1.0 / (1.0 + np.exp(g_w * diff))
        vsum = (np.bincount(w, g_b * g_b * e_ab * (1.0 - e_ab), minlength=n)
                + np.bincount(b, g_w * g_w * e_ba * (1.0 - e_ba), minlength=n))[t]
        dsum = (np.bincount(w, g_b * (s - e_ab), minlength=n)
                + np.bincount(b, g_w * ((1.0 - s) - e_ba), minlength=n))[t]
        pred[lo:hi] = 1.0 / (1.0 + np.exp(-diff / np.sqrt(1.0 + k3 * (phi2[w] + phi2[b]))))
        sigma = vol[t]
        info = vsum > 0.0
        v = 1.0 / np.where(info, vsum, 1.0)
        solved = numpy_volatility(sigma[info], ph2[info], v[info], v[info] * dsum[info],
                                  cfg.tau, cfg.epsilon, cfg.max_iterations)
        sigma[info] = solved
        new_phi2 = np.where(info, 1.0 / (1.0 / (ph2 + sigma * sigma) + vsum),
                            ph2 + sigma * sigma)
        rating[t] = 1500.0 + scale * (mu[t] + new_phi2 * dsum)
        rd[t] = scale * np.sqrt(new_phi2)
        vol[t] = sigma
        last[t] = p
    return rating, rd, vol


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_glicko2_numpy(throughput, games, size):
    throughput.info.update(implementation="numpy per period", size=size)
    rating, rd, vol = throughput(lambda: numpy_glicko2(games), games.n_games, rounds=3)
    ours = _rate(games)
    np.testing.assert_allclose(rating, ours.rating, rtol=RTOL, atol=1e-7)
    np.testing.assert_allclose(rd, ours.rd, rtol=RTOL, atol=1e-7)
    np.testing.assert_allclose(vol, ours.volatility, rtol=RTOL, atol=1e-9)
    throughput.compare(lambda: _rate(games), games.n_games)


@pytest.mark.parametrize("size", [*SIZE_PARAMS, HUGE_PARAM])
def bench_glicko2_c_baseline(throughput, c_baseline, games, size):
    throughput.info.update(implementation="C -O2", size=size)
    out = {}

    def run():
        out["r"] = c_baseline.run("glicko2", games, f"glicko2_{size}",
                                  [repr(CONFIG.tau), repr(CONFIG.epsilon)],
                                  repeats=3 if throughput.enabled else 1)

    throughput(run, games.n_games, rounds=1, warmup=False)
    gps, seconds, arrays = out["r"]
    ours = _rate(games)
    np.testing.assert_allclose(arrays["rating"], ours.rating, rtol=RTOL, atol=1e-7)
    np.testing.assert_allclose(arrays["rd"], ours.rd, rtol=RTOL, atol=1e-7)
    np.testing.assert_allclose(arrays["volatility"], ours.volatility, rtol=RTOL, atol=1e-9)
    if throughput.enabled:
        throughput.set_rate(gps, seconds, "C loop timed with clock_gettime, best of 3")
        throughput.compare(lambda: _rate(games), games.n_games)


def glicko2_package(games, players):
    """The ``glicko2`` package: per rating period, every player who played gets one
    ``update_player`` with his opponents' pre-period ratings and RDs; a player who
    sat out periods first gets ``did_not_compete()`` once per missed period."""
    white, black = games.white.tolist(), games.black.tolist()
    score, period = games.score.tolist(), games.period.tolist()
    last: dict[int, int] = {}
    n = len(white)
    i = 0
    while i < n:
        p = period[i]
        j = i
        while j < n and period[j] == p:
            j += 1
        involved = set(white[i:j]) | set(black[i:j])
        for x in involved:
            if x in last:
                for _ in range(p - last[x] - 1):
                    players[x].did_not_compete()
        pre = {x: (players[x].rating, players[x].rd) for x in involved}
        opp: dict[int, tuple[list, list, list]] = {}
        for g in range(i, j):
            a, b, s = white[g], black[g], score[g]
            ra, da = pre[a]
            rb, db = pre[b]
            la = opp.setdefault(a, ([], [], []))
            la[0].append(rb)
            la[1].append(db)
            la[2].append(s)
            lb = opp.setdefault(b, ([], [], []))
            lb[0].append(ra)
            lb[1].append(da)
            lb[2].append(1.0 - s)
        for x, (r, d, o) in opp.items():
            players[x].update_player(r, d, o)
            last[x] = p
        i = j
    return players


@pytest.mark.parametrize("size", [pytest.param("small"),
                                  pytest.param("large", marks=pytest.mark.large)])
def bench_glicko2_package(throughput, games, size):
    package = pytest.importorskip("glicko2")
    sub = subsample(games, PEER_GAMES)
    throughput.info.update(implementation="glicko2 package (Player.update_player)",
                           size=size, subsample=sub.n_games)
    used = np.union1d(sub.white, sub.black).tolist()

    def fresh():
        return (sub, {p: package.Player(rating=1500.0, rd=350.0, vol=0.06) for p in used})

    players = throughput(glicko2_package, sub.n_games, setup=fresh, rounds=3)
    ours = _rate(sub)
    theirs = np.array([players[p].rating for p in used])
    diff = float(np.max(np.abs(theirs - ours.rating[used])))
    throughput.info["max_abs_diff"] = diff
    # the package's volatility step is not the paper's: close, not equal
    assert diff < 5.0, diff
    throughput.compare(lambda: _rate(sub), sub.n_games)


@pytest.fixture(scope="module")
def scalar_volatility():
    """The scalar Illinois iteration, compiled (the block solver's readable reference)."""
    from numba import njit

    from fastrate._vecmath import exp, log
    from fastrate.ratings._steps import volatility_f

    def scalar_volatility(sigma, phi2, v, delta, tau, inv_tau2, exp_mtau, epsilon, max_iterations):
        """Glickman's step 5 (the Illinois algorithm of the 2013+ paper) for one player;
        returns ``(sigma'^2, converged)``. The kernel runs the same steps for a block of
        players at once (``fastrate.ratings._steps.solve_block``), with the same results;
        this scalar version is their readable reference (checked bit for bit below).

        The same steps as the paper, with exponentials the algorithm already knows not
        recomputed: ``e^A = sigma^2`` at the start; ``e^B = Delta^2 - phi^2 - v`` when ``B`` is
        its log (so the first term of ``f(B)`` vanishes); ``e^(a - k tau)`` by repeated
        multiplication with ``exp_mtau = e^-tau``; ``f(B)`` of the bracket search is reused;
        the result ``sigma'^2 = e^A`` is the ``e^x`` computed for the final ``A``.
        """
        s2 = sigma * sigma
        a = log(s2)
        d = delta * delta - phi2 - v
        w0 = phi2 + v
        big_a = a
        ex_a = s2
        f_a = volatility_f(a, s2, a, d, w0, inv_tau2)
        if d > 0.0:
            big_b = log(d)
            ex_b = d
            f_b = -(big_b - a) * inv_tau2
        else:
            k = 1.0
            ex_b = s2 * exp_mtau
            f_b = volatility_f(a - tau, ex_b, a, d, w0, inv_tau2)
            while f_b < 0.0:
                k += 1.0
                ex_b *= exp_mtau
                f_b = volatility_f(a - k * tau, ex_b, a, d, w0, inv_tau2)
            big_b = a - k * tau
        it = 0
        while abs(big_b - big_a) > epsilon:
            if it >= max_iterations:
                # not converged: keep the newest iterate (the paper's A is the bracket end
                # kept for the sign change, which may still be far from the root)
                return ex_b, False
            it += 1
            big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
            ex_c = exp(big_c)
            f_c = volatility_f(big_c, ex_c, a, d, w0, inv_tau2)
            if f_c * f_b <= 0.0:
                big_a = big_b
                ex_a = ex_b
                f_a = f_b
            else:
                f_a = f_a / 2.0
            big_b = big_c
            ex_b = ex_c
            f_b = f_c
        return ex_a, True

    return njit(error_model="numpy")(scalar_volatility)


def test_block_solver_matches_scalar(scalar_volatility):
    """The kernel's block-wise (vectorised) volatility solver gives bit for bit the
    results of the scalar Illinois iteration, converged or not."""
    from numba import njit

    from fastrate.ratings._steps import W_ROWS, solve_block

    @njit(error_model="numpy")
    def scalar(sig, phi2, vsum, dsum, tau, eps, max_it, out):
        inv_tau2 = 1.0 / (tau * tau)
        emt = np.exp(-tau)
        for j in range(sig.shape[0]):
            if vsum[j] > 0:
                v = 1.0 / vsum[j]
                s2, ok = scalar_volatility(sig[j], phi2[j], v, v * dsum[j], tau, inv_tau2,
                                           emt, eps, max_it)
                out[0, j] = np.sqrt(s2)
                out[1, j] = 1.0 / (1.0 / (phi2[j] + s2) + vsum[j])
                out[3, j] = 0.0 if ok else 2.0
            else:
                out[0, j] = sig[j]
                out[1, j] = phi2[j] + sig[j] * sig[j]
                out[3, j] = 0.0
            out[2, j] = out[1, j] * dsum[j]

    @njit(error_model="numpy")
    def blocks(sig, phi2, vsum, dsum, tau, eps, max_it, out):
        inv_tau2 = 1.0 / (tau * tau)
        emt = np.exp(-tau)
        w = np.empty((W_ROWS, 64))
        n = sig.shape[0]
        for t0 in range(0, n, 64):
            m = min(64, n - t0)
            for j in range(m):
                w[0, j] = sig[t0 + j]
                w[1, j] = phi2[t0 + j]
                w[2, j] = vsum[t0 + j]
                w[3, j] = dsum[t0 + j]
            solve_block(m, w, tau, inv_tau2, emt, eps, max_it)
            for j in range(m):
                for r in range(4):
                    out[r, t0 + j] = w[4 + r, j]

    rng = np.random.default_rng(7)
    n = 5000
    sig = rng.uniform(0.01, 0.2, n)
    phi2 = rng.uniform(0.001, 5.0, n)
    vsum = rng.normal(0.0, 1.0, n) ** 2
    vsum[::97] = 0.0  # no information
    dsum = rng.normal(0.0, 2.0, n)
    for max_it in (100, 3):
        for tau in (0.2, 0.5, 1.2):
            a = np.empty((4, n))
            b = np.empty((4, n))
            scalar(sig, phi2, vsum, dsum, tau, 1e-6, max_it, a)
            blocks(sig, phi2, vsum, dsum, tau, 1e-6, max_it, b)
            np.testing.assert_array_equal(a, b)
            if max_it == 3:
                assert (a[3] == 2.0).any()
