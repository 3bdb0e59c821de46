"""The bridge data model: :class:`Boards`, table results of duplicate boards as
struct-of-arrays, grouped by board (SPEC §3). Built from arrays
(:meth:`Boards.from_arrays`) and from tables in memory (:meth:`Boards.from_table`,
:meth:`Boards.from_frame`, recognising column names); reading files is
:mod:`fastrate.io.boards`'s and :mod:`fastrate.io.pbn`'s job.

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
import difflib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

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
    to_arrow_table,
)
from fastrate.data._board_scoring import BoardScores, score_boards
from fastrate.data._contract import MAX_POINTS, contract_points, vulnerability_codes
from fastrate.data._csr import group_of, offsets_from_counts
from fastrate.data.game_table import period_column
from fastrate.data.periods import bucket_periods, is_period_spec, parse_time, period_labels
from fastrate.data.players import PlayerIndex
from fastrate.errors import InputError

__all__ = ["Boards", "BOARD_COLUMNS", "ARTIFICIAL_CODES", "parse_artificial",
           "boards_from_table", "PlayerGraphs", "player_graphs", "to_input_order"]

#: artificial-result codes (NS's side): 0 real, 1 average-plus, 2 average, 3 average-minus
ARTIFICIAL_CODES = {"": 0, "0": 0, "A+": 1, "AVE+": 1, "AVG+": 1, "60": 1, "60%": 1,
                    "1": 1, "A": 2, "AVE": 2, "AVG": 2, "A=": 2, "50": 2, "50%": 2, "2": 2,
                    "A-": 3, "AVE-": 3, "AVG-": 3, "40": 3, "40%": 3, "3": 3}

_SEATS = ("north", "south", "east", "west")
#: largest direct table (slots) used instead of hashing integer ids
_DIRECT_MAX = 1 << 25
_NO_ARTIFICIAL = np.zeros(0, dtype=np.int64)


# ----------------------------------------------------------------------------------
# kernels


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
# columns


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
# building: one step per function (Boards.from_arrays runs them in order)


@dataclass
class _Input:
    """The columns given to :meth:`Boards.from_arrays`, each checked for length."""

    n: int
    src: Source
    board: Any
    event: Any
    seats: list[Any]
    ns_pair: Any
    ew_pair: Any
    artificial: np.ndarray | None  #: codes 0-3, None when every result is real
    vulnerable: np.ndarray | None  #: codes 0-3
    time: Any
    period: Any
    contract: Any
    declarer: Any
    tricks: Any

    @property
    def has_seats(self) -> bool:
        return self.seats[0] is not None


def _read_input(board: Any, ns_score: Any, columns: dict[str, Any], src: Source,
                anonymous: bool) -> tuple[_Input, Any]:
    """Step 1: every column has one value per result; players come as four seats or
    two pair labels (or neither, ``anonymous``); artificial and vulnerability codes are
    parsed. Returns the input and the ``ns_score`` column."""
    b = board if is_arrow_array(board) else as_1d(board, "board")
    n = len(b)
    if n == 0:
        raise InputError(f"no results: {src.name or 'the input'} has no rows" + (
            " (only a header)" if src.first_line > 1 else ""))

    def col(name: str) -> Any:
        return _column(ns_score if name == "ns_score" else columns.get(name), name, n, src)

    seats = [col(s) for s in _SEATS]
    given = [s is not None for s in seats]
    if any(given) and not all(given):
        missing = [s for s, g in zip(_SEATS, given) if not g]
        raise InputError(f"a pair needs both players: give all of north, south, east "
                         f"and west (missing: {', '.join(missing)})")
    ns_lab, ew_lab = col("ns_pair"), col("ew_pair")
    if (ns_lab is None) != (ew_lab is None):
        raise InputError("give both ns_pair and ew_pair, or neither")
    if not all(given) and ns_lab is None and not anonymous:
        raise InputError("no players: give north/south/east/west players, or ns_pair and "
                         "ew_pair labels")
    art = None
    if columns.get("artificial") is not None:
        art = parse_artificial(col("artificial"), src)
        if not art.any():
            art = None
    vul = None
    if columns.get("vulnerable") is not None:
        vul = vulnerability_codes(col("vulnerable"), src)
    inp = _Input(n, src, b, col("event"), seats, ns_lab, ew_lab, art, vul, col("time"),
                 columns.get("period"), col("contract"), col("declarer"), col("tricks"))
    return inp, col("ns_score")


def _ns_points(inp: _Input, ns_score: Any
               ) -> tuple[np.ndarray, _Chunks | None, np.ndarray | None]:
    """Step 2: NS points, given or from the contracts: ``(scores, integer chunks or
    None, tricks taken or None)``. Integer points without artificial results stay as
    chunks, written as float64 straight into stored order later. Real results must be
    finite and within the range of contract scores; artificial ones become NaN."""
    src = inp.src
    chunks = None
    taken = None
    sc = np.zeros(0)
    if ns_score is not None:
        chunks = _int_chunks(ns_score) if inp.artificial is None else None
        if chunks is None:
            sc = as_float64(ns_score, "ns_score", src, allow_nan=True)
    elif inp.contract is not None:
        number = as_1d(inp.board, "board") if inp.vulnerable is None else 1
        sc, taken = contract_points(inp.contract, inp.declarer, inp.tricks, number,
                                    inp.vulnerable, src)
    else:
        raise InputError("no scores: give ns_score, or contract and declarer")
    if chunks is None:
        art = inp.artificial
        bad = ~np.isfinite(sc) if art is None else (~np.isfinite(sc) & (art == 0))
        if bad.any():
            raise fail_at("ns_score", "must be a finite number of points for a real "
                          "result (mark averages with 'artificial')", sc,
                          int(np.argmax(bad)), src)
    if ns_score is not None:
        _check_score_range(sc if chunks is None else chunks, src)
    if inp.artificial is not None:
        sc = np.where(inp.artificial != 0, np.nan, sc)
    return sc, chunks, taken


@dataclass
class _Participants:
    """Step 3's result: players (ids per seat, or a direct table) and pair labels."""

    players: PlayerIndex | None = None
    seat_ids: list[np.ndarray] | _DirectSeats = field(default_factory=list)
    pairs: PlayerIndex | None = None
    pair_ids: list[np.ndarray] = field(default_factory=list)

    @property
    def width(self) -> int:
        """Participants per row that must differ on a board: 4 players, 2 pairs, 0."""
        return 4 if self.players is not None else (2 if self.pairs is not None else 0)


