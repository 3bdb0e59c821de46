"""The command line: every command, its outputs, continuation, and one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from fastrate.cli import main

REPO = Path(__file__).resolve().parents[1]


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(main, list(args))
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


def write_games(path: Path, rows: list[str], header: str = "date,white,black,score") -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


@pytest.fixture
def games_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(1)
    players = [f"p{i}" for i in range(12)]
    rows = []
    day = np.datetime64("2024-01-01")
    for i in range(300):
        a, b = rng.choice(12, 2, replace=False)
        s = rng.choice([0, 0.5, 1])
        rows.append(f"{day + i // 10},{players[a]},{players[b]},{s}")
    return write_games(tmp_path / "games.csv", rows)


def test_help_does_not_import_numba():
    code = ("import sys; from click.testing import CliRunner; from fastrate.cli import main; "
            "r = CliRunner().invoke(main, ['--help']); assert r.exit_code == 0, r.output; "
            "assert 'numba' not in sys.modules, 'numba imported by --help'; "
            "assert 'numpy' not in sys.modules, 'numpy imported by --help'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_version():
    assert "fastrate, version" in run("--version").output


def test_rate_example_prints_top_table():
    out = run("rate", "--example", "football", "--top", "5").output
    lines = out.strip().splitlines()
    assert "49,520 games" in lines[0]
    assert lines[1].split()[:3] == ["#", "player", "rating"]
    assert len(lines) == 3 + 5
    ratings = [float(line.split()[-2]) for line in lines[3:]]
    assert ratings == sorted(ratings, reverse=True)


@pytest.mark.parametrize("ext", ["csv", "parquet", "json"])
def test_rate_writes_each_format(games_csv: Path, tmp_path: Path, ext: str):
    out = tmp_path / f"ratings.{ext}"
    run("rate", str(games_csv), "-o", str(out), "--top", "0")
    if ext == "csv":
        table = pacsv.read_csv(out)
    elif ext == "parquet":
        table = pq.read_table(out)
    else:
        rows = json.loads(out.read_text())
        assert {"player", "rating", "games_played"} <= set(rows[0])
        return
    assert table.num_rows == 12
    assert table.column_names[:2] == ["player", "rating"]


def test_rate_machine_readable_stdout(games_csv: Path):
    out = run("rate", str(games_csv), "--format", "csv").stdout
    assert out.splitlines()[0].startswith('"player","rating"')
    assert len(out.strip().splitlines()) == 13


@pytest.mark.parametrize("system", ["elo", "elo:k=16,advantage=30", "elo@fide"])
def test_continuation_from_saved_output_equals_full_run(tmp_path: Path, games_csv: Path,
                                                        system: str):
    lines = games_csv.read_text().strip().splitlines()
    header, rows = lines[0], lines[1:]
    first = write_games(tmp_path / "first.csv", rows[:150], header)
    second = write_games(tmp_path / "second.csv", rows[150:], header)
    full, part1, part2 = (tmp_path / n for n in ("full.csv", "p1.csv", "p2.csv"))
    run("rate", str(games_csv), "-s", system, "-o", str(full))
    run("rate", str(first), "-s", system, "-o", str(part1))
    run("rate", str(second), "-s", system, "--initial", str(part1), "-o", str(part2))
    a = pacsv.read_csv(full).to_pydict()
    b = pacsv.read_csv(part2).to_pydict()
    fa = dict(zip(a["player"], a["rating"]))
    fb = dict(zip(b["player"], b["rating"]))
    assert fa == fb
    assert dict(zip(a["player"], a["games_played"])) == dict(zip(b["player"], b["games_played"]))


def test_predictions_file(games_csv: Path, tmp_path: Path):
    pred = tmp_path / "pred.csv"
    run("rate", str(games_csv), "--predictions", str(pred), "--top", "0")
    table = pacsv.read_csv(pred)
    assert table.num_rows == 300
    assert table.column("expected_score")[0].as_py() == 0.5


def test_evaluate_compares_systems(games_csv: Path):
    out = run("evaluate", str(games_csv), "--period", "1w", "-s", "elo", "-s", "elo:k=16",
              "-s", "glicko2").output
    for name in ("elo", "elo:k=16", "glicko2", "log_loss"):
        assert name in out


def test_warmup():
    assert "compiled" in run("warmup").output


# -- errors: one line, non-zero exit, no partial output -----------------------------

@pytest.mark.parametrize("rows,header,args,message", [
    (["2024-01-01,a,b,2"], None, [], r"column 'score' must be in \[0, 1\]; found 2.0 at row 1 "
     r"\(line 2 of games.csv\)"),
    (["2024-01-01,a,b,x"], None, [], r"column 'score' must be a score"),
    (["2024-01-01,a,a,1"], None, [], r"cannot play himself: 'a'"),
    (["2024-01-01,a,b,1"], None, ["--score", "scroe"], r"no column 'scroe'"),
    (["2024-01-01,a,b,1"], "date,whyte,black,score", [], r"cannot find the player columns"),
    (["2024-01-01,a,b,1"], None, ["-s", "elo:k=-3"], r"'k' of EloConfig must be"),
    (["2024-01-01,a,b,1"], None, ["-s", "nosuch"], r"unknown (rating )?system"),
    (["2024-01-01,a,b,1"], None, ["-s", "elo:nosuch=1"], r"nosuch"),
    ([], None, [], r"no games"),
])
def test_bad_input_one_line_error_and_no_output(tmp_path: Path, rows, header, args, message):
    src = write_games(tmp_path / "games.csv", rows, header or "date,white,black,score")
    out = tmp_path / "out.csv"
    result = run("rate", str(src), *args, "-o", str(out), ok=False)
    assert result.exit_code == 1
    err = result.stderr.strip()
    assert len(err.splitlines()) == 1, err
    assert err.startswith("fastrate: error: ")
    import re

    assert re.search(message, err), err
    assert "Traceback" not in result.output
    assert not out.exists()
    assert list(tmp_path.glob(".out.csv*")) == []


def test_missing_input_file(tmp_path: Path):
    result = run("rate", str(tmp_path / "nope.csv"), ok=False)
    assert result.exit_code == 1 and "no such file" in result.stderr


def test_no_input_at_all():
    result = run("rate", ok=False)
    assert result.exit_code == 1 and "no input" in result.stderr


def test_usage_error_exits_2(games_csv: Path):
    result = run("rate", str(games_csv), "--format", "xml", ok=False)
    assert result.exit_code == 2


def test_every_command_is_documented():
    doc = (REPO / "docs" / "cli.md").read_text()
    for name in main.commands:
        assert f"fastrate {name}" in doc, f"docs/cli.md does not document 'fastrate {name}'"


def test_placement_reference_tapl_is_the_uniform_test(tmp_path: Path):
    """The issue spells the pure-luck test `--reference tapl`: the same as no reference."""
    counts = tmp_path / "counts.csv"
    counts.write_text("player,p1,p2,p3,p4,p5,p6,p7\na,10,5,3,2,2,2,1\nb,1,2,3,4,5,6,9\n")
    plain = run("placement", "stats", str(counts), "--format", "csv").output
    tapl = run("placement", "stats", str(counts), "--reference", "TAPL", "--format",
               "csv").output
    tazd = run("placement", "stats", str(counts), "--reference", "tazd", "--format",
               "csv").output
    assert tapl == plain and "vs_reference" not in plain and "vs_reference" in tazd


@pytest.mark.parametrize("args, message", [
    (["rate", "--top", "-1"], "Invalid value for '--top': -1 is not in the range x>=0."),
    (["evaluate", "--example", "football", "--burn-in", "-2"], "Invalid value for '--burn-in'"),
    (["rate", "--format", "xml"], "Invalid value for '--format'"),
    (["nosuchcommand"], "No such command 'nosuchcommand'"),
])
def test_usage_errors_are_one_line(args, message):
    """Usage errors, like every other error, are one line on stderr, exit status 2."""
    proc = subprocess.run([sys.executable, "-m", "fastrate", *args], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastrate: error: ")
    assert message in lines[0] and "--help')" in lines[0]
    assert proc.stdout == ""
