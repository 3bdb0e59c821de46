"""The Boards container: grouping, ordering, the rules for awkward input, components."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fastrate.bridge.boards import Boards, boards_from_table
from fastrate.errors import InputError

FOUR = dict(north=["a", "c", "e", "a", "c"], south=["b", "d", "f", "b", "d"],
            east=["g", "i", "k", "g", "i"], west=["h", "j", "l", "h", "j"])


def test_groups_rows_by_board_in_time_order():
    b = Boards.from_arrays([1, 1, 1, 2, 2], [420, -50, 420, 100, 110], **FOUR,
                           time=["2024-01-01", "2024-01-01", "2024-01-02", "2023-12-30",
                                 "2023-12-30"], period="3d")
    # board 2 was played first: it comes first
    assert b.board_number.tolist() == [2, 1]
    assert b.board_offsets.tolist() == [0, 2, 5]
    assert b.order.tolist() == [3, 4, 0, 1, 2]
    assert b.board_period[0] <= b.board_period[1]
    assert b.players.names[b.north].tolist() == ["a", "c", "a", "c", "e"]
    ns = b.score("cross-imps").ns
    # board 1: 420 vs (-50, 420): (10 + 0) / 2; board 2: 100 vs 110 -> 0
    assert ns.tolist() == [0.0, 0.0, 5.0, -10.0, 5.0]
    assert b.to_input_order(ns).tolist() == [5.0, -10.0, 5.0, 0.0, 0.0]


def test_event_and_board_identify_a_board():
    b = Boards.from_arrays([1, 1, 1, 1], [100, 200, 300, 400], event=["x", "x", "y", "y"],
                           ns_pair=[1, 2, 1, 2], ew_pair=[3, 4, 3, 4])
    assert b.n_boards == 2
    assert b.board_event.tolist() == ["x", "y"]


def test_scores_from_contracts_with_board_vulnerability():
    b = Boards.from_arrays([1, 1, 2, 2], None, ns_pair=[1, 2, 1, 2], ew_pair=[3, 4, 3, 4],
                           contract=["4HX", "3NT", "pass", "4S"], tricks=[10, 8, None, 10],
                           declarer=["N", "E", None, "W"])
    # board 1 none vulnerable: 4HX= 590, 3NT-1 by E: NS +50; board 2 NS vul: 4S= by W
    # (EW not vulnerable) 420 -> NS -420
    assert b.ns_score.tolist() == [590.0, 50.0, 0.0, -420.0]


def test_given_vulnerability_overrides_board_number():
    b = Boards.from_arrays([1], None, ns_pair=[1], ew_pair=[2], contract=["4H="],
                           declarer=["S"], vulnerable=["Both"])
    assert b.ns_score.tolist() == [620.0]


def test_exact_duplicate_rows_are_dropped_and_counted():
    b = Boards.from_arrays([1, 1, 1], [420, -50, 420], north=["a", "c", "a"],
                           south=["b", "d", "b"], east=["g", "i", "g"], west=["h", "j", "h"])
    assert b.n_results == 2
    reason, count, where = b.dropped[0]
    assert count == 1 and "duplicate" in reason and where == "row 3"


def test_player_at_two_tables_is_an_error_naming_rows():
    with pytest.raises(InputError, match=r"player 'a' plays twice on board 7: at row 1 and "
                                         r"row 2"):
        Boards.from_arrays([7, 7], [420, -50], north=["a", "c"], south=["b", "a"],
                           east=["g", "i"], west=["h", "j"])


def test_pair_with_a_missing_player_is_an_error():
    with pytest.raises(InputError, match="column 'south' must name a player in every row; "
                                         "found a missing value at row 2"):
        Boards.from_arrays([1, 1], [1, 2], north=["a", "c"], south=["b", None],
                           east=["g", "i"], west=["h", "j"])
    with pytest.raises(InputError, match="missing: west"):
        Boards.from_arrays([1], [1], north=["a"], south=["b"], east=["c"])


def test_bad_scores_contracts_and_vulnerability():
    with pytest.raises(InputError, match="column 'ns_score' must be a finite number"):
        Boards.from_arrays([1, 1], [420, np.nan], ns_pair=[1, 2], ew_pair=[3, 4])
    with pytest.raises(InputError, match="contract"):
        Boards.from_arrays([1], None, ns_pair=[1], ew_pair=[2], contract=["8H="],
                           declarer=["N"])
    with pytest.raises(InputError, match="column 'declarer' must be N, E, S or W"):
        Boards.from_arrays([1], None, ns_pair=[1], ew_pair=[2], contract=["4H="],
                           declarer=["X"])
    with pytest.raises(InputError, match="column 'vulnerable' must be None, NS, EW or Both"):
        Boards.from_arrays([1], None, ns_pair=[1], ew_pair=[2], contract=["4H="],
                           declarer=["N"], vulnerable=["maybe"])
    with pytest.raises(InputError, match="no results"):
        Boards.from_arrays([], [], ns_pair=[], ew_pair=[])


def test_artificial_results_and_single_result_boards():
    b = Boards.from_arrays([1, 1, 1, 2], [420, 170, None, 50], ns_pair=[1, 2, 3, 1],
                           ew_pair=[4, 5, 6, 4], artificial=["", "", "A+", ""])
    assert b.artificial.tolist() == [0, 0, 1, 0]
    assert np.isnan(b.ns_score[2])
    assert b.n_single_result_boards == 1
    r = b.score("cross-imps")
    assert r.ns[:3].tolist() == [6.0, -6.0, 3.0]
    assert np.isnan(r.ns[3])


def test_odd_scores_are_counted():
    b = Boards.from_arrays([1, 1], [425, -50], ns_pair=[1, 2], ew_pair=[3, 4])
    assert b.n_odd_scores == 1


def test_from_table_recognises_columns_and_names_them_in_errors():
    t = pa.table({"Board": [1, 1], "North": ["a", "c"], "South": ["b", "d"],
                  "East": ["e", "g"], "West": ["f", "h"], "Score_NS": ["100", "x"]})
    with pytest.raises(InputError, match="column 'Score_NS' must be numeric; found 'x' at "
                                         "row 2"):
        boards_from_table(t)
    t = t.set_column(5, "Score_NS", pa.array([100, 200]))
    b = boards_from_table(t)
    assert b.ns_score.tolist() == [100.0, 200.0] and b.n_players == 8


def test_components_and_identifiability():
    # a fixed partnership a-b is not identifiable; the triangle c-d, d-e, e-c is
    b = Boards.from_arrays([1, 1, 2, 3], [10, 20, 30, 40], north=["a", "c", "d", "e"],
                           south=["b", "d", "e", "c"], east=["x", "y", "x", "x"],
                           west=["z", "w", "z", "z"])
    comp, identifiable = b.partnership_components()
    names = b.players.names.tolist()
    ca, cc = comp[names.index("a")], comp[names.index("c")]
    assert not identifiable[ca] and identifiable[cc]
    assert (b.components() == 0).all()  # everybody is linked through boards 1 and 2


@given(st.lists(st.integers(0, 5), min_size=1, max_size=40))
def test_grouping_is_a_stable_partition(boards):
    n = len(boards)
    labels = [f"p{i}" for i in range(n)]
    b = Boards.from_arrays(boards, np.arange(n) * 10.0, ns_pair=labels,
                           ew_pair=[f"q{i}" for i in range(n)])
    assert sorted(b.order.tolist()) == list(range(n))
    # rows of a board are contiguous, in input order, and boards in first appearance
    seen = []
    for g in range(b.n_boards):
        rows = b.order[b.board_offsets[g]:b.board_offsets[g + 1]].tolist()
        assert rows == sorted(rows)
        assert {boards[r] for r in rows} == {b.board_number[g]}
        seen.append(rows[0])
    assert seen == sorted(seen)


def _as_text(a):
    return np.array([f"id{x}" for x in a.tolist()], dtype=object)


@pytest.mark.parametrize("shift", [0, -50, 10**9])
def test_integer_ids_take_the_direct_table_with_the_same_numbering(shift):
    # integer players, events and boards skip hashing (direct tables); the result must be
    # the one the hashing path gives for the same labels as text
    rng = np.random.default_rng(5)
    n = 3000
    event = rng.integers(0, 40, n) + shift
    board = rng.integers(1, 9, n).astype(np.int16)
    seats = {s: np.empty(n, dtype=np.int32) for s in ("north", "south", "east", "west")}
    for key in np.unique(event.astype(np.int64) * 16 + board):
        rows = np.flatnonzero(event.astype(np.int64) * 16 + board == key)
        ids = rng.permutation(4 * len(rows) + 7)[:4 * len(rows)] + 3 + shift % 1000
        for j, s in enumerate(seats):
            seats[s][rows] = ids[j::4]
    score = (rng.integers(-100, 160, n) * 10).astype(np.int16)
    time = np.datetime64("2024-01-01") + rng.integers(0, 30 * 86400, n).astype(
        "timedelta64[s]")
    fast = Boards.from_arrays(board, score, event=event, time=time, period="3d", **seats)
    text = Boards.from_arrays(board, score, event=_as_text(event), time=time, period="3d",
                              **{s: _as_text(v) for s, v in seats.items()})
    assert fast.players.names.dtype == np.int32
    assert fast.players.names.tolist() == [int(x[2:]) for x in text.players.names.tolist()]
    for f in ("board_offsets", "order", "board_period", "north", "south", "east", "west",
              "ns_score", "time"):
        np.testing.assert_array_equal(getattr(fast, f), getattr(text, f))
    assert fast.board_event.tolist() == [int(x[2:]) for x in text.board_event.tolist()]
    assert fast.board_number.dtype == np.int16
    # Arrow columns are streamed chunk by chunk (uneven chunks, an empty one, timestamps
    # in seconds): the same boards
    table = pa.table({"event": event, "board": board, "time": time, **seats,
                      "ns_score": score})
    empty = table.slice(0, 1).to_batches()[0].slice(0, 0)
    table = pa.Table.from_batches(table.slice(0, 5).to_batches() + [empty]
                                  + table.slice(5).to_batches(max_chunksize=777))
    assert table.column("north").num_chunks > 3
    arrow = boards_from_table(table, period="3d")
    for f in ("board_offsets", "order", "board_period", "north", "south", "east", "west",
              "ns_score", "time", "board_number", "board_event"):
        np.testing.assert_array_equal(getattr(fast, f), getattr(arrow, f))
    assert arrow.players.names.tolist() == fast.players.names.tolist()
    # a player twice on a board is still found
    key = event.astype(np.int64) * 16 + board
    keys, counts = np.unique(key, return_counts=True)
    rows = np.flatnonzero(key == keys[np.argmax(counts)])
    west = seats["west"].copy()
    west[rows[1]] = seats["north"][rows[0]]
    with pytest.raises(InputError, match="plays twice on board"):
        Boards.from_arrays(board, score, event=event, **{**seats, "west": west})


# ----------------------------------------------------------------------------------
# awkward input found in QA: clear errors, nothing silently misread


def test_scores_outside_the_contract_range_are_errors():
    with pytest.raises(InputError, match=r"column 'ns_score' must be NS points in \[-7600, "
                                         r"7600\] .*found 42000000(\.0)? at row 1"):
        Boards.from_arrays([1, 1], [42000000, 450], ns_pair=[1, 2], ew_pair=[3, 4])
    with pytest.raises(InputError, match=r"found 1e\+300 at row 2"):
        Boards.from_arrays([1, 1], [450.0, 1e300], ns_pair=[1, 2], ew_pair=[3, 4])
    b = Boards.from_arrays([1, 1], [-7600, 7600], ns_pair=[1, 2], ew_pair=[3, 4])
    assert b.ns_score.tolist() == [-7600.0, 7600.0]


def test_artificial_percent_spellings_and_blank_numeric_cells():
    b = Boards.from_arrays([1, 1, 1], [420, 450, None], ns_pair=[1, 2, 3],
                           ew_pair=[4, 5, 6], artificial=["", "", "60%"])
    assert b.artificial.tolist() == [0, 0, 1]
    # a numeric column with blank cells (NaN): blank = real, as in a text column
    b = Boards.from_arrays([1, 1, 1], [420, 450, None], ns_pair=[1, 2, 3],
                           ew_pair=[4, 5, 6], artificial=[np.nan, np.nan, 3.0])
    assert b.artificial.tolist() == [0, 0, 3]
    with pytest.raises(InputError, match=r"column 'artificial' must be 0 \(real\).*found 4.0 "
                                         r"at row 3"):
        Boards.from_arrays([1, 1, 1], [420, 450, None], ns_pair=[1, 2, 3],
                           ew_pair=[4, 5, 6], artificial=[np.nan, np.nan, 4.0])


def test_result_column_tricks_or_relative_and_bad_cells():
    kw = dict(ns_pair=[1, 2, 3], ew_pair=[4, 5, 6], declarer=["N", "N", "N"])
    b = Boards.from_arrays([1, 1, 1], None, contract=["4H", "4H", "4H"],
                           tricks=["=", "+1", "-2"], **kw)
    assert b.ns_score.tolist() == [420.0, 450.0, -100.0]
    assert b.tricks.tolist() == [10, 11, 8]
    b = Boards.from_arrays([1, 1, 1], None, contract=["4H", "4H=", "pass"],
                           tricks=[10, 10, None], **kw)
    assert b.ns_score.tolist() == [420.0, 420.0, 0.0]
    with pytest.raises(InputError, match=r"column 'tricks' must be the tricks declarer took "
                                         r"\(a whole number 0-13\) or a result =, \+k, -k; "
                                         r"found 'abc' at row 2"):
        Boards.from_arrays([1, 1, 1], None, contract=["4H"] * 3, tricks=["10", "abc", "9"],
                           **kw)
    with pytest.raises(InputError, match=r"column 'tricks' .* found 10.5 at row 2"):
        Boards.from_arrays([1, 1, 1], None, contract=["4H"] * 3, tricks=[10, 10.5, 9], **kw)
    with pytest.raises(InputError, match=r"contract '4H=' gives 10 tricks but column 'tricks' "
                                         r"says '9'"):
        Boards.from_arrays([1, 1, 1], None, contract=["4H", "4H=", "4H"], tricks=[10, 9, 9],
                           **kw)
    with pytest.raises(InputError, match=r"contract '4H' has no result"):
        Boards.from_arrays([1, 1, 1], None, contract=["4H=", "4H", "4H="], **kw)
    with pytest.raises(InputError, match=r"column 'tricks' must be the tricks declarer took "
                                         r"\(a whole number 0-13\); found 10.5"):
        Boards.from_arrays([1, 1], [420, 450], ns_pair=[1, 2], ew_pair=[3, 4],
                           tricks=[10, 10.5])


def test_same_pair_or_player_twice_at_one_table():
    with pytest.raises(InputError, match=r"pair 1 sits twice at one table of board 1, at row "
                                         r"1; ns_pair and ew_pair must differ"):
        Boards.from_arrays([1, 1], [420, 450], ns_pair=[1, 2], ew_pair=[1, 3])
    with pytest.raises(InputError, match=r"player 'a' sits twice at one table of board 1, at "
                                         r"row 2; the four seats need four different players"):
        Boards.from_arrays([1, 1], [420, 450], north=["x", "a"], south=["y", "a"],
                           east=["z", "c"], west=["w", "d"])


# ----------------------------------------------------------------------------------
# fastrate bridge score: one-line errors, exit codes, no partial output


def _score(*args):
    from click.testing import CliRunner

    from fastrate.cli import main

    return CliRunner().invoke(main, ["bridge", "score", *map(str, args)])


def _one_line_error(r, text):
    assert r.exit_code == 1, (r.stdout, r.stderr)
    assert r.stderr.startswith("fastrate: error: ") and r.stderr.count("\n") == 1, r.stderr
    assert text in r.stderr, r.stderr


def test_cli_score_bad_tables(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("board,ns_pair,ew_pair,ns_score\n")
    _one_line_error(_score(f), "no results: t.csv has no rows (only a header)")
    f.write_text("board,ns_pair,ew_pair,ns_score\n1,1,11,420\n1,2,12,42000000\n")
    _one_line_error(_score(f), "found 42000000 at row 2 (line 3 of t.csv)")
    f.write_text("board,ns_pair,ew_pair,contract,declarer,tricks\n1,1,11,4H,N,10\n"
                 "1,2,12,4H,N,abc\n")  # was an internal error
    _one_line_error(_score(f), "column 'tricks' must be the tricks declarer took")
    f.write_text("board,ns_pair,ew_pair,contract,declarer,result\n1,1,11,4H,N,10\n"
                 "1,2,12,4H,N,10.5\n")  # was truncated to 10 silently
    _one_line_error(_score(f), "column 'result' must be the tricks declarer took (a whole "
                               "number 0-13) or a result =, +k, -k; found '10.5' at row 2 "
                               "(line 3 of t.csv)")
    f.write_text("board,north,south,east,west,ns_pair,ns_score\n1,a,b,c,d,1,420\n")
    _one_line_error(_score(f), "no column 'ew_pair' in t.csv (columns: board, north, south, "
                               "east, west, ns_pair, ns_score)")
    f.write_text("board,ns_pair,ew_pair,ns_score,artificial\n1,1,11,420,\n1,2,12,450,\n"
                 "1,3,13,,60%\n")
    r = _score(f)
    assert r.exit_code == 0 and r.stdout.splitlines()[3] == '1,"3","13",,3,-3'


def test_cli_score_pbn_given_as_csv(tmp_path, shared_data):
    f = tmp_path / "mp.txt"
    f.write_bytes((shared_data / "bridge_pbn" / "comparisons_papi_pbn-v2_mp_2_7.pbn")
                  .read_bytes())
    _one_line_error(_score(f), "mp.txt looks like a PBN file (it starts with '% PBN 2.0'), "
                               "not a table; read it with --input-format pbn")
    assert _score(f, "--input-format", "pbn").exit_code == 0


def test_cli_score_no_negative_zero_and_method_options(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("board,ns_pair,ew_pair,ns_score\n1,1,11,420\n1,2,12,420\n")
    r = _score(f)
    assert r.exit_code == 0
    assert r.stdout.splitlines()[1:] == ['1,"1","11",420,0,0', '1,"2","12",420,0,0']
    assert "-0" not in r.stderr
    r = _score(f, "--drop", "one")  # was silently ignored with cross-imps
    assert r.exit_code == 2 and "--drop applies only to --method butler" in r.stderr
    r = _score(f, "--method", "butler", "--style", "1/0.5/0")
    assert r.exit_code == 2 and "--style applies only to --method matchpoints" in r.stderr
    r = _score(f, "--method", "butler", "--drop", "-1")
    assert r.exit_code == 2 and "whole number >= 0" in r.stderr
    assert _score(f, "--method", "butler", "--drop", "none", "--datum", "median"
                  ).exit_code == 0
    # two tables drop nothing: asking for one from each end is refused, not ignored
    _one_line_error(_score(f, "--method", "butler", "--drop", "1"),
                    "--drop 1 asks for more than any board allows")


def test_cli_score_failure_leaves_the_old_output(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("board,ns_pair,ew_pair,contract,declarer\n1,1,11,4H=,N\n1,2,12,8NT,N\n")
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    _one_line_error(_score(f, "-o", out), "cannot read contract '8NT'")
    assert out.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "t.csv"]


def test_period_column_case_insensitive_and_unknown_period_lists_columns():
    t = pa.table({"board": [1, 1, 2, 2], "ns_pair": [1, 2, 1, 2], "ew_pair": [3, 4, 3, 4],
                  "ns_score": [100, 110, 200, 210], "Round": [2, 2, 1, 1]})
    b = boards_from_table(t, period="round")
    assert b.board_number.tolist() == [2, 1]  # round 1 first
    with pytest.raises(InputError, match=r"period 'rnd' is a length, which needs a time "
                                         r"column.*\(and the input has no column 'rnd'; "
                                         r"columns: board, ns_pair"):
        boards_from_table(t, period="rnd")
    t = t.append_column("time", pa.array(["2024-01-01"] * 4))
    with pytest.raises(InputError, match=r"unknown period 'rnd'.*; or the name of a column of "
                                         r"period labels \(columns of the input: board, "):
        boards_from_table(t, period="rnd")


def test_signed_results_in_a_csv_stay_relative(tmp_path):
    """A result column of only +1/+2 is overtricks, not 1 or 2 tricks taken (pyarrow
    would infer integers and lose the sign)."""
    import gzip

    from fastrate.io.boards import read_boards

    text = ("board,north,south,east,west,contract,declarer,Result\n"
            "1,a,b,c,d,4H,N,+1\n1,e,f,g,h,4H,N,+2\n2,a,b,c,d,3NT,S,9\n2,e,f,g,h,3NT,S,-1\n")
    path = tmp_path / "rel.csv"
    path.write_text(text)
    gz = tmp_path / "rel.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    for p in (path, gz):
        b = read_boards(p)
        # board 1 (NV): 4H+1 450, 4H+2 480; board 2 (NS vulnerable): 3NT= 600, 3NT-1 -100
        assert sorted(b.ns_score.tolist()) == [-100.0, 450.0, 480.0, 600.0]


def test_old_paths_are_the_new_objects():
    """Boards lives in fastrate.data.boards, read_boards in fastrate.io.boards; the old
    names are the same objects (read_boards from the bridge package with a warning)."""
    import fastrate
    import fastrate.bridge
    import fastrate.bridge.boards as old
    from fastrate.data import boards as data_boards
    from fastrate.io import boards as io_boards

    assert old.Boards is data_boards.Boards is fastrate.Boards is fastrate.bridge.Boards
    assert old.boards_from_table is data_boards.boards_from_table
    assert fastrate.read_boards is io_boards.read_boards
    for module in (old, fastrate.bridge):
        with pytest.warns(DeprecationWarning, match=r"read_boards moved to "
                                                    r"fastrate\.io\.boards\.read_boards"):
            assert module.read_boards is io_boards.read_boards
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        old.nothing  # noqa: B018


def _reference_components(n, rows, partners):
    """Plain union-find over lists: the board graph joins every player of a board's
    rows, the partnership graph each row's N-S and E-W; a partnership component is
    identifiable when a 2-colouring fails (an odd cycle). Ids by smallest member."""
    def labels(edges):
        parent = list(range(n))

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x
        for a, b in edges:
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        ids, out = {}, []
        for x in range(n):
            out.append(ids.setdefault(find(x), len(ids)))
        return out
    board_edges = [(p, q) for r in rows for p in r for q in r]
    comp = labels(board_edges)
    part = labels(partners)
    colour = [None] * n
    odd = [False] * (max(part) + 1 if part else 0)
    adj = [[] for _ in range(n)]
    for a, b in partners:
        adj[a].append(b)
        adj[b].append(a)
    for s in range(n):
        if colour[s] is None:
            colour[s], stack = 0, [s]
            while stack:
                x = stack.pop()
                for y in adj[x]:
                    if colour[y] is None:
                        colour[y] = 1 - colour[x]
                        stack.append(y)
                    elif colour[y] == colour[x]:
                        odd[part[x]] = True
    return comp, part, odd


@given(st.lists(st.lists(st.permutations(list(range(8))).map(lambda p: p[:4]),
                         min_size=1, max_size=3), min_size=1, max_size=6))
def test_player_graphs_equal_a_plain_union_find(boards):
    """One union-find pass gives the board and partnership components (and odd cycles)
    of a plain reference, for random seatings (a player at most once per board)."""
    from fastrate.data.boards import player_graphs

    rows, board = [], []
    for b, tables in enumerate(boards):
        seen = set()
        for t in tables:
            if seen.isdisjoint(t):
                seen.update(t)
                rows.append(t)
                board.append(b)
    n = 8
    seats = [np.array([r[j] for r in rows], dtype=np.int64) for j in range(4)]
    offsets = np.searchsorted(np.array(board), np.arange(len(boards) + 1)).astype(np.int64)
    g = player_graphs(offsets, n, *seats)
    per_board = [sum((list(r) for r, bb in zip(rows, board) if bb == b), [])
                 for b in range(len(boards))]
    partners = [(r[0], r[1]) for r in rows] + [(r[2], r[3]) for r in rows]
    comp, part, odd = _reference_components(n, per_board, partners)
    assert g.component.tolist() == comp
    assert g.partnership.tolist() == part
    assert g.identifiable.tolist() == odd
    played = sorted({p for r in rows for p in r})
    assert g.n_components == len({comp[p] for p in played})
    assert g.n_partnership_components == len({part[p] for p in played})
    assert g.n_nonidentifiable == len({part[p] for p in played if not odd[part[p]]})