def _participants(inp: _Input, players: Any) -> _Participants:
    """Step 3: players interned (or integer ids into ``players``) and pair labels."""
    out = _Participants()
    src = inp.src
    if inp.has_seats:
        if players is not None:
            out.players = players if isinstance(players, PlayerIndex) else PlayerIndex(players)
            out.seat_ids = [_player_ids(s, name, len(out.players), src)
                            for s, name in zip(inp.seats, _SEATS)]
        else:
            out.players, out.seat_ids = _intern_seats(inp.seats, src)
    if inp.ns_pair is not None:
        out.pairs, out.pair_ids = PlayerIndex.intern(inp.ns_pair, inp.ew_pair,
                                                     names=("ns_pair", "ew_pair"), source=src)
    return out


def _player_ids(values: Any, name: str, n_players: int, src: Source) -> np.ndarray:
    """A seat column of integer ids into ``players=``."""
    v = as_1d(values, name)
    if v.dtype.kind not in "iu":
        raise InputError(f"column '{src.column(name)}' must hold integer ids into 'players' "
                         "when players= is given")
    bad = (v < 0) | (v >= n_players)
    if bad.any():
        raise fail_at(name, f"must be a player id in [0, {n_players - 1}]", v,
                      int(np.argmax(bad)), src)
    return require(v, np.int64)


class _Layout:
    """Where each result is stored: ``order`` (input row of each stored row),
    ``offsets`` (CSR, one group per board), ``first_row`` (input row of each board's
    first result) and the inverse of ``order``, made when needed."""

    def __init__(self, order: np.ndarray, offsets: np.ndarray, first_row: np.ndarray):
        self.order, self.offsets, self.first_row = order, offsets, first_row
        self._pos: np.ndarray | None = None

    @property
    def n_boards(self) -> int:
        return int(self.offsets.shape[0] - 1)

    def pos(self) -> np.ndarray:
        """The stored position of every input row."""
        if self._pos is None:
            self._pos = np.empty(self.order.shape[0], dtype=np.int64)
            _inverse_kernel(self.order, self._pos)
        return self._pos

    def reorder(self, idx: np.ndarray, offsets: np.ndarray) -> None:
        """Stored rows ``idx`` of the current order become the new order."""
        self.order = require(self.order[idx], np.int64)
        self.offsets = offsets
        self._pos = None

    def forget_pos(self) -> None:
        """Free the inverse of ``order`` (n int64) once no column needs it."""
        self._pos = None

    def take(self, a: np.ndarray | None) -> np.ndarray | None:
        """Per-input-row values in stored order."""
        return None if a is None else require(a[self.order], a.dtype)


