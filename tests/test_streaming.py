"""Rating and evaluating chunk by chunk (issue 10): the same bits as the in-memory run
for every online system, at chunk sizes that cut through periods and through players'
runs of games; input out of time order refused; memory bounded by the chunk."""

from __future__ import annotations

import gzip
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastrate
from fastrate import streaming
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import evaluate
from fastrate.systems import SystemSpec

#: every online system that rates two-player games, with options that use periods,
#: margins and weights
SPECS = ["elo", "elo:k=20,advantage=30,cap=400", "elo:update=period", "elo:regression=0.3",
         "elo:k_schedule=fide", "elo:margin=fte_nfl", "glicko", "glicko2", "glicko2:tau=0.3",
         "fibs"]


def _table(n: int = 3000, n_players: int = 120, seed: int = 0) -> pa.Table:
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    score = rng.choice([0.0, 1.0], n)  # FIBS rates matches: no draws
    margin = np.where(score == 1.0, 1.0, -1.0) * rng.integers(1, 20, n)
    return pa.table({"white": [f"p{x}" for x in white], "black": [f"p{x}" for x in black],
                     "score": score, "season": np.sort(rng.integers(2000, 2012, n)),
                     "margin": margin, "weight": rng.integers(1, 6, n).astype(float)})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("stream")
    table = _table()
    out = {"parquet": d / "games.parquet", "csv_gz": d / "games.csv.gz"}
    pq.write_table(table, out["parquet"], row_group_size=500)
    with gzip.open(out["csv_gz"], "wb") as fh:
        pacsv.write_csv(table, fh)
    folder = d / "monthly"
    folder.mkdir()
    for i, lo in enumerate(range(0, table.num_rows, 1000)):
        pq.write_table(table.slice(lo, 1000), folder / f"2024-{i + 1:02d}.parquet")
    out["folder"] = folder
    return out


COLUMNS = {"period": "season", "margin": "margin", "weight": "weight"}


def _full(spec: str, path) -> fastrate.Ratings:
    return SystemSpec.parse(spec).rate(fastrate.read_games(path, **COLUMNS))


def _assert_same(a: fastrate.Ratings, b: fastrate.Ratings) -> None:
    assert list(a.columns()) == list(b.columns())
    for name, col in a.columns().items():
        assert col.dtype == b.columns()[name].dtype, name
        assert col.tolist() == b.columns()[name].tolist(), name


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize("chunk_rows", [7, 333, 100_000])
def test_chunked_rating_is_the_in_memory_run_to_the_bit(files, spec, chunk_rows):
    full = _full(spec, files["parquet"])
    _assert_same(full, streaming.rate_chunks(files["parquet"], spec, chunk_rows=chunk_rows,
                                             **COLUMNS))


@pytest.mark.parametrize("source", ["csv_gz", "folder", "glob"])
def test_csv_folders_and_globs_stream_in_order(files, source):
    path = os.path.join(files["folder"], "2024-*.parquet") if source == "glob" \
        else files[source]
    full = _full("glicko2", files["parquet"])
    _assert_same(full, streaming.rate_chunks(path, "glicko2", chunk_rows=400, **COLUMNS))


def test_predictions_go_out_as_the_chunks_go(files):
    full = _full("elo", files["parquet"])
    parts = []
    r = streaming.rate_chunks(files["parquet"], "elo", chunk_rows=250,
                              on_predictions=lambda _, r: parts.append(r.predictions),
                              **COLUMNS)
    assert r.predictions is None
    # a Parquet row group (500 rows here) is split only when it holds more than
    # twice the chunk
    assert max(p.shape[0] for p in parts) <= 500
    assert np.concatenate(parts).tolist() == full.predictions.tolist()


