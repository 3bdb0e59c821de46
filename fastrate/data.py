"""Struct-of-arrays containers: :class:`PlayerIndex`, :class:`Games`, :class:`Ratings`.

A :class:`Games` holds one row per two-player game in chronological order as plain
1-D NumPy arrays (player ids as dense ``int64``, the first player's score as
``float64`` ...), ready to hand to a kernel without conversion. Names are interned
once into a :class:`PlayerIndex`; results come back under the input's names.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    _fmt,
    _is_arrow_array,
    _single_chunk,
    arrow_to_numpy,
    as_1d,
    as_float64,
    check_length,
    check_range,
    fail_at,
    numpy_to_arrow,
    require,
)
from fastrate.errors import InputError, InputTypeError

__all__ = ["PlayerIndex", "Games", "Ratings", "PlayerState", "bucket_periods"]


# ----------------------------------------------------------------------------------
# players


class PlayerIndex:
    """Player names <-> dense integer ids (``0 .. n-1``), in order of first appearance."""

    __slots__ = ("names", "_lookup")

    def __init__(self, names: Sequence[Any] | np.ndarray):
        arr = np.asarray(names)
        if arr.dtype.kind == "U":
            arr = arr.astype(object)
        self.names: np.ndarray = arr
        self._lookup: dict[Any, int] | None = None

    def __len__(self) -> int:
        return int(self.names.shape[0])

    def __iter__(self):
        return iter(self.names.tolist())

    def __getitem__(self, i: int) -> Any:
        return self.names[i]

    def __repr__(self) -> str:
        return f"PlayerIndex({len(self)} players)"

    @property
    def lookup(self) -> dict[Any, int]:
        if self._lookup is None:
            self._lookup = {name: i for i, name in enumerate(self.names.tolist())}
        return self._lookup

    def id_of(self, name: Any) -> int:
        try:
            return self.lookup[name]
        except KeyError:
            raise InputError(f"unknown player {name!r}") from None

    @classmethod
    def intern(cls, *columns: Any, names: Sequence[str] | None = None,
               source: Source = NO_SOURCE) -> tuple[PlayerIndex, list[np.ndarray]]:
        """Intern one or more name columns together; return the index and id arrays.

        Ids follow first appearance reading the rows in order (row 1's first column,
        row 1's second column, row 2's first column, ...; columns of unequal length are
        read one after the other). Columns may be NumPy arrays, lists, pandas/polars
        series or Arrow arrays; ``None``, NaN and Arrow nulls are missing names, an error
        that names the column (``names``, default ``player1``, ``player2`` ...) and row.
        Integer ids stay integers; a mix of integers and strings is compared as strings.
        """
        import pyarrow as pa
        import pyarrow.compute as pc

        k = len(columns)
        if k == 0:
            raise InputTypeError("intern() needs at least one column of names")
        labels = list(names) if names is not None else [f"player{c + 1}" for c in range(k)]
        ints = _interleaved_ints(columns)
        if ints is not None:
            # integer ids without nulls (the usual case): interleave the rows in NumPy,
            # one array of k*n ids, instead of concatenating and taking in Arrow (three
            # such arrays at once)
            enc = pc.dictionary_encode(numpy_to_arrow(ints))
            del ints
            ids32 = arrow_to_numpy(enc.indices)
            return cls(np.array(arrow_to_numpy(enc.dictionary))), [
                require(ids32[c::k], np.int64) for c in range(k)]
        arrays = [_name_array(c, labels[j]) for j, c in enumerate(columns)]
        arrays = _common_type(arrays)
        sizes = [len(a) for a in arrays]
        interleave = k > 1 and len(set(sizes)) == 1
        joined = pa.concat_arrays(arrays) if k > 1 else arrays[0]
        if interleave:
            n = sizes[0]
            joined = joined.take(numpy_to_arrow(np.arange(n * k).reshape(k, n).T.ravel()))
        if joined.null_count:
            pos = int(np.argmax(arrow_to_numpy(joined.is_null())))
            if interleave:
                row, col = divmod(pos, k)
            else:
                col, row = 0, pos
                while row >= sizes[col]:
                    row -= sizes[col]
                    col += 1
            raise InputError(f"column '{source.column(labels[col])}' must name a player in every "
                             "row; found a "
                             f"missing value at {source.where(row)}; drop or fill those rows")
        enc = pc.dictionary_encode(joined)
        ids = arrow_to_numpy(enc.indices).astype(np.int64)
        out: list[np.ndarray] = []
        if interleave:
            out = [require(ids[c::k], np.int64) for c in range(k)]
        else:
            start = 0
            for size in sizes:
                out.append(require(ids[start:start + size], np.int64))
                start += size
        return cls(np.array(arrow_to_numpy(enc.dictionary))), out


def _interleaved_ints(columns: Sequence[Any]) -> np.ndarray | None:
    """Columns of integer ids of one type, equal lengths and no nulls (NumPy arrays or
    Arrow arrays, chunked or not), interleaved row by row into one NumPy array; None
    for anything else."""
    import pyarrow as pa

    parts: list[list[np.ndarray]] = []
    for x in columns:
        if isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iu":
            parts.append([x])
        elif _is_arrow_array(x) and pa.types.is_integer(x.type) and x.null_count == 0:
            chunks = x.chunks if isinstance(x, pa.ChunkedArray) else [x]
            parts.append([arrow_to_numpy(c) for c in chunks])
        else:
            return None
    dtypes = {p.dtype for ps in parts for p in ps}
    sizes = {sum(len(p) for p in ps) for ps in parts}
    if len(parts) < 2 or len(dtypes) != 1 or len(sizes) != 1:
        return None
    k, n = len(parts), sizes.pop()
    out = np.empty(n * k, dtype=dtypes.pop())
    for c, ps in enumerate(parts):
        view = out[c::k]
        pos = 0
        for p in ps:
            view[pos:pos + len(p)] = p
            pos += len(p)
    return out


def _name_array(x: Any, column: str):
    """One column of player names as a single pyarrow Array (None/NaN -> null)."""
    import pyarrow as pa

    if _is_arrow_array(x):
        x = _single_chunk(x)
        # categories: intern the values (first appearance), not the category codes
        return x.dictionary_decode() if pa.types.is_dictionary(x.type) else x
    arr = as_1d(x, column)
    if isinstance(x, (list, tuple)) and arr.dtype.kind == "U":
        # np.asarray turns ['a', nan, None] into ['a', 'nan', 'None']: keep the objects
        arr = np.empty(len(x), dtype=object)
        arr[:] = x
    if arr.dtype.kind in "iu":
        return numpy_to_arrow(arr)
    try:
        return pa.array(arr, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        # mixed Python objects (e.g. ints and strings): compare them as strings
        vals = arr.tolist()
        return pa.array([None if v is None or (isinstance(v, float) and math.isnan(v))
                         else str(v) for v in vals], type=pa.string())


def _common_type(arrays: list) -> list:
    """Cast name arrays to one type: int64 if all are integers, else strings."""
    import pyarrow as pa

    types = {a.type for a in arrays}
    if len(types) <= 1:
        return arrays
    if all(pa.types.is_integer(t) or pa.types.is_null(t) for t in types):
        return [a.cast(pa.int64()) for a in arrays]
    if all(pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_null(t)
           for t in types):
        try:  # e.g. integer ids, one column read as float because of a missing value
            return [a.cast(pa.int64()) for a in arrays]
        except pa.ArrowInvalid:
            return [a.cast(pa.float64()) for a in arrays]
    target = pa.large_string() if any(pa.types.is_large_string(t) for t in types) \
        else pa.string()
    return [a.cast(target) for a in arrays]


# ----------------------------------------------------------------------------------
# time and rating periods

_FIXED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|h|d|w)\s*$")
_CALENDAR = re.compile(r"^\s*(\d*)\s*(mo|month|y|year)s?\s*$")
_UNIT_NS = {"s": 10**9, "min": 60 * 10**9, "h": 3600 * 10**9, "d": 86400 * 10**9,
            "w": 7 * 86400 * 10**9}
#: fixed-length periods are counted from Monday 1970-01-05 so that weeks start on Monday
PERIOD_ORIGIN = np.datetime64("1970-01-05T00:00:00", "ns")


def parse_time(x: Any, column: str = "time", source: Source = NO_SOURCE) -> np.ndarray:
    """Return times as ``datetime64[ns]`` (dates, timestamps, ISO strings) or ``float64``."""
    arr = as_1d(x, column)
    if arr.dtype.kind == "M":
        out = arr.astype("datetime64[ns]", copy=False)
    elif arr.dtype.kind in "iuf":
        out = as_float64(arr, column, source)
        return out
    else:
        try:
            out = np.array(arr, dtype="datetime64[ns]")
        except (ValueError, TypeError):
            for i, v in enumerate(arr.tolist()):
                try:
                    np.datetime64(v, "ns")
                except (ValueError, TypeError):
                    raise fail_at(column, "must be a date or time (ISO 8601, e.g. 2024-05-31)",
                                  arr, i, source) from None
            raise
    nat = np.isnat(out)
    if nat.any():
        i = int(np.argmax(nat))
        raise fail_at(column, "must be a date or time, not missing", arr, i, source)
    return require(out, "datetime64[ns]")


def bucket_periods(time: np.ndarray, spec: str | float) -> np.ndarray:
    """Map times to absolute rating-period numbers (``int64``).

    ``spec`` is a fixed length (``"3d"``, ``"1w"``, ``"12h"``; counted from Monday
    1970-01-05), a calendar unit (``"month"``, ``"3mo"``, ``"year"``), or, for numeric
    times, a number (period = floor(time / spec)). Numbers are absolute, so the same
    spec buckets a continuation file consistently with the original one.
    """
    if time.dtype.kind == "f":
        if isinstance(spec, str):
            try:
                spec = float(spec)
            except ValueError:
                raise InputError(f"period '{spec}' needs date/time values in the time column; "
                                 "for numeric times give the period length as a number") from None
        if not spec > 0:
            raise InputError(f"period length must be > 0; got {spec!r}")
        return np.floor(time / spec).astype(np.int64)
    if not isinstance(spec, str):
        raise InputError(f"period for date/time values must be a string like '3d', '1w' or "
                         f"'month'; got {spec!r}")
    m = _FIXED.match(spec)
    if m:
        length = float(m.group(1)) * _UNIT_NS[m.group(2)]
        if not length > 0:
            raise InputError(f"period length must be > 0; got {spec!r}")
        ns = (time - PERIOD_ORIGIN).astype(np.int64)
        if float(length).is_integer():
            return np.floor_divide(ns, int(length)).astype(np.int64)
        return np.floor(ns / length).astype(np.int64)
    m = _CALENDAR.match(spec)
    if m:
        n = int(m.group(1) or 1)
        if n <= 0:
            raise InputError(f"period length must be > 0; got {spec!r}")
        if m.group(2) in ("mo", "month"):
            months = time.astype("datetime64[M]").astype(np.int64)
            return np.floor_divide(months, n)
        years = time.astype("datetime64[Y]").astype(np.int64)
        return np.floor_divide(years, n)
    raise InputError(f"unknown period {spec!r}: use a length such as '3d', '1w', '12h', "
                     "or 'month', '3mo', 'year'")


def _period_labels(x: Any, source: Source) -> tuple[np.ndarray, np.ndarray | None]:
    """Explicit period labels (e.g. a season column) -> (int64 ordinals, labels or None).

    Integer labels are used as they are (so gaps between seasons count as periods);
    other labels (strings, dates) are ranked in sorted order.
    """
    arr = as_1d(x, "period")
    if arr.dtype.kind in "iu":
        return require(arr, np.int64), None
    if arr.dtype.kind == "f":
        f = as_float64(arr, "period", source)
        if np.all(f == np.floor(f)):
            return f.astype(np.int64), None
    if arr.dtype.kind == "O" and any(v is None for v in arr.tolist()):
        i = [v is None for v in arr.tolist()].index(True)
        raise fail_at("period", "must not be missing", arr, i, source)
    labels, inverse = np.unique(arr, return_inverse=True)
    return require(inverse.astype(np.int64), np.int64), labels


_TRUE = {"1", "true", "t", "yes", "y"}
_FALSE = {"0", "false", "f", "no", "n", ""}


def as_bool(x: Any, column: str, source: Source = NO_SOURCE) -> np.ndarray:
    """Booleans from bool/0-1 numbers/'TRUE'/'FALSE' strings, naming the first bad value."""
    arr = as_1d(x, column)
    if arr.dtype.kind == "b":
        return require(arr, np.bool_)
    if arr.dtype.kind in "iuf":
        bad = ~np.isin(arr, (0, 1))
        if bad.any():
            raise fail_at(column, "must be a boolean (0/1, true/false)", arr, int(np.argmax(bad)),
                          source)
        return require(arr.astype(np.bool_), np.bool_)
    # text: map each distinct value once (None -> 'None', which is refused)
    uniq, inverse = np.unique(arr.astype(str), return_inverse=True)
    code = np.array([1 if u.strip().lower() in _TRUE else 0 if u.strip().lower() in _FALSE
                     else -1 for u in uniq.tolist()], dtype=np.int8)
    vals = code[inverse.reshape(-1)]
    bad = vals < 0
    if bad.any():
        raise fail_at(column, "must be a boolean (0/1, true/false)", arr, int(np.argmax(bad)),
                      source)
    return require(vals == 1, np.bool_)


# ----------------------------------------------------------------------------------
# games


@dataclass(frozen=True, eq=False)
class Games:
    """Two-player games in chronological order, as struct-of-arrays.

    Attributes
    ----------
    white, black : int64 arrays
        Ids (into :attr:`players`) of the first and second player of each game. The
        first player is the one any advantage (home side, white, first move) goes to.
    score : float64 array
        The first player's result: 1 win, 0.5 draw, 0 loss, or a fraction in [0, 1].
    players : PlayerIndex
        Names of the player ids.
    time : datetime64[ns] or float64 array, optional
    period : int64 array, optional
        Absolute rating-period number of each game, nondecreasing.
    weight : float64 array, optional
        Multiplies each game's K (Elo) -- e.g. a match-type K for World Football Elo.
    margin : float64 array, optional
        Point difference of the game (first minus second); margin-of-victory options
        use its absolute value.
    neutral : bool array, optional
        True where no advantage applies (neutral venue).
    order : int64 array, optional
        Input row of each stored game when the input had to be sorted by time;
        ``None`` when the input was already in order.
    """

    white: np.ndarray
    black: np.ndarray
    score: np.ndarray
    players: PlayerIndex
    time: np.ndarray | None = None
    period: np.ndarray | None = None
    period_labels: np.ndarray | None = None
    weight: np.ndarray | None = None
    margin: np.ndarray | None = None
    neutral: np.ndarray | None = None
    order: np.ndarray | None = None
    source: Source = field(default=NO_SOURCE, repr=False)
    #: rows left out while reading: (reason, count, first row) triples
    dropped: tuple[tuple[str, int, str], ...] = ()

    # -- construction -------------------------------------------------------------

    @classmethod
    def from_arrays(cls, white: Any, black: Any, score: Any, *, time: Any = None,
                    period: Any = None, weight: Any = None, margin: Any = None,
                    neutral: Any = None, players: Sequence[Any] | PlayerIndex | None = None,
                    sort: bool = True, source: Source | str | None = None) -> Games:
        """Build games from arrays (NumPy, lists, pandas/polars series, Arrow arrays).

        ``white``/``black`` are player names (any hashable values, interned here), or
        integer ids into ``players`` when ``players`` is given. ``period`` is either an
        array of period labels (e.g. a season column) or a spec applied to ``time``
        (``"3d"``, ``"1w"``, ``"month"``, a number for numeric times). Games whose times
        are out of order are stably sorted by time (``sort=True``, the default; the
        results still come back in input order) or refused (``sort=False``).
        """
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        # Arrow columns and lists go to the interner as they are (no round trip through
        # Python objects; a NaN in a list of names stays a missing name, not 'nan')
        w = white if _is_arrow_array(white) or isinstance(white, (list, tuple)) else as_1d(white,
                                                                                     "white")
        b = black if _is_arrow_array(black) or isinstance(black, (list, tuple)) else as_1d(black,
                                                                                     "black")
        n = len(w)
        if n == 0:
            raise InputError("no games: the input has no rows")
        if len(b) != n:
            raise InputError(f"column 'black' must have one value per game ({n}); got {len(b)}")
        if players is not None:
            index = players if isinstance(players, PlayerIndex) else PlayerIndex(players)
            wi = _ids(as_1d(w, "white"), "white", len(index), src)
            bi = _ids(as_1d(b, "black"), "black", len(index), src)
        else:
            index, (wi, bi) = PlayerIndex.intern(w, b, names=("white", "black"), source=src)
        del white, black, w, b  # the names (e.g. Arrow columns) are not needed any more
        same = wi == bi
        if same.any():
            i = int(np.argmax(same))
            raise InputError(f"a player cannot play himself: {_fmt(index[wi[i]])} is both "
                             f"players at {src.where(i)}; drop those rows "
                             "(read_games(..., drop_self_play=True) or --drop-self-play)")
        s = as_float64(score, "score", src)
        check_length(s, "score", n)
        check_range(s, "score", 0.0, 1.0, src)
        wt = mg = nt = tm = pr = labels = None
        if weight is not None:
            wt = as_float64(weight, "weight", src)
            check_length(wt, "weight", n)
            check_range(wt, "weight", 0.0, math.inf, src, lo_open=True, hi_open=True)
        if margin is not None:
            mg = as_float64(margin, "margin", src)
            check_length(mg, "margin", n)
        if neutral is not None:
            nt = as_bool(neutral, "neutral", src)
            check_length(nt, "neutral", n)
        if time is not None:
            tm = parse_time(time, "time", src)
            check_length(tm, "time", n)
        if period is not None:
            if isinstance(period, (str, int, float)) and not isinstance(period, bool):
                if tm is None:
                    raise InputError(f"period {period!r} is a length, which needs a time "
                                     "column; give time=..., or period labels per game")
                pr = bucket_periods(tm, period)
            else:
                pr, labels = _period_labels(period, src)
                check_length(pr, "period", n)
        order = None
        key = tm if tm is not None else pr
        if key is not None:
            keyv = key.view(np.int64) if key.dtype.kind == "M" else key
            back = keyv[1:] < keyv[:-1]
            if back.any():
                if not sort:
                    i = int(np.argmax(back)) + 1
                    col = "time" if tm is not None else "period"
                    raise fail_at(col, "must be nondecreasing (games in chronological order)",
                                  key, i, src, "sort the input or pass sort=True")
                order = np.argsort(keyv, kind="stable").astype(np.int64)
            if tm is not None and pr is not None:
                pk = pr if order is None else pr[order]
                pback = pk[1:] < pk[:-1]
                if pback.any():
                    i = int(np.argmax(pback)) + 1
                    row = i if order is None else int(order[i])
                    raise fail_at("period", "must not decrease while time increases", pr, row,
                                  src)

        def take(a):
            return a if (a is None or order is None) else require(a[order], a.dtype)

        # one column at a time, so that each unsorted column can go before the next copy
        wi = take(wi)
        bi = take(bi)
        s = take(s)
        tm = take(tm)
        pr = take(pr)
        wt = take(wt)
        mg = take(mg)
        nt = take(nt)
        return cls(white=wi, black=bi, score=s, players=index, time=tm, period=pr,
                   period_labels=labels, weight=wt, margin=mg, neutral=nt, order=order,
                   source=src)

    @classmethod
    def from_frame(cls, frame: Any, **columns: Any) -> Games:
        """Build games from a pandas/polars DataFrame or a pyarrow Table.

        Column names are recognised as in :func:`fastrate.read_games` (``white``/``black``/
        ``score``, ``winner``/``loser``, ``home_team``/``away_team`` with scores, ...);
        pass ``white="col"``, ``score="col"`` ... to map them explicitly.
        """
        from fastrate.io.tables import games_from_table, to_arrow_table

        return games_from_table(to_arrow_table(frame), **columns)

    # -- properties ---------------------------------------------------------------

    @property
    def n_games(self) -> int:
        return int(self.white.shape[0])

    @property
    def n_players(self) -> int:
        return len(self.players)

    def __len__(self) -> int:
        return self.n_games

    def __repr__(self) -> str:
        extras = [k for k in ("time", "period", "weight", "margin", "neutral")
                  if getattr(self, k) is not None]
        return (f"Games({self.n_games} games, {self.n_players} players"
                + (f", with {', '.join(extras)}" if extras else "") + ")")

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Put per-game values (in stored, chronological order) back in input row order."""
        if self.order is None:
            return values
        out = np.empty_like(values)
        out[self.order] = values
        return out

    def period_or_zero(self) -> np.ndarray:
        """Period numbers, or all zeros (a single period) when the games have none."""
        if self.period is not None:
            return self.period
        return np.zeros(self.n_games, dtype=np.int64)

    def with_players(self, index: PlayerIndex, mapping: np.ndarray) -> Games:
        """The same games re-expressed in a larger player index (``mapping[old] = new``)."""
        return dataclasses.replace(self, white=require(mapping[self.white], np.int64),
                                   black=require(mapping[self.black], np.int64), players=index)


