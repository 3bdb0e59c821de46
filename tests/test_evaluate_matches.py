"""Walk-forward evaluation of team and free-for-all matches (fastrate.evaluate.
evaluate_matches), the bundled F1 example, and the CLI on the long format."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow.csv as pacsv
import pytest
from click.testing import CliRunner

from fastrate import systems
from fastrate.cli import main
from fastrate.data import Games, Matches
from fastrate.datasets import load_example, load_f1
from fastrate.errors import ConfigError, InputError
from fastrate.evaluate import evaluate, evaluate_matches

MATCH_SYSTEMS = systems.names("matches")


def _games(n=600, players=20, seed=3, draws=False):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, players, n)
    b = (w + rng.integers(1, players, n)) % players
    score = rng.integers(0, 3 if draws else 2, n) / (2.0 if draws else 1.0)
    return Games.from_arrays([f"p{i}" for i in w], [f"p{i}" for i in b], score,
                             period=np.arange(n) // 60)


def test_two_player_matches_score_like_games():
    """Without draws, the winner's log loss of two-player matches is the games' log loss
    and the pair metrics are the games' metrics (Elo is symmetric without advantage)."""
    games = _games()
    classic = evaluate(games, ["elo", "glicko2"], burn_in=2)
    teams = evaluate(Matches.from_games(games), ["elo", "glicko2"], burn_in=2)
    assert teams.unit == "matches" and teams.n_scored == classic.n_scored == 480
    for label in ("elo", "glicko2"):
        assert teams[label]["winner_log_loss"] == pytest.approx(classic[label]["log_loss"],
                                                                rel=1e-12)
        assert teams[label]["pair_log_loss"] == pytest.approx(classic[label]["log_loss"],
                                                              rel=1e-12)
        assert teams[label]["pair_accuracy"] == pytest.approx(classic[label]["accuracy"])
    assert teams.to_arrow().column_names == ["system", "n", "winner_log_loss",
                                             "winner_accuracy", "pair_log_loss",
                                             "pair_accuracy", "rank_correlation"]
    assert "480 of 600 matches scored" in str(teams)
    assert teams.best() in ("elo", "glicko2")


@pytest.mark.parametrize("name", MATCH_SYSTEMS)
def test_every_match_system_beats_a_coin_on_f1(name):
    """On Formula 1 races from 2000 (rated from 1950), every system that rates matches
    predicts pairs of drivers better than a coin, and its table row is complete."""
    f1 = load_f1(period="season")
    spec = name
    if name == "elom":  # fields of up to 42: base values from +30 down to -30
        from fastrate.elom import ElomConfig

        spec = ElomConfig(base=tuple(float(x) for x in np.linspace(30.0, -30.0, 42)))
    table = evaluate_matches(f1, [spec], burn_in=50)
    row = table[table.labels[0]]
    assert row["n"] == 514
    assert row["pair_accuracy"] > 0.6 and row["rank_correlation"] > 0.3
    if name != "elom":  # elom's ratings do not live on the 400-point Elo curve
        assert row["pair_log_loss"] < math.log(2)
        # a uniform guess of the winner costs ln(field size) ~ ln 20 = 3.0
        assert row["winner_log_loss"] < 3.0


def test_games_become_matches_for_match_systems():
    if not MATCH_SYSTEMS:
        pytest.skip("no system rates matches")
    games = _games(draws=True)
    name = MATCH_SYSTEMS[0]
    table = evaluate(games, ["elo", name], burn_in=1)
    assert table.unit == "matches" and table.labels == ["elo", name]


def test_match_evaluation_errors():
    ffa = Matches.from_arrays([1, 1, 1, 2, 2, 2], None, list("abcabc"), rank=[1, 2, 3] * 2)
    with pytest.raises(ConfigError, match=r"rating system 'elo' rates two-player games; these "
                       r"matches have teams or more than two sides"):
        evaluate(ffa, ["elo"])
    with pytest.raises(InputError, match=r"needs games with rating periods"):
        evaluate_matches(ffa, ["elo"], burn_in=1)
    with pytest.raises(ConfigError, match=r"no systems to evaluate"):
        evaluate_matches(ffa, [])
    with pytest.raises(ConfigError, match=r"rates boards"):
        evaluate_matches(ffa, ["bridge_elo"])


