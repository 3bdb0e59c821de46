"""Skill statistics for placement games (KDice essay by skrumgaer; SPEC §4).

A player's *profile* is the count of his 1st, 2nd, ..., k-th places (k = 7 at KDice;
everything here works for any k >= 2). All functions take the profiles of every player
at once as a ``(n_players, k)`` matrix of counts (one row per player; a 1-D array of
length k is one player and gives scalars back). Counts are non-negative integers, or
non-negative floats (e.g. from :func:`counts_from_percentages`).

Kernel layout: the public functions hand the kernels the C-contiguous counts matrix
*flattened* to 1-D together with ``k`` (row ``i`` is ``counts[i*k:(i+1)*k]``), so every
kernel takes 1-D arrays as the house style asks; the reshape costs nothing.

* :func:`chi_square` -- Pearson's chi-square of the counts against a reference profile
  (uniform by default): ``sum((O - E)^2 / E)`` with ``E = n * ref``. With ``yates=True``
  each cell is ``(|O - E| - 0.5)^2 / E`` and a difference under 0.5 counts 0 (the
  essay's use of Yates' correction; the essay applies it when an expected count is
  below 5, which ``yates="auto"`` does per player; statistics texts apply Yates only to
  1-degree-of-freedom tests).
* :func:`tapl` -- test against pure luck, ``chi2 / sqrt(n) * 1000``; :func:`tazd` and
  :func:`takbe` are the same against the zero-score and known-bad profiles
  (:data:`TAZD_PROFILE`, :data:`TAKBE_PROFILE`).
* :func:`p_value` -- upper tail of chi-square with ``df`` degrees of freedom (k - 1),
  the regularised upper incomplete gamma ``Q(df/2, x/2)``: closed-form finite sums for
  whole df <= 200, else Numerical Recipes' gammq (series / continued fraction);
  :func:`effect_size` -- Cohen's ``w = sqrt(chi2 / n)``.
* :func:`tazd_star` -- directional z-score of the mean place against a reference
  profile: ``sqrt(n) (mu_ref - mu_obs) / sigma_ref * 1000`` (SPEC §4 Decision).
* :func:`qooa` -- quality-of-opponent adjustment from the percentages of games played
  at table levels 0..5: ``p0/371 + p1/142 + p2/54 + p3/21 + p4/8 + p5/3``.
* :func:`convolution_integral` -- expected payoff per point of buy-in,
  ``sum(payoff_j * frac_j) / buy_in`` (default KDice payoffs 60, 42, 35, 0, -35, -42,
  -60 over a 60-point buy-in); :func:`guts_per_game` -- points per game / CI, capped at
  6000, NaN when CI <= 0; :func:`pprg` -- points / sqrt(games).
* :func:`standings` / :func:`standings_from_counts` -- baseball-style standings: the
  player placed k in a P-player game is ``(k - 1)/(P - 1)`` games behind the winner,
  plus half a game per game not played compared with the most active player; the
  result is games behind the leader.
* :func:`pga` -- pre-game affiliate detection from a seating log: the passive
  participation coefficient ``PPC = f sqrt(w n / (p e))`` of every ordered pair, its
  mirror APC and the Poisson p-value of the observed joins.
* :func:`placement_stats` -- all the per-player statistics in one sweep.

Reference profiles (:func:`reference_profile`) are normalised to sum to 1; a user
profile that was off by more than 1% (of 1, or of 100 for percentages) raises a
:class:`ProfileWarning`. The two published profiles sum to 95.3 (TAZD) and 98 (TAKBE);
they are normalised once here, silently (documented).

A player with zero games has NaN for every statistic (chi-square, TAPL, p-value,
effect size, TAZD*, CI, GPG, PPRG); nothing raises for it.

* :func:`taowr` / :func:`taolz` (:func:`own_reference_stats`) -- the test against the
  player's own profile at his lowest rating / at his last return to zero (essay §iv),
  from a placement log with times and points won: one Numba pass over the time-sorted
  log follows every player's running points total and snapshots his profile at the
  reference point (:func:`own_reference_profiles`); the statistic is the TAPL one, by
  the same chi-square kernel with a profile per player.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, NoReturn

import numba
import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._special import chi2_sf, gammp
from fastrate._validate import (
    NO_SOURCE,
    Source,
    as_1d,
    as_float64,
    check_choice,
    check_number,
    fail_at,
    require,
)
from fastrate.data import PlayerIndex, parse_time
from fastrate.errors import ConfigError, InputError, InputTypeError

__all__ = [
    "ProfileWarning", "TAZD_PROFILE", "TAKBE_PROFILE", "KDICE_PAYOFF", "KDICE_BUY_IN",
    "QOOA_DIVISORS", "GPG_CAP", "reference_profile", "profile_from_counts",
    "counts_from_percentages", "place_counts", "profiles_from_log", "chi_square", "tapl",
    "tazd", "takbe", "OWN_REFERENCES", "OWN_STATUS", "own_reference_profiles",
    "own_reference_stats", "taowr", "taolz",
    "p_value", "effect_size", "tazd_star", "qooa", "convolution_integral",
    "guts_per_game", "pprg", "standings", "standings_from_counts", "placement_stats",
    "pga",
]


class ProfileWarning(UserWarning):
    """A reference profile did not sum to 1 (or 100) within 1% and was normalised."""


#: the essay's zero-score profile (percent of 1st..7th places; sums to 95.3)
TAZD_PROFILE = (10.0, 10.0, 10.3, 12.9, 15.5, 17.2, 19.4)
#: the essay's known-bad profile (sums to 98)
TAKBE_PROFILE = (3.0, 3.0, 6.0, 20.0, 28.0, 21.0, 17.0)
#: KDice payoff of 1st..7th place at the 60-point (level 0) tables
KDICE_PAYOFF = (60.0, 42.0, 35.0, 0.0, -35.0, -42.0, -60.0)
KDICE_BUY_IN = 60.0
#: QOOA divisors of the percentages at table levels 0..5
QOOA_DIVISORS = (371.0, 142.0, 54.0, 21.0, 8.0, 3.0)
#: GPG cap (the essay's guard against a tiny CI)
GPG_CAP = 6000.0


# ----------------------------------------------------------------------------------
# kernels (counts flattened row-major; k places per player)


@inline_kernel
def _cell(d, use):
    """One chi-square numerator: d^2, or with Yates max(|d| - 0.5, 0)^2."""
    if use:
        d = abs(d) - 0.5
        if d < 0.0:
            d = 0.0
    return d * d


@kernel
def _chi2_kernel(counts, k, ref, ref_stride, yates, out_chi2, out_n):
    """Chi-square of each row against a reference profile (fractions summing to 1).

    ``ref_stride`` 0: one profile ``ref[0:k]`` for every row (all shares > 0, as
    :func:`reference_profile` guarantees); ``k``: row ``i`` has its own profile
    ``ref[i*k:(i+1)*k]`` (TAOWR/TAOLZ), whose shares may be 0: a place with expected
    count 0 adds nothing when its observed count is 0 too, and makes the row +inf
    otherwise. yates: 0 off, 1 on, 2 on for rows with a positive expected count below 5.
    A row with no games is NaN."""
    m = out_chi2.shape[0]
    for i in range(m):
        base = i * k
        rb = i * ref_stride
        n = 0.0
        for j in range(k):
            n += counts[base + j]
        out_n[i] = n
        if n <= 0.0:
            out_chi2[i] = np.nan
            continue
        use = yates == 1
        if yates == 2:
            for j in range(k):
                e = n * ref[rb + j]
                if 0.0 < e < 5.0:
                    use = True
                    break
        s = 0.0
        for j in range(k):
            e = n * ref[rb + j]
            c = counts[base + j]
            if e <= 0.0:
                if c > 0:
                    s = np.inf
                continue
            s += _cell(c - e, use) / e
        out_chi2[i] = s


@kernel
def _pvalue_kernel(chi2, df, out):
    for i in range(out.shape[0]):
        out[i] = chi2_sf(chi2[i], df[i])


@inline_kernel
def _row_sums(counts, base, k, weight):
    """A row's total count ``n`` and its weighted sum ``sum_j counts[base + j] weight[j]``."""
    n = 0.0
    s = 0.0
    for j in range(k):
        c = counts[base + j]
        n += c
        s += c * weight[j]
    return n, s


@kernel
def _tazd_star_kernel(counts, k, mu_ref, sigma_ref, out):
    place = np.arange(1.0, k + 1.0)
    for i in range(out.shape[0]):
        n, s = _row_sums(counts, i * k, k, place)
        if n <= 0.0:
            out[i] = np.nan
        else:
            out[i] = math.sqrt(n) * (mu_ref - s / n) / sigma_ref * 1000.0


@kernel
def _ci_kernel(counts, k, payoff, buy_in, out):
    for i in range(out.shape[0]):
        n, s = _row_sums(counts, i * k, k, payoff)
        out[i] = np.nan if n <= 0.0 else s / n / buy_in


