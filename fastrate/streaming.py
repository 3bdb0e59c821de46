"""Rating and evaluating more games than memory holds: chunk by chunk, state carried.

:func:`rate_chunks` reads the input (a file, a folder of monthly files, a glob) in
chunks of about ``chunk_rows`` games (:mod:`fastrate.io.chunks`), rates each chunk
continuing from the state the previous one left (``rate(chunk, initial=state)``, which
equals the full recompute: ``tests/test_systems.py`` checks it for every system), and
writes the per-game predictions as it goes. Memory then grows with the number of
players, not of games. The result is the same table, to the bit, as rating the whole
input at once:

* players are numbered in order of first appearance across the whole input, as the
  in-memory reader does (one growing index; each chunk's new names are appended);
* a system that updates once per rating period (Glicko, Glicko-2, Elo with
  ``update="period"``, elom) never sees a period cut in two: the games of a chunk's last
  period wait for the next chunk;
* the input must be in time order (what the in-memory reader would sort is refused,
  naming the first row out of order and its file);
* :func:`evaluate_chunks` adds each chunk's scores to running sums
  (:class:`fastrate.metrics.ScoreSums`) that the in-memory evaluation uses too.

Progress (games per second and an ETA by chunk) goes to ``progress``, a callable given
``(games done, games expected or None, seconds)`` after every chunk.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from fastrate.data import Games, Ratings, _intern
from fastrate.data.evaluation import Evaluation, check_burn_in, unique_labels
from fastrate.data.game_table import game_layout, names_game_columns, time_values
from fastrate.data.games import GAME_ARRAYS, merge_dropped
from fastrate.data.matches import Matches, match_layout, matches_from_table
from fastrate.data.periods import parse_time
from fastrate.data.players import NameTable, PlayerIndex
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import two_player_games
from fastrate.io.chunks import CHUNK_ROWS, input_files, iter_tables, sorted_tables
from fastrate.io.matches import long_format_or_games
from fastrate.io.tables import games_from_table
from fastrate.metrics import (
    MatchScoreSums,
    ScoreSums,
    check_draws,
    two_player_win_probabilities,
    winner_outcomes,
)
from fastrate.systems import SystemSpec

__all__ = ["rate_chunks", "evaluate_chunks", "game_chunks", "match_chunks", "CHUNK_ROWS",
           "count_rows"]

#: per-game arrays of :class:`Games` that a chunk carries over (the rest is per chunk)


def _name_kind(names: np.ndarray) -> str:
    """What a chunk's player names are: integer ids, text, or other values (float ids)."""
    if names.dtype.kind in "iu":
        return "integer ids"
    if names.dtype.kind in "OUS" and (names.shape[0] == 0 or isinstance(names[0], str)):
        return "text"
    return "other values (not integers or text)"


