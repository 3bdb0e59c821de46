"""Reading placement files (fastrate.io.placement): a placement log or a counts table in
every format, the seating log of PGA detection, reference-profile files, and every error
the readers raise, matched by message. The statistics on what they read are tested in
tests/test_placement.py (the CLI's regression tests included)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate import placement as P
from fastrate.errors import InputError
from fastrate.io.placement import (
    LEVEL_COLUMN,
    PLACE_COLUMN,
    PlacementInput,
    read_placement,
    read_profile,
    read_seating,
)
from fastrate.io.tables import write_table

LOG = ("game,player,place,points,level,time\n1,a,1,60,0,1.5\n1,b,2,42,0,1.5\n"
       "2,b,1,60,1,2.5\n2,a,2,42,1,2.5\n")
COUNTS = "player,p1,p2,p3,points,level0,level2\nx,5,3,2,12.5,40,60\ny,0,1,9,-3,100,0\n"


def _write(folder: Path, name: str, text: str) -> Path:
    """``text`` (a CSV) as the file ``name``: .csv, .csv.gz, .parquet or .json."""
    path = folder / name
    if name.endswith((".parquet", ".json")):
        from pyarrow import csv

        write_table(csv.read_csv(pa.BufferReader(text.encode())), path)
    elif name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


FORMATS = ["t.csv", "t.csv.gz", "t.parquet", "t.json"]


# ----------------------------------------------------------------------------------
# the two layouts, in every format


@pytest.mark.parametrize("name", FORMATS)
def test_a_log_is_read_as_it_is(tmp_path, name):
    data = read_placement(_write(tmp_path, name, LOG))
    assert isinstance(data, PlacementInput) and data.kind == "log"
    assert data.player.tolist() == ["a", "b", "b", "a"]
    assert data.place.tolist() == [1, 2, 1, 2]
    assert data.game.tolist() == [1, 1, 2, 2]
    assert data.points.tolist() == [60, 42, 60, 42]
    assert data.level.tolist() == [0, 0, 1, 1]
    assert data.time.tolist() == [1.5, 1.5, 2.5, 2.5]
    assert data.counts is None and data.levels is None
    assert data.columns == ("game", "player", "place", "points", "level", "time")
    assert data.source.name == name
    assert data.source.first_line == (2 if ".csv" in name else 0)


@pytest.mark.parametrize("name", FORMATS)
def test_a_counts_table_is_read_and_checked(tmp_path, name):
    data = read_placement(_write(tmp_path, name, COUNTS))
    assert data.kind == "counts"
    assert data.player.tolist() == ["x", "y"]
    assert data.counts.dtype == np.int64
    assert data.counts.tolist() == [[5, 3, 2], [0, 1, 9]]
    assert data.points.dtype == np.float64 and data.points.tolist() == [12.5, -3.0]
    # levels without a column are zero
    assert data.levels.tolist() == [[40, 0, 60, 0, 0, 0], [100, 0, 0, 0, 0, 0]]
    assert data.place is None and data.game is None and data.level is None
    assert data.time is None


def test_a_log_without_optional_columns(tmp_path):
    data = read_placement(_write(tmp_path, "l.csv", "player,place\na,1\nb,2\n"))
    assert data.kind == "log"
    assert (data.game, data.points, data.level, data.time) == (None, None, None, None)


def test_a_counts_table_without_points_or_levels(tmp_path):
    data = read_placement(_write(tmp_path, "c.csv", "player,p1,p2\nx,1,2\n"))
    assert data.points is None and data.levels is None


def test_columns_are_matched_in_any_case_and_errors_name_the_files_column(tmp_path):
    data = read_placement(_write(tmp_path, "l.csv", "Game,PLAYER,Place\n1,a,1\n1,b,2\n"))
    assert data.kind == "log" and data.player.tolist() == ["a", "b"]
    assert data.source.column("place") == "Place"
    with pytest.raises(InputError, match=r"column 'Place' must be in 1\.\.2; found 3 at row 2 "
                       r"\(line 3 of l\.csv\)"):
        P.profiles_from_log(data.player, [1, 3], 2, source=data.source)


def test_place_columns_are_ordered_by_number_in_every_spelling(tmp_path):
    text = "player,P3,place_1,Place2,L_1,Level5\nx,3,1,2,10,90\n"
    data = read_placement(_write(tmp_path, "c.csv", text))
    assert data.counts.tolist() == [[1, 2, 3]]
    assert data.levels.tolist() == [[0, 10, 0, 0, 0, 90]]
    assert PLACE_COLUMN.match("p12").group(1) == "12" and not PLACE_COLUMN.match("points")
    assert LEVEL_COLUMN.match("level_0") and not LEVEL_COLUMN.match("level6")


def test_fractional_counts_are_float(tmp_path):
    data = read_placement(_write(tmp_path, "c.csv", "player,p1,p2\nx,1.5,2\n"))
    assert data.counts.dtype == np.float64 and data.counts.tolist() == [[1.5, 2.0]]


def test_places_must_match_a_counts_table_and_pass_a_log(tmp_path):
    counts = _write(tmp_path, "c.csv", "player,p1,p2,p3\na,5,3,2\n")
    assert read_placement(counts, places=3).counts.shape == (1, 3)
    with pytest.raises(InputError, match=re.escape(
            f"--places 5 does not match the 3 place columns of the counts table {counts} "
            "(p1..p3); --places is for a log")):
        read_placement(counts, places=5)
    log = _write(tmp_path, "l.csv", "player,place\na,1\n")
    assert read_placement(log, places=7).kind == "log"  # k is the statistics' business


def test_format_is_taken_from_the_argument(tmp_path):
    path = _write(tmp_path, "c.data", "player,p1,p2\nx,1,2\n")
    assert read_placement(path, "csv").counts.tolist() == [[1, 2]]
    assert read_placement(path, "csv").source.first_line == 2


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.integers(0, 10**6), min_size=2, max_size=7), min_size=1,
                max_size=20).filter(lambda rows: len({len(r) for r in rows}) == 1))
def test_counts_round_trip_through_parquet(tmp_path_factory, rows):
    k = len(rows[0])
    path = tmp_path_factory.mktemp("rt") / "c.parquet"
    table = {"player": [f"p{i}" for i in range(len(rows))]}
    table.update({f"p{j + 1}": [r[j] for r in rows] for j in range(k)})
    pq.write_table(pa.table(table), path)
    data = read_placement(path)
    np.testing.assert_array_equal(data.counts, np.array(rows, dtype=np.int64))
    assert data.player.tolist() == table["player"]


# ----------------------------------------------------------------------------------
# the check hook


def test_check_sees_the_layout_before_the_columns_are_read(tmp_path):
    seen = []

    def check(kind, columns):
        seen.append((kind, columns))
        raise InputError("refused")

    # a counts table with a gap: the hook runs first and its error wins
    gap = _write(tmp_path, "g.csv", "player,p1,p3\nx,1,2\n")
    with pytest.raises(InputError, match="^refused$"):
        read_placement(gap, check=check)
    log = _write(tmp_path, "l.csv", "Player,Place\na,1\n")
    with pytest.raises(InputError, match="^refused$"):
        read_placement(log, check=check)
    assert seen == [("counts", ("player", "p1", "p3")), ("log", ("Player", "Place"))]
    # a check that passes changes nothing
    assert read_placement(log, check=lambda kind, columns: None).place.tolist() == [1]


def test_check_runs_after_the_file_checks(tmp_path):
    def check(kind, columns):
        raise AssertionError("must not run")

    empty = _write(tmp_path, "e.csv", "player,place\n")
    with pytest.raises(InputError, match="no rows"):
        read_placement(empty, check=check)


# ----------------------------------------------------------------------------------
# errors, matched by message


@pytest.mark.parametrize("text, message", [
    ("name,score\na,1\n",
     r"no column 'player' in {f} \(columns: name, score\); a log needs game, player, place "
     r"and a counts table player, p1\.\.pk"),
    ("game,player,place\n", r"no rows: {f} has no data rows \(columns: game, player, place\)"),
    ("player,p1,p2\n", r"no rows: {f} has no data rows \(columns: player, p1, p2\)"),
    ("player,score\na,1\n",
     r"{f} has neither a 'place' column \(a log: game, player, place\) nor p1\.\.pk columns "
     r"\(a counts table\); columns: player, score"),
    ("player,p1,p3\na,1,2\n",
     r"the place columns of {f} must be p1\.\.pk without gaps; found p1, p3"),
    ("player,p2,p3\na,1,2\n",
     r"the place columns of {f} must be p1\.\.pk without gaps; found p2, p3"),
    ("player,p1,p2,p3\na,1,-2,3\n",
     r"column 'p2' must be in \[0, inf\]; found -2 at row 1 \(line 2 of bad\.csv\)"),
    ("player,p1,p2,p3\na,1,,3\n",
     r"column 'p2' must be a finite number.*line 2 of bad\.csv"),
    ("player,p1,p2,p3\na,1,x,3\n", r"column 'p2' must be numeric; found 'x'"),
    ("player,p1,p2\na,1,2\nb,1,inf\n", r"column 'p2' must be a finite number.*line 3 of bad"),
    ("player,p1,p2,Points\na,1,2,lots\n", r"column 'Points' must be numeric; found 'lots'"),
    ("player,p1,p2,level3\na,1,2,x\n", r"column 'level3' must be numeric; found 'x'"),
])
def test_read_placement_errors(tmp_path, text, message):
    bad = _write(tmp_path, "bad.csv", text)
    with pytest.raises(InputError, match=message.replace("{f}", re.escape(str(bad)))):
        read_placement(bad)


def test_read_placement_file_errors(tmp_path):
    with pytest.raises(InputError, match="no such file: .*missing.csv"):
        read_placement(tmp_path / "missing.csv")
    with pytest.raises(InputError, match=r"cannot tell the format of .*c\.xyz"):
        read_placement(_write(tmp_path, "c.xyz", "player,p1\nx,1\n"))
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    with pytest.raises(InputError, match=r"cannot read .*bad\.parquet as parquet"):
        read_placement(bad)


# ----------------------------------------------------------------------------------
# seating logs (PGA)


@pytest.mark.parametrize("name", ["s.csv", "s.csv.gz", "s.parquet"])
def test_read_seating(tmp_path, name):
    text = "Game,player,seat,watchers,capacity\n1,a,1,3,7\n1,b,2,2,7\n"
    log = read_seating(_write(tmp_path, name, text))
    assert log.game.tolist() == [1, 1] and log.player.tolist() == ["a", "b"]
    assert log.seat.tolist() == [1, 2] and log.watchers.tolist() == [3, 2]
    assert log.capacity.tolist() == [7, 7]
    assert log.source.name == name and log.source.column("game") == "Game"
    r = P.pga(log.game, log.player, log.seat, log.watchers, capacity=log.capacity,
              source=log.source)
    assert r["x"].tolist() == ["a", "b"]


def test_read_seating_without_capacity(tmp_path):
    log = read_seating(_write(tmp_path, "s.csv", "game,player,seat,watchers\n1,a,1,3\n"))
    assert log.capacity is None


def test_read_seating_errors(tmp_path):
    bad = _write(tmp_path, "bad.csv", "game,player\n1,a\n")
    with pytest.raises(InputError, match=re.escape(
            f"no column 'seat', 'watchers' in {bad} (columns: game, player); a seating log "
            "needs game, player, seat, watchers")):
        read_seating(bad)
    empty = _write(tmp_path, "empty.csv", "game,player,seat,watchers\n")
    with pytest.raises(InputError, match=re.escape(
            f"no rows: {empty} has no data rows (columns: game, player, seat, watchers)")):
        read_seating(empty)
    with pytest.raises(InputError, match="no such file"):
        read_seating(tmp_path / "missing.csv")


# ----------------------------------------------------------------------------------
# reference-profile files


@pytest.mark.parametrize("text, numbers", [
    ("10 10 10.3 12.9 15.5 17.2 19.4\n", [10, 10, 10.3, 12.9, 15.5, 17.2, 19.4]),
    ("10-10-10.3-12.9-15.5-17.2-19.4", [10, 10, 10.3, 12.9, 15.5, 17.2, 19.4]),
    ("50, 30, 20\n", [50, 30, 20]),
    ("50;30;20", [50, 30, 20]),
    ("50\n30\n20\n", [50, 30, 20]),
    ("\t5e-1 3E-1\t2e-1 \n", [0.5, 0.3, 0.2]),  # a minus after an exponent is a sign
    ("1 -2 3", [1, -2, 3]),  # ... and after a separator
    ("1,-2;-3", [1, -2, -3]),
    ("1.-2", [1, 2]),  # after a number's dot it is the essay's dash
    ("1--2", [1, -2]),  # a dash, then a sign
    ("", []),
])
def test_read_profile(tmp_path, text, numbers):
    path = tmp_path / "ref.txt"
    path.write_text(text)
    got = read_profile(path)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, numbers)


def test_read_profile_reads_the_essays_tazd(tmp_path):
    path = tmp_path / "tazd.txt"
    path.write_text("10-10-10.3-12.9-15.5-17.2-19.4\n")
    with pytest.warns(P.ProfileWarning, match="sums to 95.3"):  # as the essay prints it
        got = P.placement_stats([[5, 3, 2, 4, 4, 4, 5]], reference=read_profile(path))
    assert got["vs_reference"][0] == pytest.approx(P.tazd([5, 3, 2, 4, 4, 4, 5]))


@pytest.mark.parametrize("text", ["10 ten 20", "1 2 3%", "1-+-2", "a,b"])
def test_read_profile_errors(tmp_path, text):
    path = tmp_path / "ref.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=re.escape(
            f"file {path} must hold only the k numbers of a profile (e.g. 10 10 10.3 12.9 "
            "15.5 17.2 19.4)")):
        read_profile(path)
    with pytest.raises(InputError, match="no such file: .*nope.txt"):
        read_profile(tmp_path / "nope.txt")


# ----------------------------------------------------------------------------------
# the command line reads with these readers: its messages are unchanged


def test_cli_reference_file_error_names_the_option(tmp_path):
    from click.testing import CliRunner

    from fastrate.cli import main

    counts = _write(tmp_path, "c.csv", "player,p1,p2,p3\na,5,3,2\n")
    ref = tmp_path / "ref.txt"
    ref.write_text("10 ten 20")
    res = CliRunner().invoke(main, ["placement", "stats", str(counts), "--reference", str(ref)])
    assert res.exit_code == 1
    assert res.stderr.strip() == (f"fastrate: error: --reference file {ref} must hold only "
                                  "the k numbers of a profile (e.g. 10 10 10.3 12.9 15.5 17.2 "
                                  "19.4)")


def test_cli_taowr_refuses_a_broken_counts_table_as_a_counts_table(tmp_path):
    """--reference taowr names the missing log before any counts-table error."""
    from click.testing import CliRunner

    from fastrate.cli import main

    gap = _write(tmp_path, "g.csv", "player,p1,p3\nx,1,2\n")
    res = CliRunner().invoke(main, ["placement", "stats", str(gap), "--reference", "taowr"])
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        f"fastrate: error: --reference taowr needs a placement log (columns game, time, "
        f"player, place, points), not a counts table; {gap} has columns player, p1, p3")
