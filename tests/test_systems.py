"""The rating-system protocol: every registered system is checked by the same tests
(config, state columns, continuation, spec strings), so a new system only needs its
registry entry to be covered."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from fastrate import systems
from fastrate.data import Games
from fastrate.errors import ConfigError, InputError, InputTypeError
from fastrate.evaluate import evaluate

ALL = systems.names()
GAMES = systems.names("games")
MATCHES = systems.names("matches")
#: batch models (refitted per period) do not continue from saved state
BATCH = [n for n in ALL if systems.get(n).batch]
ONLINE_GAMES = [n for n in GAMES if n not in BATCH]
ONLINE_MATCHES = [n for n in MATCHES if n not in BATCH]


def test_registry_holds_the_documented_systems():
    assert ALL[:6] == ["elo", "glicko", "glicko2", "stephenson", "fibs", "bridge_elo"]
    assert set(MATCHES) >= {"trueskill", "weng_lin", "elom", "pairwise_elo", "codeforces"}
    assert GAMES == ["elo", "glicko", "glicko2", "stephenson", "fibs", "bradley_terry", "whr"]
    assert BATCH == ["bradley_terry", "whr"]
    assert systems.names("boards") == ["bridge_elo"]


@pytest.mark.parametrize("name", ALL)
def test_entry_declares_the_protocol(name):
    entry = systems.get(name)
    cls = entry.config_class
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert callable(entry.module.rate) and callable(entry.module.expected_score)
    assert entry.state_names()[0] == "rating"
    assert entry.summary and entry.warm_specs
    for spec in entry.warm_specs:
        assert systems.SystemSpec.parse(spec).name == name


@pytest.mark.parametrize("name", ALL)
def test_results_carry_exactly_the_declared_state(name):
    entry = systems.get(name)
    ratings = entry.rate(systems.tiny_data(entry.data))
    declared = [c.name for c in entry.state if not c.optional]
    optional = [c.name for c in entry.state if c.optional]
    got = [c for c in ratings.columns() if c != "player"]
    assert [c for c in got if c not in optional] == declared
    data = systems.tiny_data(entry.data)
    if entry.data == "matches":  # a win probability per team, an expected score per pair
        assert ratings.predictions.shape[0] == data.n_teams
        assert ratings.pair_predictions.shape[0] == data.pair_offsets()[-1]
        sums = np.add.reduceat(ratings.predictions, data.match_team_offsets[:-1])
        np.testing.assert_allclose(sums, 1.0, rtol=1e-9)
        assert ratings.predicted.kind == "team"
    else:
        assert ratings.predictions.shape[0] == len(data)
    assert np.isfinite(ratings.rating).all()


def _random_matches(n: int, players: int, seed: int):
    """Random free-for-alls and team matches in 8 periods, with ties and partial play."""

    rng = np.random.default_rng(seed)
    match, team, player, rank, weight, period = [], [], [], [], [], []
    for m in range(n):
        n_teams = int(rng.integers(2, 5))
        size = int(rng.integers(1, 3))
        seats = rng.choice(players, n_teams * size, replace=False)
        ranks = rng.integers(1, n_teams + 1, n_teams)
        p = m * 8 // n
        for t in range(n_teams):
            for k in range(size):
                match.append(m)
                team.append(t)
                player.append(f"p{seats[t * size + k]}")
                rank.append(int(ranks[t]))
                weight.append(1.0 if k == 0 else float(rng.choice([0.5, 1.0])))
                period.append(p)
    return {k: np.array(v) for k, v in dict(match=match, team=team, player=player, rank=rank,
                                             weight=weight, period=period).items()}


@pytest.mark.parametrize("name", ONLINE_MATCHES)
@pytest.mark.parametrize("via_table", [False, True])
def test_matches_continuation_equals_the_full_run(name, via_table):
    """As for games: the first periods, then the rest from the saved state, give the
    full run's state (systems that rate matches)."""
    from fastrate.data import Matches

    entry = systems.get(name)
    cols = _random_matches(300, 14, seed=5)
    full = entry.rate(Matches.from_arrays(**cols))
    first = cols["period"] < 4
    saved = entry.rate(Matches.from_arrays(**{k: v[first] for k, v in cols.items()}))
    initial = saved.to_arrow() if via_table else saved
    cont = entry.rate(Matches.from_arrays(**{k: v[~first] for k, v in cols.items()}),
                      initial=initial)
    order = [cont.players.id_of(p) for p in full.players.names]
    for col, values in full.columns().items():
        if col == "player":
            continue
        np.testing.assert_allclose(cont.columns()[col][order], values, rtol=1e-12, atol=1e-9,
                                   err_msg=f"{name}: column {col}")


