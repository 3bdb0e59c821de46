"""Hostile but realistic values (issue 15, sections 1 and 5): every one is refused with
a clear one-line error, or handled exactly; nothing writes NaN or infinity."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

import fastrate as fr
from fastrate.errors import ConfigError, InputError

# ----------------------------------------------------------------------------------
# section 1: never a non-finite result


def test_elo_with_a_huge_weight_names_the_game_and_players():
    games = fr.Games.from_arrays(["a", "b", "c", "a"], ["b", "c", "a", "c"],
                                 [1.0, 0.0, 1.0, 0.5], weight=[1.0, 1.0, 1e308, 1.0],
                                 source="games.csv")
    for predictions in (True, False):
        with pytest.raises(InputError) as err:
            fr.elo.rate(games, predictions=predictions)
        msg = str(err.value)
        assert msg.startswith("Elo ratings overflowed at row 3 of games.csv: 'c' against 'a' "
                              "left ratings inf and -inf (K 32, weight 1e+308)"), msg
        assert "\n" not in msg


def test_elo_overflow_is_located_in_input_rows_of_sorted_games():
    # stored order differs from input order: the error names the input row
    games = fr.Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1.0, 0.0, 1.0],
                                 time=[3.0, 1.0, 2.0], weight=[1.0, 1e308, 1.0],
                                 source="games.csv")
    with pytest.raises(InputError, match=r"overflowed at row 2 of games.csv: 'b' against 'c'"):
        fr.elo.rate(games)


def test_elo_with_a_huge_margin_overflows_clearly():
    games = fr.Games.from_arrays(["a", "b"], ["b", "a"], [1.0, 1.0], margin=[1e308, 1.0])
    with pytest.raises(InputError, match=r"overflowed at row 1: 'a' against 'b' .*"
                                         r"margin 1e\+308"):
        fr.elo.rate(games, fr.elo.EloConfig(k=1e6, margin="world_football"))


def test_elo_finite_huge_values_are_kept():
    # large but finite: no false alarm (the quick check sums the ratings, which overflow)
    games = fr.Games.from_arrays(["a", "c", "e"], ["b", "d", "f"], [1.0, 1.0, 1.0],
                                 weight=[1.5e302] * 3)
    r = fr.elo.rate(games, fr.elo.EloConfig(k=1e6))
    assert np.isfinite(r.rating).all() and r.rating.max() > 7e307
    with np.errstate(over="ignore"):
        assert not np.isfinite(r.rating[r.rating > 0].sum())


@pytest.mark.parametrize("make, message", [
    (lambda: fr.elo.EloConfig(k=1e308), r"'k' of EloConfig must be a float in \[0, 1e\+06\]; "
                                        r"got 1e\+308"),
    (lambda: fr.elo.EloConfig(scale=1e-300), r"'scale' of EloConfig must be a float in "
                                             r"\[0.001, 1e\+09\]"),
    (lambda: fr.elo.EloConfig(initial_rating=1e308), r"'initial_rating' of EloConfig"),
    (lambda: fr.elo.EloConfig(advantage=-1e12), r"'advantage' of EloConfig"),
    (lambda: fr.elo.EloConfig(k_power=5), r"'k_power' of EloConfig must be \(a, b, c\)"),
    (lambda: fr.elo.EloConfig(k_schedule="power", k_power=(1e6, 1e-300, 10)),
     r"'k_power\[1\]' of EloConfig"),
    (lambda: fr.fibs.FibsConfig(k=1e308), r"'k' of FibsConfig must be a float in "
                                          r"\[0, 1e\+06\]"),
    (lambda: fr.fibs.FibsConfig(k_max=1e308), r"'k_max' of FibsConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(mu=1e308), r"'mu' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(sigma=1e308), r"'sigma' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(beta=1e-300), r"'beta' of TrueSkillConfig"),
    (lambda: fr.trueskill.TrueSkillConfig(draw_probability=1e-300),
     r"'draw_probability' of TrueSkillConfig must be a float in \[1e-06, 0.999999\]"),
    (lambda: fr.trueskill.TrueSkillConfig(max_iterations=math.inf),
     r"'max_iterations' of TrueSkillConfig must be an integer"),
    (lambda: fr.weng_lin.WengLinConfig(tau=1e308), r"'tau' of WengLinConfig"),
    (lambda: fr.weng_lin.WengLinConfig(conservative_k=1e308), r"'conservative_k' of "
                                                              r"WengLinConfig"),
    (lambda: fr.weng_lin.WengLinConfig(window=math.inf), r"'window' of WengLinConfig must "
                                                         r"be an integer"),
    (lambda: fr.weng_lin.WengLinConfig(weight_bounds=(1.0, 1e308)), r"'weight_bounds\[1\]'"),
    (lambda: fr.elom.ElomConfig(k_start=1e308), r"'k_start' of ElomConfig"),
    (lambda: fr.elom.ElomConfig(spread=1e-300), r"'spread' of ElomConfig"),
    (lambda: fr.elom.ElomConfig(k_games=1e-300), r"'k_games' of ElomConfig must be 0 or a "
                                                 r"float in \[1, 1e\+09\]"),
    (lambda: fr.pairwise_elo.PairwiseEloConfig(initial_rating=-1e308),
     r"'initial_rating' of PairwiseEloConfig"),
    (lambda: fr.codeforces.CodeforcesConfig(initial_rating=math.inf),
     r"'initial_rating' of CodeforcesConfig must be an integer"),
    (lambda: fr.bradley_terry.BTConfig(advantage=-1e308), r"'advantage' of BTConfig"),
    (lambda: fr.bradley_terry.BTConfig(mean_rating=math.inf), r"'mean_rating' of BTConfig"),
    (lambda: fr.bradley_terry.BTConfig(prior=1e-300), r"'prior' of BTConfig must be 0 or"),
    (lambda: fr.bradley_terry.BTConfig(max_newton=math.inf), r"'max_newton' of BTConfig"),
])
def test_a_parameter_that_cannot_give_finite_results_is_refused(make, message):
    with pytest.raises(ConfigError, match=message) as err:
        make()
    assert "\n" not in str(err.value)


def test_the_range_edges_are_accepted():
    fr.elo.EloConfig(k=1e6, scale=1e-3, initial_rating=-1e9, advantage=1e9)
    fr.trueskill.TrueSkillConfig(draw_probability=0.0)
    fr.trueskill.TrueSkillConfig(draw_probability=1e-6)
    fr.elom.ElomConfig(k_games=0.0)
    fr.bradley_terry.BTConfig(prior=0.0)


def _csv(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_backgammon_rate_refuses_a_huge_k(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    path = _csv(tmp_path, "m.csv", "date,winner,loser,length\n2024-01-01,a,b,3\n")
    res = CliRunner().invoke(backgammon_group, ["rate", path, "--no-experience", "--k",
                                                "1e308"])
    assert isinstance(res.exception, ConfigError)
    assert "'k' of FibsConfig must be a float in [0, 1e+06]; got 1e+308" in str(res.exception)


def test_backgammon_rate_refuses_a_huge_match_length(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    path = _csv(tmp_path, "m.csv", "date,winner,loser,length\n2024-01-01,a,b,1e300\n")
    res = CliRunner().invoke(backgammon_group, ["rate", path])
    assert isinstance(res.exception, InputError)
    assert "points in [1, 1e6]" in str(res.exception)


def test_ladder_simulate_refuses_a_huge_k():
    from fastrate.cli.ladder import ladder_group

    res = CliRunner().invoke(ladder_group, ["simulate", "--k", "1e308", "--games", "10",
                                            "--seeds", "1", "--players", "4"])
    assert isinstance(res.exception, ConfigError)
    assert "'k' of EloConfig must be a float in [0, 1e+06]; got 1e+308" in str(res.exception)


# ----------------------------------------------------------------------------------
# backgammon rate --drop-self-play (the self-play error suggests it)


def test_backgammon_rate_drops_self_play_and_keeps_lengths_in_step(tmp_path):
    from fastrate.cli.backgammon import backgammon_group

    text = ("date,winner,loser,length\n2024-01-01,a,b,3\n2024-01-02,c,c,5\n"
            "2024-01-03,b,c,7\n")
    path = _csv(tmp_path, "m.csv", text)
    runner = CliRunner()
    res = runner.invoke(backgammon_group, ["rate", path])
    assert isinstance(res.exception, InputError)
    assert "--drop-self-play" in str(res.exception)
    out = str(tmp_path / "out.csv")
    res = runner.invoke(backgammon_group, ["rate", path, "--drop-self-play", "-o", out])
    assert res.exit_code == 0, res.output
    assert "skipped 1 row where a player plays himself (first at row 2 (line 3 of m.csv))" \
        in res.output
    got = fr.read_ratings(out)
    clean = _csv(tmp_path, "clean.csv", "date,winner,loser,length\n2024-01-01,a,b,3\n"
                 "2024-01-03,b,c,7\n")
    expected = fr.fibs.rate(fr.read_games(clean, winner="winner", loser="loser"),
                            length=[3, 7])
    exp = dict(zip(expected.players.names.tolist(), expected.rating.tolist()))
    names = got.column("player").to_pylist()
    assert dict(zip(names, got.column("rating").to_pylist())) == exp
    # b played 3 + 7 points: the dropped row's 5 is not counted
    assert dict(zip(names, got.column("experience").to_pylist()))["b"] == 10