@pytest.mark.parametrize("burn_in", [0, 3])
@pytest.mark.parametrize("chunk_rows", [5, 777])
def test_chunked_evaluation_is_the_in_memory_one_to_the_bit(files, burn_in, chunk_rows):
    systems = ["elo", "glicko", "glicko2:tau=0.3"]
    whole = evaluate(fastrate.read_games(files["parquet"], **COLUMNS), systems,
                     burn_in=burn_in)
    chunked = streaming.evaluate_chunks(files["parquet"], systems, burn_in=burn_in,
                                        chunk_rows=chunk_rows, **COLUMNS)
    assert whole.rows == chunked.rows
    for label in whole.calibration:
        for k, v in whole.calibration[label].items():
            assert np.array_equal(v, chunked.calibration[label][k], equal_nan=True), k


def test_memory_is_bounded_by_the_chunk(files, monkeypatch):
    """The largest block of games ever rated at once: the chunk for a game-by-game
    system; the chunk plus at most one period for a period-based one."""
    held = []
    rate = streaming._rate

    def noting(spec, games, initial, predictions):
        held.append(games.n_games)
        return rate(spec, games, initial, predictions)

    monkeypatch.setattr(streaming, "_rate", noting)
    streaming.rate_chunks(files["parquet"], "elo", chunk_rows=50, **COLUMNS)
    assert max(held) == 50 and len(held) == 60
    held.clear()
    streaming.rate_chunks(files["parquet"], "glicko", chunk_rows=50, **COLUMNS)
    season = _table().column("season").to_numpy()
    largest_period = int(np.max(np.unique(season, return_counts=True)[1]))
    assert max(held) <= 50 + largest_period
    assert sum(held) == 3000


def _write(path, rows):
    pacsv.write_csv(pa.table(rows), path)


def test_out_of_order_input_is_refused_naming_the_row_and_file(tmp_path):
    p = tmp_path / "late.csv"
    _write(p, {"white": ["a", "b", "c", "a"], "black": ["b", "c", "a", "c"],
               "score": [1.0, 0.0, 0.5, 1.0], "date": ["2024-01-01", "2024-01-03",
                                                       "2024-01-02", "2024-01-04"]})
    for chunk_rows in (2, 10):  # across chunks and within one
        with pytest.raises(InputError, match=r"order.* row 3 \(line 4 of late.csv\)"):
            streaming.rate_chunks(p, "elo", chunk_rows=chunk_rows)
    q = tmp_path / "b"
    q.mkdir()
    _write(q / "1.csv", {"white": ["a"], "black": ["b"], "score": [1.0], "season": [2020]})
    _write(q / "2.csv", {"white": ["a"], "black": ["b"], "score": [1.0], "season": [2019]})
    with pytest.raises(InputError, match=r"row 1 \(line 2 of 2.csv\)"):
        streaming.rate_chunks(q, "elo", period="season")


def test_what_cannot_stream_is_refused_clearly(files, tmp_path):
    with pytest.raises(ConfigError, match="bradley_terry cannot rate in chunks"):
        streaming.rate_chunks(files["parquet"], "bradley_terry")
    with pytest.raises(ConfigError, match="give the input a period"):
        streaming.rate_chunks(files["parquet"], "glicko", chunk_rows=100)
    p = tmp_path / "labels.csv"
    _write(p, {"white": ["a", "b"], "black": ["b", "a"], "score": [1.0, 0.0],
               "season": ["autumn", "spring"]})
    with pytest.raises(InputError, match="period labels of labels.csv are text"):
        streaming.rate_chunks(p, "elo", period="season")
    with pytest.raises(InputError, match="no such file"):
        streaming.rate_chunks(tmp_path / "nothing.csv", "elo")
    with pytest.raises(InputError, match="no files match"):
        streaming.rate_chunks(str(tmp_path / "x-*.csv"), "elo")


def test_progress_reports_games_done_and_the_total(files):
    seen = []
    streaming.rate_chunks(files["parquet"], "elo", chunk_rows=1000,
                          progress=lambda done, total, s: seen.append((done, total)), **COLUMNS)
    assert seen == [(1000, 3000), (2000, 3000), (3000, 3000)]


