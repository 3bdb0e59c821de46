"""``rate(..., predictions=False)`` (final ratings only) for the Elo family that rates
matches: pairwise Elo, elom and Codeforces. The final-only run must be the full run's
state to the bit (every state column), without per-match outputs; continuing from a
saved state, the registry's entry point, the chunked path and ``fastrate rate`` without
``--predictions`` must all take it and give the same ratings."""

from __future__ import annotations

import functools

import numpy as np
import pyarrow.csv as pacsv
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fastrate import streaming, systems
from fastrate.cli import main
from fastrate.data import Matches
from fastrate.ratings import codeforces, elom, pairwise_elo
from fastrate.report.history import slice_data

MODULES = {"pairwise_elo": pairwise_elo, "elom": elom, "codeforces": codeforces}
CONFIGS = {
    "pairwise_elo": [pairwise_elo.PairwiseEloConfig(),
                     pairwise_elo.PairwiseEloConfig(k=10.0, scale=173.7, initial_rating=0.0)],
    "elom": [elom.ElomConfig(), elom.ElomConfig(k_games=3.0, base=(30.0, 0.0, -30.0, -40.0)),
             elom.ElomConfig(mode="score", k_games=0.0)],
    "codeforces": [codeforces.CodeforcesConfig(), codeforces.CodeforcesConfig(initial_rating=0)],
}


#: elom's base vector for matches of up to eight teams
ELOM8 = elom.ElomConfig(base=(40.0, 30.0, 20.0, 10.0, -10.0, -20.0, -30.0, -40.0))


def _config(name, max_teams):
    """The default config, or for elom one whose base vector covers ``max_teams``."""
    return ELOM8 if name == "elom" and max_teams > 4 else None


def _spy(monkeypatch, module, seen):
    """Record the ``predictions`` keyword of every call of ``module.rate`` (the wrapper
    keeps its signature, which the registry reads)."""
    rate = module.rate

    @functools.wraps(rate)
    def spy(*a, **kw):
        seen.append(kw.get("predictions", True))
        return rate(*a, **kw)

    monkeypatch.setattr(module, "rate", spy)


def _random_columns(rng, n, players, max_teams=4, max_size=3, weights=True, periods=True):
    """Long-format columns of ``n`` random matches among ``players``: 2 to ``max_teams``
    teams of 1 to ``max_size`` players, ties, weights 0 / 0.5 / 1 beside a first player
    of weight 1, scores, and periods of a few matches each."""
    cols = {k: [] for k in ("match", "team", "player", "rank", "weight", "score", "period")}
    period = 0
    for m in range(n):
        nt = int(rng.integers(2, max_teams + 1))
        size = int(rng.integers(1, max_size + 1))
        seats = rng.choice(players, nt * size, replace=False)
        rk = rng.integers(1, nt + 1, nt)
        period += int(rng.random() < 0.3)
        for t in range(nt):
            team_score = float(50000 - 10000 * rk[t] + rng.integers(0, 3))
            for k in range(size):
                cols["match"].append(m)
                cols["team"].append(t)
                cols["player"].append(f"p{seats[t * size + k]}")
                cols["rank"].append(int(rk[t]))
                cols["weight"].append(1.0 if k == 0 or not weights
                                      else float(rng.choice([0.0, 0.5, 1.0])))
                cols["score"].append(team_score)
                cols["period"].append(period)
    if not periods:
        del cols["period"]
    return cols


def _matches(cols, weights=True, score=False):
    kw = {k: cols[k] for k in ("period",) if k in cols}
    if weights:
        kw["weight"] = cols["weight"]
    if score:
        kw.update(score=cols["score"], higher_is_better=True)
    else:
        kw["rank"] = cols["rank"]
    return Matches.from_arrays(cols["match"], cols["team"], cols["player"], **kw)


def _assert_same_state(final, full):
    """Every state column (and the player index) equal to the bit; no per-match outputs."""
    assert final.predictions is None and final.pair_predictions is None
    assert list(final.players.names) == list(full.players.names)
    assert set(final.state) == set(full.state)
    for key in full.state:
        np.testing.assert_array_equal(final.state[key], full.state[key], err_msg=key)
    np.testing.assert_array_equal(final.rating, full.rating)
    np.testing.assert_array_equal(final.games_played, full.games_played)


def _by_name(r):
    return {name: (r.rating[i], r.games_played[i]) for i, name in enumerate(r.players.names)}


@pytest.mark.parametrize("name", list(MODULES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_final_only_is_the_full_run_to_the_bit(name, seed):
    rng = np.random.default_rng(seed)
    cols = _random_columns(rng, 400, 30)
    module = MODULES[name]
    for weights in (True, False):
        for config in CONFIGS[name]:
            m = _matches(cols, weights, score=getattr(config, "mode", "") == "score")
            full = module.rate(m, config)
            assert full.predictions is not None and full.pair_predictions is not None
            _assert_same_state(module.rate(m, config, predictions=False), full)
    # game by game (no periods) on 1v1, ffa8 and 2v2 without weights
    for max_teams, max_size in ((2, 1), (8, 1), (2, 2)):
        m = _matches(_random_columns(rng, 300, 40, max_teams, max_size, weights=False,
                                     periods=False), weights=False)
        config = _config(name, max_teams) or CONFIGS[name][0]
        _assert_same_state(module.rate(m, config, predictions=False), module.rate(m, config))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), players=st.integers(8, 20),
       max_teams=st.integers(2, 8), max_size=st.integers(1, 3), weights=st.booleans(),
       name=st.sampled_from(list(MODULES)))
