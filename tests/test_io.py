"""Table I/O (fastrate.io.tables): reading games from CSV/Parquet/JSON in every recognised
layout, column mapping, times, errors with file lines, atomic writes, the bundled example,
and the pandas-free Arrow <-> NumPy conversions they rely on."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrate
from fastrate import Games, read_games, write_table
from fastrate._validate import arrow_to_numpy, numpy_to_arrow
from fastrate.datasets import load_example
from fastrate.errors import InputError
from fastrate.io import tables
from fastrate.io.tables import games_from_table, read_ratings, read_table

# ----------------------------------------------------------------------------------
# writing test files in every format


def _records(columns: dict[str, list]) -> list[dict]:
    names = list(columns)
    return [dict(zip(names, row)) for row in zip(*columns.values())]


def write_as(folder: Path, stem: str, fmt: str, columns: dict[str, list]) -> Path:
    """Write ``columns`` as csv, csv.gz, parquet, json (array of records) or ndjson."""
    if fmt in ("csv", "csv.gz"):
        lines = [",".join(columns)] + [",".join("" if v is None else str(v) for v in row)
                                       for row in zip(*columns.values())]
        text = "\n".join(lines) + "\n"
        path = folder / f"{stem}.{fmt}"
        if fmt == "csv":
            path.write_text(text)
        else:
            path.write_bytes(gzip.compress(text.encode()))
        return path
    if fmt == "parquet":
        path = folder / f"{stem}.parquet"
        pq.write_table(pa.table(columns), path)
        return path
    if fmt == "json":
        path = folder / f"{stem}.json"
        path.write_text(json.dumps(_records(columns)))
        return path
    assert fmt == "ndjson"
    path = folder / f"{stem}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in _records(columns)))
    return path


FORMATS = ["csv", "csv.gz", "parquet", "json", "ndjson"]


def names_of(games: Games, ids: np.ndarray) -> list:
    return [games.players[i] for i in ids]


# ----------------------------------------------------------------------------------
# recognised layouts, in every format


@pytest.mark.parametrize("fmt", FORMATS)
def test_white_black_score(tmp_path, fmt):
    path = write_as(tmp_path, "games", fmt, {"white": ["ann", "bob", "cid"],
                                              "black": ["bob", "cid", "ann"],
                                              "score": [1.0, 0.5, 0.0]})
    g = read_games(path)
    assert names_of(g, g.white) == ["ann", "bob", "cid"]
    assert names_of(g, g.black) == ["bob", "cid", "ann"]
    assert g.score.tolist() == [1.0, 0.5, 0.0]
    assert g.time is None and g.margin is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_winner_loser(tmp_path, fmt):
    path = write_as(tmp_path, "matches", fmt, {"winner": ["ann", "cid"], "loser": ["bob", "ann"],
                                                "score": ["6-1 6-4", "7-6(3) 6-0"]})
    g = read_games(path)
    assert names_of(g, g.white) == ["ann", "cid"]
    assert names_of(g, g.black) == ["bob", "ann"]
    assert g.score.tolist() == [1.0, 1.0]  # the first player always won


@pytest.mark.parametrize("fmt", FORMATS)
def test_home_away_scores_give_score_and_margin(tmp_path, fmt):
    path = write_as(tmp_path, "football", fmt, {
        "date": ["2024-03-01", "2024-03-02", "2024-03-03"],
        "home_team": ["Wales", "Chile", "Peru"], "away_team": ["Chile", "Peru", "Wales"],
        "home_score": [2, 1, 0], "away_score": [0, 1, 3], "neutral": [True, False, True]})
    g = read_games(path)
    assert names_of(g, g.white) == ["Wales", "Chile", "Peru"]
    assert g.score.tolist() == [1.0, 0.5, 0.0]
    assert g.margin.tolist() == [2.0, 0.0, -3.0]
    assert g.neutral.tolist() == [True, False, True]
    assert g.time.tolist() == np.array(["2024-03-01", "2024-03-02", "2024-03-03"],
                                       dtype="M8[ns]").tolist()


@pytest.mark.parametrize("fmt", FORMATS)
def test_team1_team2_score1_score2(tmp_path, fmt):
    path = write_as(tmp_path, "nfl", fmt, {"team1": ["KC", "SF"], "team2": ["SF", "KC"],
                                            "score1": [25, 17], "score2": [22, 17],
                                            "weight": [1.0, 2.0]})
    g = read_games(path)
    assert names_of(g, g.white) == ["KC", "SF"]
    assert g.score.tolist() == [1.0, 0.5]
    assert g.margin.tolist() == [3.0, 0.0]
    assert g.weight.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("fmt", FORMATS)
def test_result_strings(tmp_path, fmt):
    path = write_as(tmp_path, "chess", fmt, {
        "White": ["a", "b", "c", "d", "e"], "Black": ["b", "c", "d", "e", "a"],
        "Result": ["1-0", "0-1", "1/2-1/2", " Draw ", "0.25"]})
    g = read_games(path)  # recognised names are matched case-insensitively
    assert g.score.tolist() == [1.0, 0.0, 0.5, 0.5, 0.25]


def test_layouts_with_other_player_pairs(tmp_path):
    for a, b in [("player1", "player2"), ("player_a", "player_b"), ("home", "away"),
                 ("winner_id", "loser_id"), ("winner_name", "loser_name")]:
        path = write_as(tmp_path, a, "csv", {a: [1, 2], b: [2, 3], "result": [1, 0]})
        g = read_games(path)
        assert g.players.names.tolist() == [1, 2, 3]
        assert g.score.tolist() == ([1.0, 1.0] if a.startswith("winner") else [1.0, 0.0])


# ----------------------------------------------------------------------------------
# explicit column mapping, times and periods


def test_explicit_column_mapping(tmp_path):
    path = write_as(tmp_path, "g", "csv", {
        "when": ["2024-01-08", "2024-01-01", "2024-01-09"], "p": ["x", "y", "z"],
        "q": ["y", "z", "x"], "pts": [1.0, 0.0, 0.5], "comp": ["A", "A", "B"],
        "k": [2, 1, 1], "venue_neutral": [1, 0, 0], "gd": [3, -1, 0]})
    g = read_games(path, white="p", black="q", score="pts", time="when", weight="k",
                   neutral="venue_neutral", margin="gd")
    assert g.order.tolist() == [1, 0, 2]  # sorted by time, stably
    assert names_of(g, g.white) == ["y", "x", "z"]
    assert g.score.tolist() == [0.0, 1.0, 0.5]
    assert g.weight.tolist() == [1.0, 2.0, 1.0]
    assert g.neutral.tolist() == [False, True, False]
    assert g.margin.tolist() == [-1.0, 3.0, 0.0]
    assert g.to_input_order(g.score).tolist() == [1.0, 0.0, 0.5]


def test_explicit_points_and_winner_columns(tmp_path):
    path = write_as(tmp_path, "g", "csv", {"a": ["x", "y"], "b": ["y", "x"], "ga": [3, 1],
                                           "gb": [1, 1]})
    g = read_games(path, white="a", black="b", first_points="ga", second_points="gb")
    assert g.score.tolist() == [1.0, 0.5] and g.margin.tolist() == [2.0, 0.0]
    g = read_games(path, winner="b", loser="a")
    assert names_of(g, g.white) == ["y", "x"] and g.score.tolist() == [1.0, 1.0]
    with pytest.raises(InputError, match="give both winner= and loser= columns"):
        read_games(path, winner="a")
    with pytest.raises(InputError, match=r"give both the first \(white=\) and second"):
        read_games(path, white="a")
    with pytest.raises(InputError, match="give both points columns"):
        read_games(path, white="a", black="b", first_points="ga")


def test_period_from_a_season_column(tmp_path):
    path = write_as(tmp_path, "g", "csv", {"white": ["a", "b", "c"], "black": ["b", "c", "a"],
                                           "score": [1, 0, 1], "season": [2019, 2021, 2021]})
    g = read_games(path, period="season")
    assert g.period.tolist() == [2019, 2021, 2021]  # integers as they are: 2020 is a gap
    path = write_as(tmp_path, "h", "csv", {"white": ["a", "b", "c"], "black": ["b", "c", "a"],
                                           "score": [1, 0, 1],
                                           "Season": ["2020-21", "2019-20", "2020-21"]})
    g = read_games(path, period="season")  # case-insensitive, strings ranked
    assert g.period.tolist() == [0, 1, 1] and g.order.tolist() == [1, 0, 2]
    assert g.period_labels.tolist() == ["2019-20", "2020-21"]


def test_period_spec_with_a_time_column(tmp_path):
    path = write_as(tmp_path, "g", "csv", {
        "date": ["2024-01-07", "2024-01-08", "2024-01-14", "2024-01-15"],
        "white": ["a", "b", "c", "a"], "black": ["b", "c", "a", "c"], "score": [1, 0, 1, 0]})
    g = read_games(path, period="1w")
    assert np.diff(g.period).tolist() == [1, 0, 1]  # Sunday 7th | Mon 8th - Sun 14th | Mon 15th
    assert g.period[1] == (np.datetime64("2024-01-08") - np.datetime64("1970-01-05")).astype(
        int) // 7
    g = read_games(path, period="month")
    assert g.period.tolist() == [648] * 4


def test_yyyymmdd_integer_dates(tmp_path):
    path = write_as(tmp_path, "g", "csv.gz", {
        "tourney_date": [20240105, 19680708, 20240229], "winner_id": [1, 2, 3],
        "loser_id": [2, 3, 1]})
    g = read_games(path)
    assert g.order.tolist() == [1, 0, 2]
    assert g.time.tolist() == np.array(["1968-07-08", "2024-01-05", "2024-02-29"],
                                       dtype="M8[ns]").tolist()
    # an integer column named *date* outside the YYYYMMDD range is a plain number
    path = write_as(tmp_path, "h", "csv", {"date": [1, 2], "white": ["a", "b"],
                                           "black": ["b", "a"], "score": [1, 0]})
    assert read_games(path).time.tolist() == [1.0, 2.0]


def test_impossible_yyyymmdd_date_names_the_line(tmp_path):
    path = write_as(tmp_path, "games", "csv", {
        "match_date": [20240105, 20240106, 20230229], "white": ["a", "b", "c"],
        "black": ["b", "c", "a"], "score": [1, 0, 1]})
    with pytest.raises(InputError, match=r"^column 'match_date' must be a date written YYYYMMDD "
                       r"\(e\.g\. 20240531\); found 20230229 at row 3 \(line 4 of games.csv\)$"):
        read_games(path, time="match_date")  # not a recognised name: map it
    assert read_games(path).time is None


def test_time_format(tmp_path):
    path = write_as(tmp_path, "games", "csv", {
        "date": ["31/01/2024", "01/02/2024", "15/01/2024"], "white": ["a", "b", "c"],
        "black": ["b", "c", "a"], "score": [1, 0, 1]})
    g = read_games(path, time_format="%d/%m/%Y")
    assert g.time.tolist() == np.array(["2024-01-15", "2024-01-31", "2024-02-01"],
                                       dtype="M8[ns]").tolist()
    with pytest.raises(InputError, match=r"^column 'date' must match time format '%Y-%m-%d'; "
                       r"found '31/01/2024' at row 1 \(line 2 of games.csv\)$"):
        read_games(path, time_format="%Y-%m-%d")
    with pytest.raises(InputError, match=r"column 'date' must be a date or time .*; found "
                       r"'31/01/2024' at row 1 \(line 2 of games.csv\)"):
        read_games(path)  # without a format, day-first dates are refused


def test_timestamps_and_numeric_times(tmp_path):
    path = write_as(tmp_path, "g", "parquet", {
        "timestamp": pa.array([1_700_000_000, 1_700_003_600], pa.timestamp("s")),
        "white": ["a", "b"], "black": ["b", "a"], "score": [1, 0]})
    g = read_games(path, period="1h")
    assert g.time.dtype == np.dtype("M8[ns]") and g.period[1] - g.period[0] == 1
    path = write_as(tmp_path, "r", "csv", {"time": [0.5, 3.5, 7.5], "white": ["a", "b", "c"],
                                           "black": ["b", "c", "a"], "score": [1, 0, 1]})
    assert read_games(path, period=3).period.tolist() == [0, 1, 2]


# ----------------------------------------------------------------------------------
# errors


def test_misspelled_column_suggests_the_name(tmp_path):
    path = write_as(tmp_path, "games", "csv", {"date": ["2024-01-01"], "white": ["a"],
                                               "black": ["b"], "result": [1]})
    with pytest.raises(InputError, match=r"^no column 'whte' for first players in games.csv "
                       r"\(columns: date, white, black, result\); did you mean 'white'\?$"):
        read_games(path, white="whte", black="black")
    with pytest.raises(InputError, match=r"no column 'resullt' for scores .* did you mean "
                       r"'result'\?"):
        read_games(path, score="resullt")
    with pytest.raises(InputError, match=r"no column 'dat' for times .* did you mean 'date'\?"):
        read_games(path, time="dat")
    with pytest.raises(InputError, match=r"no column 'zzz' for weights in games.csv \(columns: "
                       r"date, white, black, result\)$"):
        read_games(path, weight="zzz")


def test_unrecognised_layouts(tmp_path):
    path = write_as(tmp_path, "games", "csv", {"a": ["x"], "b": ["y"], "score": [1]})
    with pytest.raises(InputError, match=r"cannot find the player columns in games.csv "
                       r"\(columns: a, b, score\); name them white/black"):
        read_games(path)
    path = write_as(tmp_path, "games", "csv", {"white": ["x"], "black": ["y"], "pts": [1]})
    with pytest.raises(InputError, match=r"cannot find a score column in games.csv"):
        read_games(path)


def test_missing_file_and_unknown_format(tmp_path):
    with pytest.raises(InputError, match="no such file: .*nope.csv"):
        read_games(tmp_path / "nope.csv")
    (tmp_path / "games.xlsx").write_text("x")
    with pytest.raises(InputError, match=r"cannot tell the format of .*games.xlsx: name it "
                       r"\.csv, \.parquet or \.json"):
        read_games(tmp_path / "games.xlsx")
    with pytest.raises(InputError, match="unknown format 'xls': use one of csv, parquet, json"):
        read_games(tmp_path / "games.xlsx", format="xls")
    # an explicit format overrides the name
    (tmp_path / "games.data").write_text("white,black,score\na,b,1\n")
    assert read_games(tmp_path / "games.data", format="csv").n_games == 1


def test_unreadable_and_empty_files(tmp_path):
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(InputError, match=r"cannot read .*bad.parquet as parquet"):
        read_games(tmp_path / "bad.parquet")
    (tmp_path / "empty.csv").write_text("white,black,score\n")
    with pytest.raises(InputError, match=r"^no games: empty.csv has no rows$"):
        read_games(tmp_path / "empty.csv")
    (tmp_path / "empty.json").write_text("[]")
    with pytest.raises(InputError, match="holds no rows"):
        read_games(tmp_path / "empty.json")
    (tmp_path / "ragged.csv").write_text("white,black,score\na,b,1\nc,d\n")
    with pytest.raises(InputError, match=r"cannot read .*ragged.csv as csv: CSV parse error"):
        read_games(tmp_path / "ragged.csv")


@pytest.mark.parametrize(("rows", "pattern"), [
    (["a,b,1", "b,c,0", "c,a,x"],
     r"column 'score' must be a score \(1, 0.5, 0 or a fraction\) or a result such as 1-0, "
     r"0-1, 1/2-1/2; found 'x' at row 3 \(line 4 of games.csv\)"),
    (["a,b,1", "b,c,2", "c,a,0"],
     r"^column 'score' must be in \[0, 1\]; found 2.0 at row 2 \(line 3 of games.csv\)$"),
    (["a,b,1", "b,c,", "c,a,0"],
     r"^column 'score' must not be missing; found a missing value at row 2 \(line 3 of "
     r"games.csv\); drop or fill those rows$"),
    (["a,b,1", "b,c,0", ",a,0"],
     r"^column 'white' must name a player in every row; found a missing value at row 3 "
     r"\(line 4 of games.csv\)"),
    (["a,b,1", "b,b,0", "c,a,0"],
     r"^a player cannot play himself: 'b' is both players at row 2 \(line 3 of games.csv\)"),
])
def test_csv_errors_name_the_file_line(tmp_path, rows, pattern):
    path = tmp_path / "games.csv"
    path.write_text("white,black,score\n" + "\n".join(rows) + "\n")
    with pytest.raises(InputError, match=pattern):
        read_games(path)


def test_csv_time_order_error_names_the_line(tmp_path):
    path = tmp_path / "games.csv.gz"
    path.write_bytes(gzip.compress(b"date,white,black,score\n2024-01-02,a,b,1\n"
                                   b"2024-01-03,b,c,1\n2024-01-01,c,a,0\n"))
    with pytest.raises(InputError, match=r"column 'date' must be nondecreasing .* found "
                       r"2024-01-01 at row 3 \(line 4 of games.csv.gz\); sort the input"):
        read_games(path, sort=False)


def test_non_csv_errors_name_the_row_only(tmp_path):
    path = write_as(tmp_path, "games", "parquet", {"white": ["a", "b"], "black": ["b", "c"],
                                                   "score": [1.0, 3.0]})
    with pytest.raises(InputError, match=r"found 3.0 at row 2 of games.parquet$"):
        read_games(path)


def test_only_the_needed_columns_are_read(tmp_path, monkeypatch):
    path = write_as(tmp_path, "games", "csv", {
        "notes": ["x", "y"], "date": ["2024-01-01", "2024-01-02"], "white": ["a", "b"],
        "black": ["b", "a"], "score": [1, 0], "extra": [1.5, None]})
    asked = []
    real = tables.read_table

    def spy(p, fmt=None, columns=None, dictionary_columns=()):
        asked.append(columns)
        return real(p, fmt, columns=columns, dictionary_columns=dictionary_columns)

    monkeypatch.setattr(tables, "read_table", spy)
    g = read_games(path)
    assert asked == [["white", "black", "score", "date"]]
    assert g.n_games == 2 and g.time is not None
    assert real(path, columns=["score", "white"]).column_names == ["score", "white"]
    with pytest.raises(InputError, match="cannot read .*games.csv as csv"):
        real(path, columns=["nope"])


def test_empty_csv_fields_are_missing(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text('white,black,score\na,b,1\n"",c,0\n')
    with pytest.raises(InputError, match=r"column 'white' must name a player .* at row 2 "
                       r"\(line 3 of games.csv\)"):
        read_games(path)


# ----------------------------------------------------------------------------------
# other inputs


def test_tsv_and_compressed_json(tmp_path):
    (tmp_path / "g.tsv").write_text("white\tblack\tscore\na\tb\t1\n")
    assert read_games(tmp_path / "g.tsv").score.tolist() == [1.0]
    (tmp_path / "g.json.gz").write_bytes(gzip.compress(json.dumps(
        [{"white": "a", "black": "b", "score": 0.5}]).encode()))
    assert read_games(tmp_path / "g.json.gz").score.tolist() == [0.5]
    (tmp_path / "cols.json").write_text(json.dumps({"white": ["a", "b"], "black": ["b", "a"],
                                                    "score": [1, 0]}))
    assert read_games(tmp_path / "cols.json").n_games == 2


def test_from_frame_pandas_and_arrow():
    frame = pd.DataFrame({"home_team": ["A", "B", "C"], "away_team": ["B", "C", "A"],
                          "home_score": [1, 0, 2], "away_score": [0, 0, 3],
                          "date": pd.to_datetime(["2024-01-03", "2024-01-01", "2024-01-02"])})
    for data in (frame, pa.Table.from_pandas(frame, preserve_index=False)):
        g = Games.from_frame(data)
        assert g.order.tolist() == [1, 2, 0]
        assert g.to_input_order(g.score).tolist() == [1.0, 0.5, 0.0]
        assert g.to_input_order(g.margin).tolist() == [1.0, 0.0, -1.0]
        assert g.players.names.tolist() == ["A", "B", "C"]
    g = Games.from_frame({"p1": ["x"], "p2": ["y"], "s": [0.5]}, white="p1", black="p2",
                         score="s")
    assert g.score.tolist() == [0.5]
    with pytest.raises(InputError, match="expected a table .* got int"):
        Games.from_frame(3)
    with pytest.raises(InputError, match=r"^no games: the input has no rows$"):
        Games.from_frame(pa.table({"white": pa.array([], pa.string()),
                                   "black": pa.array([], pa.string()),
                                   "score": pa.array([], pa.float64())}))


def test_games_from_table_source_names():
    table = pa.table({"white": ["a", "b"], "black": ["b", "a"], "score": [1, 5]})
    with pytest.raises(InputError, match=r"found 5.0 at row 2 \(line 3 of x.csv\)$"):
        games_from_table(table, source="x.csv")
    with pytest.raises(InputError, match=r"found 5.0 at row 2$"):
        games_from_table(table)


def test_read_ratings_for_initial(tmp_path):
    path = tmp_path / "ratings.csv"
    path.write_text("player,rating,games_played,last_period\nann,1612.5,3,7\nbob,1490,1,\n")
    t = read_ratings(path)
    assert t.column("player").to_pylist() == ["ann", "bob"]
    games = Games.from_arrays(["bob"], ["cid"], [1.0])
    r = fastrate.elo.rate(games, initial=t)
    assert r.players.names.tolist() == ["ann", "bob", "cid"]
    assert r["ann"] == 1612.5


# ----------------------------------------------------------------------------------
# writing


@pytest.fixture
def table():
    return pa.table({"player": ["ann", "bob", "ñandú"], "rating": [1612.5, 1490.0, 1500.25],
                     "games_played": [3, 1, 0],
                     "last_period": pa.array([7, 8, None], pa.int64())})


@pytest.mark.parametrize("name", ["out.csv", "out.parquet", "out.json", "out.csv.gz",
                                  "out.csv.zst", "out.json.gz"])
def test_write_round_trip(tmp_path, table, name):
    path = tmp_path / name
    write_table(table, path)
    back = read_table(path)
    assert back.column("player").to_pylist() == ["ann", "bob", "ñandú"]
    assert back.column("rating").to_pylist() == [1612.5, 1490.0, 1500.25]
    assert back.column("games_played").to_pylist() == [3, 1, 0]
    assert back.column("last_period").to_pylist() == [7, 8, None]
    assert sorted(os.listdir(tmp_path)) == [name]  # no temporary file left


def test_write_json_is_an_array_of_records(tmp_path, table):
    write_table(table, tmp_path / "r.json")
    rows = json.loads((tmp_path / "r.json").read_text())
    assert rows[2] == {"player": "ñandú", "rating": 1500.25, "games_played": 0,
                       "last_period": None}


def test_write_other_tables_and_streams(tmp_path):
    write_table({"a": np.array([1, 2]), "b": ["x", "y"]}, tmp_path / "d.csv")
    assert (tmp_path / "d.csv").read_text().splitlines() == ['"a","b"', '1,"x"', '2,"y"']
    write_table(pd.DataFrame({"a": [1.5]}), tmp_path / "p.parquet")
    assert pq.read_table(tmp_path / "p.parquet").column("a").to_pylist() == [1.5]
    buf = io.BytesIO()
    write_table({"a": [1]}, None, format="json", stream=buf)
    assert json.loads(buf.getvalue()) == [{"a": 1}]
    buf = io.BytesIO()
    write_table({"a": [1]}, None, stream=buf)
    assert buf.getvalue().decode().splitlines() == ['"a"', "1"]
    with pytest.raises(InputError, match="unknown format 'xml'"):
        write_table({"a": [1]}, None, format="xml", stream=io.BytesIO())


def test_write_replaces_an_existing_file(tmp_path, table):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    write_table(table, path)
    assert read_table(path).num_rows == 3


def test_failed_write_leaves_no_file(tmp_path, table, monkeypatch):
    def broken(tbl, fh, fmt):
        fh.write(b"partial")
        raise RuntimeError("disk full")

    monkeypatch.setattr(tables, "_write", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        write_table(table, tmp_path / "out.csv")
    assert os.listdir(tmp_path) == []
    # an existing file is left as it was
    (tmp_path / "out.csv").write_text("old\n")
    with pytest.raises(RuntimeError, match="disk full"):
        write_table(table, tmp_path / "out.csv")
    assert os.listdir(tmp_path) == ["out.csv"]
    assert (tmp_path / "out.csv").read_text() == "old\n"


def test_failed_conversion_mid_write_leaves_no_file(tmp_path):
    # the CSV writer refuses a list column after the temporary file was opened
    nested = pa.table({"a": [1, 2], "b": pa.array([[1, 2], [3]])})
    with pytest.raises(pa.ArrowException):
        write_table(nested, tmp_path / "out.csv")
    assert os.listdir(tmp_path) == []


def test_write_to_a_missing_folder(tmp_path, table):
    with pytest.raises(InputError, match=r"cannot write .*out.csv: folder .*nowhere does not "
                       r"exist"):
        write_table(table, tmp_path / "nowhere" / "out.csv")
    with pytest.raises(InputError, match="cannot tell the format of .*out.txt2"):
        write_table(table, tmp_path / "out.txt2")
    with pytest.raises(InputError, match="Parquet is compressed inside the file; name it "
                       ".parquet"):
        write_table(table, tmp_path / "out.parquet.gz")
    assert os.listdir(tmp_path) == []


# ----------------------------------------------------------------------------------
# the bundled example


def test_load_example_football():
    g = load_example("football")
    assert g.n_games == 49_520
    assert 330 <= g.n_players <= 345
    assert g.time.dtype == np.dtype("M8[ns]") and g.order is None  # already chronological
    assert g.time[0] == np.datetime64("1872-11-30")
    assert names_of(g, g.white[:1]) == ["Scotland"] and names_of(g, g.black[:1]) == ["England"]
    assert g.score[0] == 0.5 and g.margin[0] == 0.0
    assert set(np.unique(g.score).tolist()) == {0.0, 0.5, 1.0}
    assert ((g.margin > 0) == (g.score == 1.0)).all()
    assert g.neutral.dtype == np.bool_ and 0.1 < g.neutral.mean() < 0.5
    assert set(np.unique(g.weight * 40).tolist()) == {20.0, 30.0, 40.0, 50.0, 60.0}
    assert np.isin(["Brazil", "England", "Japan"], g.players.names).all()
    assert fastrate.example_path("football").name == "intl_football.csv.gz"
    with pytest.raises(InputError, match="unknown example 'chess': choose one of football"):
        load_example("chess")


def test_load_example_with_periods():
    g = load_example(period="year")
    assert g.period[0] == 1872 - 1970 and g.period[-1] >= 2024 - 1970
    assert (np.diff(g.period) >= 0).all()


def test_reading_and_writing_do_not_import_pandas(tmp_path):
    # pyarrow's own NumPy conversions import pandas (~0.3 s per process); the I/O path and
    # Ratings.to_arrow() avoid them
    code = textwrap.dedent("""
        import sys
        import numpy as np
        import fastrate
        from fastrate.data import Ratings
        g = fastrate.load_example()
        n = g.n_players
        r = Ratings("x", g.players, np.zeros(n), np.zeros(n, np.int64), g.score,
                    last_period=np.zeros(n, np.int64))
        fastrate.write_table(r.to_arrow(), sys.argv[1])
        fastrate.write_table(r.to_arrow(), sys.argv[1] + ".parquet")
        print("pandas" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "r.csv")],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    assert read_table(tmp_path / "r.csv").num_rows == load_example().n_players


