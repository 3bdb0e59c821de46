"""TAOWR / TAOLZ (essay §iv): the test against the player's own profile at his lowest
rating / at his last return to zero, from a placement log with times and points won.

One Numba pass over the time-sorted log follows every player's running points total and
snapshots his profile at the reference point (:func:`own_reference_profiles`); the
statistic is the TAPL one, by the same chi-square kernel with a profile per player
(:func:`own_reference_stats`, :func:`taowr`, :func:`taolz`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._validate import NO_SOURCE, Source, as_float64, check_choice, check_number, require
from fastrate.data import parse_time
from fastrate.errors import ConfigError, InputError
from fastrate.stats.placement._common import chi2_kernel, log_ids, pvalue_kernel, yates_mode

__all__ = ["OWN_REFERENCES", "OWN_STATUS", "own_reference_profiles", "own_reference_stats",
           "taowr", "taolz"]

#: the essay's tests against the player's own earlier profile (§iv)
OWN_REFERENCES = ("taowr", "taolz")
#: the ``status`` of a player in :func:`own_reference_stats`, in order of precedence
OWN_STATUS = ("ok", "no_reference_games", "never_at_level", "no_games_after", "zero_expected")


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
    index, ids, pos, k = log_ids(players, places, k, game, allow_ties, source)
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
    mode = yates_mode(yates)
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
    # whole counts, exact in float64: the one specialisation of chi2_kernel (as_counts)
    obs = require((counts - refc if observed == "after" else counts).reshape(-1), np.float64)
    has_ref = t > 0
    denom = np.where(has_ref, t + k * a, 1.0)
    ref = np.where(has_ref[:, None], (refc + a) / denom[:, None], 1.0 / k)
    chi2 = np.empty(m)
    n = np.empty(m)
    chi2_kernel(obs, k, require(ref.reshape(-1), np.float64), k, mode, chi2, n)
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
    pvalue_kernel(chi2, df, pval)
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
