"""Batch Bradley-Terry ratings: maximum likelihood from all games at once (SPEC §1.4).

Ratings are on the Elo scale, ``f(x) = 1 / (1 + 10^(-x/400))``; for a game with the first
player W and the second B, ``x = R_W - R_B + h * adv`` (``h`` is 0 in games flagged
neutral, else 1). Two models:

* ``"bt_half"`` (Ordo's model; Zermelo 1929, Bradley & Terry 1952): a draw counts as half
  a win, ``ln L = sum s ln f(x) + (1 - s) ln f(-x)`` over games with score ``s``.
* ``"bayeselo"`` (Rémi Coulom's BayesElo): ``P(win) = f(x - drawelo)``,
  ``P(loss) = f(-x - drawelo)``, ``P(draw) = 1 - P(win) - P(loss)``.

``advantage`` and (for ``bayeselo``) ``drawelo`` are fixed numbers or ``"fit"``: fitted
with the ratings. Both log-likelihoods are concave (the BayesElo draw probability is the
mass of the logistic density on an interval, which is log-concave in its end points), so
the solver is a damped Newton method:

1. the games are condensed into unique ordered ``(white, black, advantaged)`` pairs with
   their win/draw/loss counts (two counting sorts, O(games + players));
2. each iteration computes the gradient and the per-pair 2x2 curvature in one kernel,
   then solves ``H s = g`` by conjugate gradients with a diagonal (Jacobi) preconditioner,
   the Hessian applied pair by pair (never formed). ``H`` is singular along the
   all-ratings-equal direction; the ratings part of every CG direction is projected onto
   mean zero, which pins the mean;
3. a backtracking (Armijo) line search on the log-likelihood keeps every step uphill;
4. it stops when the largest change of a rating, the advantage or drawelo is below
   ``tolerance_elo``.

The maximum likelihood estimate exists only if the graph "i scored at least a draw
against j" is strongly connected; otherwise some rating difference goes to infinity, so
:func:`fit` refuses such data and names the players outside the largest strongly
connected component (Tarjan's algorithm, iterative). Ratings are shifted so that their
mean is ``mean_rating`` (Ordo's ``-a 0``), or so that the ``anchor`` player has it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_choice, check_number, check_type
from fastrate.data import Games
from fastrate.data.players import PlayerIndex
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import LN10, expected_score, log, select

__all__ = ["BTConfig", "BTResult", "Pairs", "fit", "predict", "MODELS", "condense",
           "add_prior", "strong_components", "largest_component"]

MODELS = ("bt_half", "bayeselo")
FIT = "fit"
#: Elo-scale factor: f(x) = 1 / (1 + exp(-C x))
C = LN10 / 400.0


@dataclass(frozen=True)
class BTConfig:
    """Parameters of a batch Bradley-Terry fit (validated on construction).

    ``advantage`` and ``drawelo``: a number (fixed) or ``"fit"``. ``drawelo`` is used by
    ``bayeselo`` only (must be > 0 when fixed). ``anchor``: a player name whose rating is
    set to ``mean_rating``; ``None`` sets the mean of all ratings to it.
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

    def __post_init__(self) -> None:
        owner = "BTConfig"
        check_choice(owner, "model", self.model, MODELS)
        if self.advantage != FIT:
            object.__setattr__(self, "advantage", check_number(owner, "advantage",
                                                               self.advantage))
        if self.drawelo != FIT:
            object.__setattr__(self, "drawelo", check_number(owner, "drawelo", self.drawelo,
                                                             lo=0.0, lo_open=True))
        object.__setattr__(self, "mean_rating", check_number(owner, "mean_rating",
                                                             self.mean_rating))
        object.__setattr__(self, "tolerance_elo", check_number(
            owner, "tolerance_elo", self.tolerance_elo, lo=0.0, lo_open=True))
        object.__setattr__(self, "prior", check_number(owner, "prior", self.prior, lo=0.0))
        object.__setattr__(self, "max_newton", int(check_number(
            owner, "max_newton", self.max_newton, lo=1, integer=True)))


@dataclass(frozen=True)
class BTResult:
    """A fit: ``rating[i]`` is player ``players[i]``'s rating (Elo points)."""

    players: PlayerIndex
    rating: np.ndarray
    advantage: float
    #: BayesElo's drawelo (NaN for ``bt_half``)
    drawelo: float
    log_likelihood: float
    n_newton: int
    converged: bool
    n_pairs: int
    config: BTConfig

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
    a = theta[ia] if ia >= 0 else adv
    return theta[pw[p]] - theta[pb[p]] + ph[p] * a