def _split(games: Games, at_period: int) -> tuple[Games, Games]:
    first = games.period < at_period
    cols = dict(white=games.players.names[games.white], black=games.players.names[games.black],
                score=games.score, weight=games.weight, period=games.period)

    def part(mask):
        return Games.from_arrays(**{k: v[mask] for k, v in cols.items()})

    return part(first), part(~first)


@pytest.mark.parametrize("name", ONLINE_GAMES)
@pytest.mark.parametrize("via_table", [False, True])
def test_continuation_equals_the_full_run(name, via_table):
    """Rating the first periods, then the rest from the saved state (the Ratings or its
    table), gives the full run's state for every declared column."""
    entry = systems.get(name)
    rng = np.random.default_rng(7)
    n, players = 400, 12
    white = rng.integers(0, players, n)
    black = (white + rng.integers(1, players, n)) % players
    games = Games.from_arrays([f"p{i}" for i in white], [f"p{i}" for i in black],
                              rng.integers(0, 2, n).astype(float), period=np.sort(
                                  rng.integers(0, 8, n)), weight=rng.integers(1, 6, n)
                              .astype(float))
    full = entry.rate(games)
    first, second = _split(games, 4)
    saved = entry.rate(first)
    initial = saved.to_arrow() if via_table else saved
    cont = entry.rate(second, initial=initial)
    order = [cont.players.id_of(p) for p in full.players.names]
    for col, values in full.columns().items():
        if col == "player":
            continue
        np.testing.assert_allclose(cont.columns()[col][order], values, rtol=1e-12, atol=1e-9,
                                   err_msg=f"{name}: column {col}")


@pytest.mark.parametrize("name", BATCH)
def test_batch_systems_refuse_to_continue(name):
    """A batch fit has no state to continue from: ``initial=`` is one clear error."""
    entry = systems.get(name)
    data = systems.tiny_data(entry.data)
    saved = entry.rate(data)
    with pytest.raises(ConfigError, match=r"batch fit .* cannot continue from saved ratings"):
        entry.rate(data, initial=saved)


@pytest.mark.parametrize("name", ALL)
def test_spec_of_a_config_parses_back(name):
    entry = systems.get(name)
    for spec in entry.warm_specs:
        s = systems.SystemSpec.parse(spec)
        assert systems.SystemSpec.parse(systems.SystemSpec.of(s.config).spec).config == s.config


def test_unknown_and_bad_entries():
    with pytest.raises(ConfigError, match=r"unknown rating system 'nope'; known systems: elo"):
        systems.get("nope")
    with pytest.raises(ConfigError, match=r"registered already"):
        systems.register(systems.get("elo"))
    with pytest.raises(InputTypeError, match=r"register\(\) takes a RatingSystem; got str"):
        systems.register("elo")
    with pytest.raises(ConfigError, match=r"data of rating system 'x' must be one of"):
        systems.RatingSystem("x", "m", "C", "s", data="teams")
    with pytest.raises(ConfigError, match=r"lower-case letters"):
        systems.RatingSystem("Bad Name", "m", "C", "s")


def test_a_new_system_is_one_entry(monkeypatch):
    """Registering an entry makes a system usable by spec strings and evaluation."""
    monkeypatch.setitem(systems.REGISTRY, "elo_copy", systems.RatingSystem(
        "elo_copy", "fastrate.ratings.elo", "EloConfig", "Elo under another name"))
    games = systems.tiny_data("games")
    table = evaluate(games, ["elo:k=20", "elo_copy:k=20"])
    assert table["elo:k=20"]["log_loss"] == table["elo_copy:k=20"]["log_loss"]


def test_evaluate_refuses_systems_of_other_data():
    with pytest.raises(ConfigError, match=r"'bridge_elo' rates boards, not two-player games"):
        evaluate(systems.tiny_data("games"), ["bridge_elo"])


