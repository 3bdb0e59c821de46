"""A slow, literal pure-Python ``elom`` (PlayerRatings 1.1), written from its manual page
(``?elom``, ``?kriichi``) and R code, not from fastrate's kernel: the oracle of
tests/test_elom.py.

The R function, period by period (``x`` split by ``Month``):

* every game's base values: the player with the highest score (or best placing) gets
  ``base[1]``, the next ``base[2]`` ...; ties get the largest available value (R's
  ``rank(-score, ties.method = "min")``). A game with fewer than ``nn`` players uses the
  base vector reduced "by successively removing the centre value (for odd lengths) or
  by averaging both centre values (for even lengths)".
* ``elom_c``: for every game, ``avetab`` = the mean rating of its players (ratings at the
  start of the period); ``ascore[p] += base``, ``escore[p] += (crats[p] - avetab)/40``;
  ``dscore = ascore - escore``;
* ``crats <- crats + kfac(crats, ngames) * dscore`` with ``kriichi``:
  ``1 - (1 - kv) * games / gv`` below ``gv`` games, ``kv`` from then on;
* ``ngames <- ngames + tabulate(players of the period)``.

fastrate's documented extensions, written out the same literal way: a team plays as one
player whose rating is the weight-weighted mean of its players (weight-0 players left
out); every player of a team gets ``weight * (base - (R_team - avetab)/40)`` added to his
``dscore``; ``k_start`` replaces the 1 of ``kriichi``; ``mode="score"`` uses the base
function ``(score - origin)/scale``. Predictions: Luce ``10^(R_i/400) / sum 10^(R_j/400)``
per team and ``1/(1 + 10^((R_j - R_i)/400))`` per pair, with the period-start ratings.

A game is a dict: ``period`` (or None: a period of its own), ``teams`` (lists of
``(player, weight)``), ``places`` (lower is better) or ``scores`` (higher is better).
"""

from __future__ import annotations

from typing import Any


def reduce_base(base: list[float], n: int) -> list[float]:
    """R's ``tmpfun``: shrink ``base`` until it has ``n`` values."""
    sbase = list(base)
    while len(sbase) > n:
        nb = len(sbase)
        if nb % 2 == 0:
            sbase = sbase[:nb // 2 - 1] + [(sbase[nb // 2 - 1] + sbase[nb // 2]) / 2] + \
                sbase[nb // 2 + 1:]
        else:
            sbase = sbase[:(nb - 1) // 2] + sbase[(nb + 1) // 2:]
    return sbase


def min_ranks(values: list[float], higher_is_better: bool) -> list[int]:
    """R's ``rank(-x, ties.method = "min")`` (or ``rank(x, ...)`` for placings)."""
    key = [-v if higher_is_better else v for v in values]
    return [1 + sum(1 for other in key if other < k) for k in key]


def kriichi(games: int, k_start: float, kv: float, gv: float) -> float:
    if games >= gv:
        return kv
    return k_start - (k_start - kv) * games / gv


def elom(games: list[dict[str, Any]], *, base=(30.0, 10.0, -10.0, -30.0), init=1500.0,
         kv=0.2, gv=400.0, k_start=1.0, spread=40.0, scale=400.0, mode="placing",
         origin=25000.0, divisor=250.0, status: dict[str, tuple[float, int]] | None = None):
    """Returns ``(rating, ngames, predictions, pair_predictions)``: dicts by player name
    and lists in game/team (pair) order as given."""
    crats: dict[Any, float] = {}
    ngames: dict[Any, int] = {}
    for name, (r, n) in (status or {}).items():
        crats[name], ngames[name] = float(r), int(n)
    for g in games:
        for team in g["teams"]:
            for p, _ in team:
                crats.setdefault(p, float(init))
                ngames.setdefault(p, 0)
    # split by period, keeping game order
    periods: list[list[dict[str, Any]]] = []
    last = object()
    for g in games:
        if g.get("period") is None or g["period"] != last:
            periods.append([])
        periods[-1].append(g)
        last = g.get("period")
    preds: list[float] = []
    pair_preds: list[float] = []
    for block in periods:
        ascore = {p: 0.0 for p in crats}
        escore = {p: 0.0 for p in crats}
        played = {p: 0 for p in crats}
        for g in block:
            teams = g["teams"]
            n = len(teams)
            if mode == "score":
                bases = [(s - origin) / divisor for s in g["scores"]]
            else:
                if "places" in g:
                    rk = min_ranks(g["places"], higher_is_better=False)
                else:
                    rk = min_ranks(g["scores"], higher_is_better=True)
                b = reduce_base(list(base), n)
                bases = [b[r - 1] for r in rk]
            team_rating = []
            for team in teams:
                num = sum(w * crats[p] for p, w in team if w > 0)
                den = sum(w for p, w in team if w > 0)
                team_rating.append(num / den)
            avetab = sum(team_rating) / n
            strengths = [10 ** (r / scale) for r in team_rating]
            preds.extend(s / sum(strengths) for s in strengths)
            for i in range(n):
                for j in range(i + 1, n):
                    pair_preds.append(1 / (1 + 10 ** ((team_rating[j] - team_rating[i])
                                                       / scale)))
            for t, team in enumerate(teams):
                for p, w in team:
                    if w > 0:
                        ascore[p] += w * bases[t]
                        escore[p] += w * (team_rating[t] - avetab) / spread
                        played[p] += 1
        k = {p: kriichi(ngames[p], k_start, kv, gv) for p in crats}
        for p in crats:
            crats[p] = crats[p] + k[p] * (ascore[p] - escore[p])
            ngames[p] += played[p]
    return crats, ngames, preds, pair_preds
