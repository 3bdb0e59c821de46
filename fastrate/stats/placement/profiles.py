"""Profiles: a placement log (or :class:`fastrate.Matches`) into place counts, reference
profiles, and counts from percentages.

A player's *profile* is the count of his 1st, 2nd, ..., k-th places; the statistics of
:mod:`fastrate.stats.placement` take every player's profile as a ``(n_players, k)``
matrix. Reference profiles (:func:`reference_profile`) are normalised to sum to 1; a user
profile that was off by more than 1% (of 1, or of 100 for percentages) raises a
:class:`ProfileWarning`. The two published profiles sum to 95.3 (TAZD) and 98 (TAKBE);
they are normalised here, silently (documented).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    as_float64,
    check_number,
    check_type,
    fail_at,
    format_value,
)
from fastrate.data import Matches, PlayerIndex
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.stats.placement._common import as_counts, is_uniform, log_ids

__all__ = ["ProfileWarning", "TAZD_PROFILE", "TAKBE_PROFILE", "reference_profile",
           "profile_from_counts", "counts_from_percentages", "place_counts",
           "profiles_from_log", "profiles_from_matches"]


class ProfileWarning(UserWarning):
    """A reference profile did not sum to 1 (or 100) within 1% and was normalised."""


#: the essay's zero-score profile (percent of 1st..7th places; sums to 95.3)
TAZD_PROFILE = (10.0, 10.0, 10.3, 12.9, 15.5, 17.2, 19.4)
#: the essay's known-bad profile (sums to 98)
TAKBE_PROFILE = (3.0, 3.0, 6.0, 20.0, 28.0, 21.0, 17.0)


def reference_profile(reference: Any = None, k: int = 7) -> np.ndarray:
    """The reference profile as fractions summing to 1 (float64, length ``k``).

    ``None``/``"uniform"``/``"tapl"`` (pure luck), ``"tazd"``, ``"takbe"`` (k = 7 only),
    or any sequence of k positive numbers (fractions or percentages). A profile whose sum
    is off by more than 1% of both 1 and 100 is normalised with a :class:`ProfileWarning`.
    """
    if is_uniform(reference):
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
    arr, single = as_counts(counts)
    if not single:
        raise InputError(f"profile_from_counts takes one profile; got {arr.shape[0]} rows")
    total = float(arr.sum())
    if total <= 0:
        raise InputError("profile_from_counts needs at least one game; got all zeros")
    return arr[0] / total


def counts_from_percentages(percentages: Any, games: Any) -> np.ndarray:
    """Float counts ``percentages / 100 * games`` from a profile in percent (as KDice
    shows it) and the number of games; every statistic then follows as from counts
    (TAPL from percentages is ``sum((e% - a%)^2 / e%) * sqrt(n) * 1000``)."""
    pct, single = as_counts(np.asarray(percentages, dtype=np.float64), "percentages")
    g = np.asarray(games, dtype=np.float64).reshape(-1)
    if g.shape[0] not in (1, pct.shape[0]):
        raise InputError(f"'games' must be one number or one per player ({pct.shape[0]}); "
                         f"got {g.shape[0]}")
    if not np.isfinite(g).all() or (g < 0).any():
        raise InputError(f"'games' must be finite and non-negative; got {g[~(g >= 0)][:1]}")
    out = pct / 100.0 * g[:, None]
    return out[0] if single else out


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
    index, ids, pos, k = log_ids(players, places, k, game, allow_ties, source)
    return index, _counts(ids, pos, len(index), k)


def _counts(ids: np.ndarray, pos: np.ndarray, n: int, k: int) -> np.ndarray:
    """The ``(n, k)`` int64 place counts of rows with player ``ids`` and places ``pos``."""
    counts = np.bincount(ids * k + (pos - 1), minlength=n * k).astype(np.int64)
    return counts.reshape(n, k)


def profiles_from_log(players: Any, places: Any, k: int | None = None, *, game: Any = None,
                      points: Any = None, level: Any = None, allow_ties: bool = False,
                      source: Source = NO_SOURCE) -> dict[str, Any]:
    """Everything :func:`placement_stats` needs from a placement log.

    Returns a dict with ``players`` (a :class:`PlayerIndex`), ``counts`` (as
    :func:`place_counts`), ``points`` (each player's total of the ``points`` column, or
    None) and ``levels`` (percentage of each player's games at table levels 0..5 from
    the ``level`` column of whole numbers 0..5, or None)."""
    index, ids, pos, k = log_ids(players, places, k, game, allow_ties, source)
    return _profiles(index, ids, _counts(ids, pos, len(index), k), points, level, "row",
                     source)


def profiles_from_matches(matches: Matches, k: int | None = None, *, points: Any = None,
                          level: Any = None, allow_ties: bool = False) -> dict[str, Any]:
    """:func:`profiles_from_log` for free-for-all :class:`fastrate.Matches`: every team
    one player, his place the team's rank.

    A KDice placement log is such a container (``Matches.from_arrays(game, None, player,
    place=place)``, or :func:`fastrate.read_matches`), and for a log whose every game
    lists its players with the places 1..P the result is the one of
    ``profiles_from_log(player, place, game=game)``: the same ``players`` (the
    container's :class:`PlayerIndex`; a player it lists without a seat has a row of
    zeros), ``counts``, ``points`` and ``levels``. A match's ranks are standard
    competition ranks (only the order of the places counts): tied players (refused
    unless ``allow_ties=True``) each count their shared rank, and a game that skips a
    place is counted by its ranks (places 1, 2, 4 count as 1, 2, 3). ``k`` defaults to
    the largest rank (at least 2). ``points`` and ``level`` hold one value per seat in
    the container's seat order (``matches.player``; a column in input row order ``x`` is
    ``x[matches.row]``). Seat weights are not used: every seat is one game.

    >>> import numpy as np
    >>> from fastrate import Matches
    >>> m = Matches.from_arrays([1, 1, 1, 2, 2, 2], None, ["a", "b", "c", "c", "a", "b"],
    ...                         place=[1, 2, 3, 1, 2, 3])
    >>> profiles_from_matches(m)["counts"]
    array([[1, 1, 0],
           [0, 1, 1],
           [1, 0, 1]])

    A team match (a team of two or more players) raises :class:`InputError`: a team's
    rank is not one player's place."""
    check_type(matches, Matches, "profiles_from_matches() needs a fastrate.Matches",
               "build one with Matches.from_arrays or fastrate.read_matches")
    size = np.diff(matches.team_player_offsets)
    labels = (np.arange(matches.n_matches) if matches.match_labels is None
              else matches.match_labels)
    team_match = matches.team_match()

    def where(team: int) -> str:
        return f"match {format_value(labels[team_match[team]])}"

    if (size != 1).any():
        t = int(np.argmax(size != 1))
        raise InputError(f"profiles_from_matches takes free-for-all matches (one player per "
                         f"team); found a team of {int(size[t])} players in {where(t)}; "
                         "placement profiles count one player's place per game")
    rank = matches.rank  # one seat per team: the seat's rank
    if k is None:
        k = max(int(rank.max()) if rank.shape[0] else 2, 2)
    check_number("profiles_from_matches", "k", k, lo=2, integer=True)
    k = int(k)
    if (rank > k).any():
        t = int(np.argmax(rank > k))
        raise InputError(f"rank must be in 1..{k} (k); found {int(rank[t])} in {where(t)}; "
                         "pass a larger k")
    if not allow_ties:
        tie = (rank[1:] == rank[:-1]) & (team_match[1:] == team_match[:-1])
        if tie.any():
            t = int(np.argmax(tie)) + 1
            raise InputError(f"ranks must not repeat within a match (a tie); found two "
                             f"players at rank {int(rank[t])} in {where(t)}; pass "
                             "allow_ties=True to allow")
    ids = matches.player
    return _profiles(matches.players, ids, _counts(ids, rank, matches.n_players, k), points,
                     level, "seat", NO_SOURCE)


