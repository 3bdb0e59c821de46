"""Player names <-> dense integer ids: :class:`PlayerIndex` and its interner."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

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
from fastrate.errors import InputError, InputTypeError

__all__ = ["PlayerIndex"]


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
        elif is_arrow_array(x) and pa.types.is_integer(x.type) and x.null_count == 0:
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