# ----------------------------------------------------------------------------------
# the command line


def _cli(*args):
    from click.testing import CliRunner

    from fastrate.cli import main

    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_cli_rates_a_folder_in_chunks_like_the_whole_file(files, tmp_path):
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.csv"
    pw, pc = tmp_path / "pw.csv", tmp_path / "pc.parquet"
    opts = ["--period", "season", "-s", "glicko2", "--top", "0"]
    r1 = _cli("rate", files["parquet"], "--chunk-rows", 0, *opts, "-o", whole,
              "--predictions", pw)
    r2 = _cli("rate", files["folder"], *opts, "-o", chunked, "--predictions", pc)
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    assert whole.read_text() == chunked.read_text()
    a = pacsv.read_csv(pw)
    b = pq.read_table(pc)
    assert a.column("row").to_pylist() == b.column("row").to_pylist() == list(range(1, 3001))
    assert a.column("expected_score").to_pylist() == b.column("expected_score").to_pylist()
    r3 = _cli("rate", files["parquet"], "--chunk-rows", 250, *opts, "-o", chunked)
    assert r3.exit_code == 0 and whole.read_text() == chunked.read_text()


def test_cli_evaluates_in_chunks_like_the_whole_file(files):
    opts = ["--period", "season", "--burn-in", 2, "-s", "elo", "-s", "glicko", "--format",
            "csv"]
    whole = _cli("evaluate", files["parquet"], "--chunk-rows", 0, *opts)
    chunked = _cli("evaluate", files["folder"], "--chunk-rows", 300, *opts)
    assert whole.exit_code == 0 and chunked.exit_code == 0
    assert whole.stdout == chunked.stdout


def test_cli_refuses_what_cannot_go_in_chunks(files, tmp_path):
    r = _cli("rate", files["folder"], "-s", "bradley_terry")
    assert r.exit_code == 1
    assert "cannot rate in chunks" in r.output and "Traceback" not in r.output
    r = _cli("rate", files["parquet"], "--chunk-rows", 10, "--resets", files["parquet"])
    assert r.exit_code == 1 and "--resets needs the whole input" in r.output
    r = _cli("evaluate", files["parquet"], "--chunk-rows", 10, "-s", "bradley_terry",
             "--period", "season")
    assert r.exit_code == 1 and "bradley_terry cannot rate in chunks" in r.output
    pgn = tmp_path / "games.pgn"
    pgn.write_text('[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1. e4 1-0\n\n'
                   '[White "b"]\n[Black "a"]\n[Result "1/2-1/2"]\n\n1. e4 1/2-1/2\n')
    r = _cli("rate", pgn, "--chunk-rows", 1, "--sort")  # (PGN in chunks: file order)
    assert r.exit_code == 1
    assert r.output.strip() == ("fastrate: error: sorting (sort=True; --sort) takes tables; "
                                "a PGN file is read in its own order: give it in date "
                                "order, or read it whole (--chunk-rows 0)")
    assert _cli("rate", pgn, "--chunk-rows", 1).exit_code == 0
    assert _cli("rate", pgn).exit_code == 0


# ----------------------------------------------------------------------------------
# matches (long format)


def _long_table(n_matches: int = 400, seed: int = 1) -> pa.Table:
    """Four-player matches (two teams of two, or a free-for-all of four), a row per
    seat, the rows of a match together, seasons in order."""
    rng = np.random.default_rng(seed)
    rows: dict[str, list] = {"match": [], "team": [], "player": [], "rank": [], "season": []}
    seasons = np.sort(rng.integers(2000, 2010, n_matches))
    for m in range(n_matches):
        seats = rng.choice(40, 4, replace=False)
        teams = ["a", "a", "b", "b"] if m % 2 else ["a", "b", "c", "d"]
        ranks = rng.permutation(len(set(teams))) + 1
        by_team = dict(zip(sorted(set(teams)), ranks.tolist()))
        for p, t in zip(seats.tolist(), teams):
            rows["match"].append(f"m{m}")
            rows["team"].append(t)
            rows["player"].append(f"p{p}")
            rows["rank"].append(by_team[t])
            rows["season"].append(int(seasons[m]))
    return pa.table(rows)


