"""Reading placement games from files, for :mod:`fastrate.placement`.

Three readers, each giving NumPy columns and a :class:`~fastrate._validate.Source` so that
the statistics' errors name the file's column, row and line:

- :func:`read_placement`: a **placement log** (``game, player, place[, points, level,
  time]``, one row per player per game) or a **counts table** (``player, p1..pk[,
  points, level0..level5]``, one row per player), told apart by the ``place`` column;
- :func:`read_seating`: a seating log for PGA detection (``game, player, seat,
  watchers[, capacity]``);
- :func:`read_profile`: a reference profile, the k numbers of a text file.

Tables are CSV (also compressed), Parquet or JSON (:func:`fastrate.io.tables.read_table`);
column names are matched case-insensitively. The readers check the layout only (the
columns are there, a counts table's counts are non-negative numbers); the log's values are
checked by the functions of :mod:`fastrate.placement` that take them.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._validate import Source, arrow_to_numpy, as_float64, check_range
from fastrate.errors import InputError
from fastrate.io.tables import read_table, source_for

__all__ = ["PlacementInput", "SeatingLog", "read_placement", "PLACEMENT_COLUMNS",
           "read_seating", "read_profile", "PLACE_COLUMN", "LEVEL_COLUMN"]

#: a counts table's place columns: ``p1``, ``place1``, ``place_1`` ... (any case)
PLACE_COLUMN = re.compile(r"^(?:p|place|place_?)(\d+)$", re.IGNORECASE)
#: a counts table's level columns: ``level0`` .. ``level5``, ``l0``, ``level_0`` ...
LEVEL_COLUMN = re.compile(r"^(?:level|l)_?([0-5])$", re.IGNORECASE)
#: numbers of a profile file: apart by white space, commas, semicolons or the essay's
#: dashes (``10-10-10.3-...``); a minus after a separator or an exponent stays a sign
_PROFILE_SEPARATOR = re.compile(r"[\s,;]+|(?<=[0-9.])-")
_SEATING_COLUMNS = ("game", "player", "seat", "watchers")


@dataclasses.dataclass(frozen=True, eq=False)
class PlacementInput:
    """The columns of a placement file, as :func:`read_placement` found them.

    ``kind`` is ``"log"`` (one row per player per game: ``player``, ``place`` and, when
    the file has them, ``game``, ``points``, ``level``, ``time``, as read) or
    ``"counts"`` (one row per player: ``player``, ``counts`` the ``(n, k)`` matrix of
    1st..k-th places, int64 when every place column is whole numbers, else float64;
    ``points`` float64 and ``levels`` the ``(n, 6)`` level percentages, zero for a level
    without a column, when the file has them). Columns a file lacks are None.
    ``source`` names the file and its columns in error messages; ``columns`` are the
    file's column names.
    """

    kind: str
    player: np.ndarray
    source: Source
    columns: tuple[str, ...]
    place: np.ndarray | None = None
    game: np.ndarray | None = None
    points: np.ndarray | None = None
    level: np.ndarray | None = None
    time: np.ndarray | None = None
    counts: np.ndarray | None = None
    levels: np.ndarray | None = None


@dataclasses.dataclass(frozen=True, eq=False)
class SeatingLog:
    """The columns of a seating log (:func:`read_seating`): one row per player per game;
    ``capacity`` is None when the file has no such column."""

    game: np.ndarray
    player: np.ndarray
    seat: np.ndarray
    watchers: np.ndarray
    capacity: np.ndarray | None
    source: Source


def _lower(table: Any) -> dict[str, str]:
    """Lower-case column name -> the file's name."""
    return {c.lower(): c for c in table.column_names}


def _column(table: Any, cols: dict[str, str], name: str) -> np.ndarray:
    return arrow_to_numpy(table.column(cols[name]))


def _table_source(path: str | os.PathLike, table: Any, cols: dict[str, str],
                  format: str | None) -> Source:
    """Where the rows come from, so errors name the file, its line and its column."""
    if table.num_rows == 0:
        raise InputError(f"no rows: {path} has no data rows (columns: "
                         f"{', '.join(table.column_names)})")
    return dataclasses.replace(source_for(Path(path).name, format),
                               columns=tuple(cols.items()))


#: the columns of a placement file that may be named by the caller (``columns=``)
PLACEMENT_COLUMNS = ("game", "player", "place", "points", "level", "time")