class _GrowingIndex:
    """The players seen so far, in order of first appearance, in one append-only buffer
    (so that every chunk's :class:`PlayerIndex` is a view that extends the last; integer
    names narrower than int64 are handed out as a copy in their own type)."""

    def __init__(self) -> None:
        self.names: np.ndarray | None = None
        self.kind = ""  # integer ids, text or other values: one kind for the whole input
        self.n = 0
        # integer names: a direct table (id - lo -> index, -1 unseen) while the ids are
        # dense enough, so that a chunk's lookup costs its own names only
        self.table: np.ndarray | None = None
        self.lo = 0
        # otherwise a hash kept from chunk to chunk (a lookup per name of the chunk,
        # instead of hashing every name seen so far per chunk)
        self.hashed: NameTable | None = None
        self.lookup: dict[Any, int] = {}
        # integer names are kept as int64 and handed out in the input's own type (one
        # type for every chunk's columns, else int64), as reading the input whole does
        self.int_dtype: np.dtype | None = None

    def _note_type(self, dtype: Any) -> None:
        """One more integer player column of type ``dtype``."""
        dtype = np.dtype(dtype)
        self.int_dtype = dtype if self.int_dtype in (None, dtype) else np.dtype(np.int64)

    def _index(self) -> PlayerIndex:
        """The players so far (a view of the buffer, or integer names in the input's
        type)."""
        names = self.names[:self.n]
        if self.int_dtype is not None and names.dtype != self.int_dtype:
            names = (names.view(np.uint64) if self.int_dtype == np.uint64
                     else names.astype(self.int_dtype))
        return PlayerIndex(names)

    def add(self, local: PlayerIndex, where: str) -> tuple[PlayerIndex, np.ndarray]:
        """Append ``local``'s new names; return the grown index and ``local``'s ids in it."""

        names = local.names
        k = names.shape[0]
        kind = _name_kind(names)
        if kind == "integer ids":
            self._note_type(names.dtype)
        if self.names is None:
            self.kind = kind
            self.names = np.empty(max(2 * k, 1024),
                                  dtype=np.int64 if kind == "integer ids" else object)
        elif kind != self.kind:
            raise InputError(f"player names change type at {where}: {self.kind} before, "
                             f"{kind} now; make the player columns one type in every file")
        direct = self.names.dtype != object and self._cover(names)
        if direct:
            assert self.table is not None
            mapping = self.table[names - self.lo].astype(np.int64)
        elif self.lookup or (self.hashed is None and names.dtype.kind not in "iuO"):
            # names that are neither integers nor text (e.g. float ids): a dictionary
            get = self.lookup.get
            mapping = np.array([get(x, -1) for x in names.tolist()], dtype=np.int64)
            self.lookup.update((x, self.n + j) for j, x in enumerate(
                dict.fromkeys(x for x in names.tolist() if x not in self.lookup)))
        else:
            if self.hashed is None:
                self.hashed = NameTable("str" if self.names.dtype == object else "int")
                self.hashed.ids(self.names[:self.n])  # the names so far: ids 0 .. n-1
            # new names get the next ids, in the chunk's order
            mapping = self.hashed.ids(names)
            mapping[mapping >= self.n] = -1
        new = mapping < 0
        m = int(new.sum())
        self._room(self.n + m)
        self.names[self.n:self.n + m] = names[new]
        mapping[new] = np.arange(self.n, self.n + m, dtype=np.int64)
        if direct:
            self.table[names[new] - self.lo] = mapping[new]
        self.n += m
        return self._index(), mapping

    def intern_columns(self, table: Any, first: str, second: str) -> tuple[PlayerIndex,
                                                                           Any] | None:
        """A chunk's integer player columns interned straight into the direct table, in
        the order the chunk-local interning would give (row by row, ``first`` before
        ``second``): ``(the grown index, the table with the columns replaced by global
        ids)``, so the chunk needs no interning of its own and no renumbering (one pass
        instead of three). None when the direct table does not apply (text or other
        names, a null, a hash already in use, ids too sparse): the caller then takes the
        general path, which gives the same ids."""
        import pyarrow as pa

        if self.lookup or self.hashed is not None or (self.names is not None
                                                      and self.kind != "integer ids"):
            return None
        cols = []
        for name in (first, second):
            col = table.column(name)
            if col.null_count or not pa.types.is_integer(col.type) or (
                    pa.types.is_uint64(col.type)):
                return None
            cols.append(col.to_numpy())
        rows = cols[0].shape[0]
        if rows == 0:
            return None
        for c in cols:
            self._note_type(c.dtype)
        cols = [np.ascontiguousarray(c, dtype=np.int64) for c in cols]
        for c in cols:  # (one kernel signature: Arrow's own int64 buffers are read-only,
            c.flags.writeable = False  # a widened copy would not be)
        lohi = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)
        for c in cols:
            _intern.value_range(c, lohi, np.uint64(2**64 - 1))
        lo, hi = int(lohi[0]), int(lohi[1])
        if not self._cover_range(lo, hi, rows):
            return None
        assert self.table is not None
        need = self.n + min(2 * rows, hi - lo + 1)  # at most this many names after
        if self.names is None:
            self.kind = "integer ids"
            self.names = np.empty(max(need, 1024), dtype=np.int64)
        self._room(need)
        count = np.array([self.n], dtype=np.int64)
        outs = (np.empty(rows, dtype=np.int64), np.empty(rows, dtype=np.int64))
        _intern.encode_direct_rows(tuple(cols), outs, self.table, self.lo, self.names, count)
        self.n = int(count[0])
        for name, ids in zip((first, second), outs):
            table = table.set_column(table.column_names.index(name), name, pa.array(ids))
        return self._index(), table

    def _room(self, size: int) -> None:
        """Grow the names' buffer (doubling) to hold at least ``size`` names."""
        if size > self.names.shape[0]:
            grown = np.empty(max(2 * self.names.shape[0], size), dtype=self.names.dtype)
            grown[:self.n] = self.names[:self.n]
            self.names = grown

    def _cover(self, names: np.ndarray) -> bool:
        """Make the direct table cover ``names`` if the ids stay dense enough (a table
        of at most 4 entries per player seen, plus 2^20); False (and no table from now
        on) otherwise."""
        if names.shape[0] == 0:
            return self.table is not None
        return self._cover_range(int(names.min()), int(names.max()), names.shape[0])

    def _cover_range(self, lo: int, hi: int, count: int) -> bool:
        """:meth:`_cover` for names from ``lo`` to ``hi``, ``count`` of them."""
        if self.table is not None:
            lo, hi = min(lo, self.lo), max(hi, self.lo + self.table.shape[0] - 1)
        elif self.n:  # an earlier chunk was looked up by hash: stay with it
            return False
        size = hi - lo + 1
        if size > 4 * (self.n + count) + (1 << 20):
            self.table = None
            return False
        if self.table is None or lo < self.lo or size > self.table.shape[0]:
            slots = max(size, 2 * (0 if self.table is None else self.table.shape[0]))
            # int32 entries (an index below the span): half the table for the lookups
            grown = np.full(slots, -1, dtype=np.int32 if slots < 2**31 else np.int64)
            if self.table is not None:
                at = self.lo - lo
                grown[at:at + self.table.shape[0]] = self.table
            self.table, self.lo = grown, lo
        return True


def _time_key(games: Games | Matches) -> np.ndarray | None:
    return games.time if games.time is not None else games.period


