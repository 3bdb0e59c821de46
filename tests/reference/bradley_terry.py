"""Slow reference for batch Bradley-Terry (SPEC §1.4): Zermelo's / Hunter's MM iteration.

Strengths ``g_i = 10^(R_i/400)``; with draws as half wins (the ``bt_half`` model, no
advantage) the minorization-maximization update (Hunter 2004, eq. 3) is
``g_i <- W_i / sum_j n_ij / (g_i + g_j)``, where ``W_i`` is i's score and ``n_ij`` the
games between i and j. Plain Python, one game at a time.
"""

from __future__ import annotations

import math


def bt_half_mm(white, black, score, n_players, tol=1e-10, max_iter=200_000):
    """Ratings (Elo points, mean 0) of the bt_half model without advantage."""
    wins = [0.0] * n_players
    opponents: list[list[int]] = [[] for _ in range(n_players)]
    for w, b, s in zip(white, black, score):
        wins[w] += s
        wins[b] += 1.0 - s
        opponents[w].append(b)
        opponents[b].append(w)
    g = [1.0] * n_players
    for _ in range(max_iter):
        new = []
        for i in range(n_players):
            den = sum(1.0 / (g[i] + g[j]) for j in opponents[i])
            new.append(wins[i] / den)
        logs = [math.log10(x) for x in new]
        mean = sum(logs) / n_players
        new = [10.0 ** (x - mean) for x in logs]
        change = max(abs(400.0 * (math.log10(a) - math.log10(b))) for a, b in zip(new, g))
        g = new
        if change < tol:
            break
    return [400.0 * math.log10(x) for x in g]


def game_log_likelihood(model, rating, adv, draw, white, black, score, neutral=None):
    """The log-likelihood of the games, one at a time, from the models' formulas (SPEC
    §1.4): ``x = R_w - R_b + adv`` (0 where neutral); bt_half ``s ln f(x) + (1-s) ln
    f(-x)``; bayeselo ``f(x - drawelo)`` / ``f(-x - drawelo)`` / the rest (``draw`` =
    drawelo); davidson with ``π = 10^(R/400)``: ``π_w / D``, ``ν sqrt(π_w π_b) / D``,
    ``π_b / D`` (``draw`` = ``400 log10 ν``)."""
    def f(x):
        return 1.0 / (1.0 + 10.0 ** (-x / 400.0))

    total = 0.0
    for k, (w, b, s) in enumerate(zip(white, black, score)):
        h = 0.0 if neutral is not None and neutral[k] else adv
        x = rating[w] - rating[b] + h
        if model == "bt_half":
            total += s * math.log(f(x)) + (1.0 - s) * math.log(f(-x))
            continue
        if model == "bayeselo":
            pw, pl = f(x - draw), f(-x - draw)
            pd = 1.0 - pw - pl
        else:
            nu = 10.0 ** (draw / 400.0)
            a = 10.0 ** ((rating[w] + h) / 400.0)  # π_w: the advantage added to white
            c = 10.0 ** (rating[b] / 400.0)
            d = a + c + nu * math.sqrt(a * c)
            pw, pd, pl = a / d, nu * math.sqrt(a * c) / d, c / d
        total += math.log(pw if s == 1.0 else pl if s == 0.0 else pd)
    return total


def davidson_fixed_point(white, black, score, n_players, tol=1e-12, max_iter=500_000):
    """Davidson's (1970, §3) iteration for his tie model without advantage: with ``W_i``
    wins, ``T_i`` ties, ``n_ij`` games and ``D_ij = π_i + π_j + ν sqrt(π_i π_j)``,
    ``π_i <- (W_i + T_i / 2) / sum_j n_ij (1 + ν/2 sqrt(π_j / π_i)) / D_ij`` and
    ``ν <- T / sum_{i<j} n_ij sqrt(π_i π_j) / D_ij`` (``T`` all ties). Returns
    ``(ratings with mean 0, ν)``."""
    wins = [0.0] * n_players
    ties = [0.0] * n_players
    games: dict[tuple[int, int], int] = {}
    t_all = 0.0
    for w, b, s in zip(white, black, score):
        key = (min(w, b), max(w, b))
        games[key] = games.get(key, 0) + 1
        if s == 0.5:
            ties[w] += 1.0
            ties[b] += 1.0
            t_all += 1.0
        elif s == 1.0:
            wins[w] += 1.0
        else:
            wins[b] += 1.0
    pi = [1.0] * n_players
    nu = 1.0
    for _ in range(max_iter):
        den = [0.0] * n_players
        for (i, j), c in games.items():
            d = pi[i] + pi[j] + nu * math.sqrt(pi[i] * pi[j])
            den[i] += c * (1.0 + 0.5 * nu * math.sqrt(pi[j] / pi[i])) / d
            den[j] += c * (1.0 + 0.5 * nu * math.sqrt(pi[i] / pi[j])) / d
        new = [(wins[i] + 0.5 * ties[i]) / den[i] for i in range(n_players)]
        logs = [math.log10(x) for x in new]
        mean = sum(logs) / n_players
        new = [10.0 ** (x - mean) for x in logs]
        s_nu = sum(c * math.sqrt(new[i] * new[j]) / (new[i] + new[j] + nu * math.sqrt(
            new[i] * new[j])) for (i, j), c in games.items())
        new_nu = t_all / s_nu
        change = max(max(abs(400.0 * (math.log10(a) - math.log10(b)))
                         for a, b in zip(new, pi)), abs(new_nu - nu))
        pi, nu = new, new_nu
        if change < tol:
            break
    return [400.0 * math.log10(x) for x in pi], nu
