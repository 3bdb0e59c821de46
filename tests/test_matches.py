"""Matches: multiplayer and team results in CSR arrays (construction, readers, Games ->
Matches, every validation error), checked against a slow dict-of-lists grouping and on
real long-format data (F1 race results, a KDice placement log)."""

from __future__ import annotations

import gzip

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastrate
from fastrate.data import Games, Matches
from fastrate.data._csr import factorize, first_rows, group_of, offsets_from_counts, run_starts
from fastrate.errors import InputError, InputTypeError
from fastrate.io.matches import read_matches
from fastrate.io.tables import write_table

# two matches: a 2-vs-2 team game (blue wins) and a free-for-all of three with a tie
MATCH = ["a", "a", "a", "a", "b", "b", "b"]
TEAM = ["red", "blue", "red", "blue", "x", "y", "z"]
PLAYER = ["ann", "bob", "cid", "dan", "ann", "bob", "eve"]
PLACE = [2, 1, 2, 1, 1, 3, 1]
TIME = ["2024-01-02"] * 4 + ["2024-01-01"] * 3


def _names(m: Matches, match: int) -> list[list[str]]:
    return [[m.players[p] for p in team] for team in m.teams_of(match)]


def _check_arrays(m: Matches) -> None:
    """The CSR invariants and the kernel-ready dtypes."""
    for a, dtype in ((m.match_team_offsets, np.int64), (m.team_player_offsets, np.int64),
                     (m.player, np.int64), (m.rank, np.int64)):
        assert a.dtype == dtype and a.ndim == 1 and a.flags.c_contiguous and a.flags.writeable
    if m.weight is not None:
        assert m.weight.dtype == np.float64 and m.weight.flags.c_contiguous
    assert m.match_team_offsets[0] == 0 and m.match_team_offsets[-1] == m.n_teams
    assert m.team_player_offsets[0] == 0 and m.team_player_offsets[-1] == m.n_seats
    assert (np.diff(m.match_team_offsets) >= 2).all()
    assert (np.diff(m.team_player_offsets) >= 1).all()
    for teams, ranks in m.iter_matches():
        assert ranks[0] == 1 and (np.diff(ranks) >= 0).all()
        seated = np.concatenate(teams)
        assert np.unique(seated).shape[0] == seated.shape[0]


# ----------------------------------------------------------------------------------
# building


def test_from_arrays_teams_ties_and_order():
    m = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE, time=TIME)
    _check_arrays(m)
    assert (m.n_matches, m.n_teams, m.n_seats, m.n_players, len(m)) == (2, 5, 7, 5, 2)
    assert repr(m) == "Matches(2 matches, 5 teams, 7 seats, 5 players, with time)"
    # match b is earlier, so it comes first; teams best first, ties in input order
    assert m.match_labels.tolist() == ["b", "a"]
    assert _names(m, 0) == [["ann"], ["eve"], ["bob"]]
    assert m.ranks_of(0).tolist() == [1, 1, 3]
    assert _names(m, 1) == [["bob", "dan"], ["ann", "cid"]]
    assert m.ranks_of(1).tolist() == [1, 2]
    assert m.team_labels.tolist() == ["x", "z", "y", "blue", "red"]
    assert m.match_team_offsets.tolist() == [0, 3, 5]
    assert m.team_player_offsets.tolist() == [0, 1, 2, 3, 5, 7]
    assert m.team_match().tolist() == [0, 0, 0, 1, 1]
    assert m.seat_team().tolist() == [0, 1, 2, 3, 3, 4, 4]
    assert m.row.tolist() == [4, 6, 5, 1, 3, 0, 2]
    assert m.time.astype("datetime64[D]").astype(str).tolist() == ["2024-01-01", "2024-01-02"]
    assert m.weight is None and m.weight_or_one().tolist() == [1.0] * 7
    assert m.period_or_zero().tolist() == [0, 0]
    # the player ids follow first appearance in the input
    assert list(m.players) == ["ann", "bob", "cid", "dan", "eve"]


