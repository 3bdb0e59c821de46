"""Recognising the columns of a game table (layouts) and reading them into the arrays
:class:`fastrate.Games` is built from: players (``white``/``black``, ``home_team``/
``away_team``, ``winner``/``loser`` ...), scores (numbers, ``1-0`` strings, or two points
columns), times (dates, timestamps, ISO strings, YYYYMMDD integers) and the optional
columns. Tables in memory only; files are :mod:`fastrate.io`'s."""

from __future__ import annotations

import dataclasses
import difflib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._validate import (
    Source,
    arrow_to_numpy,
    as_float64,
    fail_at,
    single_chunk,
)
from fastrate.data.periods import civil_days
from fastrate.errors import InputError, MissingColumnError

__all__ = ["game_columns", "game_layout", "GameLayout", "pick_column", "find_column",
           "period_column", "release_arrow_memory", "time_values",
           "PLAYER_PAIRS", "SCORE_PAIRS", "TIME_COLUMNS", "SCORE_COLUMNS",
           "GAME_ONLY_COLUMNS", "names_game_columns"]

#: the column options of a two-player games reader that a long-format (matches) reader
#: has not: naming one says the input is two-player games
GAME_ONLY_COLUMNS = ("white", "black", "winner", "loser", "first_points", "second_points",
                     "margin", "neutral", "drop_self_play", "context", "best_of", "share",
                     "tennis_score", "entry", "entry_rd")


def names_game_columns(columns: Any) -> bool:
    """Whether reader options ``columns`` name a column only two-player games have (see
    GAME_ONLY_COLUMNS): the input is then games, whatever system rates it."""
    return any(k in columns for k in GAME_ONLY_COLUMNS)

#: recognised (first, second) player column pairs, in order of preference
PLAYER_PAIRS = [("white", "black"), ("player1", "player2"), ("player_a", "player_b"),
                ("home_team", "away_team"), ("home", "away"), ("team1", "team2"),
                ("winner", "loser"), ("winner_id", "loser_id"), ("winner_name", "loser_name")]
#: recognised (first, second) points columns, from which score and margin follow
SCORE_PAIRS = [("home_score", "away_score"), ("score1", "score2"), ("white_score", "black_score"),
               ("points1", "points2"), ("goals1", "goals2")]
TIME_COLUMNS = ("time", "date", "datetime", "timestamp", "played_at", "tourney_date")
SCORE_COLUMNS = ("score", "result", "result1", "outcome")


def pick_column(cols: list[str], wanted: str, what: str, where: str) -> str:
    if wanted in cols:
        return wanted
    close = difflib.get_close_matches(wanted, cols, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    raise InputError(f"no column '{wanted}' for {what} in {where} (columns: {', '.join(cols)})"
                     f"{hint}")


def find_column(cols_lower: dict[str, str], names: tuple[str, ...] | list[str]) -> str | None:
    """The first of ``names`` (lower case) that the table has, as the table spells it;
    ``cols_lower``: lower-case name -> the table's name."""
    for n in names:
        if n in cols_lower:
            return cols_lower[n]
    return None


def period_column(period: Any, cols: list[str], cols_lower: dict[str, str]) -> str | None:
    """The column of period labels that ``period`` names (exactly, else ignoring case);
    None when it names no column (e.g. a length spec such as ``"1w"``)."""
    if not isinstance(period, str):
        return None
    if period in cols:
        return period
    return cols_lower.get(period.lower())


_RESULT_STRINGS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5, "½-½": 0.5, "=": 0.5, "draw": 0.5,
                   "d": 0.5, "w": 1.0, "win": 1.0, "l": 0.0, "loss": 0.0}