@pytest.fixture(scope="module")
def long_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("long") / "matches.parquet"
    pq.write_table(_long_table(), path, row_group_size=97)
    return path


MATCH_SPECS = ["trueskill", "weng_lin", "weng_lin:model=thurstone_mosteller_full", "elom",
               "pairwise_elo", "codeforces"]


@pytest.mark.parametrize("spec", MATCH_SPECS)
@pytest.mark.parametrize("chunk_rows", [45, 10_000])
def test_team_systems_in_chunks_are_the_whole_run_to_the_bit(long_file, spec, chunk_rows):
    from fastrate.io.matches import read_matches

    full = SystemSpec.parse(spec).rate(read_matches(long_file, period="season"))
    _assert_same(full, streaming.rate_chunks(long_file, spec, chunk_rows=chunk_rows,
                                             period="season"))


# ----------------------------------------------------------------------------------
# --sort: an external sort


def test_external_sort_gives_the_whole_input_sorted_run(tmp_path):
    """Shuffled games: with sort=True, chunked (runs on disk, merged) equals the
    in-memory run, which sorts stably by time; equal times keep their input order."""
    rng = np.random.default_rng(9)
    table = _table(2000)
    days = rng.integers(0, 60, table.num_rows)  # many equal times
    table = table.append_column("date", pa.array(
        (np.datetime64("2024-01-01") + days).astype("datetime64[ms]")))
    path = tmp_path / "shuffled.parquet"
    pq.write_table(table, path, row_group_size=150)
    full = SystemSpec.parse("glicko2").rate(fastrate.read_games(path, period="1w"))
    for chunk_rows in (100, 700, 5000):
        _assert_same(full, streaming.rate_chunks(path, "glicko2", chunk_rows=chunk_rows,
                                                 sort=True, period="1w"))
    with pytest.raises(InputError, match="nondecreasing|out of time order"):
        streaming.rate_chunks(path, "glicko2", chunk_rows=100, period="1w")
    whole = evaluate(fastrate.read_games(path, period="1w"), ["elo"], burn_in=1)
    chunked = streaming.evaluate_chunks(path, ["elo"], burn_in=1, chunk_rows=300, sort=True,
                                        period="1w")
    assert whole.rows == chunked.rows


def test_sorted_chunks_name_the_input_rows(tmp_path):
    p = tmp_path / "bad.csv"
    _write(p, {"white": ["a", "b", "c", "a"], "black": ["b", "c", "a", "c"],
               "score": [1.0, 0.0, 7.0, 1.0], "date": ["2024-01-04", "2024-01-03",
                                                       "2024-01-02", "2024-01-01"]})
    with pytest.raises(InputError, match=r"found 7.0 at row 3\b"):
        streaming.rate_chunks(p, "elo", chunk_rows=2, sort=True)


@pytest.mark.parametrize("chunk_rows", [45, 10_000])
def test_team_evaluation_in_chunks_is_the_whole_one_to_the_bit(long_file, chunk_rows):
    from fastrate.evaluate import evaluate_matches
    from fastrate.io.matches import read_matches

    systems = ["trueskill", "weng_lin", "elom", "pairwise_elo"]
    whole = evaluate_matches(read_matches(long_file, period="season"), systems, burn_in=2)
    chunked = streaming.evaluate_chunks(long_file, systems, burn_in=2, chunk_rows=chunk_rows,
                                        period="season")
    assert chunked.unit == "matches" and whole.rows == chunked.rows
    for label in whole.calibration:
        for k, v in whole.calibration[label].items():
            assert np.array_equal(v, chunked.calibration[label][k], equal_nan=True), k