# ----------------------------------------------------------------------------------
# the bundled F1 example


def test_f1_example_is_the_documented_data():
    m = load_example("f1")
    assert (m.n_matches, m.n_seats, m.n_players) == (1160, 25662, 792)
    assert m.n_teams == m.n_seats and m.team_labels is None
    # 1951 French GP: a shared-car win, two drivers ranked first
    i = int(np.flatnonzero(m.match_labels == "1951-04")[0])
    assert m.ranks_of(i)[:2].tolist() == [1, 1]
    winners = {m.players[p] for t in m.teams_of(i)[:2] for p in t}
    assert winners == {"luigi-fagioli", "juan-manuel-fangio"}
    # 2021 Abu Dhabi GP: Verstappen, then Hamilton
    i = int(np.flatnonzero(m.match_labels == "2021-22")[0])
    assert [m.players[t[0]] for t in m.teams_of(i)[:2]] == ["max-verstappen",
                                                            "lewis-hamilton"]
    teams = load_f1(teams=True, period="season", since=2000)
    assert teams.n_matches == 514 and int(teams.period[0]) == 2000
    i = int(np.flatnonzero(teams.match_labels == "2021-22")[0])
    assert teams.team_labels[teams.match_team_offsets[i]] == "red-bull"
    assert sorted(teams.players[p] for p in teams.teams_of(i)[0]) == ["max-verstappen",
                                                                        "sergio-perez"]


# ----------------------------------------------------------------------------------
# the CLI on the long format


def run(*args: str, ok: bool = True):
    result = CliRunner().invoke(main, list(args))
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def long_csv(tmp_path: Path) -> Path:
    rows = ["game,side,name,place,share"]
    rng = np.random.default_rng(2)
    for g in range(40):
        seats = rng.choice(8, 4, replace=False)
        for k, p in enumerate(seats):
            rows.append(f"g{g},{'AB'[k // 2]},p{p},{1 + (k // 2 + g) % 2},1")
    path = tmp_path / "long.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("name", MATCH_SYSTEMS)
def test_rate_long_format_file(long_csv: Path, tmp_path: Path, name: str):
    out = tmp_path / "ratings.csv"
    pred = tmp_path / "pred.csv"
    result = run("rate", str(long_csv), "-s", name, "--match", "game", "--team", "side",
                 "--player", "name", "--place", "place", "--weight", "share", "-o", str(out),
                 "--predictions", str(pred))
    table = pacsv.read_csv(out)
    assert table.column_names == ["player", *systems.get(name).state_names()]
    assert table.num_rows == 8
    p = pacsv.read_csv(pred)
    assert p.column_names == ["match", "team", "rank", "win_probability"]
    assert p.num_rows == 80
    sums = np.add.reduceat(p.column("win_probability").to_numpy(), np.arange(0, 80, 2))
    np.testing.assert_allclose(sums, 1.0)
    assert "wrote 8 ratings" in result.output


def test_rate_f1_example_and_evaluate():
    if "pairwise_elo" not in MATCH_SYSTEMS:
        pytest.skip("pairwise_elo is not registered")
    out = run("rate", "--example", "f1", "-s", "pairwise_elo", "--top", "3").output
    assert "pairwise_elo: 1,160 matches, 792 players (--example f1); top 3" in out
    out = run("evaluate", "--example", "f1", "--period", "season", "--burn-in", "50", "-s",
              "pairwise_elo").output
    assert "514 of 1,160 matches scored" in out and "rank_correlation" in out


@pytest.mark.parametrize("args, message", [
    (["rate", "--example", "f1", "-s", "elo"],
     "rating system 'elo' rates two-player games; these matches have teams"),
    (["rate", "--example", "f1", "-s", "pairwise_elo", "--white", "w"],
     "--white: not an option here: the system rates matches"),
    (["rate", "--example", "football", "--team", "t"],
     "--team: not an option here: the system rates two-player games"),
])
def test_match_cli_errors_are_one_line(args, message):
    result = run(*args, ok=False)
    assert result.exit_code == 1
    assert result.output.count("\n") == 1 and message in result.output


