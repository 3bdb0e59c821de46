"""The Codeforces contest rating (SPEC §2.4), in the variant Codeforces ran in 2018.

Source: M. Mirzayanov, "Open Codeforces Rating System" (Codeforces blog, October
2015), with the two changes that reproduce the official rating changes of 2018: an
entrant is left out of his own ``seed(R)``, and the top group of the second inflation
correction has ``s = min(n, floor(4 sqrt(n)))`` entrants (the 2015 Java listing has
``4 * round(sqrt(n))``). For one contest of ``n`` entrants with integer old ratings
``r_i`` (new entrants ``initial_rating``, 1500):

1. ``rank_i``: the LAST place of the entrant's tie group (places 1, 2, 2, 4 -> ranks
   1, 3, 3, 4).
2. ``seed_i = 1 + sum_{j != i} P(j beats i)`` with ``P(j beats i) = f(r_i - r_j)``,
   ``f(x) = 1 / (1 + 10^(x/400))`` (the expected place).
3. ``m_i = sqrt(rank_i seed_i)``; the performance ``R_i`` is the integer found by
   binary search on ``[1, 8000)``: ``left, right = 1, 8000``; while
   ``right - left > 1``: ``mid = (left + right) / 2``; ``right = mid`` if
   ``seed_i(mid) < m_i`` else ``left = mid``; ``R_i = left``, where
   ``seed_i(R) = 1 + sum_{j != i} f(R - r_j)``.
4. ``d_i = (R_i - r_i) / 2``.
5. ``inc = -(sum_i d_i) / n - 1``, added to every ``d_i``.
6. Entrants sorted by old rating, highest first (equal ratings: better rank first):
   ``inc = min(max(-(sum of d_i over the first s) / s, -10), 0)``, added to every
   ``d_i``. The new rating is ``r_i + d_i``.

Every division of steps 4-6 is an integer division truncating toward zero (as Java's).

Numerics. ``10^(x/400)`` is evaluated as ``exp(x ln(10)/400)`` with fastrate's
``exp`` (the same bits on every machine), and the sums of steps 2-3 are exactly rounded
(as :func:`math.fsum` rounds them): the kernel adds ``count_v f(R - v)`` over the
distinct old ratings ``v`` in double-double arithmetic and rounds once. So results do
not depend on the order of the entrants (a plain floating-point sum in entrant order
could flip the comparison ``seed_i(mid) < m_i`` when the two are equal, as happens
with equal ratings). Speed: ``sum_v count_v f(R - v)`` is computed at most once per
integer ``R`` of ``[1, 8000)`` and once per distinct old rating per contest (memoised),
and entrant ``i``'s own term is subtracted, so a contest costs
``O(n log n + (8000 + D) D)`` for ``D`` distinct old ratings, not ``O(13 n^2)``.

Matches. Each match is one contest, rated in stored order (rating periods play no
part). **Decision**: every player of a team is an entrant of his own, placed at his
team's place, so teammates are tied (a 2v2 won by ``a, b``: both rank 2, the losers
rank 4). A seat of weight 0 leaves the player out of the contest (nothing about him
changes); Codeforces has no partial play, so **any weight above 0 counts in full**.
``games_played`` counts rated contests. Ratings are integers (stored as float64);
saved ratings given as ``initial`` must be whole numbers.

Predictions (before each contest): a team's rating is the mean of its players'
(weight > 0) ratings; its probability of winning is the Luce (Bradley-Terry) form
``10^(R_t/400) / sum_u 10^(R_u/400)`` (for two teams, the Elo expected score), and
``pair_predictions`` are the Elo expected scores ``1 / (1 + 10^((R_u - R_t)/400))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import as_1d, as_float64, check_number, check_type, format_value, require
from fastrate._vecmath import LN10, exp, fma
from fastrate.data import Ratings
from fastrate.data.state import GAMES_PLAYED, RATING
from fastrate.errors import InputError
from fastrate.ratings._common import expected_score as _elo_expected_score
from fastrate.ratings._matches import (
    as_matches,
    match_predictions,
    pair_offsets,
    resolve_matches,
)

__all__ = ["CodeforcesConfig", "ContestResult", "rate", "contest_update", "expected_score",
           "STATE", "LOW", "HIGH", "MAX_RATING"]

#: the binary search's interval ``[LOW, HIGH)`` for the performance R
LOW = 1
HIGH = 8000
#: ratings (initial and saved) must lie in ``[-MAX_RATING, MAX_RATING]``
MAX_RATING = 1_000_000_000
#: ``f(x) = 1/(1 + exp(x * _C))`` is ``1/(1 + 10^(x/400))``
_C = LN10 / 400.0
#: the table of f covers the differences ``[-half, half]``: at least ``_TABLE_MIN``, at
#: most ``_TABLE_MAX`` (beyond it f is computed directly)
_TABLE_MIN = 16384
_TABLE_MAX = 1 << 20
_MASK = (1 << 32) - 1


@dataclass(frozen=True)
class CodeforcesConfig:
    """Parameters of a Codeforces run: the rating of a new entrant (an integer)."""

    initial_rating: int = 1500

    def __post_init__(self) -> None:
        check_number("CodeforcesConfig", "initial_rating", self.initial_rating,
                     lo=-MAX_RATING, hi=MAX_RATING, integer=True)


class ContestResult(NamedTuple):
    """One contest's numbers per entrant (input order): the expected place ``seed``
    (float64), the performance ``R`` of the binary search (int64) and the rating
    change ``delta`` (int64, both corrections included)."""

    seed: np.ndarray
    performance: np.ndarray
    delta: np.ndarray


# ----------------------------------------------------------------------------------
# kernels


@inline_kernel
def _f(d):
    """``1 / (1 + 10^(d/400))`` for an integer difference ``d`` (``P`` that a player
    rated ``d`` points below the other beats him, seen from the other)."""
    return 1.0 / (1.0 + exp(d * _C))


@inline_kernel
def _tdiv(a, b):
    """``a / b`` for integers, ``b > 0``, truncated toward zero (Java's ``/``)."""
    q = abs(a) // b
    if a < 0:
        return -q
    return q


@inline_kernel
def _f_at(d, table, half):
    """``f(d)`` through the table of ``d`` in ``[-half, half]``, which is filled on
    first use (NaN: not yet computed); computed directly outside it."""
    if -half <= d <= half:
        v = table[d + half]
        if v != v:
            v = _f(d)
            table[d + half] = v
        return v
    return _f(d)


@inline_kernel
def _sum_at(big_r, vals, cnts, n_vals, table, half):
    """``sum_v count_v f(R - v)`` as an unevaluated double-double ``(hi, lo)``
    (Ogita-Rump-Oishi Sum2 with exact products: all terms are positive, so
    ``hi + lo`` is within ``n^2 2^-106`` of the exact sum, relatively)."""
    hi = 0.0
    lo = 0.0
    for k in range(n_vals):
        fv = _f_at(big_r - vals[k], table, half)
        c = float(cnts[k])
        p = c * fv
        pe = fma(c, fv, -p)
        s = hi + p
        bb = s - hi
        se = (hi - (s - bb)) + (p - bb)
        hi = s
        lo += se + pe
    return hi, lo


@inline_kernel
def _seed_from(hi, lo, own):
    """``1 + (hi + lo) - own``, rounded once (exact steps, then one rounding)."""
    a = hi - own
    bb = a - hi
    e1 = (hi - (a - bb)) + (-own - bb)
    s = a + 1.0
    bb = s - a
    e2 = (a - (s - bb)) + (1.0 - bb)
    return s + (lo + e1 + e2)


@kernel
def _contest(n, r, crank, table, half, keys, vals, cnts, memo_hi, memo_lo, memo_stamp,
             stamp, seed, perf, delta):
    """One contest of ``n`` entrants (SPEC §2.4): old ratings ``r`` (int64), Codeforces
    ranks ``crank`` (last place of the tie group), entrants stored by nondecreasing
    rank. Writes ``seed``, ``perf`` (R) and ``delta`` (both corrections included).
    ``keys``, ``vals``, ``cnts`` are scratch of ``n`` or more; ``memo_*`` hold the sums
    at ``R`` in ``[1, 8000)`` for the contest numbered ``stamp``."""
    # entrants by old rating, highest first; equal ratings in stored (= rank) order
    for k in range(n):
        keys[k] = ((MAX_RATING - r[k]) << 32) | k
    keys[:n].sort()
    n_vals = 0
    for j in range(n):
        v = r[keys[j] & _MASK]
        if n_vals > 0 and vals[n_vals - 1] == v:
            cnts[n_vals - 1] += 1
        else:
            vals[n_vals] = v
            cnts[n_vals] = 1
            n_vals += 1
    # seeds: seed_i = seed_i(r_i), one sum per distinct old rating (sorted order)
    own = _f_at(0, table, half)
    hi = 0.0
    lo = 0.0
    for j in range(n):
        k = keys[j] & _MASK
        rk = r[k]
        if j > 0 and rk == r[keys[j - 1] & _MASK]:
            seed[k] = seed[keys[j - 1] & _MASK]
            continue
        if LOW <= rk < HIGH and memo_stamp[rk] == stamp:
            hi, lo = memo_hi[rk], memo_lo[rk]
        else:
            hi, lo = _sum_at(rk, vals, cnts, n_vals, table, half)
            if LOW <= rk < HIGH:
                memo_hi[rk], memo_lo[rk], memo_stamp[rk] = hi, lo, stamp
        seed[k] = _seed_from(hi, lo, own)
    for k in range(n):
        rk = r[k]
        m = math.sqrt(crank[k] * seed[k])
        left = LOW
        right = HIGH
        while right - left > 1:
            mid = (left + right) // 2
            if memo_stamp[mid] != stamp:
                hi, lo = _sum_at(mid, vals, cnts, n_vals, table, half)
                memo_hi[mid], memo_lo[mid], memo_stamp[mid] = hi, lo, stamp
            if _seed_from(memo_hi[mid], memo_lo[mid], _f_at(mid - rk, table, half)) < m:
                right = mid
            else:
                left = mid
        perf[k] = left
        delta[k] = _tdiv(left - rk, 2)
    total = 0
    for k in range(n):
        total += delta[k]
    inc = _tdiv(-total, n) - 1
    for k in range(n):
        delta[k] += inc
    # s = min(n, floor(4 sqrt(n))) = min(n, isqrt(16 n))
    s = int(4.0 * math.sqrt(n))
    while (s + 1) * (s + 1) <= 16 * n:
        s += 1
    while s * s > 16 * n:
        s -= 1
    s = min(n, s)
    total = 0
    for j in range(s):
        total += delta[keys[j] & _MASK]
    inc = min(max(_tdiv(-total, s), -10), 0)
    for k in range(n):
        delta[k] += inc


@kernel
def _codeforces_kernel(match_team_offsets, team_player_offsets, player, rank, weight,
                       rating, games_played, table, half, ent_player, ent_r, ent_rank, crank,
                       keys, vals, cnts, memo_hi, memo_lo, memo_stamp, seed, perf, delta,
                       team_rating, pred, pair_pred, predict):
    """Every match in stored order as one contest (module docstring): predictions from
    the ratings before the match, then the update of its entrants (seats of weight
    > 0; ``weight`` empty: all). An empty ``pair_pred`` skips the pairs; ``predict``
    False skips the predictions altogether (the team ratings serve only them; final
    ratings only, the same bits)."""
    weighted = weight.shape[0] > 0
    with_pairs = pair_pred.shape[0] > 0
    q = 0
    for m in range(match_team_offsets.shape[0] - 1):
        t0 = match_team_offsets[m]
        t1 = match_team_offsets[m + 1]
        n = 0
        for t in range(t0, t1):
            total = 0.0
            count = 0
            for s in range(team_player_offsets[t], team_player_offsets[t + 1]):
                if weighted and not weight[s] > 0.0:
                    continue
                p = player[s]
                r_p = rating[p]
                if predict:  # the team's mean rating serves only the predictions
                    total += r_p
                    count += 1
                ent_player[n] = p
                ent_r[n] = np.int64(r_p)
                ent_rank[n] = rank[t]
                n += 1
            if predict:
                team_rating[t - t0] = total / max(count, 1)
        # predictions: Luce win probabilities and pairwise Elo expected scores
        if predict:
            match_predictions(m, match_team_offsets, team_rating, _C, pred, pair_pred, q)
            if with_pairs:
                q += (t1 - t0) * (t1 - t0 - 1) // 2
        if n == 0:
            continue
        # Codeforces ranks: the last place of each tie group
        j = n - 1
        while j >= 0:
            i = j
            while i > 0 and ent_rank[i - 1] == ent_rank[j]:
                i -= 1
            for k in range(i, j + 1):
                crank[k] = j + 1
            j = i - 1
        _contest(n, ent_r, crank, table, half, keys, vals, cnts, memo_hi, memo_lo,
                 memo_stamp, m, seed, perf, delta)
        for k in range(n):
            p = ent_player[k]
            rating[p] = float(ent_r[k] + delta[k])
            games_played[p] += 1


# ----------------------------------------------------------------------------------
# public functions


def _table(rating: np.ndarray) -> tuple[np.ndarray, int]:
    """The table of ``f`` that the kernels fill as they go (NaN: not yet computed), and
    its half-width: wide enough for every difference between the ratings and the
    search's ``[1, 8000)``, within ``[_TABLE_MIN, _TABLE_MAX]``."""
    lo = min(float(rating.min()), LOW) if rating.shape[0] else LOW
    hi = max(float(rating.max()), HIGH) if rating.shape[0] else HIGH
    half = int(min(max(hi - lo + 1, _TABLE_MIN), _TABLE_MAX))
    return np.full(2 * half + 1, np.nan, dtype=np.float64), half


def _check_ratings(values: np.ndarray, column: str, names: Any = None) -> np.ndarray:
    """Whole numbers in ``[-MAX_RATING, MAX_RATING]`` as int64, or an InputError naming
    the first bad value (and its player, given ``names``)."""
    bad = ~(np.isfinite(values) & (values == np.round(values))
            & (np.abs(values) <= MAX_RATING))
    if bad.any():
        i = int(np.argmax(bad))
        where = f"player {names[i]!r}" if names is not None else f"index {i}"
        raise InputError(f"{column}: Codeforces ratings are whole numbers in "
                         f"[-{MAX_RATING}, {MAX_RATING}]; found {format_value(values[i])} for {where} "
                         "(round them first)")
    return require(values.astype(np.int64), np.int64)


def contest_update(ratings: Any, places: Any = None, *, points: Any = None) -> ContestResult:
    """One Codeforces contest on plain arrays (SPEC §2.4).

    ``ratings`` are the entrants' old ratings (whole numbers; give new entrants 1500);
    the standings are ``places`` (lower is better, equal = tied: ``1, 2, 2, 4`` or any
    numbers) or ``points`` (higher is better). Returns :class:`ContestResult`
    ``(seed, performance, delta)`` in input order; the new ratings are
    ``ratings + delta``.

    >>> res = contest_update([1500, 1500], [1, 2])
    >>> res.seed.tolist(), res.performance.tolist(), res.delta.tolist()
    ([1.5, 1.5], [1715, 1325], [96, -98])
    """
    r = _check_ratings(as_float64(as_1d(ratings, "ratings"), "ratings"), "ratings")
    if (places is None) == (points is None):
        raise InputError("give exactly one of places= (lower is better) and points= "
                         "(higher is better)")
    name = "places" if points is None else "points"
    order_by = as_float64(as_1d(places if points is None else points, name), name)
    if order_by.shape[0] != r.shape[0]:
        raise InputError(f"{name} has {order_by.shape[0]} values for {r.shape[0]} ratings")
    n = r.shape[0]
    if n == 0:
        raise InputError("a contest needs at least one entrant")
    if points is not None:
        order_by = -order_by
    order = np.argsort(order_by, kind="stable")
    ranked = order_by[order]
    # the last place of every tie group: the number of entrants placed at or above
    crank = require(np.searchsorted(ranked, ranked, side="right").astype(np.int64), np.int64)
    rs = require(r[order], np.int64)
    seed = np.empty(n, dtype=np.float64)
    perf = np.empty(n, dtype=np.int64)
    delta = np.empty(n, dtype=np.int64)
    keys = np.empty(n, dtype=np.int64)
    vals = np.empty(n, dtype=np.int64)
    cnts = np.empty(n, dtype=np.int64)
    memo_hi = np.empty(HIGH, dtype=np.float64)
    memo_lo = np.empty(HIGH, dtype=np.float64)
    memo_stamp = np.full(HIGH, -1, dtype=np.int64)
    table, half = _table(rs)
    _contest(n, rs, crank, table, half, keys, vals, cnts, memo_hi, memo_lo,
             memo_stamp, 0, seed, perf, delta)
    out = ContestResult(np.empty(n, np.float64), np.empty(n, np.int64), np.empty(n, np.int64))
    out.seed[order], out.performance[order], out.delta[order] = seed, perf, delta
    return out


def expected_score(rating_a: Any, rating_b: Any) -> np.ndarray:
    """Elo expected score of A against B, ``1 / (1 + 10^((r_B - r_A)/400))`` (SPEC §2.4
    step 2). NumPy-vectorised.

    >>> round(float(expected_score(1700, 1500)), 4)
    0.7597
    """
    return _elo_expected_score(rating_a, rating_b, 400.0)


#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED)


def rate(data: Any, config: CodeforcesConfig = CodeforcesConfig(),
         initial: Any = None, predictions: bool = True, *,
         pair_predictions: bool = True) -> Ratings:
    """Rate every match of ``data`` (:class:`~fastrate.Matches`, or two-player
    :class:`~fastrate.Games`) as one Codeforces contest, in order (module docstring).

    ``initial`` continues from saved state (a previous :class:`~fastrate.Ratings`, its
    table, or a mapping name -> rating; ratings must be whole numbers).
    ``pair_predictions=False`` leaves ``Ratings.pair_predictions`` empty: a contest of
    ``n`` entrants has ``n (n - 1) / 2`` pairs (450 million, 3.6 GB, for 30,000), which
    the walk-forward evaluation needs but a rating run does not (the team win
    probabilities, one per team, stay). ``predictions=False``: final ratings only, neither
    output computed (``predictions`` and ``pair_predictions`` None, whatever
    ``pair_predictions`` says; the ratings and games played are the same bits).
    """
    check_type(config, CodeforcesConfig, "config must be a CodeforcesConfig")
    matches = as_matches(data, "codeforces")
    predictions = bool(predictions)
    cols, matches = resolve_matches(matches, initial, STATE,
                                    {"rating": float(config.initial_rating)})
    players = matches.players
    rating = require(cols["rating"].astype(np.float64), np.float64)
    _check_ratings(rating, "initial ratings: column 'rating'", players.names)
    games_played = require(cols["games_played"], np.int64)
    mto, tpo = matches.match_team_offsets, matches.team_player_offsets
    seats_per_match = tpo[mto[1:]] - tpo[mto[:-1]]
    width = int(seats_per_match.max()) if seats_per_match.shape[0] else 0
    teams = int(np.diff(mto).max()) if mto.shape[0] > 1 else 0
    n_pairs = int(pair_offsets(mto)[-1]) if predictions and pair_predictions else 0
    weight = np.zeros(0) if matches.weight is None else matches.weight
    pred = np.empty(matches.n_teams if predictions else 0, dtype=np.float64)
    pair_pred = np.empty(n_pairs, dtype=np.float64)

    def scratch(n: int, dtype: Any = np.int64) -> np.ndarray:
        return np.empty(n, dtype=dtype)

    # per entrant of a contest: player, old rating, place, Codeforces rank, sort key,
    # distinct ratings, their counts, seed, performance, delta
    _codeforces_kernel(mto, tpo, matches.player, matches.rank, weight, rating, games_played,
                       *_table(rating), scratch(width), scratch(width), scratch(width),
                       scratch(width), scratch(width), scratch(width), scratch(width),
                       scratch(HIGH, np.float64), scratch(HIGH, np.float64),
                       np.full(HIGH, -1, dtype=np.int64), scratch(width, np.float64),
                       scratch(width), scratch(width),
                       scratch(teams if predictions else 0, np.float64), pred, pair_pred,
                       predictions)
    return Ratings("codeforces", players, rating, games_played,
                   pred if predictions else None, config,
                   pair_predictions=pair_pred if predictions else None)
