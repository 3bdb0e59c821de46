"""Hostile input to the readers (issue 15, sections 2, 4 and 7): times read exactly or
refused, text decoded or refused with its row and byte, messages that name the column,
row and value, and property-based fuzzing of the CSV, JSON and Parquet readers (either
a FastrateError of one line, or games whose numbers are all finite)."""

from __future__ import annotations

import gzip
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fastrate
from fastrate.cli import main
from fastrate.data import parse_time
from fastrate.errors import FastrateError, InputError, InputTypeError
from fastrate.io.matches import read_matches
from fastrate.io.tables import read_games, read_table, write_table


def write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, str):
        text = text.encode()
    path.write_bytes(text)
    return path


def cli(*args: str):
    return CliRunner().invoke(main, [*map(str, args)])


def last_line(res) -> str:
    return res.output.strip().splitlines()[-1]


# ----------------------------------------------------------------------------------
# section 2: time


def test_mixed_date_forms_are_each_read_exactly(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,score,date\na,b,1,2024-01-01\n"
                 "b,c,0,2024-01-02T10:00:00\nc,a,1,20240103\nd,a,1,2024-01-04 08:30\n")
    g = read_games(path)
    assert g.time.tolist() == np.array(["2024-01-01", "2024-01-02T10:00", "2024-01-03",
                                        "2024-01-04T08:30"], dtype="datetime64[ns]").tolist()
    assert g.order is None


@pytest.mark.parametrize("date", ["1500-01-01", "3000-01-08", "1677-09-22", "2262-04-11"])
def test_dates_outside_datetime64_ns_are_refused_not_wrapped(tmp_path, date):
    path = write(tmp_path / "g.csv", f"white,black,score,date\na,b,1,2024-01-02\nb,c,0,{date}\n")
    with pytest.raises(InputError, match=rf"^column 'date' must be a time from "
                       rf"1677-09-23 to 2262-04-10 .*; found .*{date}.* "
                       r"at row 2 \(line 3 of g.csv\); give such times as numbers"):
        read_games(path)


def test_dates_at_the_edges_of_the_range_are_read(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,score,date\na,b,1,1677-09-23\n"
                 "b,c,0,2262-04-10T23:59:59\n")
    g = read_games(path)
    assert g.time.astype("datetime64[D]").tolist() == np.array(
        ["1677-09-23", "2262-04-10"], dtype="datetime64[D]").tolist()
    assert read_games(path, period="month").period.tolist() == [
        (1677 - 1970) * 12 + 8, (2262 - 1970) * 12 + 3]


@pytest.mark.parametrize("values", [
    np.array(["1500-01-01", "2024-01-01"], dtype="datetime64[D]"),
    np.array(["2024-01-01", "3000-01-08T00:00:00"], dtype="datetime64[s]"),
    np.array(["1500", "2024"], dtype="datetime64[Y]"),
    ["2024-01-01", "1500-01-01"],
])
def test_out_of_range_times_are_refused_in_the_api(values):
    with pytest.raises(InputError, match="must be a time from 1677-09-23"):
        parse_time(values)


def test_out_of_range_parquet_timestamps_and_yyyymmdd_integers(tmp_path):
    t = pa.table({"white": ["a", "b"], "black": ["b", "c"], "score": [1.0, 0.0],
                  "date": pa.array([np.datetime64("2024-01-01", "us"),
                                    np.datetime64("1500-01-01", "us")])})
    pq.write_table(t, tmp_path / "g.parquet")
    with pytest.raises(InputError, match=r"found 1500-01-01.* at row 2 of g.parquet"):
        read_games(tmp_path / "g.parquet")
    path = write(tmp_path / "atp.csv", "winner,loser,tourney_date\na,b,20240101\nb,a,15000101\n")
    with pytest.raises(InputError, match=r"column 'tourney_date' must be a time from .* "
                       r"found 1500-01-01 at row 2"):
        read_games(path)


def test_time_zone_aware_and_naive_mixed_are_refused_without_a_warning(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,score,date\na,b,1,2024-01-01T00:00:00Z\n"
                 "b,c,0,2024-01-02T10:00:00\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=r"^column 'date' must not mix times with and "
                           r"without a UTC offset; found '2024-01-01T00:00:00Z' at row 1 "
                           r"\(line 2 of g.csv\) but '2024-01-02T10:00:00' at row 2"):
            read_games(path)
    res = cli("rate", path)
    assert res.exit_code == 1 and "Warning" not in res.output
    assert last_line(res).startswith("fastrate: error: column 'date' must not mix")