def _where(data: Games | Matches, i: int) -> str:
    """Where game (or match) ``i`` of a chunk is in its file."""
    if isinstance(data, Matches) and data.row is not None:
        seat = int(data.team_player_offsets[data.match_team_offsets[i]])
        return data.source.where(int(data.row[seat]))
    return data.source.where(i)


def _check_order(data: Games | Matches, last: Any) -> Any:
    """Refuse a chunk whose games (matches) are not in time order (within it, or after
    the previous chunk's last one ``last``); return its last time (or ``last``)."""
    key = _time_key(data)
    if key is None or key.shape[0] == 0:
        return last
    if last is not None and key[0] < last:
        raise InputError(f"games out of time order at {_where(data, 0)}: it is before the "
                         "previous chunk's last game; sort the input by time, or let fastrate sort "
                         "it (sort=True; --sort), or read it whole (--chunk-rows 0)")
    back = np.flatnonzero(key[1:] < key[:-1])
    if back.shape[0]:
        i = int(back[0]) + 1
        raise InputError(f"games out of time order at {_where(data, i)}: it is before the "
                         "row above; sort the input by time, or let fastrate sort it (sort=True; "
                         "--sort), or read it whole (--chunk-rows 0)")
    return key[-1]


def _read_ahead(items: Iterator[Any]) -> Iterator[Any]:
    """The items of ``items`` in order, the next one read in a thread of its own while
    the caller works on the current one (the file readers release the GIL: reading the
    50M-game Parquet file overlaps building, numbering and rating). At most one item is
    read ahead (one chunk more in memory); an error reading it is raised when the caller
    asks for it, and a caller that stops early waits for the read in flight. Only
    ``items`` that share no state with the caller (not the external sort, whose first
    pass numbers the players). With one thread (``numba.get_num_threads()``), plain
    iteration."""
    from concurrent.futures import ThreadPoolExecutor

    import numba

    if numba.get_num_threads() < 2:
        yield from items
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="fastrate-read") as reader:
        ahead = reader.submit(next, items, None)
        while True:
            item = ahead.result()
            if item is None:
                return
            ahead = reader.submit(next, items, None)
            yield item
            del item


def _tables(source: Any, format: str | None, chunk_rows: int, layout_of: Callable,
            sort: bool, time_format: str | None, players: _GrowingIndex,
            player_columns: Callable[[Any], list[str]], encoding: str = "utf-8"
            ) -> Iterator[tuple[Any, Any]]:
    """The input's chunks as tables, in file order or (``sort``) sorted by time (an
    external sort: :func:`fastrate.io.chunks.sorted_tables`; its first pass numbers the
    players in ``players`` in order of first appearance in the input, as the in-memory
    reader does, from the ``player_columns(layout)``)."""
    files = input_files(source)

    def columns_of(names: list[str], where: str) -> list[str]:
        return layout_of(names, where).columns()

    def dictionary_of(names: list[str], where: str) -> list[str]:
        return player_columns(layout_of(names, where))

    if not sort:
        return _read_ahead(iter_tables(files, format, chunk_rows, columns_of, dictionary_of,
                                       encoding=encoding))

    def key_of(table: Any, src: Any) -> np.ndarray:
        lay = layout_of(table.column_names, src.name or "the input")
        if lay.time is not None:
            t = parse_time(time_values(table.column(lay.time), lay.time, time_format, src),
                           lay.time, src)
            return t.view(np.int64) if t.dtype.kind == "M" else t
        if lay.period is not None:
            col = table.column(lay.period)
            import pyarrow as pa

            if pa.types.is_integer(col.type) or pa.types.is_floating(col.type):
                return np.asarray(col.to_numpy(), dtype=np.float64)
            raise InputError(f"sorting needs a time column or numeric period labels; "
                             f"'{lay.period}' of {src.name} holds text")
        raise InputError(f"sorting needs a time or period column; {src.name} has neither")

    def observe(table: Any, src: Any) -> None:
        lay = layout_of(table.column_names, src.name or "the input")
        cols = player_columns(lay)
        index, _ = PlayerIndex.intern(*(table.column(c) for c in cols), names=cols,
                                      source=src)
        players.add(index, src.where(0))

    return sorted_tables(files, format, chunk_rows, columns_of, key_of, observe=observe,
                         dictionary_of=dictionary_of, encoding=encoding)