def test_rank_place_and_score_directions():
    lower = Matches.from_arrays(MATCH, TEAM, PLAYER, rank=PLACE)
    assert Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE).rank.tolist() == \
        lower.rank.tolist()
    # a score is higher-is-better: negated places give the same ranks
    score = Matches.from_arrays(MATCH, TEAM, PLAYER, score=[-p for p in PLACE])
    assert score.rank.tolist() == lower.rank.tolist()
    # higher_is_better turns the direction around
    flipped = Matches.from_arrays(MATCH, TEAM, PLAYER, rank=PLACE, higher_is_better=True)
    assert _names(flipped, 0) == [["ann", "cid"], ["bob", "dan"]]
    assert _names(flipped, 1) == [["bob"], ["ann"], ["eve"]]
    assert flipped.ranks_of(1).tolist() == [1, 2, 2]
    # only the order counts: fractional points, gaps
    pts = Matches.from_arrays([1, 1, 1, 1], None, ["p", "q", "r", "s"],
                              score=[10.5, 3.0, 10.5, -7.25])
    assert pts.team_labels is None
    assert _names(pts, 0) == [["p"], ["r"], ["q"], ["s"]]
    assert pts.rank.tolist() == [1, 1, 3, 4]


def test_free_for_all_without_team_column():
    m = Matches.from_arrays([7, 7, 7, 8, 8], None, ["a", "b", "c", "c", "a"],
                            place=[3, 1, 2, 1, 2])
    _check_arrays(m)
    assert m.n_teams == m.n_seats == 5
    assert [_names(m, i) for i in range(2)] == [[["b"], ["c"], ["a"]], [["c"], ["a"]]]
    assert m.match_labels.tolist() == [7, 8]


def test_weights_and_periods():
    m = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE, time=TIME, period="1d",
                            weight=[1, 1, 0.5, 1, 1, 0.25, 1])
    assert m.period.tolist() == [19719, 19720]  # days since Monday 1970-01-05, absolute
    assert m.weight.tolist() == [1.0, 1.0, 0.25, 1.0, 1.0, 1.0, 0.5]
    assert repr(m).endswith("with time, period, weight)")
    # period labels per row: strings are ranked and kept; integers are used as they are
    seasons = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE,
                                  period=["s2"] * 4 + ["s1"] * 3)
    assert seasons.match_labels.tolist() == ["b", "a"]
    assert seasons.period.tolist() == [0, 1]
    assert seasons.period_labels.tolist() == ["s1", "s2"]
    years = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE, period=[2021] * 4 + [2019] * 3)
    assert years.period.tolist() == [2019, 2021] and years.period_labels is None


def test_time_sort_is_stable_and_sort_false_refuses():
    match = [1, 1, 2, 2, 3, 3]
    m = Matches.from_arrays(match, None, list("abcdef"), place=[1, 2] * 3,
                            time=[5.0, 5.0, 1.0, 1.0, 5.0, 5.0])
    assert m.match_labels.tolist() == [2, 1, 3]
    assert m.time.tolist() == [1.0, 5.0, 5.0]
    with pytest.raises(InputError, match=r"column 'time' must be nondecreasing \(matches in "
                       r"chronological order\); found 1.0 at row 3; sort the input"):
        Matches.from_arrays(match, None, list("abcdef"), place=[1, 2] * 3,
                            time=[5.0, 5.0, 1.0, 1.0, 5.0, 5.0], sort=False)
    # rows of one match need not be next to each other
    spread = Matches.from_arrays([1, 2, 1, 2], None, list("abba"), place=[1, 1, 2, 2],
                                 sort=False)
    assert [_names(spread, i) for i in range(2)] == [[["a"], ["b"]], [["b"], ["a"]]]


def test_integer_player_ids_with_players():
    m = Matches.from_arrays([0, 0, 1, 1], None, [2, 0, 1, 2], place=[1, 2, 2, 1],
                            players=["x", "y", "z", "unused"])
    assert m.n_players == 4 and m.player.tolist() == [2, 0, 2, 1]
    with pytest.raises(InputError, match=r"column 'player' must be a player id in \[0, 3\); "
                       "found 3 at row 2"):
        Matches.from_arrays([0, 0], None, [1, 3], place=[1, 2], players=["x", "y", "z"])