def _ids(x: np.ndarray, column: str, n_players: int, source: Source) -> np.ndarray:
    if x.dtype.kind not in "iu":
        raise InputTypeError(f"column '{column}' must hold integer player ids when players= is "
                             f"given; got dtype {x.dtype}")
    ids = require(x, np.int64)
    bad = (ids < 0) | (ids >= n_players)
    if bad.any():
        raise fail_at(column, f"must be a player id in [0, {n_players})", ids,
                      int(np.argmax(bad)), source)
    return ids


# ----------------------------------------------------------------------------------
# per-player state (initial ratings in, results out)

_NO_PERIOD = np.iinfo(np.int64).min


@dataclass(eq=False)
class PlayerState:
    """Per-player state arrays a kernel reads and updates in place.

    ``last_period`` is ``NO_PERIOD`` (int64 min) for a player who has not played yet.
    """

    players: PlayerIndex
    rating: np.ndarray
    rd: np.ndarray
    volatility: np.ndarray
    games_played: np.ndarray
    last_period: np.ndarray
    #: Elo's FIDE rule: whether a rating has ever reached the threshold (2400), so K
    #: stays at 10 after a fall below it; None when ``initial`` does not say
    fide_reached: np.ndarray | None = None

    NO_PERIOD = _NO_PERIOD

    @classmethod
    def resolve(cls, games: Games, initial: Any, *, rating: float, rd: float = math.nan,
                volatility: float = math.nan) -> tuple[PlayerState, Games]:
        """Default state for every player of ``games``, overlaid with ``initial``.

        ``initial`` may be ``None``, a :class:`Ratings` (e.g. a previous run), a mapping
        ``name -> rating``, or a table (pyarrow/pandas/polars/dict of columns) with a
        ``player`` column and any of ``rating``, ``rd``, ``volatility``, ``games_played``,
        ``last_period``, ``fide_reached``. Players known only to ``initial`` are kept, so
        continuing from a saved state gives the same table as a full recompute.
        """
        state, mapping = cls.merge(games.players, initial, rating=rating, rd=rd,
                                   volatility=volatility)
        return state, (games if mapping is None else games.with_players(state.players, mapping))

    @classmethod
    def merge(cls, players: PlayerIndex, initial: Any, *, rating: float, rd: float = math.nan,
              volatility: float = math.nan) -> tuple[PlayerState, np.ndarray | None]:
        """Default state for ``players`` overlaid with ``initial`` (as in :meth:`resolve`),
        and the mapping of ``players``' ids to the state's ids (None when unchanged):
        the players of ``initial`` come first, then the new ones."""
        if initial is None:
            n = len(players)
            return cls(players, np.full(n, float(rating)), np.full(n, float(rd)),
                       np.full(n, float(volatility)), np.zeros(n, np.int64),
                       np.full(n, _NO_PERIOD, np.int64)), None
        src = initial_source(initial)
        cols = _initial_columns(initial)
        init_names = cols.pop("player")
        init_index = PlayerIndex(init_names)
        if len(init_index.lookup) != len(init_index):
            seen: set[Any] = set()
            names_list = init_index.names.tolist()
            i = next(j for j, x in enumerate(names_list) if x in seen or seen.add(x))
            raise InputError(f"initial ratings list player {_fmt(names_list[i])} twice (again "
                             f"at {src.where(i)}); keep one row per player")
        lookup = init_index.lookup
        game_names = players.names.tolist()
        new = [name for name in game_names if name not in lookup]
        all_names = np.empty(len(init_index) + len(new), dtype=object)
        all_names[:len(init_index)] = init_index.names
        all_names[len(init_index):] = new
        index = PlayerIndex(all_names)
        mapping = np.array([index.lookup[name] for name in game_names], dtype=np.int64)
        n = len(index)
        state = cls(index, np.full(n, float(rating)), np.full(n, float(rd)),
                    np.full(n, float(volatility)), np.zeros(n, np.int64),
                    np.full(n, _NO_PERIOD, np.int64))
        m = len(init_index)
        for name, arr in cols.items():
            if name == "fide_reached":
                state.fide_reached = np.zeros(n, dtype=np.bool_)
                state.fide_reached[:m] = _bool_column(arr, name, src)
                continue
            target = getattr(state, name)
            if name in ("games_played", "last_period"):
                vals = as_1d(arr, name)
                if vals.dtype.kind == "f":
                    missing = np.isnan(vals)
                    vals = np.where(missing, target[:m], np.nan_to_num(vals)).astype(np.int64)
                target[:m] = vals
            else:
                vals = as_float64(arr, name, src, allow_nan=True)
                target[:m] = np.where(np.isnan(vals), target[:m], vals)
                if np.isinf(vals).any():
                    i = int(np.argmax(np.isinf(vals)))
                    raise fail_at(name, "must be finite", vals, i, src)
        return state, mapping


