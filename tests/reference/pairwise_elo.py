"""A slow, literal pure-Python pairwise Elo, written from SPEC §2.3 and the module's
documented rules (not from the kernel): the oracle of tests/test_pairwise_elo.py.

Every pair of teams of a match is one Elo game, all from the ratings before the match:
``S = 1`` for the better-ranked team, ``1/2`` for a tie, ``0`` for the worse;
``E = 1/(1 + 10^((R_j - R_i)/400))``; each team's change is ``K/(T-1)`` times its summed
``S - E``; a team's rating is the weight-weighted mean of its players (weight-0 players
left out); each player gets ``weight * change`` and, if his weight is above 0, one more
game. Predictions: Luce ``10^(R_i/400) / sum 10^(R_j/400)`` per team, ``E`` per pair.

A match is a dict: ``teams`` (lists of ``(player, weight)``) and ``places`` (lower is
better).
"""

from __future__ import annotations

from typing import Any


def pairwise_elo(matches: list[dict[str, Any]], *, k=32.0, scale=400.0, init=1500.0,
                 status: dict[str, tuple[float, int]] | None = None):
    """Returns ``(rating, games, predictions, pair_predictions)``."""
    rating: dict[Any, float] = {}
    games: dict[Any, int] = {}
    for name, (r, n) in (status or {}).items():
        rating[name], games[name] = float(r), int(n)
    preds: list[float] = []
    pair_preds: list[float] = []
    for m in matches:
        teams, places = m["teams"], m["places"]
        n = len(teams)
        for team in teams:
            for p, _ in team:
                rating.setdefault(p, float(init))
                games.setdefault(p, 0)
        r = []
        for team in teams:
            r.append(sum(w * rating[p] for p, w in team if w > 0)
                     / sum(w for p, w in team if w > 0))
        strengths = [10 ** (x / scale) for x in r]
        preds.extend(s / sum(strengths) for s in strengths)
        total = [0.0] * n
        for i in range(n):
            for j in range(n):
                if i == j:
                    continue
                e = 1 / (1 + 10 ** ((r[j] - r[i]) / scale))
                if j > i:
                    pair_preds.append(e)
                if places[i] < places[j]:
                    s = 1.0
                elif places[i] == places[j]:
                    s = 0.5
                else:
                    s = 0.0
                total[i] += s - e
        for t, team in enumerate(teams):
            change = k / (n - 1) * total[t]
            for p, w in team:
                if w > 0:
                    rating[p] += w * change
                    games[p] += 1
    return rating, games, preds, pair_preds