@kernel
def _log_likelihood(pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, bayes):
    """The log-likelihood at ``theta`` (ratings, then the fitted advantage at ``ia`` and
    drawelo at ``idr``; -1 = fixed at ``adv`` / ``drawelo``); ``-inf`` where a draw has
    probability 0."""
    de = theta[idr] if idr >= 0 else drawelo
    total = 0.0
    for p in range(pw.shape[0]):
        x = _pair_x(theta, pw, pb, ph, p, ia, adv)
        if bayes:
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
        else:
            # ln f(-x) = ln f(x) - C x
            sl = nl[p] + 0.5 * nd[p]
            total += (nw[p] + nd[p] + nl[p]) * _log_sigmoid(C * x) - sl * C * x
    return total


@kernel
def _gradient_curvature(pw, pb, ph, nw, nd, nl, theta, ia, adv, idr, drawelo, bayes,
                        grad, diag, mxx, mxd, mdd):
    """The gradient of the log-likelihood (``grad``, zeroed here), the diagonal of the
    negative Hessian (``diag``) and each pair's negative Hessian in ``(x, drawelo)``
    (``mxx``, ``mxd``, ``mdd``). Returns False where a draw has probability 0 (drawelo
    <= 0), else True."""
    for k in range(grad.shape[0]):
        grad[k] = 0.0
        diag[k] = 0.0
    de = theta[idr] if idr >= 0 else drawelo
    c2 = C * C
    possible = True
    for p in range(pw.shape[0]):
        x = _pair_x(theta, pw, pb, ph, p, ia, adv)
        gd = 0.0
        if bayes:
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
        i = pw[p]
        j = pb[p]
        grad[i] += gx
        grad[j] -= gx
        diag[i] += mxx[p]
        diag[j] += mxx[p]
        if ia >= 0:
            grad[ia] += ph[p] * gx
            diag[ia] += ph[p] * mxx[p]
        if idr >= 0:
            grad[idr] += gd
            diag[idr] += mdd[p]
    return possible


