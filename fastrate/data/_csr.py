"""Shared grouping helpers for the containers' CSR (compressed sparse row) arrays.

A CSR groups the rows of a flat array: group ``g`` owns ``values[offsets[g]:offsets[g+1]]``,
and ``offsets`` (groups + 1, int64, starting at 0) is all a kernel needs to walk the groups.
These helpers build offsets and dense group ids with NumPy (and pyarrow's hash encoding),
once, when a container is built. (The placement kernels keep their own in-kernel counting
sort, ``fastrate.stats.placement.affiliates._csr_offsets``, which is inlined into Numba loops.)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    arrow_to_numpy,
    as_1d,
    format_value,
    is_arrow_array,
    require,
    single_chunk,
)
from fastrate.errors import InputError

__all__ = ["run_starts", "offsets_from_counts", "group_of", "first_rows", "factorize",
           "refuse_empty", "pair_offsets", "pair_members"]


def run_starts(keys: np.ndarray) -> np.ndarray:
    """Start index of every run of equal values of ``keys``, plus ``len(keys)`` at the end:
    the offsets of the groups of a sorted (or grouped) key array. int64."""
    n = keys.shape[0]
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    cut = np.flatnonzero(keys[1:] != keys[:-1]) + 1
    return np.concatenate(([0], cut, [n])).astype(np.int64)


def offsets_from_counts(counts: np.ndarray) -> np.ndarray:
    """Offsets (``len(counts) + 1``, int64, starting at 0) of groups of the given sizes."""
    out = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=out[1:])
    return out


def group_of(offsets: np.ndarray) -> np.ndarray:
    """The group of every element of a CSR (the inverse of :func:`offsets_from_counts`):
    ``group_of([0, 2, 3]) == [0, 0, 1]``. int64."""
    groups = offsets.shape[0] - 1
    return require(np.repeat(np.arange(groups, dtype=np.int64), np.diff(offsets)), np.int64)


def pair_offsets(offsets: np.ndarray) -> np.ndarray:
    """Offsets (groups + 1, int64) of the unordered pairs of every group's elements: a
    group of ``T`` owns ``T (T - 1) / 2`` pairs, enumerated ``(0, 1), (0, 2) .. (0, T-1),
    (1, 2) ..`` (see :func:`pair_members`).

    >>> pair_offsets(np.array([0, 2, 5, 9])).tolist()
    [0, 1, 4, 10]
    """
    t = np.diff(offsets)
    return offsets_from_counts(t * (t - 1) // 2)


def pair_members(offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two elements (global indices, first < second) of every pair of
    :func:`pair_offsets`, in its order.

    >>> [a.tolist() for a in pair_members(np.array([0, 2, 5]))]
    [[0, 2, 2, 3], [1, 3, 4, 4]]
    """
    n = int(offsets[-1])
    grp = group_of(offsets)
    local = np.arange(n, dtype=np.int64) - offsets[grp]
    count = np.diff(offsets)[grp] - 1 - local  # pairs that start at each element
    first = np.repeat(np.arange(n, dtype=np.int64), count)
    starts = offsets_from_counts(count)
    k = np.arange(first.shape[0], dtype=np.int64) - np.repeat(starts[:-1], count)
    return require(first, np.int64), require(first + 1 + k, np.int64)


def first_rows(ids: np.ndarray) -> np.ndarray:
    """The first row of every group, for ids numbered in order of first appearance (as
    :func:`factorize` gives them): the rows where an id exceeds every id before it."""
    if ids.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    top = np.maximum.accumulate(ids)
    new = np.empty(ids.shape[0], dtype=np.bool_)
    new[0] = True
    new[1:] = top[1:] > top[:-1]
    return require(np.flatnonzero(new), np.int64)


def factorize(x: Any, column: str, source: Source = NO_SOURCE) -> tuple[np.ndarray, np.ndarray]:
    """Dense int64 ids of the values of a key column, numbered in order of first
    appearance, and the distinct values (``labels[ids] == values``).

    ``x``: NumPy arrays, lists, pandas/polars series or Arrow arrays. Missing keys (None,
    NaN, Arrow nulls) and empty strings are errors that name the column and row; a mix
    of numbers and strings is compared as strings.
    """
    if is_arrow_array(x):
        return _factorize_arrow(x, column, source)
    arr = as_1d(x, column)
    if arr.dtype.kind == "U":
        arr = arr.astype(object)
    if arr.dtype.kind == "f":
        missing = np.isnan(arr)
    elif arr.dtype.kind == "O":
        missing = np.fromiter((v is None or (isinstance(v, float) and math.isnan(v))
                               for v in arr.tolist()), dtype=np.bool_, count=arr.shape[0])
    else:
        missing = None
    if missing is not None and missing.any():
        raise _missing_key(column, int(np.argmax(missing)), source)
    try:
        labels, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    except TypeError:  # e.g. ints and strings: compare them as strings
        arr = np.array([str(v) for v in arr.tolist()], dtype=object)
        labels, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    perm = np.argsort(first, kind="stable")
    position = np.empty(perm.shape[0], dtype=np.int64)
    position[perm] = np.arange(perm.shape[0], dtype=np.int64)
    ids = require(position[inverse.reshape(-1)], np.int64)
    return ids, refuse_empty(labels[perm], ids, column, source)


def _factorize_arrow(x: Any, column: str, source: Source) -> tuple[np.ndarray, np.ndarray]:
    import pyarrow as pa
    import pyarrow.compute as pc

    a = single_chunk(x)
    if pa.types.is_dictionary(a.type):
        a = a.dictionary_decode()
    if a.null_count:
        raise _missing_key(column, int(np.argmax(arrow_to_numpy(a.is_null()))), source)
    if pa.types.is_floating(a.type):
        nan = arrow_to_numpy(a) != arrow_to_numpy(a)
        if nan.any():
            raise _missing_key(column, int(np.argmax(nan)), source)
    enc = pc.dictionary_encode(a)
    ids = require(arrow_to_numpy(enc.indices), np.int64)
    return ids, refuse_empty(np.array(arrow_to_numpy(enc.dictionary)), ids, column, source)


def refuse_empty(labels: np.ndarray, ids: np.ndarray, column: str,
                  source: Source) -> np.ndarray:
    if labels.dtype.kind in "OU":
        empty = np.flatnonzero(labels == "")
        if empty.shape[0]:
            row = int(np.argmax(ids == empty[0]))
            raise InputError(f"column '{source.column(column)}' must not be empty; found "
                             f"{format_value('')} at {source.where(row)}; drop or fill those "
                             "rows")
    return labels


def _missing_key(column: str, row: int, source: Source) -> InputError:
    return InputError(f"column '{source.column(column)}' must not be missing; found a missing "
                      f"value at {source.where(row)}; drop or fill those rows")
