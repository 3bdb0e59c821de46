"""Slow, obviously-correct pure-Python versions of fastrate.metrics and the burn-in mask.

Plain loops over Python floats with ``math``; sums with ``math.fsum``. Used as oracles
on random inputs; nothing here is fast.
"""

from __future__ import annotations

import math

EPS = 1e-15


def _select(p, y, w, mask):
    p = [float(v) for v in p]
    y = [float(v) for v in y]
    w = [1.0] * len(p) if w is None else [float(v) for v in w]
    if mask is not None:
        keep = [i for i in range(len(p)) if mask[i]]
        p = [p[i] for i in keep]
        y = [y[i] for i in keep]
        w = [w[i] for i in keep]
    return p, y, w


def _wmean(values, w):
    total = math.fsum(w)
    if not values or total == 0.0:
        return math.nan
    return math.fsum(wi * v for wi, v in zip(w, values)) / total


def _clip(x):
    return min(max(x, EPS), 1.0 - EPS)


def log_loss(p, y, w=None, mask=None):
    p, y, w = _select(p, y, w, mask)
    terms = []
    for pi, yi in zip(p, y):
        q = _clip(pi)
        terms.append(-(yi * math.log(q) + (1.0 - yi) * math.log(1.0 - q)))
    return _wmean(terms, w)


def binomial_deviance(p, y, w=None, mask=None):
    p, y, w = _select(p, y, w, mask)
    terms = []
    for pi, yi in zip(p, y):
        q = _clip(pi)
        terms.append(-(yi * math.log10(q) + (1.0 - yi) * math.log10(1.0 - q)))
    return _wmean(terms, w)


def brier(p, y, w=None, mask=None):
    p, y, w = _select(p, y, w, mask)
    return _wmean([(pi - yi) ** 2 for pi, yi in zip(p, y)], w)


def rmse(p, y, w=None, mask=None):
    return math.sqrt(brier(p, y, w, mask))


def accuracy(p, y, w=None, mask=None, draws="exclude"):
    p, y, w = _select(p, y, w, mask)
    credits, weights = [], []
    for pi, yi, wi in zip(p, y, w):
        if yi == 0.5:
            if draws == "exclude":
                continue
            credit = 0.5
        elif pi == 0.5:
            credit = 0.5
        elif (pi > 0.5 and yi > 0.5) or (pi < 0.5 and yi < 0.5):
            credit = 1.0
        else:
            credit = 0.0
        credits.append(credit)
        weights.append(wi)
    return _wmean(credits, weights)


def calibration(p, y, bins=10, w=None, mask=None):
    """Uniform bins: bin i holds i/bins <= p < (i+1)/bins, the last one also p == 1."""
    p, y, w = _select(p, y, w, mask)
    edges = [i / bins for i in range(bins + 1)]
    count = [0] * bins
    members = [[] for _ in range(bins)]
    for pi, yi, wi in zip(p, y, w):
        b = bins - 1
        for i in range(bins):
            if edges[i] <= pi < edges[i + 1]:
                b = i
                break
        count[b] += 1
        members[b].append((pi, yi, wi))
    mean_p, mean_y = [], []
    for m in members:
        ws = [x[2] for x in m]
        mean_p.append(_wmean([x[0] for x in m], ws))
        mean_y.append(_wmean([x[1] for x in m], ws))
    return {"lower": edges[:-1], "upper": edges[1:], "count": count,
            "mean_predicted": mean_p, "mean_observed": mean_y}


def burn_in_mask(periods, k):
    """periods: nondecreasing period numbers (stored order). False for the games of the
    first k distinct periods."""
    out = []
    seen = []
    for q in periods:
        if not seen or seen[-1] != q:
            seen.append(q)
        out.append(len(seen) > k)
    return out


# ----------------------------------------------------------------------------------
# matches: one list of teams per match


def _avg_ranks(values):
    """1-based ranks of ``values`` (lower first), ties averaged."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def _spearman(a, b):
    ra, rb = _avg_ranks(a), _avg_ranks(b)
    ma, mb = math.fsum(ra) / len(ra), math.fsum(rb) / len(rb)
    cov = math.fsum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = math.fsum((x - ma) ** 2 for x in ra)
    vb = math.fsum((y - mb) ** 2 for y in rb)
    if va <= 1e-12 or vb <= 1e-12:
        return None
    return cov / math.sqrt(va * vb)


def match_summary(matches, mask=None):
    """``matches``: list of ``(win, pair, rank)`` per match -- win probabilities and
    ranks per team, and ``pair[(i, j)]`` (i < j) the expected score of team i against
    team j. The metrics of fastrate.metrics.match_summary, from their definitions."""
    chosen = [m for k, m in enumerate(matches) if mask is None or mask[k]]
    wll, wacc, pll, hits, rhos = [], [], [], [], []
    n_pairs = 0
    for win, pair, rank in chosen:
        t = len(win)
        winners = [i for i in range(t) if rank[i] == 1]
        wll.append(math.fsum(-math.log(max(win[i], EPS)) for i in winners) / len(winners))
        best = max(win)
        favs = [i for i in range(t) if win[i] == best]
        wacc.append(sum(1.0 for i in favs if i in winners) / len(favs))
        lost = [0.0] * t
        for i in range(t):
            for j in range(i + 1, t):
                p = pair[(i, j)]
                y = 1.0 if rank[i] < rank[j] else (0.0 if rank[i] > rank[j] else 0.5)
                pc = _clip(p)
                pll.append(-(y * math.log(pc) + (1 - y) * math.log(1 - pc)))
                n_pairs += 1
                if y != 0.5:
                    hits.append(0.5 if p == 0.5 else float((p > 0.5) == (y == 1.0)))
                lost[i] += 1.0 - p
                lost[j] += p
        rho = _spearman([round(1.0 + x, 9) for x in lost], list(rank))
        if rho is not None:
            rhos.append(rho)

    def mean(v):
        return math.fsum(v) / len(v) if v else math.nan

    return {"n": len(chosen), "n_pairs": n_pairs, "winner_log_loss": mean(wll),
            "winner_accuracy": mean(wacc), "pair_log_loss": mean(pll),
            "pair_accuracy": mean(hits), "rank_correlation": mean(rhos)}
