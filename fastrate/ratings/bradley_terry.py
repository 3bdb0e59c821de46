"""Batch Bradley-Terry ratings: maximum likelihood from all games at once (SPEC §1.4).

Ratings are on the Elo scale, ``f(x) = 1 / (1 + 10^(-x/400))``; for a game with the first
player W and the second B, ``x = R_W - R_B + h * adv`` (``h`` is 0 in games flagged
neutral, else 1). Three models:

* ``"bt_half"`` (Ordo's model; Zermelo 1929, Bradley & Terry 1952): a draw counts as half
  a win, ``ln L = sum s ln f(x) + (1 - s) ln f(-x)`` over games with score ``s``.
* ``"bayeselo"`` (Rémi Coulom's BayesElo): ``P(win) = f(x - drawelo)``,
  ``P(loss) = f(-x - drawelo)``, ``P(draw) = 1 - P(win) - P(loss)``.
* ``"davidson"`` (Davidson 1970, JASA 65: 317-328): with ``π = 10^(R/400)`` (the
  advantage added to W's rating), ``P(win) = π_W / D``, ``P(loss) = π_B / D``,
  ``P(draw) = ν sqrt(π_W π_B) / D``, ``D = π_W + π_B + ν sqrt(π_W π_B)``, ``ν >= 0``.

``advantage``, ``drawelo`` (``bayeselo``) and ``draw_nu`` (``davidson``) are fixed numbers
or ``"fit"``: fitted with the ratings. All three log-likelihoods are concave (the BayesElo
draw probability is the mass of the logistic density on an interval, which is log-concave
in its end points; Davidson's is ``(n_W - n_L) y + n_D κ - n ln(e^y + e^-y + e^κ)`` with
``y = x ln10 / 800`` and ``κ = ln ν``, a linear function minus a log-sum-exp), so the
solver is a damped Newton method:

1. the games are condensed into unique ordered ``(white, black, advantaged)`` pairs with
   their win/draw/loss counts (two counting sorts, O(games + players));
2. each iteration computes the gradient and the per-pair 2x2 curvature in one kernel,
   then solves ``H s = g`` by conjugate gradients with a diagonal (Jacobi) preconditioner,
   the Hessian applied pair by pair (never formed). ``H`` is singular along the
   all-ratings-equal direction; the ratings part of every CG direction is projected onto
   mean zero, which pins the mean (not with a Gaussian prior, which pins the level);
3. a backtracking (Armijo) line search on the log-likelihood keeps every step uphill;
4. it stops when the largest change of a rating, the advantage or the draw parameter is
   below ``tolerance_elo`` (Davidson's ``ν`` is fitted as ``400 log10 ν``, in Elo).

Priors (maximum a posteriori): BayesElo's virtual draws (``prior``), Gaussian priors per
player (``gaussian_prior``) and virtual games (``virtual_games``: the computer-go seeding
idea, assumed results of a new player against a known one).

The maximum likelihood estimate exists only if the graph "i scored at least a draw
against j" is strongly connected; otherwise some rating difference goes to infinity, so
:func:`fit` refuses such data and names the players outside the largest strongly
connected component (Tarjan's algorithm, iterative). Ratings are shifted so that their
mean is ``mean_rating`` (Ordo's ``-a 0``), or so that the ``anchor`` player (or the mean
of a set of anchor players) has it.

Uncertainty (:func:`standard_errors`, :func:`covariance`, :func:`los`, :func:`bootstrap`)
comes from the observed information (the negative Hessian of the log-posterior at the
fit), in the same gauge as the reported ratings.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._threads import run_chunks
from fastrate._validate import check_choice, check_number, check_type
from fastrate.data import Games
from fastrate.data.players import PlayerIndex
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import LN10, expected_score, log, select

__all__ = ["BTConfig", "BTResult", "BTErrors", "Pairs", "fit", "predict", "MODELS",
           "condense", "add_prior", "strong_components", "largest_component",
           "standard_errors", "covariance", "los", "bootstrap"]

MODELS = ("bt_half", "bayeselo", "davidson")
#: kernel model codes
BT_HALF, BAYESELO, DAVIDSON = 0, 1, 2
FIT = "fit"
#: parameter ranges: advantage, drawelo, draw_nu, tolerance_elo within 1e6 (Elo points);
#: |mean_rating| and a Gaussian prior's mean at most 1e9, its sd in [1e-3, 1e9]; prior
#: and virtual game counts in [0, 1e9] (a prior 0 or at least 1e-9 virtual draws)
MAX_ELO, MAX_RATING, MIN_SD, MAX_COUNT, MIN_PRIOR = 1e6, 1e9, 1e-3, 1e9, 1e-9
#: Elo-scale factor: f(x) = 1 / (1 + exp(-C x))
C = LN10 / 400.0
#: a fitted draw parameter beyond this (drawelo, or 400 log10 ν: ν = 10^5, a draw
#: probability of 99.998% at equal ratings) means the maximum does not exist
DRAW_LIMIT = 2000.0
#: the inexact-Newton forcing term: CG stops at a relative residual min(FORCING, sqrt|g|)
FORCING = 1e-3
#: the most a Newton step moves any parameter (Elo): a longer step is shortened as a
#: whole. A full step from far away can overshoot a weakly determined player into the
#: flat tail of the logistic curve, where his curvature vanishes and the next step runs
#: off: on the largest component of the TCEC archive (BayesElo model, advantage and
#: drawelo fitted) a player with two games moved 2,241 Elo, then 43,473, and the fit
#: stopped unconverged. Steps near the maximum are far shorter (the bench's first
#: steps: 116-233 Elo), so there the cap changes nothing.
MAX_STEP_ELO = 1000.0
#: the pairs' gradient terms run over threads with at least this many pairs each
PAIRS_PER_THREAD = 100_000


def _check_pair(owner: str, name: str, value: Any) -> tuple[float, float]:
    """A ``(mean, sd)`` pair: finite mean, sd > 0."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ConfigError(f"'{name}' of {owner} must be a (mean, sd) pair; got {value!r}")
    return (check_number(owner, f"{name} mean", value[0], lo=-MAX_RATING, hi=MAX_RATING),
            check_number(owner, f"{name} sd", value[1], lo=MIN_SD, hi=MAX_RATING))


@dataclass(frozen=True)
class BTConfig:
    """Parameters of a batch Bradley-Terry fit (validated on construction).

    ``advantage``, ``drawelo`` and ``draw_nu``: a number (fixed) or ``"fit"``. ``drawelo``
    is used by ``bayeselo`` only (must be > 0 when fixed), ``draw_nu`` (Davidson's ``ν``,
    >= 0 when fixed; 0: no draws) by ``davidson`` only. ``anchor``: a player name whose
    rating is set to ``mean_rating``, or a list/tuple of names whose mean rating is set to
    it; ``None`` sets the mean of all ratings to it.
    """

    model: str = "bt_half"
    advantage: float | str = 0.0
    drawelo: float | str = FIT
    anchor: Any = None
    mean_rating: float = 0.0
    tolerance_elo: float = 1e-6
    max_newton: int = 100
    #: BayesElo's prior as virtual draws (its default is 2; 0 = plain maximum likelihood):
    #: each player i spreads ``prior / 4`` draws over the pairs it played, in proportion to
    #: the games ``n_ij`` played against j, in each colour (BayesElo ``CCondensedResults::
    #: AddPrior``), i.e. ``prior n_ij (1/N_i + 1/N_j) / 4`` draws for each colour order
    prior: float = 0.0
    #: Davidson's draw parameter ``ν`` (``davidson`` only): a number >= 0 or ``"fit"``
    draw_nu: float | str = FIT
    #: Gaussian prior on the ratings (MAP): ``(mean, sd)`` for every player, or a dict
    #: ``{name: (mean, sd)}`` for some (stored as a tuple of ``(name, mean, sd)``). The prior
    #: fixes the level of the ratings, so no anchor or mean shift is applied with it
    gaussian_prior: Any = None
    #: virtual games added to the likelihood before any real game (neutral, no advantage):
    #: a sequence of ``(player, opponent, wins, draws, losses)`` of ``player``
    virtual_games: Any = ()

    def __post_init__(self) -> None:
        owner = "BTConfig"
        check_choice(owner, "model", self.model, MODELS)
        # ranges (docs/algorithms/bradley_terry.md, "Ranges"): far beyond any real use,
        # and narrow enough that every fit stays finite
        if self.advantage != FIT:
            object.__setattr__(self, "advantage", check_number(
                owner, "advantage", self.advantage, lo=-MAX_ELO, hi=MAX_ELO))
        if self.drawelo != FIT:
            object.__setattr__(self, "drawelo", check_number(owner, "drawelo", self.drawelo,
                                                             lo=0.0, lo_open=True, hi=MAX_ELO))
        if self.draw_nu != FIT:
            object.__setattr__(self, "draw_nu", check_number(owner, "draw_nu", self.draw_nu,
                                                             lo=0.0, hi=MAX_ELO))
        object.__setattr__(self, "mean_rating", check_number(
            owner, "mean_rating", self.mean_rating, lo=-MAX_RATING, hi=MAX_RATING))
        object.__setattr__(self, "tolerance_elo", check_number(
            owner, "tolerance_elo", self.tolerance_elo, lo=0.0, lo_open=True, hi=MAX_ELO))
        object.__setattr__(self, "prior", check_number(owner, "prior", self.prior, lo=0.0,
                                                       hi=MAX_COUNT))
        if 0.0 < self.prior < MIN_PRIOR:
            raise ConfigError(f"'prior' of {owner} must be 0 or a float in [1e-09, 1e+09]; "
                              f"got {self.prior!r}")
        object.__setattr__(self, "max_newton", int(check_number(
            owner, "max_newton", self.max_newton, lo=1, hi=1e6, integer=True)))
        if isinstance(self.anchor, (list, tuple, np.ndarray)):
            names = tuple(np.asarray(self.anchor, dtype=object).tolist())
            if not names:
                raise ConfigError("'anchor' of BTConfig: an empty set of players")
            object.__setattr__(self, "anchor", names)
        gp = self.gaussian_prior
        if gp is not None:
            if isinstance(gp, dict):
                gp = tuple((k, *_check_pair(owner, f"gaussian_prior[{k!r}]", v))
                           for k, v in gp.items())
                if not gp:
                    raise ConfigError("'gaussian_prior' of BTConfig: an empty dict")
            elif isinstance(gp, tuple) and gp and all(isinstance(t, tuple) and len(t) == 3
                                                      for t in gp):
                gp = tuple((k, *_check_pair(owner, f"gaussian_prior[{k!r}]", (m, s)))
                           for k, m, s in gp)  # the stored form, validated again
            else:
                gp = _check_pair(owner, "gaussian_prior", gp)
            object.__setattr__(self, "gaussian_prior", gp)
            if self.anchor is not None or self.mean_rating != 0.0:
                raise ConfigError("BTConfig: a gaussian_prior fixes the level of the ratings; "
                                  "give no anchor or mean_rating with it")
        virtual = []
        for k, row in enumerate(self.virtual_games):
            if not isinstance(row, (tuple, list)) or len(row) != 5:
                raise ConfigError(f"'virtual_games' of BTConfig row {k} must be (player, "
                                  f"opponent, wins, draws, losses); got {row!r}")
            counts = tuple(check_number(owner, f"virtual_games[{k}] {what}", v, lo=0.0,
                                        hi=MAX_COUNT)
                           for what, v in zip(("wins", "draws", "losses"), row[2:]))
            if sum(counts) == 0.0:
                raise ConfigError(f"'virtual_games' of BTConfig row {k}: no games")
            if row[0] == row[1]:
                raise ConfigError(f"'virtual_games' of BTConfig row {k}: a player against "
                                  f"himself ({row[0]!r})")
            virtual.append((row[0], row[1], *counts))
        object.__setattr__(self, "virtual_games", tuple(virtual))