#: schema metadata key under which :func:`fastrate.read_ratings` records the file name
SOURCE_KEY = b"fastrate.source"


def initial_source(initial: Any, default: str = "initial ratings") -> Source:
    """Where a saved-state table came from, for error messages: the file it was read
    from by :func:`fastrate.read_ratings` (rows named with their file lines), else
    ``default``."""
    schema = getattr(initial, "schema", None)
    meta = getattr(schema, "metadata", None) or {}
    if SOURCE_KEY in meta:
        from fastrate.io.tables import _source_for

        return _source_for(meta[SOURCE_KEY].decode())
    return Source(default)


def _bool_column(values: Any, name: str, src: Source) -> np.ndarray:
    """A per-player flag from initial ratings: booleans, 0/1, or true/false text;
    missing values are False."""
    arr = as_1d(values, name)
    if arr.dtype.kind == "b":
        return arr
    if arr.dtype.kind in "iuf":
        bad = ~(np.isnan(arr) | (arr == 0) | (arr == 1)) if arr.dtype.kind == "f" \
            else ~((arr == 0) | (arr == 1))
        if bad.any():
            raise fail_at(name, "must be true/false (or 1/0)", arr, int(np.argmax(bad)), src)
        return np.nan_to_num(arr.astype(np.float64)) == 1
    text = np.array([str(x).strip().lower() for x in arr.tolist()], dtype=object)
    ok = np.isin(text, ["true", "false", "1", "0", "", "none", "nan"])
    if not ok.all():
        raise fail_at(name, "must be true/false (or 1/0)", arr, int(np.argmax(~ok)), src)
    return np.isin(text, ["true", "1"])


