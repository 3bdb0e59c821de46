"""A slow reference of the Codeforces rating (SPEC §2.4), written from the SPEC's steps,
not from fastrate's kernel: quadratic sums over the other entrants, a binary search per
entrant, exact integer arithmetic with divisions truncating toward zero.

Two evaluation choices make its results comparable bit for bit with fastrate's:
``10^(x/400)`` is ``exp(x ln(10)/400)`` with fastrate's ``exp`` (the same bits on every
machine), and every seed sum is rounded once (:func:`math.fsum`), so the order of the
terms does not matter.
"""

from __future__ import annotations

import math

import numpy as np

from fastrate._vecmath import exp

C = math.log(10.0) / 400.0


def f(x: int) -> float:
    """``1 / (1 + 10^(x/400))``."""
    return 1.0 / (1.0 + exp(x * C))


def tdiv(a: int, b: int) -> int:
    """Integer division truncating toward zero (Java's ``/``), on Python ints."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def contest(ratings, places):
    """One contest: old ratings (ints) and places (lower is better, equal = tied).
    Returns (seed, performance, delta) as lists in input order."""
    r = [int(x) for x in ratings]
    n = len(r)
    # 1. rank: the last place of the tie group = entrants placed at or above
    rank = [sum(1 for j in range(n) if places[j] <= places[i]) for i in range(n)]
    # 2. seed_i = 1 + sum_{j != i} P(j beats i), P(j beats i) = 1/(1 + 10^((r_i - r_j)/400))
    seed = [math.fsum([1.0] + [f(r[i] - r[j]) for j in range(n) if j != i])
            for i in range(n)]
    perf, delta = [], []
    for i in range(n):
        # 3. m_i and the binary search on [1, 8000), i left out of seed(R)
        m = math.sqrt(rank[i] * seed[i])
        left, right = 1, 8000
        while right - left > 1:
            mid = (left + right) // 2
            s = math.fsum([1.0] + [f(mid - r[j]) for j in range(n) if j != i])
            if s < m:
                right = mid
            else:
                left = mid
        perf.append(left)
        # 4. d_i = (R - r_i) / 2 toward zero
        delta.append(tdiv(left - r[i], 2))
    # 5. sort by old rating descending (equal ratings: better rank first)
    order = sorted(range(n), key=lambda i: (-r[i], rank[i]))
    inc = tdiv(-sum(delta), n) - 1
    delta = [d + inc for d in delta]
    # 6. the top s = min(n, floor(4 sqrt(n)))
    s = min(n, math.isqrt(16 * n))
    top = sum(delta[i] for i in order[:s])
    inc = min(max(tdiv(-top, s), -10), 0)
    delta = [d + inc for d in delta]
    return seed, perf, delta


def rate(matches, initial_rating: int = 1500, start=None):
    """Every match of ``matches`` (fastrate.Matches) as one contest, in order; every
    player of weight > 0 an entrant at his team's place. Returns (rating dict by player
    id, games_played dict, team win probabilities, pair expected scores)."""
    rating = dict(start or {})
    games: dict[int, int] = {}
    mto, tpo = matches.match_team_offsets, matches.team_player_offsets
    w = matches.weight
    pred, pairs = [], []
    for m in range(matches.n_matches):
        ids, places, team_r = [], [], []
        for t in range(mto[m], mto[m + 1]):
            rs = []
            for s in range(tpo[t], tpo[t + 1]):
                if w is not None and not w[s] > 0:
                    continue
                p = int(matches.player[s])
                ids.append(p)
                places.append(int(matches.rank[t]))
                rs.append(rating.get(p, initial_rating))
            team_r.append(sum(rs) / len(rs))
        strength = [10.0 ** (x / 400.0) for x in team_r]
        pred += [x / sum(strength) for x in strength]
        for a in range(len(team_r)):
            for b in range(a + 1, len(team_r)):
                pairs.append(1.0 / (1.0 + 10.0 ** ((team_r[b] - team_r[a]) / 400.0)))
        old = [rating.get(p, initial_rating) for p in ids]
        _, _, delta = contest(old, places)
        for p, r0, d in zip(ids, old, delta):
            rating[p] = r0 + d
            games[p] = games.get(p, 0) + 1
    return rating, games, np.array(pred), np.array(pairs)