def test_weng_lin_logistic_predictions_beat_openskills_normal_curve_on_nfl():
    """On 16,810 NFL games (FiveThirtyEight's file), openskill's normal-curve
    predict_win scores worse than a coin; the logistic (Plackett-Luce) form does not."""
    path = Path(__file__).resolve().parents[2] / "shared" / "data" / "fte_nfl_elo_game"
    if not (path / "nfl_games.csv").exists():
        pytest.skip("the FiveThirtyEight NFL data is not here")
    table = pacsv.read_csv(path / "nfl_games.csv")
    games = Games.from_arrays(table.column("team1"), table.column("team2"),
                              table.column("result1").to_numpy().astype(float),
                              period=table.column("season"))
    ev = evaluate(Matches.from_games(games), ["weng_lin", "weng_lin:predict=normal"],
                  burn_in=10)
    logistic, normal = ev["weng_lin"], ev["weng_lin:predict=normal"]
    assert logistic["pair_log_loss"] == pytest.approx(0.6603, abs=5e-4)
    assert normal["pair_log_loss"] == pytest.approx(0.7083, abs=5e-4)
    assert logistic["pair_log_loss"] < math.log(2) < normal["pair_log_loss"]
    assert logistic["pair_accuracy"] == normal["pair_accuracy"]  # the same ratings


# ----------------------------------------------------------------------------------
# a system that rates matches on two-player games: the command line reads them as games


def _two_player_file(tmp_path: Path) -> tuple[Path, Games]:
    g = _games(200, players=12, seed=5, draws=True)
    names = g.players.names
    path = tmp_path / "games.csv"
    path.write_text("white,black,score\n" + "".join(
        f"{names[w]},{names[b]},{s}\n" for w, b, s in
        zip(g.white.tolist(), g.black.tolist(), g.score.tolist())))
    return path, g


@pytest.mark.parametrize("name", ["trueskill", "weng_lin", "pairwise_elo"])
def test_cli_rates_two_player_games_with_a_match_system(tmp_path, name):
    """A games file (no match column) with a team system: each game a match of two
    one-player teams, the same ratings as the library on Matches.from_games."""
    from fastrate.io.tables import read_games

    path, _ = _two_player_file(tmp_path)
    out = tmp_path / "r.csv"
    res = CliRunner().invoke(main, ["rate", str(path), "-s", name, "-o", str(out)])
    assert res.exit_code == 0, res.output
    want = systems.SystemSpec.parse(name).rate(Matches.from_games(read_games(path)))
    table = pacsv.read_csv(out)
    got = dict(zip(table.column("player").to_pylist(), table.column("rating").to_pylist()))
    assert got == pytest.approx(dict(zip(want.players.names.tolist(), want.rating.tolist())),
                                rel=1e-9)


def test_cli_two_player_inputs_for_match_systems(tmp_path):
    """Game columns named (--winner/--loser), a PGN file and the football example go
    to a team system as two-player matches; weights that are not shares of a game
    are left out with a note; a file that is neither says what is missing."""
    runner = CliRunner()
    wl = tmp_path / "wl.csv"
    wl.write_text("winner_id,loser_id,day\na,b,2024-01-01\nb,c,2024-01-02\nc,a,2024-01-03\n")
    res = runner.invoke(main, ["rate", str(wl), "-s", "trueskill", "--winner", "winner_id",
                               "--loser", "loser_id", "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert res.output.splitlines()[0].replace('"', "").startswith("player,rating,mu,sigma")
    pgn = tmp_path / "g.pgn"
    pgn.write_text('[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1-0\n\n'
                   '[White "b"]\n[Black "a"]\n[Result "1/2-1/2"]\n\n1/2-1/2\n')
    res = runner.invoke(main, ["rate", str(pgn), "-s", "weng-lin", "--format", "csv"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(main, ["rate", "--example", "football", "-s", "trueskill", "--top", "3"])
    assert res.exit_code == 0, res.output
    assert "rated unweighted" in res.output and "49,520 matches" in res.output
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n")
    res = runner.invoke(main, ["rate", str(bad), "-s", "trueskill"])
    assert res.exit_code == 1
    assert res.output.startswith("fastrate: error: cannot find the match column")
    res = runner.invoke(main, ["evaluate", str(wl), "-s", "elo", "-s", "trueskill",
                               "--winner", "winner_id", "--loser", "loser_id"])
    assert res.exit_code == 0, res.output
    assert "trueskill" in res.output and "pair_log_loss" in res.output