def game_chunks(source: Any, *, chunk_rows: int = CHUNK_ROWS, format: str | None = None,
                timings: dict[str, float] | None = None, sort: bool = False,
                **columns: Any) -> Iterator[Games]:
    """The games of ``source`` (a file, folder, glob or list of them; see
    :func:`fastrate.io.chunks.input_files`) as a sequence of :class:`Games` of about
    ``chunk_rows`` games, in time order, every chunk's players a view of one growing
    index in order of first appearance (ids are global). ``columns``: the column
    options of :func:`fastrate.read_games` (``white=``, ``period="month"`` ...).
    Period labels must be numbers or come from a time column (text labels are ranked
    over the whole input, which a chunk cannot know). ``timings``: seconds spent reading
    (``read``), building the games (``build``: parsing, checks, interning) and numbering
    the players globally (``players``) are added to it. ``encoding``: the text encoding
    of CSV and JSON files (as for :func:`fastrate.read_games`)."""
    pgn = _pgn_files(source)
    if pgn is not None:
        yield from _pgn_game_chunks(pgn, chunk_rows, timings, sort, columns)
        return
    columns = dict(columns)
    encoding = columns.pop("encoding", "utf-8")
    layout = {k: v for k, v in columns.items() if k not in ("time_format", "drop_self_play")}
    players = _GrowingIndex()
    last = None
    clock = _Clock(timings)
    tables = _tables(source, format, chunk_rows,
                     lambda names, where: game_layout(names, where, **layout), sort,
                     columns.get("time_format"), players, lambda lay: [lay.first, lay.second],
                     encoding)
    zones = _TimeZones()
    while True:
        with clock("read"):
            item = next(tables, None)
        if item is None:
            return
        table, src = item
        del item
        if table.num_rows == 0:
            continue
        lay = game_layout(table.column_names, src.name or "the input", **layout)
        zones.check(table, lay.time, src)
        with clock("players"):  # integer ids straight into the global index, if it can
            direct = players.intern_columns(table, lay.first, lay.second)
        index = None
        if direct is not None:
            index, table = direct
        games, last = _built(lambda t, s, index=index: games_from_table(
            t, sort=False, source=s, players=index, **columns), table, src, clock,
            None if direct is not None else players, last)
        del table
        yield games


def _pgn_files(source: Any) -> list[Any] | None:
    """The files of ``source`` when they are PGN (:func:`fastrate.io.pgn_games.is_pgn`),
    None when they are tables; refuses a mix."""
    from fastrate.io.pgn_games import is_pgn

    files = input_files(source)
    pgn = [is_pgn(f) for f in files]
    if not any(pgn):
        return None
    if not all(pgn):
        raise InputError(f"{_name(source)} mixes PGN files and tables "
                         f"({files[pgn.index(True)].name}, {files[pgn.index(False)].name}); "
                         "rate them separately, or convert the PGN first")
    return files


def _pgn_game_chunks(files: list[Any], chunk_rows: int, timings: dict[str, float] | None,
                     sort: bool, columns: dict[str, Any]) -> Iterator[Games]:
    """:func:`game_chunks` of PGN files (:func:`fastrate.io.pgn_games.pgn_chunks`: the
    options of :func:`fastrate.io.pgn_games.pgn_options`), read in a thread of their own
    ahead of the caller, every part's players numbered in one growing index."""
    from fastrate.io.pgn_games import pgn_chunks, pgn_options

    if sort:
        raise InputError("sorting (sort=True; --sort) takes tables; a PGN file is read in "
                         "its own order: give it in date order, or read it whole "
                         "(--chunk-rows 0)")
    options = pgn_options(columns)
    players = _GrowingIndex()
    clock = _Clock(timings)
    parts = _read_ahead(pgn_chunks(files, chunk_rows=chunk_rows, **options))
    last, done = None, 0
    while True:
        with clock("read"):
            part = next(parts, None)
        if part is None:
            return
        if part.time is not None:  # (each part sorted by date, as a whole file is)
            if last is not None and part.time[0] < last:
                day = str(part.time[0].astype("datetime64[D]"))
                raise InputError(
                    f"the games of {part.source.name} are not in date order: those read "
                    f"after the first {done:,} start on {day}, before the last of those "
                    f"({str(last.astype('datetime64[D]'))}); read the PGN whole "
                    "(--chunk-rows 0), which sorts it by date")
            last = part.time[-1]
        done += part.n_games
        with clock("players"):
            index, mapping = players.add(part.players, _where(part, 0))
            part = part.with_players(index, mapping)
        yield part


class _TimeZones:
    """Times with and without a UTC offset must not mix in one input: a chunk's reader
    refuses a mix within the chunk, and this compares the chunks (each is all one kind,
    so its first text time tells)."""

    def __init__(self) -> None:
        self.first: tuple[bool, str, str] | None = None  # (aware, time, where)

    def check(self, table: Any, column: str | None, src: Any) -> None:
        import pyarrow as pa

        from fastrate.data.periods import has_utc_offset

        if column is None or column not in table.column_names:
            return
        col = table.column(column)
        if not (pa.types.is_string(col.type) or pa.types.is_large_string(col.type)):
            return
        valid = col.drop_null()
        if len(valid) == 0:
            return
        text = str(valid[0].as_py())
        aware = has_utc_offset(text)
        where = src.where(0)
        if self.first is None:
            self.first = (aware, text, where)
        elif self.first[0] != aware:
            raise InputError(
                f"column '{column}' must not mix times with and without a UTC offset; "
                f"found {self.first[1]!r} at {self.first[2]} but {text!r} at {where}; give "
                "every time an offset (Z, +02:00) or none")


def _built(build: Callable[[Any, Any], Any], table: Any, src: Any, clock: _Clock,
           players: _GrowingIndex | None, last: Any) -> tuple[Any, Any]:
    """``build(table, source)`` (a chunk's :class:`Games` or :class:`Matches`), checked
    for chunks (numbered periods, time order after ``last``) and renumbered into the
    global index ``players`` (None: built on it already); and its last time."""
    with clock("build"):
        part = build(table, src)
        if part.period_labels is not None:
            raise InputError(f"period labels of {src.name} are text; chunks need numbers "
                             "(e.g. a season year) or a time column with a period length "
                             "(--period month), or read the input whole (--chunk-rows 0)")
        last = _check_order(part, last)
    if players is None:
        return part, last
    with clock("players"):
        index, mapping = players.add(part.players, _where(part, 0))
        return part.with_players(index, mapping), last