@kernel
def _behind_kernel(counts, k, out_games, out_behind):
    """Games played and games behind the winner summed over a row (k-player games)."""
    behind = np.arange(0.0, float(k))
    for i in range(out_games.shape[0]):
        n, b = _row_sums(counts, i * k, k, behind)
        out_games[i] = n
        out_behind[i] = b / (k - 1)


@kernel
def _all_stats_kernel(counts, k, refs, inv_refs, yates, mu_s, sigma_s, payoff, buy_in, df,
                      games, chi2, pval, effect, test, tapl_, tazd_, takbe_, tstar, ci,
                      behind):
    """Every per-player count statistic in one sweep (see :func:`placement_stats`).

    refs/inv_refs: 4*k values, the main reference, uniform, TAZD, TAKBE profiles and
    their reciprocals. ``behind``: games behind the winners summed (k-player games).
    The four chi-squares share one pass over a row."""
    min_m = refs[0]
    min_u = refs[k]
    min_z = refs[2 * k]
    min_b = refs[3 * k]
    for j in range(k):
        min_m = min(min_m, refs[j])
        min_u = min(min_u, refs[k + j])
        min_z = min(min_z, refs[2 * k + j])
        min_b = min(min_b, refs[3 * k + j])
    inv_k1 = 1.0 / (k - 1)
    scale_ci = 1.0 / buy_in
    for i in range(games.shape[0]):
        base = i * k
        n = 0.0
        sp = 0.0
        sm = 0.0
        for j in range(k):
            c = counts[base + j]
            n += c
            sp += c * payoff[j]
            sm += c * j
        games[i] = n
        behind[i] = sm * inv_k1
        if n <= 0.0:
            chi2[i] = np.nan
            pval[i] = np.nan
            effect[i] = np.nan
            test[i] = np.nan
            tapl_[i] = np.nan
            tazd_[i] = np.nan
            takbe_[i] = np.nan
            tstar[i] = np.nan
            ci[i] = np.nan
            continue
        use_m = yates == 1 or (yates == 2 and n * min_m < 5.0)
        use_u = yates == 1 or (yates == 2 and n * min_u < 5.0)
        use_z = yates == 1 or (yates == 2 and n * min_z < 5.0)
        use_b = yates == 1 or (yates == 2 and n * min_b < 5.0)
        s_m = 0.0
        s_u = 0.0
        s_z = 0.0
        s_b = 0.0
        for j in range(k):
            c = float(counts[base + j])
            s_m += _cell(c - n * refs[j], use_m) * inv_refs[j]
            s_u += _cell(c - n * refs[k + j], use_u) * inv_refs[k + j]
            s_z += _cell(c - n * refs[2 * k + j], use_z) * inv_refs[2 * k + j]
            s_b += _cell(c - n * refs[3 * k + j], use_b) * inv_refs[3 * k + j]
        inv_n = 1.0 / n
        root = math.sqrt(n)
        scale = 1000.0 / (root * n)
        s = s_m * inv_n
        chi2[i] = s
        test[i] = s_m * scale
        effect[i] = math.sqrt(s * inv_n)
        pval[i] = chi2_sf(s, df)
        tapl_[i] = s_u * scale
        tazd_[i] = s_z * scale
        takbe_[i] = s_b * scale
        tstar[i] = root * (mu_s - 1.0 - sm * inv_n) / sigma_s * 1000.0
        ci[i] = sp * inv_n * scale_ci


@kernel
def _standings_kernel(games, behind, out):
    """Games behind the leader: behind + (max games - games)/2, minus its minimum."""
    m = games.shape[0]
    if m == 0:
        return
    gmax = games[0]
    for i in range(m):
        if games[i] > gmax:
            gmax = games[i]
    best = np.inf
    for i in range(m):
        t = behind[i] + 0.5 * (gmax - games[i])
        out[i] = t
        if t < best:
            best = t
    for i in range(m):
        out[i] -= best


@kernel
def _points_kernel(points, games, ci, cap, out_pprg, out_gpg):
    for i in range(points.shape[0]):
        g = games[i]
        if g > 0.0:
            out_pprg[i] = points[i] / math.sqrt(g)
            c = ci[i]
            if c > 0.0:
                v = points[i] / g / c
                out_gpg[i] = v if v < cap else cap
            else:
                out_gpg[i] = np.nan
        else:
            out_pprg[i] = np.nan
            out_gpg[i] = np.nan


@kernel
def _game_runs_kernel(g, starts):
    """The games of a log whose game keys never decrease (the usual seating log): runs of
    equal keys; ``starts`` gets the run starts and the end. Returns the number of games, or -1 at the first key below (or unordered with, e.g. NaN) the
    one before it (the caller then sorts)."""
    n = g.shape[0]
    n_games = 0
    for i in range(n):
        if i == 0 or g[i] != g[i - 1]:
            if i > 0 and not g[i] >= g[i - 1]:
                return -1
            starts[n_games] = i
            n_games += 1
    starts[n_games] = n
    return n_games


@kernel
def _game_codes_kernel(g, base, rank, codes):
    """Codes of integer game keys in sorted order of the keys, by a direct table (``rank``:
    one zeroed slot per value ``base .. base + len(rank) - 1``) instead of a sort.
    Returns the number of games."""
    for i in range(g.shape[0]):
        rank[g[i] - base] = 1
    n_games = 0
    for v in range(rank.shape[0]):
        if rank[v] != 0:
            rank[v] = n_games
            n_games += 1
    for i in range(g.shape[0]):
        codes[i] = rank[g[i] - base]
    return n_games


@inline_kernel
def _csr_offsets(keys, offsets):
    """Counting-sort offsets: ``offsets`` (groups + 1, zeroed) gets the start of every
    group of ``keys`` (0 .. groups-1) and the end; returns a copy of the starts, the
    fill cursors."""
    groups = offsets.shape[0] - 1
    for i in range(keys.shape[0]):
        offsets[keys[i] + 1] += 1
    for c in range(groups):
        offsets[c + 1] += offsets[c]
    return offsets[:groups].copy()


@kernel
def _group_rows_kernel(codes, seat, starts, order, seat_sorted):
    """Stable counting sort of the rows by game code (0 .. games-1, in sorted order of the
    game keys): ``order`` gets the rows game by game and ``seat_sorted`` their seats,
    ``starts`` (games + 1, zeroed) the start of every game's rows and the end."""
    fill = _csr_offsets(codes, starts)
    for i in range(codes.shape[0]):
        c = codes[i]
        t = fill[c]
        order[t] = i
        seat_sorted[t] = seat[i]
        fill[c] = t + 1


@kernel
def _seat_order_kernel(starts, seat, order):
    """Check (and, with an ``order``, finish) the seat order of every game; ``seat``: the
    seats of the rows as they stand, or in the order of ``order``.

    ``order`` empty: a game whose seats do not rise returns 1 (the caller then passes
    ``np.arange`` as the order and a copy of the seats). Otherwise each game's rows
    ``order[starts[g]:starts[g+1]]`` are insertion-sorted by seat together with their
    seats (stable, so the order of NumPy's lexsort by (game, seat)). Returns 2 for a
    seat that repeats in a game (the caller names the row on the slow path), else 0."""
    direct = order.shape[0] == 0
    for g in range(starts.shape[0] - 1):
        a = starts[g]
        b = starts[g + 1]
        if not direct:
            for i in range(a + 1, b):
                r = order[i]
                s = seat[i]
                j = i - 1
                while j >= a and seat[j] > s:
                    order[j + 1] = order[j]
                    seat[j + 1] = seat[j]
                    j -= 1
                order[j + 1] = r
                seat[j + 1] = s
        for i in range(a + 1, b):
            if seat[i] <= seat[i - 1]:
                return 2 if seat[i] == seat[i - 1] else 1
    return 0


@kernel
def _repeated_player_kernel(starts, player):
    """1 when a player sits twice in one game (``player`` in game order), else 0."""
    for g in range(starts.shape[0] - 1):
        a = starts[g]
        for i in range(a + 1, starts[g + 1]):
            p = player[i]
            for j in range(a, i):
                if player[j] == p:
                    return 1
    return 0


@kernel
def _seat_block_kernel(ids, watchers, empty, order, player, block):
    """The seatings in game-then-seat order (``order``; empty: as they stand): ``player``
    their ids and ``block`` one row ``(id, watchers, empty seats)`` per seating, so that
    a game's seats lie in a few consecutive cache lines."""
    direct = order.shape[0] == 0
    for i in range(player.shape[0]):
        r = i if direct else order[i]
        p = ids[r]
        player[i] = p
        block[i, 0] = p
        block[i, 1] = watchers[r]
        block[i, 2] = empty[r]


@kernel
def _player_games_kernel(player, starts, offsets, games):
    """CSR of the seatings by player, in game order: ``games[offsets[x]:offsets[x+1]]``
    holds one row ``(first, end, own)`` per game of x (the game's positions ``first ..
    end-1`` and x's own; ``player`` in game-then-seat order; ``offsets``, players + 1,
    zeroed)."""
    fill = _csr_offsets(player, offsets)
    for g in range(starts.shape[0] - 1):
        a = starts[g]
        b = starts[g + 1]
        for i in range(a, b):
            x = player[i]
            t = fill[x]
            games[t, 0] = a
            games[t, 1] = b
            games[t, 2] = i
            fill[x] = t + 1


