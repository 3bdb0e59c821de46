"""Reading games and ratings from CSV/Parquet/JSON (via pyarrow) and writing results.

Common layouts are recognised (see :func:`games_from_table`); every output file is
written atomically (temporary file in the same folder, then renamed), so a failed run
never leaves a partial file behind.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._validate import Source, arrow_to_numpy, as_1d, numpy_to_arrow
from fastrate._validate import _single_chunk as _one_array
from fastrate.errors import InputError

__all__ = ["read_table", "read_games", "read_ratings", "games_from_table", "write_table",
           "to_arrow_table", "example_path", "load_example", "FORMATS"]

FORMATS = ("csv", "parquet", "json")

#: recognised (first, second) player column pairs, in order of preference
PLAYER_PAIRS = [("white", "black"), ("player1", "player2"), ("player_a", "player_b"),
                ("home_team", "away_team"), ("home", "away"), ("team1", "team2"),
                ("winner", "loser"), ("winner_id", "loser_id"), ("winner_name", "loser_name")]
#: recognised (first, second) points columns, from which score and margin follow
SCORE_PAIRS = [("home_score", "away_score"), ("score1", "score2"), ("white_score", "black_score"),
               ("points1", "points2"), ("goals1", "goals2")]
TIME_COLUMNS = ("time", "date", "datetime", "timestamp", "played_at", "tourney_date")
SCORE_COLUMNS = ("score", "result", "result1", "outcome")


# ----------------------------------------------------------------------------------
# tables in


def to_arrow_table(data: Any):
    """pyarrow Table from a pyarrow Table, pandas/polars DataFrame or dict of columns."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return data
    if hasattr(data, "to_arrow"):  # polars
        return data.to_arrow()
    if type(data).__module__.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, Mapping):
        cols = {}
        for k, v in data.items():
            cols[str(k)] = numpy_to_arrow(as_1d(v, str(k)))
        return pa.table(cols)
    raise InputError(f"expected a table (pyarrow Table, pandas or polars DataFrame, or a dict "
                     f"of columns); got {type(data).__name__}")


