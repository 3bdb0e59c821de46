"""PBN import (fastrate.io.pbn): the published travellers of real files reproduced with
fastrate's scoring, the parser on small inline files (tags, inheritance, comments,
column specifications, Multiplicity, errors with file:line), a round trip of random
games, and `fastrate bridge score` on PBN files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate.bridge.scoring import imps
from fastrate.cli.bridge import bridge_group
from fastrate.errors import InputError
from fastrate.io.pbn import (
    PbnColumn,
    PbnScoreWarning,
    parse_pbn,
    pbn_results,
    read_pbn,
    read_pbn_results,
    read_pbn_table,
)

IMP_FILE = "comparisons_papi_pbn-v2_imp_01.pbn"
MP_FILE = "comparisons_papi_pbn-v2_mp_2_7.pbn"
TEAMS_FILE = "endplay_example2_realbridge2021.pbn"


@pytest.fixture(scope="module")
def pbn_dir(shared_data):
    d = shared_data / "bridge_pbn"
    if not (d / IMP_FILE).exists():
        pytest.skip(f"PBN files not found in {d}")
    return d


def _first_copies(res):
    """Per file row (first copy of each Multiplicity-expanded row): the row's index into
    the table results."""
    return np.flatnonzero(res.table["copy"].to_numpy() == 0)


# ----------------------------------------------------------------------------------
# real files


def test_okbridge_cross_imps_reproduce_the_file(pbn_dir):
    """OKbridge travellers (boards at 39-137 tables) with their cross-IMP column: every
    row is reproduced to 0.005 except the 12 rows of board 395, whose last row is
    printed truncated ("-55" for a score of -550 and "-15.2" for -15.24)."""
    with pytest.warns(PbnScoreWarning, match="board 395 at line 5765 "):
        res = read_pbn_results(pbn_dir / IMP_FILE)
    b = res.boards
    assert (b.n_results, b.n_boards, res.participants) == (18396, 193, "none")
    assert b.dropped == () and b.n_single_result_boards == 0
    assert b.results_per_board.min() == 39 and b.results_per_board.max() == 137
    ours = b.to_input_order(b.score("cross-imps").ns)
    theirs = res.table["IMP_NS"].to_numpy()
    rows = _first_copies(res)
    assert rows.shape[0] == 5172  # ScoreTable rows in the file
    ok = np.abs(ours - theirs) <= 0.005 + 1e-9
    assert ok[rows].mean() >= 0.995  # 5160 of 5172 file rows (99.77%)
    assert ok.mean() >= 0.995  # 18354 of 18396 table results
    bad = rows[~ok[rows]]
    boards_bad = res.table["board"].to_numpy()[bad]
    assert set(boards_bad.tolist()) == {395} and bad.shape[0] == 12
    on_395 = np.flatnonzero(res.table["board"].to_numpy() == 395)
    assert bad.tolist() == [r for r in rows.tolist() if r in set(on_395.tolist())]
    # the explanation: the last row reads 5D N 10 "-55" "-15.2"; the score was -550
    # (both fields lost their last character). With -550 every other row of the board
    # matches to 0.005 and the bad row's printed -15.2 is our -15.24, truncated.
    s = res.table["ns_score"].to_numpy()[on_395].copy()
    assert s[-1] == -55
    s[-1] = -550
    from fastrate.bridge.scoring import cross_imps

    fixed = cross_imps(np.array([0, s.shape[0]]), s).ns
    pub = theirs[on_395]
    assert np.abs(fixed - pub)[:-1].max() <= 0.005 + 1e-9
    assert pub[-1] == -15.2 and np.trunc(fixed[-1] * 10) / 10 == -15.2
    # no other row needs more than the printed rounding
    assert np.abs(ours - theirs)[np.isin(np.arange(ours.shape[0]), on_395, invert=True)].max() \
        <= 0.005 + 1e-9


def test_okbridge_matchpoint_percentages_on_all_rows(pbn_dir):
    """All 792 rows of the MP file: a score no other table shares is printed to 0.01; a
    tied score is printed rounded to one decimal (half to even), e.g. 78.64 -> 78.60."""
    res = read_pbn_results(pbn_dir / MP_FILE)
    b = res.boards
    assert b.n_boards == 26 and b.n_results == 2826
    pct = b.to_input_order(b.score("matchpoints").ns_percent)
    theirs = res.table["MP_NS"].to_numpy()
    rows = _first_copies(res)
    assert rows.shape[0] == 792
    # how many tables of the board share each row's score
    board_of = b.to_input_order(b.board_of_row().astype(np.float64))
    score = res.table["ns_score"].to_numpy()
    key = board_of * 1e6 + score
    _, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
    tied = counts[inv] > 1
    untied = rows[~tied[rows]]
    tied_rows = rows[tied[rows]]
    assert untied.shape[0] == 149 and tied_rows.shape[0] == 643
    assert np.abs(pct[untied] - theirs[untied]).max() <= 0.005 + 1e-9
    assert (np.round(pct[tied_rows], 1) == theirs[tied_rows]).all()


def test_team_match_imps_of_both_rooms(pbn_dir):
    """RealBridge team matches: one game per room, boards grouped by match. For every
    board played in both rooms, IMP(NS open - NS closed) is the file's [ScoreIMP]."""
    res = read_pbn_results(pbn_dir / TEAMS_FILE)
    b = res.boards
    assert res.participants == "players" and b.n_results == 299
    counts = b.results_per_board
    assert (counts == 2).sum() == 149 and (counts == 1).sum() == 1  # one room missing
    t = res.table
    ns = t["ns_score"].to_numpy()
    published = t["IMP_NS"].to_numpy()
    games = res.games
    with_score = np.array(["Score" in games[g].tags for g in t["game"].to_numpy()])
    pos = np.argsort(b.order)
    board_of = b.board_of_row()[pos]
    n_pairs = n_scored = 0
    for k in np.flatnonzero(counts == 2).tolist():
        i, j = np.flatnonzero(board_of == k).tolist()
        n_pairs += 1
        assert imps(ns[i] - ns[j]) == published[i] and imps(ns[j] - ns[i]) == published[j]
        n_scored += bool(with_score[i] and with_score[j])
    # 139 pairs with [Score] in both rooms; 10 (WALES v ITALY) have no [Score] and
    # Contract "Pass": read as passed out (0), which matches their ScoreIMP of 0
    assert (n_pairs, n_scored) == (149, 139)
    # cross-IMPs of a two-result board are the match IMPs
    ours = b.to_input_order(b.score("cross-imps").ns)
    both = counts[board_of] == 2
    assert (ours[both] == published[both]).all()
    single = np.flatnonzero(counts[board_of] == 1)
    assert np.isnan(ours[single]).all()
    assert t["board"].to_numpy()[single].tolist() == [20]


