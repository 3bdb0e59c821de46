"""Times and rating periods: parsing time columns, bucketing times into periods, and
explicit period labels."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from fastrate._validate import NO_SOURCE, Source, as_1d, as_float64, fail_at, require
from fastrate.data._csr import run_starts
from fastrate.errors import InputError

__all__ = ["parse_time", "bucket_periods", "is_period_spec", "period_labels", "period_starts",
           "PERIOD_ORIGIN"]


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


def is_period_spec(period: Any) -> bool:
    """Whether ``period`` is a period length for :func:`bucket_periods` (``"1w"``, 7.0), as
    opposed to a column of period labels."""
    return isinstance(period, (str, int, float)) and not isinstance(period, bool)


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


def period_labels(x: Any, source: Source) -> tuple[np.ndarray, np.ndarray | None]:
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


def period_starts(period: np.ndarray) -> np.ndarray:
    """Start index of every run of equal period numbers, plus ``len(period)`` at the end.

    ``period`` must be nondecreasing (as :class:`fastrate.Games` guarantees).
    """
    return run_starts(period)
