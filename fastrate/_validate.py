"""Every input check and dtype/contiguity conversion, run once at the API boundary.

Kernels never validate: by the time an array reaches one it is 1-D, C-contiguous,
writable, of the exact dtype, and its values are known to be in range.

Error messages follow one template (what, requirement, found, where, fix), e.g.
``column 'score' must be in [0, 1]; found 2.0 at row 1734 (line 1735 of games.csv)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate.errors import ConfigError, InputError, InputTypeError


@dataclass(frozen=True)
class Source:
    """Where rows came from, so an error can name the file line as well as the row."""

    name: str | None = None
    #: file line of data row 1 (2 for a CSV with one header line); 0 when not a text file
    first_line: int = 0

    def where(self, index: int) -> str:
        """Describe 0-based data row ``index`` as ``row N (line L of FILE)``."""
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


def _fmt(value: Any) -> str:
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
    msg = (f"column '{column}' {requirement}; found {_fmt(values[index])} at "
           f"{source.where(index)}")
    if fix:
        msg += f"; {fix}"
    return InputError(msg)


def as_1d(x: Any, column: str) -> np.ndarray:
    """Turn lists, tuples, pandas/polars series and Arrow arrays into a 1-D NumPy array."""
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
    if math.isnan(v) or (integer and v != int(v)) or v < lo or v > hi or (
            lo_open and v == lo) or (hi_open and v == hi):
        raise ConfigError(f"'{name}' of {owner} must be {kind} in {interval}; got {value!r}")
    return v


def check_choice(owner: str, name: str, value: Any, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise ConfigError(f"'{name}' of {owner} must be one of {', '.join(map(repr, choices))}; "
                          f"got {value!r}")
    return value