@dataclass(frozen=True)
class BTResult:
    """A fit: ``rating[i]`` is player ``players[i]``'s rating (Elo points)."""

    players: PlayerIndex
    rating: np.ndarray
    advantage: float
    #: BayesElo's drawelo (NaN for the other models)
    drawelo: float
    log_likelihood: float
    n_newton: int
    converged: bool
    n_pairs: int
    config: BTConfig
    #: Davidson's ``ν`` (NaN for the other models)
    draw_nu: float = math.nan
    #: the condensed pairs the fit maximised (BayesElo's virtual draws and the virtual games
    #: included): what :func:`standard_errors`, :func:`los` and :func:`bootstrap` need
    pairs: Pairs | None = None

    def as_dict(self) -> dict[Any, float]:
        """``{player name: rating}``."""
        return dict(zip(self.players.names.tolist(), self.rating.tolist()))


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _counting_order(key, n_keys, order_in, order_out, count):
    """Stable counting sort: ``order_out`` is ``order_in`` sorted by ``key[order_in]``
    (keys in ``[0, n_keys)``; ``count`` has ``n_keys + 1`` zeros on entry)."""
    for t in range(order_in.shape[0]):
        count[key[order_in[t]] + 1] += 1
    for k in range(n_keys):
        count[k + 1] += count[k]
    for t in range(order_in.shape[0]):
        g = order_in[t]
        k = key[g]
        order_out[count[k]] = g
        count[k] += 1


@kernel
def _sort_games(white, key2, score, n, count_k, count_w, w1, k1, s1, w2, k2, s2):
    """The games sorted by ``(white, key2)``: a stable counting sort by ``key2`` into
    ``w1, k1, s1``, then by white into ``w2, k2, s2`` (the values move, not indices, so
    the merge that follows reads sequentially). ``count_k`` has ``2 n + 1`` zeros,
    ``count_w`` ``n + 1``."""
    g = white.shape[0]
    for t in range(g):
        count_k[key2[t] + 1] += 1
        count_w[white[t] + 1] += 1
    for k in range(2 * n):
        count_k[k + 1] += count_k[k]
    for k in range(n):
        count_w[k + 1] += count_w[k]
    for t in range(g):
        j = count_k[key2[t]]
        count_k[key2[t]] = j + 1
        w1[j] = white[t]
        k1[j] = key2[t]
        s1[j] = score[t]
    for t in range(g):
        j = count_w[w1[t]]
        count_w[w1[t]] = j + 1
        w2[j] = w1[t]
        k2[j] = k1[t]
        s2[j] = s1[t]


@kernel
def _merge_pairs(white, key2, score, pw, pb, ph, nw, nd, nl):
    """Run-length merge of the games sorted by ``(white, key2)`` (``key2 = 2 black +
    advantaged``) into pairs; a score of 1 is a win, 0 a loss, 0.5 a draw, any other
    value adds ``s`` wins and ``1 - s`` losses. Returns the number of pairs."""
    m = -1
    last_w = -1
    last_k = -1
    for g in range(white.shape[0]):
        w = white[g]
        k = key2[g]
        if w != last_w or k != last_k:
            m += 1
            pw[m] = w
            pb[m] = k >> 1
            ph[m] = k & 1
            nw[m] = 0.0
            nd[m] = 0.0
            nl[m] = 0.0
            last_w = w
            last_k = k
        s = score[g]
        if s == 1.0:
            nw[m] += 1.0
        elif s == 0.0:
            nl[m] += 1.0
        elif s == 0.5:
            nd[m] += 1.0
        else:
            nw[m] += s
            nl[m] += 1.0 - s
    return m + 1


@kernel
def _tarjan(offsets, adj, index, low, onstack, stack, cs_node, cs_edge, comp):
    """Strongly connected components of the graph ``v -> adj[offsets[v]:offsets[v+1]]``
    (Tarjan 1972, with an explicit call stack). ``index`` and ``comp`` are -1 on entry;
    returns the number of components, ``comp[v]`` the component of ``v``."""
    n = offsets.shape[0] - 1
    counter = 0
    top = 0
    n_comp = 0
    for s in range(n):
        if index[s] != -1:
            continue
        cs = 0
        index[s] = counter
        low[s] = counter
        counter += 1
        stack[top] = s
        top += 1
        onstack[s] = 1
        cs_node[cs] = s
        cs_edge[cs] = offsets[s]
        cs += 1
        while cs > 0:
            v = cs_node[cs - 1]
            e = cs_edge[cs - 1]
            if e < offsets[v + 1]:
                cs_edge[cs - 1] = e + 1
                w = adj[e]
                if index[w] == -1:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    onstack[w] = 1
                    cs_node[cs] = w
                    cs_edge[cs] = offsets[w]
                    cs += 1
                elif onstack[w] == 1 and index[w] < low[v]:
                    low[v] = index[w]
            else:
                cs -= 1
                if low[v] == index[v]:
                    while True:
                        top -= 1
                        w = stack[top]
                        onstack[w] = 0
                        comp[w] = n_comp
                        if w == v:
                            break
                    n_comp += 1
                if cs > 0:
                    u = cs_node[cs - 1]
                    if low[v] < low[u]:
                        low[u] = low[v]
    return n_comp


@inline_kernel
def _log_sigmoid(z):
    """``ln(1 / (1 + e^-z)) = min(z, 0) - ln(1 + e^-|z|)``, without overflow."""
    return min(z, 0.0) - math.log1p(math.exp(-abs(z)))


@inline_kernel
def _pair_x(theta, pw, pb, ph, p, ia, adv):
    """The pair's ``x = θ_w - θ_b + h a`` (unsigned indices: no negative-index fix-up)."""
    a = theta[ia] if ia >= 0 else adv
    q = np.uint64(p)
    return theta[np.uint64(pw[q])] - theta[np.uint64(pb[q])] + ph[q] * a


@inline_kernel
def _davidson_terms(x, de):
    """Davidson's ``(y, κ, P(win), P(draw), P(loss), ln D)`` for ``x`` and the draw
    parameter ``de = 400 log10 ν`` (``-inf``: ``ν = 0``): ``y = C x / 2``, ``κ = C de``,
    ``D = e^y + e^-y + e^κ`` (everything divided by ``sqrt(π_W π_B)``)."""
    y = 0.5 * C * x
    k = C * de
    m = max(abs(y), k)
    ew = math.exp(y - m)
    el = math.exp(-y - m)
    ed = math.exp(k - m)
    s = ew + el + ed
    return y, k, ew / s, ed / s, el / s, m + math.log(s)


@kernel
def _log_likelihood(pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, model):
    """The log-likelihood at ``theta`` (ratings, then the fitted advantage at ``ia`` and the
    draw parameter at ``idr``; -1 = fixed at ``adv`` / ``drawelo``; the draw parameter is
    drawelo for ``model`` 1, ``400 log10 ν`` for 2); ``-inf`` where a draw has probability
    0."""
    de = theta[idr] if idr >= 0 else drawelo
    total = 0.0
    for p in range(np.uint64(pw.shape[0])):  # (unsigned: no index fix-up)
        x = _pair_x(theta, pw, pb, ph, p, ia, adv)
        if model == 1:
            u = C * (x - de)
            v = C * (-x - de)
            eu = math.exp(-abs(u))
            ev = math.exp(-abs(v))
            ll = (nw[p] * (min(u, 0.0) - math.log1p(eu))
                  + nl[p] * (min(v, 0.0) - math.log1p(ev)))
            if nd[p] > 0.0:
                # f(-u) - f(v)
                pd = (select(u >= 0.0, eu, 1.0) / (1.0 + eu)
                      - select(v >= 0.0, 1.0, ev) / (1.0 + ev))
                if pd <= 0.0:
                    return -math.inf
                ll += nd[p] * log(pd)
            total += ll
        elif model == 2:
            y, k, qw, qd, ql, lnd = _davidson_terms(x, de)
            ll = (nw[p] - nl[p]) * y - (nw[p] + nd[p] + nl[p]) * lnd
            if nd[p] > 0.0:
                if qd <= 0.0:
                    return -math.inf
                ll += nd[p] * k
            total += ll
        else:
            # ln f(-x) = ln f(x) - C x
            sl = nl[p] + 0.5 * nd[p]
            total += (nw[p] + nd[p] + nl[p]) * _log_sigmoid(C * x) - sl * C * x
    return total


