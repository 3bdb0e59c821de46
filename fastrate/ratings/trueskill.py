"""TrueSkill ratings (Herbrich, Minka & Graepel 2007, "TrueSkill(TM): A Bayesian Skill
Rating System", NIPS 19; SPEC §2.1).

Every player has a Gaussian skill belief ``N(mu, sigma^2)``; his performance in a match
is ``p ~ N(s, beta^2)``; a team's performance is the weighted sum ``t = sum_i w_i p_i``
(``w_i`` the seat's partial-play weight); teams are ordered by rank and the factor graph
says ``t_k - t_{k+1} > eps`` for a win and ``|t_k - t_{k+1}| <= eps`` for a tie, with the
draw margin (the ``trueskill`` package's ``calc_draw_margin``)
``eps = Phi^-1((draw_probability + 1)/2) sqrt(n) beta``, ``n`` the number of players of
the two teams compared.

Before every match each of its players' variance grows by the dynamics factor:
``sigma^2 <- sigma^2 + tau^2``. Write ``s_i^2`` for that variance.

* **Two teams** (closed form, one truncation): with ``Delta = mu_A - mu_B`` (A the
  better-ranked, ``mu_T = sum w_i mu_i``), ``c^2 = sum_i w_i^2 (s_i^2 + beta^2)`` over
  both teams and ``t = Delta/c``, ``e = eps/c``:
  ``mu_i' = mu_i +- w_i s_i^2 / c * v(t, e)``, ``sigma_i'^2 = s_i^2 (1 - w_i^2 s_i^2 / c^2 *
  w(t, e))``, ``+`` for team A, ``-`` for team B, with the win functions
  ``v = phi(t - e)/Phi(t - e)``, ``w = v (v + t - e)`` or the draw functions
  ``v = (phi(-e - t) - phi(e - t))/(Phi(e - t) - Phi(-e - t))``,
  ``w = v^2 + ((e - t) phi(e - t) + (e + t) phi(-e - t))/(Phi(e - t) - Phi(-e - t))``.
* **More teams**: expectation propagation on the chain of team differences with the
  ``trueskill`` package's schedule: at most ``max_iterations`` sweeps (forward over
  differences ``0 .. T-3``, then backward over ``T-2 .. 1``), each difference's
  truncation message moment-matched with the ``v``/``w`` above, until the largest change
  of a difference marginal (``max(|tau change|, sqrt(|pi change|))`` in natural
  parameters) is at most ``tolerance``; then every player's posterior given his team's
  incoming message ``N(m_k, v_k)``: ``mu_i' = mu_i + w_i s_i^2 (m_k - mu_T)/(V_T + v_k)``,
  ``sigma_i'^2 = s_i^2 - w_i^2 s_i^4/(V_T + v_k)`` (``V_T = sum w_j^2 (s_j^2 + beta^2)``).
  Matches still above the tolerance after ``max_iterations`` sweeps keep their last
  messages and are listed in ``Ratings.unconverged`` (stored match indices).

**Tail safety**: ``v`` and ``w`` are evaluated with the scaled ``erfcx(y) = e^(y^2)
erfc(y)`` (Cody's rationals; never ``1 - erf``) and, far in the tail of a win
(``t - e < -30``, where ``Phi`` loses all precision), from the continued fraction of the
Mills ratio, with ``1 - w`` formed without cancellation; the draw ``w`` is kept in
``[0, 1)``. So ratings stay finite and ordered where the
``trueskill`` package fails (its issue #22: a 20,000-player free-for-all gives negative
sigmas or NaN).

**Partial play**: a seat's weight ``w_i`` in [0, 1] scales his share of the team
performance; a weight-0 seat is left out entirely (not in the sums, not in the draw
margin's ``n``, no dynamics, unchanged, not counted in ``games_played``). (The
``trueskill`` package raises weight 0 to ``0.0001`` and counts the player in ``n``.)

**Predictions** (walk-forward, from the ratings before the match, dynamics included):
for teams A and B, ``d = t_A - t_B ~ N(Delta, c^2)`` as above, so
``P(A wins) = Phi((Delta - eps)/c)``, ``P(B wins) = Phi((-Delta - eps)/c)``, and A's
expected score is ``(1 + P(A wins) - P(B wins))/2`` (a draw counts half); that is
``Ratings.pair_predictions`` for every pair of teams (each pair with its own draw
margin). A team's win probability (``Ratings.predictions``): with two teams, its
expected score; with more, the Luce (softmax) approximation of the probability that its
performance is the highest, ``p_k = exp(lambda mu_k) / sum_l exp(lambda mu_l)`` with
``lambda = pi / (sqrt(3) c)`` and ``c^2 = 2 mean_k(sum_i w_i^2 (sigma_i^2 + tau^2 +
beta^2))``, the mean variance of a difference of two team performances (the logistic
curve ``1/(1 + exp(-x pi/(sqrt(3) c)))`` is within 0.02 of ``Phi(x/c)``); T
exponentials per match, and the values of a match sum to 1. (A normalised product of
the pairwise expected scores is much too sure of the favourite: on Formula 1 races its
winner log loss was worse than a uniform guess.)

The conservative ``rating`` is ``mu - conservative_k * sigma`` (``trueskill.expose`` with
its default ``k = mu/sigma = 3``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._special import ERF_SMALL as _ERF_SMALL
from fastrate._special import erf_small_ratio as _erf_small_ratio
from fastrate._special import erfcx_ratio as _erfcx_ratio
from fastrate._special import erfcx_ratio_nb as _erfcx_ratio_nb
from fastrate._special import normal_cdf as _cdf
from fastrate._special import normal_cdf_nb as _cdf_nb
from fastrate._validate import check_number, check_type
from fastrate._vecmath import exp, select
from fastrate.data import Ratings
from fastrate.errors import InputError
from fastrate.ratings._matches import SKILL_STATE, as_matches, resolve_skills

__all__ = ["TrueSkillConfig", "rate", "rate_match", "expected_score", "win_probability",
           "draw_probability", "draw_margin", "match_quality", "STATE"]

_INF = math.inf
#: parameter ranges: |mu| <= 1e6; sigma, beta in [1e-3, 1e6]; tau in [0, 1e6];
#: draw_probability 0 or in [1e-6, 1 - 1e-6] (a tie needs a margin that is not lost in
#: rounding); |conservative_k| <= 1000
MAX_MU, MIN_SIGMA, MAX_SIGMA, MIN_DRAW, MAX_CONSERVATIVE_K = 1e6, 1e-3, 1e6, 1e-6, 1e3
_SQRT2 = math.sqrt(2.0)
_INV_SQRT2PI = 1.0 / math.sqrt(2.0 * math.pi)
_PI_OVER_SQRT3 = math.pi / math.sqrt(3.0)
#: below this ``t - e`` the win functions use the Mills-ratio continued fraction
_TAIL = -30.0
#: terms of that continued fraction (ample at |x| >= 30)
_CF_TERMS = 24


@dataclass(frozen=True)
class TrueSkillConfig:
    """Parameters of a TrueSkill run (all validated on construction); the defaults are
    those of the paper and the ``trueskill`` package.

    ``mu``, ``sigma``: a new player's belief; ``beta``: the performance deviation (a
    ``beta`` lead is about a 76% chance of winning); ``tau``: the dynamics, added in
    quadrature to every player's sigma before each of his matches; ``draw_probability``:
    the chance of a draw between two equal teams, which sets the draw margin;
    ``conservative_k``: ``rating = mu - conservative_k * sigma``; ``tolerance`` and
    ``max_iterations``: the stopping rule of the message schedule for three or more
    teams (the ``trueskill`` package's ``min_delta`` 0.0001 and its 10 sweeps).
    """

    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    tau: float = 25.0 / 300.0
    draw_probability: float = 0.10
    conservative_k: float = 3.0
    tolerance: float = 1e-4
    max_iterations: int = 10

    def __post_init__(self) -> None:
        o = "TrueSkillConfig"
        # ranges (docs/algorithms/trueskill.md, "Ranges"): far beyond any real use, and
        # narrow enough that every run stays finite
        check_number(o, "mu", self.mu, lo=-MAX_MU, hi=MAX_MU)
        for name in ("sigma", "beta"):
            check_number(o, name, getattr(self, name), lo=MIN_SIGMA, hi=MAX_SIGMA)
        check_number(o, "tolerance", self.tolerance, lo=0.0, hi=_INF, lo_open=True,
                     hi_open=True)
        check_number(o, "tau", self.tau, lo=0.0, hi=MAX_SIGMA)
        if self.draw_probability != 0.0:
            check_number(o, "draw_probability", self.draw_probability, lo=MIN_DRAW,
                         hi=1.0 - MIN_DRAW)
        check_number(o, "conservative_k", self.conservative_k, lo=-MAX_CONSERVATIVE_K,
                     hi=MAX_CONSERVATIVE_K)
        check_number(o, "max_iterations", self.max_iterations, lo=1.0, hi=1e6, integer=True)

    def draw_factor(self) -> float:
        """``Phi^-1((draw_probability + 1)/2) * beta``: the draw margin of two players
        (divided by ``sqrt(2)``); ``n`` players give ``draw_factor() * sqrt(n)``."""
        return statistics.NormalDist().inv_cdf((self.draw_probability + 1.0) / 2.0) * self.beta


class _Params(NamedTuple):
    """Scalar parameters of the kernel."""

    beta2: float
    tau2: float
    draw_factor: float
    tolerance: float
    max_iterations: int
    predict: bool


# ----------------------------------------------------------------------------------
# kernels


@inline_kernel
def _mills_cf(z, k0):
    """``G_k0(z)`` of the Mills-ratio continued fraction ``G_k = 1/(z + (k+1) G_{k+1})``
    (``1/G_0`` ... : ``Phi(-z)/phi(z) = 1/(z + G_1)``), for z >= 30, evaluated bottom up."""
    g = 0.0
    for k in range(k0 + _CF_TERMS, k0 - 1, -1):
        g = 1.0 / (z + (k + 1) * g)
    return g


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


@inline_kernel
def _phi_v(x, with_phi):
    """``(Phi(x), v)`` for ``x >= -30`` with ``v = phi(x)/Phi(x)`` and ``Phi(x) =
    erfc(-x/sqrt2)/2`` (``Phi`` only when ``with_phi``, else 0; ``v`` the same bits
    either way): ``v = sqrt(2/pi)/erfcx(-x/sqrt2)`` below ``x = -0.46875 sqrt2`` (no
    exponential for ``v``), and ``phi(x) / (1 - e^(-x^2/2) erfcx(x/sqrt2)/2)`` or
    ``phi(x) / ((1 + erf(x/sqrt2))/2)`` elsewhere (one exponential). The two-player
    path predicts and updates with one evaluation."""
    y = -x * 0.7071067811865476
    if y > _ERF_SMALL:
        num, den = _erfcx_ratio(y)
        p = 0.5 * exp(-y * y) * (num / den) if with_phi else 0.0
        return p, _SQRT_2_OVER_PI * den / num
    ex = exp(-0.5 * x * x)
    if y >= -_ERF_SMALL:
        # 1 - erf(y) = (den - y num)/den with erf(y) = y num/den (Cody's first rational)
        n1, d1 = _erf_small_ratio(y * y)
        p = 0.5 - 0.5 * (y * n1 / d1) if with_phi else 0.0
        return p, 2.0 * _INV_SQRT2PI * ex * d1 / (d1 - y * n1)
    num, den = _erfcx_ratio(-y)
    p = 1.0 - 0.5 * ex * (num / den) if with_phi else 0.0
    return p, _INV_SQRT2PI * ex * den / (den - 0.5 * ex * num)


@inline_kernel
def _v_w_win(x):
    """``(v, 1 - w)`` of a win with ``x = t - e``: ``v = phi(x)/Phi(x)``,
    ``w = v (v + x)``; below ``x = -30`` from the continued fraction (``v = z + G_1``,
    ``1 - w = G_1 (2 G_2 - G_1)``, ``z = -x``), with no cancellation."""
    if x >= _TAIL:
        v = _phi_v(x, False)[1]
        return v, 1.0 - v * (v + x)
    z = -x
    g2 = _mills_cf(z, 2)
    g1 = 1.0 / (z + 2.0 * g2)
    return z + g1, g1 * (2.0 * g2 - g1)


@inline_kernel
def _v_w_draw(t, e):
    """``(v, 1 - w)`` of a draw with ``t`` the standardised difference and ``e`` the
    standardised margin (> 0), from the moments of ``N(t, 1)`` truncated to ``[-e, e]``;
    computed at ``|t|``, ``v`` then takes the sign of ``t`` (as the package). Far in the
    tail (``|t| - e > 30``) from Mills ratios; ``1 - w`` is clamped to (0, 1]."""
    s = 1.0 if t >= 0.0 else -1.0
    at = abs(t)
    a = e - at
    b = -e - at
    if a >= _TAIL:
        den = _cdf(a) - _cdf(b)
        pa = _INV_SQRT2PI * math.exp(-0.5 * a * a)
        pb = _INV_SQRT2PI * math.exp(-0.5 * b * b)
        v = (pb - pa) / den
        w = v * v + (a * pa - b * pb) / den
    else:
        z1 = -a
        z2 = -b
        m1 = 1.0 / (z1 + _mills_cf(z1, 1))
        m2 = 1.0 / (z2 + _mills_cf(z2, 1))
        r = math.exp(-2.0 * e * at)  # phi(b)/phi(a)
        k = m1 - r * m2
        v = (r - 1.0) / k
        w = v * v + (r * z2 - z1) / k
    omw = 1.0 - w
    if omw > 1.0:
        omw = 1.0
    if not omw > 2.2250738585072014e-308:
        omw = 2.2250738585072014e-308
    return s * v, omw


@inline_kernel
def _v_w(t, e, tie):
    if tie:
        return _v_w_draw(t, e)
    return _v_w_win(t - e)


@inline_kernel
def _pair_score(d, var, eps):
    """``(P(first wins), P(second wins))`` for a difference ``N(d, var)`` and margin eps."""
    ic = 1.0 / math.sqrt(var)
    return _cdf((d - eps) * ic), _cdf((-d - eps) * ic)


#: matches of three or more teams whose message schedules run side by side: consecutive
#: matches with the same number of teams and no player in common are independent, so
#: one difference update of all of them is a loop over lanes that LLVM vectorises (the
#: schedule of one match is a chain of dependent operations)
_LANES = 16
#: the schedule's work array: team ``k`` of lane ``b`` at ``k * _BLK + b``, its fields at
#: these offsets (structure of arrays within a team's block, so the lanes of a field are
#: contiguous): prior precision and precision-mean, the messages from the difference
#: above (``L``) and below (``R``), the truncation message of the difference below it,
#: that difference's draw margin and whether it is a tie (1.0), whether the lane's
#: schedule runs (1.0, in every block), whether the lane's last update of that difference
#: took the scalar path (1.0) and its squared changes in the forward and the backward
#: pass (one array with constant distances between all of them: LLVM vectorises a loop
#: over a lane block only without run-time alias checks)
(_PP, _PT, _LP, _LT, _RP, _RT, _QP, _QT, _MARG, _TIE, _ACT, _FIX, _DLF,
 _DLB) = (f * _LANES for f in range(14))
_BLK = 14 * _LANES


@inline_kernel
def _team_sums(t0, nt, b, tpo, player, weight, mu, sigma, tau2, beta2, tm, tv, tn):
    """Team ``k`` of the match starting at team ``t0`` into ``tm``/``tv``/``tn`` at
    ``k * _LANES + b``: ``sum w_i mu_i``, ``sum w_i^2 (sigma_i^2 + tau^2 + beta^2)`` and
    the number of players of weight > 0."""
    for k in range(nt):
        sm = 0.0
        sv = 0.0
        cnt = 0.0
        for s in range(tpo[t0 + k], tpo[t0 + k + 1]):
            ws = weight[s]
            if ws > 0.0:
                p = player[s]
                sm += ws * mu[p]
                sv += ws * ws * (sigma[p] * sigma[p] + tau2 + beta2)
                cnt += 1.0
        tm[k * _LANES + b] = sm
        tv[k * _LANES + b] = sv
        tn[k * _LANES + b] = cnt


@kernel
def _trueskill_kernel(mto, tpo, player, rank, weight, mu, sigma, games, params, pred,
                      pair_pred, unconverged):
    """TrueSkill over all matches in stored order (teams best first). Updates ``mu``,
    ``sigma`` (per player) and ``games`` in place; writes ``pred`` (per team),
    ``pair_pred`` (per pair of teams, :func:`fastrate.data.matches.pair_offsets`
    order) when ``params.predict``, and ``unconverged[m] = 1`` for a match whose
    schedule stopped at ``max_iterations``. Seats of weight 0 are skipped.

    Up to ``_LANES`` consecutive matches of the same number (> 2) of teams without a
    player in common run their schedules side by side (lane ``b`` of every work array
    at ``k * _LANES + b``); each lane does exactly the operations of a match on its
    own, so the results are those of one match after the other."""
    n_matches = mto.shape[0] - 1
    beta2 = params.beta2
    tau2 = params.tau2
    dfac = params.draw_factor
    tol2 = params.tolerance * params.tolerance
    max_it = params.max_iterations
    predict = params.predict
    nl = _LANES
    max_t = 2
    for m in range(n_matches):
        if mto[m + 1] - mto[m] > max_t:
            max_t = mto[m + 1] - mto[m]
    size = max_t * nl
    tm = np.empty(size)  # team mean, variance of performance, players (weight > 0)
    tv = np.empty(size)
    tn = np.empty(size)
    wk = np.zeros(max_t * _BLK)  # the schedule's messages (see _BLK)
    lg = np.empty(max_t)  # log-scores for the multi-team win probabilities
    ctm = np.empty(max_t)  # one lane's team sums, contiguous (pair predictions)
    ctv = np.empty(max_t)
    ctn = np.empty(max_t)
    # per pair: P(first wins), P(second wins) (each loop of normal cdfs runs on one array
    # indexed from 0: no run-time alias checks or negative-index fix-ups, so it vectorises)
    max_pairs = max_t * (max_t - 1) // 2
    xw = np.empty(max_pairs)
    xl = np.empty(max_pairs)
    lane_t0 = np.empty(nl, dtype=np.int64)  # first team of each lane's match
    active = np.zeros(nl)  # 1.0: the lane's schedule runs
    dlast = np.empty(nl)
    stamp = np.full(mu.shape[0], -1, dtype=np.int64)  # batch a player is in
    pair = 0
    m = 0
    while m < n_matches:
        t0 = mto[m]
        nt = mto[m + 1] - t0
        s0 = tpo[t0]
        # -- the 1v1 fast path ---------------------------------------------------
        if nt == 2 and tpo[t0 + 2] - s0 == 2 and weight[s0] == 1.0 and weight[s0 + 1] == 1.0:
            a = player[s0]
            b = player[s0 + 1]
            sa = sigma[a] * sigma[a] + tau2
            sb = sigma[b] * sigma[b] + tau2
            c2 = sa + sb + 2.0 * beta2
            c = math.sqrt(c2)
            d = mu[a] - mu[b]
            eps = dfac * 1.4142135623730951
            tie1 = rank[t0] == rank[t0 + 1]
            xa = (d - eps) / c
            pw = 0.0
            if tie1:
                v, omw = _v_w_draw(d / c, eps / c)
                if predict:
                    pw = _cdf(xa)
            elif predict and xa >= _TAIL:
                pw, v = _phi_v(xa, True)  # v as _v_w_win gives it
                omw = 1.0 - v * (v + xa)
            else:
                v, omw = _v_w_win(xa)
                if predict:
                    pw = _cdf(xa)
            if predict:
                pl = _cdf((-d - eps) / c)
                e0 = 0.5 * (1.0 + pw - pl)
                pred[t0] = e0
                pred[t0 + 1] = 1.0 - e0
                pair_pred[pair] = e0
                pair += 1
            w = 1.0 - omw
            mu[a] += sa / c * v
            mu[b] -= sb / c * v
            sigma[a] = math.sqrt(sa * (1.0 - sa / c2 * w))
            sigma[b] = math.sqrt(sb * (1.0 - sb / c2 * w))
            games[a] += 1
            games[b] += 1
            m += 1
            continue
        # -- two teams: the closed form (one truncation) ---------------------------
        if nt == 2:
            _team_sums(t0, 2, 0, tpo, player, weight, mu, sigma, tau2, beta2, tm, tv, tn)
            d2 = tm[0] - tm[nl]
            c2 = tv[0] + tv[nl]
            n2 = tn[0] + tn[nl]
            if predict:
                pw, pl = _pair_score(d2, c2, dfac * math.sqrt(n2))
                e0 = 0.5 * (1.0 + pw - pl)
                pred[t0] = e0
                pred[t0 + 1] = 1.0 - e0
                pair_pred[pair] = e0
                pair += 1
            c = math.sqrt(c2)
            v, omw = _v_w(d2 / c, dfac * math.sqrt(n2) / c, rank[t0] == rank[t0 + 1])
            vc = v / c
            wc = (1.0 - omw) / c2
            for k in range(2):
                sv = vc if k == 0 else -vc
                for s in range(tpo[t0 + k], tpo[t0 + k + 1]):
                    ws = weight[s]
                    if ws > 0.0:
                        p = player[s]
                        s2 = sigma[p] * sigma[p] + tau2
                        mu[p] += ws * s2 * sv
                        sigma[p] = math.sqrt(s2 * (1.0 - ws * ws * s2 * wc))
                        games[p] += 1
            m += 1
            continue
        # -- three or more teams: a batch of independent matches of nt teams --------
        nb = 0
        j = m
        while nb < nl and j < n_matches and mto[j + 1] - mto[j] == nt:
            s_lo = tpo[mto[j]]
            s_hi = tpo[mto[j + 1]]
            clash = False
            if nb > 0:
                for s in range(s_lo, s_hi):
                    if stamp[player[s]] == m:
                        clash = True
                        break
            if clash:
                break
            for s in range(s_lo, s_hi):
                stamp[player[s]] = m
            lane_t0[nb] = mto[j]
            nb += 1
            j += 1
        nd = nt - 1
        for b in range(nb):
            tb = lane_t0[b]
            _team_sums(tb, nt, b, tpo, player, weight, mu, sigma, tau2, beta2, tm, tv, tn)
            # -- predictions -----------------------------------------------------
            if predict:
                # every pair's (P(i wins), P(k wins)) as _pair_score, in loops that
                # LLVM vectorises: the standardised arguments, then the cdfs
                mean_v = 0.0
                for k in range(nt):
                    ctm[k] = tm[k * nl + b]
                    ctv[k] = tv[k * nl + b]
                    ctn[k] = tn[k * nl + b]
                    mean_v += ctv[k]
                npr = 0
                for i in range(nt):
                    mi = ctm[i]
                    vi = ctv[i]
                    ni = ctn[i]
                    for k in range(i + 1, nt):
                        ic = 1.0 / math.sqrt(vi + ctv[k])
                        d = mi - ctm[k]
                        eps = dfac * math.sqrt(ni + ctn[k])
                        xw[npr] = (d - eps) * ic
                        xl[npr] = (-d - eps) * ic
                        npr += 1
                for q in range(npr):
                    xw[q] = _cdf_nb(xw[q])
                for q in range(npr):
                    xl[q] = _cdf_nb(xl[q])
                for q in range(npr):
                    pair_pred[pair + q] = 0.5 * (1.0 + xw[q] - xl[q])
                pair += npr
                # the Luce (softmax) form of the Gaussian model: logistic(x / s) is
                # close to Phi(x / c) for s = c sqrt(3) / pi, c^2 the mean pair variance
                lam = _PI_OVER_SQRT3 / math.sqrt(2.0 * mean_v / nt)
                for k in range(nt):
                    lg[k] = lam * tm[k * nl + b]
                top = lg[0]
                for k in range(1, nt):
                    if lg[k] > top:
                        top = lg[k]
                tot = 0.0
                for k in range(nt):
                    lg[k] = math.exp(lg[k] - top)
                    tot += lg[k]
                for k in range(nt):
                    pred[tb + k] = lg[k] / tot
            # -- messages --------------------------------------------------------
            for k in range(nt):
                i = k * nl + b
                x = k * _BLK + b
                wk[x + _LP] = 0.0
                wk[x + _LT] = 0.0
                wk[x + _RP] = 0.0
                wk[x + _RT] = 0.0
                wk[x + _QP] = 0.0
                wk[x + _QT] = 0.0
                wk[x + _PP] = 1.0 / tv[i]
                wk[x + _PT] = tm[i] / tv[i]
                wk[x + _TIE] = 0.0
                wk[x + _ACT] = 1.0
                if k < nd:
                    wk[x + _MARG] = dfac * math.sqrt(tn[i] + tn[i + nl])
                    if rank[tb + k] == rank[tb + k + 1]:
                        wk[x + _TIE] = 1.0
                else:
                    wk[x + _MARG] = 0.0
            active[b] = 1.0
        for b in range(nb, nl):  # the unused lanes: finite values, never stored
            active[b] = 0.0
            for k in range(nt):
                x = k * _BLK + b
                for f in range(_PP, _BLK, nl):
                    wk[x + f] = 0.0
                wk[x + _PP] = 1.0
                wk[x + _MARG] = 1.0
        # -- the schedule, all lanes of the batch in step --------------------------
        n_act = nb
        it = 0
        while it < max_it and n_act > 0:
            # forward over the differences 0 .. nd-2, backward over nd-1 .. 1 (one call
            # site, see _diff_lanes)
            for st in range(2 * nd - 2):
                fwd = st < nd - 1
                x = st if fwd else 2 * nd - 2 - st
                _diff_step(x * _BLK, 1 if fwd else 2, wk)
            it += 1
            for b in range(nb):
                if active[b] > 0.0:
                    # the sweep's largest change, in the order of the updates
                    ds = 0.0
                    for x in range(nd - 1):
                        dl = wk[x * _BLK + _DLF + b]
                        if dl > ds:
                            ds = dl
                    for x in range(nd - 1, 0, -1):
                        dl = wk[x * _BLK + _DLB + b]
                        if dl > ds:
                            ds = dl
                    dlast[b] = ds
                    if ds <= tol2:
                        active[b] = 0.0
                        n_act -= 1
                        for k in range(nt):
                            wk[k * _BLK + _ACT + b] = 0.0
        for b in range(nb):
            tb = lane_t0[b]
            if not dlast[b] <= tol2:
                unconverged[m + b] = 1
            _send_left(b, _BLK + b, wk)
            _send_right((nd - 1) * _BLK + b, nd * _BLK + b, wk)
            # -- players ---------------------------------------------------------
            for k in range(nt):
                i = k * nl + b
                x = k * _BLK + b
                cp = wk[x + _LP] + wk[x + _RP]
                if not cp > 0.0:
                    cp = 0.0
                ct = wk[x + _LT] + wk[x + _RT]
                for s in range(tpo[tb + k], tpo[tb + k + 1]):
                    ws = weight[s]
                    if ws > 0.0:
                        p = player[s]
                        s2 = sigma[p] * sigma[p] + tau2
                        if cp > 0.0:
                            # denominator V_T + 1/cp, in the form (cp V_T + 1)/cp
                            f = ws * s2 * cp / (cp * tv[i] + 1.0)
                            mu[p] += f * (ct / cp - tm[i])
                            sigma[p] = math.sqrt(s2 * (1.0 - ws * f))
                        else:
                            sigma[p] = math.sqrt(s2)
                        games[p] += 1
        m += nb


@inline_kernel
def _diff_update(x, x1, send, w, tie):
    """Difference ``x`` between teams at ``x`` and ``x1`` (indices of the teams' blocks in
    the work array ``w``, fields at the ``_PP`` ... offsets): its
    downward message from the teams' cavities (team ``x``
    without its message from below, team ``x1`` without its message from above;
    ``_PP``/``_PT`` the teams' prior precision and precision-mean), the truncation's
    moment match and the new truncation message, then (``send`` 1) the message to team
    ``x1`` as :func:`_send_right` or (``send`` 2) to team ``x`` as :func:`_send_left`
    would give it, formed from the moment match directly (one division on the path
    from one difference to the next). Returns the square of the change of the
    difference's marginal (the package's ``max(|d tau|, sqrt|d pi|)``), which the
    schedule compares with ``tolerance^2``."""
    p0 = w[x + _PP] + w[x + _RP]
    t0 = w[x + _PT] + w[x + _RT]
    p1 = w[x1 + _PP] + w[x1 + _LP]
    t1 = w[x1 + _PT] + w[x1 + _LT]
    # N(m0 - m1, 1/p0 + 1/p1) in natural parameters: (dp, dt) = (p0 p1, t0 p1 - t1 p0)/s
    s = p0 + p1
    pr = p0 * p1
    nm = t0 * p1 - t1 * p0
    r = 1.0 / s
    dp = pr * r
    dt = nm * r
    sq = math.sqrt(dp)
    # t = dt/sqrt(dp) = nm/sqrt(p0 p1 s)
    v, omw = _v_w(nm / math.sqrt(pr * s), w[x + _MARG] * sq, tie)
    # the new truncation message (dp/omw - dp, (dt + sq v)/omw - dt) = (a, b)/omw
    a = dp * (1.0 - omw)
    b = dt * (1.0 - omw) + sq * v
    inv = 1.0 / omw
    q = a * inv
    qtn = b * inv
    # the package's change max(|d tau|, sqrt|d pi|), squared (no square root)
    dtau = qtn - w[x + _QT]
    delta = dtau * dtau
    dpi = abs(q - w[x + _QP])
    if dpi > delta:
        delta = dpi
    w[x + _QP] = q
    w[x + _QT] = qtn
    if send == 1:  # -> team x+1 (t_{x+1} = t_x - d_x): N(t0/p0 - qt/q, 1/p0 + 1/q)
        if a > 0.0:
            h = 1.0 / (p0 * omw + a)
            w[x1 + _RP] = p0 * a * h
            w[x1 + _RT] = (t0 * a - b * p0) * h
        else:
            w[x1 + _RP] = 0.0
            w[x1 + _RT] = 0.0
    elif send == 2:  # -> team x (t_x = d_x + t_{x+1})
        if a > 0.0:
            h = 1.0 / (p1 * omw + a)
            w[x + _LP] = p1 * a * h
            w[x + _LT] = (t1 * a + b * p1) * h
        else:
            w[x + _LP] = 0.0
            w[x + _LT] = 0.0
    return delta


@inline_kernel
def _v_win_nb(x):
    """``v = phi(x)/Phi(x)`` of :func:`_phi_v` (its three branches all evaluated, one
    selected: the same bits) for ``x >= -30``, so a loop over lanes vectorises."""
    y = -x * 0.7071067811865476
    num, den = _erfcx_ratio_nb(abs(y))
    ex = exp(-0.5 * x * x)
    ym = select(abs(y) <= _ERF_SMALL, y, 0.0)  # (the branch's own range, or 0)
    n1, d1 = _erf_small_ratio(ym * ym)
    v_hi = _SQRT_2_OVER_PI * den / num
    v_mid = 2.0 * _INV_SQRT2PI * ex * d1 / (d1 - ym * n1)
    v_lo = _INV_SQRT2PI * ex * den / (den - 0.5 * ex * num)
    return select(y > _ERF_SMALL, v_hi, select(y >= -_ERF_SMALL, v_mid, v_lo))


@inline_kernel
def _diff_lanes(x, fwd, w):
    """:func:`_diff_update` of difference ``x`` (the block index of its upper team) in
    every lane at once, for the lanes that are active (``act``), not a tie and not in
    the win's far tail (``t - e >= -30``), with :func:`_v_win_nb`: a loop without
    branches that LLVM vectorises; each lane does the operations of the scalar update
    in the same order (the same bits). The other lanes are left unchanged; the active
    ones among them, which still need :func:`_diff_update`, are marked 1.0 in ``_FIX``
    and counted in the return value. Each lane's change goes to ``_DLF`` (``fwd``: the
    message goes to the next team, ``send`` 1) or ``_DLB`` (to this team, ``send`` 2),
    whatever it is for the lanes left. The direction is selected, not branched on, so
    that the schedule has one copy of this loop (LLVM vectorised only one of two)."""
    u = w[x:]  # (indices from 0 up: no negative-index fix-up, which blocks vectorising)
    nfix = 0
    for b in range(_LANES):
        p0 = u[_PP + b] + u[_RP + b]
        t0 = u[_PT + b] + u[_RT + b]
        p1 = u[_BLK + _PP + b] + u[_BLK + _LP + b]
        t1 = u[_BLK + _PT + b] + u[_BLK + _LT + b]
        s = p0 + p1
        pr = p0 * p1
        nm = t0 * p1 - t1 * p0
        r = 1.0 / s
        dp = pr * r
        dt = nm * r
        sq = math.sqrt(dp)
        xa = nm / math.sqrt(pr * s) - u[_MARG + b] * sq
        on = u[_ACT + b] > 0.0
        ok = on & (u[_TIE + b] == 0.0) & (xa >= _TAIL)
        nfix += on != ok  # (ok implies on)
        u[_FIX + b] = select(on != ok, 1.0, 0.0)
        xa = select(ok, xa, 0.0)  # (the lanes not stored: finite values)
        v = _v_win_nb(xa)
        omw = 1.0 - v * (v + xa)
        a = dp * (1.0 - omw)
        bb = dt * (1.0 - omw) + sq * v
        inv = 1.0 / omw
        q = a * inv
        qtn = bb * inv
        qp0 = u[_QP + b]
        qt0 = u[_QT + b]
        dtau = qtn - qt0
        delta = dtau * dtau
        dpi = abs(q - qp0)
        delta = select(dpi > delta, dpi, delta)
        u[_QP + b] = select(ok, q, qp0)
        u[_QT + b] = select(ok, qtn, qt0)
        pos = a > 0.0
        # forward: the message to team x1 from p0, t0; backward: to team x from p1, t1
        px = select(fwd, p0, p1)
        h = 1.0 / (px * omw + a)
        mp = select(pos, px * a * h, 0.0)
        mt = select(pos, select(fwd, t0 * a - bb * p0, t1 * a + bb * p1) * h, 0.0)
        okf = ok & fwd
        okb = ok & (not fwd)
        u[_BLK + _RP + b] = select(okf, mp, u[_BLK + _RP + b])
        u[_BLK + _RT + b] = select(okf, mt, u[_BLK + _RT + b])
        u[_LP + b] = select(okb, mp, u[_LP + b])
        u[_LT + b] = select(okb, mt, u[_LT + b])
        u[_DLF + b] = select(fwd, delta, u[_DLF + b])
        u[_DLB + b] = select(fwd, u[_DLB + b], delta)
    return nfix


@inline_kernel
def _diff_step(x, send, w):
    """One difference update (block ``x``) in every active lane: :func:`_diff_lanes`, then
    :func:`_diff_update` for the lanes it left (ties, the far tail); each lane's change
    goes to ``_DLF`` (``send`` 1) or ``_DLB`` (``send`` 2) of the block."""
    if _diff_lanes(x, send == 1, w) > 0:
        dl_at = _DLF if send == 1 else _DLB
        for b in range(_LANES):
            xb = x + b
            if w[xb + _FIX] != 0.0:
                w[xb + dl_at] = _diff_update(xb, xb + _BLK, send, w, w[xb + _TIE] != 0.0)


@inline_kernel
def _send_right(x, x1, w):
    """Difference ``x`` -> team ``x1`` (the next): ``t_{x+1} = t_x - d_x``."""
    q = w[x + _QP]
    if not q > 0.0:
        w[x1 + _RP] = 0.0
        w[x1 + _RT] = 0.0
        return
    p0 = w[x + _PP] + w[x + _RP]
    t0 = w[x + _PT] + w[x + _RT]
    # N(t0/p0 - qt/q, 1/p0 + 1/q)
    r = 1.0 / (p0 + q)
    w[x1 + _RP] = p0 * q * r
    w[x1 + _RT] = (t0 * q - w[x + _QT] * p0) * r


@inline_kernel
def _send_left(x, x1, w):
    """Difference ``x`` -> team ``x``: ``t_x = d_x + t_{x+1}`` (``x1`` the next team)."""
    q = w[x + _QP]
    if not q > 0.0:
        w[x + _LP] = 0.0
        w[x + _LT] = 0.0
        return
    p1 = w[x1 + _PP] + w[x1 + _LP]
    t1 = w[x1 + _PT] + w[x1 + _LT]
    r = 1.0 / (p1 + q)
    w[x + _LP] = p1 * q * r
    w[x + _LT] = (t1 * q + w[x + _QT] * p1) * r


# ----------------------------------------------------------------------------------
# public API


def _params(config: TrueSkillConfig, predict: bool = True) -> _Params:
    return _Params(float(config.beta) ** 2, float(config.tau) ** 2, config.draw_factor(),
                   float(config.tolerance), int(config.max_iterations), bool(predict))


def draw_margin(n_players: Any, config: TrueSkillConfig = TrueSkillConfig()) -> Any:
    """The draw margin ``Phi^-1((draw_probability + 1)/2) sqrt(n_players) beta`` of two
    teams with ``n_players`` players between them (``trueskill.calc_draw_margin``).

    >>> round(float(draw_margin(2)), 4)
    0.7405
    """
    return config.draw_factor() * np.sqrt(np.asarray(n_players, dtype=np.float64))


def _two_team(mu_a: Any, sigma_a: Any, mu_b: Any, sigma_b: Any, n_players: Any,
              config: TrueSkillConfig) -> tuple[Any, Any]:
    from statistics import NormalDist

    check_type(config, TrueSkillConfig, "config must be a TrueSkillConfig")
    n = np.asarray(n_players, dtype=np.float64)
    if (n < 2).any():
        raise InputError(f"n_players must be >= 2 (the players of both teams); got {n_players!r}")
    d = np.asarray(mu_a, dtype=np.float64) - np.asarray(mu_b, dtype=np.float64)
    var = (np.asarray(sigma_a, dtype=np.float64) ** 2 + np.asarray(sigma_b, dtype=np.float64) ** 2
           + n * (config.beta ** 2 + config.tau ** 2))
    c = np.sqrt(var)
    eps = draw_margin(n, config)
    cdf = np.vectorize(NormalDist().cdf, otypes=[np.float64])
    return cdf((d - eps) / c), cdf((-d - eps) / c)


def win_probability(mu_a: Any, sigma_a: Any, mu_b: Any, sigma_b: Any, n_players: Any = 2,
                    config: TrueSkillConfig = TrueSkillConfig()) -> Any:
    """P(A beats B) = ``Phi((mu_a - mu_b - eps)/c)``, ``c^2 = sigma_a^2 + sigma_b^2 +
    n_players (beta^2 + tau^2)``, ``eps`` the :func:`draw_margin` of ``n_players``.
    For teams pass ``mu = sum of mu`` and ``sigma = sqrt(sum of sigma^2)`` of each team
    (unit weights) and the players of both teams as ``n_players``. NumPy-vectorised.

    >>> round(float(win_probability(25, 25 / 3, 25, 25 / 3)), 4)
    0.4776
    """
    return _two_team(mu_a, sigma_a, mu_b, sigma_b, n_players, config)[0]


def draw_probability(mu_a: Any, sigma_a: Any, mu_b: Any, sigma_b: Any, n_players: Any = 2,
                     config: TrueSkillConfig = TrueSkillConfig()) -> Any:
    """P(draw) = ``1 - P(A wins) - P(B wins)`` (see :func:`win_probability`); between
    equal players with no uncertainty it is the config's ``draw_probability``.

    >>> round(float(draw_probability(25, 0, 25, 0, config=TrueSkillConfig(tau=0.0))), 6)
    0.1
    """
    pw, pl = _two_team(mu_a, sigma_a, mu_b, sigma_b, n_players, config)
    return 1.0 - pw - pl


def expected_score(mu_a: Any, sigma_a: Any, mu_b: Any, sigma_b: Any, n_players: Any = 2,
                   config: TrueSkillConfig = TrueSkillConfig()) -> Any:
    """A's expected score against B: ``P(A wins) + P(draw)/2 = (1 + P(A wins) -
    P(B wins))/2`` (see :func:`win_probability`); what :func:`rate` stores as the
    walk-forward prediction of two teams.

    >>> round(float(expected_score(30, 4, 25, 4)), 4)
    0.7289
    """
    pw, pl = _two_team(mu_a, sigma_a, mu_b, sigma_b, n_players, config)
    return 0.5 * (1.0 + pw - pl)


def match_quality(teams: Sequence[Sequence[tuple[float, float]]],
                  weights: Sequence[Sequence[float]] | None = None,
                  config: TrueSkillConfig = TrueSkillConfig()) -> float:
    """The match quality of Herbrich et al. (the draw probability of the match relative
    to a draw of equal teams; ``trueskill.quality``) for any number of teams:
    ``sqrt(det(beta^2 A^T A) / det(beta^2 A^T A + A^T S A)) exp(-mu^T A (beta^2 A^T A +
    A^T S A)^-1 A^T mu / 2)``, ``A`` the (players x differences) matrix of the chain of
    adjacent team differences (``+w`` for the team, ``-w`` for the next), ``S`` the
    diagonal of ``sigma^2`` (no dynamics, as the package). ``teams`` is a list of teams,
    each a list of ``(mu, sigma)`` pairs; ``weights`` partial-play weights like it.

    >>> round(match_quality([[(25, 25 / 3)], [(25, 25 / 3)]]), 3)
    0.447
    """
    check_type(config, TrueSkillConfig, "config must be a TrueSkillConfig")
    flat, ws, team_of = _flat_teams(teams, weights)
    n_t = len(teams)
    mu = flat[:, 0]
    var = flat[:, 1] ** 2
    a = np.zeros((flat.shape[0], n_t - 1))
    for k in range(n_t - 1):
        a[team_of == k, k] = ws[team_of == k]
        a[team_of == k + 1, k] = -ws[team_of == k + 1]
    b2 = float(config.beta) ** 2
    ata = b2 * a.T @ a
    middle = ata + a.T @ (var[:, None] * a)
    am = a.T @ mu
    e_arg = -0.5 * float(am @ np.linalg.solve(middle, am))
    s_arg = np.linalg.det(ata) / np.linalg.det(middle)
    return float(math.exp(e_arg) * math.sqrt(s_arg))


def _flat_teams(teams: Any, weights: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not isinstance(teams, Sequence) or len(teams) < 2:
        raise InputError(f"teams must be a list of at least two teams; got {teams!r}")
    rows, team_of, ws = [], [], []
    if weights is not None and len(weights) != len(teams):
        raise InputError(f"weights must have one list per team ({len(teams)}); got "
                         f"{len(weights)}")
    for k, team in enumerate(teams):
        if len(team) == 0:
            raise InputError(f"team {k} is empty; every team needs a player")
        if weights is not None and len(weights[k]) != len(team):
            raise InputError(f"weights of team {k} must have {len(team)} values; got "
                             f"{len(weights[k])}")
        for i, player in enumerate(team):
            try:
                m, s = (float(x) for x in player)
            except (TypeError, ValueError):
                raise InputError(f"team {k}, player {i}: expected a (mu, sigma) pair; got "
                                 f"{player!r}") from None
            if not (math.isfinite(m) and math.isfinite(s) and s > 0.0):
                raise InputError(f"team {k}, player {i}: mu must be finite and sigma > 0; "
                                 f"got ({m!r}, {s!r})")
            w = 1.0 if weights is None else float(weights[k][i])
            if not 0.0 <= w <= 1.0:
                raise InputError(f"team {k}, player {i}: weight must be in [0, 1]; got {w!r}")
            rows.append((m, s))
            team_of.append(k)
            ws.append(w)
    return (np.array(rows, dtype=np.float64), np.array(ws, dtype=np.float64),
            np.array(team_of, dtype=np.int64))


def rate_match(teams: Sequence[Sequence[tuple[float, float]]], ranks: Sequence[Any] | None = None,
               weights: Sequence[Sequence[float]] | None = None,
               config: TrueSkillConfig = TrueSkillConfig()) -> list[list[tuple[float, float]]]:
    """One match on its own (like ``trueskill.rate``): ``teams`` is a list of teams, each
    a list of ``(mu, sigma)`` pairs; ``ranks`` one value per team, lower is better,
    equal is a tie (default: the order given); ``weights`` partial play in [0, 1].
    Returns the new ``(mu, sigma)`` pairs in the same structure. No predictions are
    computed, so a free-for-all of any size is cheap.

    >>> [[tuple(round(x, 3) for x in p) for p in t]
    ...  for t in rate_match([[(25, 25 / 3)], [(25, 25 / 3)]])]
    [[(29.396, 7.171)], [(20.604, 7.171)]]
    """
    check_type(config, TrueSkillConfig, "config must be a TrueSkillConfig")
    flat, ws, team_of = _flat_teams(teams, weights)
    n_t = len(teams)
    r = np.arange(n_t, dtype=np.float64) if ranks is None else np.asarray(ranks, np.float64)
    if r.shape != (n_t,) or not np.isfinite(r).all():
        raise InputError(f"ranks must be {n_t} finite numbers (one per team); got {ranks!r}")
    for k in range(n_t):
        if not (ws[team_of == k] > 0.0).any():
            raise InputError(f"team {k} has no player of weight > 0")
    order = np.argsort(r, kind="stable")
    # weight-0 players are left out of the match (so they change nothing, to the bit:
    # a 1v1 with a weight-0 teammate is the 1v1)
    active = ws > 0.0
    sizes = np.bincount(team_of[active], minlength=n_t)[order]
    tpo = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    seats = np.concatenate([np.flatnonzero((team_of == k) & active)
                            for k in order]).astype(np.int64)
    rank = np.searchsorted(np.sort(r), r[order], side="left").astype(np.int64)
    _check_ties(rank, np.array([0, n_t], np.int64), config)
    mu = np.ascontiguousarray(flat[:, 0])
    sigma = np.ascontiguousarray(flat[:, 1])
    games = np.zeros(flat.shape[0], dtype=np.int64)
    unconverged = np.zeros(1, dtype=np.int8)
    _trueskill_kernel(np.array([0, n_t], np.int64), tpo, seats, rank,
                      np.ascontiguousarray(ws[seats]), mu, sigma, games,
                      _params(config, predict=False), np.empty(0), np.empty(0), unconverged)
    out: list[list[tuple[float, float]]] = []
    for k in range(n_t):
        idx = np.flatnonzero(team_of == k)
        out.append([(float(mu[i]), float(sigma[i])) for i in idx])
    return out


def _active_seats(matches: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(team_player_offsets, player, weight)`` of the seats of weight > 0: a weight-0
    player is left out of his match (not counted, unchanged), so that he changes nothing
    to the bit (with him, a 1v1 would otherwise leave the 1v1 path)."""
    weight = matches.weight_or_one()
    if matches.weight is None or bool((weight > 0.0).all()):
        return matches.team_player_offsets, matches.player, weight
    keep = weight > 0.0
    tpo = np.zeros(matches.n_teams + 1, dtype=np.int64)
    np.cumsum(np.bincount(matches.seat_team()[keep], minlength=matches.n_teams), out=tpo[1:])
    return tpo, np.ascontiguousarray(matches.player[keep]), np.ascontiguousarray(weight[keep])


