"""Reading games and ratings from CSV/Parquet/JSON (via pyarrow) and writing results.

Common layouts are recognised (see :func:`games_from_table`); every output file is
written atomically (temporary file in the same folder, then renamed), so a failed run
never leaves a partial file behind.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from fastrate._validate import Source, as_1d
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
            arr = as_1d(v, str(k))
            cols[str(k)] = pa.array(arr.tolist() if arr.dtype == object else arr)
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


def read_table(path: str | os.PathLike, format: str | None = None):
    """Read a CSV (optionally compressed), Parquet or JSON file into a pyarrow Table."""
    import pyarrow as pa

    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    fmt = _format_of(p, format)
    try:
        if fmt == "csv":
            from pyarrow import csv

            delimiter = "\t" if ".tsv" in p.name.lower() else ","
            return csv.read_csv(p, parse_options=csv.ParseOptions(delimiter=delimiter))
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return pq.read_table(p)
        text = p.read_text()
        stripped = text.lstrip()
        if stripped.startswith("["):
            rows = json.loads(text)
            if not rows:
                raise InputError(f"{path} holds no rows")
            return pa.Table.from_pylist(rows)
        if stripped.startswith("{") and "\n{" not in stripped.strip():
            obj = json.loads(text)
            if isinstance(obj, dict) and all(isinstance(v, list) for v in obj.values()):
                return pa.table(obj)
        from pyarrow import json as pajson

        return pajson.read_json(p)
    except InputError:
        raise
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, OSError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise InputError(f"cannot read {path} as {fmt}: {msg}") from None


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


def _scores(col, name: str, source: Source) -> np.ndarray:
    """Score column: numbers, or result strings like '1-0', '0-1', '1/2-1/2'."""
    import pyarrow as pa

    from fastrate._validate import as_float64, fail_at

    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        raw = col.to_pylist()
        out = np.empty(len(raw), dtype=np.float64)
        for i, v in enumerate(raw):
            s = (v or "").strip().lower()
            if s in _RESULT_STRINGS:
                out[i] = _RESULT_STRINGS[s]
                continue
            try:
                out[i] = float(s)
            except ValueError:
                raise fail_at(name, "must be a score (1, 0.5, 0 or a fraction) or a result "
                              "such as 1-0, 0-1, 1/2-1/2", np.array(raw, dtype=object), i,
                              source) from None
        return out
    if col.null_count:
        arr = np.asarray(col.is_null())
        raise fail_at(name, "must not be missing", np.array(col.to_pylist(), dtype=object),
                      int(np.argmax(arr)), source)
    return as_float64(col.to_numpy(), name, source)


def _time_values(col, name: str, time_format: str | None):
    import pyarrow as pa
    import pyarrow.compute as pc

    if time_format is not None:
        try:
            return pc.strptime(pc.cast(col, pa.string()), format=time_format, unit="s")
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InputError(f"column '{name}' does not match time format {time_format!r}: "
                             f"{str(exc).splitlines()[0]}") from None
    if pa.types.is_integer(col.type) and ("date" in name.lower()) and len(col) > 0:
        lo, hi = pc.min(col).as_py(), pc.max(col).as_py()
        if lo is not None and 10_000_101 <= lo and hi <= 99_991_231:  # YYYYMMDD
            return _time_values(col, name, "%Y%m%d")
    return col


def games_from_table(table, *, white: str | None = None, black: str | None = None,
                     score: str | None = None, winner: str | None = None,
                     loser: str | None = None, first_points: str | None = None,
                     second_points: str | None = None, time: str | None = None,
                     time_format: str | None = None, period: str | float | None = None,
                     weight: str | None = None, margin: str | None = None,
                     neutral: str | None = None, sort: bool = True,
                     source: str | None = None):
    """Build :class:`fastrate.Games` from a table, recognising common layouts.

    Players: ``white``/``black``, ``player1``/``player2``, ``home_team``/``away_team``,
    ``team1``/``team2``, ``winner``/``loser`` (score 1 for every row) and their ``_id``/
    ``_name`` forms. Score: a ``score``/``result`` column (numbers or ``1-0``/``0-1``/
    ``1/2-1/2``), or two points columns (``home_score``/``away_score``, ``score1``/
    ``score2``) giving score (win/draw/loss) and margin (first minus second). Time: a
    ``date``/``time`` column (dates, timestamps, ISO strings, YYYYMMDD integers, or
    ``time_format``). ``period`` is a column name (e.g. ``season``) or a length spec
    (``"1w"``, ``"month"``). Column names are matched case-insensitively.
    """
    from fastrate.data import Games

    cols = list(table.column_names)
    where = source or "the input"
    if table.num_rows == 0:
        raise InputError(f"no games: {where} has no rows")
    lower = {c.lower(): c for c in cols}
    src = Source(source, first_line=2) if source and str(source).lower().endswith(
        (".csv", ".csv.gz", ".tsv", ".txt")) else Source(source)

    def col(name: str, what: str):
        return table.column(_pick(cols, name, what, where))

    # players
    if winner is not None or loser is not None:
        if winner is None or loser is None:
            raise InputError("give both winner= and loser= columns")
        first, second, scores = col(winner, "winners"), col(loser, "losers"), "winner"
    elif white is not None or black is not None:
        if white is None or black is None:
            raise InputError("give both the first (white=) and second (black=) player columns")
        first, second, scores = col(white, "first players"), col(black, "second players"), None
    else:
        found = None
        for a, b in PLAYER_PAIRS:
            if a in lower and b in lower:
                found = (lower[a], lower[b])
                break
        if found is None:
            raise InputError(f"cannot find the player columns in {where} (columns: "
                             f"{', '.join(cols)}); name them white/black, player1/player2, "
                             "home_team/away_team, winner/loser, or map them with "
                             "--white/--black")
        first, second = table.column(found[0]), table.column(found[1])
        scores = "winner" if found[0].lower().startswith("winner") else None
    # score and margin
    mg = None
    if scores == "winner":
        s = np.ones(table.num_rows, dtype=np.float64)
    elif score is not None:
        s = _scores(col(score, "scores"), score, src)
    else:
        pts = None
        if first_points is not None or second_points is not None:
            if first_points is None or second_points is None:
                raise InputError("give both points columns (first_points= and second_points=)")
            pts = (_pick(cols, first_points, "points", where),
                   _pick(cols, second_points, "points", where))
        else:
            sc = _find(lower, SCORE_COLUMNS)
            if sc is not None:
                s = _scores(table.column(sc), sc, src)
            else:
                pts = next(((lower[a], lower[b]) for a, b in SCORE_PAIRS
                            if a in lower and b in lower), None)
                if pts is None:
                    raise InputError(f"cannot find a score column in {where} (columns: "
                                     f"{', '.join(cols)}); add 'score' (1, 0.5, 0) or points "
                                     "columns home_score/away_score, or map one with --score")
        if pts is not None:
            from fastrate._validate import as_float64

            p1 = as_float64(table.column(pts[0]).to_numpy(zero_copy_only=False), pts[0], src)
            p2 = as_float64(table.column(pts[1]).to_numpy(zero_copy_only=False), pts[1], src)
            s = np.where(p1 > p2, 1.0, np.where(p1 < p2, 0.0, 0.5))
            mg = p1 - p2
    if margin is not None:
        mg = col(margin, "margins").to_numpy(zero_copy_only=False)
    # time, period, weight, neutral
    tname = time if time is not None else _find(lower, TIME_COLUMNS)
    tm = None
    if tname is not None:
        tm = _time_values(col(tname, "times"), tname, time_format).to_numpy(zero_copy_only=False)
    pr: Any = None
    if period is not None:
        if isinstance(period, str) and period in cols:
            pr = table.column(period).to_numpy(zero_copy_only=False)
        elif isinstance(period, str) and period.lower() in lower:
            pr = table.column(lower[period.lower()]).to_numpy(zero_copy_only=False)
        else:
            pr = period
    wt = None
    wname = weight if weight is not None else lower.get("weight")
    if wname is not None:
        wt = col(wname, "weights").to_numpy(zero_copy_only=False)
    nt = None
    nname = neutral if neutral is not None else lower.get("neutral")
    if nname is not None:
        nt = col(nname, "neutral flags").to_numpy(zero_copy_only=False)
    return Games.from_arrays(first.to_numpy(zero_copy_only=False),
                             second.to_numpy(zero_copy_only=False), s, time=tm, period=pr,
                             weight=wt, margin=mg, neutral=nt, sort=sort, source=src)


def read_games(path: str | os.PathLike, *, format: str | None = None, **columns: Any):
    """Read games from a CSV/Parquet/JSON file; see :func:`games_from_table` for layouts
    and column options (``white=``, ``score=``, ``time=``, ``period=`` ...)."""
    table = read_table(path, format)
    return games_from_table(table, source=Path(path).name, **columns)


def read_ratings(path: str | os.PathLike, format: str | None = None):
    """Read a ratings table (e.g. a previous ``fastrate rate`` output) as a pyarrow Table,
    for ``initial=``."""
    return read_table(path, format)


# ----------------------------------------------------------------------------------
# tables out


def write_table(table: Any, path: str | os.PathLike | None, format: str | None = None,
                stream: Any = None) -> None:
    """Write a table as CSV, Parquet or JSON (records) to ``path`` atomically, or to
    ``stream`` (a binary file object) when ``path`` is None."""
    import pyarrow as pa

    table = to_arrow_table(table)
    if path is None:
        fmt = format or "csv"
        if fmt not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
        _write(table, stream, fmt)
        return
    fmt = _format_of(path, format)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        raise InputError(f"cannot write {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            _write(table, fh, fmt)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    del pa


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
