"""Player names <-> dense integer ids: :class:`PlayerIndex` and its interner."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from fastrate._threads import run_each
from fastrate._validate import (
    NO_SOURCE,
    Source,
    arrow_to_numpy,
    as_1d,
    is_arrow_array,
    numpy_to_arrow,
    require,
    single_chunk,
)
from fastrate.data import _intern
from fastrate.errors import InputError, InputTypeError

__all__ = ["PlayerIndex", "NameTable"]


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
        k = len(columns)
        if k == 0:
            raise InputTypeError("intern() needs at least one column of names")
        labels = list(names) if names is not None else [f"player{c + 1}" for c in range(k)]
        cols = _kernel_columns(columns, labels)
        if cols is not None:
            names_out, ids = _intern_columns(cols)
            return cls(names_out), ids
        return _intern_arrow(cls, columns, labels, source)


def _intern_arrow(cls, columns: Sequence[Any], labels: list[str], source: Source):
    """The general path (Arrow's dictionary_encode): floats, a mix of integers and
    strings, and every column with a missing name (which raises the error)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    k = len(columns)
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


# ----------------------------------------------------------------------------------
# the kernel path (fastrate.data._intern): integer and string columns without nulls
#
# A column is a list of chunks, each read in place: ("int", values), ("str", offsets,
# data) for Arrow string arrays, and ("dint", indices, values) or ("dstr", indices,
# dictionary) for Arrow dictionary arrays. Columns of plain chunks (integers, strings)
# go in one pass, row by row, through one table (columns of unequal length one after
# the other); a dictionary chunk anywhere sends the columns through the per-column
# encoders and a merge. Integer values go to the kernels as int32 or int64 (uint64 as
# its int64 bits; other widths are widened); every input array is passed read-only, so
# the kernels compile once per dtype.

#: integer columns use a direct table (int32 entries) when the value range is at most
#: DIRECT_PER_ID entries per value of the column plus DIRECT_FREE entries: at most 2
#: bytes per id and 16 MiB per column; a hash table otherwise
DIRECT_PER_ID = 0.5
DIRECT_FREE = 1 << 22
#: smallest hash table (slots); tables double when half full
MIN_SLOTS = 1 << 10
#: rows whose slots are read ahead together (the table's cache misses overlap)
BLOCK = 32
#: rows of the read-ahead ring of the one-pass kernels (a power of two; the slots of
#: the row RING_ROWS/2 ahead are prefetched): 16 ran fastest on this machine (10M ids
#: among 1M players: strings 0.83 s against 1.36 s with 64, sparse ints 0.24 s / 0.27 s)
RING_ROWS = 16
#: a call of the one-pass integer hash with at least this many ids (and at least as
#: many as the names known so far) is numbered by radix partitions instead
#: (:func:`fastrate.data._intern.partition_intern`): the ids split by the top bits of
#: their hash into at most 2^PARTITION_BITS runs, each numbered with a table that fits
#: the cache. Among 1M players, 100M ids went 1.3-1.9x faster than the one-pass
#: table, 10M ids no faster (shared 2-core machine): 2^24. 2^11 runs: 100M ids among
#: 1M players numbered in 0.15 s against 0.20 s with 2^10 (runs of ~500 distinct ids),
#: the scatter no slower
PARTITION_MIN = 1 << 24
PARTITION_BITS = 11
#: ids per thread of the partitioned path (fewer ids: fewer threads)
PARTITION_MIN_PER_THREAD = 1 << 20
#: the bits kept of a long name's hash in its partition key (all: a test lowers it to
#: force equal keys of different names, which the bytes then tell apart)
LONG_HASH_MASK = 2**64 - 1
#: at most 2^STR_PARTITION_BITS partitions of string ids: 2^10 since the scatter only
#: moves keys written in row order (100M ids among 1M players: 2.48-2.53 s against
#: 3.02-3.05 s with 2^8, 2.85 s with 2^9, 2.64-2.89 s with 2^11, 3.09-3.13 s with 2^12;
#: a partition's table of 32-byte slots then fits the L1/L2)
STR_PARTITION_BITS = 10
#: string calls go through the partitions from this many ids (and PARTITION_MIN), in
#: blocks of STR_BLOCK_IDS ids. 100M ids among 1M players (names ``player000123``):
#: 6.2 s against 9.3 s for the one-pass kernel in the same run (shared 2-core VM,
#: load 2.8), where fresh memory costs up to 2-3 s a GB on first touch: one pass over
#: the whole call (2 GB of keys and positions) ran 8.0-8.3 s against 6.0 s
STR_PARTITION_MIN = 1 << 24
#: ids of a block of a partitioned string call (the names known so far go again into
#: each block's partitions: a few percent more work, buffers reused)
STR_BLOCK_IDS = 1 << 24
_NO_ROWS = np.zeros(0, dtype=np.int64)


class _Column:
    __slots__ = ("kind", "dtype", "chunks", "n")

    def __init__(self, kind: str, dtype: Any, chunks: list[tuple], n: int):
        self.kind, self.dtype, self.chunks, self.n = kind, dtype, chunks, n


def _readonly(x: np.ndarray) -> np.ndarray:
    v = x.view()
    v.flags.writeable = False
    return v


def _int_view(x: np.ndarray) -> np.ndarray:
    """Integer values as the kernels read them: int32/int64 in place, uint64 as its int64
    bits, other widths widened to int64."""
    if x.dtype == np.uint64:
        x = x.view(np.int64)
    elif x.dtype not in (np.int32, np.int64):
        x = x.astype(np.int64)
    return _readonly(np.ascontiguousarray(x))


def _string_buffers(a) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, data) of an Arrow string/large_string array, read in place."""
    import pyarrow as pa

    bufs = a.buffers()
    dtype = np.int64 if pa.types.is_large_string(a.type) else np.int32
    offsets = np.frombuffer(bufs[1], dtype=dtype, count=len(a) + 1,
                            offset=a.offset * np.dtype(dtype).itemsize) if bufs[1] is not None \
        else np.zeros(len(a) + 1, dtype=dtype)
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and bufs[2].size \
        else np.zeros(1, dtype=np.uint8)
    return _readonly(offsets), _readonly(data)


def _arrow_chunk(a) -> tuple[str, Any, tuple] | None:
    """(kind, name dtype, chunk) of one Arrow array chunk, or None when the kernels can't
    take it (nulls, other types)."""
    import pyarrow as pa

    if a.null_count:
        return None
    t = a.type
    if pa.types.is_integer(t):
        x = arrow_to_numpy(a)
        return "int", x.dtype, ("int", _int_view(x))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return "str", None, ("str", *_string_buffers(a))
    if pa.types.is_dictionary(t):
        d = a.dictionary
        if d.null_count:
            return None
        idx = arrow_to_numpy(a.indices)
        idx = _readonly(idx if idx.dtype in (np.int32, np.int64) else idx.astype(np.int64))
        vt = d.type
        if pa.types.is_integer(vt):
            values = arrow_to_numpy(d)
            return "int", values.dtype, ("dint", idx, np.require(
                values.view(np.int64) if values.dtype == np.uint64 else values, np.int64))
        if pa.types.is_string(vt) or pa.types.is_large_string(vt):
            return "str", None, ("dstr", idx, d)
    return None


def _kernel_column(x: Any, label: str) -> _Column | None:
    import pyarrow as pa

    if isinstance(x, np.ndarray) and x.ndim == 1 and x.dtype.kind in "iu":
        return _Column("int", x.dtype, [("int", _int_view(x))], len(x))
    if not is_arrow_array(x):
        x = _name_array(x, label)
    chunks = x.chunks if isinstance(x, pa.ChunkedArray) else [x]
    kinds, dtypes, out = set(), set(), []
    for a in chunks:
        if len(a) == 0:
            continue
        got = _arrow_chunk(a)
        if got is None:
            return None
        kinds.add(got[0])
        dtypes.add(got[1])
        out.append(got[2])
    if not kinds:  # empty: the type decides
        if pa.types.is_integer(x.type):
            return _Column("int", np.dtype(str(x.type)), [], 0)
        if pa.types.is_string(x.type) or pa.types.is_large_string(x.type):
            return _Column("str", None, [], 0)
        return None
    if len(kinds) != 1 or len(dtypes) != 1:
        return None
    return _Column(kinds.pop(), dtypes.pop(), out, len(x))


def _kernel_columns(columns: Sequence[Any], labels: list[str]) -> list[_Column] | None:
    """The columns as the kernels read them, or None for the general path: a mix of
    integers and strings, floats, other types, missing names, uint64 with other ints."""
    cols = []
    for x, label in zip(columns, labels):
        col = _kernel_column(x, label)
        if col is None:
            return None
        cols.append(col)
    if len({c.kind for c in cols}) != 1:
        return None
    dtypes = {c.dtype for c in cols}
    if len(dtypes) > 1 and np.dtype(np.uint64) in dtypes:
        return None
    return cols


def _chunk_len(chunk: tuple) -> int:
    return len(chunk[1]) - (chunk[0] == "str")


class _IntEncoder:
    """Column ids of integer values (a direct table or a hash, see DIRECT_PER_ID)."""

    def __init__(self, lo: int, hi: int, n: int, hashed: bool = False):
        span = hi - lo + 1 if n else 0
        self.direct = not hashed and span <= _direct_limit(n)
        self.lo = lo
        self.count = np.zeros(1, dtype=np.int64)
        self.status = np.zeros(1 + BLOCK, dtype=np.int64)
        if self.direct:
            self.table = np.full(span, -1, dtype=np.int32 if n < 2**31 else np.int64)
            cap = min(span, n)
        else:
            slots = MIN_SLOTS
            self.table = np.full(2 * slots, -1, dtype=np.int64)
            cap = slots // 2
        self.names = np.empty(cap, dtype=np.int64)
        self.first = np.empty(cap, dtype=np.int64)

    def encode(self, x: np.ndarray, row0: int, rows: np.ndarray, out: np.ndarray) -> None:
        if self.direct:
            _intern.encode_direct(x, row0, rows, out, self.table, self.lo, self.names,
                                  self.first, self.count)
            return
        self._ready()
        start = 0
        while True:
            _intern.encode_int_hash(x[start:], row0 + start, rows[start:], out[start:],
                                    self.table, self.names, self.first, self.count,
                                    self.status)
            done = int(self.status[0])
            if done == _intern.DONE:
                return
            start += done
            self._grow()

    def encode_rows(self, parts: tuple, outs: tuple, scratch: np.ndarray | None = None
                    ) -> None:
        """Ids of ``parts`` row by row into ``outs``; ``scratch``: an int64 buffer that
        ``outs`` are views of, free until the ids are written, or None."""
        if self.direct:
            if len({p.dtype for p in parts}) > 1:
                parts = tuple(_readonly(p.astype(np.int64)) for p in parts)
            _intern.encode_direct_rows(parts, outs, self.table, self.lo, self.names,
                                       self.count)
            return
        if len({p.dtype for p in parts}) > 1:
            parts = tuple(_readonly(p.astype(np.int64)) for p in parts)
        ids = parts[0].shape[0] * len(parts)
        if ids >= max(PARTITION_MIN, 1) and ids >= int(self.count[0]):
            self._encode_partitioned(parts, outs, scratch)
            return
        self._ready()
        ring = np.empty(RING_ROWS * len(parts), dtype=np.int64)
        start = 0
        while True:
            _intern.encode_int_hash_rows(tuple(p[start:] for p in parts),
                                         tuple(o[start:] for o in outs), self.table,
                                         self.names, self.count, self.status, ring)
            done = int(self.status[0])
            if done == _intern.DONE:
                return
            start += done
            self._grow()

    def _encode_partitioned(self, parts: tuple, outs: tuple,
                            scratch: np.ndarray | None) -> None:
        """:meth:`encode_rows` by radix partitions (:func:`_radix_ids`); the names known
        so far go first, so they keep their ids."""
        k = len(parts)
        m = parts[0].shape[0]
        n0 = int(self.count[0])
        pre = _readonly(self.names[:n0])
        plan = _RadixPlan(n0, m, k, PARTITION_BITS)
        pres = [pre if t == 0 else _readonly(_NO_ROWS) for t in range(plan.threads)]
        rows = [tuple(p[plan.cuts[t]:plan.cuts[t + 1]] for p in parts)
                for t in range(plan.threads)]
        shift = np.uint64(64 - plan.bits)
        # the hashes are dead once numbered, before the ids are written (held in a dict
        # the steps read, emptied after them: the memory goes before the next step)
        tmp = {"hashes": scratch if scratch is not None and scratch.shape[0] == plan.total
               else np.empty(plan.total, dtype=np.int64)}
        dhash, _, gid = _radix_ids(
            plan, 2, [np.int64],
            count=lambda t, counts: _intern.partition_counts(pres[t], rows[t], shift, counts),
            scatter=lambda t, cursor, codes: _intern.partition_scatter(
                pres[t], rows[t], n0 + plan.cuts[t] * k, shift, cursor, tmp["hashes"],
                codes),
            number=lambda codes, starts, p0, p1, table, dist, dbase, count, status:
                _intern.partition_intern(tmp["hashes"], codes, starts, p0, p1, table, *dist,
                                         dbase, count, status),
            gather=lambda t, cursor, codes: _intern.partition_gather(
                pres[t], rows[t], shift, cursor, codes,
                tuple(o[plan.cuts[t]:plan.cuts[t + 1]] for o in outs)))
        tmp.clear()
        n = dhash.shape[0]
        slots = max(MIN_SLOTS, _pow2(2 * n))
        names = np.empty(slots // 2, dtype=np.int64)
        _intern.ranked_names(dhash, n, gid, names)
        self.names = names
        self.first = np.empty(slots // 2, dtype=np.int64)
        self.count[0] = n
        self.table = None  # built when the next call needs it (:meth:`_ready`)

    def _ready(self) -> None:
        """Build the hash table of the names after a partitioned call."""
        if self.table is None:
            n = int(self.count[0])
            self.table = np.full(2 * 2 * self.names.shape[0], -1, dtype=np.int64)
            _intern.rehash_ints(self.names, n, self.table)

    def _grow(self) -> None:
        n = int(self.count[0])
        slots = self.table.shape[0]  # twice the slots: [key, id] pairs
        self.table = np.full(2 * slots, -1, dtype=np.int64)
        _intern.rehash_ints(self.names, n, self.table)
        self.names = _grown(self.names, n, slots // 2)
        self.first = _grown(self.first, n, slots // 2)

    def values(self) -> np.ndarray:
        return self.names[:int(self.count[0])]


class _StrEncoder:
    """Column ids of strings (a hash over the UTF-8 bytes)."""

    def __init__(self) -> None:
        slots = MIN_SLOTS
        self.table = np.full(2 * slots, -1, dtype=np.int64)
        self.offsets = np.zeros(slots // 2 + 1, dtype=np.int64)
        self.data = np.empty(16 * slots, dtype=np.uint8)
        self.first = np.empty(slots // 2, dtype=np.int64)
        self.count = np.zeros(1, dtype=np.int64)
        self.status = np.zeros(1, dtype=np.int64)

    def encode(self, offsets: np.ndarray, data: np.ndarray, row0: int, rows: np.ndarray,
               out: np.ndarray) -> None:
        start = 0
        while True:
            _intern.encode_str_hash(offsets[start:], data, row0 + start, rows[start:],
                                    out[start:], self.table, self.offsets, self.data,
                                    self.first, self.count, self.status)
            done = int(self.status[0])
            if done == _intern.DONE:
                return
            start += done
            self._grow(int(offsets[start + 1]) - int(offsets[start]))

    def _grow(self, need: int) -> None:
        n = int(self.count[0])
        if n == self.first.shape[0]:  # the names are full: twice the slots
            slots = self.table.shape[0]
            self.table = np.full(2 * slots, -1, dtype=np.int64)
            _intern.rehash_strs(self.offsets, self.data, n, self.table)
            self.first = _grown(self.first, n, slots // 2)
            offsets = np.zeros(slots // 2 + 1, dtype=np.int64)
            offsets[:n + 1] = self.offsets[:n + 1]
            self.offsets = offsets
        used = int(self.offsets[n])
        if used + need > self.data.shape[0]:
            self.data = _grown(self.data, used, max(2 * self.data.shape[0], used + need))

    def arrow(self):
        """The names as an Arrow large_string array (a view of the buffers)."""
        import pyarrow as pa

        n = int(self.count[0])
        return pa.Array.from_buffers(pa.large_string(), n, [
            None, pa.py_buffer(self.offsets[:n + 1]),
            pa.py_buffer(self.data[:int(self.offsets[n])])])


class _StrRowsEncoder:
    """Ids of string columns read row by row (:func:`fastrate.data._intern.encode_str_rows`:
    one hash table over the bytes read in place from the Arrow buffers, each name kept
    once as words)."""

    def __init__(self) -> None:
        slots = MIN_SLOTS
        self.table = np.full(4 * slots, _intern.EMPTY, dtype=np.uint64)
        self.records = np.empty(4 * slots, dtype=np.uint64)
        self.count = np.zeros(3, dtype=np.int64)  # names, record words, name bytes
        self.status = np.zeros(1, dtype=np.int64)

    def encode_rows(self, parts: tuple, outs: tuple, scratch: np.ndarray | None = None
                    ) -> None:
        offsets = tuple(p[0] for p in parts)
        datas = tuple(p[1] for p in parts)
        if len({o.dtype for o in offsets}) > 1:
            offsets = tuple(_readonly(o.astype(np.int64)) for o in offsets)
        k = len(parts)
        ids = (offsets[0].shape[0] - 1) * k
        if ids >= max(PARTITION_MIN, STR_PARTITION_MIN, 1) and ids >= int(self.count[0]):
            # blocks of about STR_BLOCK_IDS ids, each with the names known so far first
            # (blocks of at least 8 ids a known name: that work stays under 1/8): the
            # scratch buffers are reused from block to block (fresh memory is slow)
            m = offsets[0].shape[0] - 1
            bufs: dict = {}
            a = 0
            while a < m:
                b = min(m, a + max(1, max(STR_BLOCK_IDS, 8 * int(self.count[0])) // k))
                self._encode_partitioned(tuple(o[a:b + 1] for o in offsets), datas,
                                         tuple(o[a:b] for o in outs), bufs)
                a = b
            return
        self._ready()
        ring = np.empty(RING_ROWS * k, dtype=np.int64)
        start = 0
        while True:
            _intern.encode_str_rows(tuple(o[start:] for o in offsets), datas,
                                    tuple(o[start:] for o in outs), self.table, self.records,
                                    self.count, self.status, ring)
            done = int(self.status[0])
            if done == _intern.DONE:
                return
            start += done
            need = sum(1 + (int(o[start + 1]) - int(o[start]) + 7) // 8 for o in offsets)
            self._grow(k, need)

    def _encode_partitioned(self, offsets: tuple, datas: tuple, outs: tuple,
                            bufs: dict) -> None:
        """:meth:`encode_rows` by radix partitions (:func:`_radix_ids`) on each name's
        16-byte key (:func:`fastrate.data._intern.str_partition_scatter`); the names
        known so far go first (as Arrow buffers), so they keep their ids."""
        k = len(offsets)
        m = offsets[0].shape[0] - 1
        n0 = int(self.count[0])
        pre_off = np.zeros(n0 + 1, dtype=np.int64)
        pre_data = np.empty(max(int(self.count[2]), 1), dtype=np.uint8)
        _intern.records_to_strings(self.records, n0, pre_off, pre_data)
        pre_off, pre_data = _readonly(pre_off), _readonly(pre_data)
        plan = _RadixPlan(n0, m, k, STR_PARTITION_BITS)
        none = _readonly(np.zeros(1, dtype=np.int64))
        pres = [pre_off if t == 0 else none for t in range(plan.threads)]
        rows = [tuple(o[plan.cuts[t]:plan.cuts[t + 1] + 1] for o in offsets)
                for t in range(plan.threads)]
        shift = np.uint64(64 - plan.bits)
        hmask = np.uint64(LONG_HASH_MASK)
        # the steps' buffers, in a dict they read, emptied after them
        tmp = {"part": _scratch(bufs, "part", plan.total,
                                np.uint8 if plan.bits <= 8 else np.uint16),
               "recs": _scratch(bufs, "recs", 2 * plan.total, np.uint64),
               "keys": _scratch(bufs, "keys", 2 * plan.total, np.uint64)}  # (row order)
        base = [n0 + plan.cuts[t] * k for t in range(plan.threads)]
        k0, k1, first, gid = _radix_ids(
            plan, 4, [np.uint64, np.uint64],
            count=lambda t, counts: _intern.str_partition_counts(
                pres[t], pre_data, rows[t], datas, base[t], hmask, shift, tmp["part"],
                tmp["keys"], counts),
            scatter=lambda t, cursor, codes: _intern.str_partition_scatter(
                tmp["keys"], n0 if t == 0 else 0, base[t],
                (plan.cuts[t + 1] - plan.cuts[t]) * k, tmp["part"], cursor, tmp["recs"],
                codes),
            number=lambda codes, starts, p0, p1, table, dist, dbase, count, status:
                _intern.str_partition_intern(tmp["recs"], codes, starts, p0, p1, table,
                                             *dist, dbase, count, status, pre_off, pre_data,
                                             offsets, datas, n0),
            gather=lambda t, cursor, codes: _intern.partition_gather_parts(
                tmp["part"], n0 if t == 0 else 0, base[t], k, cursor, codes,
                tuple(o[plan.cuts[t]:plan.cuts[t + 1]] for o in outs)),
            codes=_scratch(bufs, "codes", plan.total,
                           np.int64 if plan.total >= 2**31 else np.int32))
        tmp.clear()
        del k0, k1
        n = first.shape[0]
        # the new names' first positions in id order (the known ones keep 0 .. n0-1)
        at = np.empty(n, dtype=np.int64)
        at[gid] = first
        at = at[n0:]
        need = int(_intern.positions_to_records(at, offsets, datas, n0,
                                                np.empty(0, dtype=np.uint64), self.count))
        used = int(self.count[1])
        if used + need > self.records.shape[0]:
            self.records = _grown(self.records, used, used + need)
        _intern.positions_to_records(at, offsets, datas, n0, self.records, self.count)
        self.table = None  # built when the next call needs it (:meth:`_ready`)

    def _ready(self) -> None:
        """Build the hash table of the names after a partitioned call."""
        if self.table is None:
            n = int(self.count[0])
            self.table = np.full(4 * max(MIN_SLOTS, _pow2(2 * n + 2)), _intern.EMPTY,
                                 dtype=np.uint64)
            _intern.rehash_records(self.records, n, self.table)

    def _grow(self, k: int, need: int) -> None:
        n, used = int(self.count[0]), int(self.count[1])
        slots = self.table.shape[0] // 4
        if n + k > slots // 2:  # the table would pass half full: twice the slots
            while n + k > slots // 2:
                slots *= 2
            self.table = np.full(4 * slots, _intern.EMPTY, dtype=np.uint64)
            _intern.rehash_records(self.records, n, self.table)
        if used + need > self.records.shape[0]:
            self.records = _grown(self.records, used,
                                  max(2 * self.records.shape[0], used + need))

    def arrow(self):
        """The names as an Arrow large_string array."""
        import pyarrow as pa

        n, size = int(self.count[0]), int(self.count[2])
        offsets = np.empty(n + 1, dtype=np.int64)
        data = np.empty(max(size, 1), dtype=np.uint8)
        _intern.records_to_strings(self.records, n, offsets, data)
        return pa.Array.from_buffers(pa.large_string(), n, [
            None, pa.py_buffer(offsets), pa.py_buffer(data[:size])])


def renumbered(ids: np.ndarray, mapping: np.ndarray) -> np.ndarray:
    """``mapping[ids]`` as int64: ids (``>= 0``, below ``len(mapping)``) of one player
    index renumbered into another (a chunk's players into the growing index)."""
    ids = np.ascontiguousarray(ids)
    out = np.empty(ids.shape[0], dtype=np.int64)
    if ids.shape[0]:
        _intern.remap(ids, np.ascontiguousarray(mapping, dtype=np.int64), out)
    return out


class NameTable:
    """A name -> id table that grows from call to call (the chunked reader's index of
    every player seen so far): :meth:`ids` gives the ids of distinct names, numbering
    the new ones next, in the order given. Integer names (``kind="int"``, int64) go
    through the integer hash, text names through the string hash over their bytes."""

    def __init__(self, kind: str):
        self.kind = kind
        self.encoder: _IntEncoder | _StrRowsEncoder = (
            _IntEncoder(0, 0, 0, hashed=True) if kind == "int" else _StrRowsEncoder())

    def __len__(self) -> int:
        return int(self.encoder.count[0])

    def ids(self, names: np.ndarray) -> np.ndarray:
        """Ids of ``names`` (distinct; int64 values, or an object array of str)."""
        out = np.empty(len(names), dtype=np.int64)
        if len(names) == 0:
            return out
        if self.kind == "int":
            part = _readonly(np.ascontiguousarray(names, dtype=np.int64))
        else:
            import pyarrow as pa

            part = _string_buffers(pa.array(names, type=pa.large_string()))
        self.encoder.encode_rows((part,), (out,))
        return out


class _RadixPlan:
    """How a call of ``n0 + m * k`` ids (the names known so far, then ``m`` rows of ``k``
    columns) is split: ``bits`` of partition (at most ``max_bits``), ``threads``
    (at most Numba's, PARTITION_MIN_PER_THREAD ids each) and their rows (``cuts``)."""

    def __init__(self, n0: int, m: int, k: int, max_bits: int):
        self.n0, self.m, self.k = n0, m, k
        self.total = n0 + m * k
        self.bits = max(1, min(max_bits, self.total.bit_length() - 13))
        self.threads = _radix_threads(m * k)
        # equal shares of ids: thread 0 also takes the n0 known names, so fewer rows
        share = self.total / self.threads
        first = min(m, max(0, int((share - n0) / k))) if self.threads > 1 else m
        rest = self.threads - 1
        self.cuts = [0] + [first + (m - first) * t // rest for t in range(rest + 1)] \
            if rest else [0, m]


def _scratch(bufs: dict, name: str, size: int, dtype) -> np.ndarray:
    """The first ``size`` entries of the buffer ``bufs[name]``, made (larger) when it is
    missing, too small or of another dtype."""
    x = bufs.get(name)
    if x is None or x.dtype != dtype or x.shape[0] < size:
        x = bufs[name] = np.empty(size + size // 8, dtype=dtype)
    return x[:size]


def _radix_threads(ids: int) -> int:
    """Threads for ``ids`` ids: up to Numba's number, PARTITION_MIN_PER_THREAD ids each."""
    return max(1, min(numba.get_num_threads(), ids // PARTITION_MIN_PER_THREAD))


def _radix_ids(plan: _RadixPlan, slot_words: int, keys: list, count, scatter, number,
               gather, codes: np.ndarray | None = None):
    """Ids by radix partitions, the integer and the string paths' common order: count
    each partition's ids (``count(t, counts)``, thread ``t``'s rows), write each id's
    key and position to its partition's run (``scatter(t, cursor, codes)``; ``codes``
    holds the positions), number each partition (``number(codes, starts, p0, p1,
    table, dist, dbase, count, status)``: its distinct keys to the arrays ``dist``,
    one of each dtype of ``keys`` then the first positions, as
    :func:`fastrate.data._intern.partition_intern`), rank the first appearances, turn
    the codes into ids and read them back in row order (``gather(t, cursor, codes)``).
    Rows (count, scatter, gather) and partitions (number) are split among
    ``plan.threads``: each thread writes its own places, so the ids do not depend on
    the split. ``slot_words``: the int64/uint64 words of a numbering table's slot;
    ``codes``: a buffer for the codes (int32 below 2^31 ids), or None.
    Returns the distinct keys' arrays (the first positions last) and their ids."""
    threads, total = plan.threads, plan.total
    n_parts = 1 << plan.bits
    counts = np.zeros((threads, n_parts), dtype=np.int64)
    run_each([lambda t=t: count(t, counts[t]) for t in range(threads)])
    starts = np.zeros(n_parts + 1, dtype=np.int64)
    np.cumsum(counts.sum(axis=0), out=starts[1:])
    # where each thread's share of each run starts (thread 0's rows first)
    cursors = starts[:-1] + np.cumsum(counts, axis=0) - counts
    wide = total >= 2**31
    if codes is None:
        codes = np.empty(total, dtype=np.int64 if wide else np.int32)
    run_each([lambda t=t: scatter(t, cursors[t].copy(), codes) for t in range(threads)])
    sizes = np.diff(starts)
    # partitions to threads by ids: contiguous ranges of about equal size
    pcuts = [0] + [int(np.searchsorted(starts, total * t // threads))
                   for t in range(1, threads)] + [n_parts]
    dbase = np.empty(n_parts, dtype=np.int64)
    found: list = [None] * threads
    dtypes = [*keys, np.int64]

    def run(t: int) -> None:
        p0, p1 = pcuts[t], pcuts[t + 1]
        big = int(sizes[p0:p1].max()) if p1 > p0 else 0
        table = np.empty(2 * slot_words * _pow2(2 * big + 1),
                         dtype=np.uint64 if keys[0] == np.uint64 else np.int64)
        # room for a 32nd of the ids plus this thread's share of the known names (all
        # distinct: a block of strings starts with every name seen so far)
        cap = max(4096, (int(starts[p1] - starts[p0]) >> 5)
                  + plan.n0 * (p1 - p0) // n_parts + 1024)
        dist = [np.empty(cap, dtype=d) for d in dtypes]
        n_found = np.zeros(1, dtype=np.int64)
        status = np.zeros(1, dtype=np.int64)
        while p0 < p1:
            number(codes, starts, p0, p1, table, dist, dbase, n_found, status)
            p0 = int(status[0])
            if p0 == _intern.DONE:
                break
            n = int(n_found[0])
            size = max(2 * dist[0].shape[0], n + int(sizes[p0]))
            dist = [_grown(x, n, size) for x in dist]
        found[t] = [x[:int(n_found[0])] for x in dist]

    run_each([lambda t=t: run(t) for t in range(threads)])
    for t in range(1, threads):  # each thread numbered its distinct ids from 0
        dbase[pcuts[t]:pcuts[t + 1]] += sum(len(found[u][0]) for u in range(t))
    dist = [np.concatenate([f[j] for f in found]) if threads > 1 else found[0][j]
            for j in range(len(dtypes))]
    found.clear()
    n = dist[0].shape[0]
    gid = np.empty(n, dtype=np.int64 if wide else np.int32)
    words = (total + 63) // 64
    _intern.first_ranks(dist[-1], n, np.zeros(words, dtype=np.uint64),
                        np.empty(words, dtype=np.int64), gid)
    run_each([lambda t=t: _intern.partition_localize(codes, starts, pcuts[t], pcuts[t + 1],
                                                        dbase, gid)
               for t in range(threads)])
    run_each([lambda t=t: gather(t, cursors[t].copy(), codes) for t in range(threads)])
    return (*dist, gid)


def _pow2(n: int) -> int:
    """The smallest power of two >= n (>= 1)."""
    return 1 << max(int(n) - 1, 0).bit_length()


def _grown(x: np.ndarray, n: int, size: int) -> np.ndarray:
    out = np.empty(size, dtype=x.dtype)
    out[:n] = x[:n]
    return out


def _int_encoder(chunks: list[tuple], n: int) -> _IntEncoder:
    """A direct table when the values' span allows it (see DIRECT_PER_ID), else a hash:
    the range is read only until it is too wide for the table."""
    lohi = np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min], dtype=np.int64)
    wide = _direct_limit(n)  # span - 1 >= this: hashed
    for chunk in chunks:
        _intern.value_range(chunk[-1], lohi, np.uint64(wide))
        if n and int(lohi[1]) - int(lohi[0]) >= wide:
            break
    return _IntEncoder(int(lohi[0]), int(lohi[1]), n)


def _direct_limit(n: int) -> int:
    """The largest span of ``n`` values that a direct table takes."""
    return int(DIRECT_PER_ID * n + DIRECT_FREE)


def _encode_column(col: _Column, out: np.ndarray):
    """Encode one column into ``out`` (column ids); return its encoder."""
    n_values = sum(min(_chunk_len(c), len(c[-1])) if c[0] == "dint" else _chunk_len(c)
                   for c in col.chunks)
    enc = _int_encoder(col.chunks, n_values) if col.kind == "int" else _StrEncoder()
    row0 = 0
    memo: list = []
    for chunk in col.chunks:
        size = _chunk_len(chunk)
        seg = out[row0:row0 + size]
        if chunk[0] == "int":
            enc.encode(chunk[1], row0, _NO_ROWS, seg)
        elif chunk[0] == "str":
            enc.encode(chunk[1], chunk[2], row0, _NO_ROWS, seg)
        else:
            _encode_dictionary(enc, chunk, row0, seg, memo)
        row0 += size
    return enc


def _encode_dictionary(enc, chunk: tuple, row0: int, seg: np.ndarray, memo: list) -> None:
    """A dictionary chunk: intern the entries that occur (in order of first appearance),
    then map the indices through them. ``memo`` holds the last chunk's dictionary and
    its entries' ids, reused when the next chunk has the same dictionary."""
    idx, entries = chunk[1], chunk[-1]
    size = len(entries)
    if memo and (memo[0] is entries or (len(memo[0]) == size and _same(memo[0], entries))):
        local = memo[1]
    else:
        local = np.full(size, -1, dtype=np.int64)
        memo[:] = [entries, local]
    order = np.empty(min(size, len(idx)), dtype=np.int64)
    first = np.empty(order.shape[0], dtype=np.int64)
    m = int(_intern.dictionary_codes(idx, local, order, first))
    order, rows = order[:m], first[:m] + row0
    ids = np.empty(m, dtype=np.int64)
    if chunk[0] == "dint":
        enc.encode(_readonly(entries[order]), 0, rows, ids)
    else:
        used = entries.take(numpy_to_arrow(order))
        enc.encode(*_string_buffers(used), 0, rows, ids)
    local[order] = ids
    _intern.remap(idx, local, seg)


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b))
    return bool(a.equals(b))


def _intern_columns(cols: list[_Column]) -> tuple[np.ndarray, list[np.ndarray]]:
    """Names (first appearance, row by row across the columns) and id arrays."""
    if len({c.n for c in cols}) == 1:
        # the id arrays as the rows of one buffer: the partitioned path uses it as
        # scratch before it writes the ids (memory touched once, not twice)
        buf = np.empty((len(cols), cols[0].n), dtype=np.int64)
        outs = list(buf)
        scratch: np.ndarray | None = buf.reshape(-1)
    else:
        outs = [np.empty(c.n, dtype=np.int64) for c in cols]
        scratch = None
    if _plain(cols):
        merged = _encode_plain(cols, outs, scratch)
    else:
        merged = _encode_columns(cols, outs)
    if cols[0].kind == "int":
        dtypes = {c.dtype for c in cols}
        dtype = dtypes.pop() if len(dtypes) == 1 else np.dtype(np.int64)
        values = merged.values()
        names = values.view(np.uint64) if dtype == np.uint64 else values.astype(dtype)
        return np.array(names), outs
    return arrow_to_numpy(merged.arrow()), outs


def _plain(cols: list[_Column]) -> bool:
    """Columns of plain chunks only (integers or strings, no dictionary arrays)."""
    return all(ch[0] in ("int", "str") for c in cols for ch in c.chunks)


def _encode_plain(cols: list[_Column], outs: list[np.ndarray],
                  scratch: np.ndarray | None = None):
    """Plain columns in one pass through one table: row by row when they have one
    length (chunk boundaries of every column cut into common segments), else one column
    after the other; no merge, no remapping."""
    if cols[0].kind == "int":
        enc: _IntEncoder | _StrRowsEncoder = _int_encoder(
            [ch for c in cols for ch in c.chunks], sum(c.n for c in cols))
    else:
        enc = _StrRowsEncoder()
    if len(cols) > 1 and len({c.n for c in cols}) == 1:
        groups = [(cols, outs)]
    else:
        groups = [([c], [o]) for c, o in zip(cols, outs)]
    for group, group_outs in groups:
        lengths = [[_chunk_len(ch) for ch in c.chunks] for c in group]
        starts = [np.cumsum([0] + sizes) for sizes in lengths]
        n = group[0].n
        cuts = sorted({0, n} | {int(b) for st in starts for b in st})
        for a, b in zip(cuts[:-1], cuts[1:]):
            if b == a:
                continue
            parts = []
            for c, col in enumerate(group):
                j = int(np.searchsorted(starts[c], a, side="right")) - 1
                off = a - int(starts[c][j])
                ch = col.chunks[j]
                parts.append(ch[1][off:off + b - a] if ch[0] == "int"
                             else (ch[1][off:off + b - a + 1], ch[2]))
            whole = len(groups) == 1 and len(group) == len(cols) and b - a == n
            enc.encode_rows(tuple(parts), tuple(out[a:b] for out in group_outs),
                            scratch if whole else None)
    return enc


def _encode_columns(cols: list[_Column], outs: list[np.ndarray]):
    """Each column on its own, then merged by first appearance (row by row for columns
    of one length, else one column after the other); the ids remapped in place."""
    k = len(cols)
    encoders = [_encode_column(c, out) for c, out in zip(cols, outs)]
    if k == 1:
        merged = encoders[0]
    else:
        # the columns' names by the position of their first appearance in the rows
        counts = [int(e.count[0]) for e in encoders]
        starts = np.zeros(k + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        if len({c.n for c in cols}) == 1:
            keys = np.concatenate([e.first[:m] * k + c
                                   for c, (e, m) in enumerate(zip(encoders, counts))])
        else:
            base = np.cumsum([0] + [c.n for c in cols])
            keys = np.concatenate([e.first[:m] + base[c]
                                   for c, (e, m) in enumerate(zip(encoders, counts))])
        order = np.empty(int(starts[-1]), dtype=np.int64)
        _intern.merge_by_key(keys, starts, np.empty(k, dtype=np.int64), order)
        gid = np.empty(order.shape[0], dtype=np.int64)
        if cols[0].kind == "int":
            values = np.concatenate([e.values() for e in encoders])[order]
            merged = _int_encoder([("int", values)], len(values))
            merged.encode(_readonly(values), 0, _NO_ROWS, gid)
        else:
            import pyarrow as pa

            values = pa.concat_arrays([e.arrow() for e in encoders]).take(numpy_to_arrow(order))
            merged = _StrEncoder()
            merged.encode(*_string_buffers(values), 0, _NO_ROWS, gid)
        # int32 entries where they fit: a smaller table for the random reads
        table = np.empty(order.shape[0], dtype=np.int32 if len(order) < 2**31 else np.int64)
        table[order] = gid
        for c in range(k):
            part = table[starts[c]:starts[c + 1]]
            if not np.array_equal(part, np.arange(part.shape[0])):
                _intern.remap(outs[c], np.ascontiguousarray(part), outs[c])
    return merged


def _name_array(x: Any, column: str):
    """One column of player names as a single pyarrow Array (None/NaN -> null)."""
    import pyarrow as pa

    if is_arrow_array(x):
        x = single_chunk(x)
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