class _Clock:
    """``with clock("stage"):`` adds the seconds spent to ``timings["stage"]`` (nothing
    when ``timings`` is None)."""

    def __init__(self, timings: dict[str, float] | None):
        self.timings = timings
        self.stage = ""
        self.t0 = 0.0

    def __call__(self, stage: str) -> _Clock:
        self.stage = stage
        return self

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: Any) -> None:
        if self.timings is not None:
            self.timings[self.stage] = (self.timings.get(self.stage, 0.0)
                                        + time.perf_counter() - self.t0)


def _join(a: Games | None, b: Games) -> Games:
    """The games of ``a`` then ``b`` (``b``'s index extends ``a``'s)."""
    if a is None or a.n_games == 0:
        return b
    parts: dict[str, Any] = {}
    for name in GAME_ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        if (x is None) != (y is None):
            raise InputError(f"the chunks' columns differ: '{name}' is missing from some "
                             f"(at {b.source.where(0)})")
        parts[name] = None if x is None else np.concatenate([x, y])
    return dataclasses.replace(b, **parts)


def _split(games: Games, at: int) -> tuple[Games, Games]:
    """Games ``[:at]`` and ``[at:]``."""
    def part(sl: slice) -> Games:
        return dataclasses.replace(games, **{
            name: None if getattr(games, name) is None else getattr(games, name)[sl]
            for name in GAME_ARRAYS})
    return part(slice(0, at)), part(slice(at, None))


def _whole_periods(spec: SystemSpec) -> bool:
    """Whether ``spec`` updates once per rating period (so a period must not be cut)."""
    return spec.system.period_based or getattr(spec.config, "update", None) == "period"


def _rate(spec: SystemSpec, games: Games, initial: Any, predictions: bool) -> Ratings:
    """Rate one chunk, without per-game outputs when not wanted and the system can."""
    return spec.rate(games, initial=initial, predictions=predictions)


def _ready_parts(spec: SystemSpec, chunks: Iterator[Any], join: Callable,
                 split: Callable) -> Iterator[Any]:
    """The chunks (:class:`Games` or :class:`Matches`, joined and split by ``join`` /
    ``split``) as the system may rate them: for a period-based system, every chunk
    without its last period, which goes in front of the next chunk."""
    whole = _whole_periods(spec)
    held = None
    for part in chunks:
        part = join(held, part)
        held = None
        if whole:
            if part.period is None:
                raise ConfigError(f"{spec.label} updates once per rating period: give the "
                                  "input a period (e.g. --period month) to rate it in "
                                  "chunks, or read it whole (--chunk-rows 0)")
            cut = int(np.searchsorted(part.period, part.period[-1], side="left"))
            if cut == 0:
                held = part  # one period so far: wait for its end
                continue
            part, held = split(part, cut)
        yield part
    if held is not None and len(held):
        yield held


def _ready_games(spec: SystemSpec, chunks: Iterator[Games]) -> Iterator[Games]:
    return _ready_parts(spec, chunks, _join, _split)


def rate_chunks(source: Any, system: Any = "elo", *, chunk_rows: int = CHUNK_ROWS,
                format: str | None = None, initial: Any = None,
                on_predictions: Callable[[Any, Ratings], None] | None = None,
                progress: Callable[[int, int | None, float], None] | None = None,
                timings: dict[str, float] | None = None, sort: bool = False,
                dropped: list | None = None, default_period: str | None = None,
                seen: dict | None = None, **columns: Any) -> Ratings:
    """Rate ``source`` chunk by chunk (see the module docstring) with ``system`` (a spec
    string, ``(name, config)`` or config object); return the final :class:`Ratings`
    (``predictions`` None: they went to ``on_predictions(part, ratings)``, called when
    given after each part (:class:`Games` or :class:`Matches`) is rated, with the
    ratings holding that part's predictions). Systems that rate matches read a
    long-format ``source`` (:func:`match_chunks`). ``timings``: seconds by stage
    (``read``, ``build``, ``players``, ``rate``) are added to it. ``dropped``: a list
    that gets the rows left out (``(reason, count, first place)``, as ``Games.dropped``
    of the whole input). ``default_period``: a period-based system's chunks with times but
    no periods are grouped by this length (e.g. ``"month"``). ``seen``: a dict that gets
    what the caller may report (``"default_period"`` once used, ``"unweighted"``).

    >>> import fastrate, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "games.csv"
    >>> _ = path.write_text("white,black,score\\na,b,1\\nb,c,0.5\\nc,a,0\\n")
    >>> chunked = rate_chunks(path, "elo", chunk_rows=2)
    >>> whole = fastrate.elo.rate(fastrate.read_games(path))
    >>> chunked.rating.tolist() == whole.rating.tolist()
    True
    """
    spec = SystemSpec.of(system)
    _check_streamable(spec)
    want = on_predictions is not None
    state = initial
    done, start = 0, time.perf_counter()
    expected = (count_rows(source, format)
                if progress is not None and spec.system.data == "games" else None)
    clock = _Clock(timings)
    for games in _parts(spec, source, dropped, default_period, seen, chunk_rows=chunk_rows,
                        format=format, timings=timings, sort=sort, **columns):
        with clock("rate"):
            state = _rate(spec, games, state, want)
        if want:
            on_predictions(games, state)
        state = dataclasses.replace(state, predictions=None, pair_predictions=None)
        done += len(games)
        if progress is not None:
            progress(done, expected, time.perf_counter() - start)
    if state is None:
        raise InputError(f"no games in {_name(source)}")
    return state