def test_unranked_last_and_drop():
    nan = float("nan")
    match, player = [1, 1, 1, 1, 2, 2, 2], list("abcdabc")
    place = [2, nan, 1, nan, nan, 1, 2]
    last = Matches.from_arrays(match, None, player, place=place, unranked="last")
    assert _names(last, 0) == [["c"], ["a"], ["b"], ["d"]]
    assert last.ranks_of(0).tolist() == [1, 2, 3, 3]
    assert _names(last, 1) == [["b"], ["c"], ["a"]]
    assert last.ranks_of(1).tolist() == [1, 2, 3]
    drop = Matches.from_arrays(match, None, player, place=place, unranked="drop")
    assert drop.n_seats == 4 and drop.dropped == (("no place", 3, "row 2"),)
    assert drop.row.tolist() == [2, 0, 5, 6]  # input rows, counting the dropped ones
    # after dropping, errors still name the input rows
    with pytest.raises(InputError, match="match 2 must have at least two teams; found 1 at "
                       "row 6"):
        Matches.from_arrays(match, None, player, place=[2, nan, 1, nan, nan, 1, nan],
                            unranked="drop")
    with pytest.raises(InputError, match="every row has a missing place"):
        Matches.from_arrays([1, 1], None, ["a", "b"], place=[nan, nan], unranked="drop")


def test_views_and_index_errors():
    m = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE)
    assert _names(m, -1) == _names(m, 1)
    assert [r.tolist() for _, r in m.iter_matches()] == [[1, 2], [1, 1, 3]]
    with pytest.raises(InputError, match=r"match index must be in \[0, 2\); got 2"):
        m.teams_of(2)
    with pytest.raises(InputTypeError, match="match must be an integer index; got 'a'"):
        m.ranks_of("a")
    mapping = np.array([3, 0, 1, 2, 5], dtype=np.int64)
    bigger = fastrate.PlayerIndex(["bob", "cid", "dan", "ann", "zed", "eve"])
    moved = m.with_players(bigger, mapping)
    assert _names(moved, 0) == _names(m, 0) and moved.n_players == 6


# ----------------------------------------------------------------------------------
# tables and files


def _table() -> pa.Table:
    return pa.table({"game": MATCH, "team": TEAM, "player": PLAYER, "place": PLACE,
                     "date": TIME, "weight": [1, 1, 0.5, 1, 1, 1, 1]})


def _same(a: Matches, b: Matches) -> None:
    assert a.match_team_offsets.tolist() == b.match_team_offsets.tolist()
    assert a.team_player_offsets.tolist() == b.team_player_offsets.tolist()
    assert a.players.names[a.player].tolist() == b.players.names[b.player].tolist()
    assert a.rank.tolist() == b.rank.tolist()
    assert a.match_labels.tolist() == b.match_labels.tolist()
    for name in ("team_labels", "weight", "time", "period"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert x.tolist() == y.tolist(), name


def test_from_frame_pyarrow_pandas_dict_and_round_trip():
    expected = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE, time=TIME,
                                   weight=[1, 1, 0.5, 1, 1, 1, 1])
    table = _table()
    for frame in (table, table.to_pandas(), {k: table.column(k).to_pylist()
                                             for k in table.column_names}):
        _same(Matches.from_frame(frame), expected)
    back = expected.to_arrow()
    assert back.column_names == ["match", "team", "player", "rank", "weight", "time"]
    _same(Matches.from_frame(back), expected)
    ffa = Matches.from_frame(table, team=False)
    assert ffa.team_labels is None and "team" not in ffa.to_arrow().column_names
    _same(Matches.from_frame(ffa.to_arrow()), ffa)


def test_from_frame_polars():
    pl = pytest.importorskip("polars")
    frame = pl.from_arrow(_table())
    _same(Matches.from_frame(frame), Matches.from_frame(_table()))


