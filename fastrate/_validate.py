"""Every input check and dtype/contiguity conversion, run once at the API boundary.

Kernels never validate: by the time an array reaches one it is 1-D, C-contiguous,
writable, of the exact dtype, and its values are known to be in range.

Error messages follow one template (what, requirement, found, where, fix), e.g.
``column 'score' must be in [0, 1]; found 2.0 at row 1734 (line 1735 of games.csv)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fastrate.errors import ConfigError, InputError, InputTypeError


@dataclass(frozen=True)
class Source:
    """Where rows came from, so an error can name the file line as well as the row."""

    name: str | None = None
    #: file line of data row 1 (2 for a CSV with one header line); 0 when not a text file
    first_line: int = 0
    #: (argument, file column) pairs, so errors name the file's column ('result', not 'score')
    columns: tuple[tuple[str, str], ...] = ()
    #: original row of each kept row, when rows were dropped before building (else None)
    rows: Any = field(default=None, compare=False)
    #: rows of the file before these (a chunk of a file read chunk by chunk)
    row_offset: int = 0

    def column(self, name: str) -> str:
        """The name to show for the column passed as argument ``name``."""
        for arg, col in self.columns:
            if arg == name:
                return col
        return name

    def where(self, index: int) -> str:
        """Describe 0-based data row ``index`` as ``row N (line L of FILE)``."""
        if self.rows is not None:
            index = int(self.rows[index])
        index += self.row_offset
        text = f"row {index + 1}"
        if self.name is not None:
            if self.first_line > 0:
                text += f" (line {index + self.first_line} of {self.name})"
            else:
                text += f" of {self.name}"
        return text


NO_SOURCE = Source()


def require(x: np.ndarray, dtype: Any) -> np.ndarray:
    """Return ``x`` as a 1-D C-contiguous, aligned, writable array of ``dtype``.

    Arrow and polars hand out read-only buffers; a read-only array would make Numba
    compile a second specialisation of every kernel, so those are copied here.
    """
    return np.require(x, dtype, ["C", "A", "W"])


def format_value(value: Any) -> str:
    if isinstance(value, np.datetime64):
        # .item() of a datetime64[ns] is a bare integer; show the date instead
        return "NaT" if np.isnat(value) else np.datetime_as_string(value, unit="auto")
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    if isinstance(value, (np.integer,)):
        return str(int(value))
    return repr(value.item() if isinstance(value, np.generic) else value)


def fail_at(column: str, requirement: str, values: np.ndarray | list, index: int,
            source: Source = NO_SOURCE, fix: str = "") -> InputError:
    """Build the standard error for the first bad value of a column."""
    msg = (f"column '{source.column(column)}' {requirement}; found {format_value(values[index])} at "
           f"{source.where(index)}")
    if fix:
        msg += f"; {fix}"
    return InputError(msg)


# ----------------------------------------------------------------------------------
# Arrow <-> NumPy without pandas
#
# pyarrow's own conversions (``Array.to_numpy``, ``pa.array(ndarray)``) import pandas
# whenever it is installed, which costs ~0.3 s on every cold start. The columns fastrate
# moves across (numbers, booleans, times, strings) are converted here from and to the
# Arrow buffers directly; anything else falls back to pyarrow's conversion.

#: pyarrow's names of the float types (integer types are named as in NumPy)
_ARROW_FLOATS = {"halffloat": "float16", "float": "float32", "double": "float64"}


def is_arrow_array(x: Any) -> bool:
    return type(x).__module__.startswith("pyarrow") and hasattr(x, "null_count") and (
        hasattr(x, "buffers") or hasattr(x, "chunks"))


def single_chunk(x: Any):
    import pyarrow as pa

    if isinstance(x, pa.ChunkedArray):
        if x.num_chunks == 1:
            return x.chunk(0)
        return x.combine_chunks() if x.num_chunks else pa.array([], x.type)
    return x


def arrow_to_numpy(x: Any) -> np.ndarray:
    """A pyarrow Array or ChunkedArray as a 1-D NumPy array (may be a read-only view).

    Integers, floats, booleans, timestamps and dates without nulls are read straight
    from the Arrow buffers, strings become an object array; other types, and columns
    with nulls, use pyarrow's own conversion (nulls -> NaN / NaT / None).
    """
    import pyarrow as pa

    a = single_chunk(x)
    t = a.type
    n, off = len(a), a.offset
    if a.null_count == 0:
        if pa.types.is_integer(t) or pa.types.is_floating(t):
            dtype = np.dtype(_ARROW_FLOATS.get(str(t), str(t)))
            return np.frombuffer(a.buffers()[1], dtype=dtype, count=n,
                                 offset=off * dtype.itemsize)
        if pa.types.is_boolean(t):
            if n == 0:
                return np.zeros(0, dtype=np.bool_)
            bits = np.frombuffer(a.buffers()[1], dtype=np.uint8)
            return np.unpackbits(bits, count=off + n, bitorder="little")[off:].astype(np.bool_)
        if pa.types.is_timestamp(t):
            return np.frombuffer(a.buffers()[1], dtype=np.int64, count=n,
                                 offset=off * 8).view(f"datetime64[{t.unit}]")
        if pa.types.is_date32(t):
            days = np.frombuffer(a.buffers()[1], dtype=np.int32, count=n, offset=off * 4)
            return days.astype(np.int64).view("datetime64[D]")
        if pa.types.is_date64(t):
            return np.frombuffer(a.buffers()[1], dtype=np.int64, count=n,
                                 offset=off * 8).view("datetime64[ms]")
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        out = np.empty(n, dtype=object)
        out[:] = a.to_pylist()
        return out
    return a.to_numpy(zero_copy_only=False)


def numpy_to_arrow(x: np.ndarray, mask: np.ndarray | None = None):
    """A 1-D NumPy array as a pyarrow Array (``mask`` True = null), without pandas.

    Numbers, booleans and datetime64 (s/ms/us/ns) are wrapped from their buffers, object
    arrays of ``str`` are encoded here; anything else goes through ``pyarrow.array``.
    """
    import pyarrow as pa

    x = np.asarray(x)
    n = x.shape[0]
    validity = None
    if mask is not None and mask.any():
        validity = pa.py_buffer(np.packbits(~np.asarray(mask, dtype=np.bool_),
                                            bitorder="little"))
    kind = x.dtype.kind
    if kind in "iuf":
        x = np.ascontiguousarray(x)
        return pa.Array.from_buffers(pa.from_numpy_dtype(x.dtype), n,
                                     [validity, pa.py_buffer(x)])
    if kind == "b":
        return pa.Array.from_buffers(pa.bool_(), n, [validity, pa.py_buffer(
            np.packbits(x, bitorder="little"))])
    if kind == "M" and np.datetime_data(x.dtype)[0] in ("s", "ms", "us", "ns"):
        nat = np.isnat(x)
        if nat.any():
            mask = nat if mask is None else (nat | mask)
            validity = pa.py_buffer(np.packbits(~mask, bitorder="little"))
        data = np.ascontiguousarray(x).view(np.int64)
        return pa.Array.from_buffers(pa.timestamp(np.datetime_data(x.dtype)[0]), n,
                                     [validity, pa.py_buffer(data)])
    if kind in "OU" and (kind == "U" or all(type(v) is str for v in x.tolist())):
        encoded = [v.encode("utf-8") for v in x.tolist()]
        lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        offsets = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        large = offsets[-1] >= 2**31 - 1
        return pa.Array.from_buffers(
            pa.large_string() if large else pa.string(), n,
            [validity, pa.py_buffer(offsets if large else offsets.astype(np.int32)),
             pa.py_buffer(b"".join(encoded))])
    return pa.array(x, mask=mask)


def as_1d(x: Any, column: str) -> np.ndarray:
    """Turn lists, tuples, pandas/polars series and Arrow arrays into a 1-D NumPy array."""
    if is_arrow_array(x):
        return arrow_to_numpy(x)
    if hasattr(x, "to_numpy") and not isinstance(x, np.ndarray):
        try:
            x = x.to_numpy(zero_copy_only=False)  # pyarrow
        except TypeError:
            x = x.to_numpy()  # pandas / polars
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise InputError(f"column '{column}' must be one-dimensional; got an array of shape "
                         f"{arr.shape}")
    return arr


def as_float64(x: Any, column: str, source: Source = NO_SOURCE, *,
               allow_nan: bool = False) -> np.ndarray:
    """Convert a column to float64, naming the first value that is not a number."""
    arr = as_1d(x, column)
    if arr.dtype.kind == "c":  # complex: refused unless every value is real
        imag = arr.imag != 0
        if imag.any():
            raise fail_at(column, "must be a real number", arr, int(np.argmax(imag)), source)
        arr = arr.real
    if arr.dtype.kind in "biuf":
        out = require(arr, np.float64)
    else:
        try:  # strings and Python numbers convert in C; None and bad strings take the slow path
            out = require(arr.astype(np.float64), np.float64)
        except (TypeError, ValueError):
            out = _float_rows(arr, column, source)
    if not allow_nan:
        bad = ~np.isfinite(out)
        if bad.any():
            i = int(np.argmax(bad))
            raise fail_at(column, "must be a finite number (no NaN, missing or infinite "
                          "values)", out, i, source, "drop or fill those rows")
    return out


def _float_rows(arr: np.ndarray, column: str, source: Source) -> np.ndarray:
    """Row-by-row float conversion (None -> NaN) that names the first non-number."""
    out = np.empty(arr.shape[0], dtype=np.float64)
    for i, v in enumerate(arr.tolist()):
        try:
            out[i] = float(v) if v is not None else math.nan
        except (TypeError, ValueError):
            raise fail_at(column, "must be numeric", arr, i, source) from None
    return out


def check_range(values: np.ndarray, column: str, lo: float, hi: float,
                source: Source = NO_SOURCE, *, lo_open: bool = False,
                hi_open: bool = False) -> None:
    """Raise naming the first value of ``column`` outside the interval."""
    bad = (values <= lo if lo_open else values < lo) | (values >= hi if hi_open else values > hi)
    if bad.any():
        i = int(np.argmax(bad))
        interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        raise fail_at(column, f"must be in {interval}", values, i, source)


def check_length(values: np.ndarray, column: str, n: int) -> None:
    if values.shape[0] != n:
        raise InputError(f"column '{column}' must have one value per game ({n}); "
                         f"got {values.shape[0]}")


# ----------------------------------------------------------------------------------
# booleans: one vocabulary for every column, option and saved-state flag

#: words read as true / false (case-insensitive, surrounding blanks ignored)
TRUE_WORDS = frozenset({"1", "true", "t", "yes", "y", "on"})
FALSE_WORDS = frozenset({"0", "false", "f", "no", "n", "off", ""})
#: words read as a missing value where one is allowed (none, null, nan)
MISSING_WORDS = frozenset({"none", "null", "nan"})


def bool_word(text: Any) -> bool | None:
    """``True``/``False`` for a word of the boolean vocabulary, ``None`` for anything else."""
    s = str(text).strip().lower()
    if s in TRUE_WORDS:
        return True
    if s in FALSE_WORDS:
        return False
    return None


def as_bool(x: Any, column: str, source: Source = NO_SOURCE, *,
            missing: bool | None = None) -> np.ndarray:
    """Booleans from bool / 0-1 numbers / true-false words, naming the first bad value.

    ``missing`` is the value of a missing cell (blank, none, NaN); ``None`` refuses it.
    """
    arr = as_1d(x, column)
    requirement = "must be a boolean (0/1, true/false)"
    if arr.dtype.kind == "b":
        return require(arr, np.bool_)
    if arr.dtype.kind in "iuf":
        nan = np.isnan(arr) if arr.dtype.kind == "f" else np.zeros(arr.shape, np.bool_)
        bad = ~(np.isin(arr, (0, 1)) | (nan if missing is not None else False))
        if bad.any():
            raise fail_at(column, requirement, arr, int(np.argmax(bad)), source)
        out = np.where(nan, bool(missing), arr == 1) if nan.any() else arr == 1
        return require(out, np.bool_)
    # text: map each distinct value once
    uniq, inverse = np.unique(np.array([("none" if v is None else str(v)) for v in arr.tolist()],
                                       dtype=object).astype(str), return_inverse=True)
    codes = []
    for u in uniq.tolist():
        b = bool_word(u)
        if b is None and missing is not None and u.strip().lower() in MISSING_WORDS:
            b = missing
        codes.append(-1 if b is None else int(b))
    vals = np.array(codes, dtype=np.int8)[inverse.reshape(-1)]
    bad = vals < 0
    if bad.any():
        raise fail_at(column, requirement, arr, int(np.argmax(bad)), source)
    return require(vals == 1, np.bool_)


# ----------------------------------------------------------------------------------
# tables in memory


def to_arrow_table(data: Any):
    """pyarrow Table from a pyarrow Table, pandas/polars DataFrame or dict of columns."""
    import pyarrow as pa

    if isinstance(data, pa.Table):
        return data
    if hasattr(data, "to_arrow"):  # polars
        return data.to_arrow()
    if type(data).__module__.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False)
    if isinstance(data, Mapping):
        cols = {}
        for k, v in data.items():
            cols[str(k)] = numpy_to_arrow(as_1d(v, str(k)))
        return pa.table(cols)
    raise InputError(f"expected a table (pyarrow Table, pandas or polars DataFrame, or a dict "
                     f"of columns); got {type(data).__name__}")


# ----------------------------------------------------------------------------------
# configuration parameters


def check_number(owner: str, name: str, value: Any, *, lo: float = -math.inf,
                 hi: float = math.inf, lo_open: bool = False, hi_open: bool = False,
                 integer: bool = False) -> float:
    """Validate one numeric parameter of a config dataclass and return it as a float."""
    kind = "an integer" if integer else "a float"
    interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
    ok_type = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, bool)
    if not ok_type:
        raise InputTypeError(f"'{name}' of {owner} must be {kind} in {interval}; got "
                             f"{value!r} ({type(value).__name__})")
    v = float(value)
    whole = math.isfinite(v) and v == int(v) if integer else True  # int(inf) would raise
    if math.isnan(v) or not whole or v < lo or v > hi or (
            lo_open and v == lo) or (hi_open and v == hi):
        raise ConfigError(f"'{name}' of {owner} must be {kind} in {interval}; got {value!r}")
    return v


def check_choice(owner: str, name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"'{name}' of {owner} must be one of {', '.join(map(repr, choices))}; "
                          f"got {value!r}")
    return value


def as_checked_floats(x: Any, name: str, *, lo: float = -math.inf, lo_open: bool = False,
                      hi: float = math.inf, hi_open: bool = False, integer: bool = False,
                      requirement: str | None = None) -> np.ndarray:
    """``x`` as a float64 array of any shape (a scalar stays 0-d), every value finite and in
    range (``lo``/``hi``, open with ``lo_open``/``hi_open``; whole numbers if ``integer``);
    the error names ``name``, the requirement, the value and its index."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be numeric; got {x!r}") from None
    flat = arr.reshape(-1)
    bad = ~np.isfinite(flat)
    bad |= (flat <= lo) if lo_open else (flat < lo)
    bad |= (flat >= hi) if hi_open else (flat > hi)
    if integer:
        bad |= flat != np.floor(flat)
    if bad.any():
        i = int(np.argmax(bad))
        if requirement is None:
            interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
            requirement = f"must be a finite number in {interval}"
        where = "" if arr.ndim == 0 else f" at index {i}"
        raise InputError(f"'{name}' {requirement}; got {float(flat[i])!r}{where}")
    return arr


def scalar_or_array(arr: np.ndarray) -> Any:
    """0-d results come back as Python floats."""
    return float(arr) if np.ndim(arr) == 0 else arr


def check_type(value: Any, cls: type, what: str, hint: str = "") -> Any:
    """``value`` if it is a ``cls``, else :class:`~fastrate.errors.ArgumentTypeError`:
    ``"{what}; got {type}{ (hint)}"``, e.g. ``rate() needs a fastrate.Games; got list
    (build one with Games.from_arrays or read_games)``."""
    if not isinstance(value, cls):
        from fastrate.errors import ArgumentTypeError

        raise ArgumentTypeError(f"{what}; got {type(value).__name__}"
                                + (f" ({hint})" if hint else ""))
    return value
