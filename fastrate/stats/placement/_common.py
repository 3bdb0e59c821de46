"""What several modules of :mod:`fastrate.stats.placement` share (private to the package).

* the KDice payoff table, buy-in and GPG cap (public through :mod:`.payoff`);
* the chi-square kernel with its Yates cell (TAPL/TAZD/TAKBE and TAOWR/TAOLZ use it, one
  reference profile for all rows or one per row), the chi-square tail, the row sums of the
  TAZD*, CI and games-behind kernels and the standings kernel (games behind the leader);
* the input checks: a counts matrix (:func:`as_counts`), the ``yates`` option, the payoff
  table, per-player arrays, the mean and spread of a reference profile, and a placement
  log's players, places and game keys (:func:`log_ids`, :func:`game_keys`).

Counts go to the kernels flattened row-major with ``k`` (row ``i`` is
``counts[i*k:(i+1)*k]``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._special import chi2_sf
from fastrate._validate import (
    NO_SOURCE,
    Source,
    as_1d,
    as_float64,
    check_number,
    fail_at,
    require,
)
from fastrate.data import PlayerIndex
from fastrate.errors import ConfigError, InputError, InputTypeError

#: KDice payoff of 1st..7th place at the 60-point (level 0) tables
KDICE_PAYOFF = (60.0, 42.0, 35.0, 0.0, -35.0, -42.0, -60.0)
KDICE_BUY_IN = 60.0
#: GPG cap (the essay's guard against a tiny CI)
GPG_CAP = 6000.0


# ----------------------------------------------------------------------------------
# kernels (counts flattened row-major; k places per player)


@inline_kernel
def cell(d, use):
    """One chi-square numerator: d^2, or with Yates max(|d| - 0.5, 0)^2."""
    if use:
        d = abs(d) - 0.5
        if d < 0.0:
            d = 0.0
    return d * d


@kernel
def chi2_kernel(counts, k, ref, ref_stride, yates, out_chi2, out_n):
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
            s += cell(c - e, use) / e
        out_chi2[i] = s


@kernel
def pvalue_kernel(chi2, df, out):
    """Upper tail of chi-square, ``out[i] = Q(df[i]/2, chi2[i]/2)``."""
    for i in range(out.shape[0]):
        out[i] = chi2_sf(chi2[i], df[i])


@inline_kernel
def row_sums(counts, base, k, weight):
    """A row's total count ``n`` and its weighted sum ``sum_j counts[base + j] weight[j]``."""
    n = 0.0
    s = 0.0
    for j in range(k):
        c = counts[base + j]
        n += c
        s += c * weight[j]
    return n, s


@kernel
def standings_kernel(games, behind, out):
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


# ----------------------------------------------------------------------------------
# input checks


def as_counts(counts: Any, name: str = "counts") -> tuple[np.ndarray, bool]:
    """(C-contiguous 2-D float64 counts, whether the input was one player); integer
    counts are checked as integers, then converted (exactly)."""
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
    # whole-number counts are exact in float64 (below 2^53): one specialisation of every
    # statistics kernel instead of two (half the placement warm-up), the same numbers
    return np.require(out, np.float64, ["C", "A", "W"]), single


def one_or_all(x: np.ndarray, single: bool) -> Any:
    """A float for one profile (``single``), else the array of every player's values."""
    return float(x[0]) if single else x


def yates_mode(yates: Any) -> int:
    """The kernels' code of the ``yates`` option: 0 off, 1 on, 2 ``"auto"``."""
    if isinstance(yates, (bool, np.bool_)):
        return int(bool(yates))
    if isinstance(yates, str) and yates == "auto":
        return 2
    raise ConfigError(f"'yates' must be True, False or 'auto'; got {yates!r}")


def payoff_table(payoff: Any, k: int, buy_in: float) -> np.ndarray:
    """The checked payoff of each of the ``k`` places (KDice's by default, k = 7 only)."""
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


def moments(ref: np.ndarray) -> tuple[float, float]:
    """Mean place and its standard deviation under the profile ``ref``."""
    places = np.arange(1, ref.shape[0] + 1, dtype=np.float64)
    mu = float(np.dot(ref, places))
    sigma = math.sqrt(float(np.dot(ref, (places - mu) ** 2)))
    return mu, sigma


def per_player(x: Any, name: str) -> np.ndarray:
    """``x`` as finite float64 values (one per player)."""
    arr = np.asarray(x, dtype=np.float64)
    if not np.isfinite(arr).all():
        raise InputError(f"'{name}' must be finite")
    return arr


def is_uniform(reference: Any) -> bool:
    """No reference, or the pure-luck one by name (``"uniform"``, ``"tapl"``)."""
    return reference is None or (isinstance(reference, str)
                                 and reference.lower() in ("uniform", "tapl"))


def game_keys(game: Any, rows: int, source: Source = NO_SOURCE) -> np.ndarray:
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


def log_ids(players: Any, places: Any, k: int | None, game: Any, allow_ties: bool,
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
        only_first = k == 1  # nobody was ever second: one-player "games" (refused below)
        k = max(k, 2)
    else:
        only_first = False
    check_number("place_counts", "k", k, lo=2, integer=True)
    k = int(k)
    bad = (pos < 1) | (pos > k)
    if bad.any():
        raise fail_at("place", f"must be in 1..{k}", pos, int(np.argmax(bad)), source)
    index, (ids,) = PlayerIndex.intern(pl, names=["player"], source=source)
    if game is not None:
        g = game_keys(game, pos.shape[0], source)
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
    if only_first:
        raise InputError(f"column '{source.column('place')}' holds only 1st places: a "
                         "placement game has at least two players, and these test nothing; "
                         "give the number of places k (--places) if they are wins in larger "
                         "games")
    return index, require(ids, np.int64), pos, k
