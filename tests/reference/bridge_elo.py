"""A slow, obviously-correct pure-Python bridge Elo, written from SPEC §3.4 and the
BridgeEloConfig docstring (not from the kernel), used as the oracle in
tests/test_bridge_elo.py.

Input: a list of boards in chronological order, each ``(period, tables)`` where a table
is ``(north, south, east, west, ns_score, artificial)`` with player names. Everything is
a dict keyed by name and a literal loop; the expected score is written
``1 / (1 + 10 ** (-d / s))``.

Conventions (those fastrate documents):

* Only real tables (artificial 0) of a board are compared; a board with fewer than two
  real tables is skipped (no prediction, no update, no count).
* Cross-IMPs of table t: mean over the other real tables u of ``IMP(s_t - s_u)``; NS's
  outcome S is 1 above ``draw_margin``, 0 below ``-draw_margin``, else 0.5.
* A pair's rating: the mean of its players' ratings (a unit rated alone: its rating)
  plus ``B (1 - exp(-n/n0))``, n = boards the partnership played before this board.
* plain: ``d = a_t - b_t``; field: ``d = a_t + gamma_t - b_t`` with
  ``gamma_t = ((sum(b) - b_t) - (sum(a) - a_t)) / (divisor * N)``; both clipped to
  [-cap, cap]. NS's change ``M (S - E)``, EW's the negation, M the margin multiplier
  of the table's cross-IMPs.
* artificial: for every two real tables i < j, team {NS_i, EW_j} (rating
  ``(a_i + b_j) / 2``) plays team {NS_j, EW_i}; result ``IMP(s_i - s_j)`` with the
  draw margin; each pair's change is the mean over its matches of ``M (S - E)`` from
  its team's side; NS_i's prediction is the mean of its team's E.
* Each player of a pair gets ``K_player * X_pair * change``, K from ``k_games`` by his
  boards played before this board (else ``k``), X from ``k_experience`` by the pair's
  boards together before this board (else 1). A table row ``(bound, v)`` applies to
  counts below ``bound`` (the first such row).
* ``update="period"``: changes are collected and added when the period changes (and at
  the end); ``"board"``: after each board.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

IMP_TABLE = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100,
             1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]


def imp(d: float) -> int:
    n = sum(1 for t in IMP_TABLE if abs(d) >= t)
    return n if d >= 0 else -n


@dataclass
class Result:
    rating: dict[Any, float]
    played: dict[Any, int]
    #: per board, per table: NS's prediction (nan when not rated)
    pred: list[list[float]] = field(default_factory=list)
    outcome: list[list[float]] = field(default_factory=list)


def _lookup(table, count, default):
    if not table:
        return default
    for bound, value in table:
        if count < bound:
            return value
    raise AssertionError("table must end with inf")


def rate(boards, *, k=16.0, scale=400.0, initial_rating=1500.0, cap=400.0, draw_margin=1.0,
         model="field", gamma_divisor=2.5, k_games=(), k_experience=(), margin="none",
         margin_scale=10.0, experience_bonus=0.0, experience_n0=100.0, update="period",
         initial=None, by_period=True) -> Result:
    rating: dict[Any, float] = dict(initial or {})
    played: dict[Any, int] = {}
    together: dict[frozenset, int] = {}
    pending: dict[Any, float] = {}
    res = Result(rating, played)

    def r_of(p):
        return rating.get(p, initial_rating)

    def pair_rating(p1, p2):
        base = (r_of(p1) + r_of(p2)) / 2
        n = together.get(frozenset((p1, p2)), 0)
        return base + experience_bonus * (1 - math.exp(-n / experience_n0))

    def lead(d):
        if cap is not None:
            d = max(-cap, min(cap, d))
        return d

    def expect(d):
        return 1 / (1 + 10 ** (-d / scale))

    def mult(x):
        if margin == "none":
            return 1.0
        if margin == "linear":
            return 1 + abs(x) / margin_scale
        return 1 + math.log(1 + abs(x) / margin_scale)

    def result(x):
        return 1.0 if x > draw_margin else (0.0 if x < -draw_margin else 0.5)

    def flush():
        for p, v in pending.items():
            rating[p] = r_of(p) + v
        pending.clear()

    periodic = update == "period" and by_period
    current = object()
    for period, tables in boards:
        if periodic and period != current:
            flush()
            current = period
        preds = [math.nan] * len(tables)
        outs = [math.nan] * len(tables)
        res.pred.append(preds)
        res.outcome.append(outs)
        real = [t for t, row in enumerate(tables) if row[5] == 0]
        if len(real) < 2:
            continue
        n = len(real)
        scores = [tables[t][4] for t in real]
        xs = [sum(imp(scores[i] - scores[u]) for u in range(n) if u != i) / (n - 1)
              for i in range(n)]
        a = [pair_rating(tables[t][0], tables[t][1]) for t in real]
        b = [pair_rating(tables[t][2], tables[t][3]) for t in real]
        change_ns = [0.0] * n
        change_ew = [0.0] * n
        if model in ("plain", "field"):
            for i in range(n):
                gamma = 0.0
                if model == "field":
                    gamma = ((sum(b) - b[i]) - (sum(a) - a[i])) / (gamma_divisor * n)
                e = expect(lead(a[i] + gamma - b[i]))
                s = result(xs[i])
                preds[real[i]] = e
                change_ns[i] = mult(xs[i]) * (s - e)
                change_ew[i] = -change_ns[i]
        else:
            deltas_ns: list[list[float]] = [[] for _ in range(n)]
            deltas_ew: list[list[float]] = [[] for _ in range(n)]
            es: list[list[float]] = [[] for _ in range(n)]
            for i, j in itertools.combinations(range(n), 2):
                team_a = (a[i] + b[j]) / 2  # NS_i with EW_j
                team_b = (a[j] + b[i]) / 2  # NS_j with EW_i
                e = expect(lead(team_a - team_b))
                x = imp(scores[i] - scores[j])
                s = result(x)
                delta = mult(x) * (s - e)
                deltas_ns[i].append(delta)
                deltas_ew[j].append(delta)
                deltas_ns[j].append(-delta)
                deltas_ew[i].append(-delta)
                es[i].append(e)
                es[j].append(1 - e)
            for i in range(n):
                change_ns[i] = sum(deltas_ns[i]) / len(deltas_ns[i])
                change_ew[i] = sum(deltas_ew[i]) / len(deltas_ew[i])
                preds[real[i]] = sum(es[i]) / len(es[i])
        for i in range(n):
            outs[real[i]] = result(xs[i])
        changes: dict[Any, float] = {}
        for i, t in enumerate(real):
            north, south, east, west = tables[t][:4]
            for pair, ch in (((north, south), change_ns[i]), ((east, west), change_ew[i])):
                x_mult = _lookup(k_experience, together.get(frozenset(pair), 0), 1.0)
                for p in set(pair):
                    kp = _lookup(k_games, played.get(p, 0), k)
                    changes[p] = changes.get(p, 0.0) + kp * x_mult * ch
        for p, v in changes.items():
            if periodic:
                pending[p] = pending.get(p, 0.0) + v
            else:
                rating[p] = r_of(p) + v
        for t in real:
            north, south, east, west = tables[t][:4]
            for p in {north, south} | {east, west}:
                played[p] = played.get(p, 0) + 1
            for pair in ((north, south), (east, west)):
                key = frozenset(pair)
                together[key] = together.get(key, 0) + 1
    flush()
    return res