def _first_null(col) -> int:
    return int(np.argmax(arrow_to_numpy(single_chunk(col).is_null())))


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

    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        # map each distinct string once, then gather
        enc = pc.dictionary_encode(single_chunk(col))
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
    """Integer dates such as 20240531 -> datetime64[D], naming the first impossible one
    (:func:`fastrate.data.parse_time` then refuses a date outside datetime64[ns]).

    Plain integer arithmetic (days from the civil date): NumPy's month <-> day
    conversions are several times slower.
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
    return civil_days(y, m, d).view("datetime64[D]")


def _yyyymmdd_column(col, name: str, source: Source) -> np.ndarray:
    """:func:`_yyyymmdd` on the distinct values of a column (dates repeat a lot)."""
    import pyarrow.compute as pc

    enc = pc.dictionary_encode(single_chunk(col))
    try:
        dates = _yyyymmdd(arrow_to_numpy(enc.dictionary), name, source)
    except InputError:
        # name the first bad row, not the first bad distinct value
        return _yyyymmdd(arrow_to_numpy(col), name, source)
    return dates[arrow_to_numpy(enc.indices)]


def time_values(col, name: str, time_format: str | None, source: Source) -> np.ndarray:
    """A time column as values for :func:`fastrate.data.parse_time`: NumPy, or the
    Arrow text column itself (parsed there without a round trip through Python)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from fastrate._validate import fail_at

    if time_format is not None:
        text = pc.cast(single_chunk(col), pa.string())
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
    if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
        return single_chunk(col)  # parse_time reads Arrow text as it is
    return arrow_to_numpy(col)


@dataclass
class GameLayout:
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
    # the columns of Elo's modelling levers (Games.context, best_of, share, entry)
    context: str | None = None
    best_of: str | None = None
    share: str | None = None
    tennis_score: str | None = None  # a tennis score ("6-4 3-6 7-6(5)"): the games share
    entry: str | None = None
    entry_rd: str | None = None  # the Glicko family's newcomers (Games.entry_rd)

    def columns(self) -> list[str]:
        names = [self.first, self.second, self.score, *(self.points or ()), self.margin,
                 self.time, self.period, self.weight, self.neutral, self.context,
                 self.best_of, self.share, self.tennis_score, self.entry, self.entry_rd]
        return list(dict.fromkeys(n for n in names if n is not None))


