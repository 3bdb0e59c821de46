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
