"""Slow pure-Python Weng-Lin, written from the paper (Weng & Lin 2011, JMLR 12:
Algorithm 1 Bradley-Terry full pairing, 2 Thurstone-Mosteller full pairing, 3 partial
pairing, 4 Plackett-Luce) with openskill's conventions where the paper leaves a choice
(``tau`` dynamics, ``kappa`` floor, ``gamma = sigma_i / c``, partial pairing averaged
over a window of neighbours, ``c_iq`` doubled for Thurstone-Mosteller partial pairing),
and the options of fastrate's config (balance, limit_sigma, weights, margins). Every
sum is the paper's own loop over q; nothing here is shared with the kernel.

A match is ``teams``: a list of teams, each a list of ``[mu, sigma, weight]`` seats,
stored best first with their ``ranks`` (and optional ``scores``).
"""

from __future__ import annotations

import math
from statistics import NormalDist

_N = NormalDist()
EPS = 2.220446049250313e-16


def cdf(x):
    return _N.cdf(x)


def pdf(x):
    return _N.pdf(x)


def v(x, t):
    d = cdf(x - t)
    return -(x - t) if d < EPS else pdf(x - t) / d


def w(x, t):
    if cdf(x - t) < EPS:
        return 1.0 if x < 0 else 0.0
    return v(x, t) * (v(x, t) + x - t)


def vt(x, t):
    xx = abs(x)
    b = cdf(t - xx) - cdf(-t - xx)
    if b < 1e-5:
        return -x - t if x < 0 else -x + t
    a = pdf(-t - xx) - pdf(t - xx)
    return (-a if x < 0 else a) / b


def wt(x, t):
    xx = abs(x)
    b = cdf(t - xx) - cdf(-t - xx)
    if b < EPS:
        return 1.0
    return ((t - xx) * pdf(t - xx) + (t + xx) * pdf(-t - xx)) / b + vt(x, t) ** 2


def factor(d, margin):
    """fastrate's evidence weight of a win by d."""
    return 1.0 + math.log(d / margin) if margin > 0 and d > margin else 1.0


def divisor(d, margin):
    """openskill's margin divisor."""
    return math.log1p(d / margin) if margin > 0 and d > margin else 1.0


DEFAULTS = dict(model="plackett_luce", beta=25 / 6, kappa=1e-4, tau=25 / 300, epsilon=0.1,
                window=4, limit_sigma=False, balance=False, margin=0.0,
                margin_rule="evidence", weight_rule="partial", weight_bounds=(1.0, 2.0),
                predict="logistic", has_weights=False)


def team_sums(teams, o):
    """Team (mu, sigma^2) after tau; seats of weight 0 left out."""
    out = []
    for team in teams:
        seats = [(m, s * s + o["tau"] ** 2, wt_) for m, s, wt_ in team if wt_ > 0]
        ords = [m - 3 * math.sqrt(var) for m, var, _ in seats]
        top = max(ords)
        mu_t = var_t = 0.0
        for (m, var, wt_), od in zip(seats, ords):
            a = 1 + (top - od) / (top + o["kappa"]) if o["balance"] else 1.0
            if o["weight_rule"] == "partial":
                a *= wt_
            mu_t += a * m
            var_t += a * a * var
        out.append((mu_t, var_t))
    return out


def predictions(teams, o):
    """(win probability per team, P(i beats j) for i < j)."""
    t = team_sums(teams, o)
    k = len(t)
    b2 = o["beta"] ** 2
    if o["predict"] == "normal":
        def p(i, j):
            return cdf((t[i][0] - t[j][0]) / math.sqrt(2 * b2 + t[i][1] + t[j][1]))
        win = [sum(p(i, j) for j in range(k) if j != i) / (k - 1) for i in range(k)]
        tot = sum(win)
        return [x / tot for x in win], [p(i, j) for i in range(k) for j in range(i + 1, k)]
    c = math.sqrt(sum(var + b2 for _, var in t))
    e = [math.exp(m / c) for m, _ in t]
    return ([x / sum(e) for x in e],
            [e[i] / (e[i] + e[j]) for i in range(k) for j in range(i + 1, k)])


