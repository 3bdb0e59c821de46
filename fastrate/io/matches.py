"""Reading multiplayer and team results (long format) from CSV/Parquet/JSON into
:class:`fastrate.data.Matches`."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

from fastrate.data.matches import Matches, match_layout, matches_from_table
from fastrate.errors import MissingColumnError
from fastrate.io.tables import check_path, read_needed_columns

__all__ = ["read_matches", "long_format_or_games"]

T = TypeVar("T")


def read_matches(path: str | os.PathLike, *, match: str | None = None,
                 team: str | bool | None = None, player: str | None = None,
                 rank: str | None = None, place: str | None = None, score: str | None = None,
                 higher_is_better: bool | None = None, weight: str | None = None,
                 time: str | None = None, time_format: str | None = None, period: Any = None,
                 unranked: str = "error", sort: bool = True,
                 format: str | None = None, encoding: str = "utf-8") -> Matches:
    """Read matches from a long-format file: one row per player seat (CSV, also
    compressed, Parquet or JSON).

    Columns are recognised by name (:func:`fastrate.data.matches.match_layout`): the
    match (``match``, ``game``, ``event``, ``race`` and their ``_id`` forms), the team
    (``team``; without one every player is a team of his own: free-for-all), the player
    (``player``, ``driver`` ...), a rank (``rank``, ``place``, ``position``: lower is
    better) or a score (``score``, ``points``: higher is better), and optionally
    ``weight`` and a time (``time``, ``date`` ...). Map them explicitly with ``match=``,
    ``team=`` (``False``: free-for-all even if there is a team column), ``player=``,
    ``rank=``/``place=``/``score=``, ``weight=``, ``time=``. ``period`` is a column of
    period labels or a length spec (``"1w"``); ``unranked`` and ``sort`` as in
    :meth:`Matches.from_arrays`. A KDice placement log (``game, player, place[, points,
    level, time]``) reads as free-for-all matches ranked by place.

    Only the columns the matches need are read (CSV and Parquet); errors name the
    file's column, row and line. ``encoding``: the text encoding of a CSV or JSON file
    (default UTF-8); text that does not decode is refused.
    """
    path = check_path(path)
    options: dict[str, Any] = dict(match=match, team=team, player=player, rank=rank,
                                   place=place, score=score, weight=weight, time=time,
                                   period=period)
    table, src = read_needed_columns(
        path, format, lambda names, where: match_layout(names, where, **options).columns(),
        lambda names, where: [match_layout(names, where, **options).player],
        encoding=encoding)
    return matches_from_table(table, **options, higher_is_better=higher_is_better,
                              time_format=time_format, unranked=unranked, sort=sort,
                              source=src)


def long_format_or_games(read_long: Callable[[], T], read_games: Callable[[], T]) -> T:
    """``read_long()`` (a long-format reader); when the input has no match column,
    ``read_games()`` instead (two-player games, for a system that rates matches). If the
    input does not read as games either (no player columns), the long-format reader's
    error is the one raised; any other error of the games reader is the games' own."""
    try:
        return read_long()
    except MissingColumnError as e:
        if e.role != "match":
            raise
        try:
            return read_games()
        except MissingColumnError as e2:
            if e2.role == "player":
                raise e from None
            raise