def test_player_names_that_change_kind_between_chunks_are_refused(tmp_path):
    """Text names in one file and float ids in the next gave an internal Arrow error;
    now one line names the row and both kinds."""
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "1.csv").write_text("white,black,score\na,b,1\nb,c,0\n")
    (folder / "2.csv").write_text("white,black,score\n1.5,2.5,1\n")
    with pytest.raises(InputError, match=r"player names change type at row 1 \(line 2 of "
                                         r"2.csv\): text before, other values"):
        streaming.rate_chunks(folder, "elo", chunk_rows=1)


def test_chunks_carry_the_lever_columns(tmp_path):
    """The per-game columns of Elo's levers (points share, match format) travel with the
    games when chunks are cut and joined at period boundaries (Games.GAME_ARRAYS): the
    same ratings as the whole input."""
    import pyarrow.csv as pacsv

    from fastrate.datasets import example_path

    path = tmp_path / "results.csv"
    pacsv.write_csv(pacsv.read_csv(example_path("football")), path)
    spec = ("elo", fastrate.elo.EloConfig(update="period", points_share=0.5))
    whole = fastrate.elo.rate(fastrate.read_games(path, period="year"), spec[1])
    chunked = streaming.rate_chunks(path, spec, chunk_rows=997, period="year")
    np.testing.assert_array_equal(chunked.rating, whole.rating)


def _int_table(n: int, ids: np.ndarray, seed: int, dtype=np.int64) -> pa.Table:
    rng = np.random.default_rng(seed)
    w = rng.integers(0, ids.shape[0], n)
    b = (w + rng.integers(1, ids.shape[0], n)) % ids.shape[0]
    return pa.table({"white": ids[w].astype(dtype), "black": ids[b].astype(dtype),
                     "score": rng.choice([0.0, 0.5, 1.0], n),
                     "season": np.sort(rng.integers(2000, 2012, n))})


@pytest.mark.parametrize("case", ["dense", "negative int32", "sparse later", "sparse first"])
@pytest.mark.parametrize("chunk_rows", [7, 250, 100_000])
def test_integer_ids_go_straight_into_the_global_index_with_the_same_ids(tmp_path, case,
                                                                         chunk_rows):
    """Integer player columns are interned straight into the growing index's direct table
    while the ids are dense enough, else by the general path: the players, their order
    and every rating are those of the in-memory run."""
    ids = np.arange(5000, 5200)
    if case == "negative int32":
        ids = np.arange(-100, 100)
    table = _int_table(2000, ids, 1, np.int32 if case == "negative int32" else np.int64)
    if case.startswith("sparse"):  # one far id: too sparse for a direct table from there
        col = table.column("white").to_numpy().copy()
        col[1500 if case == "sparse later" else 0] = 2**62
        table = table.set_column(0, "white", pa.array(col))
    path = tmp_path / "ints.parquet"
    pq.write_table(table, path, row_group_size=300)
    full = SystemSpec.parse("glicko2").rate(fastrate.read_games(path, period="season"))
    got = streaming.rate_chunks(path, "glicko2", chunk_rows=chunk_rows, period="season")
    assert got.players.names.tolist() == full.players.names.tolist()
    assert got.players.names.dtype == full.players.names.dtype
    for name, col in full.columns().items():
        assert col.tolist() == got.columns()[name].tolist(), name


@pytest.mark.parametrize("types", [("int16", "int16"), ("uint32", "uint32"),
                                   ("uint64", "uint64"), ("int32", "int64")])
