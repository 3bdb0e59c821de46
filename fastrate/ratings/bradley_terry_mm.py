"""Hunter's minorisation-maximisation (MM) for the batch Bradley-Terry models: a slow and
simple cross-check of the Newton solver of :mod:`fastrate.ratings.bradley_terry`.

Strengths are ``g_i = 10^(R_i/400)``, ``a = 10^(adv/400)`` (``a = 1`` in neutral games)
and ``t = 10^(drawelo/400)``. For a pair of games with ``i`` first and ``j`` second, with
``w``, ``d``, ``l`` wins, draws and losses of ``i``, BayesElo's model reads (Rao & Kupper
1967 with an advantage)::

    P(i wins) = a g_i / (a g_i + t g_j),   P(j wins) = g_j / (t a g_i + g_j),

the draw the rest, which is ``f(x - drawelo)`` and ``f(-x - drawelo)`` with
``x = R_i - R_j + adv`` on the Elo scale. ``bt_half`` is the case ``t = 1`` with a draw
counted as half a win and half a loss (``w + d/2`` wins, ``l + d/2`` losses, no draws).

One MM iteration (Hunter 2004, "MM algorithms for generalized Bradley-Terry models",
Ann. Statist. 32:384-406, §3.2 for the advantage and §3.3 for ties; written as Rémi
Coulom's BayesElo does it, ``CBradleyTerry::UpdateGammas``, ``UpdateThetaW``,
``UpdateThetaD``):

1. each player in turn, last id first, the others at their latest values (BayesElo's
   cyclic order; every step is an MM step, so the likelihood never decreases)::

       g_i <- A_i / B_i,   A_i = sum (w + d) as first + (l + d) as second
       B_i = sum as first  (w + d) a / (a g_i + t g_j) + (d + l) t a / (t a g_i + g_j)
           + sum as second (w + d) t / (a g_j + t g_i) + (d + l) / (t a g_j + g_i)

   (as second, ``j`` is the first player of the pair and ``w, d, l`` are his results);
2. a fitted advantage, over the pairs with an advantage::

       a <- sum (w + d) / sum [(w + d) g_i / (a g_i + t g_j) + (d + l) t g_i / (t a g_i + g_j)]

3. a fitted drawelo: with ``c = sum d / sum [(w + d) g_j / (a g_i + t g_j)
   + (d + l) a g_i / (t a g_i + g_j)]``, ``t <- c + sqrt(c^2 + 1)`` (the maximiser of
   ``D ln(t^2 - 1) - t S``, the minorised draw terms).

Data are condensed into pairs and BayesElo's prior of virtual draws added exactly as for
:func:`~fastrate.ratings.bradley_terry.fit` (:func:`~fastrate.ratings.bradley_terry.condense`,
:func:`~fastrate.ratings.bradley_terry.add_prior`), so both maximise the same function.
MM starts from all ratings 0, a fitted advantage at 0 and a fitted drawelo at 0 (``t = 1``,
as BayesElo), or from ``initial`` (a :class:`~fastrate.ratings.bradley_terry.BTResult`),
and stops when the largest change of a rating, the advantage or drawelo in one iteration
is below ``tolerance_elo`` (Elo points). MM converges linearly, often at a rate close to
1 (BayesElo needs thousands of iterations), so the distance to the maximum is larger than
the last change: run it to a tight tolerance (1e-9 or less) for a cross-check.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import check_number, check_type
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError
from fastrate.ratings.bradley_terry import (
    BTConfig,
    BTResult,
    C,
    Pairs,
    add_prior,
    condense,
    strong_components,
)

__all__ = ["fit_mm", "MM_MODELS"]

#: the models the MM solver handles
MM_MODELS = ("bt_half", "bayeselo")
#: BTConfig options the MM solver honours (``tolerance_elo`` and ``max_newton`` belong
#: to the Newton solver and ``draw_nu`` to a model MM does not fit: they are ignored);
#: every other option must keep its default
_HONOURED = ("model", "advantage", "drawelo", "anchor", "mean_rating", "prior",
             "tolerance_elo", "max_newton", "draw_nu")
ELO = 400.0 / math.log(10.0)


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _mm_iterate(offsets, pair_of, first, pw, pb, ph, nw, nd, nl, gamma, theta, fit_w,
                fit_d, tolerance_elo, max_iterations, change):
    """MM iterations on ``gamma`` (strengths) and ``theta = [a, t]`` in place until the
    largest change (Elo) is below ``tolerance_elo`` or ``max_iterations`` ran. Player
    ``i``'s pairs are ``pair_of[offsets[i]:offsets[i+1]]`` (``first`` 1 where he is the
    first player). Returns the iterations run; ``change[0]`` is the last change."""
    n = gamma.shape[0]
    m = pw.shape[0]
    it = 0
    change[0] = math.inf
    while it < max_iterations:
        it += 1
        a_w = theta[0]
        t = theta[1]
        biggest = 0.0
        for i in range(n - 1, -1, -1):
            gi = gamma[i]
            num = 0.0
            den = 0.0
            for k in range(offsets[i], offsets[i + 1]):
                p = pair_of[k]
                a = a_w if ph[p] > 0.0 else 1.0
                w = nw[p]
                d = nd[p]
                ls = nl[p]
                if first[k] == 1:
                    gj = gamma[pb[p]]
                    num += w + d
                    den += ((w + d) * a / (a * gi + t * gj)
                            + (d + ls) * t * a / (t * a * gi + gj))
                else:
                    gj = gamma[pw[p]]
                    num += ls + d
                    den += (w + d) * t / (a * gj + t * gi) + (d + ls) / (t * a * gj + gi)
            new = num / den
            gamma[i] = new
            biggest = max(biggest, abs(math.log(new / gi)))
        if fit_w:
            num = 0.0
            den = 0.0
            for p in range(m):
                if ph[p] > 0.0:
                    gi = gamma[pw[p]]
                    gj = gamma[pb[p]]
                    num += nw[p] + nd[p]
                    den += ((nw[p] + nd[p]) * gi / (a_w * gi + t * gj)
                            + (nd[p] + nl[p]) * t * gi / (t * a_w * gi + gj))
            new = num / den
            biggest = max(biggest, abs(math.log(new / a_w)))
            a_w = new
            theta[0] = new
        if fit_d:
            num = 0.0
            den = 0.0
            for p in range(m):
                a = a_w if ph[p] > 0.0 else 1.0
                gi = gamma[pw[p]]
                gj = gamma[pb[p]]
                num += nd[p]
                den += ((nw[p] + nd[p]) * gj / (a * gi + t * gj)
                        + (nd[p] + nl[p]) * a * gi / (t * a * gi + gj))
            c = num / den
            new = c + math.sqrt(c * c + 1.0)
            biggest = max(biggest, abs(math.log(new / t)))
            theta[1] = new
        change[0] = biggest * 400.0 / math.log(10.0)
        if change[0] < tolerance_elo:
            break
    return it


@kernel
def _mm_log_likelihood(pw, pb, ph, nw, nd, nl, rating, adv, drawelo, c):
    """``sum w ln P(win) + d ln P(draw) + l ln P(loss)`` over the pairs (BayesElo's model;
    ``bt_half`` passes its half-win counts and ``drawelo = 0``), with
    ``P(win) = f(x - drawelo)``, ``P(loss) = f(-x - drawelo)``, ``f(z) = 1/(1+e^(-c z))``."""
    total = 0.0
    for p in range(pw.shape[0]):
        x = rating[pw[p]] - rating[pb[p]] + ph[p] * adv
        u = c * (x - drawelo)
        v = c * (-x - drawelo)
        lw = min(u, 0.0) - math.log1p(math.exp(-abs(u)))
        ll = min(v, 0.0) - math.log1p(math.exp(-abs(v)))
        total += nw[p] * lw + nl[p] * ll
        if nd[p] > 0.0:
            pd = 1.0 - math.exp(lw) - math.exp(ll)
            if pd <= 0.0:
                return -math.inf
            total += nd[p] * math.log(pd)
    return total


# ----------------------------------------------------------------------------------
# NumPy side


def _check_config(config: BTConfig) -> None:
    """ConfigError naming the first option the MM solver does not implement."""
    if config.model not in MM_MODELS:
        raise ConfigError(f"fit_mm() supports model {' or '.join(map(repr, MM_MODELS))}; got "
                          f"model={config.model!r} (use fit() for it)")
    for f in dataclasses.fields(config):
        if f.name in _HONOURED:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = dataclasses.MISSING
        value = getattr(config, f.name)
        if default is dataclasses.MISSING or not _same(value, default):
            raise ConfigError(f"fit_mm() does not support the BTConfig option "
                              f"{f.name}={value!r}; leave it at its default "
                              f"({default!r}) or use fit()")


def _same(a, b) -> bool:
    try:
        return bool(a == b) or (a is b)
    except (TypeError, ValueError):
        return a is b


def _check_connected(games: Games, pairs: Pairs) -> None:
    scored_w = pairs.wins + pairs.draws > 0
    scored_b = pairs.losses + pairs.draws > 0
    comp = strong_components(
        games.n_players, np.concatenate([pairs.white[scored_w], pairs.black[scored_b]]),
        np.concatenate([pairs.black[scored_w], pairs.white[scored_b]]))
    sizes = np.bincount(comp, minlength=1)
    if sizes.shape[0] > 1:
        outside = np.flatnonzero(comp != int(np.argmax(sizes)))
        names = ", ".join(repr(games.players[int(i)]) for i in outside[:10])
        raise InputError(f"the maximum-likelihood ratings do not exist: {outside.shape[0]} of "
                         f"{games.n_players} players are outside the largest strongly "
                         f"connected component of the 'scored against' graph: {names}; see "
                         "bradley_terry.largest_component() or add a prior")


def fit_mm(games: Games, config: BTConfig | None = None, tolerance_elo: float = 1e-9,
           max_iterations: int = 1_000_000, initial: BTResult | None = None) -> BTResult:
    """Maximum-likelihood (with ``config.prior``: maximum a posteriori) ratings of
    ``games`` by Hunter's MM iterations (see the module docstring): the same answer as
    :func:`~fastrate.ratings.bradley_terry.fit`, slowly.

    ``config`` (default ``BTConfig()``): the model (``bt_half`` or ``bayeselo``), ``advantage`` and ``drawelo``
    fixed or ``"fit"``, ``prior``, ``anchor`` and ``mean_rating`` as for ``fit``; other
    options raise ConfigError. ``initial``: a result to start from (e.g. ``fit``'s, to
    check that it is MM's fixed point). The result's ``n_newton`` is the number of MM
    iterations and ``converged`` says whether the last change was below
    ``tolerance_elo``.

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
    ...                                [1.0, 0.5, 0.0, 0.0])
    >>> r = fit_mm(g)
    >>> [round(float(x), 2) for x in r.rating], r.converged
    ([101.35, -128.55, 27.2], True)
    """
    check_type(games, Games, "fit_mm() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    config = BTConfig() if config is None else config
    check_type(config, BTConfig, "fit_mm() needs a BTConfig as config")
    _check_config(config)
    tolerance_elo = check_number("fit_mm", "tolerance_elo", tolerance_elo, lo=0.0)
    max_iterations = int(check_number("fit_mm", "max_iterations", max_iterations, lo=1,
                                      integer=True))
    if initial is not None:
        check_type(initial, BTResult, "fit_mm(initial=...) needs a BTResult")
        if initial.rating.shape[0] != games.n_players:
            raise InputError(f"'initial' has {initial.rating.shape[0]} ratings for "
                             f"{games.n_players} players")
    if games.n_games == 0:
        raise InputError("fit_mm() needs at least one game")
    bayes = config.model == "bayeselo"
    score = np.asarray(games.score)
    if bayes:
        bad = (score != 0.0) & (score != 0.5) & (score != 1.0)
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"'score' must be 0, 0.5 or 1 for the bayeselo model; got "
                             f"{float(score[i])!r} at row {i}")
    n = games.n_players
    pairs = condense(games)
    if config.prior > 0.0:
        pairs = add_prior(pairs, n, config.prior)
    _check_connected(games, pairs)
    fit_w = config.advantage == "fit"
    fit_d = bayes and config.drawelo == "fit"
    if fit_w and pairs.advantaged.sum() == 0:
        raise ConfigError("the advantage cannot be fitted: every game is neutral")
    if fit_d and pairs.draws.sum() == 0:
        raise InputError("drawelo cannot be fitted without draws (the maximum is at 0); "
                         "give a fixed drawelo")
    if bayes:
        nw, nd, nl = pairs.wins, pairs.draws, pairs.losses
    else:  # a draw is half a win and half a loss
        nw, nd, nl = pairs.wins + 0.5 * pairs.draws, np.zeros_like(pairs.draws), \
            pairs.losses + 0.5 * pairs.draws
    nw, nd, nl = (np.ascontiguousarray(x, dtype=np.float64) for x in (nw, nd, nl))
    pw = np.ascontiguousarray(pairs.white, dtype=np.int64)
    pb = np.ascontiguousarray(pairs.black, dtype=np.int64)
    ph = np.ascontiguousarray(pairs.advantaged, dtype=np.float64)
    m = pw.shape[0]
    # each player's pairs, first-player rows before second-player rows
    players = np.concatenate([pw, pb])
    order = np.argsort(players, kind="stable")
    pair_of = np.ascontiguousarray(np.concatenate([np.arange(m), np.arange(m)])[order])
    first = np.ascontiguousarray(np.concatenate([np.ones(m, np.int64),
                                                 np.zeros(m, np.int64)])[order])
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(players, minlength=n), out=offsets[1:])

    adv = 0.0 if fit_w else float(config.advantage)
    de = (0.0 if fit_d else float(config.drawelo)) if bayes else 0.0
    rating0 = np.zeros(n)
    if initial is not None:
        rating0 = np.asarray(initial.rating, dtype=np.float64) - float(np.mean(initial.rating))
        if fit_w:
            adv = float(initial.advantage)
        if fit_d:
            de = float(initial.drawelo)
    gamma = np.power(10.0, rating0 / 400.0)
    theta = np.array([10.0 ** (adv / 400.0), 10.0 ** (de / 400.0)])
    change = np.empty(1)
    it = _mm_iterate(offsets, pair_of, first, pw, pb, ph, nw, nd, nl, gamma, theta, fit_w,
                     fit_d, tolerance_elo, max_iterations, change)
    rating = 400.0 * np.log10(gamma)
    adv = 400.0 * math.log10(theta[0]) if fit_w else adv
    de = 400.0 * math.log10(theta[1]) if fit_d else de
    ll = _mm_log_likelihood(pw, pb, ph, nw, nd, nl, rating, adv, de, C)
    anchor = config.anchor
    if anchor is None:
        level = rating.mean()
    elif isinstance(anchor, (tuple, list)):  # the mean of a set of players
        level = rating[[games.players.id_of(a) for a in anchor]].mean()
    else:
        level = rating[games.players.id_of(anchor)]
    rating += config.mean_rating - level
    extra = {"pairs": pairs} if "pairs" in {f.name for f in dataclasses.fields(BTResult)} \
        else {}
    return BTResult(players=games.players, rating=rating, advantage=adv,
                    drawelo=de if bayes else math.nan, log_likelihood=float(ll),
                    n_newton=int(it), converged=bool(change[0] < tolerance_elo), n_pairs=m,
                    config=config, **extra)
