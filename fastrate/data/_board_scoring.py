"""The board comparisons of duplicate bridge on validated CSR arrays: the IMP scale,
cross-IMPs, Butler IMPs and matchpoints (SPEC §3.1-3.2), and :class:`BoardScores`.

The public home of these rules is :mod:`fastrate.bridge.scoring`, which validates arrays
that users pass in and then calls the functions here; :meth:`Boards.score
<fastrate.data.boards.Boards.score>` calls them directly, since a :class:`Boards` is
validated when it is built (validate once, at the boundary). They live in the
containers' layer so that the container's method needs nothing above it.

Inputs here are trusted: ``offsets`` int64 CSR offsets (``offsets[0] == 0``,
nondecreasing, ``offsets[-1] == n``), ``ns_score`` float64 NS points, ``artificial``
int64 codes 0-3 or None. Options (method, drop, datum, style) are checked, since they
are the caller's choice, not the data's. The one data check left is the kernels' own:
a non-finite real score (which a :class:`Boards` never holds) raises naming the row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import check_choice, fail_at, require
from fastrate.data._csr import group_of
from fastrate.errors import ConfigError, InputError

__all__ = ["IMP_THRESHOLDS", "IMP_STEPS", "METHODS", "DROPS", "DATUMS", "MP_STYLES",
           "ARTIFICIAL_PERCENT", "ARTIFICIAL_IMPS", "BoardScores", "imp_of",
           "butler_drop_count", "check_method", "cross_imps_scores", "butler_scores",
           "matchpoint_scores", "score_boards", "real_counts"]

#: lower bounds of the point difference for 1, 2, ..., 24 IMPs (WBF scale, Law 78B)
IMP_THRESHOLDS = np.array([20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750,
                           900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000],
                          dtype=np.float64)
#: the thresholds in buckets of 10 points
IMP_STEPS = (IMP_THRESHOLDS // 10).astype(np.int64)
_NO_ART = np.zeros(0, dtype=np.int64)

METHODS = ("cross-imps", "butler", "matchpoints")
DROPS = ("none", "one", "sqrtish", "tenth", "quarter")
DATUMS = ("mean", "median")
MP_STYLES = ("2/1/0", "1/0.5/0")
#: artificial codes and their matchpoint fraction / IMPs (NS side)
ARTIFICIAL_PERCENT = np.array([np.nan, 60.0, 50.0, 40.0])
ARTIFICIAL_IMPS = np.array([np.nan, 3.0, 0.0, -3.0])


# ----------------------------------------------------------------------------------
# kernels (inputs validated)
#
# Each scoring kernel makes one pass per board over its rows (in any order): it counts the
# real results and checks whether every real score is a multiple of 10 (``q * 10 == x``
# exactly, q an integer). Contract scores always are, and span at most 1,521 buckets of
# 10 points ([-7600, 7600]), so a board is then scored from a histogram of its buckets and
# the histogram's running sum -- no sort, no copy. Differences and sums of such scores are
# exact integers in floating point, so these paths give the very numbers of the sorted
# algorithms. Any other board (averaged scores) copies its real scores, sorts them and
# uses the sorted algorithm; a row then finds its score by binary search (equal scores
# share one result).

#: most buckets of 10 points a board may span for the histogram path: every contract
#: score lies in [-7600, 7600]
_MAX_SPAN = 1_600


@inline_kernel
def _scan_board(s, art, has_art, offsets, b, qb):
    """(first row lo, end row hi, n real, all multiples of 10, min bucket, max bucket,
    first non-finite row or -1) of board ``b``, rows ``lo:hi``; ``qb[i - lo]`` gets each
    real row's bucket ``x / 10``."""
    lo = offsets[b]
    hi = offsets[b + 1]
    n = 0
    tens = True
    qmin = np.int64(0)
    qmax = np.int64(0)
    for i in range(lo, hi):
        if has_art and art[i] != 0:
            continue
        x = s[i]
        if not math.isfinite(x):
            return lo, hi, n, tens, qmin, qmax, i
        q = np.rint(x * 0.1)
        if q * 10.0 != x or not (-1e15 < q < 1e15):
            tens = False
            q = 0.0
        qi = np.int64(q)
        qb[i - lo] = qi
        if n == 0:
            qmin = qi
            qmax = qi
        else:
            qmin = min(qmin, qi)
            qmax = max(qmax, qi)
        n += 1
    return lo, hi, n, tens, qmin, qmax, -1