def test_column_mapping_and_suggestions():
    t = pa.table({"event": [1, 1, 2, 2], "side": ["x", "y", "x", "y"],
                  "who": ["a", "b", "a", "b"], "pts": [3, 5, 1, 0]})
    m = Matches.from_frame(t, team="side", player="who", score="pts")
    assert [_names(m, i) for i in range(2)] == [[["b"], ["a"]], [["a"], ["b"]]]
    with pytest.raises(InputError, match="no column 'whoo' for players in the input .*did you "
                       "mean 'who'"):
        Matches.from_frame(t, player="whoo", score="pts")
    with pytest.raises(InputError, match="cannot find the player column in the input "
                       r"\(columns: event, side, who, pts\)"):
        Matches.from_frame(t, score="pts")
    with pytest.raises(InputError, match="cannot find the rank column"):
        Matches.from_frame(t, player="who")
    with pytest.raises(InputTypeError, match="give at most one of rank=, place= or score="):
        Matches.from_frame(t, player="who", rank="pts", score="pts")
    with pytest.raises(InputError, match="cannot find the match column"):
        Matches.from_frame(pa.table({"player": ["a"], "rank": [1]}))
    with pytest.raises(InputError, match="no matches: the input has no rows"):
        Matches.from_frame(t.slice(0, 0), team="side", player="who", score="pts")
    # a rank column is preferred to a points column (a KDice log's points are payoffs)
    log = pa.table({"game": [1, 1], "player": ["a", "b"], "place": [2, 1], "points": [9, 0]})
    assert _names(Matches.from_frame(log), 0) == [["b"], ["a"]]


@pytest.mark.parametrize("name", ["m.csv", "m.csv.gz", "m.parquet", "m.json"])
def test_file_round_trip(tmp_path, name):
    expected = Matches.from_arrays(MATCH, TEAM, PLAYER, place=PLACE, time=TIME,
                                   weight=[1, 1, 0.5, 1, 1, 1, 1])
    path = tmp_path / name
    write_table(expected.to_arrow(), path)
    _same(read_matches(path), expected)
    _same(fastrate.read_matches(path, format=None), expected)
    assert fastrate.Matches is Matches


def test_read_matches_errors_name_the_file_line(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("match,team,player,rank\n1,x,a,1\n1,y,b,2\n1,y,c,3\n")
    with pytest.raises(InputError, match=r"column 'rank' must be the same in every row of a "
                       r"team; found 3.0 at row 3 \(line 4 of bad.csv\) but 2.0 at row 2 "
                       r"\(line 3 of bad.csv\) \(team 'y' of match 1\)"):
        read_matches(path)
    path.write_text("race,driver,finish\nr1,a,1\nr1,b,\nr1,a,3\n")
    with pytest.raises(InputError, match=r"column 'finish' must hold a number in every row; "
                       r"found a missing value at row 2 \(line 3 of bad.csv\)"):
        read_matches(path)
    with pytest.raises(InputError, match=r"column 'driver' must not repeat within a match; "
                       r"found 'a' at row 3 \(line 4 of bad.csv\), already at row 1 \(line 2 "
                       r"of bad.csv\) \(match 'r1'\)"):
        read_matches(path, unranked="last")
    with pytest.raises(InputError, match="no such file"):
        read_matches(tmp_path / "missing.csv")


# ----------------------------------------------------------------------------------
# Games -> Matches


def test_from_games():
    g = Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"], [1, 0.5, 0, 1],
                          time=[3.0, 1.0, 2.0, 4.0], weight=[1, 0.5, 1, 1], period=2.0)
    m = Matches.from_games(g)
    _check_arrays(m)
    assert (m.n_matches, m.n_teams, m.n_seats) == (4, 8, 8)
    assert m.match_labels.tolist() == [1, 2, 0, 3]  # input rows of the games, by time
    assert [_names(m, i) for i in range(4)] == [[["b"], ["c"]], [["a"], ["c"]],
                                                 [["a"], ["b"]], [["a"], ["c"]]]
    assert m.rank.tolist() == [1, 1, 1, 2, 1, 2, 1, 2]  # the draw is a tie
    assert m.time.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert m.period.tolist() == [0, 1, 1, 2]
    assert m.weight.tolist() == [0.5, 0.5, 1, 1, 1, 1, 1, 1]
    assert m.row.tolist() == [2, 3, 5, 4, 0, 1, 6, 7]  # 2 * game row + (0 first, 1 second)
    assert m.players is g.players
    # the same as the long table of the games
    long = Matches.from_arrays(np.repeat(np.arange(4), 2), None, ["a", "b", "b", "c", "c",
                                                                    "a", "a", "c"],
                               score=[1, 0, 0.5, 0.5, 0, 1, 1, 0],
                               time=np.repeat([3.0, 1.0, 2.0, 4.0], 2), period=2.0,
                               weight=np.repeat([1, 0.5, 1, 1], 2))
    _same(long, m)
    # and back: the games again, better-ranked player first
    back = m.to_games()
    assert back.score.tolist() == [0.5, 1.0, 1.0, 1.0]
    assert back.players.names[back.white].tolist() == ["b", "a", "a", "a"]
    assert m.is_two_player() and back.weight.tolist() == [0.5, 1, 1, 1]