def read_placement(path: str | os.PathLike, format: str | None = None,
                   places: int | None = None, *,
                   check: Callable[[str, tuple[str, ...]], None] | None = None,
                   columns: Mapping[str, str] | None = None) -> PlacementInput:
    """Read a placement log or a counts table (CSV, also compressed, Parquet or JSON).

    A file with a ``place`` column is a log (``game, player, place[, points, level,
    time]``), read as it is: its values are checked by the statistic that takes them
    (:func:`fastrate.placement.profiles_from_log`, ``standings``,
    ``own_reference_stats``). Otherwise it is a counts table: ``player``, the place
    columns ``p1..pk`` (also ``place1`` ..., without gaps; non-negative numbers) and
    optionally ``points`` and ``level0..level5`` (finite numbers). ``places``: the k
    the caller expects; a counts table must then have exactly k place columns (a log's k
    goes to the statistics). ``check(kind, columns)``, when given, runs once the layout
    is known and before its columns are read (e.g. to refuse a counts table for a
    statistic that needs a log's history); ``columns`` are the file's column names.
    ``columns=``: the file's names for any of :data:`PLACEMENT_COLUMNS` (``{"player":
    "nick", "place": "finish"}``), which then stand for them whatever the file's other
    columns are called (names given must match exactly).

    >>> data = read_placement("counts.csv")  # player,p1,p2,p3 / ann,5,3,2  # doctest: +SKIP
    >>> data.kind, data.player.tolist(), data.counts.tolist()  # doctest: +SKIP
    ('counts', ['ann'], [[5, 3, 2]])
    """
    table = read_table(path, format)
    cols = _lower(table)
    for role, name in (columns or {}).items():
        if role not in PLACEMENT_COLUMNS:
            raise InputError(f"no column role {role!r} in a placement file; the roles are "
                             f"{', '.join(PLACEMENT_COLUMNS)}")
        if name not in table.column_names:
            raise InputError(f"no column {name!r} (given for the {role}) in {path} (columns: "
                             f"{', '.join(table.column_names)})")
        cols[role] = name
    if "player" not in cols:
        raise InputError(f"no column 'player' in {path} (columns: "
                         f"{', '.join(table.column_names)}); a log needs game, player, place "
                         "and a counts table player, p1..pk")
    src = _table_source(path, table, cols, format)
    kind = "log" if "place" in cols else "counts"
    if check is not None:  # (the columns given by the caller under their roles)
        role_of = {name: role for role, name in (columns or {}).items()}
        check(kind, tuple(role_of.get(c, c) for c in table.column_names))
    if kind == "log":
        optional = {name: _column(table, cols, name) if name in cols else None
                    for name in ("game", "points", "level", "time")}
        return PlacementInput("log", _column(table, cols, "player"), src,
                              tuple(table.column_names), place=_column(table, cols, "place"),
                              **optional)
    counts = _counts(path, table, places, src)
    points = (as_float64(_column(table, cols, "points"), cols["points"], src)
              if "points" in cols else None)
    return PlacementInput("counts", _column(table, cols, "player"), src,
                          tuple(table.column_names), points=points, counts=counts,
                          levels=_levels(table, counts.shape[0], src))


def _numbered(table: Any, pattern: re.Pattern[str]) -> list[tuple[int, str]]:
    """(number, column) of the columns matching ``pattern``, by number."""
    return sorted(((int(m.group(1)), c) for c in table.column_names
                   if (m := pattern.match(c))), key=lambda t: t[0])


def _counts(path: str | os.PathLike, table: Any, places: int | None,
            src: Source) -> np.ndarray:
    """The ``(n, k)`` place counts of a counts table."""
    place_cols = _numbered(table, PLACE_COLUMN)
    if not place_cols:
        raise InputError(f"{path} has neither a 'place' column (a log: game, player, place) "
                         f"nor p1..pk columns (a counts table); columns: "
                         f"{', '.join(table.column_names)}")
    numbers = [n for n, _ in place_cols]
    if numbers != list(range(1, len(numbers) + 1)):
        raise InputError(f"the place columns of {path} must be p1..pk without gaps; found "
                         f"{', '.join(c for _, c in place_cols)}")
    if places is not None and places != len(numbers):
        raise InputError(f"--places {places} does not match the {len(numbers)} place columns "
                         f"of the counts table {path} (p1..p{len(numbers)}); --places is for "
                         "a log")

    def numbers_of(c: str) -> np.ndarray:
        values = arrow_to_numpy(table.column(c))
        if values.dtype.kind not in "iu":
            values = as_float64(values, c, src)
        check_range(values, c, 0, np.inf, src)
        return values

    return np.column_stack([numbers_of(c) for _, c in place_cols])


def _levels(table: Any, rows: int, src: Source) -> np.ndarray | None:
    """The ``(n, 6)`` level percentages of a counts table, or None without level columns."""
    level_cols = _numbered(table, LEVEL_COLUMN)
    if not level_cols:
        return None
    levels = np.zeros((rows, 6))
    for n, c in level_cols:
        levels[:, n] = as_float64(arrow_to_numpy(table.column(c)), c, src)
    return levels


def read_seating(path: str | os.PathLike, format: str | None = None) -> SeatingLog:
    """Read a seating log for :func:`fastrate.placement.pga`: columns ``game, player,
    seat`` (the order in which players sat down, 1 = first), ``watchers`` (players
    watching when he sat down) and optionally ``capacity`` (the table size), matched
    case-insensitively; the values are checked by ``pga``."""
    table = read_table(path, format)
    cols = _lower(table)
    missing = [c for c in _SEATING_COLUMNS if c not in cols]
    if missing:
        raise InputError(f"no column {', '.join(repr(c) for c in missing)} in {path} "
                         f"(columns: {', '.join(table.column_names)}); a seating log needs "
                         "game, player, seat, watchers")
    src = _table_source(path, table, cols, format)
    game, player, seat, watchers = (_column(table, cols, c) for c in _SEATING_COLUMNS)
    capacity = _column(table, cols, "capacity") if "capacity" in cols else None
    return SeatingLog(game, player, seat, watchers, capacity, src)


def read_profile(path: str | os.PathLike) -> np.ndarray:
    """Read a reference profile: the k numbers of a text file (counts, percentages or
    fractions of 1st..k-th places; :func:`fastrate.placement.reference_profile` checks
    them), in one row or one column, apart by white space, commas, semicolons or the
    essay's dashes (``10-10-10.3-12.9-15.5-17.2-19.4``). A minus after a separator or an
    exponent stays a sign (``1 -2``, ``5e-1``).

    >>> read_profile("tazd.txt").tolist()  # 10-10-10.3-12.9-15.5-17.2-19.4  # doctest: +SKIP
    [10.0, 10.0, 10.3, 12.9, 15.5, 17.2, 19.4]
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    text = [t for t in _PROFILE_SEPARATOR.split(p.read_text()) if t]
    try:
        return np.array([float(x) for x in text])
    except ValueError:
        raise InputError(f"file {path} must hold only the k numbers of a profile (e.g. 10 10 "
                         "10.3 12.9 15.5 17.2 19.4)") from None