def _profiles(index: PlayerIndex, ids: np.ndarray, counts: np.ndarray, points: Any,
              level: Any, unit: str, source: Source) -> dict[str, Any]:
    """The dict of :func:`profiles_from_log`: counts, and the ``points`` totals and
    ``level`` percentages of the rows (or seats: ``unit``) of players ``ids``."""
    n = len(index)
    rows = ids.shape[0]
    games = counts.sum(axis=1).astype(np.float64)
    out: dict[str, Any] = {"players": index, "counts": counts, "points": None, "levels": None}
    if points is not None:
        pts = as_float64(points, "points", source)
        if pts.shape[0] != rows:
            raise InputError(f"column 'points' must have one value per {unit} ({rows}); "
                             f"got {pts.shape[0]}")
        out["points"] = np.bincount(ids, weights=pts, minlength=n)
    if level is not None:
        lv = as_float64(level, "level", source)
        if lv.shape[0] != rows:
            raise InputError(f"column 'level' must have one value per {unit} ({rows}); "
                             f"got {lv.shape[0]}")
        bad = (lv < 0) | (lv > 5) | (lv != np.round(lv))
        if bad.any():
            raise fail_at("level", "must be a whole table level 0..5", lv,
                          int(np.argmax(bad)), source)
        cells = np.bincount(ids * 6 + lv.astype(np.int64), minlength=n * 6).reshape(n, 6)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["levels"] = np.where(games[:, None] > 0, 100.0 * cells / games[:, None], 0.0)
    return out
