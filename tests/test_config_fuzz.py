"""Property-based fuzzing of every registered system's config (issue 15).

The property: a config built from random parameter values (0, negative, tiny, huge, NaN,
infinite ...) is either refused at construction with a one-line
:class:`~fastrate.errors.FastrateError`, or rates the system's tiny data set
(:func:`fastrate.systems.tiny_data`) to ratings, predictions and state that are all
finite (or the run is refused with a FastrateError). Never another exception (warnings
are errors in the test suite), never a NaN or an infinity.
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fastrate import systems
from fastrate.errors import ConvergenceWarning, FastrateError

#: values that break naive range checks, mixed with arbitrary floats and integers
SPECIAL = [0, 0.0, -0.0, -1, 1, 2, 0.5, 1e-300, -1e-300, 1e-3, 1e6, 1e9, 1e12, 1e15,
           1e308, -1e308, 5e-324, math.nan, math.inf, -math.inf, 10**20]
NUMBERS = st.one_of(st.sampled_from(SPECIAL),
                    st.floats(allow_nan=True, allow_infinity=True),
                    st.integers(min_value=-10**6, max_value=10**6))
#: iteration limits: valid huge values are slow, not wrong (with a tolerance that cannot
#: be met, a billion sweeps take minutes), so they are fuzzed up to 1e4 only
ITERATIONS = NUMBERS.filter(lambda v: not (isinstance(v, (int, float)) and 1e4 < v < math.inf))


def _is_iteration_limit(field: str) -> bool:
    return "iteration" in field or "newton" in field


def _numeric(hint) -> str | None:
    """'scalar' for a float/int field (also optional, or 'float | str'), 'tuple' for a
    flat tuple of numbers, None for anything else."""
    if hint in (float, int):
        return "scalar"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType) and (float in args or int in args):
        return "scalar"
    if origin is tuple and args and all(a in (float, int, Ellipsis) for a in args):
        return "tuple"
    return None


def _fields(name: str) -> list[tuple[str, str, object]]:
    cls = systems.get(name).config_class
    hints = typing.get_type_hints(cls)
    out = []
    for f in dataclasses.fields(cls):
        kind = _numeric(hints.get(f.name))
        if kind is not None and f.init:
            out.append((f.name, kind, getattr(cls(), f.name)))
    return out


@st.composite
def _changes(draw, name: str) -> dict:
    """One to three numeric fields of the config set to fuzzed values."""
    fields = _fields(name)
    picked = draw(st.lists(st.sampled_from(fields), min_size=1, max_size=3,
                           unique_by=lambda f: f[0]))
    out = {}
    for field, kind, default in picked:
        if kind == "scalar":
            out[field] = draw(ITERATIONS if _is_iteration_limit(field) else NUMBERS)
        else:
            n = len(default) if default else 3
            out[field] = tuple(draw(st.lists(NUMBERS, min_size=n, max_size=n)))
    return out


def _check_finite(name: str, ratings) -> None:
    arrays = dict(ratings.columns())
    arrays["predictions"] = ratings.predictions
    arrays["pair_predictions"] = getattr(ratings, "pair_predictions", None)
    for key, values in arrays.items():
        if values is None:
            continue
        values = np.asarray(values)
        if values.dtype.kind == "f":
            bad = ~np.isfinite(values)
            assert not bad.any(), (f"{name}: {key} holds {values[bad][0]!r} at index "
                                   f"{int(np.argmax(bad))}")


def _run(name: str, changes: dict) -> None:
    with warnings.catch_warnings():
        # an iteration that stops early warns (one line, naming the players) and keeps a
        # finite iterate: allowed, the numbers are still checked
        warnings.simplefilter("ignore", ConvergenceWarning)
        _run_checked(name, changes)


def _run_checked(name: str, changes: dict) -> None:
    entry = systems.get(name)
    try:
        config = entry.config_class(**changes)
    except FastrateError as exc:
        assert "\n" not in str(exc) and str(exc), repr(exc)
        return
    try:
        ratings = entry.rate(systems.tiny_data(entry.data), config)
    except FastrateError as exc:  # e.g. ties without a draw margin
        assert "\n" not in str(exc) and str(exc), repr(exc)
        return
    _check_finite(name, ratings)


@pytest.mark.parametrize("name", systems.names())
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_fuzzed_config_is_refused_or_rates_to_finite_numbers(name, data):
    _run(name, data.draw(_changes(name)))


@pytest.mark.parametrize("name", systems.names())
def test_every_numeric_parameter_at_its_extremes(name):
    """Each numeric parameter alone at each special value (deterministic: the cases
    hypothesis might not draw)."""
    for field, kind, default in _fields(name):
        for v in SPECIAL:
            value = v if kind == "scalar" else tuple(v for _ in (default or (0, 0, 0)))
            _run(name, {field: value})


def test_the_fuzzing_reaches_every_system_and_parameter():
    """The fuzzer sees numeric parameters in every registered system (a config whose
    fields it could not read would be skipped silently)."""
    for name in systems.names():
        assert _fields(name), name