def test_read_pbn_table_and_games(pbn_dir):
    t = read_pbn_table(pbn_dir / IMP_FILE)
    assert t.num_rows == 5172
    assert t.column_names[:4] == ["game", "line", "event", "board"]
    assert t["Multiplicity"].to_numpy().sum() == 18396
    assert t["event"][0].as_py() == "OKbridge Tournament"  # from "##OKbridge Tournament"
    assert t["line"][0].as_py() == 33
    games = read_pbn(pbn_dir / TEAMS_FILE)
    assert len(games) == 299
    g = games[0]
    assert g["Board"] == "11" and g["Table"] == "11" and "Table" not in g.tables
    opt = g.tables["OptimumResultTable"]
    assert opt.columns[1] == PbnColumn("Denomination", "", 2, "R")
    assert opt.n_rows == 20 and opt.column("Declarer")[:2].tolist() == ["N", "N"]
    assert opt.numbers("Result")[:3].tolist() == [7, 7, 6]
    assert games[1].notes == ("1: 11-13,17-19 or clubs", "2: 9-11, no 4cM")


def test_cli_scores_pbn_files(pbn_dir, tmp_path):
    out = tmp_path / "imps.csv"
    r = CliRunner().invoke(bridge_group, ["score", str(pbn_dir / IMP_FILE), "-o", str(out)])
    assert r.exit_code == 0, r.output
    import pyarrow.csv as pc

    t = pc.read_csv(out)
    assert t.num_rows == 18396 and t.column_names[:2] == ["event", "board"]
    assert "1 score(s) are not multiples of 10" in r.output
    assert "names no pairs or players" in r.output
    r = CliRunner().invoke(bridge_group, ["score", str(pbn_dir / TEAMS_FILE), "--format",
                                          "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert len(rows) == 299 and rows[0]["north"] == "Markus Knob#39415"
    assert rows[0]["ns"] == 4 and rows[0]["ns_pair"] == "Clemens Wanha#184195 & Markus Knob#39415"
    assert "1 board(s) with a single result" in r.output
    assert any(line.split()[:3] == ["pair", "boards", "total"]
               for line in r.stderr.splitlines())


# ----------------------------------------------------------------------------------
# the parser on small files

SMALL = r"""% PBN 2.1
% EXPORT
[Event "##Club night"]
[Site "##Town"]
[Date "##2024.05.31"]
[Board "1"]
[West "w1"][North "n1"]  [East "e1"]
[South
 "s1"]
[Dealer "N"]
[Vulnerable "None"]
[Scoring "MP"]
[Declarer "S"]
[Contract "4H"]
[Result "10"]
[Score "NS 420"]
{ a comment

with a blank line inside }
; a rest-of-line comment
[Auction "N"]
1H Pass 4H Pass
Pass Pass
[Note "1:first"]
[Note "2:second"]
[Play "W"]
SA S2 S3 S4
*
[ScoreTable "PairId_NS\2R;PairId_EW\2R;Contract\4L;Declarer\1;Result\2R;Score_NS\4R;MP_NS\2R"]
 1 11 4H   S 10  420  4
 2 12 4H   S 11  450  6
 3 13 3NT  N  8  -50  2
 4 14 4HX  S  9 -100  0

[Event "#"]
[Board "2"]
[West "Name \"Q\" Back\\slash"]
[Vulnerable "NS"]
[Declarer "E"]
[Contract "3NT"]
[Result "9"]
[Score "400"]
"""


def test_tags_escapes_inheritance_and_comments():
    g1, g2 = parse_pbn(SMALL, "small.pbn")
    assert g1["West"] == "w1" and g1["South"] == "s1"  # several a line, one over 2 lines
    assert g1["Event"] == "Club night" and g2["Event"] == "Club night"  # ## and #
    assert g2["Site"] == "Town" and g2["Date"] == "2024.05.31"  # ## carries on
    assert g2["West"] == 'Name "Q" Back\\slash'
    assert g1.notes == ("1:first", "2:second")
    assert g1.line == 3 and g1.line_of("Score") == 16 and g2.line_of("Event") == 35
    assert g2.line_of("Site") == g2.line  # inherited, not given
    t = g1.tables["ScoreTable"]
    assert t.line == 29 and t.row_lines.tolist() == [30, 31, 32, 33]
    assert t.columns[0] == PbnColumn("PairId_NS", "", 2, "R")
    assert str(t.columns[2]) == "Contract\\4L"
    assert t.numbers("Score_NS").tolist() == [420, 450, -50, -100]
    assert "Table" not in g2.tables and g2.tables == {}


def test_results_from_score_tables_and_game_tags():
    res = pbn_results(SMALL, "small.pbn")
    b = res.boards
    assert res.participants == "none"  # board 2 names no pairs: no labels at all
    assert b.n_results == 5 and b.n_boards == 2
    # board 1 from its ScoreTable (the game's own result is one of its rows), board 2
    # from its tags: "400" is declarer East's score (3NT made), so NS -400
    assert res.table["ns_score"].to_numpy().tolist() == [420, 450, -50, -100, -400]
    assert res.table["origin"].to_pylist() == ["ScoreTable"] * 4 + ["tags"]
    assert res.table["line"].to_numpy().tolist() == [30, 31, 32, 33, 42]
    mp = b.to_input_order(b.score("matchpoints").ns)
    assert mp[:4].tolist() == res.table["MP_NS"].to_numpy()[:4].tolist()
    assert b.source.where(4) == "row 5 (line 42 of small.pbn)"


def test_pairs_from_score_table_pair_ids():
    text = SMALL.split("\n[Event \"#\"]")[0]
    res = pbn_results(text, "one.pbn")
    assert res.participants == "pairs"
    b = res.boards
    assert b.pairs.names[b.ns_pair].tolist() == ["1", "2", "3", "4"]


def _traveller(rows: str, spec: str = r"Contract\4L;Declarer\1;Result\2R;Score_NS\5R;"
               r"IMP_NS\6R;Multiplicity", extra: str = "") -> str:
    return (f'[Event "e"]\n[Board "3"]\n[Vulnerable "EW"]\n{extra}'
            f'[ScoreTable "{spec}"]\n{rows}\n')


def test_multiplicity_expands_rows_and_zero_rows_are_skipped():
    text = _traveller("4S  N 10  420  5.00 3\n4S  N  9  -50 -7.50 2\n3S  N 10  170 -1.00 0\n"
                      "3S  N  9    -  0.00 1\n")
    res = pbn_results(text, "m.pbn")
    b = res.boards
    assert b.n_results == 5
    assert res.table["multiplicity"].to_numpy().tolist() == [3, 3, 3, 2, 2]
    assert res.table["copy"].to_numpy().tolist() == [0, 1, 2, 0, 1]
    reasons = {r: (c, w) for r, c, w in b.dropped}
    assert reasons["ScoreTable row with Multiplicity 0 (it stands for no table)"] == (
        1, "line 7 of m.pbn")
    assert reasons["ScoreTable row without a score ('-' or '?')"] == (1, "line 8 of m.pbn")
    # each 420 table meets 2 other 420s (0) and 2 -50s (+10): (0+0+10+10)/4 = 5
    assert b.to_input_order(b.score("cross-imps").ns).tolist() == [5, 5, 5, -7.5, -7.5]


def test_import_format_rows_over_lines_and_string_tokens():
    rows = ('"Smith;Jones" "A \\"B\\" C;D" 420\n"E;F" "G;H"\n  -50 "I;J" "K;L" 100\n')
    text = _traveller(rows, "Names_NS;Names_EW;Score_NS")
    res = pbn_results(text, "q.pbn")
    assert res.participants == "pairs"
    b = res.boards
    assert b.pairs.names[b.ns_pair].tolist() == ["Smith;Jones", "E;F", "I;J"]
    assert b.pairs.names[b.ew_pair].tolist()[0] == 'A "B" C;D'
    assert b.ns_score.tolist() == [420, -50, 100]
    t = parse_pbn(text)[0].tables["ScoreTable"]
    assert t.row_lines.tolist() == [5, 6, 7]


def test_scores_from_ew_column_contracts_and_artificial_marks():
    res = pbn_results(_traveller("100\n-620\n^A+\n", "Score_EW"), "ew.pbn")
    assert res.boards.ns_score[:2].tolist() == [-100, 620]
    assert res.boards.artificial.tolist() == [0, 0, 3]  # EW's A+ is NS's A-
    # no score columns: NS points from contract, declarer, tricks and [Vulnerable] (EW)
    res = pbn_results(_traveller("4S N 10\n4S E 10\n3NT W 7\nPass - -\n",
                                 "Contract;Declarer;Result"), "c.pbn")
    assert res.boards.ns_score.tolist() == [420, -620, 200, 0]
    res = pbn_results(_traveller("^-130\n-120\n", "Score_NS"), "adj.pbn")
    assert res.table["adjusted"].to_pylist() == [True, False]
    assert res.boards.n_odd_scores == 0


def test_game_tag_scores():
    games = ('[Board "1"]\n[Declarer "E"]\n[Contract "4S"]\n[Result "NS 2"]\n'
             '[Vulnerable "None"]\n\n'
             '[Board "1"]\n[Score "EW 100"]\n\n'
             '[Board "1"]\n[Score "NS 50 EW -50"]\n\n'
             '[Board "1"]\n[Contract "3NT"]\n[Declarer "N"]\n[Result ""]\n')
    res = pbn_results(games, "g.pbn")
    # East made 4S with 11 tricks (NS took 2): NS -450; EW +100 -> NS -100
    assert res.boards.ns_score.tolist() == [-450, -100, 50]
    assert res.boards.dropped[0][:2] == (
        "game without a result (no [Score], no [Contract] with [Result])", 1)


def test_team_games_are_grouped_by_match():
    def game(board, home, visit, score):
        return (f'[Event "Teams"]\n[Board "{board}"]\n[HomeTeam "{home}"]\n'
                f'[VisitTeam "{visit}"]\n[North "n{home}{score}"]\n[South "s{home}{score}"]\n'
                f'[East "e{visit}{score}"]\n[West "w{visit}{score}"]\n[Score "NS {score}"]\n'
                f'[ScoreIMP "NS {int(imps(score - 420 if score != 420 else 0))}"]\n\n')
    text = game(1, "A", "B", 420) + game(1, "B", "A", 420) + game(1, "C", "D", -50) + \
        game(1, "D", "C", 420)
    res = pbn_results(text, "t.pbn")
    b = res.boards
    assert b.n_boards == 2 and b.board_event.tolist() == ["Teams / A v B", "Teams / C v D"]
    assert b.to_input_order(b.score().ns).tolist() == [0, 0, -10, 10]
    assert pbn_results(text, "t.pbn", by_match=False).boards.n_boards == 1


def test_periods_from_dates_and_tags():
    text = ('[Date "2024.01.01"]\n[Round "2"]\n[Board "1"]\n[Score "NS 100"]\n\n'
            '[Date "2024.01.01"]\n[Round "2"]\n[Board "1"]\n[Score "NS 110"]\n\n'
            '[Date "2024.01.09"]\n[Round "1"]\n[Board "2"]\n[Score "NS 100"]\n\n'
            '[Date "2024.01.09"]\n[Round "1"]\n[Board "2"]\n[Score "NS 140"]\n')
    b = pbn_results(text, "p.pbn", period="3d").boards
    assert b.board_period[0] < b.board_period[1]
    b = pbn_results(text, "p.pbn", period="Round").boards
    assert b.board_number.tolist() == [2, 1]  # round 1 first
    with pytest.raises(InputError, match=r"period '3d' is a length, which needs the date of "
                       r"every game; the game at line 1 of p.pbn has Date '2024.01.\?\?'"):
        pbn_results(text.replace('2024.01.01"]\n[Round "2"]\n[Board "1"]\n[Score "NS 100',
                                 '2024.01.??"]\n[Round "2"]\n[Board "1"]\n[Score "NS 100'),
                    "p.pbn", period="3d")


def test_deal_id_identifies_boards_and_crlf_latin1_files(tmp_path):
    text = ('[DealId "x-1"]\n[Board "1"]\n[Score "NS 100"]\n\n'
            '[DealId "x-2"]\n[Board "1"]\n[Score "NS 200"]\n\n'
            '[DealId "x-1"]\n[Board "1"]\n[Score "NS 150"]\n[North "Åsa"]\n')
    p = tmp_path / "d.pbn"
    p.write_bytes(text.replace("\n", "\r\n").encode("latin-1"))
    res = read_pbn_results(p)
    assert res.boards.n_boards == 2 and res.boards.results_per_board.tolist() == [2, 1]
    assert res.games[2]["North"] == "Åsa" and res.games[2].line_of("North") == 12


# ----------------------------------------------------------------------------------
# malformed input: file, line (and column) and what was expected


@pytest.mark.parametrize("text,match", [
    ('[Event "x"]\n[Board 12]\n', r"expected a tag pair \[Name \"value\"\].*found '\[Board 12\]' "
     r"at line 2, column 1 of bad.pbn"),
    ('[Event "x"]\nBoard "12"\n', r"found 'Board \"12\"' after the tag \[Event\], which has no "
     r"section data at line 2, column 1 of bad.pbn"),
    ('stray text\n[Event "x"]\n', r"found 'stray text' before the first tag of a game at line "
     r"1, column 1"),
    ('[Event "x\n', r"expected a tag pair .* at line 1, column 1 of bad.pbn"),
    ('[Event "x"] { never closed\n', r"commentary '\{' is never closed by '\}': it starts at "
     r"line 1, column 13 of bad.pbn"),
    ('[Board "1"]\n[Contract "#"]\n', r"tag \[Contract\] must not inherit its value \('#' or "
     r"'##', PBN 4.8\); found '#' at line 2, column 1 of bad.pbn"),
    ('[Board "1"]\n[ScoreTable "Rank\\3X;Score_NS"]\n1 100\n',
     r"ScoreTable column specification 'Rank\\\\3X;Score_NS' has column 'Rank\\\\3X': after "
     r"'\\' expected the minimum width .* at line 2, column 1 of bad.pbn"),
    ('[Board "1"]\n[ScoreTable "Score_NS;Score_NS"]\n1 100\n',
     r"names column\(s\) Score_NS twice at line 2"),
    ('[Board "1"]\n[ScoreTable "Rank;Score_NS;IMP_NS"]\n1 100 2.5\n2 -50\n3 -50 1.0\n',
     r"ScoreTable row must have 3 values \(Rank, Score_NS, IMP_NS\); found 2 \('2 -50'\) at "
     r"line 4 of bad.pbn"),
    ('[Board "1"]\n[ScoreTable "Names_NS;Score_NS"]\n"A;B 100\n',
     r"expected a closing '\"' on the same line .* at line 3, column 1 of bad.pbn"),
])
def test_malformed_files_name_the_line(text, match):
    with pytest.raises(InputError, match=match):
        parse_pbn(text, "bad.pbn")


@pytest.mark.parametrize("rows,spec,match", [
    ("4S N 10 620 x1", r"Contract;Declarer;Result;Score_NS;Multiplicity",
     r"column 'Multiplicity' of ScoreTable must be a number, .*found 'x1' at line 5 of "
     r"bad.pbn"),
    ("4S N 10 620 1.5", r"Contract;Declarer;Result;Score_NS;Multiplicity",
     r"must be a whole number >= 0 .*found '1.5' at line 5"),
    ("4S N 10 6x0", r"Contract;Declarer;Result;Score_NS",
     r"column 'Score_NS' of ScoreTable must be a number.*found '6x0' at line 5 of bad.pbn"),
    ("4S N 10 nan", r"Contract;Declarer;Result;Score_NS", r"found 'nan' at line 5"),
    ("4S N 10 620", r"Contract;Declarer;Result", r"ScoreTable row must have 3 values "
     r"\(Contract, Declarer, Result\); found 4 \('4S N 10 620'\) at line 5 of bad.pbn"),
    ("4S Q 10", r"Contract;Declarer;Result", r"ScoreTable row at line 5 of bad.pbn: declarer "
     r"must be N, E, S or W \('\?' or '' when unknown\); found 'Q'"),
    ("9S N 10", r"Contract;Declarer;Result", r"ScoreTable row at line 5 of bad.pbn: the "
     r"contract must be a level 1-7, a strain C, D, H, S or NT and optionally X or XX "
     r"\(e.g. '4HX'\), or Pass; found '9S'"),
    ("1 2", r"Rank;IMP_NS", r"ScoreTable at line 4 of bad.pbn gives no scores: expected a "
     r"Score_NS or Score_EW column"),
])
def test_bad_cells_name_the_line(rows, spec, match):
    text = _traveller(rows, spec)
    with pytest.raises(InputError, match=match):
        pbn_results(text, "bad.pbn")


def test_game_level_errors():
    with pytest.raises(InputError, match=r"tag \[Score\] at line 2 of g.pbn must be 'NS "
                       r"<number>'.*found 'NS lots'"):
        pbn_results('[Board "1"]\n[Score "NS lots"]\n', "g.pbn")
    with pytest.raises(InputError, match=r"'450' is the declarer's score, but the game has "
                       r"no declarer"):
        pbn_results('[Board "1"]\n[Score "450"]\n', "g.pbn")
    with pytest.raises(InputError, match=r"the game at line 1 of g.pbn has no \[Board\] tag"):
        pbn_results('[Event "x"]\n[Score "NS 450"]\n', "g.pbn")
    with pytest.raises(InputError, match=r"tag \[Vulnerable\] must be None, NS, EW or All.*"
                       r"found 'Maybe' at line 2 of g.pbn"):
        pbn_results('[Board "1"]\n[Vulnerable "Maybe"]\n[Declarer "N"]\n[Contract "4S"]\n'
                    '[Result "10"]\n', "g.pbn")
    with pytest.raises(InputError, match=r"a ScoreTable row that names its pairs must stand "
                       r"for one table; found Multiplicity 2 at line 5 of g.pbn"):
        pbn_results(_traveller("1 2 100 2", "PairId_NS;PairId_EW;Score_NS;Multiplicity"),
                    "g.pbn")
    with pytest.raises(InputError, match=r"no games in e.pbn"):
        pbn_results("% only a comment\n", "e.pbn")
    with pytest.raises(InputError, match=r"a game has one ScoreTable; found a second one at "
                       r"line 3, column 1 of g.pbn \(the first is at line 2\)"):
        parse_pbn('[Board "1"]\n[ScoreTable "Score_NS"]\n[ScoreTable "Score_NS"]\n', "g.pbn")
    with pytest.raises(InputError, match="no such file"):
        read_pbn("/nonexistent/x.pbn")


def test_repeated_score_tables_and_covered_games_are_counted():
    one = '[Board "1"]\n[Score "NS 100"]\n[ScoreTable "Score_NS"]\n100\n200\n\n'
    res = pbn_results(one + one + '[Board "1"]\n[Score "NS 200"]\n', "r.pbn")
    assert res.boards.n_results == 2
    assert [(r, c) for r, c, _ in res.boards.dropped] == [
        ("row of a repeated ScoreTable of a board (the board's first ScoreTable is used)", 2),
        ("game result already in its board's ScoreTable", 1)]


def test_cli_reports_skipped_rows(tmp_path):
    f = tmp_path / "t.pbn"
    f.write_text(_traveller("1 11 620 1\n2 12 -100 1\n3 13 - 1\n4 14 170 0\n5 15 100 1\n",
                            "PairId_NS;PairId_EW;Score_NS;Multiplicity"))
    r = CliRunner().invoke(bridge_group, ["score", str(f), "--method", "matchpoints",
                                          "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["ns_pair"] for x in rows] == ["1", "2", "5"]
    assert [x["ns"] for x in rows] == [4, 0, 2]
    assert "skipped 1 row(s) of" in r.stderr and "Multiplicity 0" in r.stderr
    assert "without a score ('-' or '?') (first at line 7 of t.pbn)" in r.stderr


# ----------------------------------------------------------------------------------
# round trip: random games written in export or import layout read back unchanged

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zl", "Zp")),
                max_size=12)
_token = st.text(st.sampled_from("ABCxyz0123456789+-.^?_=/#!$*"), min_size=1, max_size=6)
_name = st.text(st.sampled_from("ABCDEFabcdef_0123456789"), min_size=1, max_size=8).filter(
    lambda s: s[0].isalpha() and s != "Note" and s != "Table")


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


@st.composite
def _games(draw):
    n = draw(st.integers(1, 4))
    games = []
    for _ in range(n):
        tags = draw(st.dictionaries(_name, _text.filter(lambda v: not v.startswith("#")),
                                    max_size=5))
        k = draw(st.integers(1, 4))
        cols = draw(st.lists(_name, min_size=k, max_size=k, unique=True))
        widths = [draw(st.one_of(st.none(), st.integers(1, 9))) for _ in cols]
        aligns = [draw(st.sampled_from(["", "L", "R"])) if w else "" for w in widths]
        orders = [draw(st.sampled_from(["", "+", "-"])) for _ in cols]
        n_rows = draw(st.integers(0, 5))
        cells = [[draw(st.one_of(_token, _text.map(lambda t: "\0" + t)))
                  for _ in cols] for _ in range(n_rows)]
        games.append((tags, list(zip(orders, cols, widths, aligns)), cells))
    return games


def _write(games, layout) -> str:
    out = ["% PBN 2.1"]
    for gi, (tags, cols, cells) in enumerate(games):
        if gi:
            out.append("")
        for k, v in tags.items():
            out.append(f"[{k} {_quote(v)}]")
        spec = ";".join(f"{o}{c}" + (f"\\{w}{a}" if w else "") for o, c, w, a in cols)
        out.append(f"[ScoreTable {_quote(spec)}]")
        flat = [(_quote(c[1:]) if c.startswith("\0") else c) for row in cells for c in row]
        if layout == "rows":
            k = len(cols)
            out += [" ".join(flat[i:i + k]) for i in range(0, len(flat), k)]
        else:  # import format: any number of elements a line
            step = max(1, len(cols) - 1)
            out += ["  ".join(flat[i:i + step]) for i in range(0, len(flat), step)]
    return "\n".join(out) + "\n"


@settings(max_examples=60)
@given(_games(), st.sampled_from(["rows", "free"]))
def test_round_trip(games, layout):
    parsed = parse_pbn(_write(games, layout), "rt.pbn")
    assert len(parsed) == len(games)
    for g, (tags, cols, cells) in zip(parsed, games):
        for k, v in tags.items():
            assert g[k] == v
        t = g.tables["ScoreTable"]
        assert [(c.order, c.name, c.width, c.align) for c in t.columns] == cols
        assert t.n_rows == len(cells)
        for j, (_, c, _, _) in enumerate(cols):
            assert t.column(c).tolist() == [row[j].lstrip("\0") for row in cells]


def test_unknown_period_says_no_game_has_the_tag():
    text = '[Date "2024.01.01"]\n[Board "1"]\n[Score "NS 100"]\n'
    with pytest.raises(InputError, match=r"unknown period 'Round'.*no game of p.pbn has a "
                                         r"\[Round\] tag"):
        pbn_results(text, "p.pbn", period="Round")