def omega_delta(t, ranks, scores, o):
    """Algorithms 1-4: every team's (Omega, Delta)."""
    model, k, b2 = o["model"], len(t), o["beta"] ** 2
    margin = o["margin"] if scores is not None else 0.0
    os_margin = o["margin_rule"] == "openskill"
    known = [scores is not None and s == s for s in (scores or [0] * k)]
    res = []
    if model == "plackett_luce":
        c = math.sqrt(sum(var + b2 for _, var in t))
        theta = []
        for i in range(k):
            x = t[i][0]
            if margin > 0 and os_margin and known[i]:
                adj, n = 0.0, 0
                for j in range(k):
                    if j != i and known[j] and abs(scores[i] - scores[j]) > 0:
                        f = divisor(abs(scores[i] - scores[j]), margin)
                        if scores[i] > scores[j]:
                            adj -= (t[i][0] - t[j][0]) * (f - 1)
                        else:
                            adj += (t[j][0] - t[i][0]) * (f - 1)
                        n += 1
                x += adj / n if n else adj
            theta.append(x)
        e = [math.exp(x / c) for x in theta]
        s_q = [sum(e[s] for s in range(k) if ranks[s] >= ranks[q]) for q in range(k)]
        a_q = [sum(1 for s in range(k) if ranks[s] == ranks[q]) for q in range(k)]
        f_q = []
        for q in range(k):  # evidence: q's margin over the best team ranked below it
            below = [s for s in range(k) if ranks[s] > ranks[q]]
            f = 1.0
            if margin > 0 and not os_margin and below and known[q] and known[below[0]]:
                f = factor(scores[q] - scores[below[0]], margin)
            f_q.append(f)
        for i in range(k):
            om = de = 0.0
            for q in range(k):
                if ranks[q] <= ranks[i]:
                    p = e[i] / s_q[q]
                    de += f_q[q] * p * (1 - p) / a_q[q]
                    om += f_q[q] * ((1 - p) if q == i else -p) / a_q[q]
            var = t[i][1]
            res.append((om * var / c, de * var / c ** 2 * math.sqrt(var) / c))
        return res
    part = model.endswith("part")
    for i in range(k):
        om = de = 0.0
        qs = [q for q in range(k) if q != i and (not part or abs(q - i) <= o["window"])]
        for q in qs:
            c = math.sqrt(t[i][1] + t[q][1] + 2 * b2)
            if model == "thurstone_mosteller_part":
                c *= 2
            f = div = 1.0
            if margin > 0 and known[i] and known[q]:
                d = abs(scores[i] - scores[q])
                if os_margin:
                    div = divisor(d, margin)
                else:
                    f = factor(d, margin)
            var = t[i][1]
            gam = math.sqrt(var) / c
            if model.startswith("bradley"):
                p = 1 / (1 + math.exp((t[q][0] - t[i][0]) / div / c))
                s = 1.0 if ranks[q] > ranks[i] else 0.5 if ranks[q] == ranks[i] else 0.0
                om += f * var / c * (s - p)
                de += f * gam * var / c ** 2 * p * (1 - p)
            else:
                x, tt = (t[i][0] - t[q][0]) / c / div, o["epsilon"] / c
                if ranks[q] > ranks[i]:
                    om += f * var / c * v(x, tt)
                    de += f * gam * var / c ** 2 * w(x, tt)
                elif ranks[q] < ranks[i]:
                    om -= f * var / c * v(-x, tt)
                    de += f * gam * var / c ** 2 * w(-x, tt)
                else:
                    om += f * var / c * vt(x, tt)
                    de += f * gam * var / c ** 2 * wt(x, tt)
        if part and qs:
            om, de = om / len(qs), de / len(qs)
        res.append((om, de))
    return res


def rate_match(teams, ranks, scores=None, **options):
    """New ``[mu, sigma]`` of every seat (weight-0 seats unchanged) and the
    predictions before the match."""
    o = {**DEFAULTS, **options}
    pred = predictions(teams, o)
    t = team_sums(teams, o)
    od = omega_delta(t, ranks, scores, o)
    out = []
    for team, (_, var_t), (om, de) in zip(teams, t, od):
        ws = [x[2] for x in team if x[2] > 0]
        new = []
        for m, s, wt_ in team:
            if wt_ == 0:
                new.append([m, s])
                continue
            var = s * s + o["tau"] ** 2
            r = var / var_t
            if o["weight_rule"] == "openskill":
                if o["has_weights"]:
                    lo, hi = o["weight_bounds"]
                    rng = (max(ws) - min(ws)) or 0.0001
                    wt_ = hi if len(ws) == 1 else (wt_ - min(ws)) / rng * (hi - lo) + lo
                gain = om > 0 if o["model"] == "thurstone_mosteller_part" else om >= 0
                m2 = m + (r * om * wt_ if gain else r * om / wt_)
                nv = var * max(1 - r * de * (wt_ if gain else 1 / wt_), o["kappa"])
            else:
                m2 = m + wt_ * r * om
                nv = var * max(1 - wt_ * wt_ * r * de, o["kappa"])
            if o["limit_sigma"]:
                nv = min(nv, s * s)
            new.append([m2, math.sqrt(nv)])
        out.append(new)
    return out, pred