def test_final_only_on_random_matches(seed, n, players, max_teams, max_size, weights, name):
    max_teams = min(max_teams, players // max_size)
    cols = _random_columns(np.random.default_rng(seed), n, players, max_teams, max_size)
    m = _matches(cols, weights)
    module = MODULES[name]
    config = _config(name, max_teams) or CONFIGS[name][0]
    _assert_same_state(module.rate(m, config, predictions=False), module.rate(m, config))


def _cut(m, at_period_start):
    """A match index near the middle; for elom the first match of a period."""
    h = m.n_matches // 2
    if at_period_start:
        h = int(np.searchsorted(m.period, m.period[h], side="left")) or h
    return h


@pytest.mark.parametrize("name", list(MODULES))
def test_continuing_from_a_saved_state_in_final_only_mode(name):
    """Half the matches, then the rest with ``initial=`` the first half's result (or its
    table), all final-only: the full run's ratings and games played to the bit."""
    module = MODULES[name]
    cols = _random_columns(np.random.default_rng(5), 300, 25)
    m = _matches(cols)
    h = _cut(m, name == "elom")
    first, rest = slice_data(m, 0, h), slice_data(m, h, m.n_matches)
    full = module.rate(m)
    saved = module.rate(first, predictions=False)
    assert saved.predictions is None
    for initial in (saved, saved.to_arrow(), module.rate(first)):
        cont = module.rate(rest, initial=initial, predictions=False)
        assert cont.predictions is None and cont.pair_predictions is None
        want = _by_name(full)
        got = _by_name(cont)
        assert got.keys() == want.keys()
        for p, (r, g) in want.items():
            assert got[p][0] == r and got[p][1] == g, p
        # and the same bits as the continuation with predictions
        _assert_same_state(cont, module.rate(rest, initial=initial))


@pytest.mark.parametrize("name", list(MODULES))
def test_the_registry_takes_the_final_only_path(name, monkeypatch):
    system = systems.get(name)
    assert system.final_only
    m = _matches(_random_columns(np.random.default_rng(8), 200, 20))
    final = system.rate(m, predictions=False)
    full = system.rate(m)
    assert full.predictions is not None
    _assert_same_state(final, full)
    spec = systems.SystemSpec.parse(name)
    _assert_same_state(spec.rate(m, predictions=False), spec.rate(m))
    # the keyword reaches the module
    seen = []
    _spy(monkeypatch, MODULES[name], seen)
    system.rate(m, predictions=False)
    assert seen == [False]


def test_codeforces_predictions_and_pair_predictions():
    """``predictions=False`` wins over ``pair_predictions``; ``pair_predictions=False``
    alone keeps the team predictions (an empty pair array, as before)."""
    m = _matches(_random_columns(np.random.default_rng(4), 150, 20))
    full = codeforces.rate(m)
    no_pairs = codeforces.rate(m, pair_predictions=False)
    assert no_pairs.pair_predictions.shape == (0,)
    np.testing.assert_array_equal(no_pairs.predictions, full.predictions)
    for pairs in (True, False):
        _assert_same_state(codeforces.rate(m, predictions=False, pair_predictions=pairs),
                           full)


@pytest.mark.parametrize("name", list(MODULES))
def test_chunked_runs_use_final_only_and_match_the_whole_run(name, tmp_path, monkeypatch):
    cols = _random_columns(np.random.default_rng(6), 200, 20, weights=False)
    path = tmp_path / "long.csv"
    pacsv.write_csv(_table(cols), path)
    whole = systems.SystemSpec.parse(name).rate(_matches(cols, weights=False))
    seen = []
    _spy(monkeypatch, MODULES[name], seen)
    chunked = streaming.rate_chunks(path, name, chunk_rows=97, period="period")
    assert len(seen) > 1 and not any(seen)
    want, got = _by_name(whole), _by_name(chunked)
    assert want == got
    # with the predictions wanted, each part's come out and are the whole run's
    parts = []
    streaming.rate_chunks(path, name, chunk_rows=97, period="period",
                          on_predictions=lambda part, r: parts.append(r.predictions))
    assert seen[-1] is True
    np.testing.assert_array_equal(np.concatenate(parts), whole.predictions)


def _table(cols):
    import pyarrow as pa

    return pa.table({k: cols[k] for k in ("match", "team", "player", "rank", "period")})


@pytest.mark.parametrize("name", list(MODULES))
def test_cli_rate_without_predictions_writes_the_same_ratings(name, tmp_path):
    """``fastrate rate`` without ``--predictions`` (the final-only path) writes the same
    file as the run with ``--predictions``; a chunked run too."""
    cols = _random_columns(np.random.default_rng(9), 150, 20, weights=False)
    path = tmp_path / "long.csv"
    pacsv.write_csv(_table(cols), path)

    def run(*args):
        result = CliRunner().invoke(main, ["rate", str(path), "--system", name,
                                           "--period", "period", *args])
        assert result.exit_code == 0, (result.output, result.exception)

    run("-o", str(tmp_path / "final.csv"))
    run("-o", str(tmp_path / "full.csv"), "--predictions", str(tmp_path / "pred.csv"))
    run("-o", str(tmp_path / "chunked.csv"), "--chunk-rows", "50")
    final = (tmp_path / "final.csv").read_bytes()
    assert final == (tmp_path / "full.csv").read_bytes()
    assert final == (tmp_path / "chunked.csv").read_bytes()
    assert pacsv.read_csv(tmp_path / "pred.csv").num_rows == len(set(zip(cols["match"],
                                                                          cols["team"])))