# ----------------------------------------------------------------------------------
# real data (shared, not shipped)


def test_tennis_atp_self_play_rows_are_refused(shared_data):
    path = shared_data / "tennis_atp" / "atp_singles_1968_2024_compact.csv.gz"
    if not path.exists():
        pytest.skip("tennis_atp not present")
    with pytest.raises(InputError, match=r"a player cannot play himself: 199999 is both "
                       r"players at row 5364 \(line 5365 of atp_singles_1968_2024_compact"):
        read_games(path, winner="winner_id", loser="loser_id")
    table = read_table(path, columns=["tourney_date", "winner_id", "loser_id"])
    keep = pa.compute.not_equal(table["winner_id"], table["loser_id"])
    g = Games.from_frame(table.filter(keep))
    assert g.n_games == 916_641 and g.n_players == 28_564
    assert g.time[0] == np.datetime64("1967-12-28")
    assert (np.diff(g.time.view(np.int64)) >= 0).all()


# ----------------------------------------------------------------------------------
# Arrow <-> NumPy without pandas, checked against pyarrow's own conversions


_NUMERIC = [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint8(), pa.uint32(),
            pa.uint64(), pa.float32(), pa.float64()]


@settings(max_examples=50)
@given(st.sampled_from(_NUMERIC), st.lists(st.integers(0, 100), min_size=0, max_size=30),
       st.integers(0, 5), st.integers(0, 5), st.booleans())
