"""Comparing the results of one board: IMPs, cross-IMPs, Butler, matchpoints, Neuberg
(SPEC §3.1-3.2).

Results are a struct of arrays grouped by board (CSR): ``board_offsets`` (int64, length
``n_boards + 1``, ``offsets[0] == 0``, nondecreasing) indexes a float64 array of North-South
scores, so board ``b`` is ``ns_scores[offsets[b]:offsets[b + 1]]``. :func:`group_by_board`
builds that layout from a board-id column (a stable sort) and puts results back in the
input order. All scores are NS points; East-West gets the negation (IMPs) or
``top - NS`` (matchpoints).

Decisions (documented in docs/bridge.md):

* Differences that are not multiples of 10 (averaged scores) are IMPed with the same
  thresholds, "at least the bound": 19.9 -> 0, 20 -> 1.
* A board with fewer than two real results has no comparison: its tables get NaN and the
  board is flagged in ``no_comparison``; nothing is invented.
* Artificial scores (``artificial`` codes 0 real, 1 average-plus, 2 average,
  3 average-minus, from North-South's side; East-West gets the mirror) are removed from
  the comparisons. At matchpoints they get 60 / 50 / 40 % of the top and the real results
  are Neuberg-factored to the number of tables on the board (the "or the pair's session
  percentage if higher/lower" clause is a session-level rule and is not applied per
  board); at IMPs they get +3 / 0 / -3.
* Butler drops nothing from boards with 3 or fewer real results and never more than
  ``(n - 1) // 2`` from each end.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import as_1d, as_float64, check_choice, fail_at, require
from fastrate.errors import ConfigError, InputError

__all__ = ["IMP_THRESHOLDS", "imps", "BoardGroups", "group_by_board", "BoardScores",
           "cross_imps", "cross_imps_naive", "butler_imps", "butler_drop_count",
           "matchpoints", "neuberg", "pair_totals", "score_results", "round_datum",
           "METHODS", "DROPS", "MP_STYLES"]

#: lower bounds of the point difference for 1, 2, ..., 24 IMPs (WBF scale, Law 78B)
IMP_THRESHOLDS = np.array([20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750,
                           900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000],
                          dtype=np.float64)
_T = IMP_THRESHOLDS
#: the thresholds in buckets of 10 points
_STEPS = (IMP_THRESHOLDS // 10).astype(np.int64)
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
def _scan_board(s, art, has_art, lo, hi, qb):
    """(n real, all multiples of 10, min bucket, max bucket, first non-finite row or -1)
    of the board ``lo:hi``; ``qb[i - lo]`` gets each real row's bucket ``x / 10``."""
    n = 0
    tens = True
    qmin = np.int64(0)
    qmax = np.int64(0)
    for i in range(lo, hi):
        if has_art and art[i] != 0:
            continue
        x = s[i]
        if not math.isfinite(x):
            return n, tens, qmin, qmax, i
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
    return n, tens, qmin, qmax, -1


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
def _imps_of(diff, thresholds):
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
    cum = np.zeros(_MAX_SPAN, dtype=np.int64)
    res = np.empty(_MAX_SPAN, dtype=np.float64)
    big = 0
    for b in range(offsets.shape[0] - 1):
        big = max(big, offsets[b + 1] - offsets[b])
    qb = np.empty(big, dtype=np.int64)
    buf = np.empty(big, dtype=np.float64)
    sres = np.empty(big, dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        lo = offsets[b]
        hi = offsets[b + 1]
        n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, lo, hi, qb)
        if bad >= 0:
            return bad
        n_real[b] = n
        if has_art:
            for i in range(lo, hi):
                if art[i] != 0:
                    v = art_imps[art[i]]
                    ns[i] = v
                    ew[i] = -v
        if n < 2:
            for i in range(lo, hi):
                if not has_art or art[i] == 0:
                    v = np.nan
                    ns[i] = v
                    ew[i] = -v
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
def _cross_imps_naive_kernel(offsets, s, thresholds, out):
    """The O(T^2) double loop: mean over u != t of IMP(s_t - s_u)."""
    nk = thresholds.shape[0]
    for b in range(offsets.shape[0] - 1):
        lo = offsets[b]
        hi = offsets[b + 1]
        n = hi - lo
        for i in range(lo, hi):
            if n < 2:
                out[i] = np.nan
                continue
            total = 0
            for j in range(lo, hi):
                if j == i:
                    continue
                d = s[i] - s[j]
                a = d if d >= 0 else -d
                k = 0
                while k < nk and a >= thresholds[k]:
                    k += 1
                total += k if d >= 0 else -k
            out[i] = total / (n - 1)


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
    cum = np.zeros(_MAX_SPAN, dtype=np.int64)
    res = np.empty(_MAX_SPAN, dtype=np.float64)
    big = 0
    for b in range(offsets.shape[0] - 1):
        big = max(big, offsets[b + 1] - offsets[b])
    qb = np.empty(big, dtype=np.int64)
    buf = np.empty(big, dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        lo = offsets[b]
        hi = offsets[b + 1]
        n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, lo, hi, qb)
        if bad >= 0:
            return bad
        if has_art:
            for i in range(lo, hi):
                if art[i] != 0:
                    v = art_imps[art[i]]
                    ns[i] = v
                    ew[i] = -v
        if n < 2:
            datum[b] = np.nan
            for i in range(lo, hi):
                if not has_art or art[i] == 0:
                    v = np.nan
                    ns[i] = v
                    ew[i] = -v
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
                    res[j] = _imps_of((qmin + j) * 10.0 - dt, thresholds)
        for i in range(lo, hi):
            if not has_art or art[i] == 0:
                v = res[qb[i - lo] - qmin] if hist else _imps_of(s[i] - dt, thresholds)
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
    cum = np.zeros(_MAX_SPAN, dtype=np.int64)
    big = 0
    for b in range(offsets.shape[0] - 1):
        big = max(big, offsets[b + 1] - offsets[b])
    qb = np.empty(big, dtype=np.int64)
    buf = np.empty(big, dtype=np.float64)
    smp = np.empty(big, dtype=np.float64)
    for b in range(offsets.shape[0] - 1):
        lo = offsets[b]
        hi = offsets[b + 1]
        n, tens, qmin, qmax, bad = _scan_board(s, art, has_art, lo, hi, qb)
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


