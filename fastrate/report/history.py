"""The data the pictures need (layer 4): rating trajectories of any registered system,
the per-player columns a rating table shows, and a data set's summary.

:func:`rating_history` rates the data in consecutive slices, each continuing from the
state the previous one left (``initial=``: a continued run equals the full run, as
every registered system guarantees; ``tests/test_systems.py`` checks it), and keeps
each player's rating and uncertainty at the end of every slice in which he played.
Slices end at rating-period boundaries when the data has periods (so a period is never
cut), else at evenly spaced games.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from fastrate.data import Games, Matches, RatingHistory, Ratings, period_starts
from fastrate.data.games import GAME_ARRAYS
from fastrate.errors import ConfigError
from fastrate.systems import SystemSpec

__all__ = ["rating_history", "snapshots", "center_and_uncertainty", "rating_table",
           "data_summary", "UNCERTAINTY_COLUMNS"]

#: state columns read as a rating's uncertainty (a standard deviation on the rating scale)
UNCERTAINTY_COLUMNS = ("rd", "sigma")

#: per-item arrays of the containers, by what they are indexed by
_MATCH_ARRAYS = ("time", "period", "match_labels")
_TEAM_ARRAYS = ("rank", "team_labels", "score")
_SEAT_ARRAYS = ("player", "weight", "row")


def n_items(data: Games | Matches) -> int:
    """Games or matches in ``data``."""
    return data.n_games if isinstance(data, Games) else data.n_matches


def slice_data(data: Games | Matches, lo: int, hi: int) -> Games | Matches:
    """The games (matches) ``lo:hi`` of ``data`` in stored order, with the same player
    index (so ids stay the same)."""
    if isinstance(data, Games):
        return dataclasses.replace(data, order=None, dropped=(), **{
            k: None if getattr(data, k) is None else getattr(data, k)[lo:hi]
            for k in GAME_ARRAYS})
    mto, tpo = data.match_team_offsets, data.team_player_offsets
    t0, t1 = int(mto[lo]), int(mto[hi])
    s0, s1 = int(tpo[t0]), int(tpo[t1])
    parts: dict[str, Any] = {}
    for names, a, b in ((_MATCH_ARRAYS, lo, hi), (_TEAM_ARRAYS, t0, t1),
                        (_SEAT_ARRAYS, s0, s1)):
        for k in names:
            x = getattr(data, k)
            parts[k] = None if x is None else x[a:b]
    return dataclasses.replace(data, match_team_offsets=mto[lo:hi + 1] - t0,
                               team_player_offsets=tpo[t0:t1 + 1] - s0, dropped=(), **parts)


def _whole_periods(spec: SystemSpec) -> bool:
    return spec.system.period_based or getattr(spec.config, "update", None) == "period"


def cut_points(data: Games | Matches, spec: SystemSpec, points: int) -> np.ndarray:
    """Where the slices end (exclusive item indices, the last = all items): at most
    ``points`` of them, at period boundaries when the data has periods."""
    n = n_items(data)
    if data.period is not None:
        ends = period_starts(data.period)[1:]
        pick = np.unique(np.round(np.linspace(0, ends.shape[0] - 1, min(points, ends.shape[0]))))
        return ends[pick.astype(np.int64)]
    if _whole_periods(spec):
        return np.array([n], dtype=np.int64)
    return np.unique(np.round(np.linspace(n / points, n, points)).astype(np.int64))


def when_of(data: Games | Matches, ends: np.ndarray) -> tuple[np.ndarray, str]:
    """The time (or period, or item count) at the end of each slice, and its kind."""
    last = ends - 1
    if data.time is not None:
        return data.time[last], "time"
    if data.period is not None:
        return data.period[last], "period"
    return ends.astype(np.int64), "row"


def center_and_uncertainty(ratings: Ratings) -> tuple[np.ndarray, np.ndarray | None]:
    """The rating a trajectory draws (``mu`` for the skill systems, whose ``rating`` is
    already the conservative ``mu - k*sigma``; else ``rating``) and its standard
    deviation (``rd`` or ``sigma``; None for systems without one)."""
    state = ratings.state
    center = state["mu"] if "mu" in state else ratings.rating
    unc = next((state[k] for k in UNCERTAINTY_COLUMNS if k in state), None)
    return center, unc


def snapshots(data: Games | Matches, system: Any, points: int = 100
              ) -> Iterator[tuple[Any, Ratings]]:
    """``(when, ratings)`` at the end of each slice of ``data`` (see the module notes);
    the last ratings are the full run's. Batch systems have no trajectory (each point
    would be a refit): a :class:`~fastrate.errors.ConfigError`."""
    spec = SystemSpec.of(system)
    if spec.system.batch:
        raise ConfigError(f"{spec.label} is a batch fit of all games at once: it has no "
                          "rating trajectory; draw one of an online system (elo, glicko2 ...)")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 1:
        raise ConfigError(f"points must be an integer >= 1; got {points!r}")
    if spec.system.data == "games" and isinstance(data, Matches):
        if not data.is_two_player():
            raise ConfigError(f"rating system {spec.name!r} rates two-player games; these "
                              "matches have teams or more than two sides")
        data = data.to_games()
    ends = cut_points(data, spec, int(points))
    when, _ = when_of(data, ends)
    state: Ratings | None = None
    lo = 0
    for i, hi in enumerate(ends.tolist()):
        part = slice_data(data, lo, hi)
        state = spec.rate(part, initial=state, predictions=False)
        lo = hi
        yield when[i], state


def pregame_ratings(games: Games, system: Any, initial: Any = None
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Both players' ratings before every game, in input order, for a system that
    updates once per rating period (Glicko, Glicko-2, Stephenson): the ratings at the
    onset of the game's period, taken by rating the periods one after the other, each
    continuing exactly from the last (the same ratings as one run). ``initial``: the
    run's starting ratings. Elo records them itself (``record_pregame=True``)."""
    from fastrate.data.state import PlayerState

    spec = SystemSpec.of(system)
    if not _whole_periods(spec) or games.period is None:
        raise ConfigError(f"{spec.label}: pre-game ratings by period need a system that "
                          "updates once per rating period, and games with periods")
    ends = period_starts(games.period)[1:]
    pre_white = np.empty(games.n_games, dtype=np.float64)
    pre_black = np.empty(games.n_games, dtype=np.float64)
    start, _ = PlayerState.resolve(games, initial, rating=float(
        getattr(spec.config, "initial_rating", np.nan)))
    rating, index = start.rating, start.players
    ids = _ids_in(index, games)
    state = initial
    lo = 0
    for hi in ends.tolist():
        part = slice_data(games, lo, hi)
        pre_white[lo:hi] = rating[ids[part.white]]
        pre_black[lo:hi] = rating[ids[part.black]]
        state = spec.rate(part, initial=state, predictions=False)
        if state.players is not index:
            index = state.players
            ids = _ids_in(index, games)
        rating = state.rating
        lo = hi
    return games.to_input_order(pre_white), games.to_input_order(pre_black)


