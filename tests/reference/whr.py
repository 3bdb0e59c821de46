"""Slow reference for whole-history rating (Coulom 2008; SPEC §1.7), written from the
paper: the log posterior of all ratings of all players at all their time steps, maximised
by plain Newton's method on the **whole** vector at once (a dense Hessian, numpy's
solver), and Coulom's uncertainty as the diagonal of ``-H_p^{-1}``, ``H_p`` the Hessian of
one player's own ratings (the dense inverse).

Games: ``(first, second, score, time step, advantage_elo)``; natural units
``r = R ln(10) / 400``; ``P(first wins) = 1/(1 + exp(-(r_1 - r_2 + h)))``; a score ``s``
counts ``s log P + (1 - s) log(1 - P)``; a Wiener prior ``N(0, w2 dt)`` between a
player's consecutive time steps; ``n_virtual`` draws against a 0-rated player at the
first time step.
"""

from __future__ import annotations

import math

import numpy as np

ELO = 400.0 / math.log(10.0)


def _nodes(games):
    """Each player's sorted time steps, and the index of every (player, step) node."""
    steps: dict = {}
    for a, b, _, t, _ in games:
        steps.setdefault(a, set()).add(t)
        steps.setdefault(b, set()).add(t)
    index = {}
    for p in sorted(steps, key=str):
        for t in sorted(steps[p]):
            index[(p, t)] = len(index)
    return {p: sorted(v) for p, v in steps.items()}, index


def _gradient_hessian(games, r, steps, index, w2, n_virtual):
    n = len(index)
    g = np.zeros(n)
    h = np.zeros((n, n))
    for a, b, s, t, adv in games:
        i, j = index[(a, t)], index[(b, t)]
        p = 1.0 / (1.0 + math.exp(-(r[i] - r[j] + adv / ELO)))
        g[i] += s - p
        g[j] -= s - p
        c = p * (1.0 - p)
        h[i, i] -= c
        h[j, j] -= c
        h[i, j] += c
        h[j, i] += c
    for p, ts in steps.items():
        first = index[(p, ts[0])]
        q = 1.0 / (1.0 + math.exp(-r[first]))
        g[first] += n_virtual * (0.5 - q)
        h[first, first] -= n_virtual * q * (1.0 - q)
        for t0, t1 in zip(ts, ts[1:]):
            i, j = index[(p, t0)], index[(p, t1)]
            c = 1.0 / (w2 / ELO ** 2 * (t1 - t0))
            d = (r[i] - r[j]) * c
            g[i] -= d
            g[j] += d
            h[i, i] -= c
            h[j, j] -= c
            h[i, j] += c
            h[j, i] += c
    return g, h


def log_posterior(games, history, w2, n_virtual=2.0):
    """The log posterior (up to a constant) of a history ``{player: [(step, elo), ...]}``."""
    total = 0.0
    at = {(p, t): x / ELO for p, pts in history.items() for t, x in pts}
    for a, b, s, t, adv in games:
        z = at[(a, t)] - at[(b, t)] + adv / ELO
        total += -s * math.log1p(math.exp(-z)) - (1.0 - s) * math.log1p(math.exp(z))
    for pts in history.values():
        q = pts[0][1] / ELO
        total += n_virtual * (-0.5 * math.log1p(math.exp(-q)) - 0.5 * math.log1p(math.exp(q)))
        for (t0, x0), (t1, x1) in zip(pts, pts[1:]):
            total -= ((x1 - x0) / ELO) ** 2 / (2.0 * w2 / ELO ** 2 * (t1 - t0))
    return total


def whr(games, w2, n_virtual=2.0, tol=1e-12, max_iter=200):
    """``{player: [(step, elo, sd_elo), ...]}``: the maximum a posteriori by dense Newton."""
    steps, index = _nodes(games)
    r = np.zeros(len(index))
    for _ in range(max_iter):
        g, h = _gradient_hessian(games, r, steps, index, w2, n_virtual)
        x = np.linalg.solve(h, g)
        r = r - x
        if np.max(np.abs(x)) < tol:
            break
    _, h = _gradient_hessian(games, r, steps, index, w2, n_virtual)
    out = {}
    for p, ts in steps.items():
        ids = [index[(p, t)] for t in ts]
        block = h[np.ix_(ids, ids)]
        var = np.diag(-np.linalg.inv(block))
        out[p] = [(t, float(r[i] * ELO), float(math.sqrt(v) * ELO))
                  for t, i, v in zip(ts, ids, var)]
    return out