@kernel
def _pga_count_kernel(lo, hi, offsets, games, player, seen, out_count):
    """Number of distinct table-mates of each player x in ``lo .. hi-1`` (``seen``: one
    slot per player, stamped with x; start at -1)."""
    for x in range(lo, hi):
        k = 0
        for t in range(offsets[x], offsets[x + 1]):
            r = games[t, 2]
            for q in range(games[t, 0], games[t, 1]):
                y = player[q]
                if q != r and seen[y] != x:
                    seen[y] = x
                    k += 1
        out_count[x] = k


@inline_kernel
def _sort_ids(a, k, tmp, count, width, passes):
    """Sort ``a[:k]`` (ids below ``2**(width*passes)``) in place: insertion sort for a few,
    else an LSD radix sort of ``passes`` digits of ``width`` bits (``tmp``: k values,
    ``count``: ``2**width + 1``) -- no branch on the data, unlike a comparison sort."""
    if k <= 32:
        for i in range(1, k):
            v = a[i]
            j = i - 1
            while j >= 0 and a[j] > v:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = v
        return
    mask = (1 << width) - 1
    src = a
    dst = tmp
    for p in range(passes):
        shift = p * width
        for b in range(mask + 2):
            count[b] = 0
        for i in range(k):
            count[((src[i] >> shift) & mask) + 1] += 1
        for b in range(mask + 1):
            count[b + 1] += count[b]
        for i in range(k):
            v = src[i]
            d = (v >> shift) & mask
            dst[count[d]] = v
            count[d] += 1
        src, dst = dst, src
    if passes % 2 == 1:
        for i in range(k):
            a[i] = src[i]


@inline_kernel
def _ppc(n, joins, wsum, esum, p_watch):
    """PPC = f sqrt(w n / (p e)) with f = J/n, w = wsum/n, e = esum/n (NaN without games
    or empty seats)."""
    if n <= 0.0 or esum <= 0.0:
        return np.nan
    return joins / n * math.sqrt(wsum * n / (p_watch * esum))


@kernel
def _pga_pairs_kernel(lo, hi, offsets, games, block, totals, label, p_watch, threshold,
                      min_games, out_start, slot, mates, counts, sums, tmp, digits,
                      width, passes, o_x, o_y, o_games, o_joins, o_expected, o_ppc,
                      o_apc, o_pval, o_flag):
    """Every ordered pair (x, y) for the players x in ``lo .. hi-1``, y in increasing id
    order, written from ``out_start[x]`` on.

    ``block``: one row (id, watchers, empty seats) per seating in game-then-seat order;
    ``games[offsets[x]:offsets[x+1]]``: x's games in game order as (first, end, own
    position); ``totals``: per player (games, watchers summed, empty seats summed).
    Walking x's games once, every table-mate y gets a slot (``slot[y]``, -1 when free;
    ``mates`` the slot's player) with ``counts[s]`` = (games y sat down after x -- his
    joins of x --, games y sat before x) and ``sums[s]`` = x's watchers and empty seats
    summed over the games y sat before x, then y's over the games he sat after x. Over
    x's games without y seated first: n = games - before, J = after, the watcher and
    empty-seat sums x's totals minus those; the mirror pair (y, x) follows from the same
    slot, so APC needs no look-up. Sums run in game order, as a per-record sum in game
    order would. The Poisson mean is p n e / w and the p-value P(X >= J). ``o_x`` and
    ``o_y`` get ``label`` of x and y; ``tmp``, ``digits``, ``width``, ``passes``: the
    sort of the table-mates (:func:`_sort_ids`)."""
    for x in range(lo, hi):
        k = 0
        for t in range(offsets[x], offsets[x + 1]):
            r = games[t, 2]
            wr = block[r, 1]
            er = block[r, 2]
            for q in range(games[t, 0], games[t, 1]):
                if q == r:
                    continue
                y = np.int64(block[q, 0])
                s = slot[y]
                if s < 0:
                    s = k
                    slot[y] = k
                    mates[k] = y
                    counts[s, 0] = 0
                    counts[s, 1] = 0
                    sums[s, 0] = 0.0
                    sums[s, 1] = 0.0
                    sums[s, 2] = 0.0
                    sums[s, 3] = 0.0
                    k += 1
                if q < r:
                    counts[s, 1] += 1
                    sums[s, 0] += wr
                    sums[s, 1] += er
                else:
                    counts[s, 0] += 1
                    sums[s, 2] += block[q, 1]
                    sums[s, 3] += block[q, 2]
        _sort_ids(mates, k, tmp, digits, width, passes)
        o = out_start[x]
        n_all = totals[x, 0]
        w_all = totals[x, 1]
        e_all = totals[x, 2]
        for t in range(k):
            y = mates[t]
            s = slot[y]
            slot[y] = -1
            after = counts[s, 0]
            before = counts[s, 1]
            n = n_all - before
            joins = float(after)
            wsum = w_all - sums[s, 0]
            esum = e_all - sums[s, 1]
            ppc = _ppc(n, joins, wsum, esum, p_watch)
            o_x[o] = label[x]
            o_y[o] = label[y]
            o_games[o] = np.int64(n)
            o_joins[o] = after
            o_ppc[o] = ppc
            o_apc[o] = _ppc(totals[y, 0] - after, float(before), totals[y, 1] - sums[s, 2],
                            totals[y, 2] - sums[s, 3], p_watch)
            if n <= 0.0 or esum <= 0.0:
                o_expected[o] = np.nan if n <= 0.0 else 0.0
                o_pval[o] = np.nan
            else:
                lam = p_watch * n * esum / wsum
                o_expected[o] = lam
                o_pval[o] = 1.0 if joins <= 0.0 else gammp(joins, lam)
            o_flag[o] = ppc >= threshold and n >= min_games
            o += 1


@kernel
def _own_reference_kernel(ids, pos, points, k, mode, level, use_floor, floor, rating, games,
                          counts, ref_games, ref_rating, ref_counts):
    """TAOWR/TAOLZ reference points of every player in one pass over the log.

    Rows in time order; row r: player ``ids[r]``, place ``pos[r]`` (1..k), points won
    ``points[r]``. Keeps each player's running rating (clamped at ``floor`` when
    ``use_floor``), games and place counts, and copies his counts into ``ref_counts``
    whenever his rating after a game qualifies as the new reference point:

    * mode 0 (TAOWR): at or below his lowest rating so far (ties: the latest wins);
    * mode 1 (TAOLZ): at or below ``level`` (the latest such game wins).

    On entry: rating = the initial rating, games = counts = ref_counts = 0; ref_games =
    0 and ref_rating = the initial rating where the start (no games yet) already
    qualifies, else ref_games = -1 and ref_rating = NaN (only TAOLZ with the initial
    rating above ``level``). O(1) per row plus O(k) per new reference point."""
    for r in range(ids.shape[0]):
        p = ids[r]
        x = rating[p] + points[r]
        if use_floor and x < floor:
            x = floor
        rating[p] = x
        base = p * k
        counts[base + pos[r] - 1] += 1
        g = games[p] + 1
        games[p] = g
        if mode == 0:
            hit = x <= ref_rating[p]
        else:
            hit = x <= level
        if hit:
            ref_games[p] = g
            ref_rating[p] = x
            for j in range(k):
                ref_counts[base + j] = counts[base + j]


# ----------------------------------------------------------------------------------
# validation helpers


def _as_counts(counts: Any, name: str = "counts") -> tuple[np.ndarray, bool]:
    """(C-contiguous 2-D counts of int64 or float64, whether the input was one player)."""
    if hasattr(counts, "to_numpy") and not isinstance(counts, np.ndarray):
        counts = counts.to_numpy()
    arr = np.asarray(counts)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise InputError(f"'{name}' must be a (players, places) matrix or one profile; got "
                         f"an array of shape {arr.shape}")
    if arr.shape[1] < 2:
        raise InputError(f"'{name}' must have at least 2 places (columns); got {arr.shape[1]}")
    if arr.dtype.kind in "biu":
        out = np.require(arr, np.int64, ["C", "A", "W"])
    elif arr.dtype.kind == "f":
        out = np.require(arr, np.float64, ["C", "A", "W"])
        bad = ~np.isfinite(out)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise InputError(f"'{name}' must be finite; found {out[i, j].item()!r} at "
                             f"player row {i + 1}, place {j + 1}")
    else:
        raise InputTypeError(f"'{name}' must hold numbers; got dtype {arr.dtype}")
    neg = out < 0
    if neg.any():
        i, j = np.argwhere(neg)[0]
        raise InputError(f"'{name}' must be non-negative; found {out[i, j].item()!r} at "
                         f"player row {i + 1}, place {j + 1}")
    return out, single