def test_from_games_refuses_weights_above_one():
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0], weight=[1, 3])
    with pytest.raises(InputError, match=r"column 'weight' must be in \[0, 1\]; found 3.0 at "
                       "row 2"):
        Matches.from_games(g)


def test_pair_offsets_and_team_scores():
    m = Matches.from_arrays([1, 1, 1, 2, 2], None, ["a", "b", "c", "a", "b"],
                            score=[3.0, 7.0, 5.0, 1.0, 1.0])
    assert m.pair_offsets().tolist() == [0, 3, 4]
    assert m.score.tolist() == [7.0, 5.0, 3.0, 1.0, 1.0]  # stored best first
    assert Matches.from_arrays([1, 1], None, ["a", "b"], rank=[1, 2]).score is None
    with pytest.raises(InputError, match=r"only matches of two one-player teams"):
        m.to_games()


def test_from_games_refuses_fractions():
    g = Games.from_arrays(["a", "b"], ["b", "a"], [1, 0.7], time=[2.0, 1.0])
    with pytest.raises(InputError, match=r"column 'score' must be 1, 0.5 or 0 to become ranks "
                       r"\(a win, a draw or a loss\); found 0.7 at row 2"):
        Matches.from_games(g)


# ----------------------------------------------------------------------------------
# bad input: every validation error


