"""Slow, obviously-correct pure-Python bridge scoring written from SPEC §3 only (not
from the kernels): Law 77 contract scores, the WBF IMP table, average cross-IMPs,
Butler IMPs and matchpoints, each a literal loop over plain lists."""

from __future__ import annotations

import math
import statistics

import numpy as np

IMP_TABLE = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100,
             1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]


def imp(d: float) -> int:
    """Number of thresholds with |d| >= t, signed like d."""
    n = sum(1 for t in IMP_TABLE if abs(d) >= t)
    return n if d >= 0 else -n


def law77(level: int, strain: str, doubled: int, tricks: int, vulnerable: bool) -> int:
    """Declarer's score; strain one of C D H S NT; doubled 0/1/2; tricks taken 0..13."""
    if level == 0:
        return 0
    need = level + 6
    factor = [1, 2, 4][doubled]
    if tricks >= need:
        odd = [20 if strain in "CD" else 30 if strain in "HS" else (40 if k == 0 else 30)
               for k in range(level)]
        trick_score = sum(odd) * factor
        score = trick_score
        if trick_score >= 100:
            score += 500 if vulnerable else 300
        else:
            score += 50
        if level == 6:
            score += 750 if vulnerable else 500
        if level == 7:
            score += 1500 if vulnerable else 1000
        if doubled:
            score += 50 * doubled  # the insult: 50 doubled, 100 redoubled
        over = tricks - need
        for _ in range(over):
            if doubled == 0:
                score += 20 if strain in "CD" else 30
            else:
                score += (200 if vulnerable else 100) * doubled
        return score
    down = need - tricks
    penalty = 0
    for k in range(1, down + 1):
        if doubled == 0:
            penalty += 100 if vulnerable else 50
        else:
            if vulnerable:
                each = 200 if k == 1 else 300
            else:
                each = 100 if k == 1 else (200 if k <= 3 else 300)
            penalty += each * doubled  # redoubled: twice doubled
    return -penalty


def cross_imps(scores: list[float]) -> list[float]:
    n = len(scores)
    if n < 2:
        return [math.nan] * n
    return [sum(imp(scores[t] - scores[u]) for u in range(n) if u != t) / (n - 1)
            for t in range(n)]


def cross_imps_naive(offsets, scores) -> np.ndarray:
    """The O(T^2) double loop of average cross-IMPs over CSR boards, vectorised per
    board: the sum over u != t of IMP(s_t - s_u) (an integer, so exact) divided by
    n - 1; NaN for a board with one result. The oracle that the kernels' histogram and
    sorted paths must match bit for bit (the predicates are the plain
    ``|s_t - s_u| >= T_k`` of the WBF table)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    s = np.asarray(scores, dtype=np.float64)
    table = np.asarray(IMP_TABLE, dtype=np.float64)
    out = np.empty(s.shape[0], dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        x = s[offsets[b]:offsets[b + 1]]
        n = x.shape[0]
        if n < 2:
            out[offsets[b]:offsets[b + 1]] = np.nan
            continue
        d = x[:, None] - x[None, :]
        k = np.searchsorted(table, np.abs(d), side="right").astype(np.int64)
        total = np.where(d >= 0, k, -k).sum(axis=1)  # the diagonal (d = 0) adds 0
        out[offsets[b]:offsets[b + 1]] = total / (n - 1)
    return out


def round_half_away(x: float) -> float:
    from decimal import ROUND_HALF_UP, Decimal

    return float((Decimal(repr(x)) / 10).quantize(Decimal(1), rounding=ROUND_HALF_UP) * 10)


def butler(scores: list[float], drop: int, median: bool = False):
    """(datum, IMPs) with ``drop`` results removed from each end."""
    if len(scores) < 2:
        return math.nan, [math.nan] * len(scores)
    s = sorted(scores)
    if median:
        m = statistics.median(s)
    else:
        kept = s[drop:len(s) - drop]
        m = sum(kept) / len(kept)
    datum = round_half_away(m)
    return datum, [float(imp(x - datum)) for x in scores]


def matchpoints(scores: list[float]) -> list[float]:
    """2 per score beaten, 1 per tie, own score excluded."""
    return [float(sum(2 if x > y else 1 if x == y else 0
                      for j, y in enumerate(scores) if j != i))
            for i, x in enumerate(scores)]