def _format_of(path: str | os.PathLike, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        return fmt
    name = str(path).lower()
    for suffix in (".gz", ".bz2", ".zst", ".lz4"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    for ext, f in ((".csv", "csv"), (".tsv", "csv"), (".txt", "csv"), (".parquet", "parquet"),
                   (".pq", "parquet"), (".json", "json"), (".jsonl", "json"),
                   (".ndjson", "json")):
        if name.endswith(ext):
            return f
    raise InputError(f"cannot tell the format of {path}: name it .csv, .parquet or .json, "
                     "or pass --format / format=")


def _delimiter(path: Path) -> str:
    return "\t" if ".tsv" in path.name.lower() else ","


#: CSV block size of the streaming reader (each block is one unit of parallel work and
#: one output chunk; the memory held while reading grows with it)
CSV_BLOCK_SIZE = 1 << 20
#: block size of the whole-file reader (the fallback): big blocks parse compressed files
#: several times faster than the 1 MiB default
CSV_READ_BLOCK_SIZE = 16 << 20


def _csv_header(path: Path) -> list[str]:
    """The column names of a CSV file's first line (compressed files too)."""
    import csv as pycsv

    import pyarrow as pa

    with pa.input_stream(str(path), compression="detect") as fh:
        head = fh.read(1 << 16)
    line = head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8-sig", errors="replace")
    return next(pycsv.reader([line], delimiter=_delimiter(path)), [])


def read_table(path: str | os.PathLike, format: str | None = None,
               columns: list[str] | None = None, text_columns: tuple[str, ...] = ()):
    """Read a CSV (optionally compressed), Parquet or JSON file into a pyarrow Table.

    ``columns`` limits the read to those columns, in that order. ``text_columns``: CSV
    columns (names matched case-insensitively) read as text whatever they look like,
    e.g. a bridge ``result`` column whose ``+1`` must not become the number 1.
    """
    import pyarrow as pa

    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    fmt = _format_of(p, format)
    try:
        if fmt == "csv":
            from pyarrow import csv

            # an empty field is a missing value (a missing name, not a player called '')
            types = {}
            if text_columns:
                want = {c.lower() for c in text_columns}
                types = {c: pa.string() for c in _csv_header(p) if c.lower() in want}
            convert = csv.ConvertOptions(include_columns=columns or [],
                                         strings_can_be_null=True, column_types=types)
            parse = csv.ParseOptions(delimiter=_delimiter(p))
            # the streaming reader holds a few blocks at a time (read_csv holds the whole
            # decompressed file while it parses: ~8x the columns kept, in memory), but it
            # takes the column types from the first block; when a later block does not
            # fit them, read_csv infers them from the whole file
            try:
                return csv.open_csv(p, read_options=csv.ReadOptions(block_size=CSV_BLOCK_SIZE),
                                    parse_options=parse, convert_options=convert).read_all()
            except pa.ArrowInvalid:
                pass
            return csv.read_csv(p, read_options=csv.ReadOptions(block_size=CSV_READ_BLOCK_SIZE),
                                parse_options=parse, convert_options=convert)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(p, columns=columns)
        table = _read_json(p)
        return table.select(columns) if columns else table
    except InputError:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError, KeyError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot read {path} as {fmt}: {msg}") from None


def _read_json(p: Path):
    """JSON: an array of records, an object of columns, or newline-delimited records."""
    import pyarrow as pa

    with pa.input_stream(p, compression="detect") as fh:  # .json.gz works too
        text = fh.read().decode("utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        rows = json.loads(text)
        if not rows:
            raise InputError(f"{p} holds no rows")
        return pa.Table.from_pylist(rows)
    if stripped.startswith("{") and "\n{" not in stripped.strip():
        obj = json.loads(text)
        if isinstance(obj, dict) and all(isinstance(v, list) for v in obj.values()):
            return pa.table(obj)
    from pyarrow import json as pajson

    return pajson.read_json(pa.BufferReader(text.encode("utf-8")))


def _pick(cols: list[str], wanted: str, what: str, where: str) -> str:
    if wanted in cols:
        return wanted
    close = difflib.get_close_matches(wanted, cols, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise InputError(f"no column '{wanted}' for {what} in {where} (columns: {', '.join(cols)})"
                     f"{hint}")


def _find(cols_lower: dict[str, str], names: tuple[str, ...] | list[str]) -> str | None:
    for n in names:
        if n in cols_lower:
            return cols_lower[n]
    return None


_RESULT_STRINGS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "=": 0.5, "draw": 0.5,
                   "d": 0.5, "w": 1.0, "win": 1.0, "l": 0.0, "loss": 0.0}


def _first_null(col) -> int:
    return int(np.argmax(arrow_to_numpy(_one_array(col).is_null())))


def _score_of(text: str) -> float:
    s = text.strip().lower()
    if s in _RESULT_STRINGS:
        return _RESULT_STRINGS[s]
    try:
        return float(s)
    except ValueError:
        return math.nan


def _scores(col, name: str, source: Source) -> np.ndarray:
    """Score column: numbers, or result strings like '1-0', '0-1', '1/2-1/2'."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from fastrate._validate import as_float64, fail_at

    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        # map each distinct string once, then gather
        enc = pc.dictionary_encode(_one_array(col))
        table = np.array([_score_of(v) for v in enc.dictionary.to_pylist()], dtype=np.float64)
        bad_row = -1
        if enc.indices.null_count:
            bad_row = _first_null(enc.indices)
        else:
            out = table[arrow_to_numpy(enc.indices)]
            bad = np.isnan(out)
            if bad.any():
                bad_row = int(np.argmax(bad))
        if bad_row >= 0:
            raise fail_at(name, "must be a score (1, 0.5, 0 or a fraction) or a result "
                          "such as 1-0, 0-1, 1/2-1/2", {bad_row: col[bad_row].as_py()},
                          bad_row, source)
        return out
    if col.null_count:
        raise _missing(name, _first_null(col), source)
    return as_float64(arrow_to_numpy(col), name, source)


def _missing(name: str, row: int, source: Source) -> InputError:
    return InputError(f"column '{name}' must not be missing; found a missing value at "
                      f"{source.where(row)}; drop or fill those rows")


_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def _yyyymmdd(values: np.ndarray, name: str, source: Source) -> np.ndarray:
    """Integer dates such as 20240531 -> datetime64[ns], naming the first impossible one.

    Plain integer arithmetic (days from the civil date, H. Hinnant's algorithm): NumPy's
    month <-> day conversions are several times slower.
    """
    from fastrate._validate import fail_at

    v = values.astype(np.int64, copy=False)
    y, md = np.divmod(v, 10000)
    m, d = np.divmod(md, 100)
    leap = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
    mm = np.clip(m, 0, 12)
    bad = (m < 1) | (m > 12) | (d < 1) | (d > _DAYS_IN_MONTH[mm] + ((mm == 2) & leap))
    if bad.any():
        raise fail_at(name, "must be a date written YYYYMMDD (e.g. 20240531)", values,
                      int(np.argmax(bad)), source)
    y = y - (m <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    days = era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468
    return days.view("datetime64[D]").astype("datetime64[ns]")


def _yyyymmdd_column(col, name: str, source: Source) -> np.ndarray:
    """:func:`_yyyymmdd` on the distinct values of a column (dates repeat a lot)."""
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(_one_array(col))
    try:
        dates = _yyyymmdd(arrow_to_numpy(enc.dictionary), name, source)
    except InputError:
        # name the first bad row, not the first bad distinct value
        return _yyyymmdd(arrow_to_numpy(col), name, source)
    return dates[arrow_to_numpy(enc.indices)]


def _time_values(col, name: str, time_format: str | None, source: Source) -> np.ndarray:
    """A time column as NumPy values for :func:`fastrate.data.parse_time`."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from fastrate._validate import fail_at

    if time_format is not None:
        text = pc.cast(_one_array(col), pa.string())
        try:
            parsed = pc.strptime(text, format=time_format, unit="s", error_is_null=True)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(f"column '{name}' cannot be read with time format "
                             f"{time_format!r}: {str(exc).splitlines()[0]}") from None
        if parsed.null_count:
            row = _first_null(parsed)
            if text[row].is_valid:
                raise fail_at(name, f"must match time format {time_format!r}",
                              {row: text[row].as_py()}, row, source)
            raise _missing(name, row, source)
        return arrow_to_numpy(parsed)
    if pa.types.is_integer(col.type) and ("date" in name.lower()) and len(col) > 0:
        lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
        if lo is not None and 10_000_101 <= lo and hi <= 99_991_231:  # YYYYMMDD
            if col.null_count:
                raise _missing(name, _first_null(col), source)
            return _yyyymmdd_column(col, name, source)
    return arrow_to_numpy(col)


@dataclass
class _Layout:
    """Which table column plays which part (see :func:`games_from_table`)."""

    first: str
    second: str
    winner: bool = False  # winner/loser columns: the first player always won
    score: str | None = None
    points: tuple[str, str] | None = None
    margin: str | None = None
    time: str | None = None
    period: str | None = None  # a column of period labels (not a length spec)
    weight: str | None = None
    neutral: str | None = None

    def columns(self) -> list[str]:
        names = [self.first, self.second, self.score, *(self.points or ()), self.margin,
                 self.time, self.period, self.weight, self.neutral]
        return list(dict.fromkeys(n for n in names if n is not None))


def _layout(cols: list[str], where: str, *, white: str | None = None,
            black: str | None = None, score: str | None = None, winner: str | None = None,
            loser: str | None = None, first_points: str | None = None,
            second_points: str | None = None, time: str | None = None,
            period: str | float | None = None, weight: str | None = None,
            margin: str | None = None, neutral: str | None = None) -> _Layout:
    """Resolve the columns of a table from their names alone (no data is read)."""
    lower = {c.lower(): c for c in cols}

    def pick(name: str, what: str) -> str:
        return _pick(cols, name, what, where)

    # players
    if winner is not None or loser is not None:
        if winner is None or loser is None:
            raise InputError("give both winner= and loser= columns")
        lay = _Layout(pick(winner, "winners"), pick(loser, "losers"), winner=True)
    elif white is not None or black is not None:
        if white is None or black is None:
            raise InputError("give both the first (white=) and second (black=) player columns")
        lay = _Layout(pick(white, "first players"), pick(black, "second players"))
    else:
        found = next(((lower[a], lower[b]) for a, b in PLAYER_PAIRS
                      if a in lower and b in lower), None)
        if found is None:
            raise InputError(f"cannot find the player columns in {where} (columns: "
                             f"{', '.join(cols)}); name them white/black, player1/player2, "
                             "home_team/away_team, winner/loser, or map them with "
                             "--white/--black")
        lay = _Layout(found[0], found[1], winner=found[0].lower().startswith("winner"))
    # score and margin
    if not lay.winner:
        if score is not None:
            lay.score = pick(score, "scores")
        elif first_points is not None or second_points is not None:
            if first_points is None or second_points is None:
                raise InputError("give both points columns (first_points= and second_points=)")
            lay.points = (pick(first_points, "points"), pick(second_points, "points"))
        else:
            lay.score = _find(lower, SCORE_COLUMNS)
            if lay.score is None:
                lay.points = next(((lower[a], lower[b]) for a, b in SCORE_PAIRS
                                   if a in lower and b in lower), None)
                if lay.points is None:
                    raise InputError(f"cannot find a score column in {where} (columns: "
                                     f"{', '.join(cols)}); add 'score' (1, 0.5, 0) or points "
                                     "columns home_score/away_score, or map one with --score")
    if margin is not None:
        lay.margin = pick(margin, "margins")
    # time, period, weight, neutral
    lay.time = pick(time, "times") if time is not None else _find(lower, TIME_COLUMNS)
    if isinstance(period, str) and period in cols:
        lay.period = period
    elif isinstance(period, str) and period.lower() in lower:
        lay.period = lower[period.lower()]
    lay.weight = pick(weight, "weights") if weight is not None else lower.get("weight")
    lay.neutral = pick(neutral, "neutral flags") if neutral is not None else lower.get("neutral")
    return lay


#: Games.from_arrays argument -> _Layout field, for error messages naming file columns
_ARGUMENTS = (("white", "first"), ("black", "second"), ("score", "score"), ("time", "time"),
              ("period", "period"), ("weight", "weight"), ("margin", "margin"),
              ("neutral", "neutral"))


def _source_for(source: str | Source | None, format: str | None = None) -> Source:
    """A Source for error messages; data row 1 is line 2 of a CSV file (one header line).
    ``format`` is the file's format when given explicitly (else from the name)."""
    if isinstance(source, Source):
        return source
    if not source:
        return Source()
    try:
        text = _format_of(source, format) == "csv"
    except InputError:
        text = False
    return Source(source, first_line=2 if text else 0)


def games_from_table(table, *, white: str | None = None, black: str | None = None,
                     score: str | None = None, winner: str | None = None,
                     loser: str | None = None, first_points: str | None = None,
                     second_points: str | None = None, time: str | None = None,
                     time_format: str | None = None, period: str | float | None = None,
                     weight: str | None = None, margin: str | None = None,
                     neutral: str | None = None, sort: bool = True,
                     drop_self_play: bool = False,
                     source: str | Source | None = None):
    """Build :class:`fastrate.Games` from a table, recognising common layouts.

    Players: ``white``/``black``, ``player1``/``player2``, ``home_team``/``away_team``,
    ``team1``/``team2``, ``winner``/``loser`` (score 1 for every row) and their ``_id``/
    ``_name`` forms. Score: a ``score``/``result`` column (numbers or ``1-0``/``0-1``/
    ``1/2-1/2``), or two points columns (``home_score``/``away_score``, ``score1``/
    ``score2``) giving score (win/draw/loss) and margin (first minus second). Time: a
    ``date``/``time`` column (dates, timestamps, ISO strings, YYYYMMDD integers, or
    ``time_format``). ``period`` is a column name (e.g. ``season``) or a length spec
    (``"1w"``, ``"month"``). Recognised names are matched case-insensitively; names
    given explicitly must match exactly (a near miss gets a "did you mean").

    Rows where a player plays himself are refused, or with ``drop_self_play=True``
    dropped and counted in ``games.dropped`` (errors still name the original rows).
    """
    box = [table]
    del table
    return _games_from_box(box, white=white, black=black, score=score, winner=winner,
                           loser=loser, first_points=first_points, second_points=second_points,
                           time=time, time_format=time_format, period=period, weight=weight,
                           margin=margin, neutral=neutral, sort=sort,
                           drop_self_play=drop_self_play, source=source)


def _values(table, name: str) -> np.ndarray:
    return arrow_to_numpy(table.column(name))


def _release_arrow_memory() -> None:
    """Give the memory Arrow's allocator keeps after frees back to the system, so that
    the NumPy arrays allocated next do not add to it (a lower peak; a millisecond)."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _without_rows(col, drop: np.ndarray, keep: np.ndarray):
    """Column ``col`` without the rows where ``drop`` is True (``keep``: the others).

    Numbers and times without nulls are copied chunk by chunk in NumPy (Arrow's ``take``
    of a chunked column costs several times the column in memory); others use ``take``.
    """
    import pyarrow as pa

    t = col.type
    plain = (pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_timestamp(t)
             or pa.types.is_date64(t))
    if not plain or col.null_count or not isinstance(col, pa.ChunkedArray):
        return col.take(keep)
    out: np.ndarray | None = None
    pos = start = 0
    for chunk in col.chunks:
        v = arrow_to_numpy(chunk)
        if out is None:
            out = np.empty(len(keep), dtype=v.dtype)
        part = v[~drop[start:start + len(v)]]
        out[pos:pos + len(part)] = part
        pos += len(part)
        start += len(v)
    if out is None:
        return col.take(keep)
    arr = pa.Array.from_buffers(t, len(out), [None, pa.py_buffer(out)])
    return arr


def _games_from_box(box: list, *, white, black, score, winner, loser, first_points,
                    second_points, time, time_format, period, weight, margin, neutral, sort,
                    drop_self_play, source):
    """:func:`games_from_table` of the table in the one-element list ``box``, which it
    empties: when the caller keeps no reference, the table's columns are freed as soon
    as they are replaced (dropping self-play rows) -- a smaller memory peak."""
    from fastrate._validate import as_float64
    from fastrate.data import Games

    table = box.pop()
    src = _source_for(source)
    where = src.name or "the input"
    cols = list(table.column_names)
    if table.num_rows == 0:
        raise InputError(f"no games: {where} has no rows")
    lay = _layout(cols, where, white=white, black=black, score=score, winner=winner,
                  loser=loser, first_points=first_points, second_points=second_points,
                  time=time, period=period, weight=weight, margin=margin, neutral=neutral)
    renamed = [(arg, getattr(lay, part)) for arg, part in _ARGUMENTS
               if getattr(lay, part) is not None and getattr(lay, part) != arg]
    src = dataclasses.replace(src, columns=tuple(renamed))
    dropped: tuple[tuple[str, int, str], ...] = ()
    if drop_self_play:
        import pyarrow as pa
        import pyarrow.compute as pc

        first, second = table.column(lay.first), table.column(lay.second)
        if first.type != second.type:
            first, second = pc.cast(first, "string"), pc.cast(second, "string")
        eq = pc.equal(first, second)
        del first, second
        if eq.null_count:
            eq = pc.and_kleene(eq, pc.is_valid(eq))  # a missing name is not self-play
        # (not fill_null(eq, False): making that scalar imports pandas, ~0.4 s)
        same = arrow_to_numpy(eq)
        del eq
        if same.any():
            keep = np.flatnonzero(~same)
            dropped = (("a player plays himself", int(same.sum()),
                        src.where(int(np.argmax(same)))),)
            # column by column, each old column freed before the next copy
            names = table.column_names
            cols = [table.column(i) for i in range(len(names))]
            del table
            for i in range(len(cols)):
                cols[i] = _without_rows(cols[i], same, keep)
            table = pa.table(cols, names=names)
            del cols
            _release_arrow_memory()  # the old columns
            src = dataclasses.replace(src, rows=keep)

    mg = None
    if lay.winner:
        s = np.ones(table.num_rows, dtype=np.float64)
    elif lay.score is not None:
        s = _scores(table.column(lay.score), lay.score, src)
    else:
        assert lay.points is not None
        p1 = as_float64(_values(table, lay.points[0]), lay.points[0], src)
        p2 = as_float64(_values(table, lay.points[1]), lay.points[1], src)
        s = np.where(p1 > p2, 1.0, np.where(p1 < p2, 0.0, 0.5))
        mg = p1 - p2
    if lay.margin is not None:
        mg = _values(table, lay.margin)
    tm = None
    if lay.time is not None:
        tm = _time_values(table.column(lay.time), lay.time, time_format, src)
    pr: Any = _values(table, lay.period) if lay.period is not None else period
    wt = _values(table, lay.weight) if lay.weight is not None else None
    nt = _values(table, lay.neutral) if lay.neutral is not None else None
    # the table goes first and the player columns are handed over as the only references
    # left, so that from_arrays can free them once the names are interned
    players = [table.column(lay.second), table.column(lay.first)]
    del table
    _release_arrow_memory()
    games = Games.from_arrays(players.pop(), players.pop(), s, time=tm, period=pr, weight=wt,
                              margin=mg, neutral=nt, sort=sort, source=src)
    return dataclasses.replace(games, dropped=dropped) if dropped else games


def _column_names(path: Path, fmt: str) -> list[str] | None:
    """The column names of a file, read cheaply (header / schema only); None if unknown."""
    import pyarrow as pa

    try:
        if fmt == "csv":
            from pyarrow import csv

            reader = csv.open_csv(path, read_options=csv.ReadOptions(block_size=1 << 16),
                                  parse_options=csv.ParseOptions(delimiter=_delimiter(path)))
            return list(reader.schema.names)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError):
        return None
    return None


def read_games(path: str | os.PathLike, *, format: str | None = None, **columns: Any):
    """Read games from a CSV/Parquet/JSON file; see :func:`games_from_table` for layouts
    and column options (``white=``, ``score=``, ``time=``, ``period=`` ...).

    Only the columns the games need are read (CSV and Parquet), so unrelated columns
    cost nothing and cannot fail the read.
    """
    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    fmt = _format_of(p, format)
    src = Source(p.name, first_line=2 if fmt == "csv" else 0)
    names = _column_names(p, fmt)
    wanted = None
    if names is not None:
        layout_options = {k: v for k, v in columns.items()
                          if k not in ("time_format", "sort", "source", "drop_self_play")}
        wanted = _layout(names, p.name, **layout_options).columns()
    table = read_table(p, fmt, columns=wanted)
    _release_arrow_memory()  # the parser's buffers
    box = [table]
    del table
    opts = {k: None for k in ("white", "black", "score", "winner", "loser", "first_points",
                              "second_points", "time", "time_format", "period", "weight",
                              "margin", "neutral")}
    opts.update(sort=True, drop_self_play=False, source=src)
    opts.update(columns)
    return _games_from_box(box, **opts)


def read_ratings(path: str | os.PathLike, format: str | None = None):
    """Read a saved-state table (a previous ``fastrate rate`` output for ``initial=``, or
    bridge partnerships for ``partnerships=``) as a pyarrow Table; errors in it then
    name the file and line."""
    from fastrate.data import SOURCE_KEY

    table = read_table(path, format)
    meta = dict(table.schema.metadata or {})
    meta[SOURCE_KEY] = Path(path).name.encode()
    return table.replace_schema_metadata(meta)


# ----------------------------------------------------------------------------------
# tables out


#: file-name suffix -> pyarrow codec, for compressed CSV/JSON output
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd", ".lz4": "lz4"}


def write_table(table: Any, path: str | os.PathLike | None, format: str | None = None,
                stream: Any = None) -> None:
    """Write a table as CSV, Parquet or JSON (records) to ``path`` atomically, or to
    ``stream`` (a binary file object) when ``path`` is None.

    A ``.gz``/``.bz2``/``.zst``/``.lz4`` suffix compresses CSV and JSON output. The table
    is written to a temporary file in the same folder and renamed over ``path`` only when
    complete, so a failed write leaves neither a partial file nor a temporary one.
    """
    import pyarrow as pa

    table = to_arrow_table(table)
    if path is None:
        fmt = format or "csv"
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        _write(table, stream, fmt)
        return
    fmt = _format_of(path, format)
    if format is not None:
        try:
            by_name = _format_of(path, None)
        except InputError:
            by_name = None
        if by_name is not None and by_name != fmt:
            raise InputError(f"cannot write {path}: its name says {by_name} but the format "
                             f"asked for is {fmt}; rename the file or drop the format")
    target = Path(path)
    codec = _COMPRESSION.get(target.suffix.lower())
    if codec is not None and fmt == "parquet":
        raise InputError(f"cannot write {path}: Parquet is compressed inside the file; name it "
                         ".parquet")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    with atomic_file(target) as fh:
        if codec is None:
            _write(table, fh, fmt)
        else:
            with pa.CompressedOutputStream(fh, codec) as out:
                _write(table, out, fmt)


@contextlib.contextmanager
def atomic_file(target: str | os.PathLike):
    """A binary file handle whose content replaces ``target`` only when the block ends
    without an error: written to a temporary file in the same folder (with the mode an
    ordinary open would give), renamed over ``target``; on any error the temporary file
    is removed and ``target`` is untouched."""
    target = Path(target)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(tmp, _new_file_mode(target))  # mkstemp makes 0600
        with os.fdopen(fd, "wb") as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _new_file_mode(target: Path) -> int:
    """The mode an ordinary ``open(target, "w")`` would give: the existing file's mode
    when it is replaced, else 0666 minus the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _write(table, fh, fmt: str) -> None:
    if fmt == "csv":
        from pyarrow import csv

        csv.write_csv(table, fh)
    elif fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, fh)
    else:
        rows = table.to_pylist()
        fh.write(json.dumps(rows, default=str, indent=None).encode())
        fh.write(b"\n")


# ----------------------------------------------------------------------------------
# bundled example data

_EXAMPLES = {"football": "intl_football.csv.gz"}


def example_path(name: str = "football") -> Path:
    """Path of a bundled example data set (``football``: 49,520 international football
    matches 1872-2026, CC0, from github.com/martj42/international_results)."""
    if name not in _EXAMPLES:
        raise InputError(f"unknown example {name!r}: choose one of {', '.join(_EXAMPLES)}")
    return Path(__file__).resolve().parent.parent / "data_files" / _EXAMPLES[name]


def load_example(name: str = "football", period: str | None = None):
    """The bundled example as :class:`fastrate.Games`.

    ``football``: home team first; score and margin from the goals; ``neutral`` from the
    data; ``weight`` is World Football Elo's K by match type divided by 40 (0.5 for a
    friendly ... 1.5 for a World Cup finals match; see :func:`fastrate.elo.world_football_k`),
    so ``EloConfig.world_football()`` (K 40) gives eloratings.net's K and any other Elo
    weighs matches the same way.
    """
    from fastrate.ratings.elo import world_football_k

    path = example_path(name)
    table = read_table(path)
    from fastrate.data import Games

    g = games_from_table(table, period=period, source=path.name)
    weights = world_football_k(table.column("tournament")) / 40.0
    return Games(white=g.white, black=g.black, score=g.score, players=g.players, time=g.time,
                 period=g.period, period_labels=g.period_labels,
                 weight=weights if g.order is None else weights[g.order], margin=g.margin,
                 neutral=g.neutral, order=g.order, source=g.source)