# ----------------------------------------------------------------------------------
# IMP scale


def imps(diff: Any) -> Any:
    """IMPs of a point difference (WBF scale): the number of thresholds ``t`` of
    :data:`IMP_THRESHOLDS` with ``|d| >= t``, signed like ``d``. Non-multiples of 10 use
    the same thresholds (19.9 -> 0). NaN stays NaN. A scalar gives a float.

    >>> imps([0, 10, 20, -2240, 3600, 50000]).tolist()
    [0.0, 0.0, 1.0, -19.0, 23.0, 24.0]
    """
    d = np.asarray(diff, dtype=np.float64)
    k = np.searchsorted(_T, np.abs(d), side="right").astype(np.float64)
    out = np.where(np.isnan(d), np.nan, np.where(d < 0, -k, k))
    return float(out) if out.ndim == 0 else out


def round_datum(x: Any) -> Any:
    """Round to a multiple of 10 with halves away from zero (345 -> 350, -345 -> -350,
    514.55 -> 510); never round-half-even."""
    x = np.asarray(x, dtype=np.float64)
    out = np.sign(x) * np.floor(np.abs(x) / 10.0 + 0.5) * 10.0
    out = out + 0.0  # no negative zero
    return float(out) if out.ndim == 0 else out


# ----------------------------------------------------------------------------------
# grouping