def test_arrow_to_numpy_numbers(typ, values, start, stop, chunked):
    arr = pa.array(values, typ)
    arr = arr.slice(min(start, len(arr)), max(0, len(arr) - start - stop))  # an offset view
    x = pa.chunked_array([arr, arr]) if chunked else arr
    got = arrow_to_numpy(x)
    expect = x.to_numpy()
    assert got.dtype == expect.dtype and got.tolist() == expect.tolist()


@settings(max_examples=50)
@given(st.lists(st.booleans(), max_size=40), st.integers(0, 9), st.booleans())
def test_arrow_to_numpy_booleans(values, start, chunked):
    arr = pa.array(values, pa.bool_()).slice(min(start, len(values)))
    x = pa.chunked_array([arr, arr]) if chunked else arr
    got = arrow_to_numpy(x)
    assert got.dtype == np.bool_ and got.tolist() == x.to_pylist()


@pytest.mark.parametrize("typ", [pa.timestamp("s"), pa.timestamp("ms"), pa.timestamp("us"),
                                 pa.timestamp("ns"), pa.timestamp("s", tz="UTC"), pa.date32(),
                                 pa.date64()])
def test_arrow_to_numpy_times(typ):
    base = pa.array([0, 86_400, 1_700_000_000], pa.timestamp("s"))
    arr = base.cast(typ).slice(1)
    got = arrow_to_numpy(arr)
    expect = arr.to_numpy(zero_copy_only=False)
    assert got.dtype == expect.dtype and (got == expect).all()