nan, inf = float("nan"), float("inf")
BAD = [
    (dict(match=["a", "a"], team=None, player=["x", "x"], place=[1, 2]),
     InputError, r"column 'player' must not repeat within a match; found 'x' at row 2, already "
     r"at row 1 \(match 'a'\); drop the repeated row"),
    (dict(match=["a", "a", "a"], team=["t", "t", "u"], player=["x", "y", "z"],
          place=[1, 2, 3]),
     InputError, r"column 'place' must be the same in every row of a team; found 2.0 at row 2 "
     r"but 1.0 at row 1 \(team 't' of match 'a'\)"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], score=[1, nan]),
     InputError, "column 'score' must hold a number in every row; found a missing value at "
     "row 2; drop or fill those rows, or pass unranked='last'"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, inf]),
     InputError, "column 'rank' must be a finite number; found inf at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, "first"]),
     InputError, "column 'rank' must be numeric; found 'first' at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], weight=[1, nan]),
     InputError, r"column 'weight' must be a finite number \(no NaN, missing or infinite "
     r"values\); found nan at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], weight=[0, 1]),
     InputError, r"column 'weight' is 0 for every player of the team in match 'a' \(at row 1\); "
     "a team needs a player who took part"),
    (dict(match=["a", "a", "a"], team=["t", "t", "u"], player=["x", "y", "z"], rank=[1, 1, 2],
          weight=[0, 0, 1]),
     InputError, r"column 'weight' is 0 for every player of team 't' in match 'a'"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], weight=[1, -2]),
     InputError, r"column 'weight' must be in \[0, 1\]; found -2.0 at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], weight=[1, 1.5]),
     InputError, r"column 'weight' must be in \[0, 1\]; found 1.5 at row 2"),
    (dict(match=["a", "a", "b"], team=None, player=["x", "y", "x"], rank=[1, 2, 1]),
     InputError, "match 'b' must have at least two teams; found 1 at row 3; drop that match$"),
    (dict(match=["a", "a"], team=["t", "t"], player=["x", "y"], rank=[1, 1]),
     InputError, "match 'a' must have at least two teams; found 1 at row 1; drop that match "
     "or check its team column"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], time=[1.0, 2.0]),
     InputError, r"column 'time' must be the same in every row of a match; found 2.0 at row 2 "
     r"but 1.0 at row 1 \(match 'a'\)"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], period=[1, 2]),
     InputError, "column 'period' must be the same in every row of a match; found 2 at row 2"),
    (dict(match=["a", "a", "b", "b"], team=None, player=["x", "y", "x", "y"],
          rank=[1, 2, 1, 2], time=[2.0, 2.0, 1.0, 1.0], period=[1, 1, 2, 2]),
     InputError, "column 'period' must not decrease while time increases; found 1 at row 1"),
    (dict(match=["a", ""], team=None, player=["x", "y"], rank=[1, 2]),
     InputError, "column 'match' must not be empty; found '' at row 2; drop or fill"),
    (dict(match=["a", "a"], team=["t", ""], player=["x", "y"], rank=[1, 2]),
     InputError, "column 'team' must not be empty; found '' at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", ""], rank=[1, 2]),
     InputError, "column 'player' must not be empty; found '' at row 2"),
    (dict(match=["a", None], team=None, player=["x", "y"], rank=[1, 2]),
     InputError, "column 'match' must not be missing; found a missing value at row 2"),
    (dict(match=[1.0, nan], team=None, player=["x", "y"], rank=[1, 2]),
     InputError, "column 'match' must not be missing; found a missing value at row 2"),
    (dict(match=["a", "a"], team=["t", None], player=["x", "y"], rank=[1, 2]),
     InputError, "column 'team' must not be missing; found a missing value at row 2"),
    (dict(match=["a", "a"], team=None, player=["x", None], rank=[1, 2]),
     InputError, "column 'player' must name a player in every row; found a missing value at "
     "row 2"),
    (dict(match=["a", "a"], team=None, player=["x", "y", "z"], rank=[1, 2]),
     InputError, r"column 'player' must have one value per row \(2\); got 3"),
    (dict(match=[], team=None, player=[], rank=[]),
     InputError, "no matches: the input has no rows"),
    (dict(match=["a", "a"], team=None, player=["x", "y"]),
     InputTypeError, "give exactly one of rank=, place= .* or score= .*; got none"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], score=[1, 2]),
     InputTypeError, "give exactly one of .*; got rank, score"),
    (dict(match=None, team=None, player=["x", "y"], rank=[1, 2]),
     InputTypeError, "match and player columns are required"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], higher_is_better="yes"),
     InputTypeError, "higher_is_better must be True or False; got 'yes'"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], unranked="first"),
     InputError, "unranked must be one of 'error', 'last', 'drop'; got 'first'"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], period="1w"),
     InputError, "period '1w' is a length, which needs a time column"),
    (dict(match=["a", "a"], team=None, player=["x", "y"], rank=[1, 2], time=["2024-01-01",
                                                                              "soon"]),
     InputError, "column 'time' must be a date or time .*; found 'soon' at row 2"),
    (dict(match=3, team=None, player=["x", "y"], rank=[1, 2]),
     InputTypeError, "column 'match' must be an array or a list; got int"),
    (dict(match=["a", "a"], team=None, player="xy", rank=[1, 2]),
     InputTypeError, "column 'player' must be an array or a list; got str"),
]


@pytest.mark.parametrize(("kwargs", "error", "message"), BAD)
def test_bad_input(kwargs, error, message):
    args = [kwargs.pop(k) for k in ("match", "team", "player")]
    with pytest.raises(error, match=message):
        Matches.from_arrays(*args, **kwargs)


def test_bad_input_names_the_source_and_file_columns():
    t = pa.table({"race": ["r", "r"], "driver": ["x", "x"], "pos": [1, 2]})
    with pytest.raises(InputError, match=r"column 'driver' must not repeat within a match; "
                       r"found 'x' at row 2 of f1.parquet"):
        Matches.from_frame(t, rank="pos", source="f1.parquet")


# ----------------------------------------------------------------------------------
# the grouping helpers


