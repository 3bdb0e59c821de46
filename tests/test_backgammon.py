"""Backgammon (fastrate.backgammon, fastrate.cli.backgammon): the error-rate formulas,
gnubg's skill classes, Student's t quantiles, the CLI and bad input. The FIBS ratings
are tested in tests/test_fibs.py."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import fibs as ref

from fastrate import backgammon as bg
from fastrate.cli.backgammon import backgammon_group
from fastrate.errors import InputError

# ----------------------------------------------------------------------------------
# 1. published values

# backgammon_reference.md: the favourite's chance, D = 100..700 by N = 1, 3, 5, 7, 9, 11


def test_rating_from_depd():
    assert bg.rating_from_depd(0.01, 5) == pytest.approx((11971 + 23681 / 5) * 0.01, abs=1e-12)
    assert round(bg.rating_from_depd(0.01, 5), 3) == 167.072
    assert bg.rating_from_depd(0.02, 1) == pytest.approx(35652 * 0.02, abs=1e-9)
    assert bg.rating_from_depd(-0.01, 7) == pytest.approx(-(11971 + 23681 / 7) * 0.01,
                                                          abs=1e-12)
    got = bg.rating_from_depd([0.01, 0.02], [3, 11])
    assert got == pytest.approx([(11971 + 23681 / 3) * 0.01, (11971 + 23681 / 11) * 0.02],
                                abs=1e-9)


def test_rating_from_errors():
    # a2(5) = 13903.2, b(5) = 759.2
    assert bg.rating_from_errors(0.01, 0.02, 5) == pytest.approx(139.032 + 15.184, abs=1e-9)
    # N = 1: 37916 EPM, the cube error does not count
    assert bg.rating_from_errors(0.01, 0.5, 1) == pytest.approx(379.16, abs=1e-9)
    # large N tends to 8798 EPM + 863 EPC
    assert bg.rating_from_errors(0.01, 0.01, 10**9) == pytest.approx(87.98 + 8.63, abs=1e-4)
    got = bg.rating_from_errors([0.005, 0.01], [0.0, 0.03], [1, 3])
    assert got == pytest.approx([37916 * 0.005, (8798 + 25526 / 3) * 0.01
                                 + (863 - 519 / 3) * 0.03], abs=1e-9)
    # differences (any sign) when asked for
    assert bg.rating_from_errors(-0.0344, -0.01, 5, difference=True) == pytest.approx(
        -(13903.2 * 0.0344 + 759.2 * 0.01), abs=1e-9)


def test_estimate_rating_mean_and_t_interval():
    epm = np.array([0.010, 0.012, 0.008, 0.006])
    epc = np.array([0.02, 0.03, 0.01, 0.05])
    n = np.array([5, 7, 5, 9])
    est = bg.estimate_rating(epm, epc, n, offset=2050)
    per = 2050 - np.array([bg.rating_from_errors(a, b, c) for a, b, c in zip(epm, epc, n)])
    assert est.ratings == pytest.approx(per, abs=1e-9)
    assert est.mean == pytest.approx(per.mean(), abs=1e-9)
    assert est.std == pytest.approx(per.std(ddof=1), abs=1e-9)
    half = 2.3534 * per.std(ddof=1) / 2  # t_{0.95, 3} = 2.3534
    assert est.half_width == pytest.approx(half, rel=1e-4)
    assert est.lower == pytest.approx(est.mean - est.half_width, abs=1e-9)
    assert est.n == 4
    assert "+-" in str(est)
    one = bg.estimate_rating(0.01, 0.02, 5, offset=2200)
    assert one.mean == pytest.approx(2200 - 154.216, abs=1e-9)
    assert one.n == 1 and math.isnan(one.lower) and math.isnan(one.upper)
    assert "no interval" in str(one)


@pytest.mark.parametrize("rate,label", [
    (0.0, "Supernatural"), (0.0019999, "Supernatural"), (0.002, "World class"),
    (0.0049999, "World class"), (0.005, "Expert"), (0.008, "Advanced"),
    (0.012, "Intermediate"), (0.018, "Casual player"), (0.026, "Beginner"),
    (0.0349999, "Beginner"), (0.035, "Awful!"), (0.5, "Awful!"),
])
def test_skill_class_boundaries(rate, label):
    assert bg.skill_class(rate) == label


def test_skill_class_array():
    got = bg.skill_class(np.array(bg.SKILL_BOUNDS))
    assert got.tolist() == list(bg.SKILL_CLASSES[1:])


@pytest.mark.parametrize("p,df,want", [
    (0.95, 1, 6.3138), (0.95, 5, 2.0150), (0.95, 30, 1.6973), (0.975, 1, 12.7062),
    (0.975, 10, 2.2281), (0.99, 2, 6.9646), (0.995, 20, 2.8453), (0.95, 3, 2.3534),
])
def test_t_quantile_table(p, df, want):
    assert round(bg.student_t_quantile(p, df), 4) == want
    assert bg.student_t_quantile(1 - p, df) == pytest.approx(-want, abs=1e-4)


@given(st.floats(1e-6, 1 - 1e-6))
@settings(max_examples=40)
def test_t_quantile_closed_forms(p):
    # df = 1 (Cauchy): tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2 p (1 - p))
    assert bg.student_t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)),
                                                        rel=1e-9, abs=1e-9)
    assert bg.student_t_quantile(p, 2) == pytest.approx(
        (2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-9, abs=1e-9)
    t = bg.student_t_quantile(p, 7.5)
    assert bg.student_t_cdf(t, 7.5) == pytest.approx(p, rel=1e-9, abs=1e-12)


def test_t_quantile_tends_to_normal():
    for p in (0.9, 0.95, 0.99):
        assert bg.student_t_quantile(p, 1e7) == pytest.approx(NormalDist().inv_cdf(p),
                                                              abs=1e-5)
    assert bg.student_t_quantile(0.5, 3) == 0.0
    assert bg.student_t_cdf(0.0, 4) == pytest.approx(0.5, abs=1e-15)
    assert bg.student_t_cdf(math.inf, 4) == 1.0


# ----------------------------------------------------------------------------------
# 2. equivalence with the reference


# ----------------------------------------------------------------------------------
# 3. invariants


# ----------------------------------------------------------------------------------
# 4. bad input


# ----------------------------------------------------------------------------------
# 5. the CLI


MATCHES = """date,winner,loser,length
2024-01-03,bob,carol,7
2024-01-01,alice,bob,5
2024-01-02,alice,carol,3
"""


def _write(tmp_path, text, name="matches.csv"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_cli_rate_table_and_output(tmp_path):
    path = _write(tmp_path, MATCHES)
    runner = CliRunner()
    res = runner.invoke(backgammon_group, ["rate", path])
    assert res.exit_code == 0, res.output
    assert "FIBS: 3 matches, 3 players (matches.csv)" in res.output
    lines = res.output.splitlines()
    assert lines[1].split()[:3] == ["#", "player", "rating"]
    assert lines[3].split()[1] == "alice"
    # sorted by date: alice-bob (5), alice-carol (3), bob-carol (7)
    want, exp, _ = ref.fibs([("alice", "bob", 5), ("alice", "carol", 3), ("bob", "carol", 7)])
    out = str(tmp_path / "r.csv")
    res = runner.invoke(backgammon_group, ["rate", path, "-o", out])
    assert res.exit_code == 0, res.output
    import pyarrow.csv as pcsv

    t = pcsv.read_csv(out).to_pydict()
    assert t["player"][0] == "alice"
    for name, rating, e in zip(t["player"], t["rating"], t["experience"]):
        assert rating == pytest.approx(want[name], abs=1e-9)
        assert e == exp[name]
    # continuing from the written table
    more = _write(tmp_path, "date,winner,loser,length\n2024-02-01,carol,alice,9\n", "more.csv")
    res = runner.invoke(backgammon_group, ["rate", more, "--initial", out, "--format", "json"])
    assert res.exit_code == 0, res.output
    want2, _, _ = ref.fibs([("alice", "bob", 5), ("alice", "carol", 3), ("bob", "carol", 7),
                            ("carol", "alice", 9)])
    import json

    rows = json.loads(res.stdout.strip().splitlines()[0])
    for row in rows:
        assert row["rating"] == pytest.approx(want2[row["player"]], abs=1e-9)


def test_cli_rate_no_experience(tmp_path):
    path = _write(tmp_path, MATCHES)
    res = CliRunner().invoke(backgammon_group, ["rate", path, "--no-experience", "--k", "1",
                                                "--initial-rating", "1000", "--format", "csv"])
    assert res.exit_code == 0, res.output
    want, _, _ = ref.fibs([("alice", "bob", 5), ("alice", "carol", 3), ("bob", "carol", 7)],
                          initial_rating=1000.0, use_experience=False, k=1.0)
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith('"player","rating"')
    got = {ln.split(",")[0].strip('"'): float(ln.split(",")[1]) for ln in lines[1:]}
    assert got == pytest.approx(want, abs=1e-9)


def test_cli_rate_errors(tmp_path):
    runner = CliRunner()
    bad = _write(tmp_path, "date,winner,loser,length\n2024-01-01,a,b,5\n2024-01-02,b,a,-1\n")
    res = runner.invoke(backgammon_group, ["rate", bad])
    assert isinstance(res.exception, InputError)
    assert "column 'length'" in str(res.exception) and "line 3 of matches.csv" in str(
        res.exception)
    nolen = _write(tmp_path, "date,winner,loser,points\n2024-01-01,a,b,5\n", "nolen.csv")
    res = runner.invoke(backgammon_group, ["rate", nolen])
    assert isinstance(res.exception, InputError)
    assert "no column 'length'" in str(res.exception)
    res = runner.invoke(backgammon_group, ["rate", str(tmp_path / "missing.csv")])
    assert isinstance(res.exception, InputError)
    assert "no such file" in str(res.exception)


def test_cli_estimate_one_match():
    res = CliRunner().invoke(backgammon_group, ["estimate", "--epm", "0.01", "--epc", "0.02",
                                                "--length", "5"])
    assert res.exit_code == 0, res.output
    assert "estimated rating: 1895.8 (1 match, no interval)" in res.output
    assert "chequer play: Advanced; cube: Casual player" in res.output
    res = CliRunner().invoke(backgammon_group, ["estimate", "--epm", "0.004", "--epc", "0.0",
                                                "--length", "1", "--offset", "2200"])
    assert res.exit_code == 0, res.output
    assert f"estimated rating: {2200 - 37916 * 0.004:.1f}" in res.output
    assert "chequer play: World class; cube: Supernatural" in res.output


def test_cli_estimate_file(tmp_path):
    path = _write(tmp_path, "epm,epc,length\n0.010,0.02,5\n0.012,0.03,7\n0.008,0.01,5\n"
                  "0.006,0.05,9\n", "analysed.csv")
    res = CliRunner().invoke(backgammon_group, ["estimate", "--file", path])
    assert res.exit_code == 0, res.output
    est = bg.estimate_rating([0.010, 0.012, 0.008, 0.006], [0.02, 0.03, 0.01, 0.05],
                             [5, 7, 5, 9])
    assert f"estimated rating: {est}" in res.output
    assert "90% interval" in res.output and "4 matches" in res.output
    assert "chequer play: Advanced" in res.output


def test_cli_estimate_errors(tmp_path):
    runner = CliRunner()
    res = runner.invoke(backgammon_group, ["estimate", "--epm", "0.01"])
    assert isinstance(res.exception, InputError)
    assert "give --epc, --length" in str(res.exception)
    res = runner.invoke(backgammon_group, ["estimate", "--epm", "-0.01", "--epc", "0",
                                           "--length", "3"])
    assert isinstance(res.exception, InputError)
    assert "'epm' must be" in str(res.exception)
    path = _write(tmp_path, "epm,epc,length\n0.01,0.02,5\n0.01,-0.02,5\n", "a.csv")
    res = runner.invoke(backgammon_group, ["estimate", "--file", path])
    assert isinstance(res.exception, InputError)
    assert "column 'epc' must be >= 0; found -0.02 at row 2 (line 3 of a.csv)" in str(
        res.exception)
    res = runner.invoke(backgammon_group, ["estimate", "--file", path, "--epm", "0.1"])
    assert isinstance(res.exception, InputError)
    assert "not both" in str(res.exception)
    res = runner.invoke(backgammon_group, ["estimate", "--epm", "0.01", "--epc", "0.01",
                                           "--length", "0"])
    assert isinstance(res.exception, InputError)
    assert "'length' must be a match length" in str(res.exception)


def test_cli_help_lists_commands():
    res = CliRunner().invoke(backgammon_group, ["--help"])
    assert res.exit_code == 0
    assert "rate" in res.output and "estimate" in res.output


# ----------------------------------------------------------------------------------
# 6. walk-forward evaluation of FIBS ratings


# ----------------------------------------------------------------------------------
# QA regressions: the command line through fastrate's own error handling


def _main(args):
    from fastrate.cli import main

    return CliRunner().invoke(main, ["backgammon", *args])


QA_MATCHES = ("date,winner,loser,length\n2024-01-01,a,b,5\n2024-01-02,b,c,7\n"
           "2024-01-03,a,c,3\n2024-02-01,c,a,1\n2024-03-01,a,b,11\n")


def test_cli_burn_in_too_large_says_how_many_periods(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text(QA_MATCHES)
    old = tmp_path / "out.csv"
    old.write_text("OLD\n")
    res = _main(["rate", str(path), "--evaluate", "--period", "month", "--burn-in", "3",
                 "-o", str(old)])
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastrate: error: a burn-in of 3 period(s)")
    assert "these matches span 3 period(s)" in lines[0] and "--burn-in" in lines[0]
    assert old.read_text() == "OLD\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.csv", "out.csv"]


@pytest.mark.parametrize("row, part", [
    ("2024-01-01,a,b,0", "column 'length' must be a match length"),
    ("2024-01-01,a,b,2.5", "found 2.5 at row 1 (line 2 of bad.csv)"),
    ("2024-01-01,a,b,", "column 'length' must be a finite number"),
    ("2024-01-01,a,b,x", "column 'length' must be numeric; found 'x'"),
    ("2024-01-01,a,a,5", "a player cannot play himself"),
    ("2024-01-01,a,,5", "column 'loser' must name a player"),
    ("notadate,a,b,5", "column 'date' must be a date or time"),
])
def test_cli_rate_bad_rows_are_one_line(tmp_path, row, part):
    bad = tmp_path / "bad.csv"
    bad.write_text("date,winner,loser,length\n" + row + "\n")
    res = _main(["rate", str(bad)])
    assert res.exit_code == 1
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastrate: error: ") and part in lines[0]
    assert "internal error" not in lines[0]


def test_cli_continuation_from_a_previous_output_is_exact(tmp_path):
    rows = QA_MATCHES.strip().splitlines()
    full, p1, p2 = (tmp_path / n for n in ("full.csv", "p1.csv", "p2.csv"))
    full.write_text(QA_MATCHES)
    p1.write_text("\n".join(rows[:4]) + "\n")
    p2.write_text("\n".join([rows[0], *rows[4:]]) + "\n")
    r_full, r1, r2 = (tmp_path / n for n in ("r_full.csv", "r1.csv", "r2.csv"))
    assert _main(["rate", str(full), "-o", str(r_full)]).exit_code == 0
    assert _main(["rate", str(p1), "-o", str(r1)]).exit_code == 0
    assert _main(["rate", str(p2), "--initial", str(r1), "-o", str(r2)]).exit_code == 0
    assert r2.read_text() == r_full.read_text()
