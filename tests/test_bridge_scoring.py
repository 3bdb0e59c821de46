"""Board comparisons (fastrate.bridge.scoring, SPEC §3.1-3.2): the published IMP,
cross-IMP, Butler, matchpoint and Neuberg examples, equivalence of the O(T log T)
cross-IMPs with the O(T^2) double loop and of every method with tests/reference/bridge.py
on random boards, artificial scores, the CLI, and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import bridge as ref

from fastrate.bridge import scoring as sc
from fastrate.cli.bridge import bridge_group
from fastrate.errors import ConfigError, InputError

REFERENCE_JSON = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" /
                  "test_vectors" / "bridge_reference.json").resolve()


def one_board(scores):
    return np.array([0, len(scores)], dtype=np.int64), np.asarray(scores, dtype=np.float64)


@pytest.fixture(scope="module")
def vectors():
    if not REFERENCE_JSON.exists():
        pytest.skip(f"reference vectors not found at {REFERENCE_JSON}")
    return json.loads(REFERENCE_JSON.read_text())


# ----------------------------------------------------------------------------------
# 1. published values


def test_imp_table_boundaries():
    lows = [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750, 900, 1100, 1300,
            1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000]
    for k, t in enumerate(lows, start=1):
        assert sc.imps(t) == k and sc.imps(-t) == -k
        assert sc.imps(t - 10) == k - 1 and sc.imps(-(t - 10)) == -(k - 1)
        assert sc.imps(t - 0.1) == k - 1  # "at least the bound": 19.9 -> 0
    assert sc.imps(19.9) == 0 and sc.imps(0) == 0 and sc.imps(10) == 0
    assert sc.imps([600, 740, 50000]).tolist() == [12, 12, 24]
    assert math.isnan(sc.imps(math.nan))


def test_imp_spot_checks(vectors):
    table = vectors["wbf_imp_scale"]
    assert sc.IMP_THRESHOLDS.tolist() == table["lower_bounds_of_difference_for_imps_1_to_24"]
    for d, want in table["spot_checks"].items():
        assert sc.imps(float(d)) == want


def test_thesis_cross_imps():
    off, s = one_board([-100, 600, -50, 620, -100])
    r = sc.cross_imps(off, s)
    assert r.ns[1] == 8.75  # (12 + 12 - 1 + 12) / 4
    assert r.ew[1] == -8.75
    assert r.ns.tolist() == [-6.5, 8.75, -5.0, 9.25, -6.5]


def test_cross_imps_example(vectors):
    case = vectors["cross_imps_example"]
    off, s = one_board(case["ns_scores"])
    got = sc.cross_imps(off, s).ns
    assert got.tolist() == pytest.approx(case["expected_ns_cross_imps_average"], abs=1e-12)
    assert got.tolist() == [10.5, -0.25, -1.25, -1.25, -7.75]
    assert ref.cross_imps_naive(off, s).tolist() == got.tolist()


def test_butler_no_drop_example():
    scores = [980] * 3 + [480] * 11 + [450] * 7 + [-50]
    off, s = one_board(scores)
    r = sc.butler_imps(off, s, drop="none")
    assert np.mean(scores) == pytest.approx(514.545454, abs=1e-5)
    assert r.datum.tolist() == [510.0]
    assert r.ns.tolist() == [10] * 3 + [-1] * 11 + [-2] * 7 + [-11]


def test_butler_drop_one_example(vectors):
    case = vectors["butler_example"]
    ns = [s if d in "NS" else -s for d, s in case["declarer_relative_scores"]]
    assert ns == [-650, -170, -1440, 100, -170, -200]
    off, s = one_board(ns)
    r = sc.butler_imps(off, s, drop="one")
    assert r.datum.tolist() == [case["expected_datum_ns"]] == [-300]
    assert r.ns.tolist() == case["expected_imps_ns"] == [-8, 4, -15, 9, 4, 3]
    small = [s if d in "NS" else -s for d, s in case["small_example"]["declarer_relative_scores"]]
    r = sc.butler_imps(*one_board(small), drop="one")  # 3 results: nothing dropped
    assert r.datum.tolist() == [case["small_example"]["expected_datum_ns"]]


def test_matchpoint_examples(vectors):
    assert sc.matchpoints(*one_board([90, 0, -50, -50])).ns.tolist() == [6, 4, 1, 1]
    acbl = vectors["acbl_matchpoints_example"]
    r = sc.matchpoints(*one_board(acbl["ns_scores"]), style="1/0.5/0")
    assert r.ns.tolist() == acbl["expected_mp_ns"] == [2.5, 4, 6, 2.5, 5, 0, 1]
    assert r.ew.tolist() == acbl["expected_mp_ew"]
    assert r.top.tolist() == [6.0]
    assert r.ns_percent[2] == 100.0 and r.ew_percent[2] == 0.0
    euro = vectors["matchpoints_2_per_comparison_examples"]["cases"]
    r = sc.matchpoints(*one_board(euro[0]["ns_scores"]))
    assert r.ns.tolist() == euro[0]["expected_mp_ns"]
    assert r.ew.tolist() == euro[0]["expected_mp_ew"]
    for case in euro[1:]:  # declarer W: NS score is the negation
        r = sc.matchpoints(*one_board([-x for x in case["declarer_W_scores"]]))
        assert r.ns.tolist() == case["expected_mp_ns"]


def test_neuberg_ebu_example():
    want = [19.9, 17.7, 15.5, 13.3, 11.1, 8.9, 6.7, 4.5, 2.3, 0.1]
    scores = [520, 500, 490, 480, 460, 450, 430, 420, 400, -50]
    assert sc.neuberg(np.arange(18, -1, -2), 10, 11) == pytest.approx(want, abs=1e-12)
    r = sc.matchpoints(*one_board(scores), n_expected=11)
    assert r.ns == pytest.approx(want, abs=1e-12)
    assert r.top.tolist() == [20.0]
    # in 1/0.5/0 units M = (S + 1/2) N/n - 1/2 is half the 2/1/0 value
    assert sc.neuberg(9, 10, 11, style="1/0.5/0") == pytest.approx(9.95, abs=1e-12)
    r = sc.matchpoints(*one_board(scores), n_expected=11, style="1/0.5/0")
    assert r.ns == pytest.approx([w / 2 for w in want], abs=1e-12)
    assert sc.neuberg(4, 5, 5) == 4.0  # nothing missing: unchanged


def test_artificial_scores():
    scores = [520, 500, 490, 480, 460, 450, 430, 420, 400, -50, np.nan]
    off = np.array([0, 11])
    for code, pct, imp in ((1, 60, 3), (2, 50, 0), (3, 40, -3)):
        art = [0] * 10 + [code]
        r = sc.matchpoints(off, scores, artificial=art)
        # the ten real results are compared among themselves and Neuberg-factored to 11
        assert r.ns[:10] == pytest.approx([19.9, 17.7, 15.5, 13.3, 11.1, 8.9, 6.7, 4.5, 2.3,
                                          0.1], abs=1e-12)
        assert r.ns[10] == pytest.approx(pct / 100 * 20) and r.ns_percent[10] == pytest.approx(pct)
        assert r.ew_percent[10] == pytest.approx(100 - pct)
        x = sc.cross_imps(off, scores, artificial=art)
        assert x.ns[10] == imp and x.ew[10] == -imp
        assert x.ns[:10].tolist() == ref.cross_imps(scores[:10])
        b = sc.butler_imps(off, scores, artificial=art)
        assert b.ns[10] == imp
        assert b.datum.tolist() == [ref.butler(scores[:10], 0)[0]]
    assert sc.cross_imps(off, scores, artificial=[0] * 10 + [0.0] * 0 + [2]).n_real.tolist() == [10]


def test_single_result_boards_are_reported():
    off = np.array([0, 1, 3, 4])
    s = np.array([420.0, 400.0, 450.0, -50.0])
    for r, want in ((sc.cross_imps(off, s), [-2.0, 2.0]), (sc.butler_imps(off, s), [-1, 1])):
        assert math.isnan(r.ns[0]) and math.isnan(r.ns[3])
        assert r.ns[1:3].tolist() == want  # Butler: datum 425 -> 430
        assert r.no_comparison.tolist() == [True, False, True]
        assert r.n_no_comparison == 2
    assert math.isnan(ref.cross_imps_naive(off, s)[0])
    m = sc.matchpoints(off, s)
    assert math.isnan(m.ns[0]) and m.no_comparison.tolist() == [True, False, True]
    # one real result among two tables: Neuberg gives it the average
    m = sc.matchpoints([0, 2], [420.0, np.nan], artificial=[0, 2])
    assert m.ns.tolist() == [1.0, 1.0] and m.no_comparison.tolist() == [True]


def test_butler_variants():
    n = np.array([1, 3, 4, 10, 11, 25, 26, 40, 100])
    assert sc.butler_drop_count(n, "none").tolist() == [0] * 9
    assert sc.butler_drop_count(n, "one").tolist() == [0, 0, 1, 1, 1, 1, 1, 1, 1]
    assert sc.butler_drop_count(n, "sqrtish").tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 7]
    assert sc.butler_drop_count(n, "tenth").tolist() == [0, 0, 1, 1, 2, 3, 3, 4, 10]
    assert sc.butler_drop_count(n, "quarter").tolist() == [0, 0, 1, 2, 2, 6, 6, 10, 25]
    assert sc.butler_drop_count(n, 3).tolist() == [0, 0, 1, 3, 3, 3, 3, 3, 3]
    off, s = one_board([-650, -170, -1440, 100, -170, -200])
    r = sc.butler_imps(off, s, datum="median")  # median -185 -> -190 (half away from 0)
    assert r.datum.tolist() == [-190.0]
    assert sc.round_datum([345, -345, 514.55, 5, -5, 4.99]).tolist() == [350, -350, 510, 10,
                                                                         -10, 0]


def test_group_by_board_and_pair_totals():
    boards = ["b2", "b1", "b2", "b1", "b2"]
    g = sc.group_by_board(boards, [100, 420, -50, 400, 100])
    assert g.boards.tolist() == ["b1", "b2"]
    assert g.offsets.tolist() == [0, 2, 5]
    assert g.ns_scores.tolist() == [420, 400, 100, -50, 100]  # stable within a board
    assert g.to_input_order(g.ns_scores).tolist() == [100, 420, -50, 400, 100]
    groups, r = sc.score_results(boards, [100, 420, -50, 400, 100], "matchpoints")
    assert r.ns.tolist() == [3, 2, 0, 0, 3]
    assert groups.per_row(np.array([1.0, 2.0])).tolist() == [2, 1, 2, 1, 2]
    t = sc.pair_totals(["a", "b", "a", "c"], [1.5, np.nan, 2.0, -1.0])
    assert t["pair"].tolist() == ["a", "b", "c"]
    assert t["total"].tolist() == [3.5, 0.0, -1.0]
    assert t["boards"].tolist() == [2, 0, 1]
    assert t["mean"][0] == 1.75 and math.isnan(t["mean"][1])


# ----------------------------------------------------------------------------------
# 2. equivalence with the O(T^2) loop and the reference


def boards_strategy(values):
    return st.lists(st.lists(values, min_size=1, max_size=40), min_size=1, max_size=6)


# a small pool makes ties likely; tenths make non-multiples of 10 and near-bound sums
_tenths = st.integers(-400, 400).map(lambda k: k / 10 * 10 + (k % 7) / 10)
_scores = st.one_of(st.sampled_from([-1100, -200, -100, -50, 0, 50, 90, 110, 140, 420, 450,
                                     620, 1430]),
                    st.integers(-7600, 3160), _tenths,
                    st.floats(-8000, 8000, allow_nan=False, width=64))


def _csr(boards):
    off = np.zeros(len(boards) + 1, dtype=np.int64)
    off[1:] = np.cumsum([len(b) for b in boards])
    return off, np.array([x for b in boards for x in b], dtype=np.float64)


@settings(max_examples=60)
@given(boards_strategy(_scores))
def test_fast_cross_imps_equals_naive(boards):
    off, s = _csr(boards)
    fast = sc.cross_imps(off, s).ns
    naive = ref.cross_imps_naive(off, s)
    np.testing.assert_array_equal(fast, naive)  # bit for bit, NaN where alone
    want = [x for b in boards for x in ref.cross_imps(b)]
    np.testing.assert_allclose(fast, want, rtol=0, atol=1e-12)


def test_fast_cross_imps_large_board():
    rng = np.random.default_rng(7)
    s = rng.choice([-100, 110, 140, 170, 420, 450, 480, 620, -50, -200], size=1000)
    s = s + rng.choice([0, 0, 0, 0.5, 19.9, -19.9], size=1000)
    off = np.array([0, 300, 1000])
    np.testing.assert_array_equal(sc.cross_imps(off, s).ns, ref.cross_imps_naive(off, s))


@settings(max_examples=40)
@given(boards_strategy(st.integers(-300, 300).map(lambda k: 10.0 * k)),
       st.sampled_from(["none", "one", "sqrtish", "tenth", "quarter", 2]),
       st.sampled_from(["mean", "median"]))
def test_butler_matches_reference(boards, drop, datum):
    off, s = _csr(boards)
    r = sc.butler_imps(off, s, drop=drop, datum=datum)
    n = np.array([len(b) for b in boards])
    drops = sc.butler_drop_count(n, drop)
    for b, board in enumerate(boards):
        d, want = ref.butler(board, int(drops[b]), median=datum == "median")
        got = r.ns[off[b]:off[b + 1]]
        if math.isnan(d):
            assert math.isnan(r.datum[b]) and np.isnan(got).all()
        else:
            assert r.datum[b] == d
            assert got.tolist() == want


@settings(max_examples=40)
@given(boards_strategy(_scores), st.sampled_from(sc.MP_STYLES))
def test_matchpoints_match_reference(boards, style):
    off, s = _csr(boards)
    r = sc.matchpoints(off, s, style=style)
    unit = 1.0 if style == "2/1/0" else 0.5
    for b, board in enumerate(boards):
        got = r.ns[off[b]:off[b + 1]]
        top = 2 * (len(board) - 1) * unit
        if len(board) < 2:
            assert np.isnan(got).all()
            continue
        want = [unit * x for x in ref.matchpoints(board)]
        assert got.tolist() == want
        np.testing.assert_allclose(r.ns[off[b]:off[b + 1]] + r.ew[off[b]:off[b + 1]], top)
        np.testing.assert_allclose(r.ns_percent[off[b]:off[b + 1]],
                                   [100 * w / top for w in want])


# ----------------------------------------------------------------------------------
# 3. invariants


@settings(max_examples=30)
@given(boards_strategy(_scores))
def test_cross_imps_zero_sum_and_permutation(boards):
    off, s = _csr(boards)
    r = sc.cross_imps(off, s)
    for b in range(len(boards)):
        part = r.ns[off[b]:off[b + 1]]
        if len(part) > 1:
            assert abs(part.sum()) < 1e-9  # every comparison counted once each way
    perm = np.concatenate([off[b] + np.random.default_rng(b).permutation(off[b + 1] - off[b])
                           for b in range(len(boards))])
    np.testing.assert_array_equal(sc.cross_imps(off, s[perm]).ns, r.ns[perm])


# ----------------------------------------------------------------------------------
# 4. bad input


def test_bad_input():
    with pytest.raises(InputError, match="'board_offsets' must start at 0 and end at the "
                       r"number of results \(3\)"):
        sc.cross_imps([0, 2], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="'board_offsets' must be nondecreasing"):
        sc.cross_imps([0, 2, 1, 3], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="'board_offsets' must be an integer array"):
        sc.cross_imps([0.0, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(InputError, match=r"column 'ns_score' must be a finite number for a "
                       r"real result .*found nan at row 2"):
        sc.cross_imps([0, 3], [1.0, np.nan, 3.0])
    with pytest.raises(InputError, match=r"column 'ns_score' must be numeric; found 'x'"):
        sc.matchpoints([0, 2], ["1", "x"])
    with pytest.raises(InputError, match=r"column 'artificial' must be 0 \(real\), 1 \(A\+\)"
                       r".*found 4 at row 2"):
        sc.cross_imps([0, 2], [1.0, 2.0], artificial=[0, 4])
    with pytest.raises(InputError, match="column 'artificial' must have one value per result"):
        sc.cross_imps([0, 2], [1.0, 2.0], artificial=[0])
    with pytest.raises(ConfigError, match="'drop' of butler_imps must be one of"):
        sc.butler_imps([0, 2], [1.0, 2.0], drop="half")
    with pytest.raises(ConfigError, match="'drop' of butler_imps must be one of .* or an "
                       "integer >= 0; got -1"):
        sc.butler_imps([0, 2], [1.0, 2.0], drop=-1)
    with pytest.raises(ConfigError, match="'datum' of butler_imps must be one of"):
        sc.butler_imps([0, 2], [1.0, 2.0], datum="mode")
    with pytest.raises(ConfigError, match="'style' of matchpoints must be one of"):
        sc.matchpoints([0, 2], [1.0, 2.0], style="3/1/0")
    with pytest.raises(InputError, match="'n_expected' must be a whole number at least"):
        sc.matchpoints([0, 2], [1.0, 2.0], n_expected=1)
    with pytest.raises(InputError, match="neuberg needs n_results >= 1"):
        sc.neuberg(1, 0, 3)
    with pytest.raises(ConfigError, match="'method' of score_results must be one of"):
        sc.score_results([1], [1.0], "vp")
    with pytest.raises(InputError, match="column 'value' must have one value per pair id"):
        sc.pair_totals(["a"], [1.0, 2.0])


# ----------------------------------------------------------------------------------
# CLI


def test_cli_contract():
    runner = CliRunner()
    r = runner.invoke(bridge_group, ["contract", "4HX="])
    assert r.exit_code == 0 and r.output.strip() == "590"
    r = runner.invoke(bridge_group, ["contract", "4HX=", "--vulnerable"])
    assert r.output.strip() == "790"
    r = runner.invoke(bridge_group, ["contract", "3NT-2", "--board", "2", "--declarer", "N"])
    assert r.output.strip() == "-200"  # board 2: NS vulnerable
    r = runner.invoke(bridge_group, ["contract", "9NT="])
    assert isinstance(r.exception, InputError)
    assert "cannot read contract '9NT='" in str(r.exception)
    r = runner.invoke(bridge_group, ["contract", "3NT=", "--board", "2"])
    assert "--board needs --declarer" in str(r.exception)
    r = runner.invoke(bridge_group, ["contract", "3NT=", "--board", "2", "--declarer", "E",
                                     "--vulnerable"])
    assert "--vulnerable contradicts board 2" in str(r.exception)


def _travellers(path: Path) -> Path:
    path.write_text("board,ns_pair,ew_pair,ns_score\n"
                    "1,A,X,-100\n1,B,Y,600\n1,C,Z,-50\n1,D,W,620\n1,E,V,-100\n"
                    "2,A,Y,420\n2,B,Z,450\n2,C,X,420\n3,A,Z,100\n")
    return path


def test_cli_score_cross_imps(tmp_path):
    f = _travellers(tmp_path / "t.csv")
    out = tmp_path / "out.csv"
    r = CliRunner().invoke(bridge_group, ["score", str(f), "--method", "cross-imps", "-o",
                                          str(out)])
    assert r.exit_code == 0, r.output
    import pyarrow.csv as pc

    t = pc.read_csv(out)
    assert t.column("ns").to_pylist()[1] == 8.75 and t.column("ew").to_pylist()[1] == -8.75
    assert t.column("ns").to_pylist()[8] is None  # board 3: a single result
    assert "1 board(s) with a single result" in r.output
    # per-pair totals on stdout, best first: B = 8.75 (board 1) + 1.00 (board 2)
    first = r.stdout.splitlines()[1].split()
    assert first == ["B", "2", "9.75", "4.88"]


def test_cli_score_butler_and_matchpoints(tmp_path):
    f = _travellers(tmp_path / "t.csv")
    r = CliRunner().invoke(bridge_group, ["score", str(f), "--method", "butler", "--drop",
                                          "one", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert rows[5]["datum"] == 430.0 and rows[5]["ns"] == 0.0
    r = CliRunner().invoke(bridge_group, ["score", str(f), "--method", "matchpoints",
                                          "--style", "1/0.5/0", "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["ns"] for x in rows[:5]] == [0.5, 3.0, 2.0, 4.0, 0.5]
    assert rows[1]["ns_percent"] == 75.0


def test_cli_score_bad_file(tmp_path):
    f = tmp_path / "bad.csv"
    f.write_text("board,ns_pair,ew_pair\n1,A,B\n")
    r = CliRunner().invoke(bridge_group, ["score", str(f)])
    assert isinstance(r.exception, InputError) and "no column 'ns_score'" in str(r.exception)
    f.write_text("board,ns_pair\n1,A\n")
    r = CliRunner().invoke(bridge_group, ["score", str(f)])
    assert "no column 'ew_pair'" in str(r.exception)


def test_cli_score_from_contracts(tmp_path):
    f = tmp_path / "c.csv"
    # board 2: NS vulnerable, EW not
    f.write_text("board,ns_pair,ew_pair,contract,declarer\n"
                 "2,A,X,4S=,N\n2,B,Y,4S+1,S\n2,C,Z,5HX-2,E\n2,D,W,pass,\n")
    r = CliRunner().invoke(bridge_group, ["score", str(f), "--method", "matchpoints",
                                          "--format", "json"])
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)
    assert [x["ns_score"] for x in rows] == [620, 650, 300, 0]
    assert [x["ns"] for x in rows] == [4, 6, 2, 0]


# ----------------------------------------------------------------------------------
# 5. the histogram path of cross-IMPs (contract scores, multiples of 10)

_tens = st.one_of(st.sampled_from([-1100, -200, -100, -50, 0, 50, 90, 110, 140, 420, 450,
                                   620, 1430, -7600, 7600]),
                  st.integers(-760, 760).map(lambda k: 10.0 * k))


@settings(max_examples=60)
@given(boards_strategy(_tens))
def test_histogram_cross_imps_equals_naive(boards):
    off, s = _csr(boards)
    r = sc.cross_imps(off, s)
    np.testing.assert_array_equal(r.ns, ref.cross_imps_naive(off, s))
    np.testing.assert_array_equal(r.ew, -r.ns)


def test_cross_imps_every_path_on_large_boards():
    rng = np.random.default_rng(11)
    sizes = [1, 2, 3, 40, 1000, 1000, 250, 600, 5]
    boards = []
    for i, n in enumerate(sizes):
        b = rng.choice([-1100, -200, -100, -50, 0, 90, 110, 140, 420, 450, 620, 1430], n)
        b = b.astype(np.float64)
        if i == 5:
            b[::7] = rng.integers(-760, 761, b[::7].shape[0]) * 10.0  # wide spread
        if i == 6:
            b[3] = 20_000.0  # spans more than the histogram: sorted instead
        if i == 7:
            b[::50] += 0.5  # not multiples of 10: sorted instead
        if i == 8:
            b[:] = -0.0
        boards.append(b)
    off, s = _csr(boards)
    r = sc.cross_imps(off, s)
    np.testing.assert_array_equal(r.ns, ref.cross_imps_naive(off, s))
    assert r.n_real.tolist() == sizes and r.no_comparison.tolist() == [True] + [False] * 8
    # artificial results: left out of the comparisons, +3 / 0 / -3
    art = np.where(rng.random(s.shape[0]) < 0.1, rng.integers(1, 4, s.shape[0]), 0)
    s2 = np.where(art != 0, np.nan, s)
    r2 = sc.cross_imps(off, s2, artificial=art)
    real = art == 0
    board = np.repeat(np.arange(len(sizes)), np.diff(off))
    counts = np.bincount(board[real], minlength=len(sizes))
    roff = np.r_[0, np.cumsum(counts)]
    np.testing.assert_array_equal(r2.ns[real], ref.cross_imps_naive(roff, s[real]))
    np.testing.assert_array_equal(r2.ns[~real], sc.ARTIFICIAL_IMPS[art[~real]])
    np.testing.assert_array_equal(r2.ew, -r2.ns)
    assert r2.n_real.tolist() == counts.tolist()


def test_scoring_functions_take_validated_boards():
    """Given Boards, the scoring functions go straight to the kernels and agree with
    the same arrays passed raw (validated) and with Boards.score."""
    from fastrate.data.boards import Boards

    b = Boards.from_arrays([1, 1, 1, 2, 2], [420.0, -50.0, 450.0, 100.0, 140.0],
                           ns_pair=["a", "c", "e", "a", "c"],
                           ew_pair=["b", "d", "f", "b", "d"], artificial=[0, 0, 2, 0, 0])
    raw = (b.board_offsets, b.ns_score, b.artificial)
    for f, method in ((sc.cross_imps, "cross-imps"), (sc.butler_imps, "butler"),
                      (sc.matchpoints, "matchpoints")):
        got = f(b)
        np.testing.assert_array_equal(got.ns, f(*raw[:2], artificial=raw[2]).ns)
        np.testing.assert_array_equal(got.ns, b.score(method).ns)
    with pytest.raises(InputError, match="give Boards alone"):
        sc.cross_imps(b, b.ns_score)
    with pytest.raises(InputError, match="ns_scores is missing"):
        sc.cross_imps(b.board_offsets)


def test_results_table_and_pair_totals_from_boards():
    from fastrate.bridge import scoring as sc
    from fastrate.data.boards import Boards

    b = Boards.from_arrays([1, 1, 2, 2], [420.0, -50.0, 100.0, 140.0],
                           north=["a", "c", "a", "c"], south=["b", "d", "b", "d"],
                           east=["e", "g", "e", "g"], west=["f", "h", "f", "h"])
    r = b.score("cross-imps")
    table, totals = sc.results_table(b, r)
    assert table.column_names == ["board", "north", "south", "east", "west", "ns_pair",
                                  "ew_pair", "ns_score", "ns", "ew"]
    assert table.column("ns_pair").to_pylist() == ["a & b", "c & d", "a & b", "c & d"]
    want = sc.pair_totals(["a & b", "c & d", "a & b", "c & d", "e & f", "g & h", "e & f",
                           "g & h"], np.concatenate([r.ns, r.ew]))
    assert totals["pair"].tolist() == want["pair"].tolist()
    np.testing.assert_allclose(totals["total"], want["total"])
    mp_table, mp_totals = sc.results_table(b, b.score("matchpoints"))
    assert "ns_percent" in mp_table.column_names and mp_totals["mean"].max() <= 100.0