class _BoardKey:
    """Which board each input row belongs to, as a dense key ``(event - emin) * brange +
    (board - bmin)`` read in chunks (``events`` empty: no events): straight from integer
    event and board columns when their ranges are small, else from dense codes of the
    labels. ``labels_at(rows)`` gives the board (and event) labels of input rows."""

    def __init__(self, inp: _Input):
        n, src = inp.n, inp.src
        ev = None if inp.event is None else _int_chunks(inp.event)
        bd = _int_chunks(inp.board)
        er = None if ev is None else ev.range()
        br = None if bd is None else bd.range()
        ne = 1 if er is None else er[1] - er[0] + 1
        nb = 0 if br is None else br[1] - br[0] + 1
        if bd is not None and (inp.event is None or ev is not None) and \
                ne * nb <= min(4 * n + 1024, _DIRECT_MAX) and \
                (ev is None or np.array_equal(ev.starts, bd.starts)):
            # integer events and boards: the key straight from the two columns, streamed
            self.boards, self.events = bd, ev
            self.emin = 0 if er is None else er[0]
            self.bmin, self.brange, self.n_keys = br[0], nb, ne * nb  # type: ignore[index]
            self.labels_at = self._chunk_labels
            return
        bcode, blabels = _codes(inp.board, "board", src)
        key = bcode
        ecode = elabels = None
        if inp.event is not None:
            ecode, elabels = _codes(inp.event, "event", src)
            key = ecode * np.int64(blabels.shape[0]) + bcode
            # groups are numbered by first appearance, so a sparse key will do
            if elabels.shape[0] * blabels.shape[0] > 4 * n + 1024:
                key = _codes(key, "board", src)[0]
        self.boards, self.events = _Chunks([key]), None
        self.emin, self.bmin, self.n_keys = 0, 0, int(key.max()) + 1
        self.brange = self.n_keys
        self._codes = (bcode, blabels, ecode, elabels)
        self.labels_at = self._code_labels

    def _chunk_labels(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        return self.boards.take(rows), None if self.events is None else self.events.take(rows)

    def _code_labels(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        bcode, blabels, ecode, elabels = self._codes
        return blabels[bcode[rows]], None if elabels is None else elabels[ecode[rows]]

    def parts(self):
        """(events chunk or empty, boards chunk, first input row) of every chunk."""
        none = np.zeros(0, dtype=self.boards.dtype)
        for c, part in enumerate(self.boards.parts):
            yield (none if self.events is None else self.events.parts[c], part,
                   np.int64(self.boards.starts[c]))


def _group_by_board(key: _BoardKey, n: int) -> _Layout:
    """Step 4: a stable counting sort of the rows by board, boards in order of first
    appearance (two passes over the chunks: count, then fill)."""
    emin, bmin, brange = np.int64(key.emin), np.int64(key.bmin), np.int64(key.brange)
    rank = np.full(key.n_keys, -1, dtype=np.int64)
    count = np.zeros(key.n_keys, dtype=np.int64)
    first_row = np.empty(min(key.n_keys, n), dtype=np.int64)
    g = 0
    for ev, bd, row0 in key.parts():
        g = _group_count_kernel(ev, bd, row0, emin, bmin, brange, rank, count, first_row, g)
    offsets = np.empty(g + 1, dtype=np.int64)
    _group_offsets_kernel(rank, count, g, offsets)
    fill = offsets[:g].copy()
    order = np.empty(n, dtype=np.int64)
    for ev, bd, row0 in key.parts():
        _group_fill_kernel(ev, bd, row0, emin, bmin, brange, rank, fill, order)
    return _Layout(order, offsets, first_row[:g].copy())


def _chronological(inp: _Input, lay: _Layout) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Step 5: each board's rating period (that of its earliest result) and boards in
    order of (period, earliest time, first appearance). Returns (times in stored order,
    board periods), either None when not given."""
    src, period = inp.src, inp.period
    length = labels = tm = t_ch = None
    if inp.time is not None:
        t_ch = _time_chunks(inp.time)
        if t_ch is None:
            tm = parse_time(inp.time, "time", src)
    if period is not None:
        if is_period_spec(period):
            if inp.time is None:
                raise InputError(f"period {period!r} is a length, which needs a time "
                                 "column; give time=..., or period labels per result")
            # periods are nondecreasing in time: the board's period is that of its
            # earliest result, bucketed once per board below
            length = period
        else:
            labels, _ = period_labels(_column(period, "period", inp.n, src), src)
    starts = lay.offsets[:-1]  # every group has a row
    sort_keys = [lay.first_row]
    tm_g = None
    if t_ch is not None:
        tm_g = t_ch[0].scatter(lay.pos(), np.empty(inp.n, dtype=np.int64),
                               t_ch[1]).view("datetime64[ns]")
    elif tm is not None:
        tm_g = tm[lay.order]
    board_period = None
    if tm_g is not None:
        tv = tm_g.view(np.int64) if tm_g.dtype.kind == "M" else tm_g
        first_t = np.minimum.reduceat(tv, starts)
        sort_keys.append(first_t)
        if length is not None:
            board_period = require(bucket_periods(
                first_t.view(tm_g.dtype) if tm_g.dtype.kind == "M" else first_t, length),
                np.int64)
    if labels is not None:
        board_period = require(np.minimum.reduceat(labels[lay.order], starts), np.int64)
    if board_period is not None:
        sort_keys.append(board_period)
    if len(sort_keys) > 1:
        border = np.lexsort(sort_keys)
        if (border != np.arange(lay.n_boards)).any():
            idx = _board_permutation(lay.offsets, border)
            lay.reorder(idx, offsets_from_counts(np.diff(lay.offsets)[border]))
            lay.first_row = lay.first_row[border]
            tm_g = None if tm_g is None else tm_g[idx]
            board_period = None if board_period is None else board_period[border]
    return tm_g, board_period


def _column(x: Any, name: str, n: int, src: Source) -> Any:
    """Column ``name`` (None when not given) with one value per result; Arrow arrays and
    lists are kept as they are (the readers below take them in place)."""
    if x is None:
        return None
    a = x if is_arrow_array(x) or isinstance(x, (list, tuple)) else as_1d(x, name)
    if len(a) != n:
        raise InputError(f"column '{src.column(name)}' must have one value per result "
                         f"({n}); got {len(a)}")
    return a


def _board_permutation(offsets: np.ndarray, border: np.ndarray) -> np.ndarray:
    """Stored rows of the boards taken in the order ``border``."""
    starts = offsets[:-1][border]
    counts = np.diff(offsets)[border]
    new = offsets_from_counts(counts)
    return np.repeat(starts - new[:-1], counts) + np.arange(new[-1], dtype=np.int64)


def _check_tables(inp: _Input, who: _Participants, lay: _Layout, seats: list[np.ndarray],
                  sc_g: np.ndarray, art_g: np.ndarray | None,
                  labels: tuple[np.ndarray, np.ndarray | None]) -> np.ndarray | None:
    """Step 6: a participant at most once per board. A row repeating an earlier row of
    its board exactly is a duplicate entry; returns the mask of rows kept (None: no
    duplicates). Any other participant seen twice on a board is an error naming both
    rows."""
    width = who.width
    if width == 0:
        return None
    if width == 4:
        cols, n_ids = seats, len(who.players)  # type: ignore[arg-type]
    else:
        cols = [require(a[lay.order], np.int64) for a in who.pair_ids] * 2
        n_ids = len(who.pairs)  # type: ignore[arg-type]
    keep = np.empty(inp.n, dtype=np.bool_)
    conflict = np.full(3, -1, dtype=np.int64)
    n_dup = _check_seats_kernel(lay.offsets, *cols, width, sc_g,
                                _NO_ARTIFICIAL if art_g is None else art_g, n_ids, keep,
                                conflict)
    if conflict[0] >= 0:
        raise _conflict(inp.src, who, lay, labels, conflict)
    return keep if n_dup else None


def _conflict(src: Source, who: _Participants, lay: _Layout,
              labels: tuple[np.ndarray, np.ndarray | None], conflict: np.ndarray
              ) -> InputError:
    """The error for participant ``p`` at stored rows ``r`` and ``q`` of one board."""
    r, q, p = (int(v) for v in conflict)
    b = int(np.searchsorted(lay.offsets, r, side="right") - 1)
    what = "player" if who.width == 4 else "pair"
    name = (who.players if who.width == 4 else who.pairs)[p]  # type: ignore[index]
    board_number, board_event = labels
    label = format_value(board_number[b])
    if board_event is not None:
        label = f"{label} of event {format_value(board_event[b])}"
    if r == q:
        return InputError(f"{what} {format_value(name)} sits twice at one table of board "
                          f"{label}, at {src.where(int(lay.order[r]))}; "
                          + ("the four seats need four different players"
                             if who.width == 4 else "ns_pair and ew_pair must differ"))
    return InputError(f"{what} {format_value(name)} plays twice on board {label}: at "
                      f"{src.where(int(lay.order[q]))} and {src.where(int(lay.order[r]))}; "
                      "each player sits at one table of a board")


def _tricks(inp: _Input, taken: np.ndarray | None, order: np.ndarray) -> np.ndarray | None:
    """Tricks declarer took, in stored order (-1 unknown): computed from the contracts,
    or the ``tricks`` column."""
    if inp.tricks is None:
        return None
    if taken is not None:
        return require(taken[order], np.int64)
    t_raw = as_float64(inp.tricks, "tricks", inp.src, allow_nan=True)
    bad = ~np.isnan(t_raw) & ((t_raw != np.round(t_raw)) | (t_raw < 0) | (t_raw > 13))
    if bad.any():
        raise fail_at("tricks", "must be the tricks declarer took (a whole number 0-13)",
                      t_raw, int(np.argmax(bad)), inp.src)
    return np.where(np.isnan(t_raw), -1, t_raw).astype(np.int64)[order]


def _text_column(values: Any, order: np.ndarray) -> np.ndarray | None:
    """A text column (contract, declarer) in stored order."""
    if values is None:
        return None
    a = values if isinstance(values, np.ndarray) else as_1d(values, "x")
    return require(a[order], a.dtype)


def _grouped_seats(ids: list[np.ndarray] | _DirectSeats, lay: _Layout) -> list[np.ndarray]:
    """The four seat id arrays in stored order."""
    if isinstance(ids, _DirectSeats):
        return ids.grouped(lay.pos())
    return [require(a[lay.order], np.int64) for a in ids]


def _drop_duplicates(keep: np.ndarray, lay: _Layout, src: Source,
                     arrays: list[np.ndarray | None]
                     ) -> tuple[tuple[str, int, str], list[np.ndarray | None]]:
    """Step 7: the rows of duplicate entries leave the layout and ``arrays`` (per stored
    row); returns the ``dropped`` entry and the arrays kept."""
    first = src.where(int(lay.order[int(np.argmax(~keep))]))
    kept = np.flatnonzero(keep)
    counts = np.bincount(group_of(lay.offsets)[kept], minlength=lay.n_boards)
    lay.reorder(kept, offsets_from_counts(counts))
    return (("duplicate table entry (same board, players and score)",
             int(keep.shape[0] - kept.shape[0]), first),
            [None if a is None else require(a[kept], a.dtype) for a in arrays])


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

        The steps, one function each: read and check the columns, NS points, intern the
        participants, group the rows by board (one counting sort), order the boards in
        time, check each board's participants (dropping exact duplicate entries), and
        store every column in board order.
        """
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        inp, ns_col = _read_input(board, ns_score, {
            "event": event, "north": north, "south": south, "east": east, "west": west,
            "ns_pair": ns_pair, "ew_pair": ew_pair, "time": time, "period": period,
            "artificial": artificial, "contract": contract, "declarer": declarer,
            "tricks": tricks, "vulnerable": vulnerable}, src, anonymous)
        sc, sc_chunks, taken = _ns_points(inp, ns_col)
        who = _participants(inp, players)
        key = _BoardKey(inp)
        lay = _group_by_board(key, inp.n)
        tm_g, board_period = _chronological(inp, lay)
        board_number, board_event = key.labels_at(lay.first_row)
        del key
        seats = _grouped_seats(who.seat_ids, lay) if who.players is not None else []
        sc_g = require(sc[lay.order], np.float64) if sc_chunks is None else \
            sc_chunks.scatter(lay.pos(), np.empty(inp.n, dtype=np.float64))
        lay.forget_pos()
        art_g = lay.take(inp.artificial)
        keep = _check_tables(inp, who, lay, seats, sc_g, art_g, (board_number, board_event))
        dropped: tuple[tuple[str, int, str], ...] = ()
        if keep is not None:
            entry, kept = _drop_duplicates(keep, lay, src, [*seats, tm_g, sc_g, art_g])
            dropped = (entry,)
            seats, (tm_g, sc_g, art_g) = kept[:len(seats)], kept[len(seats):]
        seat_arrays = dict(zip(_SEATS, seats or [None] * 4))
        pair_ids = [lay.take(a) for a in who.pair_ids] or [None, None]
        return cls(board_offsets=lay.offsets, ns_score=sc_g, order=lay.order,
                   board_number=board_number, board_event=board_event,
                   board_period=board_period, artificial=art_g, players=who.players,
                   **seat_arrays, pairs=who.pairs, ns_pair=pair_ids[0], ew_pair=pair_ids[1],
                   time=tm_g, contract=_text_column(inp.contract, lay.order),
                   declarer=_text_column(inp.declarer, lay.order),
                   tricks=_tricks(inp, taken, lay.order), source=src, dropped=dropped)

    @classmethod
    def from_table(cls, table: Any, *, period: Any = None, source: str | Source | None = None,
                   **columns: str | None) -> Boards:
        """Build boards from a table in memory (a pyarrow Table, or a pandas/polars
        DataFrame), recognising column names (case-insensitive; :data:`BOARD_COLUMNS`):
        ``board``, ``event``, ``north``/``south``/``east``/``west``,
        ``ns_pair``/``ew_pair``, ``ns_score`` (or ``contract`` + ``declarer`` [+
        ``tricks``] [+ ``vulnerable``]), ``time``, ``artificial``. ``period`` is a length
        (``"3d"``) or the name of a period column. Explicit ``board="col"``... mappings
        override. ``source`` names where the table came from, for messages (a
        :class:`~fastrate._validate.Source` from :func:`fastrate.io.tables.source_for`
        adds file line numbers)."""
        table = to_arrow_table(table)
        src = Source(source) if isinstance(source, str) else (source or NO_SOURCE)
        where = src.name or "the input"
        names = list(table.column_names)
        lower = {c.lower(): c for c in names}
        picked = _pick_columns(names, columns, where)
        src = dataclasses.replace(src, columns=tuple((a, c) for a, c in picked.items()
                                                     if a != c))
        label_column = period_column(period, names, lower)  # a column of period labels
        period_arg = period if label_column is None else table.column(label_column)
        args = {a: table.column(c) for a, c in picked.items()}
        try:
            return cls.from_arrays(period=period_arg, source=src, **args)
        except InputError as exc:
            if isinstance(period_arg, str) and str(exc).startswith("unknown period"):
                raise InputError(f"{exc}; or the name of a column of period labels (columns "
                                 f"of {where}: {', '.join(names)})") from None
            if isinstance(period_arg, str) and str(exc).startswith(f"period {period_arg!r} is"):
                raise InputError(f"{exc} (and {where} has no column {period_arg!r}; columns: "
                                 f"{', '.join(names)})") from None
            raise

    @classmethod
    def from_frame(cls, frame: Any, **columns: Any) -> Boards:
        """Build boards from a pandas/polars DataFrame or a pyarrow Table; columns are
        recognised as in :meth:`from_table` (pass ``board="col"`` ... to map them)."""
        return cls.from_table(frame, **columns)

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
        return group_of(self.board_offsets)

    def to_input_order(self, values: np.ndarray) -> np.ndarray:
        """Per-row values in stored order -> input-row order (dropped rows get NaN)."""
        return to_input_order(self.order, values)

    # -- scoring ------------------------------------------------------------------

    def score(self, method: str = "cross-imps", *, drop: str | int = "none",
              datum: str = "mean", style: str = "2/1/0") -> BoardScores:
        """Score every board with ``method`` (``cross-imps``, ``butler``,
        ``matchpoints``); a :class:`fastrate.bridge.scoring.BoardScores` in stored-row
        order. The arrays were validated when the boards were built, so they go straight
        to the kernels (as :func:`fastrate.bridge.scoring.cross_imps` does with a
        :class:`Boards`)."""
        return score_boards(self.board_offsets, self.ns_score, self.artificial, method,
                            drop=drop, datum=datum, style=style)

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


    def _graphs(self, what: str) -> PlayerGraphs:
        if self.players is None:
            raise InputError(f"{what} need players (north/south/east/west), not only pair "
                             "labels")
        return player_graphs(self.board_offsets, len(self.players), self.north,  # type: ignore[arg-type]
                             self.south, self.east, self.west)  # type: ignore[arg-type]

    def components(self) -> np.ndarray:
        """Connected component of every player in the graph that joins all players of
        each board (results on a board are compared with each other): ratings of players
        in different components are on unrelated scales. Ids 0.. in order of the
        smallest player id."""
        return self._graphs("components").component

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
        g = self._graphs("partnership components")
        return g.partnership, g.identifiable


def to_input_order(order: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Values of stored rows (``order``: the input row of each) in input-row order; input
    rows that were not stored (dropped duplicates) get NaN, or 0 for other dtypes."""
    n_in = int(order.max()) + 1 if order.shape[0] else 0
    out = np.full(n_in, np.nan) if values.dtype.kind == "f" else np.zeros(
        n_in, dtype=values.dtype)
    out[order] = values
    return out


# ----------------------------------------------------------------------------------
# the two graphs of the players: one union-find pass



# union-find records: one row of four int64 per player (32 bytes, so one cache miss
# reaches both graphs' entries of a player)
_UP = 0  #: parent in the board graph (-1: not seen)
_PUP = 1  #: parent in the partnership graph
_SIDE = 2  #: side (0/1) relative to the partnership parent; at a root: its odd flag


@inline_kernel
def _root(uf, x):
    """Root of ``x`` in the board graph (path halving)."""
    while uf[x, _UP] != x:
        uf[x, _UP] = uf[uf[x, _UP], _UP]
        x = uf[x, _UP]
    return x


@inline_kernel
def _root_side(uf, x):
    """Root of ``x`` in the partnership graph and x's side (0/1) relative to it (path
    halving, carrying the sides along; a root's side slot holds its odd flag)."""
    s = 0
    while True:
        u = uf[x, _PUP]
        if u == x:
            return x, s
        top = uf[u, _PUP]
        if top == u:
            return u, s ^ uf[x, _SIDE]
        s2 = uf[x, _SIDE] ^ uf[u, _SIDE]
        uf[x, _SIDE] = s2
        uf[x, _PUP] = top
        s ^= s2
        x = top


@inline_kernel
def _join_partners(uf, x, y):
    """Partners ``x`` and ``y`` sit on opposite sides: union them (the larger root
    under the smaller), or flag an odd cycle when they are already on the same side of
    one component. A partnership seen before usually still has one partner as the
    other's parent: nothing more to read. A unit rated alone (``x == y``) is no
    partnership."""
    if x == y:
        return
    if (uf[y, _PUP] == x and uf[y, _SIDE] == 1) or (uf[x, _PUP] == y and uf[x, _SIDE] == 1):
        return
    rx, sx = _root_side(uf, x)
    ry, sy = _root_side(uf, y)
    if rx == ry:
        if sx == sy:
            uf[rx, _SIDE] = 1
        return
    if ry < rx:
        rx, ry = ry, rx
    if uf[ry, _SIDE] != 0:
        uf[rx, _SIDE] = 1
    uf[ry, _PUP] = rx
    uf[ry, _SIDE] = sx ^ sy ^ 1


@kernel
def _components_kernel(offsets, north, south, east, west, uf, out):  # pragma: no cover - jit
    """Components of the board graph (players joined by playing one board; ``out[0]``)
    and of the partnership graph (``out[1]``; ``out[2]``: those without an odd cycle),
    over the players who appear. ``uf``: (n_players, 4) int64 scratch, column ``_UP``
    -1. Union-find with path halving; once the players seen so far form one board
    component, a row of known players is skipped after four reads, and a partnership
    seen before usually costs no more."""
    n_comp = 0
    for g in range(offsets.shape[0] - 1):
        lo = offsets[g]
        root = -1
        for r in range(lo, offsets[g + 1]):
            fresh = False
            for j in range(4):
                q = north[r] if j == 0 else (south[r] if j == 1 else (
                    east[r] if j == 2 else west[r]))
                if uf[q, _UP] < 0:
                    uf[q, _UP] = q
                    uf[q, _PUP] = q
                    uf[q, _SIDE] = 0
                    n_comp += 1
                    fresh = True
            if fresh or n_comp > 1:
                if root < 0:
                    root = _root(uf, north[lo])
                for j in range(4):
                    q = north[r] if j == 0 else (south[r] if j == 1 else (
                        east[r] if j == 2 else west[r]))
                    rq = _root(uf, q)
                    if rq < root:
                        uf[root, _UP] = rq
                        root = rq
                        n_comp -= 1
                    elif rq > root:
                        uf[rq, _UP] = root
                        n_comp -= 1
            _join_partners(uf, north[r], south[r])
            _join_partners(uf, east[r], west[r])
    n_part = 0
    n_bip = 0
    for x in range(uf.shape[0]):
        if uf[x, _UP] >= 0 and uf[x, _PUP] == x:
            n_part += 1
            if uf[x, _SIDE] == 0:
                n_bip += 1
    out[0] = n_comp
    out[1] = n_part
    out[2] = n_bip


@kernel
def _labels_kernel(uf, partnership, label, out, odd):  # pragma: no cover - jit
    """Component ids of every unit (in order of the smallest id; a unit that never
    played is a component of its own) in the board graph, or with ``partnership`` in
    the partnership graph, where ``odd[c]`` tells whether component ``c`` has an odd
    cycle. ``label``: -1 scratch. Returns the number of components."""
    k = 0
    for x in range(uf.shape[0]):
        if uf[x, _UP] < 0:
            out[x] = k
            k += 1
            continue
        r = _root_side(uf, x)[0] if partnership else _root(uf, x)
        if label[r] < 0:
            label[r] = k
            if partnership:
                odd[k] = uf[r, _SIDE] != 0
            k += 1
        out[x] = label[r]
    return k


class PlayerGraphs(NamedTuple):
    """The two graphs of :func:`player_graphs`: component ids per unit and counts over
    the units that played."""

    #: component of every unit in the board graph (units joined by playing one board)
    component: np.ndarray
    #: component of every unit in the partnership graph (units joined by partnering)
    partnership: np.ndarray
    #: per partnership component: whether it has an odd cycle (individual ratings
    #: identifiable)
    identifiable: np.ndarray
    #: board-graph components among the units that played
    n_components: int
    #: partnership-graph components among the units that played
    n_partnership_components: int
    #: those without an odd cycle
    n_nonidentifiable: int


def player_graphs(offsets: np.ndarray, n_units: int, north: np.ndarray, south: np.ndarray,
                  east: np.ndarray, west: np.ndarray) -> PlayerGraphs:
    """The board graph (all units of a board joined: ratings in different components
    are on unrelated scales) and the partnership graph (partners joined: a component
    without an odd cycle leaves its individual ratings one degree of freedom) of
    ``n_units`` players or pairs seated by the four int64 seat arrays (CSR rows of
    ``offsets``), by one O(rows) union-find pass. A pair rated as one unit sits in both
    seats of its side (``north == south``), which joins no partnership."""
    uf = np.full((n_units, 4), -1, dtype=np.int64)
    counts = np.zeros(3, dtype=np.int64)
    _components_kernel(offsets, north, south, east, west, uf, counts)
    label = np.full(n_units, -1, dtype=np.int64)
    component = np.empty(n_units, dtype=np.int64)
    _labels_kernel(uf, False, label, component, np.zeros(0, dtype=np.bool_))
    label[:] = -1
    partnership = np.empty(n_units, dtype=np.int64)
    odd = np.zeros(n_units, dtype=np.bool_)
    k = _labels_kernel(uf, True, label, partnership, odd)
    return PlayerGraphs(component, partnership, odd[:k].copy(), int(counts[0]),
                        int(counts[1]), int(counts[2]))


# ----------------------------------------------------------------------------------
# tables in memory

#: argument -> recognised column names (lower case), in order of preference
BOARD_COLUMNS: dict[str, tuple[str, ...]] = {
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


def _pick_columns(names: list[str], columns: dict[str, str | None], where: str
                  ) -> dict[str, str]:
    """Argument -> column of the table: explicit ``columns`` first, then the
    recognised names of :data:`BOARD_COLUMNS`; checks that a board, the scores and
    whole pairs are there."""
    lower = {c.lower(): c for c in names}
    unknown = set(columns) - set(BOARD_COLUMNS)
    if unknown:
        raise InputError(f"unknown column option(s) {', '.join(sorted(unknown))}; use "
                         f"{', '.join(BOARD_COLUMNS)}")
    picked: dict[str, str] = {}
    for arg, options in BOARD_COLUMNS.items():
        want = columns.get(arg)
        if want is not None:
            if want not in names:
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
    _check_picked(picked, columns, names, where)
    return picked


def _check_picked(picked: dict[str, str], columns: dict[str, str | None], names: list[str],
                  where: str) -> None:
    """A board, NS points (or contracts) and whole pairs; a bare ``score`` next to a
    contract is recomputed, and contract columns beside NS points are left out."""
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
            if columns.get(k) is None:
                picked.pop(k, None)
    seats_found = [s for s in _SEATS if s in picked]
    if 0 < len(seats_found) < 4 and "ns_pair" not in picked:
        missing = [s for s in _SEATS if s not in picked]
        raise InputError(f"a pair needs both players: no column for {', '.join(missing)} in "
                         f"{where} (columns: {', '.join(names)})")
    if len(seats_found) < 4:
        for s in seats_found:
            del picked[s]


def boards_from_table(table: Any, *, period: Any = None, source: str | Source | None = None,
                      **columns: str | None) -> Boards:
    """:meth:`Boards.from_table`: boards from a table in memory, recognising column
    names (see :data:`BOARD_COLUMNS`)."""
    return Boards.from_table(table, period=period, source=source, **columns)