@dataclass(frozen=True)
class BoardGroups:
    """Results grouped by board: ``boards`` (the distinct ids, sorted), ``offsets``
    (CSR, int64), ``order`` (input row of each grouped row), ``ns_scores`` and
    ``artificial`` in grouped order."""

    boards: np.ndarray
    offsets: np.ndarray
    order: np.ndarray
    ns_scores: np.ndarray
    artificial: np.ndarray | None = None

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-row values in grouped order -> the same values in input-row order."""
        out = np.empty_like(values)
        out[self.order] = values
        return out

    def per_row(self, per_board: np.ndarray) -> np.ndarray:
        """A per-board array spread to every input row."""
        counts = np.diff(self.offsets)
        return self.to_input_order(np.repeat(per_board, counts))


def group_by_board(board_ids: Any, scores: Any, artificial: Any = None) -> BoardGroups:
    """Stably sort results by board id and build the CSR ``offsets``.

    ``scores`` are NS points (NaN allowed only where ``artificial`` is non-zero)."""
    ids = as_1d(board_ids, "board")
    if ids.dtype == object:
        try:
            ids = ids.astype(str)
        except (TypeError, ValueError):
            raise InputError("column 'board' must hold board numbers or names") from None
    art = None if artificial is None else _artificial(artificial, ids.shape[0])
    sc = _scores(scores, ids.shape[0], art)
    order = np.argsort(ids, kind="stable")
    boards, counts = np.unique(ids[order], return_counts=True)
    offsets = np.zeros(boards.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return BoardGroups(boards, offsets, require(order, np.int64), require(sc[order],
                       np.float64), None if art is None else require(art[order], np.int64))


# ----------------------------------------------------------------------------------
# validation


def _artificial(artificial: Any, n: int) -> np.ndarray:
    arr = as_1d(artificial, "artificial")
    if arr.shape[0] != n:
        raise InputError(f"column 'artificial' must have one value per result ({n}); got "
                         f"{arr.shape[0]}")
    if arr.dtype.kind == "b":
        arr = arr.astype(np.int64) * 2  # True = average
    if arr.dtype.kind not in "iuf":
        raise InputError(f"column 'artificial' must hold codes 0 (real), 1 (A+), 2 (A), "
                         f"3 (A-); got dtype {arr.dtype}")
    bad = ~np.isin(arr, (0, 1, 2, 3))
    if bad.any():
        raise fail_at("artificial", "must be 0 (real), 1 (A+), 2 (A) or 3 (A-)", arr,
                      int(np.argmax(bad)))
    return require(arr, np.int64)


def _scores(scores: Any, n: int | None, art: np.ndarray | None) -> np.ndarray:
    sc = as_float64(scores, "ns_score", allow_nan=True)
    if n is not None and sc.shape[0] != n:
        raise InputError(f"column 'ns_score' must have one value per result ({n}); got "
                         f"{sc.shape[0]}")
    bad = ~np.isfinite(sc)
    if art is not None:
        bad &= art == 0
    if bad.any():
        raise fail_at("ns_score", "must be a finite number for a real result (mark "
                      "averages with 'artificial')", sc, int(np.argmax(bad)))
    return sc


def _offsets(board_offsets: Any, n: int) -> np.ndarray:
    off = as_1d(board_offsets, "board_offsets")
    if off.dtype.kind not in "iu":
        raise InputError(f"'board_offsets' must be an integer array; got dtype {off.dtype}")
    off = require(off, np.int64)
    if off.shape[0] < 1 or off[0] != 0 or off[-1] != n:
        raise InputError(f"'board_offsets' must start at 0 and end at the number of results "
                         f"({n}); got {off[:1].tolist()}..{off[-1:].tolist()}")
    if (np.diff(off) < 0).any():
        i = int(np.argmax(np.diff(off) < 0))
        raise InputError(f"'board_offsets' must be nondecreasing; offset {i + 1} "
                         f"({off[i + 1]}) is below offset {i} ({off[i]})")
    return off


def _prepare(board_offsets: Any, ns_scores: Any, artificial: Any):
    """Validated (offsets, scores, artificial or None)."""
    art0 = None
    if artificial is not None:
        art0 = _artificial(artificial, as_1d(ns_scores, "ns_score").shape[0])
    sc = _scores(ns_scores, None, art0)
    off = _offsets(board_offsets, sc.shape[0])
    if art0 is not None and not art0.any():
        art0 = None
    return off, sc, art0


def _checked(board_offsets: Any, ns_scores: Any, artificial: Any):
    """(offsets, float64 scores, artificial codes or None) with the structure checked;
    the finiteness of real scores is checked by the kernels (:func:`_raise_bad`)."""
    art = None
    if artificial is not None:
        art = _artificial(artificial, as_1d(ns_scores, "ns_score").shape[0])
    sc = as_float64(ns_scores, "ns_score", allow_nan=True)
    off = _offsets(board_offsets, sc.shape[0])
    if art is not None and not art.any():
        art = None
    return off, sc, art


def _raise_bad(bad: int, sc: np.ndarray, art: np.ndarray | None) -> None:
    """A kernel's first non-finite real row (or -1): raise naming it."""
    if bad >= 0:
        _scores(sc, None, art)