@inline_kernel
def _cumulative(cum, qb, art, has_art, lo, hi, qmin, span):
    """``cum[j]`` = number of real scores in buckets ``qmin .. qmin + j``."""
    for j in range(span):
        cum[j] = 0
    for i in range(lo, hi):
        if not has_art or art[i] == 0:
            cum[qb[i - lo] - qmin] += 1
    run = 0
    for j in range(span):
        run += cum[j]
        cum[j] = run


@inline_kernel
def _sorted_real(s, art, has_art, lo, hi, buf):
    """The board's real scores, sorted ascending, in ``buf[:m]``; returns that view."""
    m = 0
    for i in range(lo, hi):
        if not has_art or art[i] == 0:
            buf[m] = s[i]
            m += 1
    vals = buf[:m]
    vals.sort()
    return vals


@inline_kernel
def _bucket_value(cum, span, rank, qmin):
    """The score of the ``rank``-th smallest result (0-based) from the running counts."""
    for j in range(span):
        if cum[j] > rank:
            return (qmin + j) * 10.0
    return np.nan


@inline_kernel
def _scratch(offsets):
    """The per-run scratch of a scoring kernel: the running counts of the histogram
    path, each row's bucket and a copy of a board's scores (both as long as the largest
    board), and that length."""
    big = 0
    for b in range(offsets.shape[0] - 1):
        big = max(big, offsets[b + 1] - offsets[b])
    return (np.zeros(_MAX_SPAN, dtype=np.int64), np.empty(big, dtype=np.int64),
            np.empty(big, dtype=np.float64), big)


@inline_kernel
def _write_artificial(art, art_imps, lo, hi, ns, ew):
    """Artificial rows of the board ``lo:hi`` get ``art_imps[code]`` (EW the negation)."""
    for i in range(lo, hi):
        if art[i] != 0:
            v = art_imps[art[i]]
            ns[i] = v
            ew[i] = -v


@inline_kernel
def _write_real(art, has_art, lo, hi, v, ns, ew):
    """Real rows of the board ``lo:hi`` get ``v`` (EW the negation)."""
    for i in range(lo, hi):
        if not has_art or art[i] == 0:
            ns[i] = v
            ew[i] = -v


@inline_kernel
def imp_of(diff, thresholds):
    """IMPs of a point difference (the WBF scale, \"at least the bound\"), signed."""
    a = diff if diff >= 0 else -diff
    k = 0
    while k < thresholds.shape[0] and a >= thresholds[k]:
        k += 1
    return float(k) if diff >= 0 else float(-k)


@inline_kernel
def _sweep_sorted(s, lo, hi, thresholds, plus, minus, out):
    """Average cross-IMPs of the scores ``s[lo:hi]`` (sorted ascending) into
    ``out[lo:hi]``; ``plus``/``minus`` are scratch pointers (one per threshold).

    For the table with score x, ``sum_u IMP(x - s_u) = sum_k #{u: x - s_u >= T_k} -
    #{u: s_u - x >= T_k}``. Both sets are a prefix / suffix of the sorted scores and move
    right as x grows, so 24 pointers per side sweep the board once: O(24 T) after the
    sort (a pointer stops at the first threshold no difference reaches, and tied scores
    reuse the previous result, so real boards cost far less). The predicates are the
    exact floating-point ones of the naive double loop (``x - s_u >= T``), so the two
    agree bit for bit on any input."""
    nk = thresholds.shape[0]
    n = hi - lo
    for k in range(nk):
        plus[k] = lo
        minus[k] = lo
    for i in range(lo, hi):
        x = s[i]
        if i > lo and x == s[i - 1]:  # a tie: same comparisons, same result
            out[i] = out[i - 1]
            continue
        total = 0
        for k in range(nk):
            t = thresholds[k]
            p = plus[k]
            while p < hi and x - s[p] >= t:
                p += 1
            plus[k] = p
            if p == lo:
                # no difference reaches T_k, so none reaches a higher one; the
                # pointers left behind are caught up by their while loops later
                break
            total += p - lo
        for k in range(nk):
            t = thresholds[k]
            q = minus[k]
            while q < hi and s[q] - x < t:
                q += 1
            minus[k] = q
            if q == hi:
                break
            total -= hi - q
        out[i] = total / (n - 1)


