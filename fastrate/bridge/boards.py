"""The bridge data model: :class:`Boards`, table results of duplicate boards as
struct-of-arrays, grouped by board (SPEC §3).

One row is one table result: the board (and its event), the North-South pair (North and
South players), the East-West pair, NS's score in points, and optionally the time, the
contract, declarer, tricks and vulnerability, and an artificial adjusted result (A+, A,
A-). Rows are stored grouped by board (CSR ``board_offsets``), boards in chronological
order, so every board kernel reads a contiguous slice; ``order`` maps each stored row
back to its input row.

Rules for awkward input (documented in docs/bridge.md):

* **A board with a single result** is kept; it has no comparison, so scoring gives its
  table NaN and ratings skip it (both count such boards).
* **Duplicate table entries** (the same board, the same four players or pair labels and
  the same score twice) are data entered twice: the later copies are dropped and
  counted in :attr:`Boards.dropped`.
* **A player (or pair) at two tables of one board**, or twice at one table, is an error
  naming the board, the player and both rows.
* **A pair with a missing player** (one of North/South or East/West missing) is an
  error naming the column and row. Rows with no players at all are allowed only when no
  player columns are given (scoring by pair labels), or with ``anonymous=True`` when
  neither players nor pair labels exist (travellers that name no pairs, e.g. OKbridge
  PBN score tables): such rows have no participant checks and no duplicate detection.
* **Scores that are not multiples of 10** (averaged or adjusted scores) are accepted
  and IMPed by the documented rule of :mod:`fastrate.bridge.scoring` ("at least the
  bound"); :attr:`Boards.n_odd_scores` counts them so a caller can report them.
* **Malformed contracts, declarers or vulnerabilities** are errors naming the row.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import (
    NO_SOURCE,
    Source,
    arrow_to_numpy,
    as_1d,
    as_float64,
    fail_at,
    format_value,
    is_arrow_array,
    require,
)
from fastrate.data import PlayerIndex, bucket_periods, parse_time
from fastrate.errors import InputError

__all__ = ["Boards", "ARTIFICIAL_CODES", "parse_artificial"]

#: artificial-result codes (NS's side): 0 real, 1 average-plus, 2 average, 3 average-minus
ARTIFICIAL_CODES = {"": 0, "0": 0, "A+": 1, "AVE+": 1, "AVG+": 1, "60": 1, "60%": 1,
                    "1": 1, "A": 2, "AVE": 2, "AVG": 2, "A=": 2, "50": 2, "50%": 2, "2": 2,
                    "A-": 3, "AVE-": 3, "AVG-": 3, "40": 3, "40%": 3, "3": 3}

_SEATS = ("north", "south", "east", "west")
_VUL_CODES = {"NONE": 0, "-": 0, "LOVE": 0, "NS": 1, "N-S": 1, "EW": 2, "E-W": 2, "BOTH": 3,
              "ALL": 3}
_MISSING = -1
#: largest direct table (slots) used instead of hashing integer ids
_DIRECT_MAX = 1 << 25
_NO_ARTIFICIAL = np.zeros(0, dtype=np.int64)


# ----------------------------------------------------------------------------------
# kernels


@kernel
def _group_by_key_kernel(key, n_keys, order, offsets, first_row):  # pragma: no cover - jit
    """Stable counting sort of rows by dense ``key`` (0..n_keys-1): groups in order of
    first appearance. Fills ``order`` (row of each grouped position), ``offsets``
    (n_groups + 1) and ``first_row`` (first input row of each group); returns n_groups."""
    n = key.shape[0]
    rank = np.full(n_keys, -1, dtype=np.int64)
    count = np.zeros(n_keys, dtype=np.int64)
    g = 0
    for i in range(n):
        k = key[i]
        if rank[k] < 0:
            rank[k] = g
            first_row[g] = i
            g += 1
        count[k] += 1
    offsets[0] = 0
    for k in range(n_keys):
        if rank[k] >= 0:
            offsets[rank[k] + 1] = count[k]
    for j in range(g):
        offsets[j + 1] += offsets[j]
    fill = offsets[:g].copy()
    for i in range(n):
        r = rank[key[i]]
        order[fill[r]] = i
        fill[r] += 1
    return g


@inline_kernel
def _seat(s0, s1, s2, s3, r, j):  # pragma: no cover - jit
    return s0[r] if j == 0 else (s1[r] if j == 1 else (s2[r] if j == 2 else s3[r]))


@kernel
def _check_seats_kernel(offsets, s0, s1, s2, s3, width, score, artificial, n_ids, keep,
                        conflict):  # pragma: no cover - jit
    """One O(rows) pass over the boards (grouped order; participant ``j < width`` of row
    ``r`` is ``s0[r]``, ``s1[r]``, ``s2[r]``, ``s3[r]``; ``artificial`` empty: all 0).

    A row that repeats an earlier row of its board exactly (same participants in the
    same seats, same score and artificial code) is a duplicate entry: ``keep[r] =
    False``. Any other participant seen twice on a board is a conflict: ``conflict``
    gets (row, earlier row, id) and the pass stops. Returns the number of duplicates."""
    last_board = np.full(n_ids, -1, dtype=np.int64)
    last_row = np.full(n_ids, -1, dtype=np.int64)
    has_art = artificial.shape[0] > 0
    dropped = 0
    for b in range(offsets.shape[0] - 1):
        for r in range(offsets[b], offsets[b + 1]):
            keep[r] = True
            p0 = s0[r]
            if p0 >= 0 and last_board[p0] == b:
                q = last_row[p0]
                same = (not has_art or artificial[r] == artificial[q]) and (
                    score[r] == score[q] or (score[r] != score[r] and score[q] != score[q]))
                for j in range(width):
                    if _seat(s0, s1, s2, s3, r, j) != _seat(s0, s1, s2, s3, q, j):
                        same = False
                if same:
                    keep[r] = False
                    dropped += 1
                    continue
            for j in range(width):
                p = _seat(s0, s1, s2, s3, r, j)
                if p < 0:
                    continue
                if last_board[p] == b:
                    conflict[0] = r
                    conflict[1] = last_row[p]
                    conflict[2] = p
                    return dropped
                last_board[p] = b
                last_row[p] = r
    return dropped


@kernel
def _group_count_kernel(ev, bd, row0, emin, bmin, brange, rank, count, first_row,
                        g):  # pragma: no cover - jit
    """First pass of grouping by the key ``(ev - emin) * brange + (bd - bmin)`` (``ev``
    empty: ``bd - bmin``) over one chunk of rows starting at input row ``row0``: groups
    numbered by first appearance (``rank``), their sizes and first rows. Returns the
    number of groups so far."""
    has_ev = ev.shape[0] > 0
    for i in range(bd.shape[0]):
        k = (bd[i] - bmin) + ((ev[i] - emin) * brange if has_ev else 0)
        if rank[k] < 0:
            rank[k] = g
            first_row[g] = row0 + i
            g += 1
        count[k] += 1
    return g


@kernel
def _group_offsets_kernel(rank, count, g, offsets):  # pragma: no cover - jit
    """CSR offsets of the ``g`` groups from :func:`_group_count_kernel`."""
    offsets[0] = 0
    for k in range(rank.shape[0]):
        if rank[k] >= 0:
            offsets[rank[k] + 1] = count[k]
    for j in range(g):
        offsets[j + 1] += offsets[j]


@kernel
def _group_fill_kernel(ev, bd, row0, emin, bmin, brange, rank, fill,
                       order):  # pragma: no cover - jit
    """Second pass: each row of the chunk into the next slot of its group (stable)."""
    has_ev = ev.shape[0] > 0
    for i in range(bd.shape[0]):
        r = rank[(bd[i] - bmin) + ((ev[i] - emin) * brange if has_ev else 0)]
        order[fill[r]] = row0 + i
        fill[r] += 1


@kernel
def _inverse_kernel(order, pos):  # pragma: no cover - jit
    """``pos[order[p]] = p``: where each input row is stored."""
    for p in range(order.shape[0]):
        pos[order[p]] = p


@kernel
def _scatter_kernel(src, mult, pos, row0, out):  # pragma: no cover - jit
    """``out[pos[row0 + i]] = src[i] * mult``: one chunk of a column into stored order."""
    for i in range(src.shape[0]):
        out[pos[row0 + i]] = src[i] * mult


@kernel
def _first_seen_kernel(v, base, size, codes, first):  # pragma: no cover - jit
    """Dense codes of integers ``v`` (all in ``base .. base + size - 1``) in order of first
    appearance, by a direct table (no hashing); ``first`` gets the row of each code's
    first appearance. Returns the number of codes."""
    rank = np.full(size, -1, dtype=np.int64)
    g = 0
    for i in range(v.shape[0]):
        k = v[i] - base
        r = rank[k]
        if r < 0:
            r = g
            rank[k] = g
            first[g] = i
            g += 1
        codes[i] = r
    return g


@kernel
def _seat_table_kernel(a, b, c, d, base, rank, names, g):  # pragma: no cover - jit
    """:meth:`PlayerIndex.intern` of four integer seat columns (one chunk of rows at a
    time) by a direct table: the id of value ``v`` is ``rank[v - base]``, in order of
    first appearance reading row by row (N, S, E, W of row 0, then row 1...), exactly as
    the hashing path numbers them; ``names`` gets the values. Returns the number of
    players so far."""
    for i in range(a.shape[0]):
        for j in range(4):
            x = _seat(a, b, c, d, i, j)
            k = x - base
            if rank[k] < 0:
                rank[k] = g
                names[g] = x
                g += 1
    return g


@kernel
def _scatter_ids_kernel(rank, base, a, b, c, d, pos, row0, ia, ib, ic,
                        id_):  # pragma: no cover - jit
    """The four seats' player ids of one chunk of rows, into stored order."""
    for i in range(a.shape[0]):
        p = pos[row0 + i]
        ia[p] = rank[a[i] - base]
        ib[p] = rank[b[i] - base]
        ic[p] = rank[c[i] - base]
        id_[p] = rank[d[i] - base]