def _real_counts(off: np.ndarray, art: np.ndarray | None) -> np.ndarray:
    """Real results per board."""
    counts = np.diff(off)
    if art is None:
        return counts
    board = np.repeat(np.arange(off.shape[0] - 1, dtype=np.int64), counts)
    return np.bincount(board[art == 0], minlength=off.shape[0] - 1).astype(np.int64)


# ----------------------------------------------------------------------------------
# results


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


def cross_imps(board_offsets: Any, ns_scores: Any, artificial: Any = None) -> BoardScores:
    """Average cross-IMPs: each table gets the mean over every other (real) table ``u``
    of ``IMP(s_t - s_u)`` (divisor n - 1), in O(T + span) per board for contract
    scores (multiples of 10) and O(T log T) for any others.

    Thesis §3.2.2: NS -100, 600, -50, 620, -100 -> table 2 gets (12+12-1+12)/4 = 8.75.
    """
    off, sc, art = _checked(board_offsets, ns_scores, artificial)
    ns = np.empty(sc.shape[0], dtype=np.float64)
    ew = np.empty(sc.shape[0], dtype=np.float64)
    counts = np.empty(off.shape[0] - 1, dtype=np.int64)
    _raise_bad(_cross_imps_kernel(off, sc, _NO_ART if art is None else art, ARTIFICIAL_IMPS,
                                  _T, _STEPS, ns, ew, counts), sc, art)
    return BoardScores("cross-imps", ns, ew, counts, counts < 2)


def cross_imps_naive(board_offsets: Any, ns_scores: Any) -> np.ndarray:
    """The O(T^2) double loop of average cross-IMPs (for tests and benchmarks);
    NaN for a board with one result."""
    off, sc, _ = _prepare(board_offsets, ns_scores, None)
    out = np.empty(sc.shape[0], dtype=np.float64)
    _cross_imps_naive_kernel(off, sc, _T, out)
    return out


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


def butler_imps(board_offsets: Any, ns_scores: Any, drop: str | int = "none",
                datum: str = "mean", artificial: Any = None) -> BoardScores:
    """Butler IMPs: each table gets ``IMP(s_t - datum)``; the datum is the mean of the
    board's real NS scores after dropping :func:`butler_drop_count` results from each
    end (or their median with ``datum="median"``), rounded to a multiple of 10 with
    halves away from zero. ``BoardScores.datum`` holds each board's datum."""
    check_choice("butler_imps", "datum", datum, DATUMS)
    butler_drop_count(np.zeros(1, dtype=np.int64), drop)  # validate 'drop' first
    off, sc, art = _checked(board_offsets, ns_scores, artificial)
    counts = _real_counts(off, art)
    drops = require(butler_drop_count(counts, drop), np.int64)
    ns = np.empty(sc.shape[0], dtype=np.float64)
    ew = np.empty(sc.shape[0], dtype=np.float64)
    dt = np.empty(counts.shape[0], dtype=np.float64)
    _raise_bad(_butler_kernel(off, sc, _NO_ART if art is None else art, ARTIFICIAL_IMPS,
                              drops, datum == "median", _T, ns, ew, dt), sc, art)
    return BoardScores("butler", ns, ew, counts, counts < 2, datum=dt)


def neuberg(score: Any, n_results: Any, n_expected: Any, style: str = "2/1/0") -> Any:
    """Neuberg's formula: a matchpoint score ``S`` earned against ``n_results`` results
    (own included) scaled to ``n_expected``: ``S' = (S + 1) N/n - 1`` in 2/1/0 units,
    ``M' = (S + 1/2) N/n - 1/2`` in 1/0.5/0 units."""
    check_choice("neuberg", "style", style, MP_STYLES)
    s = np.asarray(score, dtype=np.float64)
    n = np.asarray(n_results, dtype=np.float64)
    big_n = np.asarray(n_expected, dtype=np.float64)
    if (n < 1).any() or (big_n < 1).any():
        raise InputError("neuberg needs n_results >= 1 and n_expected >= 1; got "
                         f"n_results={n_results!r}, n_expected={n_expected!r}")
    c = 1.0 if style == "2/1/0" else 0.5
    out = (s + c) * big_n / n - c
    return float(out) if out.ndim == 0 else out