def test_arrow_to_numpy_strings_and_nulls():
    got = arrow_to_numpy(pa.chunked_array([["a", None], ["ü"]]))
    assert got.dtype == object and got.tolist() == ["a", None, "ü"]
    got = arrow_to_numpy(pa.array([1, None, 3]))  # nulls: pyarrow's conversion, NaN
    assert np.isnan(got[1]) and got[2] == 3
    assert arrow_to_numpy(pa.chunked_array([], pa.int64())).tolist() == []


@settings(max_examples=50)
@given(st.sampled_from(["int64", "int32", "uint8", "float64", "float32", "bool", "M8[s]",
                        "M8[ms]", "M8[ns]"]),
       st.lists(st.integers(-1000, 1000), max_size=30), st.data())
def test_numpy_to_arrow_matches_pyarrow(dtype, values, data):
    x = np.array(values).astype(dtype) if dtype != "uint8" else np.abs(values).astype(dtype)
    x = x[::2] if data.draw(st.booleans()) else x  # not contiguous
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))),
                    dtype=bool)
    for m in (None, mask):
        got = numpy_to_arrow(x, mask=m)
        expect = pa.array(x, mask=m)
        got.validate(full=True)
        assert got.type == expect.type and got.equals(expect)


@settings(max_examples=40)
@given(st.lists(st.text(max_size=6), max_size=20), st.data())
def test_numpy_to_arrow_strings(values, data):
    x = np.empty(len(values), dtype=object)
    x[:] = values
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=len(x), max_size=len(x))),
                    dtype=bool)
    got = numpy_to_arrow(x, mask=mask)
    got.validate(full=True)
    assert got.equals(pa.array(values, pa.string(), mask=mask))
    assert numpy_to_arrow(np.array(values, dtype=str)).to_pylist() == [
        v.rstrip("\x00") for v in values]