@kernel
def _hessian_vector(pw, pb, ph, mxx, mxd, mdd, ia, idr, vec, out):
    """``out = H vec`` for the negative Hessian ``H`` (from :func:`_gradient_curvature`)."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    for p in range(pw.shape[0]):
        i = pw[p]
        j = pb[p]
        dx = vec[i] - vec[j]
        if ia >= 0:
            dx += ph[p] * vec[ia]
        dd = vec[idr] if idr >= 0 else 0.0
        ox = mxx[p] * dx + mxd[p] * dd
        out[i] += ox
        out[j] -= ox
        if ia >= 0:
            out[ia] += ph[p] * ox
        if idr >= 0:
            out[idr] += mxd[p] * dx + mdd[p] * dd


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
    white_scored = pairs.wins + pairs.draws > 0
    black_scored = pairs.losses + pairs.draws > 0
    src = np.concatenate([pairs.white[white_scored], pairs.black[black_scored]])
    dst = np.concatenate([pairs.black[white_scored], pairs.white[black_scored]])
    return strong_components(games.n_players, src, dst)


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


def _initial_drawelo(pairs: Pairs) -> float:
    """drawelo where ``P(draw)`` at equal ratings equals the draw fraction:
    ``2 f(d) - 1 = p``, ``d = 400 log10((1 + p) / (1 - p))``."""
    total = float(pairs.wins.sum() + pairs.draws.sum() + pairs.losses.sum())
    p = min(max(float(pairs.draws.sum()) / total, 0.01), 0.99)
    return 400.0 * math.log10((1.0 + p) / (1.0 - p))


def fit(games: Games, config: BTConfig = BTConfig()) -> BTResult:
    """Maximum-likelihood ratings of ``games`` under ``config`` (see the module docstring).

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
    bayes = config.model == "bayeselo"
    score = np.asarray(games.score)
    if bayes:
        bad = (score != 0.0) & (score != 0.5) & (score != 1.0)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"'score' must be 0, 0.5 or 1 for the bayeselo model; got "
                             f"{float(score[i])!r} at row {i}")
    pairs = condense(games)
    if config.prior > 0.0:  # virtual draws link every pair that met, both ways
        pairs = add_prior(pairs, games.n_players, config.prior)
    _check_connected(games, pairs, config.prior > 0.0)
    n = games.n_players
    fit_adv = config.advantage == FIT
    fit_draw = bayes and config.drawelo == FIT
    if fit_draw and pairs.draws.sum() == 0:
        raise InputError("drawelo cannot be fitted without draws (the maximum is at 0); "
                         "give a fixed drawelo")
    if fit_adv and pairs.advantaged.sum() == 0:
        raise ConfigError("the advantage cannot be fitted: every game is neutral")
    ia = n if fit_adv else -1
    idr = n + int(fit_adv) if fit_draw else -1
    adv0 = 0.0 if fit_adv else float(config.advantage)
    de0 = (_initial_drawelo(pairs) if config.drawelo == FIT else float(config.drawelo)) \
        if bayes else 0.0
    size = n + int(fit_adv) + int(fit_draw)
    theta = np.zeros(size)
    if fit_draw:
        theta[idr] = de0
    args = (pairs.white, pairs.black, pairs.advantaged, pairs.wins, pairs.draws, pairs.losses)
    m = pairs.white.shape[0]
    grad, diag = np.empty(size), np.empty(size)
    mxx, mxd, mdd = np.empty(m), np.empty(m), np.empty(m)
    nxt = (np.empty(size), np.empty(size), np.empty(m), np.empty(m), np.empty(m))
    hv = np.empty(size)
    _gradient_curvature(*args, theta, ia, adv0, idr, de0, bayes, grad, diag, mxx, mxd, mdd)
    ll = math.nan  # computed only when a step has to be shortened, and at the end
    converged = False
    it = 0
    while it < config.max_newton:
        it += 1
        step = _newton_step(pairs, mxx, mxd, mdd, ia, idr, n, grad, diag, hv)
        if float(np.max(np.abs(step))) < config.tolerance_elo:
            theta = theta + step  # converged: the last (tiny) step needs no gradient
            converged = True
            break
        slope = float(grad @ step)
        trial = theta + step
        # the full Newton step is uphill if the slope along it is still >= 0 at its end
        # (concavity: the slope decreases along the line, so ln L rose all the way)
        ok = _gradient_curvature(*args, trial, ia, adv0, idr, de0, bayes, *nxt)
        if not (ok and float(nxt[0] @ step) >= 0.0):
            # overshoot: Armijo backtracking on ln L itself, with slack for rounding
            if math.isnan(ll):
                ll = _log_likelihood(*args, theta, ia, adv0, idr, de0, bayes)
            slack = 1e-12 * (1.0 + abs(ll))
            t = 1.0
            while True:
                ll_t = _log_likelihood(*args, trial, ia, adv0, idr, de0, bayes)
                if ll_t >= ll + 1e-4 * t * slope - slack or t < 1e-12:
                    break
                t *= 0.5
                trial = theta + t * step
            if not ll_t >= ll + 1e-4 * t * slope - slack:
                break  # no uphill step: not converged
            _gradient_curvature(*args, trial, ia, adv0, idr, de0, bayes, *nxt)
        change = float(np.max(np.abs(trial - theta)))
        theta = trial
        ll = math.nan
        old = (grad, diag, mxx, mxd, mdd)
        grad, diag, mxx, mxd, mdd = nxt
        nxt = old
        if change < config.tolerance_elo:
            converged = True
            break
    ll = _log_likelihood(*args, theta, ia, adv0, idr, de0, bayes)
    rating = theta[:n].copy()
    shift = config.mean_rating - (rating.mean() if config.anchor is None
                                  else rating[games.players.id_of(config.anchor)])
    rating += shift
    return BTResult(games.players, rating, float(theta[ia]) if fit_adv else adv0,
                    (float(theta[idr]) if fit_draw else de0) if bayes else math.nan,
                    float(ll), it, converged, m, config)


def predict(result: BTResult, white: Any, black: Any,
            neutral: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(P(win), P(draw), P(loss))`` of ``white`` against ``black`` (arrays of player
    names of the fit; ``neutral``: optional booleans, no advantage where true) under the
    fitted model, ``x = R_white - R_black + advantage``:

    * ``bayeselo``: ``P(win) = f(x - drawelo)``, ``P(loss) = f(-x - drawelo)``, the draw
      the rest;
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
    win = expected_score(x, 0.0)
    return win, np.zeros_like(win), 1.0 - win


def _newton_step(pairs, mxx, mxd, mdd, ia, idr, n, grad, diag, hv) -> np.ndarray:
    """Solve ``H s = g`` by preconditioned conjugate gradients, the ratings part of every
    search direction projected onto mean zero (``H`` is singular along all-equal)."""
    args = (pairs.white, pairs.black, pairs.advantaged, mxx, mxd, mdd, ia, idr)
    inv = np.where(diag > 0.0, 1.0 / np.where(diag > 0.0, diag, 1.0), 0.0)
    r = grad.copy()
    r[:n] -= r[:n].mean()
    gnorm = float(np.sqrt(r @ r))
    s = np.zeros_like(r)
    if gnorm == 0.0:
        return s
    tol = gnorm * min(0.1, math.sqrt(gnorm))
    z = inv * r
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
        z[:n] -= z[:n].mean()
        rz_new = float(r @ z)
        p = z + (rz_new / rz) * p
        rz = rz_new
    return s