def _name(source: Any) -> str:
    if isinstance(source, (list, tuple)):
        return ", ".join(os.fspath(s) for s in source)
    return os.fspath(source)


def _check_streamable(spec: SystemSpec, matches_too: bool = True) -> None:
    if not getattr(spec.config, "continuable", True):
        raise ConfigError(f"{spec.label} cannot rate in chunks: its state is not kept from "
                          "chunk to chunk (read the input whole: --chunk-rows 0)")
    if spec.system.data == "boards" or spec.system.batch or (
            spec.system.data == "matches" and not matches_too):
        what = ("online systems that rate two-player games or matches" if matches_too
                else "online systems that rate two-player games")
        raise ConfigError(f"{spec.label} cannot rate in chunks: only {what} can (read the "
                          "input whole instead)")


def count_rows(source: Any, format: str | None = None) -> int | None:
    """The number of rows of ``source`` when its files say so cheaply (Parquet
    metadata), else None (for a progress bar's total)."""
    import pyarrow.parquet as pq

    total = 0
    for path in input_files(source):
        if not str(path).lower().endswith((".parquet", ".pq")) and format != "parquet":
            return None
        total += pq.ParquetFile(path).metadata.num_rows
    return total


class _BurnIn:
    """The burn-in mask of games arriving in chunks: the games of the first ``k``
    distinct rating periods that hold games are not scored (as
    :func:`fastrate.data.evaluation.burn_in_mask` on the whole input)."""

    def __init__(self, k: int):
        self.k = k
        self.seen = 0  # distinct periods before the current chunk
        self.last: int | None = None

    def mask(self, games: Games) -> np.ndarray | None:
        if self.k == 0:
            return None
        if games.period is None:
            raise InputError(f"a burn-in of {self.k} period(s) needs games with rating "
                             "periods: give them a period (--period)")
        p = games.period
        new_run = np.empty(p.shape[0], dtype=np.bool_)
        new_run[1:] = p[1:] != p[:-1]
        new_run[0] = self.last is None or p[0] != self.last
        ordinal = self.seen - 1 + np.cumsum(new_run)  # 0-based distinct period
        self.seen = int(ordinal[-1]) + 1
        self.last = int(p[-1])
        return ordinal >= self.k


def evaluate_chunks(source: Any, systems: Sequence[Any] | str, *, burn_in: int = 0,
                    draws: str = "exclude", bins: int = 10, chunk_rows: int = CHUNK_ROWS,
                    format: str | None = None, initial: Any = None,
                    progress: Callable[[int, int | None, float], None] | None = None,
                    sort: bool = False, dropped: list | None = None,
                    default_period: str | None = None, seen: dict | None = None,
                    **columns: Any) -> Evaluation:
    """Walk-forward evaluation of ``systems`` on ``source`` chunk by chunk: the same
    :class:`~fastrate.data.Evaluation` as :func:`fastrate.evaluate.evaluate` on the
    whole input (same bits), scores added to running sums as the chunks go
    (:class:`fastrate.metrics.ScoreSums`; for systems that rate matches, read from a
    long-format ``source``, :class:`fastrate.metrics.MatchScoreSums` and the calibration
    of the win probabilities, as :func:`fastrate.evaluate.evaluate_matches`). The input
    is read once per system. When some systems rate matches, the two-player ones join
    them on two-player matches (each part rated as games, as
    :func:`fastrate.evaluate.evaluate_matches` does). ``initial``: starting ratings for
    every system, ``dropped`` (the rows left out, counted once), ``default_period`` and
    ``seen``, as in :func:`rate_chunks`."""
    check_draws(draws)
    k = check_burn_in(burn_in)
    specs = [SystemSpec.of(s) for s in ([systems] if isinstance(systems, (str, SystemSpec))
                                         else systems)]
    if not specs:
        raise ConfigError("no systems to evaluate: give at least one, e.g. ['elo']")
    for spec in specs:
        _check_streamable(spec)
    matches = any(spec.system.data == "matches" for spec in specs)
    labels = unique_labels([s.label for s in specs])
    rows, tables, ratings = [], {}, {}
    expected = count_rows(source, format) if progress is not None and not matches else None
    n_done = 0
    for spec, label in zip(specs, labels):
        acc = ScoreSums(bins)
        match_acc = MatchScoreSums()
        burn = _BurnIn(k)
        state = initial
        done, start = 0, time.perf_counter()
        for part in _parts(spec, source, dropped if spec is specs[0] else None,
                           default_period, seen, as_matches=matches, chunk_rows=chunk_rows,
                           format=format, sort=sort, **columns):
            two_player = matches and spec.system.data == "games"
            state = _rate(spec, two_player_games(spec, part) if two_player else part,
                          state, True)
            mask = burn.mask(part)
            if matches:
                off = part.match_team_offsets
                win, pair = state.predictions, state.pair_predictions
                if two_player:  # (the better-ranked player's p: p, 1 - p)
                    win, pair = two_player_win_probabilities(win), win
                match_acc.add(win, pair, part.rank, off, mask)
                acc.add(win, winner_outcomes(part.rank, off),
                        mask=None if mask is None else mask[part.team_match()])
            else:
                acc.add(state.predictions, part.score, mask=mask)
            state = dataclasses.replace(state, predictions=None, pair_predictions=None)
            done += len(part)
            if progress is not None:
                progress(done, expected, time.perf_counter() - start)
        if done == 0:
            raise InputError(f"no games in {_name(source)}")
        row = match_acc.summary() if matches else acc.summary(draws)
        if row["n"] == 0:
            raise InputError(f"a burn-in of {k} period(s) leaves nothing to score: the "
                             f"input spans {burn.seen} period(s); use a smaller burn_in")
        rows.append({"system": label, **row})
        tables[label] = acc.calibration()
        ratings[label] = state
        n_done = done
    if matches:
        return Evaluation(rows, tables, n_done, k, "exclude", ratings, unit="matches")
    return Evaluation(rows, tables, n_done, k, draws, ratings)