def test_numpy_to_arrow_fallbacks():
    x = np.array(["2024-01-01", "NaT"], dtype="M8[ns]")
    assert numpy_to_arrow(x).to_pylist()[1] is None
    assert numpy_to_arrow(np.array(["2024-01-01"], dtype="M8[D]")).type == pa.date32()


def test_drop_self_play_counts_rows_and_keeps_original_row_numbers(tmp_path):
    src = tmp_path / "games.csv"
    src.write_text("white,black,score\na,b,1\nc,c,1\nd,d,0\na,c,2\n")
    with pytest.raises(InputError, match=r"cannot play himself: 'c' .* row 2 \(line 3"):
        read_games(src)
    # dropped rows are reported, and later errors still name the original line
    with pytest.raises(InputError, match=r"found 2\.0 at row 4 \(line 5 of games\.csv\)"):
        read_games(src, drop_self_play=True)
    src.write_text("white,black,score\na,b,1\nc,c,1\nd,d,0\na,c,0.5\n")
    games = read_games(src, drop_self_play=True)
    assert games.n_games == 2
    assert games.dropped == (("a player plays himself", 2, "row 2 (line 3 of games.csv)"),)


def test_cli_drop_self_play_reports_skipped_rows(tmp_path):
    from click.testing import CliRunner

    from fastrate.cli import main

    src = tmp_path / "games.csv"
    src.write_text("white,black,score\na,b,1\nc,c,1\na,c,0.5\n")
    result = CliRunner().invoke(main, ["rate", str(src), "--drop-self-play"])
    assert result.exit_code == 0, result.output
    assert "skipped 1 row where a player plays himself (first at row 2 (line 3" in result.stderr