def test_csr_helpers():
    assert run_starts(np.array([5, 5, 2, 2, 2, 9])).tolist() == [0, 2, 5, 6]
    assert run_starts(np.zeros(0)).tolist() == [0]
    assert offsets_from_counts(np.array([2, 0, 3])).tolist() == [0, 2, 2, 5]
    assert group_of(np.array([0, 2, 2, 5])).tolist() == [0, 0, 2, 2, 2]
    ids, labels = factorize(["b", "a", "b", "c"], "k")
    assert ids.tolist() == [0, 1, 0, 2] and labels.tolist() == ["b", "a", "c"]
    assert first_rows(ids).tolist() == [0, 1, 3]
    ids, labels = factorize(pa.chunked_array([[3, 1], [3, 7]]), "k")
    assert ids.tolist() == [0, 1, 0, 2] and labels.tolist() == [3, 1, 7]
    ids, labels = factorize(np.array([1, "x", 1], dtype=object), "k")  # mixed: as strings
    assert ids.tolist() == [0, 1, 0] and labels.tolist() == ["1", "x"]
    with pytest.raises(InputError, match="column 'k' must not be missing; found a missing "
                       "value at row 2"):
        factorize(pa.array([1.0, float("nan")]), "k")


# ----------------------------------------------------------------------------------
# the slow reference: a dict of lists


def _reference(rows: list[tuple], team: bool, higher: bool, timed: bool) -> list[tuple]:
    """[(match key, [(team key, [players], rank), ...])] in stored order, grouped with
    dicts of lists (first appearance), matches stably sorted by time, teams by value."""
    matches: dict = {}
    times: dict = {}
    for i, (m, t, p, v, tm) in enumerate(rows):
        matches.setdefault(m, {}).setdefault(t if team else ("row", i), []).append((p, v))
        times.setdefault(m, tm)
    keys = list(matches)
    if timed:
        keys.sort(key=lambda k: times[k])
    out = []
    for k in keys:
        teams = [(t, [p for p, _ in seats], -seats[0][1] if higher else seats[0][1])
                 for t, seats in matches[k].items()]
        teams.sort(key=lambda x: x[2])
        out.append((k, [(t, players, 1 + sum(o[2] < value for o in teams))
                        for t, players, value in teams]))
    return out


@st.composite
def long_tables(draw):
    n_matches = draw(st.integers(1, 6))
    rows = []
    for m in range(n_matches):
        n_teams = draw(st.integers(2, 5))
        sizes = draw(st.lists(st.integers(1, 3), min_size=n_teams, max_size=n_teams))
        pool = draw(st.permutations(range(16)))
        time = draw(st.integers(0, 3))
        seat = 0
        for t, size in enumerate(sizes):
            value = draw(st.integers(-2, 3))
            for _ in range(size):
                rows.append((f"m{m}", f"t{t}", f"p{pool[seat]}", value, float(time)))
                seat += 1
    return draw(st.permutations(rows))


@given(long_tables(), st.booleans(), st.booleans(), st.booleans())
def test_grouping_matches_the_dict_of_lists_reference(rows, team, higher, timed):
    # free-for-all reads the same rows with every row a team (players differ per match)
    match, teams, player, value, time = (list(c) for c in zip(*rows))
    m = Matches.from_arrays(match, teams if team else None, player,
                            **{"score" if higher else "rank": value},
                            time=time if timed else None)
    _check_arrays(m)
    got = []
    for i in range(m.n_matches):
        tl = m.team_labels
        lo = m.match_team_offsets[i]
        got.append((m.match_labels[i], [
            (tl[lo + j] if team else None, [m.players[p] for p in ps], int(r))
            for j, (ps, r) in enumerate(zip(m.teams_of(i), m.ranks_of(i)))]))
    want = _reference(rows, team, higher, timed)
    if not team:
        want = [(k, [(None, ps, r) for _, ps, r in ts]) for k, ts in want]
    assert got == want
    # each seat's input row holds that seat's player
    assert [player[r] for r in m.row] == m.players.names[m.player].tolist()


# ----------------------------------------------------------------------------------
# real data