def _initial_columns(initial: Any) -> dict[str, Any]:
    keep = ("rating", "rd", "volatility", "games_played", "last_period", "fide_reached")
    if isinstance(initial, Ratings):
        out: dict[str, Any] = {"player": initial.players.names, "rating": initial.rating,
                               "games_played": initial.games_played}
        for k in ("rd", "volatility", "last_period", "fide_reached"):
            if getattr(initial, k) is not None:
                out[k] = getattr(initial, k)
        return out
    if isinstance(initial, Mapping) and not (
            "player" in initial and not np.isscalar(initial["player"])):
        names = np.empty(len(initial), dtype=object)
        names[:] = list(initial.keys())
        return {"player": names, "rating": np.array(list(initial.values()), dtype=np.float64)}
    from fastrate.io.tables import to_arrow_table

    table = to_arrow_table(initial)
    if "player" not in table.column_names:
        raise InputError("initial ratings need a 'player' column; found columns "
                         f"{', '.join(table.column_names)}")
    out = {"player": arrow_to_numpy(table.column("player"))}
    for k in keep:
        if k in table.column_names:
            col = table.column(k)
            if k == "last_period" and col.null_count:
                import pyarrow as pa

                if pa.types.is_null(col.type):
                    col = col.cast(pa.int64())
                col = col.fill_null(_NO_PERIOD)
            out[k] = arrow_to_numpy(col)
    if "rating" not in out:
        raise InputError("initial ratings need a 'rating' column; found columns "
                         f"{', '.join(table.column_names)}")
    return out