# -- output files: mode, format clash; initial ratings name their file ---------------

def test_written_files_get_the_usual_mode(tmp_path: Path):
    table = pa.table({"x": [1, 2]})
    mask = os.umask(0o022)
    try:
        write_table(table, tmp_path / "new.csv")
        assert (tmp_path / "new.csv").stat().st_mode & 0o777 == 0o644  # not mkstemp's 0600
        old = tmp_path / "old.csv"
        old.write_text("x\n0\n")
        old.chmod(0o640)
        write_table(table, old)  # replacing keeps the file's mode
        assert old.stat().st_mode & 0o777 == 0o640 and old.read_text().startswith('"x"')
    finally:
        os.umask(mask)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.csv", "old.csv"]


def test_format_that_contradicts_the_file_name_is_refused(tmp_path: Path):
    table = pa.table({"x": [1]})
    with pytest.raises(InputError, match="its name says parquet but the format asked for is "
                                         "csv"):
        write_table(table, tmp_path / "out.parquet", "csv")
    assert list(tmp_path.iterdir()) == []
    write_table(table, tmp_path / "out.data", "json")  # an unknown suffix: the format decides
    write_table(table, tmp_path / "out.csv.gz", "csv")
    assert json.loads((tmp_path / "out.data").read_text()) == [{"x": 1}]


