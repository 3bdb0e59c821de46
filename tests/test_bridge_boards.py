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
