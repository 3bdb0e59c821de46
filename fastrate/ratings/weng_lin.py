"""Weng-Lin Bayesian online ratings (Weng & Lin 2011, "A Bayesian Approximation Method
for Online Ranking", JMLR 12): the five models of the ``openskill`` package.

Every player has a Gaussian belief ``N(mu, sigma^2)``; a team's strength is the sum of
its players' (``mu_T = sum mu_j``, ``sigma_T^2 = sum sigma_j^2``). Before a match every
player's variance grows by the dynamics ``tau^2``. A model turns the ranking of the
match into, for every team ``i``, a mean step ``Omega_i`` and a variance factor
``Delta_i``, and every player ``j`` of team ``i`` moves by his share of the team's
variance::

    mu_j      += sigma_j^2 / sigma_T^2 * Omega_i
    sigma_j^2 *= max(1 - sigma_j^2 / sigma_T^2 * Delta_i, kappa)

The models (``c_iq^2 = sigma_i^2 + sigma_q^2 + 2 beta^2``, ``gamma = sigma_i / c``):

* ``plackett_luce`` (Algorithm 4): ``c^2 = sum_t (sigma_t^2 + beta^2)``, ``e_t =
  exp(mu_t / c)``, ``S_q = sum_{s: r(s) >= r(q)} e_s``, ``A_q`` the teams tied with
  ``q``; ``Omega_i = sigma_i^2/c sum_{q: r(q) <= r(i)} ([q = i] - e_i/S_q) / A_q``,
  ``Delta_i = gamma sigma_i^2/c^2 sum_{q: r(q) <= r(i)} e_i/S_q (1 - e_i/S_q) / A_q``.
* ``bradley_terry_full`` (Algorithm 1): ``p_iq = 1/(1 + exp((mu_q - mu_i)/c_iq))``,
  ``s_iq`` = 1, 1/2, 0 for a win, tie, loss; ``Omega_i = sum_q sigma_i^2/c_iq (s_iq -
  p_iq)``, ``Delta_i = sum_q gamma_iq sigma_i^2/c_iq^2 p_iq (1 - p_iq)``.
* ``thurstone_mosteller_full`` (Algorithm 2): ``x = (mu_i - mu_q)/c_iq``, ``t =
  epsilon/c_iq``; a win adds ``sigma_i^2/c_iq v(x, t)`` and ``gamma_iq sigma_i^2/c_iq^2
  w(x, t)``, a loss ``-sigma_i^2/c_iq v(-x, t)`` and ``... w(-x, t)``, a tie ``...
  v~(x, t)``, ``... w~(x, t)`` (the paper's truncated-Gaussian functions).
* ``bradley_terry_part`` / ``thurstone_mosteller_part`` (Algorithm 3, partial pairing):
  as the full models, but only against the teams within ``window`` places in the
  ranking, and ``Omega``, ``Delta`` averaged over those comparisons (openskill's form;
  the Thurstone-Mosteller one uses ``c_iq = 2 sqrt(...)`` as openskill does).

See ``docs/algorithms/weng_lin.md`` for the options (weights, margins, balance,
limit_sigma), the two places where fastrate follows the paper and not openskill, and
the predictions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_choice, check_number
from fastrate._vecmath import exp, logistic, prefetch_row, select
from fastrate.data.results import Ratings
from fastrate.data.state import exact_values
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._matches import SKILL_STATE, as_matches, resolve_skills

__all__ = ["WengLinConfig", "STATE", "MODELS", "rate", "expected_score", "predict_win",
           "predict_draw", "predict_rank", "margin_factor"]

#: the weakest strength ``exp((mu - max mu)/c)`` is held at ``e^-300``: a team 300 c or more
#: behind (thousands of points at the usual scale, reached only with huge or negative
#: team sums) would otherwise underflow, and the Plackett-Luce update's ``1/S^2`` with it
#: (NaN ratings, found by the config fuzzing at mu = -9,400 with teams of two)
MIN_LOG_STRENGTH = -300.0

STATE = SKILL_STATE

#: model names (config ``model``); openskill's class names are accepted as well
MODELS = ("plackett_luce", "bradley_terry_full", "bradley_terry_part",
          "thurstone_mosteller_full", "thurstone_mosteller_part")
_MODEL_KEYS = {m.replace("_", ""): m for m in MODELS}
PL, BT_FULL, BT_PART, TM_FULL, TM_PART = range(5)
WEIGHT_RULES = ("partial", "openskill")
MARGIN_RULES = ("evidence", "openskill")
PREDICTS = ("logistic", "normal")
_INF = math.inf
#: parameter ranges: |mu| <= 1e6; sigma, beta in [1e-3, 1e6]; tau, epsilon in [0, 1e6];
#: |conservative_k| <= 1000; weight_bounds within [1e-3, 1e3]
MAX_MU, MIN_SIGMA, MAX_SIGMA, MAX_CONSERVATIVE_K = 1e6, 1e-3, 1e6, 1e3
MIN_WEIGHT_BOUND, MAX_WEIGHT_BOUND = 1e-3, 1e3


@dataclass(frozen=True)
class WengLinConfig:
    """Parameters of a Weng-Lin run (openskill's defaults; all validated on construction).

    ``model``: one of :data:`MODELS` (openskill's class names such as
    ``"ThurstoneMostellerFull"`` are accepted case-insensitively and stored in the
    canonical form). ``mu``, ``sigma``: a new player's belief; ``beta``: the performance
    noise; ``kappa``: the floor of the variance factor; ``tau``: the dynamics added to
    every variance before each match; ``epsilon``: the Thurstone-Mosteller draw margin;
    ``window``: the partial-pairing models' neighbourhood (openskill's ``window_size``).
    ``limit_sigma``: a match never raises a sigma above its value before the match.
    ``balance``: openskill's emphasis of weaker team mates (team sums weighted by
    ``1 + (o_max - o_j)/(o_max + kappa)``, ``o = mu - 3 sigma``).
    ``margin`` (> 0 to use; needs team scores): wins by more than ``margin`` count more,
    see :func:`margin_factor`; ``margin_rule="openskill"`` reproduces openskill's rule
    instead (which shrinks an underdog's gain as the margin grows).
    ``weight_rule``: how seat weights (``Matches.weight``) act: ``"partial"`` (partial
    play, the default: a player of weight ``w`` counts ``w`` in the team sums and moves
    ``w`` times his full step) or ``"openskill"`` (openskill's ``weights``: normalised
    per team to ``weight_bounds``, multiplying gains and dividing losses).
    ``conservative_k``: the reported rating is ``mu - conservative_k sigma`` (openskill's
    ordinal). ``predict``: ``"logistic"`` (the Plackett-Luce probabilities) or
    ``"normal"`` (openskill's ``predict_win``), see :func:`predict_win`.
    """

    model: str = "plackett_luce"
    mu: float = 25.0
    sigma: float = 25.0 / 3.0
    beta: float = 25.0 / 6.0
    kappa: float = 1e-4
    tau: float = 25.0 / 300.0
    epsilon: float = 0.1
    window: int = 4
    limit_sigma: bool = False
    balance: bool = False
    margin: float = 0.0
    margin_rule: str = "evidence"
    weight_rule: str = "partial"
    weight_bounds: tuple[float, float] = (1.0, 2.0)
    conservative_k: float = 3.0
    predict: str = "logistic"

    def __post_init__(self) -> None:
        o = "WengLinConfig"
        key = str(self.model).strip().lower().replace("_", "").replace("-", "").replace(" ", "")
        if not isinstance(self.model, str) or key not in _MODEL_KEYS:
            raise ConfigError(f"'model' of {o} must be one of {', '.join(map(repr, MODELS))} "
                              f"(or openskill's class names); got {self.model!r}")
        object.__setattr__(self, "model", _MODEL_KEYS[key])
        # ranges (docs/algorithms/weng_lin.md, "Ranges"): far beyond any real use, and
        # narrow enough that every run stays finite
        check_number(o, "mu", self.mu, lo=-MAX_MU, hi=MAX_MU)
        for name in ("sigma", "beta"):
            check_number(o, name, getattr(self, name), lo=MIN_SIGMA, hi=MAX_SIGMA)
        check_number(o, "kappa", self.kappa, lo=0.0, hi=1.0, lo_open=True)
        check_number(o, "tau", self.tau, lo=0.0, hi=MAX_SIGMA)
        check_number(o, "epsilon", self.epsilon, lo=0.0, hi=MAX_SIGMA)
        check_number(o, "window", self.window, lo=1.0, hi=1e9, integer=True)
        check_number(o, "margin", self.margin, lo=0.0, hi=_INF, hi_open=True)
        check_number(o, "conservative_k", self.conservative_k, lo=-MAX_CONSERVATIVE_K,
                     hi=MAX_CONSERVATIVE_K)
        for name in ("limit_sigma", "balance"):
            if not isinstance(getattr(self, name), (bool, np.bool_)):
                raise ConfigError(f"'{name}' of {o} must be true or false; got "
                                  f"{getattr(self, name)!r}")
        check_choice(o, "margin_rule", self.margin_rule, MARGIN_RULES)
        check_choice(o, "weight_rule", self.weight_rule, WEIGHT_RULES)
        check_choice(o, "predict", self.predict, PREDICTS)
        b = self.weight_bounds
        if not isinstance(b, tuple) or len(b) != 2:
            raise ConfigError(f"'weight_bounds' of {o} must be a pair (lo, hi) with "
                              f"0 < lo <= hi; got {b!r}")
        lo = check_number(o, "weight_bounds[0]", b[0], lo=MIN_WEIGHT_BOUND, hi=MAX_WEIGHT_BOUND)
        hi = check_number(o, "weight_bounds[1]", b[1], lo=lo, hi=MAX_WEIGHT_BOUND)
        object.__setattr__(self, "weight_bounds", (lo, hi))

    # presets: one per model, openskill's defaults otherwise
    @classmethod
    def plackett_luce(cls) -> WengLinConfig:
        """Plackett-Luce (openskill's default model)."""
        return cls(model="plackett_luce")

    @classmethod
    def bradley_terry_full(cls) -> WengLinConfig:
        """Bradley-Terry, every pair of teams compared."""
        return cls(model="bradley_terry_full")

    @classmethod
    def bradley_terry_part(cls) -> WengLinConfig:
        """Bradley-Terry, neighbouring ranks only (partial pairing)."""
        return cls(model="bradley_terry_part")

    @classmethod
    def thurstone_mosteller_full(cls) -> WengLinConfig:
        """Thurstone-Mosteller, every pair of teams compared."""
        return cls(model="thurstone_mosteller_full")

    @classmethod
    def thurstone_mosteller_part(cls) -> WengLinConfig:
        """Thurstone-Mosteller, neighbouring ranks only (partial pairing)."""
        return cls(model="thurstone_mosteller_part")

    @classmethod
    def openskill(cls) -> WengLinConfig:
        """openskill's rules where fastrate differs by default: its margin rule, its
        weights and its normal-curve predictions (Plackett-Luce)."""
        return cls(margin_rule="openskill", weight_rule="openskill", predict="normal")


class WengLinParams(NamedTuple):
    """The kernels' scalar parameters (see :class:`WengLinConfig`)."""

    model: int
    beta2: float
    kappa: float
    tau2: float
    epsilon: float
    window: int
    limit_sigma: bool
    balance: bool
    margin: float  # 0: no margins
    openskill_margin: bool
    openskill_weights: bool
    wlo: float
    whi: float
    normal: bool  # predictions: openskill's normal curve
    predict: bool  # False: final ratings only (no per-match outputs)


def _params(config: WengLinConfig, has_score: bool, predict: bool = True) -> WengLinParams:
    return WengLinParams(MODELS.index(config.model), float(config.beta) ** 2,
                         float(config.kappa), float(config.tau) ** 2, float(config.epsilon),
                         int(config.window), bool(config.limit_sigma), bool(config.balance),
                         float(config.margin) if has_score else 0.0,
                         config.margin_rule == "openskill",
                         config.weight_rule == "openskill", float(config.weight_bounds[0]),
                         float(config.weight_bounds[1]), config.predict == "normal",
                         bool(predict))


# ----------------------------------------------------------------------------------
# kernels

_SQRT2 = math.sqrt(2.0)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_EPS = 2.220446049250313e-16  # sys.float_info.epsilon, openskill's guard


@inline_kernel
def _cdf(x):
    """Standard normal CDF, written as Python's ``NormalDist().cdf`` (openskill's)."""
    return 0.5 * (1.0 + math.erf(x / _SQRT2))


@inline_kernel
def _pdf(x):
    return math.exp(x * x / -2.0) / _SQRT_2PI


@inline_kernel
def _vw(x, t):
    """The paper's ``v(x, t) = phi(x - t) / Phi(x - t)`` and ``w(x, t) = v (v + x - t)``
    from one ``Phi`` and one ``phi``, with openskill's guard (``Phi < eps``: ``v = t - x``,
    ``w = 1`` for ``x < 0``, else 0)."""
    xt = x - t
    d = _cdf(xt)
    if d < _EPS:
        return -xt, (1.0 if x < 0.0 else 0.0)
    v = _pdf(xt) / d
    return v, v * (v + xt)


@inline_kernel
def _vwt(x, t):
    """The tie functions ``v~(x, t)``, ``w~(x, t)`` from two ``Phi`` and two ``phi``,
    with openskill's guards (``v~``: ``Phi`` difference below 1e-5; ``w~``: below eps)."""
    xx = abs(x)
    b = _cdf(t - xx) - _cdf(-t - xx)
    if b < 1e-5:
        vt = -x - t if x < 0.0 else -x + t
    else:
        a = _pdf(-t - xx) - _pdf(t - xx)
        vt = (-a if x < 0.0 else a) / b
    if b < _EPS:
        return vt, 1.0
    return vt, ((t - xx) * _pdf(t - xx) + (t + xx) * _pdf(-t - xx)) / b + vt * vt


@inline_kernel
def _factor(d, margin):
    """Evidence weight of a win by ``d`` (see :func:`margin_factor`)."""
    if margin > 0.0 and d > margin:
        return 1.0 + math.log(d / margin)
    return 1.0


@inline_kernel
def _divisor(d, margin):
    """openskill's margin divisor of the skill difference."""
    if margin > 0.0 and d > margin:
        return math.log1p(d / margin)
    return 1.0


@inline_kernel
def _pair_share(ei, ej, d, ic):
    """``e_i / (e_i + e_j)``, the logistic pair prediction from the strengths
    ``e = exp((mu - max mu)/c)``; ``1/(1 + exp(-d/c))`` from the lead ``d`` when both
    strengths underflow (teams far below the best of a large field)."""
    both = ei + ej
    if both > 0.0:
        return ei / both
    return logistic(d, ic)


@inline_kernel
def _pair_both(model, mi, mq, vi, vq, ri, rq, tie, win, beta2, eps, f, div):
    """One comparison of teams ``i`` and ``q`` (Bradley-Terry or Thurstone-Mosteller;
    ``mu``, ``sigma^2``, ``sigma^3``; ``win``: ``i`` ranked ahead, ``tie``: equal ranks):
    both teams' contributions ``(Omega_i, Delta_i, Omega_q, Delta_q)``, times the
    evidence weight ``f``; ``div`` is openskill's margin divisor (1 if none).

    The pair shares ``c_iq`` and one evaluation of its curve: ``p_qi = 1 - p_iq``
    (``e = exp(-|z|)``: the favourite's ``1/(1 + e)``, the underdog's ``e/(1 + e)``,
    both to full relative precision), ``v(-x) `` of the loser is the winner's ``v(x)``
    and ``w`` is shared; for a tie ``v~(-x) = -v~(x)``, ``w~(-x) = w~(x)``."""
    c = math.sqrt(vi + vq + 2.0 * beta2)
    if model == TM_PART:
        c = 2.0 * c
    ic = 1.0 / c
    ic3 = ic * ic * ic
    if model == BT_FULL or model == BT_PART:
        z = ((mq - mi) / div) * ic
        e = exp(-abs(z))
        a = 1.0 / (1.0 + e)
        b = e * a
        pi = a if z <= 0.0 else b
        s = 1.0 if win else (0.5 if tie else 0.0)
        pq = f * (a * b) * ic3
        return (f * vi * ic * (s - pi), ri * pq,
                f * vq * ic * ((1.0 - s) - (b if z <= 0.0 else a)),
                rq * pq)
    # openskill's order of operations: v~ and w~ take differences of nearly equal Phi
    # and phi values, which magnify last-bit differences in x and t
    x = (mi - mq) / c / div
    t = eps / c
    si = vi / c
    sq = vq / c
    if tie:
        v, w = _vwt(x, t)
        vq_ = v if x == 0.0 else -v
    elif win:
        v, w = _vw(x, t)
        vq_ = -v
    else:
        v, w = _vw(-x, t)
        v, vq_ = -v, v
    return (f * si * v, f * (math.sqrt(vi) / c) * si / c * w, f * sq * vq_,
            f * (math.sqrt(vq) / c) * sq / c * w)


@kernel
def _weng_lin_1v1(player, rank, st, pred, pair, gp, prm):
    """Matches of two one-player teams without weights or margins (every model): the
    general update written out for ``k = 2`` (Plackett-Luce and both Bradley-Terry
    models coincide there), one game after another: the definition that the 1v1 lanes
    (:func:`_lanes_1v1`, which ``rate`` runs) follow to the bit, as a test checks.
    ``st`` holds ``mu, sigma^2`` of every player interleaved; ``pred`` gets both teams'
    win probability, ``pair`` the first's; ``gp`` counts the games played."""
    beta2, tau2, kappa = prm.beta2, prm.tau2, prm.kappa
    tm = prm.model == TM_FULL or prm.model == TM_PART
    for g in range(player.shape[0] // 2):
        a = player[2 * g]
        b = player[2 * g + 1]
        tie = rank[2 * g] == rank[2 * g + 1]
        ma = st[2 * a]
        mb = st[2 * b]
        va0 = st[2 * a + 1]
        vb0 = st[2 * b + 1]
        va = va0 + tau2
        vb = vb0 + tau2
        c2 = va + vb + 2.0 * beta2
        c = math.sqrt(c2)
        ic = 1.0 / c
        pl = 1.0 / (1.0 + exp((mb - ma) * ic))
        if prm.predict:
            pa = _cdf((ma - mb) * ic) if prm.normal else pl
            pred[2 * g] = pa
            pred[2 * g + 1] = 1.0 - pa
            pair[g] = pa
        gp[a] += 1
        gp[b] += 1
        if tm:
            cc = c
            if prm.model == TM_PART:
                cc = 2.0 * c
            x = (ma - mb) / cc
            t = prm.epsilon / cc
            if tie:
                oa, da = _vwt(x, t)
                ob, db = (oa if x == 0.0 else -oa), da
            else:
                oa, da = _vw(x, t)
                ob, db = -oa, da
            ica = 1.0 / cc
            om_a = va * ica * oa
            om_b = vb * ica * ob
            de_a = math.sqrt(va) * ica * va * ica * ica * da
            de_b = math.sqrt(vb) * ica * vb * ica * ica * db
        else:
            p = pl
            q = 1.0 - p
            sa = 0.5 if tie else 1.0
            pq = p * q * ic * ic * ic
            om_a = va * ic * (sa - p)
            om_b = vb * ic * ((1.0 - sa) - q)
            de_a = math.sqrt(va) * va * pq
            de_b = math.sqrt(vb) * vb * pq
        na = va * max(1.0 - de_a, kappa)
        nb = vb * max(1.0 - de_b, kappa)
        if prm.limit_sigma:
            na = min(na, va0)
            nb = min(nb, vb0)
        st[2 * a] = ma + om_a
        st[2 * a + 1] = na
        st[2 * b] = mb + om_b
        st[2 * b + 1] = nb


@kernel
def _pairwise_ffa(mto, player, rank, st, pred, pair, gp, prm):
    """The pairwise models (Thurstone-Mosteller, full and partial, whose ``v``, ``w``
    branch; Bradley-Terry runs in :func:`_lanes`) over matches of one-player teams
    without weights or margins (free-for-alls), logistic predictions:
    :func:`_weng_lin_kernel`'s update with every team a single player (so ``sigma_j^2 /
    sigma_T^2 = 1``), every pair of teams evaluated once for both (:func:`_pair_both`)."""
    n_matches = mto.shape[0] - 1
    kmax = 2
    for m in range(n_matches):
        kmax = max(kmax, mto[m + 1] - mto[m])
    mu = np.empty(kmax)
    var = np.empty(kmax)
    r3 = np.empty(kmax)
    ee = np.empty(kmax)
    om = np.empty(kmax)
    de = np.empty(kmax)
    beta2, tau2, kappa, model, eps = prm.beta2, prm.tau2, prm.kappa, prm.model, prm.epsilon
    part = model == BT_PART or model == TM_PART
    win_ = prm.window if part else kmax
    po = 0
    for m in range(n_matches):
        t0 = mto[m]
        k = mto[m + 1] - t0
        csum = 0.0
        xmax = -math.inf
        for i in range(k):
            p = player[t0 + i]
            mu[i] = st[2 * p]
            v = st[2 * p + 1] + tau2
            var[i] = v
            r3[i] = math.sqrt(v) * v
            csum += v + beta2
            xmax = max(xmax, mu[i])
            om[i] = 0.0
            de[i] = 0.0
        if prm.predict:  # (the strengths serve only the predictions here)
            ic = 1.0 / math.sqrt(csum)
            tot = 0.0
            for i in range(k):
                ee[i] = exp(max((mu[i] - xmax) * ic, MIN_LOG_STRENGTH))
                tot += ee[i]
            itot = 1.0 / tot
            for i in range(k):
                pred[t0 + i] = ee[i] * itot
            for i in range(k):
                for j in range(i + 1, k):
                    pair[po] = _pair_share(ee[i], ee[j], mu[i] - mu[j], ic)
                    po += 1
        for i in range(k):
            ri = rank[t0 + i]
            for q in range(i + 1, min(k, i + win_ + 1)):
                rq = rank[t0 + q]
                oi, di, oq, dq = _pair_both(model, mu[i], mu[q], var[i], var[q], r3[i], r3[q],
                                            ri == rq, ri < rq, beta2, eps, 1.0, 1.0)
                om[i] += oi
                de[i] += di
                om[q] += oq
                de[q] += dq
        for i in range(k):
            o = om[i]
            d = de[i]
            if part:
                n_cmp = min(k, i + win_ + 1) - max(0, i - win_) - 1
                if n_cmp > 0:
                    o /= n_cmp
                    d /= n_cmp
            v = var[i]
            nv = v * max(1.0 - d, kappa)
            p = player[t0 + i]
            if prm.limit_sigma:
                nv = min(nv, st[2 * p + 1])
            st[2 * p] = mu[i] + o
            st[2 * p + 1] = nv
            gp[p] += 1


@inline_kernel
def _bt_pair(vi, vq, mi, mq, s, beta2):
    """One Bradley-Terry comparison of teams ``i`` and ``q`` in the lanes (no weights or
    margins: :func:`_pair_both`'s formula with ``f = div = 1``): ``(Omega_i term,
    Omega_q term, p_iq p_qi / c^3)`` for ``i``'s score ``s``; each team's ``Delta`` term
    is its ``sigma^3`` times the last (``e = exp(-|z|)``: the favourite's ``1/(1 + e)``,
    the underdog's ``e/(1 + e)``, both to full relative precision)."""
    c = math.sqrt(vi + vq + 2.0 * beta2)
    ic = 1.0 / c
    ic3 = ic * ic * ic
    z = (mq - mi) * ic
    e = exp(-abs(z))
    a = 1.0 / (1.0 + e)
    bb = e * a
    fav = z <= 0.0
    return (vi * ic * (s - select(fav, a, bb)), vq * ic * ((1.0 - s) - select(fav, bb, a)),
            (a * bb) * ic3)


#: Bradley-Terry runs in lanes only while the matches have at most this many teams on
#: average: a single match of thousands of players fills one lane of its batch, and
#: the other lanes' pairs cost 1.5x the scalar kernel (3,000 players)
_LANES_MAX_MEAN_TEAMS = 32
#: free-for-alls whose updates run side by side: up to this many consecutive matches
#: with the same number of teams and no player in common (independent, so one step of
#: all of them is a loop over lanes that LLVM vectorises; one match is a short chain)
_LANES = 16


@inline_kernel
def _prefetch_seats(lo, hi, player, st, gp):
    """Ask for the state and games played of the players of seats ``lo <= s < hi``."""
    for s in range(np.uint64(lo), np.uint64(hi)):
        q = np.uint64(player[s])
        prefetch_row(st, q + q)
        prefetch_row(gp, q)


@inline_kernel
def _team_sums(lo, hi, player, st, tau2):
    """The sums of ``mu`` and of ``sigma^2 + tau^2`` over the seats ``lo <= s < hi``
    (unsigned), in seat order (a team's ``mu`` and ``sigma^2`` in the lanes; the players
    are marked busy by :func:`_lane_batch`)."""
    one = np.uint64(1)
    am = 0.0
    av = 0.0
    for s in range(lo, hi):
        p = np.uint64(player[s])
        am += st[p + p]
        av += st[p + p + one] + tau2
    return am, av


@inline_kernel
def _claim_seats(lo, hi, player, busy, st, tau2, mark):
    """:func:`_mark_seats` and :func:`_team_sums` in one pass over the seats (the two-team
    lanes: 3% of a 2v2 call against two passes): ``(mu sum, sigma^2 + tau^2 sum, whether
    a player was busy)``; the sums are only of use when no player was busy."""
    one = np.uint64(1)
    am = 0.0
    av = 0.0
    taken = False
    for s in range(lo, hi):
        p = np.uint64(player[s])
        taken |= _mark_player(busy, p, mark)
        am += st[p + p]
        av += st[p + p + one] + tau2
    return am, av, taken


@inline_kernel
def _mark_player(busy, p, mark):
    """Mark player ``p`` with ``mark`` if he is free (``busy`` 0); whether he was busy."""
    if busy[p] == 0:
        busy[p] = mark
        return False
    return True


@inline_kernel
def _mark_seats(lo, hi, player, busy, mark):
    """Mark each free player of the seats ``lo <= s < hi`` (unsigned) with ``mark``
    (:func:`_mark_player`); whether a player was busy already."""
    taken = False
    for s in range(lo, hi):
        taken |= _mark_player(busy, np.uint64(player[s]), mark)
    return taken


@inline_kernel
def _release_seats(lo, hi, player, busy, mark):
    """Unmark the players of seats ``lo <= s < hi`` that :func:`_claim_seats` marked
    ``mark`` (a match that did not fit its batch)."""
    for s in range(lo, hi):
        p = np.uint64(player[s])
        if busy[p] == mark:
            busy[p] = 0


@inline_kernel
def _share_team(lo, hi, player, busy, st, gp, tv, om, de, tau2, kappa, limit):
    """Every player of the seats ``lo <= s < hi`` (unsigned) takes his share of his team's
    ``Omega`` (``om``) and ``Delta`` (``de``), in proportion to his ``sigma^2 + tau^2``
    of the team's ``tv`` (:func:`_weng_lin_kernel`'s update), counts a game and is no
    longer busy."""
    one = np.uint64(1)
    for s in range(lo, hi):
        p = np.uint64(player[s])
        v0 = st[p + p + one]
        v = v0 + tau2
        ratio = v / tv
        st[p + p] += ratio * om
        nv = v * max(1.0 - ratio * de, kappa)
        if limit:
            nv = min(nv, v0)
        st[p + p + one] = nv
        gp[p] += 1
        busy[p] = 0


@inline_kernel
def _lane_batch(m, mto, tpo, player, busy, lane_t0, nl, st, gp):
    """The lanes of the batch starting at match ``m``: the first team of each of up to
    ``nl`` consecutive matches with as many teams as match ``m`` and no player in common.
    ``busy[p]`` is set (to the lane's number + 1) for every player put in the batch (the
    caller clears it when it stores him back). The players of the next ``nl`` matches
    are prefetched (their state ``st`` and games ``gp``: the next batch's gather then
    finds them in the cache). Returns the number of lanes. (Seats and players unsigned:
    no negative-index fix-ups.)"""
    k = mto[m + 1] - mto[m]
    nb = 0
    j = m
    n = mto.shape[0] - 1
    while nb < nl and j < n and mto[j + 1] - mto[j] == k:
        s_lo = np.uint64(tpo[mto[j]])
        s_hi = np.uint64(tpo[mto[j + 1]])
        mark = np.uint8(nb + 1)  # (marked and checked in one pass over the seats)
        if _mark_seats(s_lo, s_hi, player, busy, mark):
            _release_seats(s_lo, s_hi, player, busy, mark)
            break
        if j + nl < n:
            _prefetch_seats(tpo[mto[j + nl]], tpo[mto[j + nl + 1]], player, st, gp)
        lane_t0[nb] = mto[j]
        nb += 1
        j += 1
    return nb


#: the lanes' work array: team ``i`` of lane ``b`` at ``i * _BLK + f + b`` for these field
#: offsets ``f`` (structure of arrays within a team's block: the lanes of a field are
#: contiguous; one array with constant distances between the fields, so that a loop
#: over the lanes needs no run-time alias checks, which LLVM gives up on beyond a few):
#: mu, sigma^2 before and after tau^2, the strength e, the sum of e from the team on,
#: first of its rank group (1.0), 1 / the group's size, rank, Omega then the new mu,
#: Delta then the new sigma^2, sigma^3
(_MU, _V0, _VAR, _EE, _SUF, _NG, _IA, _RK, _OM, _DE, _R3) = (f * _LANES for f in range(11))
_BLK = 11 * _LANES
#: per lane (a second array): c^2 (then a running sum), max mu, c, 1/c, the group sums
(_CS, _XM, _XC, _IC, _G1, _G2) = (f * _LANES for f in range(6))


@kernel
def _lanes(mto, tpo, player, rank, st, pred, pair, gp, prm, teams):
    """Plackett-Luce and the Bradley-Terry models over matches without weights, margins
    or balance, logistic predictions, for up to ``_LANES`` independent consecutive
    matches with the same number of teams side by side (see ``_BLK``). Each step is a
    loop over the lanes without a branch, which LLVM vectorises; every lane does the
    operations of its match alone in the same order (rank groups and the pair's result
    selected, not branched on), so the ratings and predictions are the same bits as one
    match after the other.

    ``teams`` False (every team one player, free-for-alls): the update with
    ``sigma_j^2 / sigma_T^2 = 1`` as the scalar free-for-all kernels had it
    (Plackett-Luce's rank-group sums as running sums, O(k) per match; Bradley-Terry
    every pair once for both teams, :func:`_pair_both`'s formula, as
    :func:`_pairwise_ffa`); the same bits as those (1.2x Plackett-Luce, 2-3x
    Bradley-Terry). ``teams`` True: :func:`_weng_lin_kernel`'s update and order of
    operations (team sums, ``Omega`` and ``Delta`` per team, then every player's share),
    the same bits as that kernel."""
    n_matches = mto.shape[0] - 1
    nl = _LANES
    kmax = 2
    for m in range(n_matches):
        kmax = max(kmax, mto[m + 1] - mto[m])
    wk = np.zeros(kmax * _BLK)
    ln = np.zeros(6 * nl)
    lane_t0 = np.empty(nl, dtype=np.int64)
    busy = np.zeros(st.shape[0] // 2, dtype=np.uint8)  # 1: in the batch being formed
    one = np.uint64(1)
    beta2, tau2, kappa, model = prm.beta2, prm.tau2, prm.kappa, prm.model
    limit = prm.limit_sigma
    tadd = 0.0 if teams else tau2  # (a team's sum has tau^2 in already; x + 0.0 is x)
    pl = model == PL
    part = model == BT_PART
    win_ = prm.window if part else kmax
    po = 0
    m = 0
    while m < n_matches:
        k = mto[m + 1] - mto[m]
        nb = _lane_batch(m, mto, tpo, player, busy, lane_t0, nl, st, gp)
        # -- gather (unused lanes repeat lane 0's match: harmless, never stored) ------
        for b in range(nb, nl):
            lane_t0[b] = lane_t0[0]
        if teams:  # the team sums (sigma^2 + tau^2 in _V0)
            for b in range(nl):
                t0 = lane_t0[b]
                for i in range(k):
                    x = i * _BLK + b
                    am, av = _team_sums(np.uint64(tpo[t0 + i]), np.uint64(tpo[t0 + i + 1]),
                                        player, st, tau2)
                    wk[x + _MU] = am
                    wk[x + _V0] = av
                    wk[x + _RK] = rank[t0 + i]
        else:  # (one player a team: seat = team)
            for i in range(k):
                u = wk[i * _BLK:]
                for b in range(nl):
                    t = np.uint64(lane_t0[b] + i)
                    p = np.uint64(player[t])
                    u[_MU + b] = st[p + p]
                    u[_V0 + b] = st[p + p + one]
                    u[_RK + b] = rank[t]
        if pl:  # rank groups: the first team of each, 1 / its size
            for b in range(nl):
                tied = False
                for i in range(1, k):
                    tied |= wk[i * _BLK + _RK + b] == wk[(i - 1) * _BLK + _RK + b]
                if not tied:  # (the common case: every group a single team)
                    for i in range(k):
                        wk[i * _BLK + _NG + b] = 1.0
                        wk[i * _BLK + _IA + b] = 1.0
                    continue
                i = 0
                while i < k:
                    g1 = i + 1
                    while g1 < k and wk[g1 * _BLK + _RK + b] == wk[i * _BLK + _RK + b]:
                        g1 += 1
                    inv_a = 1.0 / (g1 - i)
                    for j in range(i, g1):
                        wk[j * _BLK + _NG + b] = 1.0 if j == i else 0.0
                        wk[j * _BLK + _IA + b] = inv_a
                    i = g1
        # -- the strengths' scale c and the largest mu ------------------------------
        for b in range(nl):
            ln[_CS + b] = 0.0
            ln[_XM + b] = -math.inf
        for i in range(k):
            u = wk[i * _BLK:]
            for b in range(nl):
                v = u[_V0 + b] + tadd
                u[_VAR + b] = v
                ln[_CS + b] += v + beta2
                ln[_XM + b] = max(ln[_XM + b], u[_MU + b])
                u[_OM + b] = 0.0
                u[_DE + b] = 0.0
            if not pl:  # (sigma^3 serves Bradley-Terry's pairs only: a square root less)
                for b in range(nl):
                    u[_R3 + b] = math.sqrt(u[_VAR + b]) * u[_VAR + b]
        for b in range(nl):
            c = math.sqrt(ln[_CS + b])
            ln[_XC + b] = c
            ln[_IC + b] = 1.0 / c
        if pl or prm.predict:
            for i in range(k):
                u = wk[i * _BLK:]
                for b in range(nl):
                    u[_EE + b] = exp(max((u[_MU + b] - ln[_XM + b]) * ln[_IC + b],
                                         MIN_LOG_STRENGTH))
        if pl:
            # S from each team on, then the rank groups front to back
            for b in range(nl):
                ln[_CS + b] = 0.0
                ln[_G1 + b] = 0.0
                ln[_G2 + b] = 0.0
            for i in range(k - 1, -1, -1):
                u = wk[i * _BLK:]
                for b in range(nl):
                    ln[_CS + b] += u[_EE + b]
                    u[_SUF + b] = ln[_CS + b]
            for i in range(k):
                u = wk[i * _BLK:]
                if teams:  # (Omega, Delta: the teams' players take their shares)
                    for b in range(nl):
                        first = u[_NG + b] != 0.0
                        inv = 1.0 / u[_SUF + b]
                        r1 = select(first, ln[_G1 + b] + inv, ln[_G1 + b])
                        r2 = select(first, ln[_G2 + b] + inv * inv, ln[_G2 + b])
                        ln[_G1 + b] = r1
                        ln[_G2 + b] = r2
                        ic = ln[_IC + b]
                        ic3 = ic * ic * ic
                        e = u[_EE + b]
                        v = u[_VAR + b]
                        u[_OM + b] = (u[_IA + b] - e * r1) * v * ic
                        u[_DE + b] = (e * r1 - e * e * r2) * math.sqrt(v) * v * ic3
                    continue
                for b in range(nl):
                    first = u[_NG + b] != 0.0
                    inv = 1.0 / u[_SUF + b]
                    r1 = select(first, ln[_G1 + b] + inv, ln[_G1 + b])
                    r2 = select(first, ln[_G2 + b] + inv * inv, ln[_G2 + b])
                    ln[_G1 + b] = r1
                    ln[_G2 + b] = r2
                    ic = ln[_IC + b]
                    ic3 = ic * ic * ic
                    e = u[_EE + b]
                    v = u[_VAR + b]
                    u[_OM + b] = u[_MU + b] + (u[_IA + b] - e * r1) * v * ic
                    nv = v * max(1.0 - (e * r1 - e * e * r2) * math.sqrt(v) * v * ic3, kappa)
                    u[_DE + b] = select(limit, min(nv, u[_V0 + b]), nv)
        else:
            # Bradley-Terry: every pair once for both teams, each team's terms summed
            # in the order of its opponents (_pair_both's formula, f = div = 1)
            for i in range(k):
                u = wk[i * _BLK:]
                for q in range(i + 1, min(k, i + win_ + 1)):
                    w = wk[q * _BLK:]
                    for b in range(nl):
                        ri = u[_RK + b]
                        rq = w[_RK + b]
                        oi, oq, pq = _bt_pair(u[_VAR + b], w[_VAR + b], u[_MU + b],
                                              w[_MU + b],
                                              select(ri < rq, 1.0, select(ri == rq, 0.5, 0.0)),
                                              beta2)
                        u[_OM + b] += oi
                        u[_DE + b] += u[_R3 + b] * pq
                        w[_OM + b] += oq
                        w[_DE + b] += w[_R3 + b] * pq
            for i in range(k):
                n_cmp = min(k, i + win_ + 1) - max(0, i - win_) - 1
                avg = part and n_cmp > 0
                u = wk[i * _BLK:]
                if teams:  # Omega, Delta of the team (players' shares below)
                    if avg:
                        for b in range(nl):
                            u[_OM + b] /= n_cmp
                            u[_DE + b] /= n_cmp
                    continue
                for b in range(nl):
                    o = u[_OM + b]
                    d = u[_DE + b]
                    if avg:
                        o /= n_cmp
                        d /= n_cmp
                    v = u[_VAR + b]
                    nv = v * max(1.0 - d, kappa)
                    u[_OM + b] = u[_MU + b] + o
                    u[_DE + b] = select(limit, min(nv, u[_V0 + b]), nv)
        # -- predictions and the players, match by match ----------------------------
        for b in range(nb):
            t0 = lane_t0[b]
            if prm.predict:
                tot = 0.0
                for i in range(k):
                    tot += wk[i * _BLK + _EE + b]
                itot = 1.0 / tot
                for i in range(k):
                    pred[t0 + i] = wk[i * _BLK + _EE + b] * itot
                for i in range(k):
                    x = i * _BLK + b
                    for j in range(i + 1, k):
                        y = j * _BLK + b
                        pair[po] = _pair_share(wk[x + _EE], wk[y + _EE],
                                               wk[x + _MU] - wk[y + _MU], ln[_IC + b])
                        po += 1
            for i in range(k):
                x = i * _BLK + b
                if teams:  # every player's share of his team's variance
                    _share_team(np.uint64(tpo[t0 + i]), np.uint64(tpo[t0 + i + 1]), player,
                                busy, st, gp, wk[x + _VAR], wk[x + _OM], wk[x + _DE], tau2,
                                kappa, limit)
                else:
                    p = np.uint64(player[t0 + i])
                    st[p + p] = wk[x + _OM]
                    st[p + p + one] = wk[x + _DE]
                    gp[p] += 1
                    busy[p] = 0
        m += nb


@inline_kernel
def _tm_libm_lanes(wk, nb, xt_at, phi_at, pdf_at, tie_at, x_at, t_at, vt0_at, vt1_at,
                   wt_at):
    """Thurstone-Mosteller in lanes (the 1v1 and two-team lanes; ``*_at``: the fields of
    ``wk``): ``Phi(x - t)`` and ``phi(x - t)`` of the lanes ``< nb`` with libm's ``erf``
    and ``exp`` (whose bits openskill's guards need), one lane after another in a loop
    of their own (lanes ``nb`` on get a harmless 0.5 and 1), and a tied lane's ``v~``
    of both sides and ``w~`` (:func:`_vwt`; ``v~(-x) = -v~(x)``)."""
    ties = False
    for j in range(_LANES):
        xt = wk[xt_at + j]
        wk[phi_at + j] = _cdf(xt) if j < nb else 0.5
        wk[pdf_at + j] = _pdf(xt) if j < nb else 1.0
        ties |= j < nb and wk[tie_at + j] != 0.0
    if ties:
        for j in range(nb):
            if wk[tie_at + j] != 0.0:
                x = wk[x_at + j]
                vt, wt = _vwt(x, wk[t_at + j])
                wk[vt0_at + j] = vt
                wk[vt1_at + j] = vt if x == 0.0 else -vt
                wk[wt_at + j] = wt


@inline_kernel
def _tm_lane_vw(xt, d, pdf, x, tie, vt0, vt1, wt):
    """One lane's Thurstone-Mosteller ``(v of the first side, v of the second, w)``: from
    ``d = Phi(x - t)`` and ``pdf = phi(x - t)``, :func:`_vw` of a win by the first side
    with its guard (``Phi < eps``) selected, not branched on; or, ``tie``, the tie's
    ``v~`` of both sides and ``w~`` (for the lanes' loops that LLVM vectorises)."""
    low = d < _EPS
    v = select(low, -xt, pdf / d)
    w = select(low, select(x < 0.0, 1.0, 0.0), v * (v + xt))
    return select(tie, vt0, v), select(tie, vt1, -v), select(tie, wt, w)


#: the two-team lanes' work array (one field of ``_LANES`` lanes after another): both
#: teams' mu and sigma^2 sums, the tie (1.0); their Omega and Delta; the strengths; 1/c
#: and c; for Thurstone-Mosteller the pair's c' (2c for the partial model), x, t,
#: x - t, Phi(x - t), phi(x - t), and a tie's v~ of both teams and w~
(_T_MU0, _T_V0, _T_MU1, _T_V1, _T_TIE, _T_OM0, _T_DE0, _T_OM1, _T_DE1, _T_E0, _T_E1,
 _T_IC, _T_C, _T_CC, _T_X, _T_T, _T_XT, _T_PHI, _T_PDF, _T_VT0, _T_VT1, _T_WT) = (
    f * _LANES for f in range(22))


@inline_kernel
def _thurstone_mosteller_two_teams(wk, nb, beta2, eps, part):
    """The two-team lanes' Thurstone-Mosteller step: both teams' ``Omega`` and ``Delta``
    (into ``_T_OM0`` ... ``_T_DE1``) from :func:`_pair_both`'s formula with ``f = div =
    1`` in its order of operations (team 0 ranked first: a win or a tie). libm's
    ``erf`` and ``exp`` run lane by lane in a loop of their own, the guard ``Phi < eps``
    is selected, a tie's ``v~``, ``w~`` (:func:`_vwt`) are computed for tied lanes only;
    the rest is vectorised (lanes ``nb`` on: a harmless match)."""
    nl = _LANES
    for j in range(nl):
        c = math.sqrt(wk[_T_V0 + j] + wk[_T_V1 + j] + 2.0 * beta2)
        c = select(part, 2.0 * c, c)
        x = (wk[_T_MU0 + j] - wk[_T_MU1 + j]) / c / 1.0
        t = eps / c
        wk[_T_CC + j] = c
        wk[_T_X + j] = x
        wk[_T_T + j] = t
        wk[_T_XT + j] = x - t
    _tm_libm_lanes(wk, nb, _T_XT, _T_PHI, _T_PDF, _T_TIE, _T_X, _T_T, _T_VT0, _T_VT1,
                   _T_WT)
    for j in range(nl):
        v0, v1, w = _tm_lane_vw(wk[_T_XT + j], wk[_T_PHI + j], wk[_T_PDF + j], wk[_T_X + j],
                                wk[_T_TIE + j] != 0.0, wk[_T_VT0 + j], wk[_T_VT1 + j],
                                wk[_T_WT + j])
        c = wk[_T_CC + j]
        vi = wk[_T_V0 + j]
        vq = wk[_T_V1 + j]
        si = vi / c
        sq = vq / c
        om0 = 0.0
        de0 = 0.0
        om1 = 0.0
        de1 = 0.0
        om0 += 1.0 * si * v0
        de0 += 1.0 * (math.sqrt(vi) / c) * si / c * w
        om1 += 1.0 * sq * v1
        de1 += 1.0 * (math.sqrt(vq) / c) * sq / c * w
        wk[_T_OM0 + j] = om0
        wk[_T_DE0 + j] = de0
        wk[_T_OM1 + j] = om1
        wk[_T_DE1 + j] = de1


@kernel
def _lanes_two_teams(mto, tpo, player, rank, st, pred, pair, gp, prm):
    """:func:`_lanes` with ``teams`` True for matches of exactly two teams (2v2, 5v5 ...),
    every model (Thurstone-Mosteller: :func:`_thurstone_mosteller_two_teams`, the same
    bits as :func:`_weng_lin_kernel`): the batch found and the team sums gathered in one
    pass over each match's seats, then one branch-free loop over the lanes with the two
    teams' steps written out (no loops over teams, no rank groups to form: with the
    teams stored best first, two teams are one group when tied, two otherwise). Every
    operation is :func:`_lanes`' for two teams, in its order, so the ratings and
    predictions are the same bits (tests compare them)."""
    beta2, tau2, kappa = prm.beta2, prm.tau2, prm.kappa
    limit = prm.limit_sigma
    pl = prm.model == PL
    tm = prm.model == TM_FULL or prm.model == TM_PART
    nl = _LANES
    n = mto.shape[0] - 1
    wk = np.zeros(22 * nl)
    busy = np.zeros(st.shape[0] // 2, dtype=np.uint8)  # 1: in the batch being formed
    g = 0
    while g < n:
        nb = 0
        while nb < nl and g + nb < n:
            t0 = mto[g + nb]
            s_lo = np.uint64(tpo[t0])
            s_mid = np.uint64(tpo[t0 + 1])
            s_hi = np.uint64(tpo[t0 + 2])
            # claimed and checked in one pass over the seats (a player already in the
            # batch: the match is released and starts the next batch)
            mark = np.uint8(nb + 1)
            am, av, ta = _claim_seats(s_lo, s_mid, player, busy, st, tau2, mark)
            bm, bv, tb = _claim_seats(s_mid, s_hi, player, busy, st, tau2, mark)
            if ta or tb:
                _release_seats(s_lo, s_hi, player, busy, mark)
                break
            if g + nb + nl < n:
                t2 = mto[g + nb + nl]
                _prefetch_seats(tpo[t2], tpo[t2 + 2], player, st, gp)
            wk[_T_MU0 + nb] = am
            wk[_T_V0 + nb] = av
            wk[_T_MU1 + nb] = bm
            wk[_T_V1 + nb] = bv
            wk[_T_TIE + nb] = 1.0 if rank[t0] == rank[t0 + 1] else 0.0
            nb += 1
        for j in range(nb, nl):  # unused lanes: a harmless match, never stored
            wk[_T_MU0 + j] = 0.0
            wk[_T_V0 + j] = 1.0
            wk[_T_MU1 + j] = 0.0
            wk[_T_V1 + j] = 1.0
            wk[_T_TIE + j] = 0.0
        if pl or prm.predict:  # the strengths (Plackett-Luce's, and the predictions')
            for j in range(nl):
                va = wk[_T_V0 + j]
                vb = wk[_T_V1 + j]
                cs = 0.0
                cs += va + beta2
                cs += vb + beta2
                ma = wk[_T_MU0 + j]
                mb = wk[_T_MU1 + j]
                c = math.sqrt(cs)
                ic = 1.0 / c
                # the stronger team's strength is exp(0) = 1 exactly: one exp, of the
                # weaker's (mu - max mu) / c, as :func:`_lanes` computes it
                first = ma >= mb
                e = exp(max((select(first, mb, ma) - select(first, ma, mb)) * ic,
                            MIN_LOG_STRENGTH))
                ea = select(first, 1.0, e)
                eb = select(first, e, 1.0)
                wk[_T_E0 + j] = ea
                wk[_T_E1 + j] = eb
                wk[_T_IC + j] = ic
                wk[_T_C + j] = c
        if pl:
            for j in range(nl):
                va = wk[_T_V0 + j]
                vb = wk[_T_V1 + j]
                ea = wk[_T_E0 + j]
                eb = wk[_T_E1 + j]
                ic = wk[_T_IC + j]
                ic3 = ic * ic * ic
                tie = wk[_T_TIE + j] != 0.0
                suf1 = 0.0 + eb
                suf0 = suf1 + ea
                ia = select(tie, 0.5, 1.0)
                inv = 1.0 / suf0
                r1 = 0.0 + inv
                r2 = 0.0 + inv * inv
                wk[_T_OM0 + j] = (ia - ea * r1) * va * ic
                wk[_T_DE0 + j] = (ea * r1 - ea * ea * r2) * math.sqrt(va) * va * ic3
                inv = 1.0 / suf1
                r1 = select(tie, r1, r1 + inv)
                r2 = select(tie, r2, r2 + inv * inv)
                wk[_T_OM1 + j] = (ia - eb * r1) * vb * ic
                wk[_T_DE1 + j] = (eb * r1 - eb * eb * r2) * math.sqrt(vb) * vb * ic3
        if tm:
            _thurstone_mosteller_two_teams(wk, nb, beta2, prm.epsilon, prm.model == TM_PART)
        if not pl and not tm:  # Bradley-Terry (full, or partial, window >= 1: one pair)
            for j in range(nl):
                vi = wk[_T_V0 + j]
                vq = wk[_T_V1 + j]
                sc = select(wk[_T_TIE + j] != 0.0, 0.5, 1.0)  # (best first: a win or a tie)
                oi, oq, pq = _bt_pair(vi, vq, wk[_T_MU0 + j], wk[_T_MU1 + j], sc, beta2)
                om0 = 0.0
                de0 = 0.0
                om1 = 0.0
                de1 = 0.0
                om0 += oi
                de0 += math.sqrt(vi) * vi * pq
                om1 += oq
                de1 += math.sqrt(vq) * vq * pq
                wk[_T_OM0 + j] = om0
                wk[_T_DE0 + j] = de0
                wk[_T_OM1 + j] = om1
                wk[_T_DE1 + j] = de1
        for j in range(nb):  # predictions and the players, match by match
            m = g + j
            t0 = mto[m]
            if prm.predict:
                tot = 0.0
                tot += wk[_T_E0 + j]
                tot += wk[_T_E1 + j]
                itot = 1.0 / tot
                pred[t0] = wk[_T_E0 + j] * itot
                pred[t0 + 1] = wk[_T_E1 + j] * itot
                pair[m] = _pair_share(wk[_T_E0 + j], wk[_T_E1 + j],
                                      wk[_T_MU0 + j] - wk[_T_MU1 + j], wk[_T_IC + j])
            for i in range(2):
                _share_team(np.uint64(tpo[t0 + i]), np.uint64(tpo[t0 + i + 1]), player, busy,
                            st, gp, wk[_T_V0 + 2 * i * nl + j], wk[_T_OM0 + 2 * i * nl + j],
                            wk[_T_DE0 + 2 * i * nl + j], tau2, kappa, limit)
        g += nb


#: the 1v1 lanes' work array (one field of ``_LANES`` lanes after another): both
#: players' mu and sigma^2, the tie (1.0); the new values, the first's win probability
#: and 1/c; for Thurstone-Mosteller also sigma^2 + tau^2 of both, x, x - t, 1/c' (c' =
#: c, or 2c for the partial model), Phi(x - t) and exp(-(x - t)^2 / 2), and a tie's
#: v~ of both players and w~, t
(_A_MU, _A_V, _B_MU, _B_V, _TIE1, _A_NMU, _A_NV, _B_NMU, _B_NV, _P_A, _IC1, _VA1, _VB1,
 _X1, _XT1, _ICA1, _PHI1, _PDF1, _VTA1, _VTB1, _WT1, _T1) = (f * _LANES for f in range(22))


@inline_kernel
def _thurstone_mosteller_lanes(wk, nb, beta2, tau2, kappa, limit, part, eps):
    """The 1v1 lanes' Thurstone-Mosteller step (:func:`_lanes_1v1`): the new ``mu``,
    ``sigma^2`` of both players, the logistic ``p`` and ``1/c`` of every lane, in
    :func:`_weng_lin_1v1`'s operations and order (lanes ``nb`` on: a harmless game)."""
    nl = _LANES
    for j in range(nl):
        ma = wk[_A_MU + j]
        mb = wk[_B_MU + j]
        va = wk[_A_V + j] + tau2
        vb = wk[_B_V + j] + tau2
        c = math.sqrt(va + vb + 2.0 * beta2)
        ic = 1.0 / c
        cc = select(part, 2.0 * c, c)
        x = (ma - mb) / cc
        t = eps / cc
        wk[_P_A + j] = 1.0 / (1.0 + exp((mb - ma) * ic))
        wk[_IC1 + j] = ic
        wk[_VA1 + j] = va
        wk[_VB1 + j] = vb
        wk[_X1 + j] = x
        wk[_T1 + j] = t
        wk[_XT1 + j] = x - t
        wk[_ICA1 + j] = 1.0 / cc
    _tm_libm_lanes(wk, nb, _XT1, _PHI1, _PDF1, _TIE1, _X1, _T1, _VTA1, _VTB1, _WT1)
    for j in range(nl):
        oa, ob, da = _tm_lane_vw(wk[_XT1 + j], wk[_PHI1 + j], wk[_PDF1 + j], wk[_X1 + j],
                                 wk[_TIE1 + j] != 0.0, wk[_VTA1 + j], wk[_VTB1 + j],
                                 wk[_WT1 + j])
        ica = wk[_ICA1 + j]
        va = wk[_VA1 + j]
        vb = wk[_VB1 + j]
        de_a = math.sqrt(va) * ica * va * ica * ica * da
        de_b = math.sqrt(vb) * ica * vb * ica * ica * da
        na = va * max(1.0 - de_a, kappa)
        nb_ = vb * max(1.0 - de_b, kappa)
        wk[_A_NV + j] = select(limit, min(na, wk[_A_V + j]), na)
        wk[_B_NV + j] = select(limit, min(nb_, wk[_B_V + j]), nb_)
        wk[_A_NMU + j] = wk[_A_MU + j] + va * ica * oa
        wk[_B_NMU + j] = wk[_B_MU + j] + vb * ica * ob


@kernel
def _lanes_1v1(player, rank, st, pred, pair, gp, prm):
    """:func:`_weng_lin_1v1`, every model, up to ``_LANES`` consecutive games without a
    player in common side by side: branch-free loops over the lanes that LLVM
    vectorises, each lane doing the operations of its game alone (the same bits).

    Thurstone-Mosteller's ``Phi`` and ``phi`` are libm's ``erf`` and ``exp`` (whose
    bits openskill's guards need), called lane by lane in a loop of their own; its
    guard (``Phi < eps``) is selected, not branched on; a tie's ``v~``, ``w~``
    (:func:`_vwt`) are computed lane by lane for the tied games only."""
    beta2, tau2, kappa = prm.beta2, prm.tau2, prm.kappa
    limit = prm.limit_sigma
    tm = prm.model == TM_FULL or prm.model == TM_PART
    part = prm.model == TM_PART
    eps = prm.epsilon
    nl = _LANES
    n = player.shape[0] // 2
    wk = np.zeros(22 * nl)
    stamp = np.full(st.shape[0] // 2, -1, dtype=np.int64)
    g = 0
    while g < n:
        nb = 0
        while nb < nl and g + nb < n:
            a = player[2 * (g + nb)]
            b = player[2 * (g + nb) + 1]
            if nb > 0 and (stamp[a] == g or stamp[b] == g):
                break
            stamp[a] = g
            stamp[b] = g
            wk[_A_MU + nb] = st[2 * a]
            wk[_A_V + nb] = st[2 * a + 1]
            wk[_B_MU + nb] = st[2 * b]
            wk[_B_V + nb] = st[2 * b + 1]
            wk[_TIE1 + nb] = 1.0 if rank[2 * (g + nb)] == rank[2 * (g + nb) + 1] else 0.0
            nb += 1
        for j in range(nb, nl):  # unused lanes: a harmless game, never stored
            wk[_A_MU + j] = 0.0
            wk[_A_V + j] = 1.0
            wk[_B_MU + j] = 0.0
            wk[_B_V + j] = 1.0
            wk[_TIE1 + j] = 0.0
        if tm:
            _thurstone_mosteller_lanes(wk, nb, beta2, tau2, kappa, limit, part, eps)
        if not tm:  # (Plackett-Luce and Bradley-Terry: the logistic update)
            for j in range(nl):
                ma = wk[_A_MU + j]
                mb = wk[_B_MU + j]
                va0 = wk[_A_V + j]
                vb0 = wk[_B_V + j]
                va = va0 + tau2
                vb = vb0 + tau2
                c2 = va + vb + 2.0 * beta2
                c = math.sqrt(c2)
                ic = 1.0 / c
                p = 1.0 / (1.0 + exp((mb - ma) * ic))
                q = 1.0 - p
                sa = select(wk[_TIE1 + j] != 0.0, 0.5, 1.0)
                pq = p * q * ic * ic * ic
                om_a = va * ic * (sa - p)
                om_b = vb * ic * ((1.0 - sa) - q)
                de_a = math.sqrt(va) * va * pq
                de_b = math.sqrt(vb) * vb * pq
                na = va * max(1.0 - de_a, kappa)
                nb_ = vb * max(1.0 - de_b, kappa)
                wk[_A_NV + j] = select(limit, min(na, va0), na)
                wk[_B_NV + j] = select(limit, min(nb_, vb0), nb_)
                wk[_A_NMU + j] = ma + om_a
                wk[_B_NMU + j] = mb + om_b
                wk[_P_A + j] = p
                wk[_IC1 + j] = ic
        for j in range(nb):
            h = g + j
            a = player[2 * h]
            b = player[2 * h + 1]
            if prm.predict:
                pa = wk[_P_A + j]
                if prm.normal:
                    pa = _cdf((wk[_A_MU + j] - wk[_B_MU + j]) * wk[_IC1 + j])
                pred[2 * h] = pa
                pred[2 * h + 1] = 1.0 - pa
                pair[h] = pa
            gp[a] += 1
            gp[b] += 1
            st[2 * a] = wk[_A_NMU + j]
            st[2 * a + 1] = wk[_A_NV + j]
            st[2 * b] = wk[_B_NMU + j]
            st[2 * b + 1] = wk[_B_NV + j]
        g += nb


@kernel
def _weng_lin_kernel(mto, tpo, player, rank, weight, score, st, pred, pair, gp, prm):
    """Every match in order (the module docstring's update, every model and option).
    ``st`` holds ``mu, sigma^2`` of every player interleaved; ``weight`` (per seat) and
    ``score`` (per team) may be empty; ``pred``/``pair`` get the walk-forward
    predictions (see :func:`predict_win`); ``gp`` counts the games played. Weight-0
    seats are left out."""
    n_matches = mto.shape[0] - 1
    kmax = 2
    for m in range(n_matches):
        kmax = max(kmax, mto[m + 1] - mto[m])
    mu = np.empty(kmax)
    s2 = np.empty(kmax)
    rk = np.empty(kmax, dtype=np.int64)
    sc = np.empty(kmax)
    ee = np.empty(kmax)
    om = np.empty(kmax)
    de = np.empty(kmax)
    fg = np.empty(kmax)
    r3 = np.empty(kmax)
    has_w = weight.shape[0] > 0
    has_s = score.shape[0] > 0
    beta2, tau2, kappa, model = prm.beta2, prm.tau2, prm.kappa, prm.model
    margin = prm.margin
    po = 0
    for m in range(n_matches):
        t0 = mto[m]
        k = mto[m + 1] - t0
        # team sums (balance: openskill's ordinal weights, after tau)
        for i in range(k):
            t = t0 + i
            rk[i] = rank[t]
            sc[i] = score[t] if has_s else math.nan
            omax = -math.inf
            if prm.balance:
                for s in range(tpo[t], tpo[t + 1]):
                    if has_w and weight[s] == 0.0:
                        continue
                    p = player[s]
                    omax = max(omax, st[2 * p] - 3.0 * math.sqrt(st[2 * p + 1] + tau2))
            am = 0.0
            av = 0.0
            for s in range(tpo[t], tpo[t + 1]):
                w = weight[s] if has_w else 1.0
                if w == 0.0:
                    continue
                p = player[s]
                v = st[2 * p + 1] + tau2
                a = 1.0
                if prm.balance:
                    o = st[2 * p] - 3.0 * math.sqrt(v)
                    a = 1.0 + (omax - o) / (omax + kappa)
                if not prm.openskill_weights:
                    a *= w
                am += a * st[2 * p]
                av += a * a * v
            mu[i] = am
            s2[i] = av
        # predictions before the match
        csum = 0.0
        for i in range(k):
            csum += s2[i] + beta2
        c = math.sqrt(csum)
        ic = 1.0 / c
        ic3 = ic * ic * ic
        if prm.normal and prm.predict:
            tot = 0.0
            for i in range(k):
                acc = 0.0
                for j in range(k):
                    if j != i:
                        acc += _cdf((mu[i] - mu[j]) / math.sqrt(2.0 * beta2 + s2[i] + s2[j]))
                ee[i] = acc / (k - 1)
                tot += ee[i]
            for i in range(k):
                pred[t0 + i] = ee[i] / tot
            for i in range(k):
                for j in range(i + 1, k):
                    pair[po] = _cdf((mu[i] - mu[j]) / math.sqrt(2.0 * beta2 + s2[i] + s2[j]))
                    po += 1
        # strengths e_i = exp((mu_i - max mu) / c): the logistic predictions and the
        # Plackett-Luce update
        xmax = mu[0]
        for i in range(1, k):
            xmax = max(xmax, mu[i])
        for i in range(k):
            ee[i] = exp(max((mu[i] - xmax) * ic, MIN_LOG_STRENGTH))
        if prm.predict and not prm.normal:
            tot = 0.0
            for i in range(k):
                tot += ee[i]
            itot = 1.0 / tot
            for i in range(k):
                pred[t0 + i] = ee[i] * itot
            for i in range(k):
                for j in range(i + 1, k):
                    pair[po] = _pair_share(ee[i], ee[j], mu[i] - mu[j], ic)
                    po += 1
        if model == PL and margin > 0.0 and prm.openskill_margin:
            for i in range(k):  # openskill's margin shift of the strengths
                x = mu[i]
                if sc[i] == sc[i]:
                    adj = 0.0
                    cnt = 0
                    for j in range(k):
                        if j != i and sc[j] == sc[j]:
                            d = abs(sc[i] - sc[j])
                            if d > 0.0:
                                mf = _divisor(d, margin)
                                if sc[i] > sc[j]:
                                    adj -= (mu[i] - mu[j]) * (mf - 1.0)
                                else:
                                    adj += (mu[j] - mu[i]) * (mf - 1.0)
                                cnt += 1
                    x += adj / cnt if cnt > 0 else adj
                fg[i] = x
            xmax = fg[0]
            for i in range(1, k):
                xmax = max(xmax, fg[i])
            for i in range(k):
                ee[i] = exp(max((fg[i] - xmax) / c, MIN_LOG_STRENGTH))
        # Omega, Delta per team
        if model == PL:
            # rank groups [g0, g1): S_g = sum of e over g0..k-1, A_g = g1 - g0; the
            # evidence weight f_g of a group's win over the next group (margins)
            g0 = k - 1
            while g0 >= 0:
                g1 = g0 + 1
                while g0 > 0 and rk[g0 - 1] == rk[g0]:
                    g0 -= 1
                f = 1.0
                if margin > 0.0 and not prm.openskill_margin and g1 < k:
                    d = sc[g0] - sc[g1]
                    if d == d:
                        f = _factor(d, margin)
                for i in range(g0, g1):
                    fg[i] = f
                    om[i] = g1 - g0  # A_g, kept here for a moment
                g0 -= 1
            suffix = 0.0
            for i in range(k - 1, -1, -1):
                suffix += ee[i]
                de[i] = suffix  # S from i on; a group's S is the value at its first team
            r1 = 0.0
            r2 = 0.0
            i = 0
            while i < k:
                a_g = om[i]
                g1 = i + int(a_g)
                s_g = de[i]
                f = fg[i]
                inv = 1.0 / s_g
                r1 += f * inv
                r2 += f * (inv * inv)
                for j in range(i, g1):
                    e = ee[j]
                    om[j] = (f / a_g - e * r1) * s2[j] * ic
                    de[j] = (e * r1 - e * e * r2) * math.sqrt(s2[j]) * s2[j] * ic3
                i = g1
        else:
            # every pair once, for both teams (each team's terms still summed in the
            # order of its opponents)
            part = model == BT_PART or model == TM_PART
            win_ = prm.window if part else k
            for i in range(k):
                om[i] = 0.0
                de[i] = 0.0
                r3[i] = math.sqrt(s2[i]) * s2[i]
            for i in range(k):
                for q in range(i + 1, min(k, i + win_ + 1)):
                    f = 1.0
                    div = 1.0
                    if margin > 0.0 and sc[i] == sc[i] and sc[q] == sc[q]:
                        d = abs(sc[i] - sc[q])
                        if prm.openskill_margin:
                            div = _divisor(d, margin)
                        else:
                            f = _factor(d, margin)
                    oi, di, oq, dq = _pair_both(model, mu[i], mu[q], s2[i], s2[q], r3[i], r3[q],
                                                rk[i] == rk[q], rk[i] < rk[q], beta2,
                                                prm.epsilon, f, div)
                    om[i] += oi
                    de[i] += di
                    om[q] += oq
                    de[q] += dq
            if part:
                for i in range(k):
                    n_cmp = min(k, i + win_ + 1) - max(0, i - win_) - 1
                    if n_cmp > 0:
                        om[i] /= n_cmp
                        de[i] /= n_cmp
        # player updates
        strict = model == TM_PART
        for i in range(k):
            t = t0 + i
            wmin = 0.0
            wrange = 0.0
            n_in = 0
            if prm.openskill_weights and has_w:
                wmin = math.inf
                wmax = -math.inf
                for s in range(tpo[t], tpo[t + 1]):
                    if weight[s] > 0.0:
                        wmin = min(wmin, weight[s])
                        wmax = max(wmax, weight[s])
                        n_in += 1
                wrange = wmax - wmin
                if wrange == 0.0:
                    wrange = 0.0001
            gain = om[i] > 0.0 if strict else om[i] >= 0.0
            for s in range(tpo[t], tpo[t + 1]):
                w = weight[s] if has_w else 1.0
                if w == 0.0:
                    continue
                p = player[s]
                v0 = st[2 * p + 1]
                v = v0 + tau2
                ratio = v / s2[i]
                if prm.openskill_weights:
                    if has_w:
                        if n_in == 1:
                            w = prm.whi
                        else:
                            w = (w - wmin) / wrange * (prm.whi - prm.wlo) + prm.wlo
                    if gain:
                        st[2 * p] += ratio * om[i] * w
                        nv = v * max(1.0 - ratio * de[i] * w, kappa)
                    else:
                        st[2 * p] += ratio * om[i] / w
                        nv = v * max(1.0 - ratio * de[i] / w, kappa)
                else:
                    st[2 * p] += w * ratio * om[i]
                    nv = v * max(1.0 - w * w * ratio * de[i], kappa)
                if prm.limit_sigma:
                    nv = min(nv, v0)
                st[2 * p + 1] = nv
                gp[p] += 1


@kernel
def _pack_state(mu, sigma, mu0, sigma0, st):
    """``st = [mu_0, sigma_0^2, mu_1, ...]`` from the arrays ``mu``, ``sigma`` (or, when
    they are empty, every player at ``mu0``, ``sigma0``). (Unsigned player numbers: no
    negative-index fix-up, so the loops vectorise.)"""
    n = np.uint64(st.shape[0] // 2)
    two = np.uint64(2)
    one = np.uint64(1)
    if mu.shape[0] == 0:
        v0 = sigma0 * sigma0
        for p in range(n):
            st[two * p] = mu0
            st[two * p + one] = v0
    else:
        for p in range(n):
            st[two * p] = mu[p]
            st[two * p + one] = sigma[p] * sigma[p]


@kernel
def _unpack_state(st, k, mu, sigma, rating, var):
    """``mu``, ``var = sigma^2``, ``sigma`` and the conservative ``rating = mu - k sigma``
    from ``st`` (one pass; unsigned player numbers, so the square roots vectorise)."""
    two = np.uint64(2)
    one = np.uint64(1)
    for p in range(np.uint64(mu.shape[0])):
        m = st[two * p]
        v = st[two * p + one]
        s = math.sqrt(v)
        mu[p] = m
        var[p] = v
        sigma[p] = s
        rating[p] = m - k * s


# ----------------------------------------------------------------------------------
# public API


def margin_factor(d: Any, margin: float) -> Any:
    """fastrate's evidence weight of a win by ``d`` points (``margin > 0``): ``1`` up to
    ``margin``, then ``1 + ln(d / margin)``. A comparison won by ``d`` enters the
    model's likelihood ``margin_factor(d)`` times (Bradley-Terry, Thurstone-Mosteller:
    the pair's terms of ``Omega`` and ``Delta`` are multiplied by it; Plackett-Luce: the
    term of every rank group, by its margin over the next group), so a bigger win always
    moves the ratings more, the underdog's above all.

    >>> [round(float(x), 4) for x in margin_factor([1.0, 2.0, 4.0, 20.0], 2.0)]
    [1.0, 1.0, 1.6931, 3.3026]
    """
    d = np.asarray(d, dtype=np.float64)
    if margin <= 0.0:
        return np.ones_like(d)
    return np.where(d > margin, 1.0 + np.log(np.maximum(d, margin) / margin), 1.0)


def _team_arrays(teams: Sequence[Sequence[Any]], config: WengLinConfig
                 ) -> tuple[np.ndarray, np.ndarray, int]:
    """Team ``mu`` and ``sigma^2`` (the dynamics ``tau^2`` added, balance applied) of
    ``teams``: sequences of ``(mu, sigma)`` pairs; and the number of players."""
    if len(teams) < 2:
        raise InputError(f"a prediction needs at least 2 teams; got {len(teams)}")
    tau2 = float(config.tau) ** 2
    mus, vs, n = [], [], 0
    for t, team in enumerate(teams):
        arr = np.asarray(team, dtype=np.float64).reshape(-1, 2) if len(team) else None
        if arr is None:
            raise InputError(f"team {t} has no players")
        if not np.isfinite(arr).all() or (arr[:, 1] <= 0.0).any():
            raise InputError(f"team {t}: every player needs a finite mu and a sigma > 0; "
                             f"got {arr.tolist()!r}")
        m, v = arr[:, 0], arr[:, 1] ** 2 + tau2
        a = np.ones_like(m)
        if config.balance:
            o = m - 3.0 * np.sqrt(v)
            a = 1.0 + (o.max() - o) / (o.max() + config.kappa)
        mus.append(float((a * m).sum()))
        vs.append(float((a * a * v).sum()))
        n += arr.shape[0]
    return np.array(mus), np.array(vs), n


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _normal_cdf(z: np.ndarray) -> np.ndarray:
    """``Phi(z) = (1 + erf(z / sqrt 2)) / 2`` elementwise, as openskill computes it."""
    return 0.5 * (1.0 + _erf(z / _SQRT2))


def _pairwise_normal(mu: np.ndarray, v: np.ndarray, beta2: float) -> np.ndarray:
    d = (mu[:, None] - mu[None, :]) / np.sqrt(2.0 * beta2 + v[:, None] + v[None, :])
    return _normal_cdf(d)


def predict_win(teams: Sequence[Sequence[Any]], config: WengLinConfig = WengLinConfig()
                ) -> np.ndarray:
    """Every team's probability of winning (first place), from ``teams``: sequences of
    ``(mu, sigma)`` pairs. The belief at match time is used (``sigma^2 + tau^2``), as
    :func:`rate` does for its walk-forward ``predictions``.

    ``predict="logistic"`` (default): the Plackett-Luce probability ``e_i / sum_t e_t``,
    ``e_t = exp(mu_t / c)``, ``c^2 = sum_t (sigma_t^2 + beta^2)``; for two teams the
    Bradley-Terry ``1/(1 + exp(-(mu_1 - mu_2)/c))``. ``predict="normal"``: openskill's
    ``predict_win``: ``P_ij = Phi((mu_i - mu_j)/sqrt(2 beta^2 + sigma_i^2 + sigma_j^2))``
    averaged over the opponents and normalised to sum to 1.

    >>> [round(float(p), 4) for p in predict_win([[(30.0, 5.0)], [(25.0, 5.0)]])]
    [0.6325, 0.3675]
    """
    mu, v, _ = _team_arrays(teams, config)
    beta2 = float(config.beta) ** 2
    if config.predict == "normal":
        p = _pairwise_normal(mu, v, beta2)
        k = mu.shape[0]
        win = (p.sum(axis=1) - np.diag(p)) / (k - 1)
        return win / win.sum()
    c = math.sqrt(float((v + beta2).sum()))
    e = np.exp((mu - mu.max()) / c)
    return e / e.sum()


def predict_draw(teams: Sequence[Sequence[Any]], config: WengLinConfig = WengLinConfig()
                 ) -> float:
    """openskill's ``predict_draw``: with ``n`` players in all, the draw margin
    ``m = sqrt(n) beta Phi^-1((1 + 1/n)/2)`` and, averaged over the pairs of teams,
    ``Phi((m - d)/s) - Phi((-m - d)/s)``, ``d = mu_i - mu_j``,
    ``s = sqrt(2 beta^2 + sigma_i^2 + sigma_j^2)`` (``sigma^2 + tau^2`` as in
    :func:`predict_win`).

    >>> round(predict_draw([[(25.0, 25 / 3)], [(25.0, 25 / 3)]]), 4)
    0.2371
    """
    from statistics import NormalDist

    mu, v, n = _team_arrays(teams, config)
    beta = float(config.beta)
    nd = NormalDist()
    m = math.sqrt(n) * beta * nd.inv_cdf((1.0 + 1.0 / n) / 2.0)
    out = []
    k = mu.shape[0]
    for i in range(k):
        for j in range(i + 1, k):
            s = math.sqrt(2.0 * beta * beta + v[i] + v[j])
            d = mu[i] - mu[j]
            out.append(nd.cdf((m - d) / s) - nd.cdf((-d - m) / s))
    return float(sum(out) / len(out))


def predict_rank(teams: Sequence[Sequence[Any]], config: WengLinConfig = WengLinConfig()
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Expected placing of every team: ``(rank, probability)``, the teams ranked by
    their :func:`predict_win` probability (standard competition ranks, 1 best; equal
    probabilities tie), as openskill's ``predict_rank``.

    >>> r, p = predict_rank([[(20.0, 5.0)], [(30.0, 5.0)], [(25.0, 5.0)]])
    >>> r.tolist()
    [3, 1, 2]
    """
    p = predict_win(teams, config)
    rank = 1 + (p[None, :] > p[:, None]).sum(axis=1)
    return rank.astype(np.int64), p


def expected_score(mu_a: Any, sigma_a: Any, mu_b: Any, sigma_b: Any,
                   config: WengLinConfig = WengLinConfig()) -> Any:
    """Two teams' (or players') expected score, A against B, NumPy-vectorised:
    ``predict="logistic"``: ``1/(1 + exp(-(mu_a - mu_b)/c))``, ``c^2 = sigma_a^2 +
    sigma_b^2 + 2 tau^2 + 2 beta^2``; ``"normal"``: ``Phi((mu_a - mu_b)/c)``. What
    :func:`rate` stores for a match of two teams (team ``mu`` and ``sigma^2`` are sums).

    >>> round(float(expected_score(30.0, 5.0, 25.0, 5.0)), 4)
    0.6325
    """
    d = np.asarray(mu_a, dtype=np.float64) - np.asarray(mu_b, dtype=np.float64)
    c = np.sqrt(np.asarray(sigma_a, dtype=np.float64) ** 2
                + np.asarray(sigma_b, dtype=np.float64) ** 2
                + 2.0 * float(config.tau) ** 2 + 2.0 * float(config.beta) ** 2)
    if config.predict == "normal":
        return _normal_cdf(d / c)
    return 1.0 / (1.0 + np.exp(-d / c))


#: a rating this many sigmas (or betas, taus) from its start has diverged
#: (see _warn_if_diverged)
DIVERGED_SIGMAS = 1000.0


def _warn_if_diverged(mu: np.ndarray, start: Any, config: WengLinConfig,
                      matches: Any) -> None:
    """A :class:`~fastrate.errors.FastrateWarning` when some ``mu`` ended more than
    DIVERGED_SIGMAS times the largest of the starting sigma, beta and tau from where it
    started (or is not finite). Thurstone-Mosteller's ``v`` grows with the surprise
    (about ``|x|`` for an upset by ``x``), and the full pairing model counts every pair
    of a match as a whole comparison, so in large fields one surprise moves a player by
    the sum over dozens of such terms, the next race overshoots further, and the ratings
    grow without bound: Thurstone-Mosteller full on the Formula 1 results (up to 42 cars
    a race) reaches mu = 4e8, exactly as openskill does. (The logistic models' terms are
    bounded by ``sigma^2 / c`` a pair, and two teams move each other by at most their
    gap: ``rate()`` checks Thurstone-Mosteller runs with more than two teams only.)"""
    if mu.shape[0] == 0:
        return
    if np.ndim(start):  # (a continued run: each player from his own start)
        moved = float(np.max(np.abs(mu - start)))
    else:  # the largest and the smallest mu tell (NumPy's SIMD passes, no temporaries:
        # 8 us for 40k players; a reduction in the unpacking kernel is not vectorised)
        moved = max(float(mu.max()) - start, start - float(mu.min()))
    scale = max(config.sigma, config.beta, config.tau)  # (tau: the added uncertainty)
    if moved <= DIVERGED_SIGMAS * scale:
        return
    import warnings

    from fastrate.errors import FastrateWarning

    k = int(np.max(np.diff(matches.match_team_offsets))) if matches.n_matches else 0
    hint = (" (full pairing counts every pair of a match as a whole comparison, which "
            "overshoots in large fields: use the partial-pairing model or plackett_luce)"
            if config.model.endswith("_full") else "")
    warnings.warn(f"weng_lin {config.model}: the ratings diverged, a mu moved by {moved:.3g} "
                  f"(sigma {config.sigma:g}) over matches of up to {k} teams{hint}",
                  FastrateWarning, stacklevel=3)


def rate(data: Any, config: WengLinConfig = WengLinConfig(), initial: Any = None,
         predictions: bool = True) -> Ratings:
    """Weng-Lin ratings of ``data`` (:class:`fastrate.Matches`, or two-player
    :class:`fastrate.Games`), match by match in stored order.

    ``initial``: a previous run's :class:`~fastrate.Ratings` or its table (``mu`` and
    ``sigma`` read back), or a mapping ``name -> rating`` (``mu = rating``). Seat weights
    act by ``config.weight_rule``; a weight-0 seat is left out of its match. Team scores
    (``Matches.score``) are read only for ``margin > 0``. The ``predictions`` are every
    team's walk-forward probability of winning (:func:`predict_win`), the
    ``pair_predictions`` each pair's ``P(i beats j)`` (logistic: the Plackett-Luce
    ``e_i/(e_i + e_j)``; normal: openskill's pairwise ``Phi``). ``predictions=False``:
    final ratings only (``predictions`` and ``pair_predictions`` None; the ratings are the
    same bits, the per-match outputs are not computed).
    """
    from fastrate._validate import check_type

    check_type(config, WengLinConfig, "weng_lin rate() config must be a WengLinConfig")
    matches = as_matches(data, "weng_lin")
    empty = np.empty(0)
    if initial is None:  # every player new: no state to merge
        n = len(matches.players)
        mu0, sigma0, games_played = empty, empty, np.zeros(n, dtype=np.int64)
    else:
        mu0, sigma0, games_played, matches = resolve_skills(matches, initial, mu=config.mu,
                                                            sigma=config.sigma)
        n = len(matches.players)
        games_played = np.array(games_played, dtype=np.int64)  # counted on in place
    st = np.empty(2 * n, dtype=np.float64)
    _pack_state(mu0, sigma0, float(config.mu), float(config.sigma), st)
    exact = exact_values(initial, matches.players)
    if "var" in exact:  # a previous run's sigma^2 itself, not sqrt(sigma^2)^2
        st[1:2 * exact["var"].shape[0]:2] = exact["var"]
    weight = matches.weight
    has_score = matches.score is not None and config.margin > 0.0
    predictions = bool(predictions)
    prm = _params(config, has_score, predictions)
    mto = matches.match_team_offsets
    two_player = matches.is_two_player()
    if predictions:
        pred = np.empty(matches.n_teams, dtype=np.float64)
        pair = np.empty(matches.n_matches if two_player else int(matches.pair_offsets()[-1]),
                        dtype=np.float64)
    else:
        pred = pair = empty
    # no weights (openskill's rule gives a lone player of weight 1 its upper bound), no
    # margins: the fast paths
    plain = (weight is None or (config.weight_rule == "partial"
                                and bool((weight == 1.0).all()))) and not has_score
    # (balance leaves a one-player team as it is)
    lanes = (plain and config.predict == "logistic"
             and (not config.balance or matches.n_seats == matches.n_teams))
    teams = matches.n_seats != matches.n_teams
    if two_player and plain:
        if matches.n_matches:
            _lanes_1v1(matches.player, matches.rank, st, pred, pair, games_played, prm)
    elif lanes and teams and matches.n_teams == 2 * matches.n_matches:
        # (two teams a match, every model; a match has >= 2 teams)
        _lanes_two_teams(mto, matches.team_player_offsets, matches.player, matches.rank,
                         st, pred, pair, games_played, prm)
    elif (lanes and not config.model.startswith("thurstone")
          and (config.model == "plackett_luce"
               or matches.n_teams <= _LANES_MAX_MEAN_TEAMS * matches.n_matches)):
        # (Bradley-Terry's O(k^2) pairs run in every lane, so huge matches, which seldom
        # fill a batch, stay scalar)
        _lanes(mto, matches.team_player_offsets, matches.player, matches.rank, st, pred,
               pair, games_played, prm, teams)
    elif (matches.n_seats == matches.n_teams and plain and config.predict == "logistic"):
        _pairwise_ffa(mto, matches.player, matches.rank, st, pred, pair, games_played, prm)
    else:
        w = empty if weight is None else np.ascontiguousarray(weight, np.float64)
        s = np.ascontiguousarray(matches.score, np.float64) if has_score else empty
        _weng_lin_kernel(mto, matches.team_player_offsets, matches.player, matches.rank, w, s,
                         st, pred, pair, games_played, prm)
    mu, sigma, rating, var = np.empty((4, n))
    _unpack_state(st, float(config.conservative_k), mu, sigma, rating, var)
    if config.model.startswith("thurstone") and matches.n_teams > 2 * matches.n_matches:
        _warn_if_diverged(mu, mu0 if mu0.shape[0] else float(config.mu), config, matches)
    return Ratings("weng_lin", matches.players, rating, games_played,
                   pred if predictions else None, config,
                   state={"rating": rating, "mu": mu, "sigma": sigma,
                          "games_played": games_played},
                   pair_predictions=pair if predictions else None,
                   exact={"var": var})
