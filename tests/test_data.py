"""The data model (fastrate.data): Games construction and validation, player interning,
sorting and input order, rating periods, initial ratings and the Ratings result."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate import Games, PlayerIndex, Ratings, bucket_periods
from fastrate._validate import Source, as_bool
from fastrate.data import PERIOD_ORIGIN, PlayerState, parse_time
from fastrate.errors import FastrateError, InputError, InputTypeError

NO_PERIOD = PlayerState.NO_PERIOD


def dates(*days: str) -> np.ndarray:
    return np.array(days, dtype="datetime64[ns]")


# ----------------------------------------------------------------------------------
# building games


def test_from_arrays_with_string_names():
    g = Games.from_arrays(["ann", "bob", "cid"], ["bob", "cid", "ann"], [1, 0.5, 0])
    assert g.n_games == len(g) == 3
    assert g.n_players == 3
    assert g.players.names.tolist() == ["ann", "bob", "cid"]
    assert g.white.tolist() == [0, 1, 2]
    assert g.black.tolist() == [1, 2, 0]
    assert g.score.tolist() == [1.0, 0.5, 0.0]
    for a in (g.white, g.black):
        assert a.dtype == np.int64 and a.flags.c_contiguous and a.flags.writeable
    assert g.score.dtype == np.float64
    assert g.time is None and g.period is None and g.order is None
    assert g.weight is None and g.margin is None and g.neutral is None
    assert repr(g) == "Games(3 games, 3 players)"


def test_from_arrays_with_integer_names_keeps_integers():
    g = Games.from_arrays(np.array([101, 205, 101]), np.array([205, 307, 307]), [1, 0, 1])
    assert g.players.names.dtype.kind == "i"
    assert g.players.names.tolist() == [101, 205, 307]
    assert g.players.id_of(307) == 2
    assert g.white.tolist() == [0, 1, 0] and g.black.tolist() == [1, 2, 2]


def test_from_arrays_with_players_and_integer_ids():
    g = Games.from_arrays([2, 0], [1, 2], [0.0, 1.0], players=["x", "y", "z"])
    assert g.players.names.tolist() == ["x", "y", "z"]
    assert g.white.tolist() == [2, 0] and g.black.tolist() == [1, 2]
    index = PlayerIndex(["p", "q", "r", "s"])
    g = Games.from_arrays(np.array([3]), np.array([0]), [1.0], players=index)
    assert g.players is index and g.n_players == 4  # players who never played are kept


def test_players_given_needs_integer_ids_in_range():
    with pytest.raises(InputTypeError, match="column 'white' must hold integer player ids "
                       "when players= is given; got dtype <U1"):
        Games.from_arrays(["x", "y"], ["y", "x"], [1, 0], players=["x", "y"])
    with pytest.raises(InputError, match=r"column 'black' must be a player id in \[0, 2\); "
                       "found 5 at row 2"):
        Games.from_arrays([0, 1], [1, 5], [1, 0], players=["x", "y"])
    with pytest.raises(InputError, match=r"column 'white' must be a player id in \[0, 2\); "
                       "found -1 at row 1"):
        Games.from_arrays([-1, 1], [1, 0], [1, 0], players=["x", "y"])


def test_intern_order_is_first_appearance_row_by_row():
    # row 1: d-c, row 2: a-d, row 3: b-e: ids follow d, c, a, b, e
    g = Games.from_arrays(["d", "a", "b"], ["c", "d", "e"], [1, 0, 1])
    assert g.players.names.tolist() == ["d", "c", "a", "b", "e"]
    assert g.white.tolist() == [0, 2, 3] and g.black.tolist() == [1, 0, 4]
    index, (ids,) = PlayerIndex.intern(np.array(["b", "a", "b"]))
    assert index.names.tolist() == ["b", "a"] and ids.tolist() == [0, 1, 0]
    # columns of unequal length are read one after the other
    index, (x, y) = PlayerIndex.intern(np.array(["a", "b"]), np.array(["c", "a", "d"]))
    assert index.names.tolist() == ["a", "b", "c", "d"]
    assert x.tolist() == [0, 1] and y.tolist() == [2, 0, 3]


def test_intern_mixed_types_and_sources():
    # a mix of ints and strings compares as strings
    g = Games.from_arrays([1, "a"], ["a", 2], [1, 0])
    assert g.players.names.tolist() == ["1", "a", "2"]
    # int32 in one column and int64 in the other: still integers
    g = Games.from_arrays(np.array([1, 2], np.int32), np.array([2, 3]), [1, 0])
    assert g.players.names.tolist() == [1, 2, 3]
    # Arrow arrays, chunked arrays and categoricals are interned by value
    g = Games.from_arrays(pa.chunked_array([["a", "b"], ["c"]]), pa.array(["b", "c", "a"]),
                          [1, 0, 1])
    assert g.players.names.tolist() == ["a", "b", "c"]
    cat = pd.Series(["b", "a"], dtype=pd.CategoricalDtype(["z", "a", "b"]))
    g = Games.from_arrays(cat, pd.Series(["a", "b"]), [1, 0])
    assert g.players.names.tolist() == ["b", "a"]
    g = Games.from_frame(pd.DataFrame({"white": cat, "black": ["a", "b"], "score": [1, 0]}))
    assert g.players.names.tolist() == ["b", "a"]  # unused category 'z' is no player


def test_player_index_lookups():
    index = PlayerIndex(["ann", "bob", "cid"])
    assert len(index) == 3
    assert list(index) == ["ann", "bob", "cid"]
    assert index[1] == "bob"
    assert index.id_of("cid") == 2
    assert index.lookup == {"ann": 0, "bob": 1, "cid": 2}
    assert repr(index) == "PlayerIndex(3 players)"
    assert index.names.dtype == object  # a str array is stored as Python objects
    with pytest.raises(InputError, match="unknown player 'dan'"):
        index.id_of("dan")
    with pytest.raises(InputTypeError, match="needs at least one column"):
        PlayerIndex.intern()


def test_scores_in_unit_interval_including_fractions():
    scores = [0.0, 0.25, 0.5, 0.75, 1.0, 1 / 3]
    g = Games.from_arrays(list("abcdef"), list("bcdefa"), scores)
    assert g.score.tolist() == scores
    # numeric strings are numbers too
    g = Games.from_arrays(["a", "b"], ["b", "a"], np.array(["1", "0.5"]))
    assert g.score.tolist() == [1.0, 0.5]


def test_optional_columns_are_converted():
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], weight=[1, 2.5], margin=[3, -1],
                          neutral=["TRUE", "false"], time=["2024-01-01", "2024-01-02"])
    assert g.weight.tolist() == [1.0, 2.5] and g.weight.dtype == np.float64
    assert g.margin.tolist() == [3.0, -1.0]
    assert g.neutral.tolist() == [True, False] and g.neutral.dtype == np.bool_
    assert g.time.dtype == np.dtype("datetime64[ns]")
    assert repr(g) == "Games(2 games, 2 players, with time, weight, margin, neutral)"


# ----------------------------------------------------------------------------------
# validation: every error names the column, the row and the value


@pytest.mark.parametrize(("kwargs", "error", "pattern"), [
    (dict(score=[1, 0, "x", 1]), InputError,
     r"^column 'score' must be numeric; found 'x' at row 3$"),
    (dict(score=np.array(["1", "0", "x", "1"])), InputError,
     r"^column 'score' must be numeric; found 'x' at row 3$"),
    (dict(score=[1, 2.0, 0, 1]), InputError,
     r"^column 'score' must be in \[0, 1\]; found 2.0 at row 2$"),
    (dict(score=[1, 0, 0, -0.5]), InputError,
     r"^column 'score' must be in \[0, 1\]; found -0.5 at row 4$"),
    (dict(score=[1, math.nan, 0, 1]), InputError,
     r"^column 'score' must be a finite number \(no NaN, missing or infinite values\); "
     r"found nan at row 2; drop or fill those rows$"),
    (dict(score=[1, 0, None, 1]), InputError,
     r"column 'score' must be a finite number .* found nan at row 3"),
    (dict(score=[1, 0, math.inf, 1]), InputError, r"found inf at row 3"),
    (dict(score=[1, 0]), InputError,
     r"^column 'score' must have one value per game \(4\); got 2$"),
    (dict(weight=[1, 1, 0, 1]), InputError,
     r"^column 'weight' must be in \(0, inf\); found 0.0 at row 3$"),
    (dict(weight=[1, -2, 1, 1]), InputError,
     r"^column 'weight' must be in \(0, inf\); found -2.0 at row 2$"),
    (dict(weight=[1, 1, 1]), InputError, r"column 'weight' must have one value per game"),
    (dict(margin=[1, 2, math.nan, 0]), InputError,
     r"column 'margin' must be a finite number .* found nan at row 3"),
    (dict(neutral=["yes", "no", "maybe", "no"]), InputError,
     r"^column 'neutral' must be a boolean \(0/1, true/false\); found 'maybe' at row 3$"),
    (dict(neutral=["yes", None, "no", "no"]), InputError,
     r"column 'neutral' must be a boolean \(0/1, true/false\); found None at row 2"),
    (dict(neutral=[0, 1, 2, 0]), InputError,
     r"column 'neutral' must be a boolean \(0/1, true/false\); found 2 at row 3"),
    (dict(time=["2024-01-01", "2024-13-01", "2024-01-03", "2024-01-04"]), InputError,
     r"^column 'time' must be a date or time \(ISO 8601, e\.g\. 2024-05-31\); "
     r"found '2024-13-01' at row 2$"),
    (dict(time=["2024-01-01", "2024-01-02", "soon", "2024-01-04"]), InputError,
     r"column 'time' must be a date or time .*; found 'soon' at row 3"),
    (dict(time=["2024-01-01", None, "2024-01-03", "2024-01-04"]), InputError,
     r"^column 'time' must be a date or time, not missing; found None at row 2$"),
    (dict(time=["2024-01-02", "2024-01-01", "2024-01-03", "2024-01-04"], sort=False),
     InputError, r"^column 'time' must be nondecreasing \(games in chronological order\); "
     r"found 2024-01-01 at row 2; sort the input by time, or pass sort=True "
     r"\(--sort\)$"),
    (dict(time=[1.0, 2.0, 5.0, 3.0], sort=False), InputError,
     r"column 'time' must be nondecreasing .*; found 3.0 at row 4"),
    (dict(period=[1, 2, 2, 1], sort=False), InputError,
     r"column 'period' must be nondecreasing .*; found 1 at row 4"),
    (dict(time=[1.0, 2.0, 3.0, 4.0], period=[1, 0, 2, 2]), InputError,
     r"^column 'period' must not decrease while time increases; found 0 at row 2$"),
    (dict(period="1w"), InputError, r"period '1w' is a length, which needs a time column"),
    (dict(time=["2024-01-01"] * 4, period="fortnight"), InputError,
     r"unknown period 'fortnight': use a length such as '3d', '1w', '12h'"),
    (dict(time=[1.0, 2.0, 3.0, 4.0], period="1w"), InputError,
     r"period '1w' needs date/time values in the time column"),
    (dict(time=[1.0, 2.0, 3.0, 4.0], period=-2.0), InputError,
     r"period length must be > 0; got -2.0"),
    (dict(time=["2024-01-01"] * 4, period=7), InputError,
     r"period for date/time values must be a string like '3d'"),
    (dict(period=["s1", None, "s2", "s3"]), InputError,
     r"column 'period' must not be missing; found None at row 2"),
])
def test_validation_errors(kwargs, error, pattern):
    args = dict(white=["a", "b", "c", "d"], black=["b", "c", "d", "a"], score=[1, 0, 0.5, 1])
    args.update(kwargs)
    with pytest.raises(error, match=pattern):
        Games.from_arrays(**args)


def test_errors_are_fastrate_errors_and_value_errors():
    with pytest.raises(FastrateError) as info:
        Games.from_arrays(["a"], ["b"], [2.0])
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(("white", "black", "pattern"), [
    (["a", None, "c"], ["b", "c", "a"],
     r"^column 'white' must name a player in every row; found a missing value at row 2; "
     r"drop or fill those rows$"),
    (["a", "b", "c"], ["b", "c", None], r"column 'black' must name a player .* at row 3"),
    (["a", math.nan, "c"], ["b", "c", "a"], r"column 'white' must name a player .* at row 2"),
    (pd.Series(["a", "b", None]), pd.Series(["b", "c", "a"]),
     r"column 'white' must name a player .* at row 3"),
    (pd.Series([1.0, math.nan, 3.0]), pd.Series([2, 3, 1]),
     r"column 'white' must name a player .* at row 2"),
    (pa.array(["a", "b", "c"]), pa.array(["b", None, "a"]),
     r"column 'black' must name a player .* at row 2"),
])
def test_missing_player_names(white, black, pattern):
    with pytest.raises(InputError, match=pattern):
        Games.from_arrays(white, black, [1, 0, 1])


def test_missing_name_error_names_the_file_line():
    with pytest.raises(InputError, match=r"at row 2 \(line 3 of games.csv\)"):
        PlayerIndex.intern(np.array(["a", None], dtype=object), np.array(["b", "c"]),
                           names=("home", "away"), source=Source("games.csv", 2))


def test_player_cannot_play_himself():
    with pytest.raises(InputError, match=r"^a player cannot play himself: 'bob' is both players "
                       r"at row 2; drop those rows \(read_games\(\.\.\., "
                       r"drop_self_play=True\) or --drop-self-play\)$"):
        Games.from_arrays(["ann", "bob"], ["bob", "bob"], [1, 0])
    with pytest.raises(InputError, match="a player cannot play himself: 7 is both players at row 1"):
        Games.from_arrays([7, 8], [7, 9], [1, 0])
    with pytest.raises(InputError, match="cannot play himself"):
        Games.from_arrays([0], [0], [1], players=["x"])


def test_empty_and_mismatched_input():
    with pytest.raises(InputError, match=r"^no games: the input has no rows$"):
        Games.from_arrays([], [], [])
    with pytest.raises(InputError, match=r"^column 'black' must have one value per game \(2\); "
                       r"got 1$"):
        Games.from_arrays(["a", "b"], ["b"], [1, 1])
    with pytest.raises(InputError, match=r"column 'time' must have one value per game \(2\); "
                       r"got 3"):
        Games.from_arrays(["a", "b"], ["b", "a"], [1, 1], time=[1.0, 2.0, 3.0])
    with pytest.raises(InputError, match=r"column 'white' must be one-dimensional; got an array "
                       r"of shape \(2, 2\)"):
        Games.from_arrays([["a", "b"], ["c", "d"]], ["b", "c"], [1, 1])


# ----------------------------------------------------------------------------------
# sorting and input order


def test_sort_is_stable_and_results_come_back_in_input_order():
    time = [3.0, 1.0, 2.0, 1.0, 3.0, 2.0]
    white = ["a", "b", "c", "d", "e", "f"]
    black = ["z"] * 6
    g = Games.from_arrays(white, black, [1, 0, 1, 0, 1, 0], time=time)
    # stable: among equal times the input order is kept
    assert g.order.tolist() == [1, 3, 2, 5, 0, 4]
    assert g.time.tolist() == [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
    assert [g.players[i] for i in g.white] == ["b", "d", "c", "f", "a", "e"]
    assert g.score.tolist() == [0, 0, 1, 0, 1, 1]
    # ids are interned in input order, before sorting
    assert g.players.names.tolist() == ["a", "z", "b", "c", "d", "e", "f"]
    # per-game values in stored (chronological) order go back to input rows
    stored = np.arange(6.0)
    back = g.to_input_order(stored)
    assert back.tolist() == [4.0, 0.0, 2.0, 1.0, 5.0, 3.0]
    assert [g.players[i] for i in g.to_input_order(g.white)] == white


def test_sorted_input_keeps_no_order():
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], time=["2024-01-01", "2024-01-01"],
                          sort=False)
    assert g.order is None
    x = np.array([0.3, 0.7])
    assert g.to_input_order(x) is x


def test_sort_by_period_labels_alone():
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1], period=[2, 1, 2])
    assert g.order.tolist() == [1, 0, 2]
    assert g.period.tolist() == [1, 2, 2]


@settings(max_examples=40)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=40))
def test_sort_matches_a_stable_python_sort(keys):
    n = len(keys)
    g = Games.from_arrays([f"w{i}" for i in range(n)], [f"b{i}" for i in range(n)],
                          np.linspace(0, 1, n), time=np.array(keys, dtype=np.float64))
    expect = sorted(range(n), key=lambda i: keys[i])
    got = list(range(n)) if g.order is None else g.order.tolist()
    assert got == expect
    assert g.to_input_order(g.score).tolist() == np.linspace(0, 1, n).tolist()


# ----------------------------------------------------------------------------------
# rating periods


def test_week_periods_start_on_monday():
    assert PERIOD_ORIGIN == np.datetime64("1970-01-05")  # a Monday
    p = bucket_periods(dates("1970-01-04", "1970-01-05", "1970-01-11T23:59:59",
                             "1970-01-12", "2024-05-27", "2024-06-02", "2024-06-03"), "1w")
    assert p.dtype == np.int64
    assert p[1] == p[2] == 0  # Monday 5th and Sunday 11th share a week
    assert p[3] == 1  # Monday 12th starts the next one
    assert p[0] == -1  # Sunday 4th belongs to the week before
    assert p[4] == p[5] == p[6] - 1
    assert np.datetime64("2024-05-27").astype(object).weekday() == 0


@pytest.mark.parametrize(("spec", "times", "expect"), [
    ("3d", ("1970-01-05", "1970-01-07T23:00", "1970-01-08", "1970-01-04"), (0, 0, 1, -1)),
    ("12h", ("1970-01-05", "1970-01-05T11:59", "1970-01-05T12:00", "1970-01-06"), (0, 0, 1, 2)),
    ("1d", ("1970-01-05T23:59:59", "1970-01-06"), (0, 1)),
    ("2w", ("1970-01-05", "1970-01-18", "1970-01-19"), (0, 0, 1)),
    ("90min", ("1970-01-05T01:29", "1970-01-05T01:30"), (0, 1)),
    ("1.5d", ("1970-01-06T11:59", "1970-01-06T12:00"), (0, 1)),
    ("month", ("1970-01-31", "1970-02-01", "2024-05-31"), (0, 1, 54 * 12 + 4)),
    ("1mo", ("1969-12-31", "1970-01-01"), (-1, 0)),
    ("3mo", ("2024-01-01", "2024-03-31", "2024-04-01", "2024-12-31"),
     (216, 216, 217, 219)),
    ("year", ("1970-12-31", "1971-01-01", "2024-06-01"), (0, 1, 54)),
    ("2y", ("2023-06-01", "2024-06-01", "2025-01-01"), (26, 27, 27)),
])
def test_period_specs(spec, times, expect):
    assert bucket_periods(dates(*times), spec).tolist() == list(expect)


def test_numeric_times_with_numeric_length():
    t = np.array([0.0, 6.9, 7.0, 13.99, 14.0, -0.5])
    assert bucket_periods(t, 7).tolist() == [0, 0, 1, 1, 2, -1]
    assert bucket_periods(t, "7").tolist() == [0, 0, 1, 1, 2, -1]
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1], time=[1, 8, 30],
                          period=7.0)
    assert g.period.tolist() == [0, 1, 4]  # gaps are empty periods


def test_bad_period_specs():
    with pytest.raises(InputError, match="unknown period '3 weeks'"):
        bucket_periods(dates("2024-01-01"), "3 weeks")
    with pytest.raises(InputError, match="period length must be > 0; got '0d'"):
        bucket_periods(dates("2024-01-01"), "0d")
    with pytest.raises(InputError, match="period length must be > 0; got '0mo'"):
        bucket_periods(dates("2024-01-01"), "0mo")
    with pytest.raises(InputError, match="period length must be > 0; got 0"):
        bucket_periods(np.array([1.0]), 0)


def test_periods_are_absolute_so_a_continuation_file_agrees():
    full = Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, 0, 1, 0],
                             time=["2024-01-01", "2024-01-09", "2024-02-01", "2024-02-07"],
                             period="1w")
    later = Games.from_arrays(["c", "a"], ["a", "c"], [1, 0],
                              time=["2024-02-01", "2024-02-07"], period="1w")
    assert later.period.tolist() == full.period[2:].tolist()
    assert full.period.tolist() == [2817, 2818, 2821, 2822]


def test_explicit_period_labels():
    # integer labels are kept as they are, so a missing season counts as a period
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1], period=[2019, 2021, 2021])
    assert g.period.tolist() == [2019, 2021, 2021] and g.period_labels is None
    g = Games.from_arrays(["a", "b"], ["b", "c"], [1, 0], period=[3.0, 4.0])
    assert g.period.tolist() == [3, 4] and g.period.dtype == np.int64
    # strings are ranked in sorted order and the labels kept
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1],
                          period=["2019-20", "2020-21", "2019-20"])
    assert g.order.tolist() == [0, 2, 1]
    assert g.period.tolist() == [0, 0, 1]
    assert g.period_labels.tolist() == ["2019-20", "2020-21"]
    assert g.period_or_zero() is g.period


def test_period_or_zero_without_periods():
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0])
    assert g.period_or_zero().tolist() == [0, 0]


def test_period_with_time_sorted_by_time():
    g = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1], time=[3.0, 1.0, 2.0],
                          period=[2, 1, 1])
    assert g.order.tolist() == [1, 2, 0] and g.period.tolist() == [1, 1, 2]
    with pytest.raises(InputError, match=r"column 'period' must not decrease while time "
                       r"increases; found 1 at row 3"):
        Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1, 0, 1], time=[3.0, 1.0, 2.0],
                          period=[2, 2, 1])


# ----------------------------------------------------------------------------------
# helpers


def test_as_bool_values():
    assert as_bool([True, False], "x").tolist() == [True, False]
    assert as_bool([1, 0.0], "x").tolist() == [True, False]
    assert as_bool(["TRUE", "False", " yes ", "n", "1", "0", "t", "F", ""], "x").tolist() == [
        True, False, True, False, True, False, True, False, False]
    assert as_bool(np.array([True, "no"], dtype=object), "x").tolist() == [True, False]
    with pytest.raises(InputError, match="column 'x' must be a boolean .* found 0.5 at row 1"):
        as_bool([0.5], "x")


def test_parse_time_kinds():
    assert parse_time(["2024-05-31", "2024-06-01T12:30"], "t").dtype == np.dtype("M8[ns]")
    assert parse_time(np.array(["2024-05-31"], dtype="M8[D]"), "t")[0] == np.datetime64(
        "2024-05-31")
    assert parse_time([1, 2.5], "t").tolist() == [1.0, 2.5]
    with pytest.raises(InputError, match="column 't' must be a date or time, not missing; "
                       "found NaT at row 2"):
        parse_time(np.array(["2024-01-01", "NaT"], dtype="M8[ns]"), "t")


# ----------------------------------------------------------------------------------
# initial ratings


@pytest.fixture
def games():
    return Games.from_arrays(["a", "b"], ["b", "c"], [1, 0])


def _state(games, initial, **kw):
    return PlayerState.resolve(games, initial, rating=1500.0, rd=350.0, volatility=0.06, **kw)


def test_resolve_without_initial(games):
    state, g = _state(games, None)
    assert g is games and state.players is games.players
    assert state.rating.tolist() == [1500.0] * 3 and state.rd.tolist() == [350.0] * 3
    assert state.volatility.tolist() == [0.06] * 3
    assert state.games_played.tolist() == [0, 0, 0]
    assert state.last_period.tolist() == [NO_PERIOD] * 3


def test_resolve_initial_mapping_keeps_players_only_in_initial(games):
    state, g = _state(games, {"z": 1700.0, "b": 1600.0})
    assert state.players.names.tolist() == ["z", "b", "a", "c"]
    assert state.rating.tolist() == [1700.0, 1600.0, 1500.0, 1500.0]
    assert [g.players[i] for i in g.white] == ["a", "b"]
    assert [g.players[i] for i in g.black] == ["b", "c"]
    assert g.score is games.score


def test_resolve_initial_ratings(games):
    prev = Ratings("glicko2", PlayerIndex(["c", "q"]), np.array([1400.0, 1800.0]),
                   np.array([4, 9]), np.zeros(0), rd=np.array([80.0, 60.0]),
                   volatility=np.array([0.05, 0.07]),
                   last_period=np.array([NO_PERIOD, 12]))
    state, g = _state(games, prev)
    assert state.players.names.tolist() == ["c", "q", "a", "b"]
    assert state.rating.tolist() == [1400.0, 1800.0, 1500.0, 1500.0]
    assert state.rd.tolist() == [80.0, 60.0, 350.0, 350.0]
    assert state.volatility.tolist() == [0.05, 0.07, 0.06, 0.06]
    assert state.games_played.tolist() == [4, 9, 0, 0]
    assert state.last_period.tolist() == [NO_PERIOD, 12, NO_PERIOD, NO_PERIOD]
    assert g.n_players == 4


def test_resolve_initial_arrow_table(games):
    table = pa.table({"player": ["q", "a"], "rating": [1800.0, None], "rd": [50.0, 70.0],
                      "games_played": [3, 5], "last_period": [7, None]})
    state, _ = _state(games, table)
    assert state.players.names.tolist() == ["q", "a", "b", "c"]
    assert state.rating.tolist() == [1800.0, 1500.0, 1500.0, 1500.0]  # null -> default
    assert state.rd.tolist() == [50.0, 70.0, 350.0, 350.0]
    assert state.games_played.tolist() == [3, 5, 0, 0]
    assert state.last_period.tolist() == [7, NO_PERIOD, NO_PERIOD, NO_PERIOD]


def test_resolve_initial_pandas_frame(games):
    frame = pd.DataFrame({"player": ["c", "zz"], "rating": [1450.0, 1900.0],
                          "games_played": [2.0, np.nan], "other": ["x", "y"]})
    state, g = _state(games, frame)
    assert state.players.names.tolist() == ["c", "zz", "a", "b"]
    assert state.rating.tolist() == [1450.0, 1900.0, 1500.0, 1500.0]
    assert state.games_played.tolist() == [2, 0, 0, 0]
    assert [g.players[i] for i in g.black] == ["b", "c"]


def test_resolve_initial_with_integer_ids():
    games = Games.from_arrays([10, 20], [20, 30], [1, 0])
    state, g = _state(games, pd.DataFrame({"player": [30, 99], "rating": [1600.0, 1700.0]}))
    assert state.players.names.tolist() == [30, 99, 10, 20]
    assert state.rating.tolist() == [1600.0, 1700.0, 1500.0, 1500.0]


def test_resolve_initial_errors(games):
    with pytest.raises(InputError, match=r"initial ratings list player 'b' twice \(again at "
                       r"row \d+ of initial ratings\); keep one row per player"):
        _state(games, pa.table({"player": ["b", "x", "b"], "rating": [1.0, 2.0, 3.0]}))
    with pytest.raises(InputError, match="initial ratings list player 'b' twice"):
        _state(games, pd.DataFrame({"player": ["b", "b"], "rating": [1.0, 2.0]}))
    with pytest.raises(InputError, match="initial ratings need a 'player' column; found "
                       "columns name, rating"):
        _state(games, pa.table({"name": ["b"], "rating": [1.0]}))
    with pytest.raises(InputError, match="initial ratings need a 'rating' column"):
        _state(games, pa.table({"player": ["b"], "rd": [1.0]}))
    with pytest.raises(InputError, match=r"column 'rating' must be numeric; found 'high' at "
                       r"row 1 of initial ratings"):
        _state(games, {"player": ["b"], "rating": ["high"]})
    with pytest.raises(InputError, match=r"column 'rd' must be finite; found inf at row 2 of "
                       "initial ratings"):
        _state(games, {"player": ["b", "c"], "rating": [1.0, 2.0], "rd": [1.0, math.inf]})
    with pytest.raises(InputError, match="expected a table"):
        _state(games, 42)


# ----------------------------------------------------------------------------------
# results


@pytest.fixture
def ratings():
    return Ratings("elo", PlayerIndex(["ann", "bob", "cid", "dan"]),
                   np.array([1500.0, 1620.5, 1500.0, 1390.0]), np.array([3, 2, 1, 0]),
                   np.array([0.5, 0.64]), config=None,
                   last_period=np.array([4, 5, 5, NO_PERIOD]))


def test_ratings_lookups_and_ranking(ratings):
    assert len(ratings) == 4
    assert ratings["bob"] == 1620.5 and isinstance(ratings["bob"], float)
    with pytest.raises(InputError, match="unknown player 'eve'"):
        ratings["eve"]
    assert ratings.ranking().tolist() == [1, 0, 2, 3]  # ties keep id order
    assert ratings.top(2) == [("bob", 1620.5), ("ann", 1500.0)]
    assert ratings.top() == [("bob", 1620.5), ("ann", 1500.0), ("cid", 1500.0),
                             ("dan", 1390.0)]
    assert repr(ratings) == "Ratings(elo, 4 players, 2 games)"


def test_ratings_to_arrow(ratings):
    t = ratings.to_arrow()
    assert t.column_names == ["player", "rating", "games_played", "last_period"]
    assert t.schema.field("player").type == pa.string()
    assert t.schema.field("rating").type == pa.float64()
    assert t.schema.field("games_played").type == pa.int64()
    assert t.column("player").to_pylist() == ["ann", "bob", "cid", "dan"]
    assert t.column("last_period").to_pylist() == [4, 5, 5, None]  # never played -> null
    s = ratings.to_arrow(sort=True)
    assert s.column("player").to_pylist() == ["bob", "ann", "cid", "dan"]
    assert s.column("games_played").to_pylist() == [2, 3, 1, 0]


def test_ratings_to_arrow_with_all_columns_and_integer_names():
    r = Ratings("glicko2", PlayerIndex(np.array([7, 3])), np.array([1600.0, 1400.0]),
                np.array([1, 1]), np.array([0.7]), rd=np.array([200.0, 210.0]),
                volatility=np.array([0.06, 0.059]), last_period=np.array([0, 0]))
    t = r.to_arrow()
    assert t.column_names == ["player", "rating", "rd", "volatility", "games_played",
                              "last_period"]
    assert t.schema.field("player").type == pa.int64()
    assert t.to_pylist()[1] == {"player": 3, "rating": 1400.0, "rd": 210.0,
                                "volatility": 0.059, "games_played": 1, "last_period": 0}
    assert list(r.columns()) == t.column_names


def test_ratings_to_frame(ratings):
    f = ratings.to_frame(sort=True)
    assert isinstance(f, pd.DataFrame)
    assert f["player"].tolist() == ["bob", "ann", "cid", "dan"]
    assert f["rating"].tolist() == [1620.5, 1500.0, 1500.0, 1390.0]
    assert f["last_period"].isna().tolist() == [False, False, False, True]


def test_ratings_round_trip_as_initial(ratings):
    games = Games.from_arrays(["ann"], ["eve"], [1.0])
    state, _ = PlayerState.resolve(games, ratings.to_arrow(), rating=1500.0)
    assert state.players.names.tolist() == ["ann", "bob", "cid", "dan", "eve"]
    assert state.rating.tolist() == [1500.0, 1620.5, 1500.0, 1390.0, 1500.0]
    assert state.last_period.tolist() == [4, 5, 5, NO_PERIOD, NO_PERIOD]


def test_initial_table_with_all_missing_last_period():
    from fastrate.elo import rate

    games = Games.from_arrays(["a"], ["b"], [1.0], period=[3])
    r = rate(games, initial={"player": ["a", "b"], "rating": [1600.0, 1400.0],
                             "last_period": [None, None]})
    assert r.last_period.tolist() == [3, 3]
    assert r["a"] > 1600.0