@pytest.mark.parametrize("chunk_rows", [90, 100_000])
def test_chunked_player_names_keep_the_inputs_integer_type(tmp_path, types, chunk_rows):
    """The players' integer type is the input's, as read whole (one type for both
    columns, else int64), whether the chunk's ids go into the direct table or the
    general path; uint64 ids above 2^63 stay themselves (they once came out as negative
    int64) and the written Parquet column has the same type."""
    ids = np.arange(40, 240, dtype=np.uint64)
    if types[0] == "uint64":
        ids = ids * np.uint64(7919) + np.uint64(2**63)
    table = _int_table(900, ids, 3, np.uint64)
    table = table.set_column(0, "white", table.column("white").cast(types[0]))
    table = table.set_column(1, "black", table.column("black").cast(types[1]))
    path = tmp_path / "ints.parquet"
    pq.write_table(table, path, row_group_size=100)
    full = fastrate.elo.rate(fastrate.read_games(path, period="season"))
    got = streaming.rate_chunks(path, "elo", chunk_rows=chunk_rows, period="season")
    assert got.players.names.dtype == full.players.names.dtype
    assert got.players.names.dtype == (np.dtype(types[0]) if types[0] == types[1]
                                       else np.dtype(np.int64))
    assert got.players.names.tolist() == full.players.names.tolist()
    assert set(got.players.names.tolist()) == set(ids.tolist())
    np.testing.assert_array_equal(got.rating, full.rating)
    outs = []
    for extra in ([], ["--chunk-rows", chunk_rows]):
        out = tmp_path / f"r{len(extra)}.parquet"
        r = _cli("rate", path, "--period", "season", "-o", out, *extra)
        assert r.exit_code == 0, r.output
        outs.append(pq.read_table(out))
    assert outs[0].schema.field("player").type == outs[1].schema.field("player").type
    assert outs[0].equals(outs[1])


def test_a_missing_integer_id_in_a_later_chunk_is_named_as_in_memory(tmp_path):
    table = _int_table(600, np.arange(50), 2)
    black = table.column("black").to_pylist()
    black[450] = None
    table = table.set_column(1, "black", pa.array(black, type=pa.int64()))
    path = tmp_path / "ints.parquet"
    pq.write_table(table, path, row_group_size=100)
    with pytest.raises(InputError) as whole:
        fastrate.read_games(path, period="season")
    with pytest.raises(InputError) as chunked:
        streaming.rate_chunks(path, "elo", chunk_rows=100, period="season")
    assert str(chunked.value) == str(whole.value)


def test_read_ahead_keeps_the_order_the_errors_and_an_early_stop():
    """The chunk reader runs one item ahead in a thread: items come in order, an error
    reading an item is raised when that item is asked for (after the ones before it),
    and a consumer that stops early returns (the read in flight finishes)."""
    import threading

    main = threading.get_ident()
    seen_threads = []

    def items(fail_at=None):
        for i in range(6):
            seen_threads.append(threading.get_ident())
            if i == fail_at:
                raise InputError(f"bad chunk {i}")
            yield i

    assert list(streaming._read_ahead(items())) == list(range(6))
    import numba

    if numba.get_num_threads() >= 2:
        assert main not in seen_threads  # read beside the caller
    else:
        assert set(seen_threads) == {main}  # one thread: plain iteration
    got = []
    with pytest.raises(InputError, match="bad chunk 3"):
        for x in streaming._read_ahead(items(fail_at=3)):
            got.append(x)
    assert got == [0, 1, 2]
    it = streaming._read_ahead(items())
    assert next(it) == 0
    it.close()  # stops early: no hang, no error