# ----------------------------------------------------------------------------------
# matches (long format: one row per seat; a match's rows together)

#: per-match, per-team and per-seat arrays of :class:`Matches`
_MATCH_ARRAYS = ("time", "period", "match_labels")
_TEAM_ARRAYS = ("rank", "team_labels", "score")
_SEAT_ARRAYS = ("player", "weight", "row")


def match_chunks(source: Any, *, chunk_rows: int = CHUNK_ROWS, format: str | None = None,
                 timings: dict[str, float] | None = None, sort: bool = False,
                 **columns: Any) -> Iterator[Matches]:
    """The matches of a long-format ``source`` (one row per seat, see
    :func:`fastrate.read_matches`) as a sequence of :class:`Matches` of about
    ``chunk_rows`` rows, in time order, players numbered globally as in
    :func:`game_chunks`. A match's rows must be together (as a long-format file has
    them): the rows of a chunk's last match wait for the next chunk.

    Two-player games go as matches of two one-player teams
    (:meth:`Matches.from_games`, chunk by chunk from :func:`game_chunks`): a PGN file,
    a file read with a game column named (``winner=``, ``white=`` ...), or a table
    without a match column whose columns read as two-player games."""
    options = dict(chunk_rows=chunk_rows, format=format, timings=timings, sort=sort)
    pgn = _pgn_files(source)
    if pgn is not None or names_game_columns(columns):
        yield from _games_as_matches(source if pgn is None else pgn, options, columns)
        return
    # (the first chunk read here: a table without a match column is refused there)
    yield from long_format_or_games(
        lambda: _peeked(_long_format_chunks(source, **options, **columns)),
        lambda: _peeked(_games_as_matches(source, options, columns)))


def _peeked(items: Iterator[Any]) -> Iterator[Any]:
    """``items`` with the first one read now (its errors raised here, not when it is
    asked for)."""
    first = next(items, None)
    return iter(()) if first is None else itertools.chain((first,), items)


def _games_as_matches(source: Any, options: dict[str, Any], columns: dict[str, Any]
                      ) -> Iterator[Matches]:
    """Each chunk of two-player games as matches, numbered on from the previous chunk's
    (the match labels are the games' rows among all of them, as for the whole input)."""
    done = 0
    for games in game_chunks(source, **options, **columns):
        m = Matches.from_games(games)
        if done:
            m = dataclasses.replace(m, match_labels=m.match_labels + done)
        done += games.n_games
        yield m