# ----------------------------------------------------------------------------------
# helpers


def _direct_range(v: np.ndarray, n_rows: int) -> tuple[int, int] | None:
    """(base, size) of a direct table for integers ``v``, or None when the values span
    too wide a range (more than ``4 * n_rows + 1024`` slots) for one."""
    if v.dtype.kind not in "iu" or v.shape[0] == 0:
        return None
    lo, hi = int(v.min()), int(v.max())
    size = hi - lo + 1
    return (lo, size) if size <= min(4 * n_rows + 1024, _DIRECT_MAX) else None


def _int_numpy(values: Any) -> np.ndarray | None:
    """An integer column (NumPy, or Arrow without nulls) as a NumPy array, else None."""
    import pyarrow as pa

    if is_arrow_array(values):
        if values.null_count or not pa.types.is_integer(values.type):
            return None
        return arrow_to_numpy(values)
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iu":
        return values
    return None


class _Chunks:
    """A column as NumPy pieces (Arrow chunks are read in place, a NumPy array is one
    piece), so kernels can stream it without first copying it into one array."""

    __slots__ = ("parts", "starts", "n")

    def __init__(self, parts: list[np.ndarray]):
        self.parts = [p for p in parts if p.shape[0]]
        sizes = [p.shape[0] for p in self.parts]
        self.starts = np.concatenate(([0], np.cumsum(sizes, dtype=np.int64)))
        self.n = int(self.starts[-1])

    @property
    def dtype(self) -> np.dtype:
        return self.parts[0].dtype

    def range(self) -> tuple[int, int]:
        return (min(int(p.min()) for p in self.parts), max(int(p.max()) for p in self.parts))

    def take(self, rows: np.ndarray) -> np.ndarray:
        """Values at (few) input rows."""
        piece = np.searchsorted(self.starts, rows, side="right") - 1
        out = np.empty(rows.shape[0], dtype=self.dtype)
        by = np.argsort(piece, kind="stable")
        bounds = np.searchsorted(piece[by], np.arange(len(self.parts) + 1))
        for c, part in enumerate(self.parts):
            sel = by[bounds[c]:bounds[c + 1]]
            if sel.shape[0]:
                out[sel] = part[rows[sel] - self.starts[c]]
        return out

    def scatter(self, pos: np.ndarray, out: np.ndarray, mult: int = 1) -> np.ndarray:
        """``out[pos[i]] = value of row i * mult`` (into stored order)."""
        for c, part in enumerate(self.parts):
            _scatter_kernel(part, np.int64(mult), pos, np.int64(self.starts[c]), out)
        return out


def _int_chunks(values: Any) -> _Chunks | None:
    """An integer column without missing values as :class:`_Chunks`, else None."""
    import pyarrow as pa

    if is_arrow_array(values):
        if values.null_count or not pa.types.is_integer(values.type) or not len(values):
            return None
        chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
        return _Chunks([arrow_to_numpy(c) for c in chunks])
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iu" \
            and values.shape[0]:
        return _Chunks([values])
    return None


#: nanoseconds per unit of a datetime64 / Arrow timestamp
_NS_PER = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def _time_chunks(values: Any) -> tuple[_Chunks, int] | None:
    """A date-time column (Arrow timestamps without nulls, or NumPy datetime64) as int64
    pieces and the multiplier to nanoseconds -- what :func:`parse_time` would give, read
    in place -- or None (then :func:`parse_time` handles it, and its errors)."""
    import pyarrow as pa

    if is_arrow_array(values):
        if values.null_count or not pa.types.is_timestamp(values.type):
            return None
        chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
        parts = [arrow_to_numpy(c) for c in chunks]
    elif isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind == "M":
        parts = [values]
    else:
        return None
    unit = np.datetime_data(parts[0].dtype)[0] if parts else "ns"
    if unit not in _NS_PER or any(np.isnat(p).any() for p in parts):
        return None
    ch = _Chunks([p.view(np.int64) for p in parts])
    if not ch.n:
        return None
    lo, hi = ch.range()
    limit = np.iinfo(np.int64).max // _NS_PER[unit]
    if not -limit <= lo <= hi <= limit:
        return None
    return ch, _NS_PER[unit]