def _check_ties(rank: np.ndarray, mto: np.ndarray, config: TrueSkillConfig) -> None:
    """A tie needs a draw margin: refuse ties when ``draw_probability`` is 0."""
    if config.draw_probability > 0.0 or rank.shape[0] < 2:
        return
    same = rank[1:] == rank[:-1]
    same[mto[1:-1] - 1] = False  # the last team of a match and the first of the next
    if same.any():
        t = int(np.argmax(same))
        m = int(np.searchsorted(mto, t, side="right") - 1)
        raise InputError(f"match {m} has a tie, but draw_probability is 0 (no draw margin); "
                         "set TrueSkillConfig(draw_probability=...) above 0")


def rate(data: Any, config: TrueSkillConfig = TrueSkillConfig(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Rate :class:`~fastrate.data.Matches` (or two-player :class:`~fastrate.Games`) with
    TrueSkill, match by match in stored order.

    Returns ``mu``, ``sigma``, ``games_played`` and the conservative ``rating = mu -
    conservative_k * sigma``; ``predictions`` (each team's walk-forward win
    probability, stored team order) and ``pair_predictions`` (each pair's expected
    score) as the module docstring describes. ``Ratings.unconverged`` holds the stored
    indices (int64) of the matches of three or more teams whose schedule stopped at
    ``max_iterations`` still above ``tolerance`` (their last messages are used), empty
    when every match converged. ``initial`` continues from a previous run's
    :class:`Ratings` (or its table, or a mapping ``name -> mu``). ``predictions=False``:
    final ratings only (``predictions`` and ``pair_predictions`` None; the ratings are
    the same bits, the per-match outputs are not computed).
    """
    check_type(config, TrueSkillConfig, "config must be a TrueSkillConfig")
    matches = as_matches(data, "trueskill")
    mu, sigma, games, matches = resolve_skills(matches, initial, mu=config.mu,
                                               sigma=config.sigma)
    _check_ties(matches.rank, matches.match_team_offsets, config)
    predictions = bool(predictions)
    pred = np.empty(matches.n_teams if predictions else 0, dtype=np.float64)
    pair_pred = np.empty(int(matches.pair_offsets()[-1]) if predictions else 0,
                         dtype=np.float64)
    unconverged = np.zeros(matches.n_matches, dtype=np.int8)
    tpo, player, weight = _active_seats(matches)
    _trueskill_kernel(matches.match_team_offsets, tpo, player, matches.rank, weight, mu, sigma,
                      games, _params(config, predictions), pred, pair_pred, unconverged)
    rating = mu - float(config.conservative_k) * sigma
    return Ratings("trueskill", matches.players, rating, games,
                   pred if predictions else None, config,
                   state={"rating": rating, "mu": mu, "sigma": sigma, "games_played": games},
                   pair_predictions=pair_pred if predictions else None,
                   unconverged=np.flatnonzero(unconverged).astype(np.int64))


# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = SKILL_STATE