def _long_format_chunks(source: Any, *, chunk_rows: int, format: str | None,
                        timings: dict[str, float] | None, sort: bool,
                        **columns: Any) -> Iterator[Matches]:
    """:func:`match_chunks` of a long-format ``source``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = dict(columns)
    encoding = columns.pop("encoding", "utf-8")
    layout = {k: v for k, v in columns.items()
              if k in ("match", "team", "player", "rank", "place", "score", "weight", "time",
                       "period")}
    players = _GrowingIndex()
    last = None
    clock = _Clock(timings)
    held: Any = None
    tables = _tables(source, format, chunk_rows,
                     lambda names, where: match_layout(names, where, **layout), sort,
                     columns.get("time_format"), players, lambda lay: [lay.player], encoding)
    zones = _TimeZones()

    def build(table: Any, src: Any) -> Matches:
        nonlocal last
        m, last = _built(lambda t, s: matches_from_table(t, sort=False, source=s, **columns),
                         table, src, clock, players, last)
        return m

    while True:
        with clock("read"):
            item = next(tables, None)
        if item is None:
            break
        table, src = item
        if table.num_rows == 0:
            continue
        zones.check(table, match_layout(table.column_names, src.name or "the input",
                                        **layout).time, src)
        if held is not None:
            if held[0].schema != table.schema:
                table = table.cast(held[0].schema)
            table = pa.concat_tables([held[0], table]).combine_chunks()
            src = dataclasses.replace(src, row_offset=src.row_offset - held[0].num_rows) \
                if held[1].name == src.name else held[1]
        key = table.column(match_layout(table.column_names, src.name or "the input",
                                        **layout).match)
        same = pc.equal(key, key[table.num_rows - 1]).to_numpy(zero_copy_only=False)
        other = np.flatnonzero(~same)
        cut = int(other[-1]) + 1 if other.shape[0] else 0
        if cut == 0:  # one match so far: wait for its end
            held = (table, src)
            continue
        held = (table.slice(cut), dataclasses.replace(src, row_offset=src.row_offset + cut))
        yield build(table.slice(0, cut), src)
    if held is not None and held[0].num_rows:
        yield build(held[0], held[1])


def _split_matches(m: Matches, cut: int) -> tuple[Matches, Matches]:
    """Matches ``[:cut]`` and ``[cut:]``."""
    t = int(m.match_team_offsets[cut])
    s = int(m.team_player_offsets[t])

    def part(ms: slice, ts: slice, ss: slice, base_t: int, base_s: int) -> Matches:
        fields: dict[str, Any] = {}
        for names, sl in ((_MATCH_ARRAYS, ms), (_TEAM_ARRAYS, ts), (_SEAT_ARRAYS, ss)):
            for name in names:
                x = getattr(m, name)
                fields[name] = None if x is None else x[sl]
        mto = m.match_team_offsets[ms.start:(ms.stop + 1 if ms.stop is not None else None)]
        tpo = m.team_player_offsets[ts.start:(ts.stop + 1 if ts.stop is not None else None)]
        return dataclasses.replace(m, match_team_offsets=mto - base_t,
                                   team_player_offsets=tpo - base_s, **fields)

    return (part(slice(0, cut), slice(0, t), slice(0, s), 0, 0),
            part(slice(cut, None), slice(t, None), slice(s, None), t, s))


def _join_matches(a: Matches | None, b: Matches) -> Matches:
    """The matches of ``a`` then ``b`` (``b``'s index extends ``a``'s)."""
    if a is None or a.n_matches == 0:
        return b
    fields: dict[str, Any] = {}
    for name in (*_MATCH_ARRAYS, *_TEAM_ARRAYS, *_SEAT_ARRAYS):
        x, y = getattr(a, name), getattr(b, name)
        if (x is None) != (y is None):
            raise InputError(f"the chunks' columns differ: '{name}' is missing from some "
                             f"(at {b.source.where(0)})")
        fields[name] = None if x is None else np.concatenate([x, y])
    mto = np.concatenate([a.match_team_offsets, b.match_team_offsets[1:] + a.n_teams])
    tpo = np.concatenate([a.team_player_offsets, b.team_player_offsets[1:] + a.n_seats])
    return dataclasses.replace(b, match_team_offsets=mto, team_player_offsets=tpo, **fields)


def _ready_matches(spec: SystemSpec, chunks: Iterator[Matches]) -> Iterator[Matches]:
    return _ready_parts(spec, chunks, _join_matches, _split_matches)


def _parts(spec: SystemSpec, source: Any, dropped: list | None = None,
           default_period: str | None = None, seen: dict | None = None,
           as_matches: bool = False, **options: Any) -> Iterator[Any]:
    """The parts of ``source`` ``spec`` rates one after another: :class:`Matches` for a
    system that rates matches (or for any, ``as_matches``), else :class:`Games` (see
    :func:`_ready_parts`), observed by :func:`_observed` (``dropped``,
    ``default_period``, ``seen``)."""
    matches = as_matches or spec.system.data == "matches"
    read = match_chunks if matches else game_chunks
    default = default_period if spec.system.period_based and not spec.system.batch else None
    chunks = _observed(read(source, **options), dropped, default, seen)
    return (_ready_matches if matches else _ready_games)(spec, chunks)


def _observed(chunks: Iterator[Any], dropped: list | None, default_period: str | None,
              seen: dict | None) -> Iterator[Any]:
    """``chunks`` as they come, with: their left-out rows (``(reason, count, where)``)
    merged into ``dropped`` (:func:`fastrate.data.games.merge_dropped`); those with times
    and no periods grouped by ``default_period`` (a length, for a period-based system, as
    the command line does with input read whole); and in ``seen``, what a caller may
    report: ``"default_period"`` (the length, once used) and ``"unweighted"`` (True when
    a chunk had no weights)."""
    from fastrate.data.periods import bucket_periods

    for chunk in chunks:
        if dropped is not None and chunk.dropped:
            dropped[:] = merge_dropped([*dropped, *chunk.dropped])
        if default_period is not None and chunk.period is None and chunk.time is not None:
            chunk = dataclasses.replace(chunk, period=bucket_periods(chunk.time,
                                                                     default_period))
            if seen is not None:
                seen["default_period"] = default_period
        if seen is not None and chunk.weight is None:
            seen["unweighted"] = True
        yield chunk