@kernel
def _pair_terms(pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, model,
                gxs, gds, mxx, mxd, mdd, p0, p1):
    """For the pairs ``p0 <= p < p1``: the log-likelihood's derivatives in the pair's
    ``x`` (``gxs``) and in the draw parameter (``gds``), and the pair's negative Hessian
    in ``(x, draw parameter)`` (``mxx``, ``mxd``, ``mdd``); every pair its own slots, so
    ranges can run in parallel. Returns False where a draw has probability 0 (drawelo
    <= 0, or ν = 0), else True."""
    de = theta[idr] if idr >= 0 else drawelo
    c2 = C * C
    possible = True
    for p in range(np.uint64(p0), np.uint64(p1)):  # (unsigned: no index fix-up)
        x = _pair_x(theta, pw, pb, ph, p, ia, adv)
        gd = 0.0
        if model == 1:
            u = C * (x - de)
            v = C * (-x - de)
            # f(u) and f(-u) from one exponential (likewise for v)
            eu = math.exp(-abs(u))
            iu = 1.0 / (1.0 + eu)
            qw = select(u >= 0.0, iu, eu * iu)
            su = select(u >= 0.0, eu * iu, iu)
            ev = math.exp(-abs(v))
            iv = 1.0 / (1.0 + ev)
            ql = select(v >= 0.0, iv, ev * iv)
            sv = select(v >= 0.0, ev * iv, iv)
            a_u = qw * su
            a_v = ql * sv
            lu = nw[p] * su
            lv = nl[p] * sv
            huu = nw[p] * a_u
            hvv = nl[p] * a_v
            huv = 0.0
            if nd[p] > 0.0:
                pd = su - ql
                if pd <= 0.0:
                    possible = False
                lu -= nd[p] * a_u / pd
                lv -= nd[p] * a_v / pd
                huu += nd[p] * (a_u * (1.0 - 2.0 * qw) / pd + a_u * a_u / (pd * pd))
                hvv += nd[p] * (a_v * (1.0 - 2.0 * ql) / pd + a_v * a_v / (pd * pd))
                huv = nd[p] * a_u * a_v / (pd * pd)
            gx = C * (lu - lv)
            gd = -C * (lu + lv)
            mxx[p] = c2 * (huu + hvv - 2.0 * huv)
            mxd[p] = c2 * (hvv - huu)
            mdd[p] = c2 * (huu + hvv + 2.0 * huv)
        elif model == 2:
            # ln L = (nW - nL) y + nD κ - n ln D: the negative Hessian in (y, κ) is n times
            # the covariance of (±1, 0) / (0, 1) under (P(win), P(loss)) / P(draw)
            y, k, qw, qd, ql, lnd = _davidson_terms(x, de)
            n = nw[p] + nd[p] + nl[p]
            if nd[p] > 0.0 and qd <= 0.0:
                possible = False
            dwl = qw - ql
            gx = 0.5 * C * (nw[p] - nl[p] - n * dwl)
            gd = C * (nd[p] - n * qd)
            mxx[p] = 0.25 * c2 * n * (qw + ql - dwl * dwl)
            mxd[p] = -0.5 * c2 * n * dwl * qd
            mdd[p] = c2 * n * qd * (1.0 - qd)
        else:
            sw = nw[p] + 0.5 * nd[p]
            sl = nl[p] + 0.5 * nd[p]
            z = C * x
            e = math.exp(-abs(z))
            inv = 1.0 / (1.0 + e)
            q = select(z >= 0.0, inv, e * inv)
            gx = C * (sw * (1.0 - q) - sl * q)
            mxx[p] = c2 * (sw + sl) * q * (1.0 - q)
            mxd[p] = 0.0
            mdd[p] = 0.0
        gxs[p] = gx
        gds[p] = gd
    return possible


@kernel
def _sum_pair_terms(pw, pb, ph, gxs, gds, mxx, mdd, ia, idr, grad, diag):
    """The gradient (``grad``) and the diagonal of the negative Hessian (``diag``) from
    the pairs' terms (:func:`_pair_terms`), summed in pair order (zeroed here)."""
    for k in range(grad.shape[0]):
        grad[k] = 0.0
        diag[k] = 0.0
    # the advantage's and the draw parameter's sums in registers (their slots follow
    # the players', so no pair's player shares them): the same additions in the same
    # order, without a round trip through memory per pair
    ga = 0.0
    da = 0.0
    gd = 0.0
    dd = 0.0
    for p in range(np.uint64(pw.shape[0])):  # (unsigned: no negative-index fix-up)
        gx = gxs[p]
        i = np.uint64(pw[p])
        j = np.uint64(pb[p])
        grad[i] += gx
        grad[j] -= gx
        diag[i] += mxx[p]
        diag[j] += mxx[p]
        if ia >= 0:
            ga += ph[p] * gx
            da += ph[p] * mxx[p]
        if idr >= 0:
            gd += gds[p]
            dd += mdd[p]
    if ia >= 0:
        grad[ia] = ga
        diag[ia] = da
    if idr >= 0:
        grad[idr] = gd
        diag[idr] = dd


def _gradient_curvature(pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, model,
                        grad, diag, mxx, mxd, mdd, terms=None):
    """The gradient of the log-likelihood (``grad``), the diagonal of the negative
    Hessian (``diag``) and each pair's negative Hessian in ``(x, draw parameter)``
    (``mxx``, ``mxd``, ``mdd``): :func:`_pair_terms` over threads (every pair its own
    slots), then :func:`_sum_pair_terms` in pair order: the same bits for any number of
    threads. ``terms``: ``(2, pairs)`` scratch (allocated if None). Returns False where a
    draw has probability 0."""
    m = pw.shape[0]
    gxs, gds = np.empty((2, m)) if terms is None else terms
    args = (pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, model, gxs, gds, mxx, mxd,
            mdd)
    cuts = np.linspace(0, m, _pair_workers(m) + 1).astype(np.int64)
    ok = all(run_chunks(_pair_terms, args, cuts))
    _sum_pair_terms(pw, pb, ph, gxs, gds, mxx, mdd, ia, idr, grad, diag)
    return ok


@kernel
def _hessian_vector(pw, pb, ph, mxx, mxd, mdd, ia, idr, prec, vec, out):
    """``out = H vec`` for the negative Hessian ``H`` (from :func:`_gradient_curvature`)
    plus the diagonal prior precision ``prec``."""
    for k in range(out.shape[0]):
        out[k] = prec[k] * vec[k]
    # the parameters' entries (after the players': no pair's player shares them) and
    # their sums in registers, added in the same order as through memory
    va = vec[ia] if ia >= 0 else 0.0
    dd = vec[idr] if idr >= 0 else 0.0
    oa = out[ia] if ia >= 0 else 0.0
    od = out[idr] if idr >= 0 else 0.0
    for p in range(np.uint64(pw.shape[0])):  # (unsigned: no negative-index fix-up)
        i = np.uint64(pw[p])
        j = np.uint64(pb[p])
        dx = vec[i] - vec[j]
        if ia >= 0:
            dx += ph[p] * va
        ox = mxx[p] * dx + mxd[p] * dd
        out[i] += ox
        out[j] -= ox
        if ia >= 0:
            oa += ph[p] * ox
        if idr >= 0:
            od += mxd[p] * dx + mdd[p] * dd
    if ia >= 0:
        out[ia] = oa
    if idr >= 0:
        out[idr] = od


@kernel
def _superiority(r, var, out):
    """``out[i, j] = P(R_i > R_j) = Φ((r_i - r_j) / sqrt(var[i, j]))`` (1, 0 or 1/2 for a
    zero variance by the sign of the difference; NaN on the diagonal)."""
    k = r.shape[0]
    for i in range(k):
        for j in range(k):
            d = r[i] - r[j]
            sd = math.sqrt(var[i, j])
            if i == j:
                out[i, j] = math.nan
            elif sd > 0.0:
                out[i, j] = 0.5 * math.erfc(-d / (sd * math.sqrt(2.0)))
            else:
                out[i, j] = 1.0 if d > 0.0 else (0.0 if d < 0.0 else 0.5)


@inline_kernel
def _parameter_pair_step(cols, c, i, j, ph, mxx, mxd, mdd, ia, idr, ea, ed, oa, od):
    """One pair's step of column ``c`` of :func:`_parameter_columns` (``H e`` for a unit
    ``e`` with advantage entry ``ea`` and draw entry ``ed``, its players' entries 0): the
    players' ``±ox`` into ``cols``, and the advantage's and draw parameter's running sums
    ``oa``, ``od`` (registers) returned with the pair's terms added."""
    dx = 0.0
    if ia >= 0:
        dx += ph * ea
    ox = mxx * dx + mxd * ed
    cols[i, c] += ox
    cols[j, c] -= ox
    if ia >= 0:
        oa += ph * ox
    if idr >= 0:
        od += mxd * dx + mdd * ed
    return oa, od


@kernel
def _parameter_columns(pw, pb, ph, mxx, mxd, mdd, ia, idr, prec, cols):
    """``cols[:, c] = H e_(n + c)``: the columns of the fitted parameters (the advantage
    at ``ia``, the draw parameter at ``idr``; ``n = size - k``, ``k <= 2``) in one pass
    over the pairs, each column summed exactly as :func:`_hessian_vector` sums ``H e``
    (the parameters' own entries in registers)."""
    size, k = cols.shape
    n = size - k
    for r in range(size):
        for c in range(k):
            cols[r, c] = prec[r] * (1.0 if r == n + c else 0.0)
    # e's advantage and draw entries per column (e's players' entries are 0)
    a0 = 1.0 if ia == n else 0.0
    a1 = 1.0 if ia == n + 1 else 0.0
    d0 = (1.0 if idr == n else 0.0) if idr >= 0 else 0.0
    d1 = (1.0 if idr == n + 1 else 0.0) if idr >= 0 else 0.0
    oa0 = cols[ia, 0] if ia >= 0 else 0.0
    od0 = cols[idr, 0] if idr >= 0 else 0.0
    oa1 = cols[ia, k - 1] if ia >= 0 else 0.0
    od1 = cols[idr, k - 1] if idr >= 0 else 0.0
    for p in range(np.uint64(pw.shape[0])):  # (unsigned: no negative-index fix-up)
        i = np.uint64(pw[p])
        j = np.uint64(pb[p])
        oa0, od0 = _parameter_pair_step(cols, 0, i, j, ph[p], mxx[p], mxd[p], mdd[p], ia,
                                        idr, a0, d0, oa0, od0)
        if k > 1:
            oa1, od1 = _parameter_pair_step(cols, 1, i, j, ph[p], mxx[p], mxd[p], mdd[p],
                                            ia, idr, a1, d1, oa1, od1)
    if ia >= 0:
        cols[ia, 0] = oa0
    if idr >= 0:
        cols[idr, 0] = od0
    if k > 1:
        if ia >= 0:
            cols[ia, 1] = oa1
        if idr >= 0:
            cols[idr, 1] = od1


@kernel
def _hessian_block(pw, pb, ph, mxx, mxd, mdd, ia, idr, prec, k, vec, out):
    """``out = H vec`` for ``k`` vectors: ``vec`` and ``out`` are ``(k, size)`` row-major,
    flattened (one vector after the other, each pass over the pairs touching one vector,
    which stays in cache)."""
    size = prec.shape[0]
    for c in range(k):
        o = c * size
        for r in range(size):
            out[o + r] = prec[r] * vec[o + r]
        for p in range(np.uint64(pw.shape[0])):  # (unsigned: no negative-index fix-up)
            i = np.uint64(o + pw[p])
            j = np.uint64(o + pb[p])
            dx = vec[i] - vec[j]
            if ia >= 0:
                dx += ph[p] * vec[o + ia]
            dd = vec[o + idr] if idr >= 0 else 0.0
            ox = mxx[p] * dx + mxd[p] * dd
            out[i] += ox
            out[j] -= ox
            if ia >= 0:
                out[o + ia] += ph[p] * ox
            if idr >= 0:
                out[o + idr] += mxd[p] * dx + mdd[p] * dd


# ----------------------------------------------------------------------------------
# NumPy side


@dataclass(frozen=True)
class Pairs:
    """Games condensed into unique ordered pairs: ``white``, ``black``, ``advantaged``
    (0/1 float) and the win / draw / loss counts of ``white``."""

    white: np.ndarray
    black: np.ndarray
    advantaged: np.ndarray
    wins: np.ndarray
    draws: np.ndarray
    losses: np.ndarray