def test_rows_left_out_in_chunks_are_counted_and_reported_as_whole(tmp_path):
    """Rows a chunked run leaves out (self-play with drop_self_play, unranked seats with
    unranked='drop') are counted over all chunks, first place kept, as the whole input's
    ``dropped``; the command line prints the same notes for both (the chunked run once
    printed none)."""
    from fastrate.io.matches import read_matches

    rows = ["white,black,score"] + [f"p{i % 7},p{(i * 3 + 1) % 7},1" for i in range(60)]
    path = tmp_path / "self.csv"
    path.write_text("\n".join(rows) + "\n")
    whole = fastrate.read_games(path, drop_self_play=True)
    assert whole.dropped and whole.dropped[0][1] > 3  # (several, in several chunks)
    got: list = []
    streaming.rate_chunks(path, "elo", chunk_rows=8, drop_self_play=True, dropped=got)
    assert got == list(whole.dropped)
    got = []
    streaming.evaluate_chunks(path, ["elo", "elo:k=10"], chunk_rows=8, drop_self_play=True,
                              dropped=got)
    assert got == list(whole.dropped)  # (counted once, not once per system)
    notes = [[x for x in _cli("rate", path, "--drop-self-play", *extra).output.splitlines()
              if x.startswith("fastrate: note:")] for extra in ([], ["--chunk-rows", 8])]
    assert notes[0] and notes[0] == notes[1]
    long = tmp_path / "long.csv"
    long.write_text("match,player,rank\n" + "".join(
        f"{m},a,1\n{m},b,{'' if m % 3 == 0 else 2}\n{m},c,3\n" for m in range(30)))
    want = read_matches(long, unranked="drop").dropped
    got = []
    streaming.rate_chunks(long, "trueskill", chunk_rows=7, unranked="drop", dropped=got)
    assert got == list(want) and want[0][1] == 10


def test_period_based_systems_in_chunks_default_to_months_as_whole(tmp_path):
    """Glicko-2 (games) and elom (matches) without --period: in chunks as read whole, the
    games are grouped by month with the same note and the same ratings (in chunks this
    was an error, so a file large enough to be read in chunks failed where a small one
    worked); World Football Elo's note on unweighted games too (missing in chunks)."""
    rng = np.random.default_rng(4)
    n = 900
    days = np.datetime64("2020-01-01") + np.sort(rng.integers(0, 700, n))
    w = rng.integers(0, 30, n)
    b = (w + rng.integers(1, 30, n)) % 30
    games = tmp_path / "games.csv"
    pacsv.write_csv(pa.table({"date": days.astype(str), "white": [f"p{x}" for x in w],
                              "black": [f"p{x}" for x in b],
                              "score": rng.choice([0.0, 0.5, 1.0], n)}), games)
    long = tmp_path / "long.csv"
    long.write_text("match,player,rank,date\n" + "".join(
        f"{m},p{p},{r + 1},{days[m]}\n" for m in range(300)
        for r, p in enumerate(rng.choice(20, 4, replace=False))))
    for path, system in ((games, "glicko2"), (long, "elom")):
        outs, notes = [], []
        for extra in ([], ["--chunk-rows", 97]):
            out = tmp_path / f"{system}{len(extra)}.csv"
            r = _cli("rate", path, "-s", system, "-o", out, *extra)
            assert r.exit_code == 0, r.output
            notes.append([x for x in r.output.splitlines() if "grouped by month" in x])
            outs.append(out.read_bytes())
        assert len(notes[0]) == 1 and notes[0] == notes[1], system
        assert outs[0] == outs[1], system
    r = [_cli("evaluate", games, *extra).output for extra in ([], ["--chunk-rows", 97])]
    assert r[0] == r[1] and "glicko, glicko2 update once per rating period" in r[0]
    # World Football Elo without weights: the same note in chunks
    football = tmp_path / "football.csv"
    pacsv.write_csv(pa.table({"date": days.astype(str),
                              "home_team": [f"p{x}" for x in w],
                              "away_team": [f"p{x}" for x in b],
                              "home_score": rng.integers(0, 4, n),
                              "away_score": rng.integers(0, 4, n)}), football)
    runs = [_cli("rate", football, "-s", "elo@world_football", *extra)
            for extra in ([], ["--chunk-rows", 97])]
    assert all(r.exit_code == 0 for r in runs), runs[0].output
    notes = [[x for x in r.output.splitlines() if x.startswith("fastrate: note:")]
             for r in runs]
    assert len(notes[0]) == 1 and "no weights" in notes[0][0] and notes[0] == notes[1]


