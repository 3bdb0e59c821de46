"""Issue 14 §3 and issue 13 §1: what the pictures need is written by -o in every format
(per-game predictions with both players, their pre-game ratings, the outcome and the
period; every system's calibration table), and ``evaluate`` takes what ``rate`` takes
(``--initial``, ``--resets``, points columns)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner

import fastrate
from fastrate.cli import main
from fastrate.datasets import load_example
from fastrate.evaluate import evaluate
from fastrate.io.tables import read_table

FORMATS = ("csv", "parquet", "json")


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def football():
    return load_example("football", period="year")


@pytest.mark.parametrize("fmt", FORMATS)
def test_game_predictions_in_every_format(tmp_path, football, fmt):
    path = tmp_path / f"pred.{fmt}"
    run("rate", "--example", "football", "--period", "year", "--top", "0",
        "--predictions", str(path))
    t = read_table(path)
    assert t.column_names == ["row", "time", "period", "white", "black", "white_rating",
                              "black_rating", "expected_score", "score"]
    want = fastrate.elo.rate(football, fastrate.elo.EloConfig.world_football(),
                             record_pregame=True)
    assert t.num_rows == football.n_games
    np.testing.assert_array_equal(t.column("row").to_numpy(), np.arange(1, t.num_rows + 1))
    np.testing.assert_allclose(t.column("expected_score").to_numpy(), want.predictions,
                               rtol=0, atol=1e-12 if fmt == "json" else 0)
    np.testing.assert_allclose(t.column("white_rating").to_numpy(), want.pre_white, atol=1e-9)
    np.testing.assert_allclose(t.column("black_rating").to_numpy(), want.pre_black, atol=1e-9)
    # an independent look at the first rows: the published data in input order
    raw = read_table(fastrate.datasets.example_path("football"))
    assert t.column("white").to_pylist()[:50] == raw.column("home_team").to_pylist()[:50]
    assert t.column("black").to_pylist()[:50] == raw.column("away_team").to_pylist()[:50]
    home, away = (raw.column(c).to_numpy()[:50] for c in ("home_score", "away_score"))
    np.testing.assert_array_equal(t.column("score").to_numpy()[:50],
                                  np.where(home > away, 1.0, np.where(home < away, 0.0, 0.5)))
    assert t.column("period").to_pylist()[0] == t.column("period").to_pylist()[1] - 1  # 1872, 1873


@pytest.mark.parametrize("spec", ["glicko", "glicko2:advantage=100", "stephenson"])
def test_predictions_of_period_systems_carry_pregame_ratings(tmp_path, football, spec):
    """A period-based system's pre-game ratings are the ratings at the onset of the
    game's period: checked against a run on the periods before it, by hand."""
    path = tmp_path / "pred.parquet"
    run("rate", "--example", "football", "-s", spec, "--period", "year", "--top", "0",
        "--predictions", str(path))
    t = read_table(path)
    assert {"white", "black", "white_rating", "black_rating", "expected_score", "score",
            "period"} <= set(t.column_names)
    from fastrate.report.history import slice_data
    from fastrate.systems import SystemSpec

    parsed = SystemSpec.parse(spec)
    g = football
    periods = np.unique(g.period)
    for k in (periods[1], periods[len(periods) // 2], periods[-1]):
        lo, hi = np.searchsorted(g.period, [k, k + 1])
        before = parsed.rate(slice_data(g, 0, int(lo)), predictions=False)
        rows = g.order[lo:hi] if g.order is not None else np.arange(lo, hi)
        names = before.players.names
        for row, w in zip(rows[:20], g.white[lo:hi][:20]):
            want = before.rating[before.players.id_of(names[w])] \
                if before.games_played[before.players.id_of(names[w])] \
                else parsed.config.initial_rating
            assert t.column("white_rating")[int(row)].as_py() == pytest.approx(want, abs=1e-9)
    np.testing.assert_allclose(t.column("expected_score").to_numpy(),
                               parsed.rate(g).predictions, rtol=0, atol=0)


@pytest.mark.parametrize("fmt", FORMATS)
def test_calibration_written_by_o(tmp_path, football, fmt):
    path = tmp_path / f"cal.{fmt}"
    run("evaluate", "--example", "football", "--period", "year", "--burn-in", "5",
        "-s", "elo", "-s", "glicko", "--calibration", "-o", str(path))
    t = read_table(path)
    assert t.column_names == ["system", "bin", "lower", "upper", "count", "mean_predicted",
                              "mean_observed"]
    assert t.num_rows == 20
    want = evaluate(football, ["elo", "glicko"], burn_in=5)
    for label in ("elo", "glicko"):
        rows = t.filter(pa.compute.equal(t.column("system"), label))
        np.testing.assert_array_equal(rows.column("bin").to_numpy(), np.arange(1, 11))
        np.testing.assert_array_equal(rows.column("count").to_numpy(),
                                      want.calibration[label]["count"])
        assert int(rows.column("count").to_numpy().sum()) == want[label]["n"]
        np.testing.assert_allclose(rows.column("mean_observed").to_numpy(zero_copy_only=False),
                                   want.calibration[label]["mean_observed"], atol=1e-12)


def test_an_empty_calibration_bin_is_null_not_nan(tmp_path):
    path = tmp_path / "cal.json"
    csv = tmp_path / "g.csv"
    csv.write_text("white,black,score\na,b,1\nb,a,0\na,b,1\n")
    run("evaluate", str(csv), "-s", "elo", "--calibration", "-o", str(path))
    rows = json.loads(path.read_text())
    assert len(rows) == 10
    empty = [r for r in rows if r["count"] == 0]
    assert empty and all(r["mean_predicted"] is None and r["mean_observed"] is None
                         for r in empty)


def test_evaluate_continues_from_initial(tmp_path):
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv

    table = read_table(fastrate.datasets.example_path("football"))
    early = tmp_path / "early.csv"
    late = tmp_path / "late.csv"
    cut = pc.less(table.column("date"), pa.scalar(np.datetime64("1990-01-01", "s")))
    pacsv.write_csv(table.filter(cut), early)
    pacsv.write_csv(table.filter(pc.invert(cut)), late)
    first = tmp_path / "first.csv"
    run("rate", str(early), "--period", "year", "-s", "glicko", "--top", "0", "-o", str(first))
    out = run("evaluate", str(late), "--period", "year", "-s", "glicko", "--initial",
              str(first), "--format", "json")
    got = json.loads(out[out.index("["):])[0]
    games = fastrate.read_games(late, period="year")
    want = evaluate(games, ["glicko"], initial=fastrate.read_ratings(first))["glicko"]
    assert got["log_loss"] == pytest.approx(want["log_loss"], rel=1e-12)
    plain = evaluate(games, ["glicko"])["glicko"]
    assert abs(got["log_loss"] - plain["log_loss"]) > 1e-3  # the start mattered


def test_initial_accepts_team_and_elo_columns(tmp_path):
    games = tmp_path / "g.csv"
    games.write_text("white,black,score\na,b,1\nb,a,0.5\n")
    start = tmp_path / "start.csv"
    start.write_text("team,elo\na,1700\nb,1300\n")
    out = run("rate", str(games), "--initial", str(start), "--format", "json")
    rows = {r["player"]: r["rating"] for r in json.loads(out[out.index("["):])}
    want = fastrate.elo.rate(fastrate.Games.from_arrays(["a", "b"], ["b", "a"], [1, 0.5]),
                             initial={"a": 1700.0, "b": 1300.0})
    assert rows == {"a": want["a"], "b": want["b"]}


# ----------------------------------------------------------------------------------
# sane defaults (issue 13 §5): a period-based system never scores a silent coin flip


def test_evaluate_without_period_groups_timed_games_by_month(tmp_path):
    import pyarrow.csv as pacsv

    path = tmp_path / "results.csv"  # the user's own copy of the football results
    pacsv.write_csv(read_table(fastrate.datasets.example_path("football")), path)
    result = CliRunner().invoke(main, ["evaluate", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "grouped by month" in result.stderr
    rows = {r["system"]: r for r in json.loads(result.stdout)}
    assert set(rows) == {"elo", "glicko", "glicko2"}
    for name in ("glicko", "glicko2"):
        assert rows[name]["log_loss"] < 0.65  # not the 0.6931 of one single period
    by_month = evaluate(fastrate.read_games(path, period="month"), ["glicko"])
    assert rows["glicko"]["log_loss"] == pytest.approx(by_month["glicko"]["log_loss"],
                                                       rel=1e-12)


def test_evaluate_without_times(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("white,black,score\na,b,1\nb,c,0\nc,a,0.5\n")
    result = CliRunner().invoke(main, ["evaluate", str(path), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert [r["system"] for r in json.loads(result.stdout)] == ["elo"]
    assert "period-based default systems are left out (glicko, glicko2)" in result.stderr
    result = CliRunner().invoke(main, ["evaluate", str(path), "-s", "glicko"])
    assert result.exit_code != 0
    assert "glicko updates once per rating period" in result.output
    assert "coin flip" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(main, ["rate", str(path), "-s", "glicko"])
    assert result.exit_code == 0 and "single period" in result.stderr


def test_a_preset_means_the_same_on_the_users_copy(tmp_path):
    """Issue 13 §5: elo@world_football on the user's own copy of the football results
    with --weight tournament gives the bundled example's ratings to the bit; without
    weights a note says what is missing."""
    import pyarrow.csv as pacsv

    path = tmp_path / "results.csv"
    pacsv.write_csv(read_table(fastrate.datasets.example_path("football")), path)
    mine = CliRunner().invoke(main, ["rate", str(path), "-s", "elo@world_football",
                                     "--weight", "tournament", "--format", "json"])
    example = CliRunner().invoke(main, ["rate", "--example", "football", "--format", "json"])
    assert mine.exit_code == 0 and example.exit_code == 0, mine.output
    assert json.loads(mine.stdout) == json.loads(example.stdout)
    bare = CliRunner().invoke(main, ["rate", str(path), "-s", "elo@world_football",
                                     "--top", "1"])
    assert bare.exit_code == 0 and "give --weight tournament" in bare.stderr


def test_text_weights_are_match_types(tmp_path):
    from fastrate.data.match_types import world_football_k

    path = tmp_path / "g.csv"
    path.write_text("white,black,score,tournament\na,b,1,Friendly\nb,a,0,FIFA World Cup\n"
                    "a,b,1,Copa América\nb,a,1,FIFA World Cup qualification\n"
                    "a,b,0,Baltic Cup\n")
    g = fastrate.read_games(path, weight="tournament")
    np.testing.assert_array_equal(g.weight, np.array([20, 60, 50, 40, 30]) / 40)
    assert world_football_k(["FIFA World Cup"]).tolist() == [60.0]
    path.write_text("white,black,score,tournament\na,b,1,Friendly\nb,a,0,\n")
    with pytest.raises(fastrate.errors.InputError, match="weight|tournament"):
        fastrate.read_games(path, weight="tournament")


# ----------------------------------------------------------------------------------
# leaderboards (issue 13 §4): a minimum of games, a conservative rating


def _lucky_newcomer():
    """'lucky' wins his one game against the best player; the others play a lot."""
    white, black, score = [], [], []
    for _ in range(30):
        white += ["ace", "ace", "bob"]
        black += ["bob", "cat", "cat"]
        score += [1.0, 1.0, 0.5]
    white.append("lucky")
    black.append("ace")
    score.append(1.0)
    return fastrate.Games.from_arrays(white, black, score, period=[0] * 90 + [1])


def test_leaderboard_min_games_and_conservative():
    r = fastrate.glicko2.rate(_lucky_newcomer())
    assert r.top(1)[0][0] == "lucky"  # one game, a big jump: top of the plain list
    assert [n for n, _ in r.top(3, min_games=5)] == ["ace", "bob", "cat"]
    rd = r.state["rd"]
    by_hand = np.argsort(-(r.rating - 2 * rd), kind="stable")
    np.testing.assert_array_equal(r.leaderboard(conservative=2), by_hand)
    assert r.players[r.leaderboard(conservative=2)[0]] == "ace"
    with pytest.raises(fastrate.errors.InputError, match="min_games must be a whole"):
        r.leaderboard(min_games=-1)
    # a system without an uncertainty: conservative changes nothing
    e = fastrate.elo.rate(_lucky_newcomer())
    np.testing.assert_array_equal(e.leaderboard(conservative=3), e.ranking())


def test_cli_leaderboard_options(tmp_path):
    g = _lucky_newcomer()
    path = tmp_path / "g.csv"
    names = g.players.names
    lines = ["white,black,score,period"] + [
        f"{names[w]},{names[b]},{s},{p}" for w, b, s, p in zip(g.white, g.black, g.score,
                                                                  g.period)]
    path.write_text("\n".join(lines) + "\n")
    out = run("rate", str(path), "-s", "glicko2", "--period", "period", "--top", "2",
              "--min-games", "5")
    assert "lucky" not in out and "at least 5 games" in out
    out = run("rate", str(path), "-s", "glicko2", "--period", "period", "--top", "1")
    assert "lucky" in out