def _ids_in(index: Any, games: Games) -> np.ndarray:
    """The ids of ``games``' players in the player index ``index``."""
    if index is games.players:
        return np.arange(len(games.players), dtype=np.int64)
    lookup = index.lookup
    return np.array([lookup[x] for x in games.players.names.tolist()], dtype=np.int64)


def rating_history(data: Games | Matches, system: Any, players: Sequence[Any] | None = None,
                   points: int = 100) -> RatingHistory:
    """Every player's rating (``mu`` for the skill systems) and uncertainty (``rd``,
    ``sigma``; NaN without one) at the end of each slice of ``data`` in which he played
    (at most ``points`` slices, at period boundaries when there are periods).
    ``players``: names to keep (default: all)."""
    keep = None
    if players is not None:
        keep = np.zeros(len(data.players), dtype=bool)
        for name in players:
            keep[data.players.id_of(name)] = True
    spec = SystemSpec.of(system)
    who, at, rate, unc_all = [], [], [], []
    prev = np.zeros(len(data.players), dtype=np.int64)
    index = data.players
    for when, r in snapshots(data, spec, points):
        played = r.games_played.astype(np.int64)
        active = played > prev
        prev = played
        if keep is not None:
            active &= keep
        ids = np.flatnonzero(active)
        center, unc = center_and_uncertainty(r)
        who.append(ids)
        at.append(np.repeat(np.asarray(when), ids.shape[0]))
        rate.append(center[ids])
        unc_all.append(np.full(ids.shape[0], np.nan) if unc is None else unc[ids])
    kind = "time" if data.time is not None else "period" if data.period is not None else "row"
    return RatingHistory.from_points(index, np.concatenate(who), np.concatenate(at),
                                     np.concatenate(rate), np.concatenate(unc_all),
                                     when_kind=kind)


def rating_table(ratings: Ratings) -> dict[str, np.ndarray]:
    """The columns a rating table shows, best first: ``rank``, ``player``, ``rating``,
    the uncertainty (``rd``/``sigma``) and the conservative rating ``mu - 2 sigma``
    (``rating - 2 rd``) where the system has one, and ``games``."""
    center, unc = center_and_uncertainty(ratings)
    order = ratings.ranking()
    cols: dict[str, np.ndarray] = {"rank": np.arange(1, order.shape[0] + 1),
                                   "player": ratings.players.names[order],
                                   "rating": ratings.rating[order]}
    if "mu" in ratings.state:
        cols["mu"] = center[order]
    if unc is not None:
        name = next(k for k in UNCERTAINTY_COLUMNS if k in ratings.state)
        cols[name] = unc[order]
        cols["conservative"] = (center - 2.0 * unc)[order]
    cols["games"] = ratings.games_played[order]
    return cols


def data_summary(data: Games | Matches) -> dict[str, Any]:
    """What the data holds: games (matches), players, the time span (first and last
    time, or period), draws (ties), and rows refused while reading (``dropped``)."""
    out: dict[str, Any] = {}
    if isinstance(data, Games):
        out["games"] = data.n_games
        out["draws"] = int(np.count_nonzero(data.score == 0.5))
    else:
        out["matches"] = data.n_matches
        out["teams"] = data.n_teams
        tm = data.team_match()
        same = np.zeros(data.n_teams, dtype=bool)
        same[1:] = (tm[1:] == tm[:-1]) & (data.rank[1:] == data.rank[:-1])
        out["draws"] = int(np.unique(tm[same]).shape[0])  # matches with a tie
    out["players"] = len(data.players)
    n = n_items(data)
    if data.time is not None and n:
        t = data.time
        out["first"] = _fmt_when(t[0])
        out["last"] = _fmt_when(t[-1])
    elif data.period is not None and n:
        out["first"] = f"period {int(data.period[0])}"
        out["last"] = f"period {int(data.period[-1])}"
    if data.period is not None and n:
        out["periods"] = int(period_starts(data.period).shape[0] - 1)
    out["refused"] = [(reason, int(count), str(first)) for reason, count, first in data.dropped]
    return out


def _fmt_when(x: Any) -> str:
    if isinstance(x, np.datetime64):
        return str(np.datetime_as_string(x, unit="D"))
    return f"{float(x):g}"