# ----------------------------------------------------------------------------------
# two-player games for a system that rates matches, in chunks


@pytest.mark.parametrize("spec", ["trueskill", "weng_lin:model=bradley_terry_full"])
@pytest.mark.parametrize("how", ["detected", "named"])
def test_match_systems_rate_two_player_games_in_chunks(tmp_path, spec, how):
    """A games file without a match column (found as two-player games, or with a game
    column named) in chunks: each game a match of two one-player teams, the ratings to
    the bit those of Matches.from_games on the whole file. (Weights above 1 are no
    shares of a game: refused, naming the row.)"""
    path = tmp_path / "g.parquet"
    pq.write_table(_table().drop_columns(["weight", "margin"]), path)
    games = fastrate.read_games(path, period="season")
    full = SystemSpec.parse(spec).rate(fastrate.Matches.from_games(games))
    named = {"white": "white", "black": "black"} if how == "named" else {}
    got = streaming.rate_chunks(path, spec, chunk_rows=333, period="season", **named)
    _assert_same(full, got)
    heavy = tmp_path / "w.parquet"
    pq.write_table(_table(), heavy)
    with pytest.raises(InputError, match=r"column 'weight' must be in \[0, 1\]; found 3.0"):
        streaming.rate_chunks(heavy, spec, chunk_rows=333, period="season", **named)


def test_match_chunks_of_a_pgn_file_and_of_neither(tmp_path):
    pgn = tmp_path / "g.pgn"
    pgn.write_text("".join(f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n\n{r}\n\n'
                           for w, b, r in [("a", "b", "1-0"), ("b", "c", "1/2-1/2"),
                                           ("c", "a", "0-1"), ("a", "c", "1-0")]))
    parts = list(streaming.match_chunks(pgn, chunk_rows=2))
    assert sum(p.n_matches for p in parts) == 4 and max(p.n_matches for p in parts) <= 2
    # matches numbered on from chunk to chunk: the games' rows, as read whole
    assert np.concatenate([p.match_labels for p in parts]).tolist() == [0, 1, 2, 3]
    whole = SystemSpec.parse("trueskill").rate(
        fastrate.Matches.from_games(fastrate.read_pgn(pgn)))
    _assert_same(whole, streaming.rate_chunks(pgn, "trueskill", chunk_rows=1))
    other = tmp_path / "x.csv"
    other.write_text("x,y\n1,2\n")
    with pytest.raises(InputError, match="^cannot find the match column"):
        list(streaming.match_chunks(other))


def test_evaluate_chunks_compares_two_player_and_match_systems(tmp_path):
    """Elo, Glicko-2 and TrueSkill on two-player games in chunks: every system scored
    on the matches, the same numbers as evaluate_matches on the whole input; on matches
    with more than two sides a two-player system is refused, naming it."""
    from fastrate.evaluate import evaluate_matches

    path = tmp_path / "g.parquet"
    pq.write_table(_table().drop_columns(["weight", "margin"]), path)
    specs = ["elo", "glicko2", "trueskill"]
    whole = evaluate_matches(fastrate.read_games(path, period="season"), specs, burn_in=2)
    got = streaming.evaluate_chunks(path, specs, burn_in=2, chunk_rows=333, period="season")
    assert got.unit == "matches"
    for a, b in zip(whole.rows, got.rows):
        assert a["system"] == b["system"]
        for key, value in a.items():
            if key != "system":
                assert b[key] == pytest.approx(value, rel=1e-12, abs=1e-15), (a["system"], key)
    long = tmp_path / "ffa.csv"
    long.write_text("match,player,place\n1,a,1\n1,b,2\n1,c,3\n2,a,2\n2,b,1\n2,c,3\n")
    with pytest.raises(ConfigError, match="rating system 'elo' rates two-player games"):
        streaming.evaluate_chunks(long, ["elo", "trueskill"], chunk_rows=2)
