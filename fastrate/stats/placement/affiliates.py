"""Pre-game affiliate detection (essay §viii, :func:`pga`): from a seating log, the
passive participation coefficient ``PPC = f sqrt(w n / (p e))`` of every ordered pair of
players who shared a table, its mirror APC and the Poisson p-value of the observed joins.

The seatings go in game-then-seat order (one O(rows) check when the log already is),
then into a CSR by player; each player's walk over his games counts every table-mate in
a slot and writes his pairs. Players are split over threads in contiguous ranges.
"""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numba
import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._special import gammp
from fastrate._validate import NO_SOURCE, Source, as_1d, as_float64, check_number, fail_at, require
from fastrate.data import PlayerIndex
from fastrate.errors import InputError
from fastrate.stats.placement._common import game_keys

__all__ = ["pga"]


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
    g = game_keys(game, rows, source)
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