def game_layout(cols: list[str], where: str, *, white: str | None = None,
            black: str | None = None, score: str | None = None, winner: str | None = None,
            loser: str | None = None, first_points: str | None = None,
            second_points: str | None = None, time: str | None = None,
            period: str | float | None = None, weight: str | None = None,
            margin: str | None = None, neutral: str | None = None,
            context: str | None = None, best_of: str | None = None,
            share: str | None = None, tennis_score: str | None = None,
            entry: str | None = None, entry_rd: str | None = None) -> GameLayout:
    """Resolve the columns of a table from their names alone (no data is read)."""
    lower = {c.lower(): c for c in cols}

    def pick(name: str, what: str) -> str:
        return pick_column(cols, name, what, where)

    # players
    if winner is not None or loser is not None:
        if winner is None or loser is None:
            raise InputError("give both winner= and loser= columns")
        lay = GameLayout(pick(winner, "winners"), pick(loser, "losers"), winner=True)
    elif white is not None or black is not None:
        if white is None or black is None:
            raise InputError("give both the first (white=) and second (black=) player columns")
        lay = GameLayout(pick(white, "first players"), pick(black, "second players"))
    else:
        found = next(((lower[a], lower[b]) for a, b in PLAYER_PAIRS
                      if a in lower and b in lower), None)
        if found is None:
            raise MissingColumnError(
                f"cannot find the player columns in {where} (columns: {', '.join(cols)}); "
                "name them white/black, player1/player2, home_team/away_team, winner/loser, "
                "or map them with --white/--black", "player")
        lay = GameLayout(found[0], found[1], winner=found[0].lower().startswith("winner"))
    # score and margin
    if not lay.winner:
        if score is not None:
            lay.score = pick(score, "scores")
        elif first_points is not None or second_points is not None:
            if first_points is None or second_points is None:
                raise InputError("give both points columns (first_points= and second_points=)")
            lay.points = (pick(first_points, "points"), pick(second_points, "points"))
        else:
            lay.score = find_column(lower, SCORE_COLUMNS)
            if lay.score is None:
                lay.points = next(((lower[a], lower[b]) for a, b in SCORE_PAIRS
                                   if a in lower and b in lower), None)
                if lay.points is None:
                    raise InputError(f"cannot find a score column in {where} (columns: "
                                     f"{', '.join(cols)}); add 'score' (1, 0.5, 0) or points "
                                     "columns home_score/away_score, or map one with --score")
    if margin is not None:
        lay.margin = pick(margin, "margins")
    elif lay.points is None:
        lay.margin = lower.get("margin")  # a column named margin (else from the points)
    # time, period, weight, neutral
    lay.time = pick(time, "times") if time is not None else find_column(lower, TIME_COLUMNS)
    lay.period = period_column(period, cols, lower)
    lay.weight = pick(weight, "weights") if weight is not None else lower.get("weight")
    lay.neutral = pick(neutral, "neutral flags") if neutral is not None else lower.get("neutral")
    lay.context = pick(context, "contexts") if context is not None else None
    lay.best_of = pick(best_of, "match formats") if best_of is not None else lower.get("best_of")
    if share is not None and tennis_score is not None:
        raise InputError("give either share= (a column of points shares) or tennis_score= "
                         "(a tennis score column), not both")
    lay.share = pick(share, "points shares") if share is not None else None
    lay.tennis_score = pick(tennis_score, "tennis scores") if tennis_score is not None else None
    lay.entry = pick(entry, "entry ratings") if entry is not None else None
    lay.entry_rd = pick(entry_rd, "entry rating deviations") if entry_rd is not None else None
    return lay


