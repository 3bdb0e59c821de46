"""High-volume paths (issue 10): final ratings without per-game outputs are the same bits
as a full run, for every online system, on data with every per-game option."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastrate
from fastrate.ratings import elo, glicko, glicko2


def _games(seed: int, n_players: int = 30, n_games: int = 400, periods: bool = True,
           extras: bool = True) -> fastrate.Games:
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    opt = {}
    if periods:
        opt["period"] = np.sort(rng.integers(0, 8, n_games))
    if extras:
        opt["weight"] = rng.uniform(0.2, 1.0, n_games)
        opt["neutral"] = rng.random(n_games) < 0.3
    return fastrate.Games.from_arrays(white, black, score, **opt)


ELO_CONFIGS = [elo.EloConfig(), elo.EloConfig(k=20.0, advantage=35.0, cap=400.0),
               elo.EloConfig(k_schedule="fide"), elo.EloConfig(regression=0.25),
               elo.EloConfig(update="period")]


def _same_state(full: fastrate.Ratings, final: fastrate.Ratings) -> None:
    assert final.predictions is None
    assert full.predictions is not None
    assert list(full.columns()) == list(final.columns())
    for name, column in full.columns().items():
        np.testing.assert_array_equal(column, final.columns()[name], err_msg=name)


@pytest.mark.parametrize("config, periods", [
    (c, p) for c in ELO_CONFIGS for p in (True, False)
    if p or (c.regression == 0 and c.update == "game")], ids=repr)
def test_elo_final_ratings_only_are_the_same_bits(config, periods):
    games = _games(1, periods=periods)
    _same_state(elo.rate(games, config), elo.rate(games, config, predictions=False))


@pytest.mark.parametrize("module, config", [(glicko, glicko.GlickoConfig()),
                                            (glicko2, glicko2.Glicko2Config())])
@pytest.mark.parametrize("periods", [True, False])
def test_glicko_family_final_ratings_only_are_the_same_bits(module, config, periods):
    games = _games(2, periods=periods, extras=False)
    _same_state(module.rate(games, config), module.rate(games, config, predictions=False))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n_players=st.integers(2, 40),
       n_games=st.integers(1, 300), periods=st.booleans(), extras=st.booleans())
def test_elo_fast_path_matches_the_full_kernel_on_random_games(seed, n_players, n_games,
                                                              periods, extras):
    games = _games(seed, n_players, n_games, periods, extras)
    config = elo.EloConfig(k=24.0, advantage=20.0 if extras else 0.0)
    _same_state(elo.rate(games, config), elo.rate(games, config, predictions=False))


@pytest.mark.parametrize("periods", [True, False])
@pytest.mark.parametrize("extra_players", [0, 1])
def test_elo_final_layouts_switch_at_the_player_count(periods, extra_players):
    """At most ``_SPLIT_MAX_PLAYERS`` players: the ratings alone with the counts beside
    them (on a second thread from ``_SPLIT_THREAD_MIN_GAMES`` games); one more: one
    record per player. Both the same bits as the full run, from saved state too."""
    n_players = elo._SPLIT_MAX_PLAYERS + extra_players
    n_games = max(n_players, elo._SPLIT_THREAD_MIN_GAMES) + 1000
    rng = np.random.default_rng(11 + extra_players)
    white = rng.integers(0, n_players, n_games)
    white[:n_players] = np.arange(n_players)  # every player in the run
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    opt = {"period": np.sort(rng.integers(3, 9, n_games))} if periods else {}
    games = fastrate.Games.from_arrays(white, black, rng.choice([0.0, 0.5, 1.0], n_games),
                                       weight=rng.uniform(0.2, 1.0, n_games), **opt)
    assert games.n_players == n_players
    config = elo.EloConfig(k=24.0, advantage=30.0)
    _same_state(elo.rate(games, config), elo.rate(games, config, predictions=False))
    half = games.head(n_games // 2)
    saved = elo.rate(half, config, predictions=False)
    rest = fastrate.Games.from_arrays(white[n_games // 2:], black[n_games // 2:],
                                      games.score[n_games // 2:],
                                      weight=games.weight[n_games // 2:],
                                      **({"period": games.period[n_games // 2:]}
                                         if periods else {}))
    _same_state(elo.rate(rest, config, initial=saved),
                elo.rate(rest, config, initial=saved, predictions=False))


def test_final_path_falls_back_when_the_packing_does_not_fit():
    """Periods spanning 2^30 or more do not fit the packed record: the plain kernel
    runs instead, with the same table."""
    games = _games(6, periods=False)
    far = fastrate.Games.from_arrays(games.white, games.black, games.score,
                                     period=np.where(np.arange(games.n_games) < 200, 0,
                                                     2**40))
    _same_state(elo.rate(far), elo.rate(far, predictions=False))


def test_ratings_without_predictions_print():
    r = elo.rate(_games(5), predictions=False)
    assert "games" not in repr(r)