@kernel
def _cross_imps_kernel(offsets, s, art, art_imps, thresholds, steps, ns, ew, n_real):
    """Average cross-IMPs of every real result (``art[i] == 0``; ``art`` empty: all
    real) into ``ns`` and their negation into ``ew``; NaN on a board with fewer than two
    real results; an artificial row gets ``art_imps[art[i]]``. ``n_real`` gets each
    board's real count. Returns -1, or the first row with a non-finite real score (the
    outputs are then incomplete).

    Histogram path: with ``cum`` the running count of the board's buckets and ``steps``
    the thresholds in buckets (T_k / 10), a score in bucket j gets ``sum_k cum[j - t_k] -
    (n - cum[j + t_k - 1])``, once per occupied bucket: O(T + span + 48 distinct). For
    multiples of 10, ``x - s_u >= T_k`` holds exactly when ``q_x - q_u >= T_k / 10``, so
    the integer sums, hence the averages, are those of the sorted sweep and of the naive
    double loop bit for bit. Other boards: :func:`_sweep_sorted` on a sorted copy."""
    has_art = art.shape[0] > 0
    nk = thresholds.shape[0]
    plus = np.empty(nk, dtype=np.int64)
    minus = np.empty(nk, dtype=np.int64)
    res = np.empty(_MAX_SPAN, dtype=np.float64)
    cum, qb, buf, big = _scratch(offsets)
    sres = np.empty(big, dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        lo, hi, n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, offsets, b, qb)
        if bad >= 0:
            return bad
        n_real[b] = n
        if has_art:
            _write_artificial(art, art_imps, lo, hi, ns, ew)
        if n < 2:
            _write_real(art, has_art, lo, hi, np.nan, ns, ew)
            continue
        span = qmax - qmin + 1
        if tens and span <= _MAX_SPAN:
            _cumulative(cum, qb, art, has_art, lo, hi, qmin, span)
            last = span - 1
            below = 0
            for j in range(span):
                if cum[j] == below:  # no score in this bucket
                    continue
                below = cum[j]
                total = 0
                for k in range(nk):
                    idx = j - steps[k]
                    if idx < 0:
                        break
                    total += cum[idx]
                for k in range(nk):
                    idx = j + steps[k] - 1
                    if idx >= last:
                        break
                    total -= n - cum[idx]
                res[j] = total / (n - 1)
            for i in range(lo, hi):
                if not has_art or art[i] == 0:
                    v = res[qb[i - lo] - qmin]
                    ns[i] = v
                    ew[i] = -v
        else:
            vals = _sorted_real(s, art, has_art, lo, hi, buf)
            _sweep_sorted(vals, 0, n, thresholds, plus, minus, sres)
            for i in range(lo, hi):
                if not has_art or art[i] == 0:
                    v = sres[np.searchsorted(vals, s[i])]
                    ns[i] = v
                    ew[i] = -v
    return -1


@kernel
def _round_datum(m):
    """Round to a multiple of 10, halves away from zero."""
    a = m if m >= 0 else -m
    r = math.floor(a / 10.0 + 0.5) * 10.0
    return r if m >= 0 else -r