def _ret(x: np.ndarray, single: bool) -> Any:
    return float(x[0]) if single else x


def reference_profile(reference: Any = None, k: int = 7) -> np.ndarray:
    """The reference profile as fractions summing to 1 (float64, length ``k``).

    ``None``/``"uniform"``/``"tapl"`` (pure luck), ``"tazd"``, ``"takbe"`` (k = 7 only),
    or any sequence of k positive numbers (fractions or percentages). A profile whose sum
    is off by more than 1% of both 1 and 100 is normalised with a :class:`ProfileWarning`.
    """
    if _is_uniform(reference):
        return np.full(k, 1.0 / k)
    if isinstance(reference, str):
        key = reference.lower()
        if key not in ("tazd", "takbe"):
            raise ConfigError(f"'reference' must be 'uniform', 'tazd', 'takbe' or a profile of "
                              f"{k} numbers; got {reference!r}")
        prof = np.array(TAZD_PROFILE if key == "tazd" else TAKBE_PROFILE)
        if k != prof.shape[0]:
            raise ConfigError(f"the {key.upper()} profile has 7 places; these counts have "
                              f"{k}: give a profile of {k} numbers as 'reference'")
        return prof / prof.sum()
    try:
        prof = np.asarray(reference, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputTypeError(f"'reference' must be a name or a sequence of numbers; got "
                             f"{reference!r}") from None
    if prof.ndim != 1 or prof.shape[0] != k:
        raise InputError(f"'reference' must have one value per place ({k}); got shape "
                         f"{prof.shape}")
    if not np.isfinite(prof).all() or (prof <= 0).any():
        j = int(np.argmax(~np.isfinite(prof) | (prof <= 0)))
        raise InputError(f"'reference' must be positive at every place (an expected count "
                         f"of 0 makes chi-square infinite); found {prof[j].item()!r} at "
                         f"place {j + 1}")
    total = float(prof.sum())
    if abs(total - 1.0) > 0.01 and abs(total - 100.0) > 1.0:
        warnings.warn(f"reference profile sums to {total:g}, not 1 or 100; normalised to "
                      "sum to 1", ProfileWarning, stacklevel=3)
    return prof / total


def profile_from_counts(counts: Any) -> np.ndarray:
    """A reference profile (fractions) from one player's counts, e.g. an earlier profile
    of his (:func:`taowr` / :func:`taolz` find those moments in a log themselves)."""
    arr, single = _as_counts(counts)
    if not single:
        raise InputError(f"profile_from_counts takes one profile; got {arr.shape[0]} rows")
    total = float(arr.sum())
    if total <= 0:
        raise InputError("profile_from_counts needs at least one game; got all zeros")
    return arr[0].astype(np.float64) / total


def counts_from_percentages(percentages: Any, games: Any) -> np.ndarray:
    """Float counts ``percentages / 100 * games`` from a profile in percent (as KDice
    shows it) and the number of games; every statistic then follows as from counts
    (TAPL from percentages is ``sum((e% - a%)^2 / e%) * sqrt(n) * 1000``)."""
    pct, single = _as_counts(np.asarray(percentages, dtype=np.float64), "percentages")
    g = np.asarray(games, dtype=np.float64).reshape(-1)
    if g.shape[0] not in (1, pct.shape[0]):
        raise InputError(f"'games' must be one number or one per player ({pct.shape[0]}); "
                         f"got {g.shape[0]}")
    if not np.isfinite(g).all() or (g < 0).any():
        raise InputError(f"'games' must be finite and non-negative; got {g[~(g >= 0)][:1]}")
    out = pct / 100.0 * g[:, None]
    return out[0] if single else out


def _yates_mode(yates: Any) -> int:
    if isinstance(yates, (bool, np.bool_)):
        return int(bool(yates))
    if isinstance(yates, str) and yates == "auto":
        return 2
    raise ConfigError(f"'yates' must be True, False or 'auto'; got {yates!r}")


def _payoff(payoff: Any, k: int, buy_in: float) -> np.ndarray:
    if payoff is None:
        if k != 7:
            raise ConfigError(f"the default KDice payoff table has 7 places; these counts "
                              f"have {k}: give 'payoff' with {k} values")
        payoff = KDICE_PAYOFF
    arr = np.asarray(payoff, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] != k or not np.isfinite(arr).all():
        raise ConfigError(f"'payoff' must be {k} finite numbers (one per place); got {payoff!r}")
    check_number("convolution_integral", "buy_in", buy_in, lo=0, lo_open=True)
    return require(arr, np.float64)


# ----------------------------------------------------------------------------------
# public API


def _game_keys(game: Any, rows: int, source: Source = NO_SOURCE) -> np.ndarray:
    """The game column as a 1-D array, refusing missing game ids (NaN, None, null),
    which would otherwise all fall into one game or break the grouping."""
    g = as_1d(game, "game")
    if g.shape[0] != rows:
        raise InputError(f"column 'game' must have one value per row ({rows}); got "
                         f"{g.shape[0]}")
    if g.dtype.kind == "f":
        missing = np.isnan(g)
    elif g.dtype.kind == "O":
        missing = np.fromiter((v is None or (isinstance(v, float) and v != v)
                               for v in g.tolist()), dtype=np.bool_, count=rows)
    else:
        return g
    if missing.any():
        raise InputError(f"column '{source.column('game')}' must name a game in every row; "
                         f"found a missing value at {source.where(int(np.argmax(missing)))}; "
                         "drop or fill those rows")
    return g


def _log_ids(players: Any, places: Any, k: int | None, game: Any, allow_ties: bool,
             source: Source = NO_SOURCE) -> tuple[PlayerIndex, np.ndarray, np.ndarray, int]:
    """Validate a placement log; (player index, int64 player ids, int64 places 1..k, k)."""
    pl = as_1d(players, "player")
    raw = as_1d(places, "place")
    if raw.shape[0] != pl.shape[0]:
        raise InputError(f"column 'place' must have one value per row ({pl.shape[0]}); got "
                         f"{raw.shape[0]}")
    if raw.dtype.kind not in "iu":
        # as_float64 names the first value that is not a number (strings, etc.)
        as_f = as_float64(raw, "place", source, allow_nan=True)
        bad = ~np.isfinite(as_f) | (as_f != np.round(as_f))
        if bad.any():
            raise fail_at("place", "must be a whole number 1..k (not missing)", as_f,
                          int(np.argmax(bad)), source)
        raw = as_f
    pos = require(raw, np.int64)
    if k is None:
        k = int(pos.max()) if pos.shape[0] else 2
        k = max(k, 2)
    check_number("place_counts", "k", k, lo=2, integer=True)
    k = int(k)
    bad = (pos < 1) | (pos > k)
    if bad.any():
        raise fail_at("place", f"must be in 1..{k}", pos, int(np.argmax(bad)), source)
    index, (ids,) = PlayerIndex.intern(pl, names=["player"], source=source)
    if game is not None:
        g = _game_keys(game, pos.shape[0], source)
        _, gid = np.unique(g, return_inverse=True)
        gid = gid.astype(np.int64).reshape(-1)
        for what, col in (("player", ids), ("place", pos)):
            if what == "place" and allow_ties:
                continue
            order = np.lexsort((col, gid))
            dup = (gid[order][1:] == gid[order][:-1]) & (col[order][1:] == col[order][:-1])
            if dup.any():
                row = int(order[1:][np.argmax(dup)])
                msg = ("must not repeat a player within a game" if what == "player" else
                       "must not repeat within a game (a tie); pass allow_ties=True "
                       "(--allow-ties) to allow")
                raise fail_at(what, msg, pl if what == "player" else pos, row, source)
    return index, require(ids, np.int64), pos, k


def place_counts(players: Any, places: Any, k: int | None = None, *, game: Any = None,
                 allow_ties: bool = False,
                 source: Source = NO_SOURCE) -> tuple[PlayerIndex, np.ndarray]:
    """Profiles from a placement log: one row per (game, player) with the place 1..k.

    Returns the player index (names in order of first appearance) and the
    ``(n_players, k)`` int64 counts. ``k`` defaults to the largest place. With ``game``
    ids, two players sharing a place in one game, or one player twice in a game, is an
    error unless ``allow_ties=True`` (ties only; a repeated player is always an error).
    A missing game id is an error. ``source`` (a :class:`fastrate._validate.Source`)
    lets errors name the file line as well as the row.
    """
    index, ids, pos, k = _log_ids(players, places, k, game, allow_ties, source)
    n = len(index)
    counts = np.bincount(ids * k + (pos - 1), minlength=n * k).astype(np.int64)
    return index, counts.reshape(n, k)


def profiles_from_log(players: Any, places: Any, k: int | None = None, *, game: Any = None,
                      points: Any = None, level: Any = None, allow_ties: bool = False,
                      source: Source = NO_SOURCE) -> dict[str, Any]:
    """Everything :func:`placement_stats` needs from a placement log.

    Returns a dict with ``players`` (a :class:`PlayerIndex`), ``counts`` (as
    :func:`place_counts`), ``points`` (each player's total of the ``points`` column, or
    None) and ``levels`` (percentage of each player's games at table levels 0..5 from
    the ``level`` column of whole numbers 0..5, or None)."""
    index, counts = place_counts(players, places, k, game=game, allow_ties=allow_ties,
                                 source=source)
    _, (ids,) = PlayerIndex.intern(as_1d(players, "player"), names=["player"], source=source)
    n = len(index)
    games = counts.sum(axis=1).astype(np.float64)
    out: dict[str, Any] = {"players": index, "counts": counts, "points": None, "levels": None}
    if points is not None:
        pts = as_float64(points, "points", source)
        if pts.shape[0] != ids.shape[0]:
            raise InputError(f"column 'points' must have one value per row ({ids.shape[0]}); "
                             f"got {pts.shape[0]}")
        out["points"] = np.bincount(ids, weights=pts, minlength=n)
    if level is not None:
        lv = as_float64(level, "level", source)
        if lv.shape[0] != ids.shape[0]:
            raise InputError(f"column 'level' must have one value per row ({ids.shape[0]}); "
                             f"got {lv.shape[0]}")
        bad = (lv < 0) | (lv > 5) | (lv != np.round(lv))
        if bad.any():
            raise fail_at("level", "must be a whole table level 0..5", lv,
                          int(np.argmax(bad)), source)
        cells = np.bincount(ids * 6 + lv.astype(np.int64), minlength=n * 6).reshape(n, 6)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["levels"] = np.where(games[:, None] > 0, 100.0 * cells / games[:, None], 0.0)
    return out


def _chi2_of(counts: Any, reference: Any, yates: Any) -> tuple[np.ndarray, np.ndarray, bool]:
    """Chi-square and games of every profile against one reference profile, and whether
    ``counts`` was a single profile."""
    arr, single = _as_counts(counts)
    k = arr.shape[1]
    ref = reference_profile(reference, k)
    chi2 = np.empty(arr.shape[0])
    n = np.empty(arr.shape[0])
    _chi2_kernel(arr.reshape(-1), k, ref, 0, _yates_mode(yates), chi2, n)
    return chi2, n, single


def chi_square(counts: Any, reference: Any = None, yates: bool | str = False) -> Any:
    """Pearson's chi-square of each profile against ``reference`` (uniform by default).

    ``yates``: False, True (every player) or ``"auto"`` (players with an expected count
    below 5, as the essay does). NaN for a player with no games."""
    chi2, n, single = _chi2_of(counts, reference, yates)
    return _ret(chi2, single)


def _scaled(counts: Any, reference: Any, yates: Any) -> Any:
    chi2, n, single = _chi2_of(counts, reference, yates)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = chi2 / np.sqrt(n) * 1000.0
    return _ret(out, single)


def tapl(counts: Any, yates: bool | str = False, reference: Any = None) -> Any:
    """Test against pure luck: ``chi2 / sqrt(n) * 1000`` (7,6,5,4,4,4,5 -> 270.4)."""
    return _scaled(counts, reference, yates)


def tazd(counts: Any, yates: bool | str = False) -> Any:
    """Test against zero datum: the TAPL against :data:`TAZD_PROFILE` (normalised)."""
    return _scaled(counts, "tazd", yates)


def takbe(counts: Any, yates: bool | str = False) -> Any:
    """Test against known bad example: the TAPL against :data:`TAKBE_PROFILE`."""
    return _scaled(counts, "takbe", yates)


#: the essay's tests against the player's own earlier profile (§iv)
OWN_REFERENCES = ("taowr", "taolz")
#: the ``status`` of a player in :func:`own_reference_stats`, in order of precedence
OWN_STATUS = ("ok", "no_reference_games", "never_at_level", "no_games_after", "zero_expected")


def _own_key(reference: Any) -> str:
    key = reference.lower() if isinstance(reference, str) else reference
    if key not in OWN_REFERENCES:
        raise ConfigError(f"'reference' of own_reference_stats must be 'taowr' or 'taolz'; "
                          f"got {reference!r}")
    return key


def own_reference_profiles(players: Any, places: Any, points: Any, time: Any,
                           k: int | None = None, *, reference: str = "taowr",
                           game: Any = None, level: float = 0.0, initial: float = 0.0,
                           floor: float | None = None, allow_ties: bool = False,
                           source: Source = NO_SOURCE) -> dict[str, Any]:
    """Every player's reference point for TAOWR or TAOLZ from a placement log's history.

    The log has one row per player per game: ``players``, ``places`` (1..k), ``points``
    (points won in that game, any sign) and ``time`` (numbers, dates or ISO strings;
    ``game`` ids, optional, are only used to check that no player appears twice in a
    game and, unless ``allow_ties``, no place twice). Rows are put in time order (a
    stable sort: rows with equal times keep their order in the log), and each player's
    *rating* is his running points total: ``initial`` before his first game, plus the
    points of each of his games, clamped at ``floor`` after every game when ``floor`` is
    given (``floor=0``: KDice's "zero-minimum point system"). His *reference point* is:

    * ``"taowr"`` (own worst rating): the moment his rating was lowest -- the start
      (before his first game, at ``initial``) or after one of his games; if the lowest
      value occurs more than once, the latest occurrence;
    * ``"taolz"`` (own last zero): the last moment his rating was at or below ``level``
      (0, or 1000, 2000 ... for the essay's "Test Against Own Last 1000"), the start
      included when ``initial <= level``.

    One Numba pass over the time-sorted rows, O(rows). Returns a dict: ``players`` (a
    :class:`PlayerIndex`, first appearance in the log), ``counts`` (all his games) and
    ``reference_counts`` (his games up to and including the reference point), both
    ``(n_players, k)`` int64, ``games``, ``reference_games`` (int64; -1 where TAOLZ found
    no moment at or below ``level``), ``rating`` (final) and ``reference_rating`` (NaN
    where there is no reference point)."""
    key = _own_key(reference)
    owner = key
    index, ids, pos, k = _log_ids(players, places, k, game, allow_ties, source)
    rows = ids.shape[0]
    pts = as_float64(points, "points", source)
    if pts.shape[0] != rows:
        raise InputError(f"column 'points' must have one value per row ({rows}); got "
                         f"{pts.shape[0]}")
    tm = parse_time(time, "time", source)
    if tm.shape[0] != rows:
        raise InputError(f"column 'time' must have one value per row ({rows}); got "
                         f"{tm.shape[0]}")
    lv = check_number(owner, "level", level)
    init = check_number(owner, "initial", initial)
    if math.isinf(lv) or math.isinf(init):
        raise ConfigError(f"'level' and 'initial' of {owner} must be finite; got {level!r}, "
                          f"{initial!r}")
    use_floor = floor is not None
    fl = check_number(owner, "floor", floor, hi=init) if use_floor else 0.0
    if use_floor and math.isinf(fl):
        raise ConfigError(f"'floor' of {owner} must be finite; got {floor!r}")
    if rows > 1 and not (tm[1:] >= tm[:-1]).all():  # logs usually come in time order
        order = np.argsort(tm, kind="stable")
        ids, pos, pts = ids[order], pos[order], pts[order]
    m = len(index)
    rating = np.full(m, init)
    games = np.zeros(m, np.int64)
    counts = np.zeros(m * k, np.int64)
    ref_counts = np.zeros(m * k, np.int64)
    start = key == "taowr" or init <= lv
    ref_games = np.full(m, 0 if start else -1, np.int64)
    ref_rating = np.full(m, init if start else np.nan)
    _own_reference_kernel(require(ids, np.int64), require(pos, np.int64),
                          require(pts, np.float64), k, OWN_REFERENCES.index(key), lv,
                          use_floor, fl, rating, games, counts, ref_games, ref_rating,
                          ref_counts)
    return {"players": index, "counts": counts.reshape(m, k),
            "reference_counts": ref_counts.reshape(m, k), "games": games,
            "reference_games": ref_games, "rating": rating, "reference_rating": ref_rating}


def own_reference_stats(players: Any, places: Any, points: Any, time: Any,
                        k: int | None = None, *, reference: str = "taowr", game: Any = None,
                        level: float = 0.0, initial: float = 0.0, floor: float | None = None,
                        observed: str = "all", yates: bool | str = False,
                        pseudocount: float = 0.0, allow_ties: bool = False,
                        source: Source = NO_SOURCE) -> dict[str, np.ndarray]:
    """TAOWR / TAOLZ (essay §iv): the TAPL statistic with the player's own earlier
    profile as the expected one.

    The reference point of each player comes from :func:`own_reference_profiles` (see
    there for the log, the rating and the options ``level``, ``initial``, ``floor``).
    The *reference profile* is his place counts up to and including that moment,
    ``R``, over ``t`` games, as fractions ``(R_j + a) / (t + k a)`` with
    ``a = pseudocount`` (0: the essay's literal profile). The *observed* profile is
    ``observed="all"`` -- his whole current profile, n = all his games, as the essay's
    TAPL compares "your" profile and TAOWR/TAOLZ only replace the expected one -- or
    ``"after"``: only the games after the reference point (an independent sample).
    Then, exactly as for TAPL/TAZD/TAKBE (the same kernel):

        chi2 = sum_j (O_j - n r_j)^2 / (n r_j)      value = chi2 / sqrt(n) * 1000

    with ``yates`` as in :func:`chi_square`, ``effect_size = sqrt(chi2 / n)`` and
    ``p_value`` with ``df`` = (places with a positive reference share) - 1. A place with
    a reference share of 0 and no observed finishes adds nothing (and no degree of
    freedom).

    Returns columns (one per player, order of first appearance): ``player``, ``games``,
    ``reference_games``, ``games_after``, ``rating``, ``reference_rating``, ``chi2``,
    ``df``, ``p_value``, ``effect_size``, ``taowr`` or ``taolz`` (the value), and
    ``status`` -- one of :data:`OWN_STATUS`; every outcome is defined, nothing raises:

    * ``no_reference_games``: the reference point is the start (his rating never came
      back to its starting value or below, i.e. for a new player never to 0): an empty
      reference profile, NaN values;
    * ``never_at_level``: TAOLZ only, ``initial > level`` and his rating never came down
      to ``level``: NaN values, ``reference_games`` 0 and ``reference_rating`` NaN;
    * ``no_games_after``: the reference point is his latest game. With ``observed="all"``
      the observed profile *is* the reference one: chi2 = 0 exactly (with
      ``pseudocount`` 0; else the distance to the smoothed profile); with ``"after"``
      there is nothing to test: NaN;
    * ``zero_expected``: he finished in a place where his reference profile has 0
      (an infinite chi-square): NaN values; ``pseudocount`` > 0 (0.5 or 1) avoids it;
    * ``ok`` otherwise."""
    key = _own_key(reference)
    check_choice(key, "observed", observed, ("all", "after"))
    mode = _yates_mode(yates)
    a = check_number(key, "pseudocount", pseudocount, lo=0)
    if math.isinf(a):
        raise ConfigError(f"'pseudocount' of {key} must be finite; got {pseudocount!r}")
    prof = own_reference_profiles(players, places, points, time, k, reference=key,
                                  game=game, level=level, initial=initial, floor=floor,
                                  allow_ties=allow_ties, source=source)
    counts, refc = prof["counts"], prof["reference_counts"]
    m, k = counts.shape
    games = prof["games"]
    found = prof["reference_games"] >= 0
    t = np.where(found, prof["reference_games"], 0)
    after = games - t
    obs = require((counts - refc if observed == "after" else counts).reshape(-1), np.int64)
    has_ref = t > 0
    denom = np.where(has_ref, t + k * a, 1.0)
    ref = np.where(has_ref[:, None], (refc + a) / denom[:, None], 1.0 / k)
    chi2 = np.empty(m)
    n = np.empty(m)
    _chi2_kernel(obs, k, require(ref.reshape(-1), np.float64), k, mode, chi2, n)
    df = (ref > 0).sum(axis=1).astype(np.float64) - 1.0
    status = np.zeros(m, np.int64)
    status[np.isinf(chi2)] = 4
    status[after == 0] = 3
    status[~has_ref] = 1
    status[~found] = 2
    if observed == "all" and a == 0:
        chi2[status == 3] = 0.0
    chi2[(status == 1) | (status == 2) | (status == 4)] = np.nan
    pval = np.empty(m)
    _pvalue_kernel(chi2, df, pval)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = chi2 / np.sqrt(n) * 1000.0
        effect = np.sqrt(chi2 / n)
    return {"player": prof["players"].names, "games": games,
            "reference_games": t, "games_after": after, "rating": prof["rating"],
            "reference_rating": prof["reference_rating"], "chi2": chi2, "df": df,
            "p_value": pval, "effect_size": effect, key: value,
            "status": np.array(OWN_STATUS, dtype=object)[status]}


def taowr(players: Any, places: Any, points: Any, time: Any, k: int | None = None, *,
          game: Any = None, initial: float = 0.0, floor: float | None = None,
          observed: str = "all", yates: bool | str = False, pseudocount: float = 0.0,
          allow_ties: bool = False) -> dict[str, np.ndarray]:
    """Test against own worst rating: :func:`own_reference_stats` with
    ``reference="taowr"`` (the reference profile is the one at his lowest rating)."""
    return own_reference_stats(players, places, points, time, k, reference="taowr",
                               game=game, initial=initial, floor=floor, observed=observed,
                               yates=yates, pseudocount=pseudocount, allow_ties=allow_ties)


def taolz(players: Any, places: Any, points: Any, time: Any, k: int | None = None, *,
          game: Any = None, level: float = 0.0, initial: float = 0.0,
          floor: float | None = None, observed: str = "all", yates: bool | str = False,
          pseudocount: float = 0.0, allow_ties: bool = False) -> dict[str, np.ndarray]:
    """Test against own last zero: :func:`own_reference_stats` with
    ``reference="taolz"`` (the reference profile is the one at the last time his rating
    was at or below ``level``, 0 by default)."""
    return own_reference_stats(players, places, points, time, k, reference="taolz",
                               game=game, level=level, initial=initial, floor=floor,
                               observed=observed, yates=yates, pseudocount=pseudocount,
                               allow_ties=allow_ties)


def p_value(chi2: Any, df: Any) -> Any:
    """Upper-tail probability of chi-square: ``Q(df/2, chi2/2)``; for a profile of k
    places ``df = k - 1``. NaN where chi2 is NaN or negative."""
    x = np.asarray(chi2, dtype=np.float64)
    d = np.asarray(df, dtype=np.float64)
    if not np.all(d > 0):
        raise ConfigError(f"'df' of p_value must be positive; got {df!r}")
    xb, db = np.broadcast_arrays(x, d)
    flat_x = np.ascontiguousarray(xb, dtype=np.float64).reshape(-1)
    flat_d = np.ascontiguousarray(db, dtype=np.float64).reshape(-1)
    out = np.empty(flat_x.shape[0])
    _pvalue_kernel(flat_x, flat_d, out)
    out = out.reshape(xb.shape)
    return float(out) if out.ndim == 0 else out


def effect_size(counts: Any, reference: Any = None, yates: bool | str = False) -> Any:
    """Cohen's w = ``sqrt(chi2 / n)``: the size of the departure from ``reference``,
    independent of the number of games (TAPL = w^2 sqrt(n) 1000)."""
    chi2, n, single = _chi2_of(counts, reference, yates)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.sqrt(chi2 / n)
    return _ret(out, single)


def _moments(ref: np.ndarray) -> tuple[float, float]:
    places = np.arange(1, ref.shape[0] + 1, dtype=np.float64)
    mu = float(np.dot(ref, places))
    sigma = math.sqrt(float(np.dot(ref, (places - mu) ** 2)))
    return mu, sigma


def tazd_star(counts: Any, reference: Any = "tazd") -> Any:
    """Directional z-score of the mean place: ``sqrt(n)(mu_ref - mu_obs)/sigma_ref*1000``.

    Positive when a player places better (lower) on average than the reference; a win
    never lowers it and neither does improving any finish (unlike TAZD)."""
    arr, single = _as_counts(counts)
    k = arr.shape[1]
    mu, sigma = _moments(reference_profile(reference, k))
    out = np.empty(arr.shape[0])
    _tazd_star_kernel(arr.reshape(-1), k, mu, sigma, out)
    return _ret(out, single)


def qooa(levels: Any) -> Any:
    """Quality-of-opponent adjustment from the percentages (0..100) of games played at
    table levels 0..5 (a row per player, up to 6 columns; missing levels count 0):
    ``p0/371 + p1/142 + p2/54 + p3/21 + p4/8 + p5/3``. 50/50 at levels 0/1 -> 0.49."""
    arr = np.asarray(levels, dtype=np.float64)
    single = arr.ndim == 1
    if single:
        arr = arr[None, :]
    if arr.ndim != 2 or not 1 <= arr.shape[1] <= 6:
        raise InputError(f"'levels' must hold the percentages at 1 to 6 table levels; got "
                         f"shape {np.asarray(levels).shape}")
    if not np.isfinite(arr).all() or (arr < 0).any() or (arr > 100).any():
        raise InputError("'levels' must be percentages in [0, 100]")
    out = arr @ (1.0 / np.array(QOOA_DIVISORS[: arr.shape[1]]))
    return _ret(out, single)


def convolution_integral(counts: Any, payoff: Any = None, buy_in: float = KDICE_BUY_IN) -> Any:
    """Expected payoff per point of buy-in: ``sum(payoff_j * counts_j / n) / buy_in``.

    Default KDice table (60, 42, 35, 0, -35, -42, -60) over 60: uniform profile -> 0,
    range [-1, 1]. NaN for no games."""
    arr, single = _as_counts(counts)
    k = arr.shape[1]
    pay = _payoff(payoff, k, buy_in)
    out = np.empty(arr.shape[0])
    _ci_kernel(arr.reshape(-1), k, pay, float(buy_in), out)
    return _ret(out, single)


def _per_player(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InputError(f"'{name}' must be finite")
    return arr


def guts_per_game(points: Any, games: Any, ci: Any, cap: float = GPG_CAP) -> Any:
    """Average buy-in estimated as points per game / CI, capped at ``cap`` (6000);
    NaN when CI <= 0 (or NaN) or no games."""
    p = _per_player(points, "points")
    g = _per_player(games, "games")
    c = np.asarray(ci, dtype=np.float64)
    if (g < 0).any():
        raise InputError("'games' must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where((c > 0) & (g > 0), np.minimum(p / g / c, cap), np.nan)
    return float(out) if out.ndim == 0 else out


def pprg(points: Any, games: Any) -> Any:
    """Points per root game: ``points / sqrt(games)``; NaN for no games."""
    p = _per_player(points, "points")
    g = _per_player(games, "games")
    if (g < 0).any():
        raise InputError("'games' must be non-negative")
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(g > 0, p / np.sqrt(g), np.nan)
    return float(out) if out.ndim == 0 else out


def _games_behind(games: np.ndarray, behind: np.ndarray) -> np.ndarray:
    out = np.empty(games.shape[0])
    _standings_kernel(require(games, np.float64), require(behind, np.float64), out)
    return out


def standings_from_counts(counts: Any) -> tuple[np.ndarray, np.ndarray]:
    """Baseball-style standings from profiles of full k-player games.

    Returns ``(behind, games_behind)``: the games behind the winners summed over a
    player's games (place j counts ``(j-1)/(k-1)``), and the games behind the leader
    after charging half a game per game not played compared with the most active
    player."""
    arr, _ = _as_counts(counts)
    k = arr.shape[1]
    games = np.empty(arr.shape[0])
    behind = np.empty(arr.shape[0])
    _behind_kernel(arr.reshape(-1), k, games, behind)
    return behind, _games_behind(games, behind)


def standings(game: Any, players: Any, places: Any, *, sort: bool = True,
              allow_ties: bool = False, source: Source = NO_SOURCE) -> dict[str, np.ndarray]:
    """Baseball-style standings from a placement log of games of any size.

    The player placed p in a game of P players falls ``(p-1)/(P-1)`` games behind its
    winner; each player is charged half a game per game fewer than the most active
    player; the table gives games behind the leader (0 for the leader). Returns a dict
    of columns ``player, games, behind, games_behind`` sorted by ``games_behind`` (in
    order of first appearance, as :func:`place_counts`, with ``sort=False``). Ties
    (``allow_ties=True``) each fall ``(p-1)/(P-1)`` games behind for their shared place."""
    g = as_1d(game, "game")
    index, counts = place_counts(players, places, game=g, allow_ties=allow_ties, source=source)
    _, gid, size = np.unique(g, return_inverse=True, return_counts=True)
    pos = require(np.asarray(as_1d(places, "place"), dtype=np.float64), np.float64)
    p_size = size[gid].astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_row = np.where(p_size > 1, (pos - 1.0) / (p_size - 1.0), 0.0)
    if (per_row > 1).any():
        row = int(np.argmax(per_row > 1))
        raise fail_at("place", f"must not exceed the number of players in the game "
                      f"({int(p_size[row])})", pos, row, source)
    _, (ids,) = PlayerIndex.intern(as_1d(players, "player"), names=["player"], source=source)
    n = len(index)
    games = np.bincount(ids, minlength=n).astype(np.float64)
    behind = np.bincount(ids, weights=per_row, minlength=n)
    gb = _games_behind(games, behind)
    order = np.argsort(gb, kind="stable") if sort else np.arange(n)
    return {"player": index.names[order], "games": games[order].astype(np.int64),
            "behind": behind[order], "games_behind": gb[order]}


def _is_uniform(reference: Any) -> bool:
    """No reference, or the pure-luck one by name (``"uniform"``, ``"tapl"``)."""
    return reference is None or (isinstance(reference, str)
                                 and reference.lower() in ("uniform", "tapl"))


def placement_stats(counts: Any, *, reference: Any = None, yates: bool | str = False,
                    payoff: Any = None, buy_in: float = KDICE_BUY_IN, points: Any = None,
                    levels: Any = None) -> dict[str, np.ndarray]:
    """Every per-player statistic in one sweep over the ``(players, k)`` counts.

    Columns (float64 arrays, one value per player):

    * ``games``; ``chi2``, ``p_value`` (df = k - 1), ``effect_size`` -- against
      ``reference`` (uniform by default; ``"tazd"``, ``"takbe"`` or a profile);
    * ``tapl`` (uniform), ``tazd`` and ``takbe`` (k = 7 only), and ``vs_reference``
      (chi2 / sqrt(n) * 1000 against a non-uniform ``reference``);
    * ``tazd_star`` -- against ``reference`` when it is not uniform, else against the
      TAZD profile (k = 7) or uniform (other k);
    * ``ci`` (default KDice payoffs for k = 7; other k need ``payoff``), ``games_behind``
      (baseball-style standings, every game a full k-player game);
    * with ``points`` (total points per player): ``pprg`` and ``gpg`` (needs ``ci``);
    * with ``levels`` (percentages at table levels 0..5): ``qooa`` and ``tapl_qooa``.

    ``yates`` (False, True, ``"auto"``) applies to every chi-square. A player with no
    games has NaN everywhere except ``games`` and ``games_behind``."""
    arr, single = _as_counts(counts)
    if single:
        raise InputError("placement_stats takes a (players, places) matrix; wrap one "
                         "profile as [profile]")
    m, k = arr.shape
    mode = _yates_mode(yates)
    ref_m = reference_profile(reference, k)
    ref_u = reference_profile(None, k)
    k7 = k == 7
    ref_z = reference_profile("tazd", k) if k7 else ref_u
    ref_b = reference_profile("takbe", k) if k7 else ref_u
    mu, sigma = _moments(ref_z if _is_uniform(reference) else ref_m)
    has_ci = payoff is not None or k7
    pay = _payoff(payoff, k, buy_in) if has_ci else np.zeros(k)
    refs = np.concatenate([ref_m, ref_u, ref_z, ref_b])
    names = ("games", "chi2", "p_value", "effect_size", "vs_reference", "tapl", "tazd",
             "takbe", "tazd_star", "ci")
    cols = {name: np.empty(m) for name in names}
    behind = np.empty(m)
    _all_stats_kernel(arr.reshape(-1), k, refs, 1.0 / refs, mode, mu, sigma, pay,
                      float(buy_in), float(k - 1), *cols.values(), behind)
    if _is_uniform(reference):
        del cols["vs_reference"]
    if not k7:
        del cols["tazd"], cols["takbe"]
    if not has_ci:
        del cols["ci"]
    cols["games_behind"] = np.empty(m)
    _standings_kernel(cols["games"], behind, cols["games_behind"])
    if points is not None:
        p = require(_per_player(points, "points").reshape(-1), np.float64)
        if p.shape[0] != m:
            raise InputError(f"'points' must have one value per player ({m}); got {p.shape[0]}")
        cols["pprg"] = np.empty(m)
        gpg = np.empty(m)
        _points_kernel(p, cols["games"], cols["ci"] if has_ci else np.zeros(m), GPG_CAP,
                       cols["pprg"], gpg)
        if has_ci:
            cols["gpg"] = gpg
    if levels is not None:
        q = np.asarray(qooa(levels), dtype=np.float64).reshape(-1)
        if q.shape[0] != m:
            raise InputError(f"'levels' must have one row per player ({m}); got {q.shape[0]}")
        cols["qooa"] = q
        cols["tapl_qooa"] = cols["tapl"] * q
    return cols


def pga(game: Any, players: Any, seat: Any, watchers: Any, *, capacity: Any = 7,
        p_watch: float = 1.0, threshold: float = 3.0,
        min_games: int = 20, source: Source = NO_SOURCE) -> dict[str, np.ndarray]:
    """Pre-game affiliate detection (essay §viii): the passive participation coefficient
    of every ordered pair of players who ever sat at one table.

    Input: a seating log, one row per player per game, with ``seat`` the order in which
    he sat down (1 = first), ``watchers`` the number of players watching when he sat
    down (> 0) and ``capacity`` the table size (a number or one per row); the empty
    seats left when he sat down are ``capacity - seat``.

    For x and y, over the n games x sat down in without y already seated, with J of them
    joined later by y, w and e the mean watchers and empty seats when x sat down and
    ``p_watch`` the probability that y was watching: ``PPC = (J/n) sqrt(w n / (p e))``
    (= J / sqrt(lambda) with lambda = p n e / w, the expected number of joins);
    ``PPC >= threshold`` (3) over at least ``min_games`` (20, the essay's "at least
    twenty") flags an affiliation. x's APC with y is y's PPC with x.
    The p-value is the Poisson probability of at least J joins given lambda.

    Returns columns ``x, y, games, joins, expected, ppc, apc, p_value, flagged`` for
    every ordered pair that shared a table, sorted by x then y (first appearance).
    Pairs whose e is 0 (x always took the last seat) have NaN PPC.

    Runs in up to ``numba.get_num_threads()`` threads on logs of 200,000 seatings or
    more (``NUMBA_NUM_THREADS=1`` for one); the results do not depend on the number."""
    pl = as_1d(players, "player")
    rows = pl.shape[0]
    g = _game_keys(game, rows, source)
    for name, arr in (("seat", as_1d(seat, "seat")),
                      ("watchers", as_1d(watchers, "watchers"))):
        if arr.shape[0] != rows:
            raise InputError(f"column '{name}' must have one value per row ({rows}); got "
                             f"{arr.shape[0]}")
    st = as_float64(seat, "seat", source)
    wt = as_float64(watchers, "watchers", source)
    cap = np.broadcast_to(np.asarray(capacity, dtype=np.float64), (rows,)).copy() \
        if np.ndim(capacity) == 0 else as_float64(capacity, "capacity", source)
    if cap.shape[0] != rows:
        raise InputError(f"column 'capacity' must have one value per row ({rows}); got "
                         f"{cap.shape[0]}")
    p = check_number("pga", "p_watch", p_watch, lo=0, hi=1, lo_open=True)
    check_number("pga", "threshold", threshold)
    check_number("pga", "min_games", min_games, lo=0, integer=True)
    bad = (st < 1) | (st != np.round(st)) | (st > cap)
    if bad.any():
        i = int(np.argmax(bad))
        raise fail_at("seat", f"must be a whole number 1..capacity ({cap[i]:g})", st, i,
                      source)
    bad = wt <= 0
    if bad.any():
        raise fail_at("watchers", "must be positive", wt, int(np.argmax(bad)), source)
    index, (ids,) = PlayerIndex.intern(pl, names=["player"], source=source)
    m = len(index)
    empty = cap - st
    # No pair records are built and sorted: the seatings go in game-then-seat order (a
    # log written game by game in seat order needs no sort: one O(rows) check), then
    # into a CSR by player (his games in game order); each player's walk over his games
    # sums every table-mate's counts in a slot and writes his pairs, table-mates
    # radix-sorted by id. A first walk counts the pairs to size the output. Players are
    # split over threads in contiguous ranges; each writes only his own output rows.
    starts, order = _seating_order(g, st)
    if starts is None:
        _raise_seating_error(g, st, ids, pl, source)
    po = np.empty(rows, np.int64)
    block = np.empty((rows, 3))
    _seat_block_kernel(ids, wt, empty, np.empty(0, np.int64) if order is None else order,
                       po, block)
    if _repeated_player_kernel(starts, po):
        _raise_seating_error(g, st, ids, pl, source)
    offsets = np.zeros(m + 1, np.int64)
    seated = np.empty((rows, 3), np.int64)
    _player_games_kernel(po, starts, offsets, seated)
    totals = np.empty((m, 3))
    totals[:, 0] = np.bincount(ids, minlength=m)
    totals[:, 1] = np.bincount(ids, weights=wt, minlength=m)
    totals[:, 2] = np.bincount(ids, weights=empty, minlength=m)
    chunks = _player_chunks(offsets)
    count = np.empty(m, np.int64)
    _in_threads(chunks, lambda lo, hi: _pga_count_kernel(
        lo, hi, offsets, seated, po, np.full(m, -1, np.int64), count))
    out_start = np.zeros(m + 1, np.int64)
    np.cumsum(count, out=out_start[1:])
    k_pairs = int(out_start[m])
    names = index.names
    numeric = names.dtype == np.int64
    label = require(names, np.int64) if numeric else np.arange(m, dtype=np.int64)
    x = np.empty(k_pairs, np.int64)
    y = np.empty(k_pairs, np.int64)
    games = np.empty(k_pairs, np.int64)
    joins = np.empty(k_pairs, np.int64)
    expected, ppc, apc, pval = (np.empty(k_pairs) for _ in range(4))
    flagged = np.empty(k_pairs, np.bool_)
    bits = max(1, (m - 1).bit_length())
    passes = -(-bits // 10)
    width = -(-bits // passes)

    def run(lo: int, hi: int) -> None:
        _pga_pairs_kernel(lo, hi, offsets, seated, block, totals, label, p, float(threshold),
                          float(min_games), out_start, np.full(m, -1, np.int64),
                          np.empty(m, np.int64), np.empty((m, 2), np.int64), np.empty((m, 4)),
                          np.empty(m, np.int64), np.empty((1 << width) + 1, np.int64), width,
                          passes, x, y, games, joins, expected, ppc, apc, pval, flagged)

    _in_threads(chunks, run)
    if not numeric:
        x, y = names[x], names[y]
    return {"x": x, "y": y, "games": games, "joins": joins, "expected": expected, "ppc": ppc,
            "apc": apc, "p_value": pval, "flagged": flagged}


def _seating_order(g: np.ndarray,
                   st: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(game starts plus the end, the rows in game-then-seat order or None when they
    already are) for :func:`pga`; games in sorted order of their keys, as NumPy's
    ``unique`` numbers them. Returns None for the starts when a seat repeats in a game.

    Keys that never decrease need no sort (one O(rows) check); otherwise integer keys
    in a range of at most 4 x rows get their codes from a direct table and others from
    ``np.unique``, then a counting sort by code and an insertion sort by seat."""
    rows = g.shape[0]
    starts = np.empty(rows + 1, np.int64)
    n_games = -1
    key = None
    if g.dtype.kind == "f" and g.dtype.itemsize <= 8:
        key = require(g, np.float64)
    elif g.dtype.kind in "iu" and g.dtype.itemsize <= 8 and not (
            g.dtype == np.uint64 and rows and g.max() > np.iinfo(np.int64).max):
        key = require(g, np.int64)
    if key is not None:
        n_games = _game_runs_kernel(key, starts)
    if n_games >= 0:
        starts = starts[:n_games + 1]
        order = None
        status = _seat_order_kernel(starts, st, np.empty(0, np.int64))
        if status == 1:
            order = np.arange(rows, dtype=np.int64)
            status = _seat_order_kernel(starts, st.copy(), order)
        return (None if status else starts), order
    codes = np.empty(rows, np.int64)
    lo = hi = 0
    if key is not None and key.dtype == np.int64:
        lo, hi = int(key.min()), int(key.max())
    if key is not None and key.dtype == np.int64 and hi - lo < 4 * rows:
        n_games = _game_codes_kernel(key, lo, np.zeros(hi - lo + 1, np.int64), codes)
    else:
        _, inv = np.unique(g, return_inverse=True)
        codes[:] = inv.reshape(-1)
        n_games = int(codes.max()) + 1 if rows else 0
    starts = np.zeros(n_games + 1, np.int64)
    order = np.empty(rows, np.int64)
    seat_sorted = np.empty(rows)
    _group_rows_kernel(codes, st, starts, order, seat_sorted)
    return (None if _seat_order_kernel(starts, seat_sorted, order) else starts), order


def _raise_seating_error(g: np.ndarray, st: np.ndarray, ids: np.ndarray,
                         pl: np.ndarray, source: Source = NO_SOURCE) -> NoReturn:
    """The error for a seat or a player that repeats within a game, naming the row as
    the first duplicate in (game, seat) order and then (game, player) order."""
    _, gid = np.unique(g, return_inverse=True)
    gid = gid.astype(np.int64).reshape(-1)
    order = np.lexsort((st.astype(np.int64), gid))
    go, so, po = gid[order], st[order], ids[order]
    dup = (go[1:] == go[:-1]) & (so[1:] == so[:-1])
    if dup.any():
        raise fail_at("seat", "must not repeat within a game", st,
                      int(order[1:][np.argmax(dup)]), source)
    o2 = np.lexsort((po, go))
    dup = (go[o2][1:] == go[o2][:-1]) & (po[o2][1:] == po[o2][:-1])
    raise fail_at("player", "must not repeat a player within a game", pl,
                  int(order[o2[1:][np.argmax(dup)]]), source)


#: below this many seatings a single thread does the pair work
_PGA_MIN_ROWS_PER_THREAD = 100_000


def _player_chunks(offsets: np.ndarray) -> list[tuple[int, int]]:
    """Contiguous ranges of players with about equal numbers of seatings, one per thread
    (the results do not depend on the split: every player writes his own rows)."""
    m = offsets.shape[0] - 1
    rows = int(offsets[-1])
    threads = max(1, min(numba.get_num_threads(), rows // _PGA_MIN_ROWS_PER_THREAD, m))
    cuts = [0] + [int(np.searchsorted(offsets, rows * t // threads)) for t in
                  range(1, threads)] + [m]
    return [(lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo] or [(0, m)]


def _in_threads(chunks: list[tuple[int, int]], fn: Any) -> None:
    """``fn(lo, hi)`` for every chunk, one Python thread each (the kernels release the
    GIL)."""
    if len(chunks) == 1:
        fn(*chunks[0])
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        for f in [pool.submit(fn, lo, hi) for lo, hi in chunks]:
            f.result()