@pytest.mark.slow
def test_f1_results(shared_data):
    path = shared_data / "f1_race_results" / "results.csv.gz"
    with pytest.raises(InputError, match=r"column 'position' must hold a number in every "
                       r"row; found a missing value at row 13 \(line 14 of results.csv.gz\)"):
        read_matches(path)
    m = read_matches(path, unranked="last")  # race_id, driver, position, date by name
    _check_arrays(m)
    assert (m.n_matches, m.n_seats, m.n_players) == (1160, 27438, 860)
    assert m.team_labels is None  # constructors are not teams: teammates race each other
    labels = m.match_labels.tolist()
    assert labels[0] == "1950-01" and (np.diff(m.time.astype(np.int64)) >= 0).all()

    def podium(race: str) -> list[list[str]]:
        return _names(m, labels.index(race))[:2]

    assert podium("2021-22") == [["max-verstappen"], ["lewis-hamilton"]]
    assert podium("1950-01")[0] == ["nino-farina"]
    # shared-car wins are ties: two drivers ranked 1
    assert podium("1951-04") == [["luigi-fagioli"], ["juan-manuel-fangio"]]
    assert m.ranks_of(labels.index("1951-04"))[:2].tolist() == [1, 1]
    winners = m.players.names[m.player[m.team_player_offsets[:-1][m.rank == 1]]]
    wins = dict(zip(*np.unique(winners, return_counts=True)))
    assert {d: int(wins[d]) for d in ("michael-schumacher", "alain-prost", "sebastian-vettel",
                                      "ayrton-senna", "fernando-alonso", "jim-clark",
                                      "juan-manuel-fangio")} == {
        "michael-schumacher": 91, "alain-prost": 51, "sebastian-vettel": 53,
        "ayrton-senna": 41, "fernando-alonso": 32, "jim-clark": 25, "juan-manuel-fangio": 24}
    # unclassified drivers tie last in their race
    brazil = labels.index("2008-18")
    assert _names(m, brazil)[4] == ["lewis-hamilton"] and m.ranks_of(brazil)[4] == 5
    # classified finishers only
    classified = read_matches(path, unranked="drop")
    assert classified.n_seats == 16595 and classified.dropped[0][:2] == ("no position", 10843)
    # the round trip through the long table keeps every match
    _same(Matches.from_frame(m.to_arrow()), m)
    # constructors as teams: teammates disagree on the position
    with pytest.raises(InputError, match=r"column 'position' must be the same in every row of "
                       r"a team; found 2.0 at row 2 \(line 3 of results.csv.gz\) but 1.0 at "
                       r"row 1 \(line 2 of results.csv.gz\) \(team 'alfa-romeo' of match "
                       r"'1950-01'\)"):
        read_matches(path, team="constructor", unranked="last")


def _kdice_log(rng: np.random.Generator, n_games: int) -> list[str]:
    """A KDice placement log as the site writes it: game, player, place, points, level,
    time (7 seats, places 1..n, players from a pool of 40)."""
    lines = ["game,player,place,points,level,time"]
    for g in range(n_games):
        n = int(rng.integers(2, 8))
        for place, who in enumerate(rng.choice(40, n, replace=False), start=1):
            lines.append(f"{1000 + g},p{who},{place},{int(rng.integers(-60, 61))},"
                         f"{int(rng.integers(0, 6))},{g // 3}")
    return lines


def test_kdice_placement_log_is_free_for_all_matches(tmp_path):
    from fastrate import placement

    rng = np.random.default_rng(9)
    lines = _kdice_log(rng, 300)
    rows = lines[1:]
    order = rng.permutation(len(rows))  # any row order
    path = tmp_path / "kdice.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("\n".join([lines[0]] + [rows[i] for i in order]) + "\n")
    m = read_matches(path)
    _check_arrays(m)
    assert m.team_labels is None and m.n_matches == 300 and m.n_seats == len(rows)
    assert (np.diff(m.time) >= 0).all() and m.time[-1] == 99.0
    # ranks are the places: the counts per player and place are placement's
    table = fastrate.io.tables.read_table(path)
    index, counts = placement.place_counts(table.column("player"), table.column("place"), 7,
                                           game=table.column("game"))
    ours = np.zeros((m.n_players, 7), dtype=np.int64)
    np.add.at(ours, (m.player, m.rank[m.seat_team()] - 1), 1)
    lookup = [index.id_of(name) for name in m.players]
    assert (counts[lookup] == ours).all()
    # the log of the placement tests (no time column: matches in file order)
    small = tmp_path / "log.csv"
    small.write_text("game,player,place,points,level\n1,a,1,60,0\n1,b,2,42,0\n1,c,3,-60,0\n"
                     "2,a,2,42,1\n2,b,1,60,1\n2,c,3,-60,1\n")
    m = read_matches(small)
    assert [_names(m, i) for i in range(2)] == [[["a"], ["b"], ["c"]], [["b"], ["a"], ["c"]]]