def test_initial_ratings_errors_name_the_file_and_line(tmp_path: Path):
    path = tmp_path / "start.csv"
    path.write_text("player,rating\na,1500\nb,abc\n")
    games = Games.from_arrays(["a"], ["b"], [1.0])
    with pytest.raises(InputError, match=r"column 'rating' must be numeric; found 'abc' at "
                                         r"row 2 \(line 3 of start.csv\)"):
        fastrate.elo.rate(games, initial=fastrate.read_ratings(path))
    path.write_text("player,rating\na,1500\nb,1400\na,1300\n")
    with pytest.raises(InputError, match=r"player 'a' twice \(again at row 3 \(line 4 of "
                                         r"start.csv\)\)"):
        fastrate.glicko.rate(games, initial=fastrate.read_ratings(path))


def test_parquet_player_names_are_read_as_dictionaries(tmp_path):
    """Text player columns of a Parquet file come as Arrow dictionary arrays (the
    interning hashes each distinct name once); the games are the same as from CSV."""
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from fastrate.io import tables

    t = pa.table({"white": ["a", "b", "c", "a"], "black": ["b", "c", "a", "c"],
                  "score": ["1-0", "1/2-1/2", "0-1", "1-0"]})
    pq.write_table(t, tmp_path / "g.parquet")
    pacsv.write_csv(t, tmp_path / "g.csv")
    read = tables.read_table(tmp_path / "g.parquet", dictionary_columns=("white", "black"))
    assert pa.types.is_dictionary(read.column("white").type)
    assert not pa.types.is_dictionary(read.column("score").type)
    a, b = read_games(tmp_path / "g.parquet"), read_games(tmp_path / "g.csv")
    assert a.players.names.tolist() == b.players.names.tolist() == ["a", "b", "c"]
    assert a.white.tolist() == b.white.tolist() and a.score.tolist() == b.score.tolist()
    assert read_games(tmp_path / "g.parquet", drop_self_play=True).n_games == 4