def test_times_with_offsets_are_converted_to_utc():
    import datetime as dt

    got = parse_time(["2024-01-01T02:00+02:00", "2024-01-01T00:00:00Z",
                      "2024-01-01 01:30:00.25 +0130", "2024-01-01T00:00-05"])
    assert got.tolist() == np.array(["2024-01-01T00:00", "2024-01-01T00:00",
                                     "2024-01-01T00:00:00.25", "2024-01-01T05:00"],
                                    dtype="datetime64[ns]").tolist()
    tz = dt.timezone(dt.timedelta(hours=2))
    assert parse_time([dt.datetime(2024, 1, 1, 2, tzinfo=tz)])[0] == np.datetime64(
        "2024-01-01T00:00", "ns")
    with pytest.raises(InputError, match="must not mix"):
        parse_time([dt.datetime(2024, 1, 1, tzinfo=tz), dt.datetime(2024, 1, 2)])


@pytest.mark.parametrize("bad", ["2024-02-30", "2023-02-29", "2024-13-01", "2024-01-01T24:00",
                                 "2024-01-01T10:60", "24-01-01", "2024-1-1", "01/02/2024",
                                 "2024-01-01Z", "20240101T1000", "2024-01-01T10:00+25:00",
                                 "20241301", "yesterday", ""])
def test_impossible_or_unknown_time_strings_are_refused(bad):
    with pytest.raises(InputError, match=r"must be a date or time \(ISO 8601"):
        parse_time(["2024-01-01", bad])


def test_missing_times_are_refused():
    for values in (["2024-01-01", None], np.array(["2024-01-01", "NaT"], dtype="datetime64[D]"),
                   [np.datetime64("2024-01-01"), float("nan")]):
        with pytest.raises(InputError, match="must be a date or time, not missing; .* row 2"):
            parse_time(values)


# ----------------------------------------------------------------------------------
# section 4: text


LATIN = "white,black,score\nJos\xe9,bob,1\nbob,ann,0\n".encode("latin-1")


def test_text_that_is_not_utf8_is_refused_with_row_and_byte(tmp_path):
    path = write(tmp_path / "g.csv", LATIN)
    with pytest.raises(InputError, match=r"^column 'white' must be UTF-8 text; found "
                       r"b'Jos\\xe9' at row 1 \(line 2 of g.csv\); byte 0xe9 at offset 3 of "
                       r"the value does not decode; give the file's encoding with --encoding"):
        read_games(path)
    res = cli("rate", path, "-o", tmp_path / "r.json")
    assert res.exit_code == 1 and "must be UTF-8 text" in last_line(res)
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("fmt", ["json", "csv", "parquet"])
def test_encoding_option_decodes_names(tmp_path, fmt):
    path = write(tmp_path / "g.csv", LATIN)
    g = read_games(path, encoding="latin-1")
    assert g.players.names.tolist() == ["José", "bob", "ann"]
    out = tmp_path / f"r.{fmt}"
    res = cli("rate", path, "--encoding", "latin-1", "-o", out)
    assert res.exit_code == 0, res.output
    names = read_table(out).column("player").to_pylist()
    assert sorted(names) == ["José", "ann", "bob"]
    if fmt == "json":  # written as UTF-8 text, not escaped
        assert "José" in out.read_text(encoding="utf-8")
    assert not any("b'" in n for n in names)