def tennis_games_share(column: Any, first_won: np.ndarray) -> np.ndarray:
    """The first player's share of the games from tennis scores written from the
    winner's side (``"6-4 3-6 7-6(5)"``: 16 games of 32 for the winner; tie-break points
    in brackets and notes such as ``RET`` are ignored). ``first_won``: where the first
    player is the match winner (the share is then the winner's). A score with no games
    (a walkover, ``W/O``) gives the result itself (1 or 0; 0.5 for a draw)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    col = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    col = pc.fill_null(pc.cast(col, pa.string()), "")
    sets = pc.split_pattern(col, " ")
    flat = pc.list_flatten(sets)
    parts = pc.extract_regex(flat, r"^(?P<w>\d+)-(?P<l>\d+)")  # nulls where no match
    w = pc.fill_null(pc.cast(pc.struct_field(parts, [0]), pa.float64()), 0.0)
    lost = pc.fill_null(pc.cast(pc.struct_field(parts, [1]), pa.float64()), 0.0)
    owner = np.repeat(np.arange(len(col)), np.diff(sets.offsets.to_numpy()))
    won = np.bincount(owner, weights=w.to_numpy(), minlength=len(col))
    lost_n = np.bincount(owner, weights=lost.to_numpy(), minlength=len(col))
    total = won + lost_n
    with np.errstate(invalid="ignore", divide="ignore"):
        winner_share = np.where(total > 0, won / np.where(total > 0, total, 1.0), 1.0)
    return np.where(first_won, winner_share, 1.0 - winner_share)


#: Games.from_arrays argument -> GameLayout field, for error messages naming file columns
_ARGUMENTS = (("white", "first"), ("black", "second"), ("score", "score"), ("time", "time"),
              ("period", "period"), ("weight", "weight"), ("margin", "margin"),
              ("neutral", "neutral"), ("context", "context"), ("best_of", "best_of"),
              ("share", "share"), ("entry", "entry"), ("entry_rd", "entry_rd"))



def _values(table, name: str) -> np.ndarray:
    return arrow_to_numpy(table.column(name))


def _weights(column) -> np.ndarray:
    """A weight column: numbers as they are; names of match types (a ``tournament``
    column) through World Football Elo's table of K by match type, relative to K 40
    (:func:`fastrate.data.match_types.match_type_weights`)."""
    import pyarrow as pa

    t = column.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        from fastrate.data.match_types import match_type_weights

        weights = match_type_weights(column)
        if column.null_count:  # a missing match type: NaN, refused naming its row
            weights[np.asarray(column.is_null().to_numpy(zero_copy_only=False),
                               dtype=bool)] = np.nan
        return weights
    return arrow_to_numpy(column)


def release_arrow_memory() -> None:
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


def game_columns(box: list, *, white, black, score, winner, loser, first_points,
                    second_points, time, time_format, period, weight, margin, neutral, sort,
                    drop_self_play, source, context=None, best_of=None, share=None,
                    tennis_score=None, entry=None, entry_rd=None):
    """The arguments of :meth:`Games.from_arrays` (and the rows dropped) for the table in
    the one-element list ``box``, which it empties: when the caller keeps no reference, the table's columns are freed as soon
    as they are replaced (dropping self-play rows) -- a smaller memory peak."""
    table = box.pop()
    src = source if isinstance(source, Source) else Source(source)
    where = src.name or "the input"
    cols = list(table.column_names)
    if table.num_rows == 0:
        raise InputError(f"no games: {where} has no rows")
    lay = game_layout(cols, where, white=white, black=black, score=score, winner=winner,
                  loser=loser, first_points=first_points, second_points=second_points,
                  time=time, period=period, weight=weight, margin=margin, neutral=neutral,
                  context=context, best_of=best_of, share=share, tennis_score=tennis_score,
                  entry=entry, entry_rd=entry_rd)
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
            release_arrow_memory()  # the old columns
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
        for col, p in zip(lay.points, (p1, p2)):  # goals and points are counts
            if (p < 0).any():
                raise fail_at(col, "must be >= 0 (a count of goals or points)", p,
                              int(np.argmax(p < 0)), src)
        s = np.where(p1 > p2, 1.0, np.where(p1 < p2, 0.0, 0.5))
        mg = p1 - p2
    if lay.margin is not None:
        mg = _values(table, lay.margin)
    tm = None
    if lay.time is not None:
        tm = time_values(table.column(lay.time), lay.time, time_format, src)
    pr: Any = _values(table, lay.period) if lay.period is not None else period
    wt = _weights(table.column(lay.weight)) if lay.weight is not None else None
    nt = _values(table, lay.neutral) if lay.neutral is not None else None
    levers: dict[str, Any] = {
        "context": table.column(lay.context) if lay.context is not None else None,
        "best_of": _values(table, lay.best_of) if lay.best_of is not None else None,
        "share": _values(table, lay.share) if lay.share is not None else None,
        "entry": _values(table, lay.entry) if lay.entry is not None else None,
        "entry_rd": _values(table, lay.entry_rd) if lay.entry_rd is not None else None}
    if lay.tennis_score is not None:
        levers["share"] = tennis_games_share(table.column(lay.tennis_score), s >= 0.5)
    elif levers["share"] is None and lay.points is not None:
        # the first side's share of the points (0.5 when neither scored)
        total = p1 + p2
        levers["share"] = np.where(total > 0, p1 / np.where(total > 0, total, 1.0), 0.5)
    # the table goes first and the player columns are handed over as the only references
    # left, so that from_arrays can free them once the names are interned
    players = [table.column(lay.second), table.column(lay.first)]
    del table
    release_arrow_memory()
    columns = {"white": players.pop(), "black": players.pop(), "score": s, "time": tm,
               "period": pr, "weight": wt, "margin": mg, "neutral": nt, "sort": sort,
               "source": src, **{k: v for k, v in levers.items() if v is not None}}
    return columns, dropped