# ----------------------------------------------------------------------------------
# results


@dataclass(eq=False)
class Ratings:
    """The result of a rating run.

    ``rating``, ``rd``, ``volatility``, ``games_played`` and ``last_period`` are
    arrays indexed by player id (see :attr:`players`); ``predictions`` holds, for every
    game in input order, the first player's expected score before the game.
    """

    system: str
    players: PlayerIndex
    rating: np.ndarray
    games_played: np.ndarray
    predictions: np.ndarray
    config: Any = None
    rd: np.ndarray | None = None
    volatility: np.ndarray | None = None
    last_period: np.ndarray | None = None
    #: ids of players whose last volatility solve did not converge (Glicko-2)
    unconverged: np.ndarray | None = None
    #: both players' ratings before every game, in input order (Elo with record_pregame)
    pre_white: np.ndarray | None = None
    pre_black: np.ndarray | None = None
    #: Elo with FIDE's K rule: whether each rating has ever reached the threshold
    fide_reached: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.players)

    def __repr__(self) -> str:
        return f"Ratings({self.system}, {len(self)} players, {self.predictions.shape[0]} games)"

    def __getitem__(self, name: Any) -> float:
        """The rating of the player called ``name``."""
        return float(self.rating[self.players.id_of(name)])

    def columns(self) -> dict[str, np.ndarray]:
        """The per-player table as a dict of equal-length arrays."""
        out: dict[str, np.ndarray] = {"player": self.players.names, "rating": self.rating}
        if self.rd is not None:
            out["rd"] = self.rd
        if self.volatility is not None:
            out["volatility"] = self.volatility
        out["games_played"] = self.games_played
        if self.last_period is not None:
            out["last_period"] = self.last_period
        if self.fide_reached is not None:
            out["fide_reached"] = self.fide_reached
        return out

    def ranking(self) -> np.ndarray:
        """Player ids from the highest rating down (ties keep id order)."""
        return np.argsort(-self.rating, kind="stable")

    def to_arrow(self, sort: bool = False):
        """The per-player table as a ``pyarrow.Table`` (``last_period`` null if never played)."""
        import pyarrow as pa

        cols = self.columns()
        idx = self.ranking() if sort else None
        arrays = []
        for k, v in cols.items():
            v = v if idx is None else v[idx]
            arrays.append(numpy_to_arrow(v, mask=v == _NO_PERIOD if k == "last_period" else None))
        return pa.Table.from_arrays(arrays, names=list(cols))

    def to_frame(self, sort: bool = False):
        """The per-player table as a pandas DataFrame (needs pandas)."""
        try:
            import pandas  # noqa: F401
        except ImportError:
            raise ImportError("to_frame() needs pandas (pip install pandas); "
                              "to_arrow() works without it") from None
        return self.to_arrow(sort=sort).to_pandas()

    def top(self, n: int = 10) -> list[tuple[Any, float]]:
        """The ``n`` best players as ``(name, rating)`` pairs."""
        idx = self.ranking()[:n]
        return [(self.players[i], float(self.rating[i])) for i in idx]