def test_json_in_another_encoding(tmp_path):
    path = write(tmp_path / "g.json", '[{"white": "Jos\xe9", "black": "bob", "score": 1}]'
                 .encode("cp1252"))
    with pytest.raises(InputError, match=r"g.json as json: it is not UTF-8 text; byte 0xe9 at "
                       r"byte offset 15 \(line 1\) does not decode"):
        read_games(path)
    assert read_games(path, encoding="cp1252").players.names.tolist() == ["José", "bob"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32", "utf-8-sig"])
def test_files_with_a_byte_order_mark_are_read_in_its_encoding(tmp_path, encoding):
    text = "white,black,score\nJosé,bob,1\n"
    data = text.encode(encoding)
    if encoding == "utf-16-be":
        data = b"\xfe\xff" + data
    path = write(tmp_path / "a.csv", data)
    assert read_games(path).players.names.tolist() == ["José", "bob"]
    assert cli("rate", path, "--chunk-rows", "1").exit_code == 0


def test_utf16_without_a_byte_order_mark_needs_the_encoding(tmp_path):
    path = write(tmp_path / "a.csv", "white,black,score\nJosé,bob,1\n".encode("utf-16-le"))
    with pytest.raises(InputError, match=r"^cannot read a.csv as csv: it has NUL bytes between "
                       r"its letters, as UTF-16 text does; give --encoding utf-16-le"):
        read_games(path)
    assert read_games(path, encoding="utf-16-le").players.names.tolist() == ["José", "bob"]


def test_parquet_binary_names_are_decoded_or_refused(tmp_path):
    ok = pa.table({"white": pa.array([b"Jos\xc3\xa9", b"bob"]), "black": ["bob", "ann"],
                   "score": [1.0, 0.0]})
    pq.write_table(ok, tmp_path / "ok.parquet")
    assert read_games(tmp_path / "ok.parquet").players.names.tolist() == ["José", "bob", "ann"]
    bad = ok.set_column(0, "white", pa.array([b"bob", b"Jos\xe9"]))
    pq.write_table(bad, tmp_path / "bad.parquet")
    with pytest.raises(InputError, match=r"column 'white' must be UTF-8 text; found "
                       r"b'Jos\\xe9' at row 2 of bad.parquet; byte 0xe9 at offset 3"):
        read_games(tmp_path / "bad.parquet")


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_nul_byte_in_a_name_is_refused(tmp_path, fmt):
    t = pa.table({"white": ["a", "Jo\x00e"], "black": ["b", "c"], "score": [1.0, 0.0]})
    path = tmp_path / f"g.{fmt}"
    write_table(t, path)
    with pytest.raises(InputError, match=r"column 'white' must be text without NUL bytes; "
                       r"found 'Jo\\x00e' at row 2"):
        read_games(path)


def test_unknown_encoding_is_refused(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,score\na,b,1\n")
    with pytest.raises(InputError, match="unknown encoding 'klingon'"):
        read_games(path, encoding="klingon")
    res = cli("rate", path, "--encoding", "klingon")
    assert res.exit_code == 1 and "unknown encoding" in last_line(res)


def test_encoding_option_with_chunked_reading(tmp_path):
    path = write(tmp_path / "g.csv", LATIN)
    res = cli("rate", path, "--encoding", "latin-1", "--chunk-rows", "1")
    assert res.exit_code == 0, res.output
    assert "José" in res.output
    # the external sort reads with the encoding too
    dated = "date,white,black,score\n2024-01-02,Jos\xe9,bob,1\n2024-01-01,bob,ann,0\n"
    path = write(tmp_path / "d.csv", dated.encode("latin-1"))
    res = cli("rate", path, "--encoding", "latin-1", "--chunk-rows", "1", "--sort")
    assert res.exit_code == 0, res.output
    assert "José" in res.output


def test_encoding_option_with_a_pgn_file_is_refused_clearly(tmp_path):
    path = write(tmp_path / "g.pgn", '[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 1-0\n')
    res = cli("rate", path, "--encoding", "latin-1")
    assert res.exit_code == 1
    assert last_line(res).startswith("fastrate: error: --encoding: not an option for a PGN file")


def test_matches_reader_takes_an_encoding(tmp_path):
    text = "match,player,rank\n1,Jos\xe9,1\n1,bob,2\n"
    path = write(tmp_path / "m.csv", text.encode("latin-1"))
    with pytest.raises(InputError, match="must be UTF-8 text"):
        read_matches(path)
    assert sorted(read_matches(path, encoding="latin-1").players.names.tolist()) == [
        "José", "bob"]


# ----------------------------------------------------------------------------------
# section 7: messages


@pytest.mark.parametrize(("text", "pattern"), [
    ('[{"white": "a", "black": "b", "score": 1}, {"white": ["x"], "black": "c", "score": 0}]',
     r"column 'white' must hold one kind of value; found \['x'\] \(a list\) at row 2 of "
     r"g.json, after text \('a' at row 1\)"),
    ('[{"white": "a", "black": "b", "score": 1}, {"white": true, "black": "c", "score": 0}]',
     r"column 'white' must hold one kind of value; found True \(true/false\) at row 2"),
    ('{"white": "a", "black": "b", "score": 1}\n{"white": "c", "black": "b", "score": "x"}\n',
     r"column 'score' must hold one kind of value; found 'x' \(text\) at line 2 of g.json, "
     r"after a number \(1 at line 1\)"),
    ('{"white": ["a", 1], "black": ["b", "c"], "score": [1, 0]}',
     r"column 'white' must hold one kind of value; found 1 \(a number\) at row 2"),
    ('[{"white": "a", "black": "b", "score": 1}, 7]',
     r"every record of g.json must be an object .*; found 7 at row 2"),
    ('{"white": "a", "black": "b", "score": 1}\n{"white": \n',
     r"line 2 is not a JSON record"),
])
def test_json_errors_name_column_row_and_value(tmp_path, text, pattern):
    path = write(tmp_path / "g.json", text)
    with pytest.raises(InputError, match=pattern):
        read_games(path)


def test_json_lists_and_huge_numbers_in_used_columns_are_refused(tmp_path):
    path = write(tmp_path / "g.json", '[{"white": "a", "loser": []}, {"winner": "b", '
                 '"loser": ["c"]}]')
    with pytest.raises(InputError, match=r"column 'loser' must hold single values .*; found "
                       r"\[\] at row 1 of g.json"):
        read_games(path, winner="winner", loser="loser")
    path = write(tmp_path / "h.json", '[{"white": "a", "black": "b", "score": 1, '
                 '"id": 9223372036854775808}]')
    with pytest.raises(InputError, match=r"column 'id' must hold numbers that fit in 64 bits; "
                       r"found 9223372036854775808 at row 1 of h.json"):
        read_games(path)
    # every record's keys count, not only the first record's
    path = write(tmp_path / "j.json", '[{"white": "a", "black": "b", "score": 1}, '
                 '{"white": "b", "black": "a", "score": 0, "date": "2024-01-01"}]')
    with pytest.raises(InputError, match=r"column 'date' must be a date or time, not missing; "
                       r"found None at row 1"):
        read_games(path)
    # a list column the games do not use is no problem
    path = write(tmp_path / "k.json", '[{"white": "a", "black": "b", "score": 1, "tags": []}]')
    assert read_games(path).n_games == 1


@pytest.mark.parametrize("chunked", [False, True])
def test_ragged_csv_row_names_its_line(tmp_path, chunked):
    path = write(tmp_path / "g.csv", "white,black,score\na,b,1\nb,c,0\nc,a,1,extra\n")
    args = ["--chunk-rows", "1"] if chunked else []
    res = cli("rate", path, *args)
    assert res.exit_code == 1
    assert last_line(res) == ("fastrate: error: cannot read g.csv as csv: CSV parse error at "
                              "line 4: 4 fields but the header has 3 (white, black, score); "
                              "found 'c,a,1,extra'; fix that line (quote a field that holds "
                              "the separator)")


@pytest.mark.parametrize("name", ["games.csv", "games.txt"])
def test_gzip_without_gz_suffix_is_read_by_its_content(tmp_path, name):
    text = b"white,black,score\na,b,1\nb,c,0\n"
    path = write(tmp_path / name, gzip.compress(text))
    assert read_games(path).n_games == 2
    res = cli("rate", path, "--chunk-rows", "1")
    assert res.exit_code == 0, res.output
    json_path = write(tmp_path / "g.json", gzip.compress(b'[{"white":"a","black":"b",'
                                                         b'"score":1}]'))
    assert read_games(json_path).n_games == 1


def test_file_of_another_format_is_named(tmp_path):
    pq.write_table(pa.table({"white": ["a"], "black": ["b"], "score": [1.0]}),
                   tmp_path / "g.csv")
    with pytest.raises(InputError, match=r"g.csv as csv: it is a Parquet file .*"
                       r"--input-format parquet"):
        read_games(tmp_path / "g.csv")
    assert read_games(tmp_path / "g.csv", format="parquet").n_games == 1
    write(tmp_path / "h.parquet", gzip.compress(b"white,black,score\na,b,1\n"))
    with pytest.raises(InputError, match=r"h.parquet as parquet: it is a gzip file"):
        read_games(tmp_path / "h.parquet")


def test_format_hint_names_input_format(tmp_path):
    path = write(tmp_path / "games.data", "white,black,score\na,b,1\n")
    res = cli("rate", path)
    assert res.exit_code == 1
    assert "--input-format" in last_line(res) and "--format " not in last_line(res)
    with pytest.raises(InputError, match=r"pass --format \(format=\)"):
        write_table(pa.table({"a": [1]}), tmp_path / "out.data")


def test_margin_column_is_picked_up(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,score,margin\na,b,1,3\nb,c,0,-2\n")
    assert read_games(path).margin.tolist() == [3.0, -2.0]
    res = cli("rate", path, "-s", "elo:margin=fte_nfl")
    assert res.exit_code == 0, res.output
    # points columns still give the margin; an explicit --margin wins
    path = write(tmp_path / "p.csv", "home_team,away_team,home_score,away_score,margin\n"
                 "a,b,3,1,9\n")
    assert read_games(path).margin.tolist() == [2.0]
    assert read_games(path, margin="margin").margin.tolist() == [9.0]


def test_duplicate_column_names_are_refused(tmp_path):
    path = write(tmp_path / "g.csv", "white,black,white,score\na,b,c,1\n")
    with pytest.raises(InputError, match=r"^g.csv has two columns named 'white' \(columns 1 "
                       r"and 3\); rename one"):
        read_games(path)
    res = cli("rate", path)
    assert res.exit_code == 1 and "two columns named 'white'" in last_line(res)


def test_header_that_is_not_utf8_and_binary_garbage(tmp_path):
    path = write(tmp_path / "h.csv", "white,black,Jos\xe9\na,b,1\n".encode("latin-1"))
    with pytest.raises(InputError, match=r"^cannot read h.csv as csv: it is not UTF-8 text; "
                       r"byte 0xe9 at byte offset 15 \(line 1\)"):
        read_games(path)
    rng = np.random.default_rng(3)
    path = write(tmp_path / "junk.csv", b"\x80\x81\x82," + rng.integers(0, 256, 400,
                                                                        dtype=np.uint8).tobytes())
    with pytest.raises(InputError, match=r"cannot read junk.csv as csv: it is not UTF-8 text"):
        read_games(path)


def test_header_in_another_separator_is_pointed_out(tmp_path):
    path = write(tmp_path / "g.csv", "white;black;score\na;b;1\n")
    with pytest.raises(InputError, match=r"note: the header is one column, "
                       r"'white;black;score': is the file separated by ';'\?"):
        read_games(path)


def test_space_padded_column_names_are_pointed_out(tmp_path):
    path = write(tmp_path / "g.csv", "white, black, score\na, b, 1\n")
    with pytest.raises(InputError, match=r"cannot find the player columns .*; note: the "
                       r"column names ' black', ' score' have spaces around them"):
        read_games(path)


def test_bad_path_and_unknown_arguments_name_the_parameter(tmp_path):
    with pytest.raises(InputTypeError, match=r"^path must be a file path \(str or "
                       r"pathlib.Path\); got int 123$"):
        read_games(123)
    with pytest.raises(InputTypeError, match="path must be a file path"):
        fastrate.read_games(None)
    with pytest.raises(InputTypeError, match="path must be a file path"):
        read_matches(4.5)
    with pytest.raises(InputTypeError, match="path must be a file path"):
        read_table(["g.csv"])
    path = write(tmp_path / "g.csv", "white,black,score\na,b,1\n")
    with pytest.raises(InputTypeError, match=r"^read_games\(\) got an unknown argument "
                       r"colour=; its arguments are .*"):
        read_games(path, colour="white")
    with pytest.raises(InputTypeError, match=r"did you mean white=\?"):
        read_games(path, whte="white")


@pytest.mark.parametrize("text", [
    "Winner,Loser\na,b\nb,c\n",
    "WINNER,LOSER,Date\na,b,2024-01-01\nb,c,2024-01-02\n",
    "White,Black,Score\na,b,1\nb,c,0\n",
    "Home_Team,Away_Team,Home_Score,Away_Score\na,b,2,1\nb,c,0,0\n",
])
def test_capitalised_headers_are_read(tmp_path, text):
    g = read_games(write(tmp_path / "g.csv", text))
    assert g.n_games == 2 and g.players.names.tolist() == ["a", "b", "c"]
    assert g.score.tolist() in ([1.0, 1.0], [1.0, 0.0], [1.0, 0.5])
    assert cli("rate", tmp_path / "g.csv").exit_code == 0


# ----------------------------------------------------------------------------------
# property-based fuzzing of the readers


def _assert_clean(path: Path, **kwargs) -> None:
    """The property: a FastrateError of one line, or games whose numbers are all finite
    and which Elo rates to finite numbers. Any other exception fails the test."""
    try:
        g = read_games(path, **kwargs)
    except FastrateError as exc:
        msg = str(exc)
        assert msg and "\n" not in msg, repr(msg)
        return
    assert np.isfinite(g.score).all()
    for arr in (g.margin, g.weight):
        assert arr is None or np.isfinite(arr).all()
    if g.time is not None:
        assert not np.isnat(g.time).any() if g.time.dtype.kind == "M" else \
            np.isfinite(g.time).all()
    assert all(isinstance(n, str) and "\x00" not in n and not n.startswith("b'")
               for n in g.players.names.tolist() if isinstance(n, str))
    r = fastrate.elo.rate(g)
    assert np.isfinite(r.rating).all() and np.isfinite(r.predictions).all()


CELLS = ["", "a", "b", "c", "Bob", "1", "0", "0.5", "1-0", "0-1", "1/2-1/2", "nan", "inf",
         "-inf", "-1", "2", "1e308", "-1e308", "1e-320", "2024-01-01", "20240103",
         "1500-01-01", "2024-01-02T10:00:00Z", "2024-02-30", "true", "NULL", '"q,uoted"',
         "Jos\xe9", "a\x00b", " padded ", "\u00e9\u00e8", "0x10", "1,5", "\t", '"', "9" * 30]
HEADERS = ["white", "black", "score", "date", "time", "margin", "weight", "neutral",
           "winner", "loser", "home_team", "away_team", "home_score", "away_score",
           "period", "White", "Score", "x", " black", ""]

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(header=st.lists(st.sampled_from(HEADERS), min_size=1, max_size=6),
       rows=st.lists(st.lists(st.sampled_from(CELLS), min_size=0, max_size=7), min_size=0,
                     max_size=6),
       ending=st.sampled_from(["\n", "\r\n"]))
def test_fuzz_csv_reader(tmp_path, header, rows, ending):
    lines = [",".join(header)] + [",".join(r) for r in rows]
    path = tmp_path / "fuzz.csv"
    path.write_bytes(ending.join(lines).encode("utf-8", "surrogateescape")
                     .replace("\xe9".encode(), b"\xe9") + ending.encode())
    _assert_clean(path)


JSON_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-10, 10),
                        st.floats(allow_nan=True, allow_infinity=True),
                        st.sampled_from(CELLS), st.lists(st.sampled_from(["a", "b"]),
                                                         max_size=2),
                        st.dictionaries(st.sampled_from(["k"]), st.integers(), max_size=1))


@FUZZ
@given(rows=st.lists(st.dictionaries(st.sampled_from(HEADERS[:12]), JSON_VALUES,
                                     min_size=0, max_size=6), min_size=0, max_size=6),
       layout=st.sampled_from(["records", "lines", "columns"]))
def test_fuzz_json_reader(tmp_path, rows, layout):
    path = tmp_path / "fuzz.json"
    if layout == "records":
        text = json.dumps(rows)
    elif layout == "lines":
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
    else:
        keys = sorted({k for r in rows for k in r})
        text = json.dumps({k: [r.get(k) for r in rows] for k in keys})
    path.write_text(text)
    _assert_clean(path)


ARROW_COLUMNS = st.sampled_from([
    pa.array(["a", "b", "c"]), pa.array(["a", None, "b"]), pa.array([b"a", b"\xe9", b"c"]),
    pa.array([1.0, 0.0, 0.5]), pa.array([1.0, math.nan, 0.0]), pa.array([1, 0, 2]),
    pa.array([math.inf, -1.0, 1e308]), pa.array([True, False, None]),
    pa.array([np.datetime64("2024-01-01", "us"), np.datetime64("1500-01-01", "us"),
              np.datetime64("2024-01-03", "us")]),
    pa.array(["2024-01-01", "2024-01-02T10:00Z", "20240103"]),
    pa.array(["x\x00", "y", "z"]), pa.array([20240101, 20240230, 20240102]),
    pa.array([[1], [2], []]), pa.array([1.5e-320, -0.0, 1.0]),
])


@FUZZ
@given(columns=st.dictionaries(st.sampled_from(HEADERS[:14]), ARROW_COLUMNS, min_size=1,
                               max_size=6))
def test_fuzz_parquet_reader(tmp_path, columns):
    path = tmp_path / "fuzz.parquet"
    pq.write_table(pa.table(columns), path)
    _assert_clean(path)


@FUZZ
@given(data=st.binary(min_size=0, max_size=300),
       header=st.sampled_from([b"", b"white,black,score\n", b"winner,loser,date\n"]),
       name=st.sampled_from(["f.csv", "f.tsv", "f.json", "f.csv.gz"]))
def test_fuzz_bytes(tmp_path, data, header, name):
    path = tmp_path / name
    body = header + data
    path.write_bytes(gzip.compress(body) if name.endswith(".gz") else body)
    _assert_clean(path)


@st.composite
def _time_text(draw):
    """A datetime in range and its text in one of the ISO 8601 forms, with the UTC time
    it must be read as."""
    import datetime as dt

    moment = draw(st.datetimes(min_value=dt.datetime(1677, 9, 24),
                               max_value=dt.datetime(2262, 4, 9)))
    form = draw(st.sampled_from(["date", "basic", "minutes", "seconds", "fraction"]))
    sep = draw(st.sampled_from(["T", " "]))
    offset = draw(st.sampled_from([None, 0, 90, -300, 14 * 60]))
    if form in ("date", "basic"):
        moment = moment.replace(hour=0, minute=0, second=0, microsecond=0)
        text = moment.strftime("%Y-%m-%d" if form == "date" else "%Y%m%d")
        offset = None
    else:
        spec = {"minutes": "%H:%M", "seconds": "%H:%M:%S", "fraction": "%H:%M:%S.%f"}[form]
        if form == "minutes":
            moment = moment.replace(second=0, microsecond=0)
        elif form == "seconds":
            moment = moment.replace(microsecond=0)
        text = moment.strftime("%Y-%m-%d") + sep + moment.strftime(spec)
    utc = moment
    if offset is not None:
        zone = "Z" if offset == 0 and draw(st.booleans()) else (
            ("+" if offset >= 0 else "-") + f"{abs(offset) // 60:02d}:{abs(offset) % 60:02d}")
        text += zone
        utc = moment - dt.timedelta(minutes=offset)
    return text, np.datetime64(utc, "ns"), offset is not None


@FUZZ
@given(items=st.lists(_time_text(), min_size=1, max_size=8))
def test_fuzz_time_strings_are_read_exactly(items):
    has = [aware for _, _, aware in items]
    texts = [t for t, _, _ in items]
    want = np.array([w for _, w, _ in items], dtype="datetime64[ns]")
    if any(has) and not all(has):
        with pytest.raises(InputError, match="must not mix times with and without"):
            parse_time(texts)
        return
    assert parse_time(texts).tolist() == want.tolist()


def test_time_zones_mixed_across_chunks_are_refused(tmp_path):
    """Each chunk alone is one kind; the input mixes times with and without an offset:
    refused as the whole file is (issue 15 §2)."""
    text = ("date,white,black,score\n2024-01-01T10:00:00Z,a,b,1\n2024-01-02T10:00:00Z,b,c,0\n"
            "2024-01-03T10:00:00,c,a,1\n2024-01-04T10:00:00,a,c,0\n")
    path = write(tmp_path / "g.csv", text.encode())
    whole = cli("rate", path, "--chunk-rows", "0")
    assert whole.exit_code == 1 and "must not mix times" in whole.output
    chunked = cli("rate", path, "--chunk-rows", "2")
    assert chunked.exit_code == 1, chunked.output
    assert "must not mix times with and without a UTC offset" in chunked.output
    assert "row 3" in chunked.output and "Traceback" not in chunked.output
    ok = write(tmp_path / "z.csv", text.replace(":00,", ":00Z,").encode())
    assert cli("rate", ok, "--chunk-rows", "2").exit_code == 0