def _codes(values: Any, column: str, source: Source) -> tuple[np.ndarray, np.ndarray]:
    """Dense int64 codes (first appearance) and the distinct labels of a column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    v = _int_numpy(values)
    if v is None and not is_arrow_array(values):
        v = as_1d(values, column)
    if v is not None and v.dtype.kind in "iu":
        rng = _direct_range(v, v.shape[0])
        if rng is not None:
            # small integers: a direct table instead of hashing
            codes = np.empty(v.shape[0], dtype=np.int64)
            first = np.empty(min(rng[1], v.shape[0]), dtype=np.int64)
            g = _first_seen_kernel(v, np.int64(rng[0]), rng[1], codes, first)
            return codes, v[first[:g]]
    arr = values if is_arrow_array(values) else None
    if arr is None:
        arr = pa.array(v, from_pandas=True) if v.dtype.kind == "O" else pa.array(v)
    if arr.null_count:
        i = int(np.argmax(arrow_to_numpy(arr.is_null())))
        raise InputError(f"column '{source.column(column)}' must not be missing; found a "
                         f"missing value at {source.where(i)}")
    enc = pc.dictionary_encode(arr)
    if isinstance(enc, pa.ChunkedArray):
        enc = enc.unify_dictionaries().combine_chunks()
    return (require(arrow_to_numpy(enc.indices).astype(np.int64), np.int64),
            arrow_to_numpy(enc.dictionary))


class _DirectSeats:
    """Seat columns interned by a direct table (:func:`_seat_table_kernel`); their ids
    are written straight into stored order, so no per-row ids in input order are built."""

    __slots__ = ("cols", "rank", "base")

    def __init__(self, cols: list[_Chunks], rank: np.ndarray, base: int):
        self.cols, self.rank, self.base = cols, rank, base

    def grouped(self, pos: np.ndarray) -> list[np.ndarray]:
        out = [np.empty(pos.shape[0], dtype=np.int64) for _ in range(4)]
        a = self.cols[0]
        for c in range(len(a.parts)):
            _scatter_ids_kernel(self.rank, np.int64(self.base),
                                *(col.parts[c] for col in self.cols), pos,
                                np.int64(a.starts[c]), *out)
        return out


def _intern_seats(seats: list[Any], source: Source
                  ) -> tuple[PlayerIndex, list[np.ndarray] | _DirectSeats]:
    """``PlayerIndex.intern(north, south, east, west)``; integer ids of one dtype and a
    small range (the usual numeric player ids) take a direct table instead of hashing,
    with the same ids."""
    cols = [_int_chunks(s) for s in seats]
    if all(c is not None for c in cols) and len({c.dtype for c in cols}) == 1 and \
            len({tuple(c.starts) for c in cols}) == 1:  # type: ignore[union-attr]
        n = cols[0].n  # type: ignore[union-attr]
        rngs = [c.range() for c in cols]  # type: ignore[union-attr]
        lo = min(r[0] for r in rngs)
        hi = max(r[1] for r in rngs)
        size = hi - lo + 1
        if size <= min(16 * n + 1024, _DIRECT_MAX):
            names = np.empty(min(size, 4 * n), dtype=cols[0].dtype)  # type: ignore[union-attr]
            rank = np.full(size, -1, dtype=np.int64)
            g = 0
            for c in range(len(cols[0].parts)):  # type: ignore[union-attr]
                g = _seat_table_kernel(*(col.parts[c] for col in cols),  # type: ignore[union-attr]
                                       np.int64(lo), rank, names, g)
            return PlayerIndex(names[:g].copy()), _DirectSeats(cols, rank, lo)  # type: ignore[arg-type]
    return PlayerIndex.intern(*seats, names=_SEATS, source=source)


def _grouped_seats(ids: list[np.ndarray] | _DirectSeats, order: np.ndarray,
                   pos: Any) -> list[np.ndarray]:
    """The four seat id arrays in stored order (``pos()`` gives each row's position)."""
    if isinstance(ids, _DirectSeats):
        return ids.grouped(pos())
    return [require(a[order], np.int64) for a in ids]


def parse_artificial(values: Any, source: Source = NO_SOURCE) -> np.ndarray:
    """Artificial-result codes from numbers 0-3, booleans (True = average) or text
    (``A+``/``A``/``A-``, ``AVE+``..., ``60``/``50``/``40`` or ``60%``..., empty = real;
    a missing number, as a blank cell of a numeric column, is real too)."""
    arr = as_1d(values, "artificial")
    if arr.dtype.kind == "b":
        return require(arr.astype(np.int64) * 2, np.int64)
    if arr.dtype.kind in "iuf":
        if arr.dtype.kind == "f":
            arr = np.where(np.isnan(arr), 0.0, arr)  # blank cells: real results
        bad = ~np.isin(arr, (0, 1, 2, 3))
        if bad.any():
            raise fail_at("artificial", "must be 0 (real), 1 (A+), 2 (A) or 3 (A-)", arr,
                          int(np.argmax(bad)), source)
        return require(arr.astype(np.int64), np.int64)
    uniq, inverse = np.unique(np.array(["" if v is None else str(v).strip().upper()
                                        for v in arr.tolist()], dtype=object),
                              return_inverse=True)
    codes = np.array([ARTIFICIAL_CODES.get(u, -1) for u in uniq.tolist()], dtype=np.int64)
    out = codes[inverse.reshape(-1)]
    bad = out < 0
    if bad.any():
        raise fail_at("artificial", "must be empty (real), A+, A or A- (or 60%, 50%, 40%, "
                      "or a code 0-3)", arr,
                      int(np.argmax(bad)), source)
    return require(out, np.int64)


def _vulnerability_codes(values: Any, source: Source) -> np.ndarray:
    """0 none, 1 NS, 2 EW, 3 both, from PBN/ACBL spellings."""
    arr = as_1d(values, "vulnerable")
    uniq, inverse = np.unique(np.array([str(v).strip().upper() for v in arr.tolist()],
                                       dtype=object), return_inverse=True)
    codes = np.array([_VUL_CODES.get(u, -1) for u in uniq.tolist()], dtype=np.int64)
    out = codes[inverse.reshape(-1)]
    bad = out < 0
    if bad.any():
        raise fail_at("vulnerable", "must be None, NS, EW or Both (or All)", arr,
                      int(np.argmax(bad)), source)
    return require(out, np.int64)


#: a result cell: =, +k, -k or the tricks taken
_RESULT_CELL = re.compile(r"^(?:=|[+-]\s*\d{1,2}|\d{1,2})$")


def _result_cell(took: list, i: int, source: Source) -> str | None:
    """The result cell of row ``i`` as contract text: ``=``, ``+k``, ``-k`` or the tricks
    taken (a whole number 0-13); None when blank."""
    v = took[i]
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return None
    need = "must be the tricks declarer took (a whole number 0-13) or a result =, +k, -k"
    if isinstance(v, (bool, np.bool_)):
        raise fail_at("tricks", need, took, i, source)
    if isinstance(v, (int, float, np.integer, np.floating)):
        if v != int(v) or not 0 <= v <= 13:
            raise fail_at("tricks", need, took, i, source)
        return str(int(v))
    text = str(v).strip().replace("\u2212", "-").replace("\u2013", "-")
    if text == "" or text.lower() == "nan":
        return None
    if not _RESULT_CELL.match(text) or (text.isdigit() and int(text) > 13):
        raise fail_at("tricks", need, took, i, source)
    return text


def _scores_from_contracts(contract: Any, declarer: Any, tricks: Any, board_number: Any,
                           vulnerable: np.ndarray | None, source: Source
                           ) -> tuple[np.ndarray, np.ndarray]:
    """NS points from text contracts (with the result in the text, or in ``tricks``: the
    tricks taken, or ``=``/``+k``/``-k``), the declarer's seat and the vulnerability
    (given, or from the board number's 16-board cycle); and the tricks declarer took
    (-1 for a passed-out board)."""
    from fastrate.bridge import contract as c

    texts = as_1d(contract, "contract").tolist()
    seats = (as_1d(declarer, "declarer").tolist() if declarer is not None
             else [None] * len(texts))
    took = as_1d(tricks, "tricks").tolist() if tricks is not None else None
    n = len(texts)
    level = np.zeros(n, dtype=np.int64)
    strain = np.zeros(n, dtype=np.int64)
    doubled = np.zeros(n, dtype=np.int64)
    result = np.zeros(n, dtype=np.int64)
    taken = np.full(n, -1, dtype=np.int64)
    ns_side = np.ones(n, dtype=np.bool_)
    where = source.column("contract")
    for i, t in enumerate(texts):
        text = "" if t is None else str(t).strip()
        cell = None if took is None else _result_cell(took, i, source)
        bare = cell is not None and c._BARE.match(text) is not None
        try:
            k = c.parse_contract(text + cell if bare else text)
            if cell is not None and not bare and not k.passed_out:
                # the contract has its own result: the result column must agree
                again = c.parse_contract(f"{k.level}{c.STRAINS[k.strain]}{cell}")
                if again.result != k.result:
                    raise InputError(f"contract {text!r} gives {k.tricks} tricks but column "
                                     f"'{source.column('tricks')}' says {cell!r} "
                                     f"({again.tricks} tricks)")
        except InputError as exc:
            raise InputError(f"column '{where}' at {source.where(i)}: {exc}") from None
        level[i], strain[i], doubled[i], result[i] = k.level, k.strain, k.doubled, k.result
        if k.passed_out:
            continue
        taken[i] = k.tricks
        seat = "" if seats[i] is None else str(seats[i]).strip().upper()
        if seat in ("N", "S"):
            ns_side[i] = True
        elif seat in ("E", "W"):
            ns_side[i] = False
        else:
            raise fail_at("declarer", "must be N, E, S or W for a contract that was played",
                          np.asarray(seats, dtype=object), i, source)
    if vulnerable is None:
        vul = c.vulnerability(board_number)
        code = np.array([_VUL_CODES[str(v).upper()] for v in np.atleast_1d(vul).tolist()],
                        dtype=np.int64)
    else:
        code = vulnerable
    vul_side = np.where(ns_side, (code == 1) | (code == 3), (code == 2) | (code == 3))
    points = c.contract_score(level, strain, doubled, result, vul_side).astype(np.float64)
    return np.where(ns_side, points, -points), taken


#: NS points of any contract lie in [-7600, 7600] (Law 77: 7NTXX down 13 vulnerable)
MAX_POINTS = 7600


def _check_score_range(sc: np.ndarray | _Chunks, source: Source) -> None:
    """A score outside the range of contract scores is a typo or a different unit."""
    if isinstance(sc, _Chunks):
        lo, hi = sc.range()
        if -MAX_POINTS <= lo and hi <= MAX_POINTS:
            return
        sc = np.concatenate(sc.parts)
    bad = np.abs(sc) > MAX_POINTS  # NaN (artificial) compares False
    if bad.any():
        raise fail_at("ns_score", f"must be NS points in [-{MAX_POINTS}, {MAX_POINTS}] (the "
                      "range of contract scores)", sc, int(np.argmax(bad)), source)


# ----------------------------------------------------------------------------------
# the container


@dataclass(frozen=True, eq=False)
class Boards:
    """Table results of duplicate boards, grouped by board, as struct-of-arrays.

    Per stored row (``n_results``; the rows of board ``b`` are
    ``board_offsets[b]:board_offsets[b + 1]``):

    ns_score : float64
        North-South's score in points (NaN for an artificial result).
    artificial : int64 or None
        0 real, 1 A+, 2 A, 3 A- (NS's side; EW gets the mirror). None: all real.
    north, south, east, west : int64 or None
        Player ids into :attr:`players` (None when the input named pairs only).
    ns_pair, ew_pair : int64 or None
        Pair-label ids into :attr:`pairs` (None when the input named players only; see
        :meth:`partnerships` for pairs of players).
    time : datetime64[ns] or float64, or None
    contract, declarer : object or None; tricks : int64 or None (-1 unknown)
    order : int64
        The input row of each stored row.

    Per board (``n_boards``): ``board_offsets`` (int64, ``n_boards + 1``),
    ``board_event`` (event label or None), ``board_number`` (the board's label, e.g. its
    number), ``board_period`` (int64 rating period, the period of its earliest result;
    None without time/period) and ``board_first_time``.
    """

    board_offsets: np.ndarray
    ns_score: np.ndarray
    order: np.ndarray
    board_number: np.ndarray
    board_event: np.ndarray | None = None
    board_period: np.ndarray | None = None
    artificial: np.ndarray | None = None
    players: PlayerIndex | None = None
    north: np.ndarray | None = None
    south: np.ndarray | None = None
    east: np.ndarray | None = None
    west: np.ndarray | None = None
    pairs: PlayerIndex | None = None
    ns_pair: np.ndarray | None = None
    ew_pair: np.ndarray | None = None
    time: np.ndarray | None = None
    contract: np.ndarray | None = None
    declarer: np.ndarray | None = None
    tricks: np.ndarray | None = None
    source: Source = field(default=NO_SOURCE, repr=False)
    #: rows left out: (reason, count, first row) triples
    dropped: tuple[tuple[str, int, str], ...] = ()

    # -- construction -------------------------------------------------------------

    @classmethod
    def from_arrays(cls, board: Any, ns_score: Any = None, *, event: Any = None,
                    north: Any = None, south: Any = None, east: Any = None,
                    west: Any = None, ns_pair: Any = None, ew_pair: Any = None,
                    time: Any = None, period: Any = None, artificial: Any = None,
                    contract: Any = None, declarer: Any = None, tricks: Any = None,
                    vulnerable: Any = None, players: Any = None,
                    source: Source | str | None = None, anonymous: bool = False) -> Boards:
        """Build boards from columns (NumPy arrays, lists, pandas/polars series, Arrow).

        ``board`` labels the board (its number; with ``event`` the pair (event, board)
        identifies it). Players: ``north``/``south``/``east``/``west`` (names, or int ids
        into ``players``), and/or pair labels ``ns_pair``/``ew_pair``. NS points come
        from ``ns_score`` or are computed from ``contract`` (``"4HX="``, ``"3NT+1"``, or
        ``"3NT"`` with ``tricks`` taken), ``declarer`` (N/E/S/W) and ``vulnerable`` (None
        /NS/EW/Both; default: from the board number). ``time`` + ``period`` (a length
        such as ``"3d"``) or ``period`` labels give each board a rating period (that of
        its earliest result). ``artificial``: codes 0-3 or text A+/A/A-.
        ``anonymous=True`` allows rows without players and pair labels (scoring only).
        """
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        b = board if is_arrow_array(board) else as_1d(board, "board")
        n = len(b)
        if n == 0:
            raise InputError(f"no results: {src.name or 'the input'} has no rows" + (
                " (only a header)" if src.first_line > 1 else ""))

        def col(x: Any, name: str) -> Any:
            if x is None:
                return None
            a = x if is_arrow_array(x) or isinstance(x, (list, tuple)) else as_1d(x, name)
            if len(a) != n:
                raise InputError(f"column '{src.column(name)}' must have one value per "
                                 f"result ({n}); got {len(a)}")
            return a

        seats = [col(x, s) for x, s in zip((north, south, east, west), _SEATS)]
        given = [s is not None for s in seats]
        if any(given) and not all(given):
            missing = [s for s, g in zip(_SEATS, given) if not g]
            raise InputError(f"a pair needs both players: give all of north, south, east "
                             f"and west (missing: {', '.join(missing)})")
        ns_lab, ew_lab = col(ns_pair, "ns_pair"), col(ew_pair, "ew_pair")
        if (ns_lab is None) != (ew_lab is None):
            raise InputError("give both ns_pair and ew_pair, or neither")
        if not all(given) and ns_lab is None and not anonymous:
            raise InputError("no players: give north/south/east/west players, or ns_pair and "
                             "ew_pair labels")
        art = None
        if artificial is not None:
            art = parse_artificial(col(artificial, "artificial"), src)
            if not art.any():
                art = None
        vul = None
        if vulnerable is not None:
            vul = _vulnerability_codes(col(vulnerable, "vulnerable"), src)
        sc_chunks = None  # integer points: written as float64 straight into stored order
        taken = None  # tricks declarer took, when computed from the contracts
        sc = np.zeros(0)
        if ns_score is not None:
            sc_chunks = _int_chunks(col(ns_score, "ns_score")) if art is None else None
            if sc_chunks is None:
                sc = as_float64(col(ns_score, "ns_score"), "ns_score", src, allow_nan=True)
        elif contract is not None:
            sc, taken = _scores_from_contracts(col(contract, "contract"), col(declarer, "declarer"),
                                        col(tricks, "tricks"),
                                        as_1d(b, "board") if vul is None else 1, vul, src)
        else:
            raise InputError("no scores: give ns_score, or contract and declarer")
        if sc_chunks is None:
            bad = ~np.isfinite(sc) if art is None else (~np.isfinite(sc) & (art == 0))
            if bad.any():
                raise fail_at("ns_score", "must be a finite number of points for a real "
                              "result (mark averages with 'artificial')", sc,
                              int(np.argmax(bad)), src)
        if ns_score is not None:
            _check_score_range(sc if sc_chunks is None else sc_chunks, src)
        if art is not None:
            sc = np.where(art != 0, np.nan, sc)

        # players and pair labels
        index = None
        ids: list[np.ndarray] | _DirectSeats = []
        if all(given):
            if players is not None:
                index = players if isinstance(players, PlayerIndex) else PlayerIndex(players)
                ids = []
                for s, name in zip(seats, _SEATS):
                    v = as_1d(s, name)
                    if v.dtype.kind not in "iu":
                        raise InputError(f"column '{src.column(name)}' must hold integer ids "
                                         "into 'players' when players= is given")
                    bad = (v < 0) | (v >= len(index))
                    if bad.any():
                        raise fail_at(name, f"must be a player id in [0, {len(index) - 1}]",
                                      v, int(np.argmax(bad)), src)
                    ids.append(require(v, np.int64))
            else:
                index, ids = _intern_seats(seats, src)
        pairs = None
        pair_ids: list[np.ndarray | None] = [None, None]
        if ns_lab is not None:
            pairs, pair_ids = PlayerIndex.intern(ns_lab, ew_lab, names=("ns_pair", "ew_pair"),
                                                 source=src)

        # boards: (event, board) -> dense key, grouped by first appearance
        order = np.empty(n, dtype=np.int64)
        ev_ch = None if event is None else _int_chunks(col(event, "event"))
        bd_ch = _int_chunks(b)
        er = None if ev_ch is None else ev_ch.range()
        br = None if bd_ch is None else bd_ch.range()
        ne = 1 if er is None else er[1] - er[0] + 1
        nb = 0 if br is None else br[1] - br[0] + 1
        if bd_ch is not None and (event is None or ev_ch is not None) and \
                ne * nb <= min(4 * n + 1024, _DIRECT_MAX) and \
                (ev_ch is None or np.array_equal(ev_ch.starts, bd_ch.starts)):
            # integer events and boards: the key straight from the two columns, streamed
            n_keys = ne * nb
            emin = np.int64(0 if er is None else er[0])
            bmin, brange = np.int64(br[0]), np.int64(nb)  # type: ignore[index]
            rank = np.full(n_keys, -1, dtype=np.int64)
            count = np.zeros(n_keys, dtype=np.int64)
            first_row = np.empty(min(n_keys, n), dtype=np.int64)
            no_ev = np.zeros(0, dtype=bd_ch.dtype)
            g = 0
            for c, part in enumerate(bd_ch.parts):
                g = _group_count_kernel(no_ev if ev_ch is None else ev_ch.parts[c], part,
                                        np.int64(bd_ch.starts[c]), emin, bmin, brange,
                                        rank, count, first_row, g)
            offsets = np.empty(g + 1, dtype=np.int64)
            _group_offsets_kernel(rank, count, g, offsets)
            fill = offsets[:g].copy()
            for c, part in enumerate(bd_ch.parts):
                _group_fill_kernel(no_ev if ev_ch is None else ev_ch.parts[c], part,
                                   np.int64(bd_ch.starts[c]), emin, bmin, brange, rank,
                                   fill, order)
            del rank, count, fill

            def labels_at(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
                return (bd_ch.take(rows),  # type: ignore[union-attr]
                        None if ev_ch is None else ev_ch.take(rows))
        else:
            bcode, blabels = _codes(b, "board", src)
            ecode = elabels = None
            if event is not None:
                ecode, elabels = _codes(col(event, "event"), "event", src)
                combined = ecode * np.int64(blabels.shape[0]) + bcode
                # grouping numbers groups by first appearance, so a sparse key will do
                key = combined if elabels.shape[0] * blabels.shape[0] <= 4 * n + 1024 else \
                    _codes(combined, "board", src)[0]
            else:
                key = bcode
            n_keys = int(key.max()) + 1
            offsets = np.empty(n_keys + 1, dtype=np.int64)
            first_row = np.empty(n_keys, dtype=np.int64)
            g = _group_by_key_kernel(key, n_keys, order, offsets, first_row)

            def labels_at(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
                return (blabels[bcode[rows]],
                        None if elabels is None else elabels[ecode[rows]])  # type: ignore[index]
        offsets, first_row = offsets[:g + 1], first_row[:g]

        # time and periods: boards in order of (period, earliest time, first appearance)
        tm = pr = board_period = None
        length = None
        t_ch = None
        if time is not None:
            t_ch = _time_chunks(col(time, "time"))
            if t_ch is None:
                tm = parse_time(col(time, "time"), "time", src)
        if period is not None:
            if isinstance(period, (str, int, float)) and not isinstance(period, bool):
                if time is None:
                    raise InputError(f"period {period!r} is a length, which needs a time "
                                     "column; give time=..., or period labels per result")
                # periods are nondecreasing in time: the board's period is that of its
                # earliest result, bucketed once per board below
                length = period
            else:
                from fastrate.data.periods import period_labels

                pr, _ = period_labels(col(period, "period"), src)
        counts = np.diff(offsets)
        starts = offsets[:-1]  # every group has a row
        sort_keys = [first_row]
        stored_at: list[np.ndarray] = []  # the inverse of ``order``, made when needed

        def pos() -> np.ndarray:
            if not stored_at:
                stored_at.append(np.empty(n, dtype=np.int64))
                _inverse_kernel(order, stored_at[0])
            return stored_at[0]

        tm_g = None  # times in stored order
        if t_ch is not None:
            tm_g = t_ch[0].scatter(pos(), np.empty(n, dtype=np.int64),
                                   t_ch[1]).view("datetime64[ns]")
        elif tm is not None:
            tm_g = tm[order]
        if tm_g is not None:
            tv = tm_g.view(np.int64) if tm_g.dtype.kind == "M" else tm_g
            first_t = np.minimum.reduceat(tv, starts)
            sort_keys.append(first_t)
            if length is not None:
                board_period = require(bucket_periods(
                    first_t.view(tm_g.dtype) if tm_g.dtype.kind == "M" else first_t, length),
                    np.int64)
        if pr is not None:
            board_period = require(np.minimum.reduceat(pr[order], starts), np.int64)
        if board_period is not None:
            sort_keys.append(board_period)
        if len(sort_keys) > 1:
            border = np.lexsort(sort_keys)
            if (border != np.arange(g)).any():
                starts = offsets[:-1][border]
                new_counts = counts[border]
                new_offsets = np.zeros(g + 1, dtype=np.int64)
                np.cumsum(new_counts, out=new_offsets[1:])
                idx = (np.repeat(starts - new_offsets[:-1], new_counts)
                       + np.arange(n, dtype=np.int64))
                order = order[idx]
                stored_at.clear()
                tm_g = None if tm_g is None else tm_g[idx]
                offsets = new_offsets
                first_row = first_row[border]
                if board_period is not None:
                    board_period = board_period[border]
        order = require(order, np.int64)

        def take(a: np.ndarray | None) -> np.ndarray | None:
            return None if a is None else require(a[order], a.dtype)

        board_number, board_event = labels_at(first_row)

        # participants: a player (or pair label) at most once per board
        width = 4 if all(given) else (2 if ns_lab is not None else 0)
        n_ids = 0
        grouped: list[np.ndarray | None] = [None] * 4
        cols: list[np.ndarray] = []
        if all(given):
            grouped = cols = _grouped_seats(ids, order, pos)  # type: ignore[assignment]
            n_ids = len(index)  # type: ignore[arg-type]
        elif width == 2:
            cols = [require(pair_ids[0][order], np.int64),  # type: ignore[index]
                    require(pair_ids[1][order], np.int64)]  # type: ignore[index]
            cols += cols
            n_ids = len(pairs)  # type: ignore[arg-type]
        sc_g = require(sc[order], np.float64) if sc_chunks is None else \
            sc_chunks.scatter(pos(), np.empty(n, dtype=np.float64))
        stored_at.clear()
        art_g = take(art)
        keep = np.empty(n, dtype=np.bool_)
        conflict = np.full(3, -1, dtype=np.int64)
        n_dup = _check_seats_kernel(offsets, *cols, width, sc_g,
                                    art_g if art_g is not None else _NO_ARTIFICIAL,
                                    n_ids, keep, conflict) if width else 0
        r, q, p = (int(v) for v in conflict)
        if r >= 0:
            b_i = int(np.searchsorted(offsets, r, side="right") - 1)
            what = "player" if width == 4 else "pair"
            name = (index if width == 4 else pairs)[p]  # type: ignore[index]
            label = format_value(board_number[b_i])
            if board_event is not None:
                label = f"{label} of event {format_value(board_event[b_i])}"
            if r == q:
                raise InputError(f"{what} {format_value(name)} sits twice at one table of board "
                                 f"{label}, at {src.where(int(order[r]))}; "
                                 + ("the four seats need four different players"
                                    if width == 4 else "ns_pair and ew_pair must differ"))
            raise InputError(f"{what} {format_value(name)} plays twice on board {label}: at "
                             f"{src.where(int(order[q]))} and {src.where(int(order[r]))}; "
                             "each player sits at one table of a board")
        dropped: tuple[tuple[str, int, str], ...] = ()
        if n_dup:
            first_dup = int(order[int(np.argmax(~keep))])
            dropped = (("duplicate table entry (same board, players and score)", int(n_dup),
                        src.where(first_dup)),)
            kept = np.flatnonzero(keep)
            counts = np.bincount(board_of_pos_for(offsets)[kept], minlength=g)
            offsets = np.zeros(g + 1, dtype=np.int64)
            np.cumsum(counts, out=offsets[1:])
            order = require(order[kept], np.int64)
            grouped = [None if a is None else a[kept] for a in grouped]
            tm_g = None if tm_g is None else tm_g[kept]
            sc_g = require(sc_g[kept], np.float64)
            art_g = None if art_g is None else require(art_g[kept], np.int64)

        def take2(a: Any) -> np.ndarray | None:
            if a is None:
                return None
            return require(as_1d(a, "x")[order], as_1d(a, "x").dtype) if not isinstance(
                a, np.ndarray) else require(a[order], a.dtype)

        seat_arrays = {s: (None if grouped[j] is None else require(grouped[j], np.int64))
                       for j, s in enumerate(_SEATS)}
        tr = None
        if taken is not None and tricks is not None:
            tr = require(taken[order], np.int64)
        elif tricks is not None:
            t_raw = as_float64(col(tricks, "tricks"), "tricks", src, allow_nan=True)
            bad = ~np.isnan(t_raw) & ((t_raw != np.round(t_raw)) | (t_raw < 0) | (t_raw > 13))
            if bad.any():
                raise fail_at("tricks", "must be the tricks declarer took (a whole number "
                              "0-13)", t_raw, int(np.argmax(bad)), src)
            tr = np.where(np.isnan(t_raw), -1, t_raw).astype(np.int64)[order]
        return cls(board_offsets=require(offsets, np.int64), ns_score=sc_g, order=order,
                   board_number=board_number, board_event=board_event,
                   board_period=None if board_period is None else require(board_period,
                                                                          np.int64),
                   artificial=art_g, players=index, **seat_arrays, pairs=pairs,
                   ns_pair=None if pair_ids[0] is None else require(pair_ids[0][order],
                                                                     np.int64),
                   ew_pair=None if pair_ids[1] is None else require(pair_ids[1][order],
                                                                     np.int64),
                   time=tm_g,
                   contract=None if contract is None else take2(col(contract, "contract")),
                   declarer=None if declarer is None else take2(col(declarer, "declarer")),
                   tricks=tr, source=src, dropped=dropped)

    @classmethod
    def from_frame(cls, frame: Any, **columns: Any) -> Boards:
        """Build boards from a pandas/polars DataFrame or a pyarrow Table; columns are
        recognised as in :func:`read_boards` (pass ``board="col"`` ... to map them)."""
        from fastrate._validate import to_arrow_table

        return boards_from_table(to_arrow_table(frame), **columns)

    # -- properties ---------------------------------------------------------------

    @property
    def n_results(self) -> int:
        return int(self.ns_score.shape[0])

    @property
    def n_boards(self) -> int:
        return int(self.board_offsets.shape[0] - 1)

    @property
    def n_players(self) -> int:
        return 0 if self.players is None else len(self.players)

    @property
    def results_per_board(self) -> np.ndarray:
        return np.diff(self.board_offsets)

    @property
    def n_single_result_boards(self) -> int:
        """Boards with fewer than two real results (no comparison possible)."""
        real = self.ns_score == self.ns_score
        counts = np.add.reduceat(real.astype(np.int64), self.board_offsets[:-1]) if (
            self.n_results) else np.zeros(0, np.int64)
        counts = np.where(np.diff(self.board_offsets) > 0, counts, 0)
        return int((counts < 2).sum())

    @property
    def n_odd_scores(self) -> int:
        """Real scores that are not a multiple of 10 (averaged or adjusted scores)."""
        s = self.ns_score[np.isfinite(self.ns_score)]
        return int((np.mod(s, 10.0) != 0).sum())

    def __len__(self) -> int:
        return self.n_results

    def __repr__(self) -> str:
        who = (f"{self.n_players} players" if self.players is not None
               else f"{len(self.pairs or ())} pairs")
        return f"Boards({self.n_results} results, {self.n_boards} boards, {who})"

    def board_of_row(self) -> np.ndarray:
        """The board index of every stored row (int64)."""
        return board_of_pos_for(self.board_offsets)

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-row values in stored order -> input-row order (dropped rows get NaN)."""
        n_in = int(self.order.max()) + 1 if self.order.shape[0] else 0
        out = np.full(n_in, np.nan) if values.dtype.kind == "f" else np.zeros(
            n_in, dtype=values.dtype)
        out[self.order] = values
        return out

    # -- scoring ------------------------------------------------------------------

    def score(self, method: str = "cross-imps", *, drop: str | int = "none",
              datum: str = "mean", style: str = "2/1/0"):
        """Score every board with ``method`` (``cross-imps``, ``butler``,
        ``matchpoints``); a :class:`fastrate.bridge.scoring.BoardScores` in stored-row
        order."""
        from fastrate.bridge import scoring

        scoring.check_method(method)
        if method == "cross-imps":
            return scoring.cross_imps(self.board_offsets, self.ns_score, self.artificial)
        if method == "butler":
            return scoring.butler_imps(self.board_offsets, self.ns_score, drop=drop,
                                       datum=datum, artificial=self.artificial)
        return scoring.matchpoints(self.board_offsets, self.ns_score, style=style,
                                   artificial=self.artificial)

    # -- players and partnerships -------------------------------------------------

    def partnerships(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Partnerships of players: ``(ns_partnership, ew_partnership, first, second)``
        where the per-row ids index the partnership arrays ``first < second`` (player
        ids). Needs players."""
        if self.players is None:
            raise InputError("partnerships need players (north/south/east/west), not only "
                             "pair labels")
        n = np.int64(max(len(self.players), 1))
        a = np.minimum(self.north, self.south) * n + np.maximum(self.north, self.south)
        b = np.minimum(self.east, self.west) * n + np.maximum(self.east, self.west)
        keys, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
        inverse = inverse.astype(np.int64)
        m = self.n_results
        return (require(inverse[:m], np.int64), require(inverse[m:], np.int64),
                (keys // n).astype(np.int64), (keys % n).astype(np.int64))

    def components(self) -> np.ndarray:
        """Connected component of every player in the graph that joins all players of
        each board (results on a board are compared with each other): ratings of players
        in different components are on unrelated scales. Ids 0.. in order of the
        smallest player id."""
        if self.players is None:
            raise InputError("components need players (north/south/east/west)")
        out = np.empty(len(self.players), dtype=np.int64)
        _board_components_kernel(len(self.players), self.board_offsets, self.north,
                                 self.south, self.east, self.west, out)
        return out

    def partnership_components(self) -> tuple[np.ndarray, np.ndarray]:
        """Components of the partnership graph (players joined when they played as
        partners) and whether each is identifiable.

        Pair results only tell a pair's mean rating, so inside a component the player
        ratings satisfy ``r_a + r_b = s_ab`` for each partnership; the individual values
        are determined only when the component has an odd cycle. A bipartite component
        (a fixed partnership, or any component without an odd cycle) leaves one degree
        of freedom: add ``t`` on one side and subtract it on the other and every pair
        rating stays the same. Returns ``(component of each player, identifiable flag
        of each component)``."""
        if self.players is None:
            raise InputError("partnership components need players (north/south/east/west)")
        _, _, first, second = self.partnerships()
        n = len(self.players)
        comp = np.empty(n, dtype=np.int64)
        odd = np.zeros(n, dtype=np.bool_)
        k = _partnership_components_kernel(n, require(first, np.int64),
                                           require(second, np.int64), comp, odd)
        return comp, odd[:k].copy()

    def with_scores(self, ns_score: np.ndarray) -> Boards:
        return dataclasses.replace(self, ns_score=require(ns_score, np.float64))


def board_of_pos_for(offsets: np.ndarray) -> np.ndarray:
    """The group index of every position of a CSR layout."""
    return np.repeat(np.arange(offsets.shape[0] - 1, dtype=np.int64), np.diff(offsets))


@kernel
def _find_root(parent, x):  # pragma: no cover - jit
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@kernel
def _board_components_kernel(n, offsets, a, b, c, d, out):  # pragma: no cover - jit
    """Label the components of players joined by playing the same board."""
    parent = np.arange(n)
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        if lo == offsets[g + 1]:
            continue
        ra = _find_root(parent, a[lo])
        for i in range(lo, offsets[g + 1]):
            for j in range(4):
                other = a[i] if j == 0 else (b[i] if j == 1 else (c[i] if j == 2 else d[i]))
                ro = _find_root(parent, other)
                if ro < ra:
                    parent[ra] = ro
                    ra = ro
                elif ro > ra:
                    parent[ro] = ra
    _label_roots(parent, out)


@kernel
def _label_roots(parent, out):  # pragma: no cover - jit
    label = np.full(parent.shape[0], -1, dtype=np.int64)
    k = 0
    for x in range(parent.shape[0]):
        r = _find_root(parent, x)
        if label[r] < 0:
            label[r] = k
            k += 1
        out[x] = label[r]
    return k


@kernel
def _partnership_components_kernel(n, first, second, comp, odd):  # pragma: no cover - jit
    """Components of the partnership graph by BFS with a 2-colouring; ``odd[c]`` is set
    when component ``c`` has an odd cycle (not bipartite). Returns the count."""
    m = first.shape[0]
    deg = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        deg[first[e] + 1] += 1
        deg[second[e] + 1] += 1
    for i in range(n):
        deg[i + 1] += deg[i]
    adj = np.empty(2 * m, dtype=np.int64)
    fill = deg[:n].copy()
    for e in range(m):
        adj[fill[first[e]]] = second[e]
        fill[first[e]] += 1
        adj[fill[second[e]]] = first[e]
        fill[second[e]] += 1
    colour = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    k = 0
    for s in range(n):
        if colour[s] >= 0:
            continue
        colour[s] = 0
        comp[s] = k
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            x = queue[head]
            head += 1
            for j in range(deg[x], deg[x + 1]):
                y = adj[j]
                if colour[y] < 0:
                    colour[y] = 1 - colour[x]
                    comp[y] = k
                    queue[tail] = y
                    tail += 1
                elif colour[y] == colour[x]:
                    odd[k] = True
        k += 1
    return k


# ----------------------------------------------------------------------------------
# tables and files

#: argument -> recognised column names (lower case), in order of preference
_BOARD_COLUMNS: dict[str, tuple[str, ...]] = {
    "board": ("board", "board_no", "board_number", "boardno", "deal"),
    "event": ("event", "event_id", "tournament", "session", "section"),
    "ns_score": ("ns_score", "score_ns", "nsscore", "ns_points", "score"),
    "north": ("north", "n"), "south": ("south", "s"), "east": ("east", "e"),
    "west": ("west", "w"),
    "ns_pair": ("ns_pair", "pair_ns", "pairid_ns", "ns"),
    "ew_pair": ("ew_pair", "pair_ew", "pairid_ew", "ew"),
    "time": ("time", "date", "datetime", "timestamp"),
    "artificial": ("artificial", "adjusted", "adjustment"),
    "contract": ("contract",),
    "declarer": ("declarer",),
    "tricks": ("tricks", "result"),
    "vulnerable": ("vulnerable", "vulnerability", "vul"),
}


def boards_from_table(table: Any, *, period: Any = None, source: str | Source | None = None,
                      **columns: str | None) -> Boards:
    """Build :class:`Boards` from a pyarrow Table, recognising column names
    (case-insensitive): ``board``, ``event``, ``north``/``south``/``east``/``west``,
    ``ns_pair``/``ew_pair``, ``ns_score`` (or ``contract`` + ``declarer`` [+ ``tricks``]
    [+ ``vulnerable``]), ``time``, ``artificial``. ``period`` is a length (``"3d"``) or
    the name of a period column. Explicit ``board="col"``... mappings override."""
    from fastrate.io.tables import source_for

    src = source_for(source) if not isinstance(source, Source) else source
    where = src.name or "the input"
    names = list(table.column_names)
    lower = {c.lower(): c for c in names}
    unknown = set(columns) - set(_BOARD_COLUMNS)
    if unknown:
        raise InputError(f"unknown column option(s) {', '.join(sorted(unknown))}; use "
                         f"{', '.join(_BOARD_COLUMNS)}")
    picked: dict[str, str] = {}
    for arg, options in _BOARD_COLUMNS.items():
        want = columns.get(arg)
        if want is not None:
            if want not in names:
                import difflib

                near = difflib.get_close_matches(want, names, n=1)
                hint = f"; did you mean '{near[0]}'?" if near else ""
                raise InputError(f"no column '{want}' (given as {arg}=) in {where}; columns: "
                                 f"{', '.join(names)}{hint}")
            picked[arg] = want
            continue
        for o in options:
            if o in lower and lower[o] not in picked.values():
                picked[arg] = lower[o]
                break
    if "board" not in picked:
        raise InputError(f"no board column in {where} (columns: {', '.join(names)}); a "
                         "results file needs board, the players (north, south, east, west) "
                         "or pairs (ns_pair, ew_pair), and ns_score (or contract and "
                         "declarer)")
    if ("ns_pair" in picked) != ("ew_pair" in picked):
        missing = "ew_pair" if "ns_pair" in picked else "ns_pair"
        raise InputError(f"no column '{missing}' in {where} (columns: {', '.join(names)}); "
                         "give both ns_pair and ew_pair (or neither, with north, south, east "
                         "and west)")
    if "ns_score" in picked and "contract" in picked and columns.get("ns_score") is None \
            and picked["ns_score"].lower() == "score":
        del picked["ns_score"]  # a bare 'score' next to a contract is ambiguous: recompute
    if "ns_score" not in picked and not ("contract" in picked and "declarer" in picked):
        raise InputError(f"no column 'ns_score' in {where} (columns: {', '.join(names)}); "
                         "give NS points as ns_score, or contract and declarer")
    if "ns_score" in picked:
        for k in ("contract", "declarer", "tricks", "vulnerable"):
            picked.pop(k, None) if columns.get(k) is None else None
    seats_found = [s for s in _SEATS if s in picked]
    if 0 < len(seats_found) < 4 and "ns_pair" not in picked:
        missing = [s for s in _SEATS if s not in picked]
        raise InputError(f"a pair needs both players: no column for {', '.join(missing)} in "
                         f"{where} (columns: {', '.join(names)})")
    if len(seats_found) < 4:
        for s in seats_found:
            del picked[s]
    src = dataclasses.replace(src, columns=tuple((a, c) for a, c in picked.items() if a != c))
    period_arg = period
    if isinstance(period, str) and period.lower() in lower:  # a column of period labels
        period_arg = table.column(period if period in names else lower[period.lower()])
    args = {a: table.column(c) for a, c in picked.items()}
    try:
        return Boards.from_arrays(period=period_arg, source=src, **args)
    except InputError as exc:
        if isinstance(period_arg, str) and str(exc).startswith("unknown period"):
            raise InputError(f"{exc}; or the name of a column of period labels (columns of "
                             f"{where}: {', '.join(names)})") from None
        if isinstance(period_arg, str) and str(exc).startswith(f"period {period_arg!r} is"):
            raise InputError(f"{exc} (and {where} has no column {period_arg!r}; columns: "
                             f"{', '.join(names)})") from None
        raise


def read_boards(path: Any, *, format: str | None = None, period: Any = None,
                **columns: str | None) -> Boards:
    """Read table results from CSV, Parquet, JSON or PBN (``.pbn``); see
    :func:`boards_from_table` for the column names recognised."""
    from pathlib import Path

    from fastrate.io.tables import read_table, source_for

    p = Path(path)
    if not p.exists():
        raise InputError(f"no such file: {path}")
    if (format or p.suffix.lower().lstrip(".")) == "pbn":
        from fastrate.io.pbn import read_pbn_boards

        return read_pbn_boards(p, period=period)
    fmt = format
    if (fmt == "csv" or fmt is None and p.suffix.lower() not in (
            ".parquet", ".json", ".jsonl", ".ndjson")) and p.is_file():
        with open(p, "rb") as fh:
            head = fh.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith((b"%", b"[")) and b'"]' in head:
            raise InputError(f"{path} looks like a PBN file (it starts with "
                             f"{head.splitlines()[0][:40].decode('latin-1')!r}), not a table; "
                             "read it with --input-format pbn (format='pbn') or name it .pbn")
    # results as text: '+1' (one overtrick) must not be read as the number 1 (tricks)
    table = read_table(p, fmt, text_columns=_BOARD_COLUMNS["tricks"])
    return boards_from_table(table, period=period, source=source_for(p.name, fmt), **columns)
