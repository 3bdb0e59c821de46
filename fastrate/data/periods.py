"""Times and rating periods: parsing time columns, bucketing times into periods, and
explicit period labels."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from fastrate._validate import (
    NO_SOURCE,
    Source,
    arrow_to_numpy,
    as_1d,
    as_float64,
    fail_at,
    require,
)
from fastrate.data._csr import run_starts
from fastrate.errors import InputError

__all__ = ["parse_time", "bucket_periods", "is_period_spec", "period_labels", "period_starts",
           "PERIOD_ORIGIN", "TIME_RANGE", "civil_days", "has_utc_offset"]


_FIXED = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|min|h|d|w)\s*$")
_CALENDAR = re.compile(r"^\s*(\d*)\s*(mo|month|y|year)s?\s*$")
_UNIT_NS = {"s": 10**9, "min": 60 * 10**9, "h": 3600 * 10**9, "d": 86400 * 10**9,
            "w": 7 * 86400 * 10**9}
#: fixed-length periods are counted from Monday 1970-01-05 so that weeks start on Monday
PERIOD_ORIGIN = np.datetime64("1970-01-05T00:00:00", "ns")


#: the times fastrate holds, as datetime64[ns]: whole days from 1677-09-23 to 2262-04-10
#: (NumPy's ns -> day conversion is wrong on the first day that datetime64[ns] holds);
#: times outside are refused, never wrapped around
_LO_NS = -106750 * 86400 * 10**9
_HI_NS = 106751 * 86400 * 10**9 - 1
TIME_RANGE = (np.datetime64(_LO_NS, "ns").astype("datetime64[D]"),
              np.datetime64(_HI_NS, "ns").astype("datetime64[D]"))
#: nanoseconds per unit of a datetime64 that converts exactly (coarser than ns)
_NS_PER_UNIT = {"W": 7 * 86400 * 10**9, "D": 86400 * 10**9, "h": 3600 * 10**9,
                "m": 60 * 10**9, "s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}
#: the ISO 8601 forms of a time string: a date (YYYY-MM-DD or YYYYMMDD), optionally a
#: time of day (T or a space, HH[:MM[:SS[.fraction]]]) and a UTC offset (Z, +HH, +HH:MM)
_ISO_TIME = (r"^\s*(?:(?P<y>[0-9]{4})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})"
             r"|(?P<yb>[0-9]{4})(?P<mob>[0-9]{2})(?P<db>[0-9]{2}))"
             r"(?:[Tt ](?P<h>[0-9]{2})(?::(?P<mi>[0-9]{2})"
             r"(?::(?P<s>[0-9]{2})(?:[.,](?P<f>[0-9]{1,9}))?)?)?"
             r" ?(?P<z>[Zz]|(?P<zs>[+-])(?P<zh>[0-9]{2})(?::?(?P<zm>[0-9]{2}))?)?)?\s*$")
_NOT_A_TIME = "must be a date or time (ISO 8601, e.g. 2024-05-31)"
#: a UTC offset after the time of day at the end of a time string
_OFFSET = re.compile(r"\d:\d\d(?::\d\d(?:[.,]\d+)?)? ?(?:[Zz]|[+-]\d\d(?::?\d\d)?)\s*$")
_RANGE_TEXT = (f"a time from {TIME_RANGE[0]} to {TIME_RANGE[1]} (what datetime64[ns] "
               "holds)")
_RANGE_FIX = ("give such times as numbers (e.g. a year or a day count) or rate by period "
              "labels")


def parse_time(x: Any, column: str = "time", source: Source = NO_SOURCE) -> np.ndarray:
    """Return times as ``datetime64[ns]`` (dates, timestamps, ISO 8601 strings) or
    ``float64`` (numbers).

    Times are read exactly or refused, naming the row: strings must be an ISO 8601 date
    (``2024-05-31`` or ``20240531``), optionally with a time of day (``T14:30``,
    ``T14:30:00.5``; a space instead of ``T`` works) and a UTC offset (``Z``, ``+02``,
    ``+02:00``), each row in its own form, naming a possible date; times with an offset
    are converted to UTC, and a column that mixes times with and without an offset is
    refused; times outside :data:`TIME_RANGE` (1677-09-23 .. 2262-04-10) are refused
    rather than wrapped around.
    """
    out = _arrow_text_to_ns(x, column, source)
    if out is not None:
        return require(out, "datetime64[ns]")
    arr = as_1d(x, column)
    kind = arr.dtype.kind
    if kind in "iuf":
        return as_float64(arr, column, source)
    if kind == "M":
        out = _datetime_to_ns(arr, column, source)
    elif kind in "OUS":
        out = _objects_to_ns(arr, column, source)
    else:
        raise fail_at(column, _NOT_A_TIME, arr, 0, source)
    return require(out, "datetime64[ns]")


def _datetime_to_ns(arr: np.ndarray, column: str, source: Source) -> np.ndarray:
    """datetime64 of any unit -> datetime64[ns], refusing NaT and times out of range."""
    nat = np.isnat(arr)
    if nat.any():
        raise fail_at(column, "must be a date or time, not missing", arr,
                      int(np.argmax(nat)), source)
    unit, count = np.datetime_data(arr.dtype)
    if unit in ("Y", "M", "generic"):
        arr = arr.astype("datetime64[D]")
        unit, count = "D", 1
    per = _NS_PER_UNIT.get(unit)
    if per is None or arr.shape[0] == 0:  # finer than ns: converting only divides
        return arr.astype("datetime64[ns]")
    v = arr.view(np.int64)
    per *= count
    bad = (v > _HI_NS // per) | (v < -(-_LO_NS // per))
    if bad.any():
        raise fail_at(column, f"must be {_RANGE_TEXT}", arr, int(np.argmax(bad)), source,
                      _RANGE_FIX)
    return arr.astype("datetime64[ns]")


def _objects_to_ns(arr: np.ndarray, column: str, source: Source) -> np.ndarray:
    """Strings (and date/datetime objects, read through their ISO form) -> datetime64[ns]."""
    values = arr.tolist()
    text: list[Any] = values
    if arr.dtype.kind == "S" or not all(type(v) is str for v in values):
        text = []
        for i, v in enumerate(values):
            if isinstance(v, bytes):
                v = v.decode("utf-8", errors="replace")
            elif v is None or (isinstance(v, float) and v != v):
                raise fail_at(column, "must be a date or time, not missing", arr, i, source)
            elif isinstance(v, np.datetime64):
                if np.isnat(v):
                    raise fail_at(column, "must be a date or time, not missing", arr, i, source)
                v = np.datetime_as_string(v)
            elif hasattr(v, "isoformat") and not isinstance(v, str):
                v = v.isoformat()
            if not isinstance(v, str):
                raise fail_at(column, _NOT_A_TIME, arr, i, source)
            text.append(v)
    import pyarrow as pa

    return _iso_to_ns(pa.array(text, type=pa.string()), column, source)


class _Texts:
    """The values of an Arrow text array, fetched one at a time (for error messages)."""

    def __init__(self, strings: Any):
        self.strings = strings

    def __getitem__(self, i: int) -> Any:
        return self.strings[int(i)].as_py()


def _arrow_text_to_ns(x: Any, column: str, source: Source) -> np.ndarray | None:
    """An Arrow text column -> datetime64[ns] without a round trip through Python
    strings; None when ``x`` is not Arrow text."""
    import pyarrow as pa

    from fastrate._validate import is_arrow_array, single_chunk

    if not is_arrow_array(x) or not (pa.types.is_string(x.type)
                                     or pa.types.is_large_string(x.type)):
        return None
    strings = single_chunk(x)
    if strings.null_count:
        i = int(np.argmax(np.asarray(strings.is_null().to_numpy(zero_copy_only=False))))
        raise fail_at(column, "must be a date or time, not missing", {i: None}, i, source)
    return _iso_to_ns(strings, column, source)


def has_utc_offset(text: str) -> bool:
    """Whether an ISO 8601 time string ends in a UTC offset (``Z``, ``+02``, ``+02:00``)."""
    return _OFFSET.search(text) is not None


def _iso_to_ns(strings: Any, column: str, source: Source) -> np.ndarray:
    """ISO 8601 strings (an Arrow text array without nulls) -> datetime64[ns], each
    distinct string parsed once (Arrow's regular expressions), exactly: a string of
    another form, an impossible date, a mix of times with and without a UTC offset, or a
    time out of range is refused."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(strings)
    if n == 0:
        return np.empty(0, dtype="datetime64[ns]")
    text = _Texts(strings)
    # the common cases at C speed: Arrow's strict ISO 8601 parser, for times without a
    # UTC offset, then for times that all have one (to UTC)
    units = [pa.timestamp("ns"), pa.timestamp("ns", tz="UTC")]
    if _OFFSET.search(text[0]):  # try the likely one first: a failing cast is slow
        units.reverse()
    for unit in units:
        try:
            fast = arrow_to_numpy(pc.cast(strings, unit))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            continue
        v = fast.view(np.int64)
        if v.min() >= _LO_NS and v.max() <= _HI_NS:
            return fast.astype("datetime64[ns]", copy=False)
        break
    enc = pc.dictionary_encode(strings)
    rows = np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    parts = pc.extract_regex(enc.dictionary, _ISO_TIME)

    def first_row(bad_distinct: np.ndarray) -> int:
        return int(np.argmax(bad_distinct[rows]))

    matched = np.asarray(parts.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    if not matched.all():
        raise fail_at(column, _NOT_A_TIME, text, first_row(~matched), source)
    def field(name: str):
        return parts.field(name)

    def number(*names: str, pad: int = 0) -> np.ndarray:
        """The first non-empty group of ``names`` as int64 (0 when none is present)."""
        v = field(names[0])
        for other in names[1:]:
            v = pc.if_else(pc.equal(v, ""), field(other), v)
        if pad:
            v = pc.utf8_rpad(v, pad, "0")
        v = pc.if_else(pc.equal(v, ""), "0", v)
        return np.asarray(pc.cast(v, pa.int64()).to_numpy(zero_copy_only=False),
                          dtype=np.int64)

    y, mo, d = number("y", "yb"), number("mo", "mob"), number("d", "db")
    h, mi, s = number("h"), number("mi"), number("s")
    frac = number("f", pad=9)
    zh, zm = number("zh"), number("zm")
    aware = np.asarray(pc.not_equal(field("z"), "").to_numpy(zero_copy_only=False), dtype=bool)
    sign = np.where(np.asarray(pc.equal(field("zs"), "-").to_numpy(zero_copy_only=False),
                               dtype=bool), -1, 1).astype(np.int64)
    leap = (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0))
    mm = np.clip(mo, 0, 12)
    bad = ((mo < 1) | (mo > 12) | (d < 1) | (d > _DAYS_IN_MONTH[mm] + ((mm == 2) & leap))
           | (h > 23) | (mi > 59) | (s > 59) | (zh > 23) | (zm > 59))
    if bad.any():
        raise fail_at(column, _NOT_A_TIME, text, first_row(bad), source)
    used_aware = aware[rows]
    if used_aware.any() and not used_aware.all():
        i, j = int(np.argmax(used_aware)), int(np.argmax(~used_aware))
        first, second = (i, j) if i < j else (j, i)
        raise InputError(
            f"column '{source.column(column)}' must not mix times with and without a UTC "
            f"offset; found {text[first]!r} at {source.where(first)} but {text[second]!r} "
            f"at {source.where(second)}; give every time an offset (Z, +02:00) or none")
    seconds = (civil_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + s
               - sign * (zh * 3600 + zm * 60))
    out_of_range = (seconds > _HI_NS // 10**9) | (seconds < _LO_NS // 10**9)
    if out_of_range.any():
        raise fail_at(column, f"must be {_RANGE_TEXT}", text, first_row(out_of_range), source,
                      _RANGE_FIX)
    ns = seconds * 10**9 + frac
    return ns[rows].view("datetime64[ns]")


_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


def civil_days(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Days from 1970-01-01 of the proleptic Gregorian dates (y, m, d) (int64 arrays,
    valid dates), by plain integer arithmetic (H. Hinnant's ``days_from_civil``)."""
    y = y - (m <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * ((m + 9) % 12) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


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