def matchpoints(board_offsets: Any, ns_scores: Any, style: str = "2/1/0",
                artificial: Any = None, n_expected: Any = None) -> BoardScores:
    """Matchpoints: 2 per score beaten and 1 per tie (own score excluded), top
    ``2(N - 1)``, or with ``style="1/0.5/0"`` 1 and 1/2, top ``N - 1``; East-West gets
    ``top - NS``; percentages of the top.

    ``N`` is ``n_expected`` (a number or one per board; default: the number of results
    on the board, artificial ones included). Real results are compared among themselves
    and Neuberg-factored from their number ``n`` to ``N``; artificial results get
    60 / 50 / 40 % of the top. A board with ``N = 1`` has no top: NaN."""
    check_choice("matchpoints", "style", style, MP_STYLES)
    off, sc, art = _checked(board_offsets, ns_scores, artificial)
    n_boards = off.shape[0] - 1
    total = np.diff(off)
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
    ns, ew, ns_pct, ew_pct = (np.empty(sc.shape[0], dtype=np.float64) for _ in range(4))
    counts = np.empty(n_boards, dtype=np.int64)
    _raise_bad(_matchpoints_kernel(off, sc, _NO_ART if art is None else art,
                                   ARTIFICIAL_PERCENT, big_n, style == "1/0.5/0", ns, ew,
                                   ns_pct, ew_pct, counts), sc, art)
    top = 2.0 * (big_n - 1.0)
    if style == "1/0.5/0":
        top = top / 2.0
    return BoardScores("matchpoints", ns, ew, counts, (counts < 2) | (top <= 0),
                       ns_percent=ns_pct, ew_percent=ew_pct, top=top)


# ----------------------------------------------------------------------------------
# totals and the one-call entry point


def pair_totals(pair_ids: Any, values: Any) -> dict[str, np.ndarray]:
    """Sum per pair: ``{"pair", "total", "boards", "mean"}`` over the non-NaN values
    (``boards`` counts them); pairs sorted by id."""
    ids = as_1d(pair_ids, "pair")
    v = as_float64(values, "value", allow_nan=True)
    if v.shape[0] != ids.shape[0]:
        raise InputError(f"column 'value' must have one value per pair id ({ids.shape[0]}); "
                         f"got {v.shape[0]}")
    if ids.dtype == object:
        ids = ids.astype(str)
    pairs, inv = np.unique(ids, return_inverse=True)
    ok = ~np.isnan(v)
    total = np.bincount(inv[ok], weights=v[ok], minlength=pairs.shape[0])
    boards = np.bincount(inv[ok], minlength=pairs.shape[0]).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(boards > 0, total / np.maximum(boards, 1), np.nan)
    return {"pair": pairs, "total": total, "boards": boards, "mean": mean}


def check_method(method: str) -> str:
    """Validate a scoring method name."""
    return check_choice("score", "method", method, METHODS)


def score_results(board_ids: Any, ns_scores: Any, method: str = "cross-imps", *,
                  artificial: Any = None, drop: str | int = "none", datum: str = "mean",
                  style: str = "2/1/0") -> tuple[BoardGroups, BoardScores]:
    """Group rows by board and score them with ``method`` (``cross-imps``, ``butler``
    or ``matchpoints``); the returned per-table arrays are in input-row order (use
    ``groups.per_row`` for per-board values)."""
    check_choice("score_results", "method", method, METHODS)
    g = group_by_board(board_ids, ns_scores, artificial)
    if method == "cross-imps":
        r = cross_imps(g.offsets, g.ns_scores, g.artificial)
    elif method == "butler":
        r = butler_imps(g.offsets, g.ns_scores, drop=drop, datum=datum,
                        artificial=g.artificial)
    else:
        r = matchpoints(g.offsets, g.ns_scores, style=style, artificial=g.artificial)
    back = g.to_input_order
    r = BoardScores(r.method, back(r.ns), back(r.ew), r.n_real, r.no_comparison,
                    None if r.ns_percent is None else back(r.ns_percent),
                    None if r.ew_percent is None else back(r.ew_percent), r.datum, r.top)
    return g, r