def condense(games: Games) -> Pairs:
    """The unique ``(white, black, advantaged)`` pairs of ``games`` in sorted order
    (so the result does not depend on the order of the games)."""
    white = np.ascontiguousarray(games.white, dtype=np.int64)
    black = np.ascontiguousarray(games.black, dtype=np.int64)
    score = np.ascontiguousarray(games.score, dtype=np.float64)
    n, g = games.n_players, games.n_games
    adv = np.ones(g, dtype=np.int64)
    if games.neutral is not None:
        adv[np.asarray(games.neutral, dtype=bool)] = 0
    key2 = 2 * black + adv
    w1, k1, s1 = np.empty(g, dtype=np.int64), np.empty(g, dtype=np.int64), np.empty(g)
    w2, k2, s2 = np.empty(g, dtype=np.int64), np.empty(g, dtype=np.int64), np.empty(g)
    _sort_games(white, key2, score, n, np.zeros(2 * n + 1, dtype=np.int64),
                np.zeros(n + 1, dtype=np.int64), w1, k1, s1, w2, k2, s2)
    # the first sort's buffers are free now: the pairs go there
    pw, pb, ph = w1, k1, np.empty(g, dtype=np.int64)
    nw, nd, nl = s1, np.empty(g), np.empty(g)
    m = _merge_pairs(w2, k2, s2, pw, pb, ph, nw, nd, nl)
    return Pairs(pw[:m], pb[:m], ph[:m].astype(np.float64), nw[:m], nd[:m], nl[:m])


def strong_components(n: int, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Component id of each of ``n`` vertices in the directed graph ``src -> dst``."""
    src = np.ascontiguousarray(src, dtype=np.int64)
    order = np.empty(src.shape[0], dtype=np.int64)
    _counting_order(src, n, np.arange(src.shape[0], dtype=np.int64), order,
                    np.zeros(n + 1, dtype=np.int64))
    adj = np.ascontiguousarray(dst[order], dtype=np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    comp = np.full(n, -1, dtype=np.int64)
    _tarjan(offsets, adj, np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64),
            np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), comp)
    return comp


def _components(games: Games, pairs: Pairs) -> np.ndarray:
    """The strong component of every player in the "scored against" graph of ``pairs``."""
    return _pair_components(games.n_players, pairs)


def _pair_components(n: int, pairs: Pairs) -> np.ndarray:
    white_scored = pairs.wins + pairs.draws > 0
    black_scored = pairs.losses + pairs.draws > 0
    src = np.concatenate([pairs.white[white_scored], pairs.black[black_scored]])
    dst = np.concatenate([pairs.black[white_scored], pairs.white[black_scored]])
    return strong_components(n, src, dst)


def _prior_on_everyone(config: BTConfig, games: Games) -> bool:
    """Whether the Gaussian prior covers every player of ``games`` (one ``(mean, sd)``
    for all, or a named one for each)."""
    gp = config.gaussian_prior
    if gp is None:
        return False
    if isinstance(gp[0], float):
        return True
    named = {t[0] for t in gp}
    return all(name in named for name in games.players.names.tolist())


def _check_connected(games: Games, pairs: Pairs, with_prior: bool) -> None:
    """Refuse data whose "scored against" graph is not strongly connected."""
    n = games.n_players
    comp = _components(games, pairs)
    sizes = np.bincount(comp, minlength=1)
    if sizes.shape[0] <= 1:
        return
    outside = np.flatnonzero(comp != int(np.argmax(sizes)))
    names = ", ".join(repr(games.players[int(i)]) for i in outside[:10])
    more = f" and {outside.shape[0] - 10} more" if outside.shape[0] > 10 else ""
    if with_prior:
        why = ("never met the rest, directly or through others, so even the prior cannot "
               "place them")
        fix = "rate the largest component alone (largest_component(); --largest-component)"
    else:
        why = "e.g. only wins or only losses against the rest"
        fix = ("rate the largest component alone (largest_component(); "
               "--largest-component), or add a prior (BayesElo's virtual draws, prior=2)")
    raise InputError(
        f"the maximum-likelihood ratings do not exist: {outside.shape[0]} of {n} players are "
        f"outside the largest strongly connected component of the 'scored against' graph "
        f"({why}): {names}{more}; {fix}")


def largest_component(games: Games, prior: float = 0.0) -> tuple[Games, np.ndarray]:
    """The games among the players of the largest strongly connected component of the
    "scored against" graph (with ``prior`` > 0: of the graph of who met whom), as Ordo
    rates by default, and the names of the players left out (each with all his games).

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "d"],
    ...                                [1.0, 1.0, 1.0, 1.0])     # a cycle, and d only lost
    >>> kept, left_out = largest_component(g)
    >>> kept.n_games, left_out.tolist()
    (3, ['d'])
    """
    check_type(games, Games, "largest_component() needs a fastrate.Games")
    pairs = condense(games)
    if prior > 0.0:
        pairs = add_prior(pairs, games.n_players, prior)
    comp = _components(games, pairs)
    keep_player = comp == int(np.argmax(np.bincount(comp, minlength=1)))
    keep = keep_player[games.white] & keep_player[games.black]
    names = games.players.names
    w, b = names[games.white[keep]], names[games.black[keep]]
    opt: dict[str, Any] = {}
    if games.neutral is not None:
        opt["neutral"] = games.neutral[keep]
    if games.weight is not None:
        opt["weight"] = games.weight[keep]
    kept = Games.from_arrays(w, b, games.score[keep], **opt)
    return kept, names[~keep_player]


def add_prior(pairs: Pairs, n: int, prior: float) -> Pairs:
    """``pairs`` plus BayesElo's virtual draws (see :attr:`BTConfig.prior`): each pair row
    of ``n_p`` games gets ``prior n_p (1/N_w + 1/N_b) / 4`` draws, and so does its
    colour-reversed row (appended)."""
    games_p = pairs.wins + pairs.draws + pairs.losses
    total = np.bincount(pairs.white, games_p, minlength=n) + np.bincount(
        pairs.black, games_p, minlength=n)
    v = 0.25 * prior * games_p * (1.0 / total[pairs.white] + 1.0 / total[pairs.black])
    zero = np.zeros_like(v)
    return Pairs(np.concatenate([pairs.white, pairs.black]),
                 np.concatenate([pairs.black, pairs.white]),
                 np.concatenate([pairs.advantaged, pairs.advantaged]),
                 np.concatenate([pairs.wins, zero]), np.concatenate([pairs.draws + v, v]),
                 np.concatenate([pairs.losses, zero]))


def _draw_fraction(pairs: Pairs) -> float:
    total = float(pairs.wins.sum() + pairs.draws.sum() + pairs.losses.sum())
    return min(max(float(pairs.draws.sum()) / total, 0.01), 0.99)


def _initial_drawelo(pairs: Pairs) -> float:
    """drawelo where ``P(draw)`` at equal ratings equals the draw fraction:
    ``2 f(d) - 1 = p``, ``d = 400 log10((1 + p) / (1 - p))``."""
    p = _draw_fraction(pairs)
    return 400.0 * math.log10((1.0 + p) / (1.0 - p))


def _initial_nu_elo(pairs: Pairs) -> float:
    """``400 log10 ν`` where Davidson's ``P(draw) = ν / (2 + ν)`` at equal ratings equals
    the draw fraction ``p``: ``ν = 2 p / (1 - p)``."""
    p = _draw_fraction(pairs)
    return 400.0 * math.log10(2.0 * p / (1.0 - p))


def _player_ids(players: PlayerIndex, names: Sequence[Any], what: str) -> np.ndarray:
    lookup = players.lookup
    out = np.empty(len(names), dtype=np.int64)
    for k, name in enumerate(names):
        i = lookup.get(name)
        if i is None:
            raise InputError(f"{what}: {name!r} is not a player of the games")
        out[k] = i
    return out


def _check_scores(games: Games, config: BTConfig) -> None:
    if config.model == "bt_half":
        return
    score = np.asarray(games.score)
    bad = (score != 0.0) & (score != 0.5) & (score != 1.0)
    if bad.any():
        i = int(np.argmax(bad))
        raise InputError(f"'score' must be 0, 0.5 or 1 for the {config.model} model; got "
                         f"{float(score[i])!r} at row {i}")


def _augment(pairs: Pairs, players: PlayerIndex, config: BTConfig) -> Pairs:
    """``pairs`` (the real games) plus BayesElo's virtual draws and the virtual games."""
    n = len(players)
    if config.prior > 0.0:  # virtual draws link every pair that met, both ways
        pairs = add_prior(pairs, n, config.prior)
    if config.virtual_games:
        rows = config.virtual_games
        vw = _player_ids(players, [r[0] for r in rows], "virtual_games player")
        vb = _player_ids(players, [r[1] for r in rows], "virtual_games opponent")
        counts = np.array([r[2:] for r in rows], dtype=np.float64).reshape(-1, 3)
        pairs = Pairs(np.concatenate([pairs.white, vw]), np.concatenate([pairs.black, vb]),
                      np.concatenate([pairs.advantaged, np.zeros(len(rows))]),
                      np.concatenate([pairs.wins, counts[:, 0]]),
                      np.concatenate([pairs.draws, counts[:, 1]]),
                      np.concatenate([pairs.losses, counts[:, 2]]))
    return pairs


@dataclass
class _Problem:
    """What the solver maximises: the pairs (priors included), the model code, where the
    fitted advantage (``ia``) and draw parameter (``idr``) sit in ``theta`` (-1: fixed at
    ``adv`` / ``de``), the Gaussian prior's precision and mean per parameter, and whether
    the ratings' level is free (``project``: pinned by projecting onto mean zero)."""

    pairs: Pairs
    n: int
    model: int
    ia: int
    idr: int
    adv: float
    de: float
    prec: np.ndarray
    mu: np.ndarray
    project: bool
    #: scratch for the pairs' gradient terms (:meth:`gradient`)
    _terms: np.ndarray | None = None

    @property
    def size(self) -> int:
        return self.prec.shape[0]

    @property
    def args(self) -> tuple:
        p = self.pairs
        return (p.white, p.black, p.advantaged, p.wins, p.draws, p.losses)

    @property
    def hargs(self) -> tuple:
        p = self.pairs
        return (p.white, p.black, p.advantaged)

    def objective(self, theta: np.ndarray) -> float:
        """The log-likelihood plus the Gaussian log-prior (up to a constant)."""
        ll = _log_likelihood(*self.args, theta, self.ia, self.adv, self.idr, self.de,
                             self.model)
        if not self.project:
            d = theta - self.mu
            ll -= 0.5 * float(self.prec @ (d * d))
        return ll

    def gradient(self, theta: np.ndarray, out: tuple) -> bool:
        """Gradient and curvature of :meth:`objective` into ``out`` (grad, diag, mxx, mxd,
        mdd)."""
        m = self.pairs.white.shape[0]
        if self._terms is None or self._terms.shape[1] != m:
            self._terms = np.empty((2, m))
        ok = _gradient_curvature(*self.args, theta, self.ia, self.adv, self.idr, self.de,
                                 self.model, *out, terms=self._terms)
        if not self.project:
            grad, diag = out[0], out[1]
            grad -= self.prec * (theta - self.mu)
            diag += self.prec
        return ok