@kernel
def _butler_kernel(offsets, s, art, art_imps, drops, median, thresholds, ns, ew,
                   datum):
    """Butler IMPs of every real result against its board's datum (``ew = -ns``;
    artificial rows get ``art_imps``; fewer than two real results: NaN and a NaN datum).
    The datum is the mean of the sorted real scores without ``drops[b]`` from each end
    (summed from the lowest up) or their median, rounded by :func:`_round_datum`.
    Returns -1 or the first row with a non-finite real score.

    Histogram path: the trimmed sum adds each bucket's score times the number of its
    results inside the kept ranks, the median reads the middle ranks off the running
    counts. Partial sums of multiples of 10 are exact integers, so the sum equals the
    sorted one-by-one sum bit for bit. Other boards: a sorted copy, summed in order."""
    has_art = art.shape[0] > 0
    res = np.empty(_MAX_SPAN, dtype=np.float64)
    cum, qb, buf, big = _scratch(offsets)
    for b in range(offsets.shape[0] - 1):
        lo, hi, n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, offsets, b, qb)
        if bad >= 0:
            return bad
        if has_art:
            _write_artificial(art, art_imps, lo, hi, ns, ew)
        if n < 2:
            datum[b] = np.nan
            _write_real(art, has_art, lo, hi, np.nan, ns, ew)
            continue
        span = qmax - qmin + 1
        mid = n // 2
        hist = tens and span <= _MAX_SPAN
        if hist:
            _cumulative(cum, qb, art, has_art, lo, hi, qmin, span)
            if median:
                m = _bucket_value(cum, span, mid, qmin)
                if n % 2 == 0:
                    m = 0.5 * (_bucket_value(cum, span, mid - 1, qmin) + m)
            else:
                d = drops[b]
                acc = 0.0
                prev = 0
                for j in range(span):
                    c = cum[j]
                    k = min(c, n - d) - max(prev, d)
                    if k > 0:
                        acc += k * ((qmin + j) * 10.0)
                    prev = c
                m = acc / (n - 2 * d)
        else:
            vals = _sorted_real(s, art, has_art, lo, hi, buf)
            if median:
                m = vals[mid] if n % 2 == 1 else 0.5 * (vals[mid - 1] + vals[mid])
            else:
                d = drops[b]
                acc = 0.0
                for i in range(d, n - d):
                    acc += vals[i]
                m = acc / (n - 2 * d)
        dt = _round_datum(m)
        datum[b] = dt
        if hist:  # once per occupied bucket (its score is exactly (qmin + j) * 10)
            below = 0
            for j in range(span):
                if cum[j] != below:
                    below = cum[j]
                    res[j] = imp_of((qmin + j) * 10.0 - dt, thresholds)
        for i in range(lo, hi):
            if not has_art or art[i] == 0:
                v = res[qb[i - lo] - qmin] if hist else imp_of(s[i] - dt, thresholds)
                ns[i] = v
                ew[i] = -v
    return -1


@kernel
def _matchpoints_kernel(offsets, s, art, art_percent, big_n, half, ns, ew, ns_pct, ew_pct,
                        n_real):
    """Matchpoints of every row: a real result gets 2 per real score beaten and 1 per
    tie (own excluded), Neuberg-factored from the board's n real results to ``big_n[b]``
    when they differ; an artificial one ``art_percent`` % of the top ``2 (N - 1)``. With
    ``half`` (1/0.5/0) everything is halved. Percentages of the top; EW gets top - NS; a
    board without a top (N = 1) gets NaN. Returns -1 or the first non-finite real row.

    Histogram path: ``2 * (results in lower buckets) + (results in the bucket - 1)``
    (equal multiples of 10 share a bucket, different ones do not)."""
    has_art = art.shape[0] > 0
    cum, qb, buf, big = _scratch(offsets)
    smp = np.empty(big, dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        lo, hi, n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, offsets, b, qb)
        if bad >= 0:
            return bad
        n_real[b] = n
        big_b = big_n[b]
        top2 = 2.0 * (big_b - 1.0)
        top = top2 / 2.0 if half else top2
        span = qmax - qmin + 1
        hist = n > 0 and tens and span <= _MAX_SPAN
        vals = buf[:0]
        if hist:
            _cumulative(cum, qb, art, has_art, lo, hi, qmin, span)
        elif n > 0:
            vals = _sorted_real(s, art, has_art, lo, hi, buf)
            i = 0
            while i < n:
                j = i + 1
                while j < n and vals[j] == vals[i]:
                    j += 1
                for m in range(i, j):
                    smp[m] = 2.0 * i + (j - i - 1)
                i = j
        for i in range(lo, hi):
            if has_art and art[i] != 0:
                v = art_percent[art[i]] / 100.0 * top2
            else:
                if hist:
                    j = qb[i - lo] - qmin
                    below = cum[j - 1] if j > 0 else 0
                    v = 2.0 * below + (cum[j] - below - 1)
                else:
                    v = smp[np.searchsorted(vals, s[i])]
                if big_b != n:  # Neuberg, in 2/1/0 units
                    v = (v + 1.0) * big_b / max(float(n), 1.0) - 1.0
            if half:
                v = v / 2.0
            pct = 100.0 * v / top if top > 0 else np.nan
            if top <= 0:
                v = np.nan
            ns[i] = v
            ew[i] = top - v
            ns_pct[i] = pct
            ew_pct[i] = np.nan if top <= 0 else 100.0 - pct
    return -1