def test_old_systems_table_warns():
    import fastrate.evaluate as ev

    with pytest.warns(DeprecationWarning, match=r"fastrate.systems.REGISTRY"):
        table = ev.SYSTEMS
    assert table["glicko2"] == ("fastrate.ratings.glicko2", "Glicko2Config")


@pytest.mark.parametrize("call", [
    *(pytest.param(lambda n=n: systems.get(n).rate([1, 2]), id=f"{n}.rate") for n in ALL),
    pytest.param(lambda: evaluate([1, 2], ["elo"]), id="evaluate"),
    pytest.param(lambda: systems.get("elo").module.rate(systems.tiny_data("games"), 3),
                 id="config"),
])
def test_one_exception_class_for_a_wrong_argument_type(call):
    """The same mistake (not the container or config a function takes) raises the same
    class everywhere: a TypeError, still caught by ``except ValueError`` as before."""
    from fastrate.errors import ArgumentTypeError

    with pytest.raises(ArgumentTypeError, match=r"got (list|int)") as info:
        call()
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)


def test_empty_integer_state_cells_keep_the_default():
    """A blank games_played / last_period column (all nulls) keeps the defaults instead
    of failing: every state column treats a missing value the same way."""
    import pyarrow as pa

    games = Games.from_arrays(["a", "b"], ["b", "c"], [1.0, 0.0])
    table = pa.table({"player": ["a", "b"], "rating": [1600.0, 1400.0],
                      "games_played": pa.nulls(2), "last_period": pa.nulls(2)})
    r = systems.get("elo").rate(games, initial=table)
    assert r.games_played.tolist() == [1, 2, 1]
    partly = table.set_column(2, "games_played", pa.array([3, None]))
    assert systems.get("elo").rate(games, initial=partly).games_played.tolist() == [4, 2, 1]


@pytest.mark.parametrize("name", MATCHES)
def test_match_systems_give_the_same_bits_with_one_and_two_threads(name):
    """Every system that rates matches is deterministic whatever the thread count."""
    import numba

    from fastrate.data import Matches

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here")
    data = Matches.from_arrays(**_random_matches(200, 14, seed=9))
    entry = systems.get(name)
    before = numba.get_num_threads()
    try:
        runs = []
        for threads in (1, 2):
            numba.set_num_threads(threads)
            r = entry.rate(data)
            runs.append((r.predictions, r.pair_predictions, *r.columns().values()))
    finally:
        numba.set_num_threads(before)
    for a, b in zip(*runs):
        if a.dtype.kind == "f":
            assert a.tobytes() == b.tobytes()
        else:
            np.testing.assert_array_equal(a, b)



@pytest.mark.parametrize("name", MATCHES)
def test_match_predictions_stay_finite_in_a_wide_field(name):
    """A 40-player free-for-all whose ratings span 40,000 points: every prediction is a
    finite probability (strengths that underflow must not give 0/0)."""
    from fastrate.data import Matches

    players = [f"p{i}" for i in range(40)]
    m = Matches.from_arrays([0] * 40 + [1] * 40, None, players + players,
                            rank=list(range(1, 41)) * 2)
    spec = name if name != "elom" else systems.get("elom").config_class(
        base=tuple(float(x) for x in np.linspace(30, -30, 40)))
    r = systems.SystemSpec.of(spec).rate(m, initial={p: 1000.0 * i for i, p in
                                                     enumerate(players)})
    for values in (r.predictions, r.pair_predictions, r.rating):
        assert np.isfinite(values).all()
    assert ((r.pair_predictions >= 0) & (r.pair_predictions <= 1)).all()


def test_two_player_systems_rate_two_player_matches():
    from fastrate.data import Matches

    games = Games.from_arrays(["a", "b", "c"], ["b", "c", "a"], [1.0, 1.0, 0.0])
    for name in GAMES:
        via = systems.get(name).rate(Matches.from_games(games))
        direct = systems.get(name).rate(Matches.from_games(games).to_games())
        np.testing.assert_array_equal(via.rating, direct.rating)
    with pytest.raises(InputError, match=r"only matches of two one-player teams"):
        systems.get("elo").rate(systems.tiny_data("matches"))