def _pair_workers(m: int) -> int:
    """Threads for the pairs' terms: ``numba.get_num_threads()``, at most one per
    PAIRS_PER_THREAD pairs."""
    import numba

    return max(1, min(numba.get_num_threads(), m // PAIRS_PER_THREAD))


def _problem(pairs: Pairs, players: PlayerIndex, config: BTConfig, start: bool = True
             ) -> _Problem:
    """The fit's problem from the augmented ``pairs`` (validates the draw parameters).
    ``start=False``: a fitted draw parameter gets no start value (``de`` 0; the caller
    sets it in ``theta``, as the uncertainty at a fit's estimate does: one pass over the
    pairs less)."""
    n = len(players)
    model = MODELS.index(config.model)
    fit_adv = config.advantage == FIT
    if fit_adv and pairs.advantaged.sum() == 0:
        raise ConfigError("the advantage cannot be fitted: every game is neutral")
    has_draws = bool(pairs.draws.sum() > 0)
    de = 0.0
    fit_draw = False
    if model == BAYESELO:
        fit_draw = config.drawelo == FIT
        if fit_draw and not has_draws:
            raise InputError("drawelo cannot be fitted without draws (the maximum is at 0); "
                             "give a fixed drawelo")
        de = (_initial_drawelo(pairs) if start else 0.0) if fit_draw else float(
            config.drawelo)
    elif model == DAVIDSON:
        fit_draw = config.draw_nu == FIT
        if fit_draw and not has_draws:
            raise InputError("draw_nu cannot be fitted without draws (the maximum is at 0); "
                             "give a fixed draw_nu (0: no draws)")
        if not fit_draw and float(config.draw_nu) == 0.0 and has_draws:
            raise InputError("draw_nu=0 gives draws probability 0, but the games have draws")
        de = (_initial_nu_elo(pairs) if start else 0.0) if fit_draw else (
            400.0 * math.log10(config.draw_nu) if config.draw_nu > 0.0 else -math.inf)
    ia = n if fit_adv else -1
    idr = n + int(fit_adv) if fit_draw else -1
    size = n + int(fit_adv) + int(fit_draw)
    prec, mu = np.zeros(size), np.zeros(size)
    gp = config.gaussian_prior
    if gp is not None:
        if isinstance(gp[0], tuple):
            ids = _player_ids(players, [t[0] for t in gp], "gaussian_prior")
            mu[ids] = [t[1] for t in gp]
            prec[ids] = [1.0 / (t[2] * t[2]) for t in gp]
        else:
            mu[:n] = gp[0]
            prec[:n] = 1.0 / (gp[1] * gp[1])
    return _Problem(pairs, n, model, ia, idr, 0.0 if fit_adv else float(config.advantage),
                    de, prec, mu, gp is None)


def _start(prob: _Problem) -> np.ndarray:
    """Start values (no Gaussian prior): each player's smoothed score ``s`` (one virtual
    draw) as a rating, ``400 log10(s / (1 - s))``, stretched by the draw model's scale at
    equal ratings (``1 / (4 f(d)(1 - f(d)))`` for bayeselo, ``(2 + ν) / 2`` for davidson:
    see docs/algorithms/bradley_terry.md); the advantage likewise from the first players'
    score, less their average start difference. Only where Newton starts (two or three
    fewer damped steps on the bench's games; adding the opponents' average start did not
    help there or on the football data); the maximum is the same."""
    p, n = prob.pairs, prob.n
    games = p.wins + p.draws + p.losses
    score_w = p.wins + 0.5 * p.draws
    played = np.bincount(p.white, games, minlength=n) + np.bincount(p.black, games,
                                                                    minlength=n)
    points = np.bincount(p.white, score_w, minlength=n) + np.bincount(
        p.black, games - score_w, minlength=n)
    s = (points + 0.5) / (played + 1.0)
    stretch = 1.0
    if prob.model == BAYESELO:
        f = 1.0 / (1.0 + 10.0 ** (-prob.de / 400.0))
        stretch = 1.0 / (4.0 * f * (1.0 - f))
    elif prob.model == DAVIDSON:
        stretch = 1.0 + 0.5 * 10.0 ** (prob.de / 400.0)
    r = stretch * 400.0 * np.log10(s / (1.0 - s))
    theta = np.zeros(prob.size)
    theta[:n] = r - r.mean()
    if prob.ia >= 0:  # the first players' smoothed score in the advantaged games, less
        # their average rating difference
        hg = p.advantaged * games
        sw = (float(p.advantaged @ score_w) + 0.5) / (float(hg.sum()) + 1.0)
        diff = np.bincount(p.white, hg, minlength=n) - np.bincount(p.black, hg, minlength=n)
        theta[prob.ia] = stretch * 400.0 * math.log10(sw / (1.0 - sw)) - float(
            diff @ theta[:n]) / max(float(hg.sum()), 1e-300)
    return theta


def _maximise(prob: _Problem, tolerance: float, max_newton: int
              ) -> tuple[np.ndarray, int, bool, float]:
    """Damped Newton from the start values, each step at most MAX_STEP_ELO long: ``(theta,
    iterations, converged, ln L)``."""
    size, m = prob.size, prob.pairs.white.shape[0]
    theta = prob.mu.copy() if not prob.project else _start(prob)
    if prob.idr >= 0:
        theta[prob.idr] = prob.de
    cur = (np.empty(size), np.empty(size), np.empty(m), np.empty(m), np.empty(m))
    nxt = (np.empty(size), np.empty(size), np.empty(m), np.empty(m), np.empty(m))
    hv = np.empty(size)
    prob.gradient(theta, cur)
    ll = math.nan  # computed only when a step has to be shortened, and at the end
    converged = False
    it = 0
    while it < max_newton:
        it += 1
        grad = cur[0]
        step = _newton_step(prob, cur, hv)
        longest = float(np.max(np.abs(step)))
        if longest < tolerance:
            theta = theta + step  # converged: the last (tiny) step needs no gradient
            converged = True
            break
        if longest > MAX_STEP_ELO:  # (a direction of ascent still: shortened as a whole)
            step *= MAX_STEP_ELO / longest
        slope = float(grad @ step)
        trial = theta + step
        # the full Newton step is uphill if the slope along it is still >= 0 at its end
        # (concavity: the slope decreases along the line, so ln L rose all the way)
        ok = prob.gradient(trial, nxt)
        if not (ok and float(nxt[0] @ step) >= 0.0):
            # overshoot: Armijo backtracking on ln L itself, with slack for rounding
            if math.isnan(ll):
                ll = prob.objective(theta)
            slack = 1e-12 * (1.0 + abs(ll))
            t = 1.0
            while True:
                ll_t = prob.objective(trial)
                if ll_t >= ll + 1e-4 * t * slope - slack or t < 1e-12:
                    break
                t *= 0.5
                trial = theta + t * step
            if not ll_t >= ll + 1e-4 * t * slope - slack:
                break  # no uphill step: not converged
            prob.gradient(trial, nxt)
        change = float(np.max(np.abs(trial - theta)))
        theta = trial
        ll = math.nan
        cur, nxt = nxt, cur
        if change < tolerance:
            converged = True
            break
    ll = _log_likelihood(*prob.args, theta, prob.ia, prob.adv, prob.idr, prob.de, prob.model)
    return theta, it, converged, float(ll)


def _gauge(players: PlayerIndex, config: BTConfig) -> np.ndarray | None:
    """Weights ``w`` of the reported ratings' gauge (``rating = theta - w.theta + const``):
    ``1/n`` each (the mean), the anchor player, ``1/|S|`` on an anchor set; ``None`` with a
    Gaussian prior (absolute ratings)."""
    if config.gaussian_prior is not None:
        return None
    n = len(players)
    if config.anchor is None:
        return np.full(n, 1.0 / n)
    names = config.anchor if isinstance(config.anchor, tuple) else (config.anchor,)
    ids = _player_ids(players, names, "anchor")
    w = np.zeros(n)
    np.add.at(w, ids, 1.0 / ids.shape[0])
    return w


def _result(games_players: PlayerIndex, config: BTConfig, prob: _Problem, theta: np.ndarray,
            it: int, converged: bool, ll: float, real: Pairs) -> BTResult:
    n = prob.n
    rating = theta[:n].copy()
    w = _gauge(games_players, config)
    if w is not None:
        rating += config.mean_rating - float(w @ rating)
    draw = float(theta[prob.idr]) if prob.idr >= 0 else prob.de
    return BTResult(games_players, rating,
                    float(theta[prob.ia]) if prob.ia >= 0 else prob.adv,
                    draw if prob.model == BAYESELO else math.nan, ll, it, converged,
                    prob.pairs.white.shape[0], config,
                    draw_nu=math.exp(C * draw) if prob.model == DAVIDSON else math.nan,
                    pairs=real)


def fit(games: Games, config: BTConfig = BTConfig()) -> BTResult:
    """Maximum-likelihood (or maximum a posteriori) ratings of ``games`` under ``config``
    (see the module docstring).

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
    ...                                [1.0, 0.5, 0.0, 0.0])
    >>> r = fit(g)
    >>> [round(float(x), 2) for x in r.rating], r.converged
    ([101.35, -128.55, 27.2], True)
    """
    check_type(games, Games, "fit() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    check_type(config, BTConfig, "fit() needs a BTConfig as config")
    if games.n_games == 0:
        raise InputError("fit() needs at least one game")
    _check_scores(games, config)
    real = condense(games)
    pairs = _augment(real, games.players, config)
    prob = _problem(pairs, games.players, config)
    _gauge(games.players, config)  # validates the anchor names
    if not _prior_on_everyone(config, games):
        # (a Gaussian prior on every player makes the posterior strictly concave)
        _check_connected(games, pairs, config.prior > 0.0)
    theta, it, converged, ll = _maximise(prob, config.tolerance_elo, config.max_newton)
    if prob.idr >= 0 and theta[prob.idr] > DRAW_LIMIT:
        what = "drawelo" if prob.model == BAYESELO else "400 log10(draw_nu)"
        raise InputError(
            f"the maximum-likelihood estimate of the {config.model} model does not exist for "
            f"these games: the fitted {what} runs off past {DRAW_LIMIT:g} (the decisive "
            "results are explained by ever larger rating gaps and the draws by an ever larger "
            "draw parameter); use bt_half, fix the draw parameter, or add a gaussian_prior")
    return _result(games.players, config, prob, theta, it, converged, ll, real)


def predict(result: BTResult, white: Any, black: Any,
            neutral: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P(win), P(draw), P(loss))`` of ``white`` against ``black`` (arrays of player
    names of the fit; ``neutral``: optional booleans, no advantage where true) under the
    fitted model, ``x = R_white - R_black + advantage``:

    * ``bayeselo``: ``P(win) = f(x - drawelo)``, ``P(loss) = f(-x - drawelo)``, the draw
      the rest;
    * ``davidson``: ``P(win) = 10^(x/800) / D``, ``P(loss) = 10^(-x/800) / D``,
      ``P(draw) = ν / D``, ``D = 10^(x/800) + 10^(-x/800) + ν``;
    * ``bt_half``: the model has no draw probability; ``P(win) = f(x)`` is the expected
      score, ``P(draw) = 0``.

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
    ...                                [1.0, 0.5, 0.0, 0.0])
    >>> w, d, l = predict(fit(g), ["a"], ["b"])
    >>> round(float(w[0]), 4), float(d[0])
    (0.7898, 0.0)
    """
    check_type(result, BTResult, "predict() needs a BTResult from fit()")
    lookup = result.players.lookup

    def ids(names: Any, column: str) -> np.ndarray:
        out = np.empty(len(names), dtype=np.int64)
        for row, name in enumerate(np.asarray(names, dtype=object).tolist()):
            i = lookup.get(name)
            if i is None:
                raise InputError(f"column '{column}' row {row}: {name!r} is not a player "
                                 "of the fit")
            out[row] = i
        return out

    w, b = ids(white, "white"), ids(black, "black")
    if w.shape != b.shape:
        raise InputError(f"'white' and 'black' differ in length ({w.shape[0]} and "
                         f"{b.shape[0]})")
    h = np.ones(w.shape[0])
    if neutral is not None:
        h[np.asarray(neutral, dtype=bool)] = 0.0
    x = result.rating[w] - result.rating[b] + h * result.advantage
    if result.config.model == "bayeselo":
        win = expected_score(x, result.drawelo)
        loss = expected_score(-x, result.drawelo)
        return win, np.maximum(1.0 - win - loss, 0.0), loss
    if result.config.model == "davidson":
        y = 0.5 * C * x
        top = np.maximum(np.abs(y), math.log(result.draw_nu) if result.draw_nu > 0 else 0.0)
        ew, el = np.exp(y - top), np.exp(-y - top)
        ed = result.draw_nu * np.exp(-top)
        total = ew + el + ed
        return ew / total, ed / total, el / total
    win = expected_score(x, 0.0)
    return win, np.zeros_like(win), 1.0 - win


def _newton_step(prob: _Problem, cur: tuple, hv: np.ndarray) -> np.ndarray:
    """Solve ``H s = g`` by preconditioned conjugate gradients, to a relative residual
    ``min(FORCING, sqrt(|g|))`` (inexact Newton); without a Gaussian prior the ratings
    part of every search direction is projected onto mean zero (``H`` is singular along
    all-equal)."""
    grad, diag, mxx, mxd, mdd = cur
    n, project = prob.n, prob.project
    args = (*prob.hargs, mxx, mxd, mdd, prob.ia, prob.idr, prob.prec)
    inv = np.where(diag > 0.0, 1.0 / np.where(diag > 0.0, diag, 1.0), 0.0)
    r = grad.copy()
    if project:
        r[:n] -= r[:n].mean()
    gnorm = float(np.sqrt(r @ r))
    s = np.zeros_like(r)
    if gnorm == 0.0:
        return s
    tol = gnorm * min(FORCING, math.sqrt(gnorm))
    z = inv * r
    if project:
        z[:n] -= z[:n].mean()
    p = z.copy()
    rz = float(r @ z)
    for _ in range(max(10, 2 * r.shape[0])):
        _hessian_vector(*args, p, hv)
        php = float(p @ hv)
        if php <= 0.0:
            break
        alpha = rz / php
        s += alpha * p
        r -= alpha * hv
        if float(np.sqrt(r @ r)) <= tol:
            break
        z = inv * r
        if project:
            z[:n] -= z[:n].mean()
        rz_new = float(r @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return s


# ----------------------------------------------------------------------------------
# uncertainty: the observed information at the fit


@dataclass(frozen=True)
class BTErrors:
    """Standard errors of a fit, in the gauge of its reported ratings (an anchor player
    has 0; with an anchor set, the set's mean is fixed; by default the mean is fixed).

    ``method``: ``"exact"`` (the inverse of the observed information), ``"conditional"``
    (each parameter's error with all the others held at their estimates,
    ``1 / sqrt(H_ii)``; not the marginal error) or ``"bootstrap"`` (the
    standard deviation over parametric bootstrap refits of ``n_samples`` samples).
    """

    players: PlayerIndex
    #: the fitted ratings (the centres of the intervals)
    estimate: np.ndarray
    #: the standard error of each rating (Elo)
    rating: np.ndarray
    #: of the fitted advantage (NaN when fixed)
    advantage: float
    #: of BayesElo's fitted drawelo (NaN otherwise)
    drawelo: float
    #: of Davidson's fitted ν (NaN otherwise; the delta method from ``400 log10 ν``)
    draw_nu: float
    method: str
    n_samples: int = 0
    #: how ``method="exact"`` computed them: ``"series"`` (the certified Neumann series,
    #: docs/algorithms/bradley_terry.md "Fast exact errors") or ``"dense"`` (Cholesky);
    #: else the method
    path: str = ""
    #: the certified bound on the error of every rating's standard error (Elo; 0 for the
    #: dense path, which is exact up to rounding; NaN for conditional and bootstrap)
    bound: float = math.nan
    #: the series' spectral radius (with its margin; NaN when not used)
    rho: float = math.nan

    def half_width(self, level: float = 0.95) -> np.ndarray:
        """The normal confidence interval's half-width, ``z_{(1+level)/2} * se``."""
        level = check_number("half_width", "level", level, lo=0.0, hi=1.0, lo_open=True,
                             hi_open=True)
        return statistics.NormalDist().inv_cdf(0.5 + 0.5 * level) * self.rating

    def interval(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)``: the normal confidence interval of every rating."""
        h = self.half_width(level)
        return self.estimate - h, self.estimate + h

    def as_dict(self) -> dict[Any, float]:
        """``{player name: standard error}``."""
        return dict(zip(self.players.names.tolist(), self.rating.tolist()))


def _information(result: BTResult, games: Games | None
                 ) -> tuple[_Problem, tuple, np.ndarray | None]:
    """The fit's problem, its curvature at the estimate (grad, diag, mxx, mxd, mdd) and
    the gauge weights."""
    check_type(result, BTResult, "needs a BTResult from fit()")
    config = result.config
    real = result.pairs
    if real is None:
        if games is None:
            raise InputError("this BTResult holds no condensed pairs: pass the games it was "
                             "fitted on")
        check_type(games, Games, "games must be a fastrate.Games")
        real = condense(games)
    prob = _problem(_augment(real, result.players, config), result.players, config,
                    start=False)  # (theta's draw parameter is the fit's, set below)
    theta = np.empty(prob.size)
    theta[:prob.n] = result.rating
    if prob.ia >= 0:
        theta[prob.ia] = result.advantage
    if prob.idr >= 0:
        theta[prob.idr] = (result.drawelo if prob.model == BAYESELO
                           else 400.0 * math.log10(result.draw_nu))
    m = prob.pairs.white.shape[0]
    cur = (np.empty(prob.size), np.empty(prob.size), np.empty(m), np.empty(m), np.empty(m))
    prob.gradient(theta, cur)
    return prob, cur, _gauge(result.players, config)


def _dense_information(prob: _Problem, cur: tuple) -> np.ndarray:
    """The negative Hessian as a dense ``size x size`` matrix (O(size^2) memory): pair
    ``p`` adds ``J^T M_p J`` with ``M_p = [[mxx, mxd], [mxd, mdd]]`` its curvature in
    ``(x, d)`` and ``J`` the map from ``theta`` to ``x = θ_w - θ_b + h θ_adv`` and ``d``."""
    _, _, mxx, mxd, mdd = cur
    size, p = prob.size, prob.pairs
    m = p.white.shape[0]
    xs = [(p.white, np.ones(m)), (p.black, -np.ones(m))]
    if prob.ia >= 0:
        xs.append((np.full(m, prob.ia), p.advantaged))
    rows, cols, vals = [], [], []
    for r, cr in xs:
        for c, cc in xs:
            rows.append(r)
            cols.append(c)
            vals.append(mxx * cr * cc)
        if prob.idr >= 0:
            d = np.full(m, prob.idr)
            rows += [r, d]
            cols += [d, r]
            vals += [mxd * cr, mxd * cr]
    if prob.idr >= 0:
        d = np.full(m, prob.idr)
        rows.append(d)
        cols.append(d)
        vals.append(mdd)
    flat = np.concatenate(rows) * size + np.concatenate(cols)
    out = np.bincount(flat, np.concatenate(vals), minlength=size * size)
    out = out.reshape(size, size)
    out[np.diag_indices(size)] += prob.prec
    return out


def _times_lower(y: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``y @ t`` for a lower-triangular ``t``, recursively, skipping its zero block (half
    the flops of a full product)."""
    n = t.shape[0]
    if n <= 256:
        return y @ t
    h = n // 2
    out = np.empty((y.shape[0], n))
    out[:, :h] = _times_lower(y[:, :h], t[:h, :h])
    out[:, :h] += y[:, h:] @ t[h:, :h]
    out[:, h:] = _times_lower(y[:, h:], t[h:, h:])
    return out


def _lower_times(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``t @ y`` for a lower-triangular ``t`` (as :func:`_times_lower`)."""
    n = t.shape[0]
    if n <= 256:
        return t @ y
    h = n // 2
    out = np.empty((n, y.shape[1]))
    out[:h] = _lower_times(t[:h, :h], y[:h])
    out[h:] = t[h:, :h] @ y[:h]
    out[h:] += _lower_times(t[h:, h:], y[h:])
    return out


def _lower_inverse(low: np.ndarray) -> np.ndarray:
    """The inverse of a lower-triangular matrix, blocked: ``[[A, 0], [B, C]]^-1 =
    [[A^-1, 0], [-C^-1 B A^-1, C^-1]]``, the products triangular (about ``n^3 / 3``
    flops, in matrix products)."""
    n = low.shape[0]
    if n <= 64:
        out = np.zeros_like(low)
        for i in range(n):
            out[i, i] = 1.0 / low[i, i]
            if i:
                out[i, :i] = -(low[i, :i] @ out[:i, :i]) / low[i, i]
        return out
    h = n // 2
    ai = _lower_inverse(low[:h, :h])
    ci = _lower_inverse(low[h:, h:])
    out = np.zeros_like(low)
    out[:h, :h] = ai
    out[h:, h:] = ci
    out[h:, :h] = -_lower_times(ci, _times_lower(low[h:, :h], ai))
    return out


def _dense_factor(prob: _Problem, cur: tuple) -> np.ndarray:
    """``L^-1`` for ``M = L L^T``, ``M = H + α u u^T`` (``u``: the unit all-ratings-equal
    vector, ``α`` the mean curvature; ``H`` itself with a Gaussian prior): for every
    contrast ``c`` (``u . c = 0``), ``c^T H^+ c = c^T M^-1 c = |L^-1 c|^2``."""
    dense = _dense_information(prob, cur)
    if prob.project:
        n = prob.n
        dense[:n, :n] += float(np.mean(cur[1][:n])) / n
    try:
        low = np.linalg.cholesky(dense)
    except np.linalg.LinAlgError:
        raise InputError("the information matrix is singular: some rating is not "
                         "determined by the games") from None
    del dense
    return _lower_inverse(low)


def _delta_draw(prob: _Problem, result: BTResult, var_d: float) -> tuple[float, float]:
    """The draw parameter's ``(drawelo SE, ν SE)`` from the variance of ``theta[idr]``."""
    if prob.idr < 0:
        return math.nan, math.nan
    se = math.sqrt(max(var_d, 0.0))
    if prob.model == BAYESELO:
        return se, math.nan
    return math.nan, C * result.draw_nu * se  # ν = e^(C d): dν/dd = C ν


#: ``method="exact"`` goes straight to the dense path for at most this many players
#: (milliseconds there; the series needs well-connected, larger data to pay off)
SERIES_MIN_PLAYERS = 1000
#: ``los(method="exact")`` uses the series for at most this many (players x all players)
#: cells: it holds two dense ``top x n`` arrays of one- and two-hop columns (40 MB each)
LOS_SERIES_MAX_CELLS = 5_000_000
#: default certified tolerance of ``method="exact"`` on each standard error (Elo)
SE_TOLERANCE = 1e-3


#: the last series structure: ``(weak reference to its BTResult, structure)``, so that
#: ``standard_errors`` then ``los`` (or several ``los``) build it once
_SERIES_CACHE: list[Any] = [None, None]


def _cached_structure(result: BTResult, prob: _Problem, cur: tuple,
                      w: np.ndarray | None = None) -> Any:
    """:func:`_series_structure` of ``result``'s information (``prob``, ``cur``), from
    the cache when it was built for this very result (one with its own pairs)."""
    import weakref

    ref, st = _SERIES_CACHE
    if result.pairs is not None and ref is not None and ref() is result:
        return st
    st = _series_structure(prob, cur, w, result.rating)
    if result.pairs is not None:
        _SERIES_CACHE[:] = [weakref.ref(result), st]
    return st


def _series_structure(prob: _Problem, cur: tuple, w: np.ndarray | None = None,
                      rating: np.ndarray | None = None) -> Any:
    """The series' structure with the fitted parameters' Schur complement (and ``G w``
    for the gauge ``w``), or None where the series does not apply (see
    fastrate/ratings/_bt_uncertainty.py); ``rating``: the estimate's, a start for the
    Lanczos run (:func:`fastrate.ratings._bt_uncertainty.settle`)."""
    from fastrate.ratings import _bt_uncertainty as U

    n, p = prob.n, prob.pairs
    st = U.structure(n, p.white, p.black, cur[2], cur[1][:n], prob.project)
    if st is None:
        return None
    cols = np.empty((prob.size, prob.size - n))
    if cols.shape[1]:
        _parameter_columns(*prob.hargs, cur[2], cur[3], cur[4], prob.ia, prob.idr, prob.prec,
                           cols)
    if not U.settle(st, np.ascontiguousarray(cols[:n]), cols[n:], w, rating):
        return None
    return st


def _series_errors(prob: _Problem, st: Any, w: np.ndarray | None
                   ) -> tuple[np.ndarray, np.ndarray, float, float] | None:
    """``(rating SEs, variances of the fitted parameters, bound, ρ)`` by the series."""
    from fastrate.ratings import _bt_uncertainty as U

    if st is None:
        return None
    out = U.variances(st, w)
    if out is None:
        return None
    var, bound = out
    se = np.sqrt(np.maximum(var, 0.0))
    err = U.se_bound(var, bound)
    if w is not None:
        anchor = w == 1.0
        se[anchor] = 0.0  # the anchor player: exactly 0
        err[anchor] = 0.0
    var_theta = np.concatenate([np.zeros(prob.n), np.diag(st.s_inv)])
    return se, var_theta, float(err.max()), st.rho


def standard_errors(result: BTResult, games: Games | None = None,
                    method: str = "exact", tolerance: float = SE_TOLERANCE) -> BTErrors:
    """Standard errors of the ratings, the fitted advantage and draw parameter from the
    observed information ``H`` (the negative Hessian of the log-posterior at the fit, all
    fitted parameters included), in the reported ratings' gauge: ``Var(R_i) =
    c_i^T H^+ c_i`` with ``c_i = e_i - w`` (``w``: ``1/n`` each for the mean, the anchor
    player, ``1/|S|`` on an anchor set; ``c_i = e_i`` with a Gaussian prior).

    ``method="exact"``: within ``tolerance`` Elo of the exact errors on every rating, by
    the fastest path that can certify it: the truncated Neumann series of the normalised
    information with a certified remainder (O(players x opponents²); see
    docs/algorithms/bradley_terry.md, "Fast exact errors"), or, where its bound exceeds
    ``tolerance`` (sparse, clustered graphs), at most ``SERIES_MIN_PLAYERS`` players, or it
    does not apply, the dense path. ``BTErrors.path`` says which, ``BTErrors.bound`` the
    certified bound. ``method="dense"``: a dense Cholesky factorisation of ``H`` (plus a
    rank-one term for the free level) and its triangular inverse: O(n^3) time, O(n^2)
    memory (14 s for 10,000 players on two cores), exact up to rounding.
    ``method="series"``: the series whatever its bound (an error if it does not apply).
    ``method="conditional"``: ``1 / sqrt(H_ii)``, each
    parameter's error with every other parameter held at its estimate (the Gaussian
    version of BayesElo's ``exactdist``), O(pairs): not the marginal error (it ignores the
    uncertainty of everyone else; measured against the exact one in
    docs/algorithms/bradley_terry.md) and in no gauge. ``games`` is needed only for a
    result without ``pairs``.

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b"] * 3, ["b", "a"] * 3,
    ...                                [1.0, 1.0, 0.0, 0.5, 1.0, 0.0])
    >>> se = standard_errors(fit(g))
    >>> [round(float(x), 1) for x in se.rating], se.path
    ([71.9, 71.9], 'dense')
    """
    check_choice("standard_errors", "method", method,
                 ("exact", "dense", "series", "conditional"))
    tolerance = check_number("standard_errors", "tolerance", tolerance, lo=0.0,
                             lo_open=True, hi=MAX_ELO)
    prob, cur, w = _information(result, games)
    n = prob.n
    path, bound, rho = method, 0.0, math.nan
    if method == "conditional":
        var = 1.0 / cur[1]
        rating_var = var[:n]
        bound = math.nan
    elif method == "series" or (method == "exact" and n > SERIES_MIN_PLAYERS):
        out = _series_errors(prob, _cached_structure(result, prob, cur, w), w)
        if out is None and method == "series":
            raise InputError("standard_errors: the series does not apply to this fit (its "
                             "normalised information has spectral radius >= 0.9, or a "
                             "negative pair curvature); use method='exact'")
        if out is not None and (method == "series" or out[2] <= tolerance):
            se, var, bound, rho = out
            drawelo_se, nu_se = _delta_draw(prob, result, float(var[prob.idr])
                                            if prob.idr >= 0 else 0.0)
            return BTErrors(result.players, result.rating, se,
                            math.sqrt(float(var[prob.ia])) if prob.ia >= 0 else math.nan,
                            drawelo_se, nu_se, method, path="series", bound=bound, rho=rho)
        method = "exact"
    if method != "conditional":
        path = "dense"
        li = _dense_factor(prob, cur)
        var = np.einsum("ij,ij->j", li, li)
        rating_var = var[:n]
        if w is not None:
            v = li[:, :n] @ w
            rating_var = rating_var - 2.0 * (li[:, :n].T @ v) + float(v @ v)
    se = np.sqrt(np.maximum(rating_var, 0.0))
    if w is not None and path == "dense":
        se[w == 1.0] = 0.0  # the anchor player: exactly 0, not rounding
    drawelo_se, nu_se = _delta_draw(prob, result, float(var[prob.idr]) if prob.idr >= 0
                                    else 0.0)
    return BTErrors(result.players, result.rating, se,
                    math.sqrt(float(var[prob.ia])) if prob.ia >= 0 else math.nan,
                    drawelo_se, nu_se, method, path=path, bound=bound, rho=rho)


def _solve_block(prob: _Problem, cur: tuple, rhs: np.ndarray, rtol: float = 1e-10,
                 max_iter: int = 1000) -> np.ndarray:
    """``X = H^+ rhs`` for the rows of ``rhs`` (``k x size``; contrasts when the level is
    free), by Jacobi-preconditioned conjugate gradients, one per row, sharing each
    ``H X`` kernel call; to a relative residual ``rtol``."""
    grad, diag, mxx, mxd, mdd = cur
    n, project = prob.n, prob.project
    k, size = rhs.shape
    args = (*prob.hargs, mxx, mxd, mdd, prob.ia, prob.idr, prob.prec, k)
    inv = np.where(diag > 0.0, 1.0 / np.where(diag > 0.0, diag, 1.0), 0.0)
    r = np.array(rhs, dtype=np.float64)
    if project:
        r[:, :n] -= r[:, :n].mean(axis=1)[:, None]
    goal = rtol * np.sqrt(np.einsum("ij,ij->i", r, r))
    x = np.zeros_like(r)
    z = inv * r
    if project:
        z[:, :n] -= z[:, :n].mean(axis=1)[:, None]
    p = z.copy()
    rz = np.einsum("ij,ij->i", r, z)
    hp = np.empty(size * k)
    for _ in range(max_iter):
        _hessian_block(*args, p.reshape(-1), hp)
        hpm = hp.reshape(k, size)
        php = np.einsum("ij,ij->i", p, hpm)
        alpha = np.where(php > 0.0, rz / np.where(php > 0.0, php, 1.0), 0.0)[:, None]
        x += alpha * p
        r -= alpha * hpm
        if np.all(np.sqrt(np.einsum("ij,ij->i", r, r)) <= goal):
            break
        z = inv * r
        if project:
            z[:, :n] -= z[:, :n].mean(axis=1)[:, None]
        rz_new = np.einsum("ij,ij->i", r, z)
        beta = np.where(rz > 0.0, rz_new / np.where(rz > 0.0, rz, 1.0), 0.0)[:, None]
        p = z + beta * p
        rz = rz_new
    return x


def covariance(result: BTResult, players: Any = None, games: Games | None = None,
               method: str = "auto") -> np.ndarray:
    """The covariance matrix of the ratings of ``players`` (names; default all, in the
    fit's order) in the reported ratings' gauge, ``C = c_i^T H^+ c_j`` (see
    :func:`standard_errors`; the fitted advantage and draw parameter are in ``H``, so
    their uncertainty is included).

    ``method``: ``"dense"`` (Cholesky, O(n^3)), ``"cg"`` (one conjugate-gradient solve
    of the sparse ``H`` per player, sharing the passes over the pairs: for a few players
    out of many; to a relative residual of 1e-10) or ``"auto"`` (cg for at most 200
    players out of more than 2,000, else dense). Both are exact up to rounding."""
    check_choice("covariance", "method", method, ("auto", "dense", "cg"))
    prob, cur, w = _information(result, games)
    n = prob.n
    ids = (np.arange(n) if players is None else
           _player_ids(result.players, list(np.asarray(players, dtype=object).tolist()),
                       "players"))
    if method == "auto":
        method = "cg" if ids.shape[0] <= 200 and n > 2000 else "dense"
    if method == "dense":
        li = _dense_factor(prob, cur)
        z = li[:, ids]
        if w is not None:
            z = z - (li[:, :n] @ w)[:, None]
        return z.T @ z
    rhs = np.zeros((ids.shape[0], prob.size))
    rhs[np.arange(ids.shape[0]), ids] = 1.0
    if w is not None:
        rhs[:, :n] -= w[None, :]
    x = _solve_block(prob, cur, rhs)
    out = rhs @ x.T
    return 0.5 * (out + out.T)


def los(result: BTResult, top: int = 10, players: Any = None, games: Games | None = None,
        method: str = "exact", tolerance: float = SE_TOLERANCE, details: bool = False
        ) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """The likelihood of superiority of the ``top`` best-rated players (or of the given
    ``players``): ``(names, L)`` with ``L[i, j] = P(R_i > R_j) = Φ((R_i - R_j) /
    sqrt(C_ii + C_jj - 2 C_ij))`` under the Gaussian approximation of the likelihood
    (``C``: :func:`covariance`; the difference is gauge-free); the diagonal is NaN.
    Names are ordered best first.

    ``method="exact"``: every difference's standard deviation within ``tolerance`` Elo
    of the exact one, by the fastest path that can certify it: the Neumann series of
    :func:`standard_errors` on the players' two-hop columns (more than
    ``SERIES_MIN_PLAYERS`` players, ``top x players <= LOS_SERIES_MAX_CELLS``, bound
    within ``tolerance``), else the covariance by
    conjugate gradients or dense (:func:`covariance`, ``method="auto"``).
    ``method="series"``, ``"cg"``, ``"dense"`` force a path. ``details=True`` also
    returns ``{"path", "bound" (Elo, on each difference's sd), "rho"}``.

    ``method="conditional"``: the variance of ``R_i - R_j`` with every other parameter
    held at its estimate, ``(H_ii + H_jj + 2 H_ij) / (H_ii H_jj - H_ij^2)`` from the 2x2
    block of the information (O(pairs), no solve): not the marginal variance (see
    :func:`standard_errors`).

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c"] * 4, ["b", "c", "a"] * 4,
    ...                                [1.0, 0.5, 0.5, 1.0, 0.5, 0.0] * 2)
    >>> names, m = los(fit(g), top=2)
    >>> names.tolist(), round(float(m[0, 1]), 3)
    (['a', 'c'], 0.938)
    """
    check_type(result, BTResult, "los() needs a BTResult from fit()")
    if players is None:
        top = int(check_number("los", "top", top, lo=1, integer=True))
        ids = np.argsort(-result.rating, kind="stable")[:top]
    else:
        ids = _player_ids(result.players, list(np.asarray(players, dtype=object).tolist()),
                          "players")
        ids = ids[np.argsort(-result.rating[ids], kind="stable")]
    names = result.players.names[ids]
    check_choice("los", "method", method, ("exact", "series", "cg", "dense", "conditional"))
    tolerance = check_number("los", "tolerance", tolerance, lo=0.0, lo_open=True,
                             hi=MAX_ELO)
    info: dict[str, Any] = {"path": method, "bound": 0.0, "rho": math.nan}
    var = None
    n_players = len(result.players)
    if method == "series" or (method == "exact" and n_players > SERIES_MIN_PLAYERS
                              and ids.shape[0] * n_players <= LOS_SERIES_MAX_CELLS):
        from fastrate.ratings import _bt_uncertainty as U

        prob, cur, _ = _information(result, games)
        st = _cached_structure(result, prob, cur)
        if st is None and method == "series":
            raise InputError("los: the series does not apply to this fit (its normalised "
                             "information has spectral radius >= 0.9, or a negative pair "
                             "curvature); use method='exact'")
        if st is not None:
            v, b = U.difference_variances(st, ids)
            err = float(U.se_bound(v, b).max()) if ids.shape[0] > 1 else 0.0
            if method == "series" or err <= tolerance:
                var = np.maximum(v, 0.0)
                info = {"path": "series", "bound": err, "rho": st.rho}
    if var is None and method != "conditional":
        cov = covariance(result, names, games, method="auto" if method in (
            "exact", "series") else method)
        d = np.diag(cov)
        var = np.maximum(d[:, None] + d[None, :] - 2.0 * cov, 0.0)
        info["path"] = "covariance"
    elif var is None:
        var = _conditional_difference_variance(result, ids, games)
        info["bound"] = math.nan
    out = np.empty((ids.shape[0], ids.shape[0]))
    _superiority(np.ascontiguousarray(result.rating[ids]), np.ascontiguousarray(var), out)
    return (names, out, info) if details else (names, out)


def _conditional_difference_variance(result: BTResult, ids: np.ndarray,
                                     games: Games | None) -> np.ndarray:
    """``Var(R_i - R_j | the rest)`` for ``i, j`` in ``ids``, from the 2x2 blocks of ``H``."""
    prob, cur, _ = _information(result, games)
    k = ids.shape[0]
    local = np.full(prob.n, -1, dtype=np.int64)
    local[ids] = np.arange(k)
    a, b = local[prob.pairs.white], local[prob.pairs.black]
    both = (a >= 0) & (b >= 0)
    off = np.zeros((k, k))
    np.add.at(off, (a[both], b[both]), -cur[2][both])
    off = off + off.T
    d = cur[1][ids]
    det = d[:, None] * d[None, :] - off * off
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(det > 0.0, (d[:, None] + d[None, :] + 2.0 * off) / det, 0.0)


def _simulate(prob: _Problem, result: BTResult, real: Pairs, rng: np.random.Generator,
              draw_rate: float) -> Pairs:
    """One parametric-bootstrap sample: every real pair's games drawn again from the
    fitted model (``bt_half``: a draw with probability ``min(d, 2 min(E, 1 - E))``, ``d``
    the overall draw fraction, the rest split so the expected score stays ``E``)."""
    w, b, h = real.white, real.black, real.advantaged
    x = result.rating[w] - result.rating[b] + h * result.advantage
    if prob.model == BAYESELO:
        pw = expected_score(x, result.drawelo)
        pl = expected_score(-x, result.drawelo)
        pd = np.maximum(1.0 - pw - pl, 0.0)
    elif prob.model == DAVIDSON:
        y = 0.5 * C * x
        a, c, nu = np.exp(y), np.exp(-y), result.draw_nu
        pw, pd, pl = a / (a + c + nu), nu / (a + c + nu), c / (a + c + nu)
    else:
        e = expected_score(x, 0.0)
        pd = np.minimum(draw_rate, 2.0 * np.minimum(e, 1.0 - e))
        pw = e - 0.5 * pd
        pl = 1.0 - e - 0.5 * pd
    n = np.rint(real.wins + real.draws + real.losses).astype(np.int64)
    wins = rng.binomial(n, np.clip(pw, 0.0, 1.0))
    rest = n - wins
    cond = np.where(pw < 1.0, pd / np.where(pw < 1.0, 1.0 - pw, 1.0), 0.0)
    draws = rng.binomial(rest, np.clip(cond, 0.0, 1.0))
    return Pairs(w, b, h, wins.astype(np.float64), draws.astype(np.float64),
                 (rest - draws).astype(np.float64))


def bootstrap(result: BTResult, games: Games | None = None, samples: int = 100,
              seed: int = 0, workers: int | None = None) -> BTErrors:
    """Parametric bootstrap (Ordo's simulated errors): ``samples`` times, every pair's
    games are drawn again from the fitted model, refitted (priors and virtual games as in
    the fit) and put in the fit's gauge; the errors are the standard deviations over the
    refits. Sample ``k`` uses the generator ``numpy.random.default_rng([seed, k])``, so
    the result is the same for any number of ``workers`` (threads; the kernels release the
    GIL; default: ``numba.get_num_threads()``, as the other threaded functions). Samples
    without a maximum (a "scored against" graph that is not strongly connected, a draw
    parameter running off, see :func:`fit`; or no convergence) are skipped and not counted
    in ``n_samples``.
    """
    check_type(result, BTResult, "bootstrap() needs a BTResult from fit()")
    samples = int(check_number("bootstrap", "samples", samples, lo=2, integer=True))
    prob, _, w = _information(result, games)
    real = result.pairs if result.pairs is not None else condense(games)
    players, config = result.players, result.config
    draw_rate = float(real.draws.sum() / (real.wins.sum() + real.draws.sum()
                                          + real.losses.sum()))
    n = len(players)

    def one(k: int) -> np.ndarray | None:
        rng = np.random.default_rng([seed, k])
        pairs = _augment(_simulate(prob, result, real, rng, draw_rate), players, config)
        if config.gaussian_prior is None and np.bincount(
                _pair_components(n, pairs), minlength=1).shape[0] > 1:
            return None
        try:
            p = _problem(pairs, players, config)
        except InputError:  # e.g. no draws left to fit a draw parameter
            return None
        theta, _, converged, _ = _maximise(p, config.tolerance_elo, config.max_newton)
        if not converged or (p.idr >= 0 and theta[p.idr] > DRAW_LIMIT):
            return None  # no maximum (see fit)
        out = theta.copy()
        if w is not None:
            out[:n] += config.mean_rating - float(w @ out[:n])
        if p.idr >= 0 and p.model == DAVIDSON:
            out[p.idr] = math.exp(C * out[p.idr])
        return out

    if workers is None:
        import numba

        workers = numba.get_num_threads()
    workers = max(1, min(int(workers), samples))
    if workers <= 1:
        fits = [one(k) for k in range(samples)]
    else:  # (a pool of its own: each sample's fit waits on the shared kernel pool,
        # fastrate._threads, and a task there must not wait on that pool itself)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            fits = list(pool.map(one, range(samples)))
    kept = [f for f in fits if f is not None]
    if len(kept) < 2:
        raise InputError("bootstrap: fewer than 2 samples had a maximum-likelihood estimate; "
                         "add a prior")
    sd = np.std(np.stack(kept), axis=0, ddof=1)
    draw = float(sd[prob.idr]) if prob.idr >= 0 else math.nan
    return BTErrors(players, result.rating, sd[:n],
                    float(sd[prob.ia]) if prob.ia >= 0 else math.nan,
                    draw if prob.model == BAYESELO else math.nan,
                    draw if prob.model == DAVIDSON else math.nan, "bootstrap", len(kept))