@dataclass(frozen=True)
class BoardScores:
    """Per-table results of one scoring method (rows in the order of the input).

    ``ns``/``ew``: IMPs or matchpoints of each side; ``ns_percent``/``ew_percent``:
    percentages of the top (matchpoints only); per board: ``datum`` (Butler),
    ``top`` (matchpoints), ``n_real`` (real results compared) and ``no_comparison``
    (fewer than two real results: its real tables got NaN)."""

    method: str
    ns: np.ndarray
    ew: np.ndarray
    n_real: np.ndarray
    no_comparison: np.ndarray
    ns_percent: np.ndarray | None = None
    ew_percent: np.ndarray | None = None
    datum: np.ndarray | None = None
    top: np.ndarray | None = None

    @property
    def n_no_comparison(self) -> int:
        """Number of boards with fewer than two real results."""
        return int(self.no_comparison.sum())


def butler_drop_count(n: Any, drop: str | int = "none") -> np.ndarray:
    """Results dropped from EACH end of a board with ``n`` real results:
    ``none`` 0; ``one`` 1; ``sqrtish`` ceil((n-10)/15)+1; ``tenth`` ceil(n/10);
    ``quarter`` floor(n/4) (interquartile mean); an int: that many. Nothing is dropped
    from boards with 3 or fewer results, and never more than (n - 1) // 2."""
    n = np.asarray(n, dtype=np.int64)
    if isinstance(drop, (int, np.integer)) and not isinstance(drop, bool):
        if drop < 0:
            raise ConfigError(f"'drop' of butler_imps must be one of {', '.join(DROPS)} or "
                              f"an integer >= 0; got {drop!r}")
        d = np.full(n.shape, int(drop), dtype=np.int64)
    else:
        check_choice("butler_imps", "drop", drop, DROPS)
        if drop == "none":
            d = np.zeros(n.shape, dtype=np.int64)
        elif drop == "one":
            d = np.ones(n.shape, dtype=np.int64)
        elif drop == "sqrtish":
            d = -((10 - n) // 15) + 1  # ceil((n - 10) / 15) + 1 in integers
        elif drop == "tenth":
            d = -((-n) // 10)
        else:
            d = n // 4
    d = np.where(n <= 3, 0, np.clip(d, 0, np.maximum((n - 1) // 2, 0)))
    return d.astype(np.int64)


def real_counts(off: np.ndarray, art: np.ndarray | None) -> np.ndarray:
    """Real results per board."""
    counts = np.diff(off)
    if art is None:
        return counts
    return np.bincount(group_of(off)[art == 0], minlength=off.shape[0] - 1).astype(np.int64)


def check_method(method: str) -> str:
    """Validate a scoring method name."""
    return check_choice("score", "method", method, METHODS)


# ----------------------------------------------------------------------------------
# scoring validated arrays


def _check_finite(bad: int, ns_score: np.ndarray) -> None:
    """A kernel's first non-finite real row (or -1): raise naming it."""
    if bad >= 0:
        raise fail_at("ns_score", "must be a finite number for a real result (mark "
                      "averages with 'artificial')", ns_score, bad)


def cross_imps_scores(offsets: np.ndarray, ns_score: np.ndarray,
                      artificial: np.ndarray | None) -> BoardScores:
    """Average cross-IMPs of validated CSR arrays (see
    :func:`fastrate.bridge.scoring.cross_imps`)."""
    n = ns_score.shape[0]
    ns = np.empty(n, dtype=np.float64)
    ew = np.empty(n, dtype=np.float64)
    counts = np.empty(offsets.shape[0] - 1, dtype=np.int64)
    _check_finite(_cross_imps_kernel(offsets, ns_score, _art(artificial), ARTIFICIAL_IMPS,
                                     IMP_THRESHOLDS, IMP_STEPS, ns, ew, counts), ns_score)
    return BoardScores("cross-imps", ns, ew, counts, counts < 2)


def butler_scores(offsets: np.ndarray, ns_score: np.ndarray, artificial: np.ndarray | None,
                  drop: str | int = "none", datum: str = "mean") -> BoardScores:
    """Butler IMPs of validated CSR arrays (see
    :func:`fastrate.bridge.scoring.butler_imps`)."""
    check_choice("butler_imps", "datum", datum, DATUMS)
    counts = real_counts(offsets, artificial)
    drops = require(butler_drop_count(counts, drop), np.int64)  # checks 'drop'
    n = ns_score.shape[0]
    ns = np.empty(n, dtype=np.float64)
    ew = np.empty(n, dtype=np.float64)
    dt = np.empty(counts.shape[0], dtype=np.float64)
    _check_finite(_butler_kernel(offsets, ns_score, _art(artificial), ARTIFICIAL_IMPS, drops,
                                 datum == "median", IMP_THRESHOLDS, ns, ew, dt), ns_score)
    return BoardScores("butler", ns, ew, counts, counts < 2, datum=dt)


def matchpoint_scores(offsets: np.ndarray, ns_score: np.ndarray,
                      artificial: np.ndarray | None, style: str = "2/1/0",
                      n_expected: Any = None) -> BoardScores:
    """Matchpoints of validated CSR arrays (see
    :func:`fastrate.bridge.scoring.matchpoints`)."""
    check_choice("matchpoints", "style", style, MP_STYLES)
    n_boards = offsets.shape[0] - 1
    total = np.diff(offsets)
    if n_expected is None:
        big_n = total.astype(np.float64)
    else:
        big_n = np.broadcast_to(np.asarray(n_expected, dtype=np.float64), (n_boards,)).copy()
        bad = ~np.isfinite(big_n) | (big_n < total) | (big_n != np.round(big_n))
        if bad.any():
            i = int(np.argmax(bad))
            raise InputError(f"'n_expected' must be a whole number at least the number of "
                             f"results of each board; found {big_n[i]!r} for board {i} with "
                             f"{int(total[i])} results")
    ns, ew, ns_pct, ew_pct = (np.empty(ns_score.shape[0], dtype=np.float64) for _ in range(4))
    counts = np.empty(n_boards, dtype=np.int64)
    half = style == "1/0.5/0"
    _check_finite(_matchpoints_kernel(offsets, ns_score, _art(artificial), ARTIFICIAL_PERCENT,
                                      big_n, half, ns, ew, ns_pct, ew_pct, counts), ns_score)
    top = 2.0 * (big_n - 1.0)
    if half:
        top = top / 2.0
    return BoardScores("matchpoints", ns, ew, counts, (counts < 2) | (top <= 0),
                       ns_percent=ns_pct, ew_percent=ew_pct, top=top)


def score_boards(offsets: np.ndarray, ns_score: np.ndarray, artificial: np.ndarray | None,
                 method: str = "cross-imps", *, drop: str | int = "none",
                 datum: str = "mean", style: str = "2/1/0") -> BoardScores:
    """Score validated CSR arrays with ``method`` (``cross-imps``, ``butler``,
    ``matchpoints``); rows in the order given."""
    check_method(method)
    if method == "cross-imps":
        return cross_imps_scores(offsets, ns_score, artificial)
    if method == "butler":
        return butler_scores(offsets, ns_score, artificial, drop=drop, datum=datum)
    return matchpoint_scores(offsets, ns_score, artificial, style=style)


def _art(artificial: np.ndarray | None) -> np.ndarray:
    """The kernels' form of the artificial codes: empty when every result is real."""
    return _NO_ART if artificial is None or not artificial.any() else artificial
