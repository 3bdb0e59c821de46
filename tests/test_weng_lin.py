"""Weng-Lin (SPEC §2.2): openskill's fixtures for all five models, the live openskill
package on random matches, the pure-Python reference from the paper, the two places
where fastrate follows the paper and not openskill, invariants, predictions, config."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import weng_lin as ref

import fastrate
from fastrate import systems
from fastrate.data import Matches
from fastrate.errors import ConfigError, FastrateWarning, InputError, InputTypeError
from fastrate.ratings import weng_lin as wl
from fastrate.ratings.weng_lin import MODELS, WengLinConfig

openskill_models = pytest.importorskip("openskill.models")
OS_CLASS = {"plackett_luce": openskill_models.PlackettLuce,
            "bradley_terry_full": openskill_models.BradleyTerryFull,
            "bradley_terry_part": openskill_models.BradleyTerryPart,
            "thurstone_mosteller_full": openskill_models.ThurstoneMostellerFull,
            "thurstone_mosteller_part": openskill_models.ThurstoneMostellerPart}


def _match(teams, ranks=None, scores=None, weights=None, match=0):
    """Long-format columns of one match: ``teams`` lists of player names."""
    cols = {"match": [], "team": [], "player": [], "value": [], "weight": []}
    vals = ranks if ranks is not None else scores
    for t, team in enumerate(teams):
        for j, p in enumerate(team):
            cols["match"].append(match)
            cols["team"].append(t)
            cols["player"].append(p)
            cols["value"].append(vals[t])
            cols["weight"].append(1.0 if weights is None else weights[t][j])
    return cols


def _matches(cols_list, by_score=False, weighted=False):
    cols = {k: sum((c[k] for c in cols_list), []) for k in cols_list[0]}
    key = "score" if by_score else "rank"
    return Matches.from_arrays(cols["match"], cols["team"], cols["player"],
                               weight=cols["weight"] if weighted else None,
                               **{key: cols["value"]})


def _init(start):
    """Saved state of players ``name -> (mu, sigma)``."""
    return {"player": list(start), "rating": [0.0] * len(start),
            "mu": [v[0] for v in start.values()], "sigma": [v[1] for v in start.values()]}


def _state(r, name):
    i = r.players.id_of(name)
    return r.state["mu"][i], r.state["sigma"][i]


# ----------------------------------------------------------------------------------
# 1. openskill's fixtures (tests/models/data/*.json of openskill.py 6.2.0)

FIXTURE_FILES = {m: m.replace("_", "") for m in MODELS}
#: the calls of generate.py: team sizes, ranks or scores, weights, options
SCENARIOS = {
    "normal": dict(sizes=[1, 2], rank=[1, 2]),
    "ranks": dict(sizes=[1, 2, 1, 2], rank=[2, 1, 4, 3]),
    "scores": dict(sizes=[1, 2], score=[1, 2]),
    "margins": dict(sizes=[2] * 5, score=[10, 5, 5, 2, 1],
                    weights=[[1, 2], [2, 1], [1, 2], [3, 1], [1, 2]],
                    cfg=dict(margin=2.0, margin_rule="openskill", weight_rule="openskill")),
    "limit_sigma": dict(sizes=[1, 2, 3], rank=[2, 1, 3], cfg=dict(limit_sigma=True)),
    "ties": dict(sizes=[1, 2, 3], rank=[1, 2, 1]),
    # openskill's weights are normalised per team to [1, 2], so only their order within
    # a team counts: (w + 1) / 4 maps its 0..3 into (0, 1] and keeps 0 a real weight
    "weights": dict(sizes=[3, 2, 3, 2], rank=[2, 1, 4, 3],
                    weights=[[2, 0, 0], [1, 2], [0, 0, 1], [0, 1]],
                    cfg=dict(weight_rule="openskill")),
    "balance": dict(sizes=[2, 2], rank=[1, 2], cfg=dict(balance=True)),
}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_openskill_fixtures(shared_data, model, scenario):
    data = json.loads((shared_data / "openskill_fixtures" / f"{FIXTURE_FILES[model]}.json")
                      .read_text())
    sc = SCENARIOS[scenario]
    teams = [[f"t{t}p{j}" for j in range(n)] for t, n in enumerate(sc["sizes"])]
    weights = None
    if "weights" in sc:
        weights = [[(w + 1) / 4 for w in team] for team in sc["weights"]]
    cols = _match(teams, ranks=sc.get("rank"), scores=sc.get("score"), weights=weights)
    matches = _matches([cols], by_score="score" in sc, weighted=weights is not None)
    config = WengLinConfig(model=model, mu=data["model"]["mu"], sigma=data["model"]["sigma"],
                           **sc.get("cfg", {}))
    r = wl.rate(matches, config)
    for t, team in enumerate(teams):
        for j, name in enumerate(team):
            want = data[scenario][f"team_{t + 1}"][j]
            got = _state(r, name)
            assert got == pytest.approx((want["mu"], want["sigma"]), rel=1e-12, abs=1e-12)


# ----------------------------------------------------------------------------------
# 2. random matches: the live openskill package and the pure-Python reference


@st.composite
def match_sequences(draw, max_matches=4, weights=False, scores=False):
    """1-4 matches among 9 players: (teams in stored order, ranks, scores, weights)."""
    out = []
    for _ in range(draw(st.integers(1, max_matches))):
        k = draw(st.integers(2, 4))
        sizes = [draw(st.integers(1, 3)) for _ in range(k)]
        pool = draw(st.permutations([f"p{i}" for i in range(9)]))
        if sum(sizes) > 9:
            sizes = [1] * k
        teams, at = [], 0
        for n in sizes:
            teams.append(list(pool[at:at + n]))
            at += n
        if scores:
            sc = sorted((draw(st.integers(0, 12)) for _ in range(k)), reverse=True)
            ranks = [1 + sum(x > s for x in sc) for s in sc]
        else:
            sc = None
            ranks = sorted(draw(st.integers(1, k)) for _ in range(k))
            ranks = [1 + sum(x < r for x in ranks) for r in ranks]
        ws = None
        if weights:
            ws = [[draw(st.sampled_from([0.25, 0.5, 1.0])) for _ in team] for team in teams]
        out.append((teams, ranks, sc, ws))
    return out


def _fastrate_run(seq, config, by_score=False, weighted=False):
    cols = [_match(t, ranks=None if by_score else r, scores=s if by_score else None,
                   weights=w, match=m) for m, (t, r, s, w) in enumerate(seq)]
    return wl.rate(_matches(cols, by_score=by_score, weighted=weighted), config)


def _openskill_run(seq, model, by_score=False, weighted=False):
    state = {}
    for teams, ranks, sc, ws in seq:
        objs = [[model.rating(*state[p]) if p in state else model.rating() for p in t]
                for t in teams]
        kw = {"scores": list(map(float, sc))} if by_score else {"ranks": ranks}
        if weighted:
            kw["weights"] = ws
        out = model.rate(objs, **kw)
        for t, team in zip(teams, out):
            for p, o in zip(t, team):
                state[p] = (o.mu, o.sigma)
    return state


def _reference_run(seq, config, by_score=False, weighted=False):
    opts = {k: getattr(config, k) for k in ref.DEFAULTS if hasattr(config, k)}
    opts["has_weights"] = weighted
    state, preds, pairs = {}, [], []
    for teams, ranks, sc, ws in seq:
        seats = [[[*state.get(p, (config.mu, config.sigma)), ws[t][j] if weighted else 1.0]
                  for j, p in enumerate(team)] for t, team in enumerate(teams)]
        new, (pred, pair) = ref.rate_match(seats, ranks, sc if by_score else None, **opts)
        preds += pred
        pairs += pair
        for t, team in enumerate(teams):
            for j, p in enumerate(team):
                if seats[t][j][2] > 0:
                    state[p] = tuple(new[t][j])
    return state, np.array(preds), np.array(pairs)


@settings(max_examples=40)
@given(seq=match_sequences(), model=st.sampled_from(MODELS), tau=st.sampled_from([0.0, 0.5]),
       limit=st.booleans(), balance=st.booleans())
def test_equals_live_openskill(seq, model, tau, limit, balance):
    """Random teams, ranks and ties: openskill's rate() and fastrate agree to 1e-9
    (ties included: openskill's averaging of tied teams is a no-op, section 3)."""
    config = WengLinConfig(model=model, tau=tau, limit_sigma=limit, balance=balance)
    os_model = OS_CLASS[model](tau=tau, limit_sigma=limit, balance=balance)
    want = _openskill_run(seq, os_model)
    r = _fastrate_run(seq, config)
    for p, ms in want.items():
        assert _state(r, p) == pytest.approx(ms, rel=1e-9, abs=1e-9)


@settings(max_examples=30)
@given(seq=match_sequences(weights=True, scores=True), model=st.sampled_from(MODELS),
       margin=st.sampled_from([0.0, 1.5, 4.0]))
def test_equals_live_openskill_with_its_weights_and_margins(seq, model, margin):
    """openskill's own weight and margin rules (weight_rule/margin_rule="openskill"),
    ranks from scores."""
    config = WengLinConfig(model=model, margin=margin, margin_rule="openskill",
                           weight_rule="openskill")
    want = _openskill_run(seq, OS_CLASS[model](margin=margin), by_score=True, weighted=True)
    r = _fastrate_run(seq, config, by_score=True, weighted=True)
    # Thurstone-Mosteller's tie functions divide by Phi(eps - |x|) - Phi(-eps - |x|), a
    # difference of two numbers near 1/2 when the teams' variance is large (weights
    # rescaled to [1, 2] make it so): a run of all-tie matches loses about two digits
    # per match in both implementations, and hypothesis found 1.2e-9 between them
    tol = 1e-8 if model.startswith("thurstone") else 1e-9
    for p, ms in want.items():
        assert _state(r, p) == pytest.approx(ms, rel=tol, abs=tol)


@settings(max_examples=60)
@given(seq=match_sequences(weights=True, scores=True), model=st.sampled_from(MODELS),
       margin=st.sampled_from([0.0, 2.0]), predict=st.sampled_from(wl.PREDICTS),
       weight_rule=st.sampled_from(wl.WEIGHT_RULES), balance=st.booleans(),
       limit=st.booleans())
def test_equals_the_reference(seq, model, margin, predict, weight_rule, balance, limit):
    """Every option against the paper-based reference: states, predictions, pairs."""
    config = WengLinConfig(model=model, margin=margin, predict=predict,
                           weight_rule=weight_rule, balance=balance, limit_sigma=limit)
    want, preds, pairs = _reference_run(seq, config, by_score=True, weighted=True)
    r = _fastrate_run(seq, config, by_score=True, weighted=True)
    for p, ms in want.items():
        assert _state(r, p) == pytest.approx(ms, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(r.predictions, preds, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(r.pair_predictions, pairs, rtol=1e-9, atol=1e-12)


@settings(max_examples=30)
@given(seq=match_sequences(), model=st.sampled_from(MODELS),
       predict=st.sampled_from(wl.PREDICTS), limit=st.booleans())
def test_fast_paths_equal_the_reference(seq, model, predict, limit):
    """1v1 and free-for-all data (the specialised kernels) against the reference."""
    seq = [([[t[0]] for t in teams], ranks, s, w) for teams, ranks, s, w in seq]
    config = WengLinConfig(model=model, predict=predict, limit_sigma=limit)
    for part in (seq, [([t[0], t[1]], r[:2] if r[1] != r[0] else [1, 1], s, w)
                       for t, r, s, w in seq]):
        want, preds, pairs = _reference_run(part, config)
        r = _fastrate_run(part, config)
        for p, ms in want.items():
            assert _state(r, p) == pytest.approx(ms, rel=1e-9, abs=1e-9)
        np.testing.assert_allclose(r.predictions, preds, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(r.pair_predictions, pairs, rtol=1e-9, atol=1e-12)


def test_fast_paths_equal_the_general_kernel():
    rng = np.random.default_rng(3)
    n, players = 400, 30
    for k, size in ((2, 1), (4, 1), (2, 2), (3, 3)):
        cols = {"match": np.repeat(np.arange(n), k * size), "player": [], "rank": []}
        for _ in range(n):
            cols["player"] += [f"p{i}" for i in rng.choice(players, k * size, replace=False)]
            cols["rank"] += list(np.repeat(rng.integers(1, k + 1, k), size))
        team = np.repeat(np.arange(n * k), size) if size > 1 else None
        plain = Matches.from_arrays(cols["match"], team, cols["player"], rank=cols["rank"])
        for model in MODELS:  # the 1v1 path, the free-for-all and team paths
            config = WengLinConfig(model=model, limit_sigma=True)
            fast = wl.rate(plain, config)
            prm = wl._params(config, False)
            m = plain
            st_ = np.empty(2 * len(m.players))
            st_[0::2], st_[1::2] = config.mu, config.sigma ** 2
            pred = np.empty(m.n_teams)
            pair = np.empty(int(m.pair_offsets()[-1]))
            gp = np.zeros(len(m.players), dtype=np.int64)
            wl._weng_lin_kernel(m.match_team_offsets, m.team_player_offsets, m.player,
                                m.rank, np.empty(0), np.empty(0), st_, pred, pair, gp, prm)
            np.testing.assert_array_equal(fast.games_played, gp)
            np.testing.assert_allclose(fast.state["mu"], st_[0::2], rtol=1e-12)
            np.testing.assert_allclose(fast.state["sigma"], np.sqrt(st_[1::2]), rtol=1e-12)
            np.testing.assert_allclose(fast.predictions, pred, rtol=1e-12)
            np.testing.assert_allclose(fast.pair_predictions, pair, rtol=1e-12)


def _random_plain(rng, n, players, k, size, ties=True):
    """``n`` matches of ``k`` teams of ``size`` among ``players`` (ties when asked)."""
    cols = {"match": np.repeat(np.arange(n), k * size), "player": [], "rank": []}
    for _ in range(n):
        cols["player"] += [f"p{i}" for i in rng.choice(players, k * size, replace=False)]
        rk = rng.integers(1, k + 1, k) if ties else rng.permutation(k) + 1
        cols["rank"] += list(np.repeat(rk, size))
    team = np.repeat(np.arange(n * k), size) if size > 1 else None
    return Matches.from_arrays(cols["match"], team, cols["player"], rank=cols["rank"])


def _assert_final_only_same_bits(m, config):
    full = wl.rate(m, config)
    final = wl.rate(m, config, predictions=False)
    assert final.predictions is None and final.pair_predictions is None
    for key in ("mu", "sigma", "rating", "games_played"):
        np.testing.assert_array_equal(final.state[key], full.state[key], err_msg=key)
    np.testing.assert_array_equal(final.exact["var"], full.exact["var"])


@settings(max_examples=60)
@given(seq=match_sequences(weights=True, scores=True), model=st.sampled_from(MODELS),
       margin=st.sampled_from([0.0, 2.0]), predict=st.sampled_from(wl.PREDICTS),
       weight_rule=st.sampled_from(wl.WEIGHT_RULES), balance=st.booleans(),
       limit=st.booleans(), weighted=st.booleans())
def test_final_only_is_the_full_run_to_the_bit(seq, model, margin, predict, weight_rule,
                                               balance, limit, weighted):
    """``predictions=False`` (final ratings only): the same bits for every option, ties,
    weights (partial play) and margins included."""
    config = WengLinConfig(model=model, margin=margin, predict=predict,
                           weight_rule=weight_rule, balance=balance, limit_sigma=limit)
    cols = [_match(t, scores=s, weights=w, match=i) for i, (t, r, s, w) in enumerate(seq)]
    _assert_final_only_same_bits(_matches(cols, by_score=True, weighted=weighted), config)


@pytest.mark.parametrize("k,size", [(2, 1), (2, 2), (4, 1), (8, 1), (3, 3)])
def test_final_only_fast_paths_are_the_full_run_to_the_bit(k, size):
    """The 1v1, team and free-for-all kernels without their per-match outputs, every
    model and prediction form, on many matches with ties; and the registry's final-only
    entry point (``fastrate rate`` without ``--predictions``, chunked runs)."""
    m = _random_plain(np.random.default_rng(k * 10 + size), 300, 40, k, size)
    for model in MODELS:
        for predict in wl.PREDICTS:
            _assert_final_only_same_bits(m, WengLinConfig(model=model, predict=predict,
                                                          limit_sigma=model == "plackett_luce"))
    assert systems.get("weng_lin").final_only
    assert systems.get("weng_lin").rate(m, predictions=False).predictions is None


def test_lanes_equal_each_match_alone():
    """Consecutive free-for-alls with no player in common run side by side in lanes
    (Plackett-Luce, Bradley-Terry); each must come out exactly as when it is rated alone
    (ties, far-apart players and limit_sigma included), predictions too."""
    rng = np.random.default_rng(11)
    match, player, rank, layout, start = [], [], [], [], {}
    next_id = 0
    for m in range(60):
        k = 6 if m < 20 else 8 if m < 40 else int(rng.integers(3, 9))  # runs of lanes
        ranks = np.sort(rng.integers(1, k + 1, k)) if m % 3 else np.arange(1, k + 1)
        names = [f"p{next_id + i}" for i in range(k)]
        next_id += k
        for i, name in enumerate(names):
            match.append(m)
            player.append(name)
            rank.append(int(ranks[i]))
            start[name] = (float(rng.choice([25.0, 25.0, 900.0, -900.0])),
                           float(rng.uniform(0.5, 8.0)))
        layout.append((names, [int(r) for r in ranks]))
    initial = _init(start)
    together_m = Matches.from_arrays(match, None, player, rank=rank)
    for model in ("plackett_luce", "bradley_terry_full", "bradley_terry_part"):
        config = WengLinConfig(model=model, limit_sigma=True, window=2)
        together = wl.rate(together_m, config, initial=initial)
        row = 0
        for names, ranks in layout:
            k = len(names)
            alone = wl.rate(Matches.from_arrays([0] * k, None, names, rank=ranks), config,
                            initial=initial)
            assert together.predictions[row:row + k].tolist() == alone.predictions.tolist()
            row += k
            for name in names:
                assert _state(together, name) == _state(alone, name), (model, name)


def _random_team_matches(rng, n, teams_of) -> Matches:
    """``n`` matches of ``teams_of(m)`` teams of 1-3 players, sorted random ranks (ties
    among them), players drawn from 30 (even matches: often in consecutive matches) or
    400 (odd ones)."""
    cols = {"match": [], "team": [], "player": [], "rank": []}
    for m in range(n):
        k = teams_of(m)
        sizes = rng.integers(1, 4, k)
        seats = rng.choice(400 if m % 2 else 30, int(sizes.sum()), replace=False)
        ranks = np.sort(rng.integers(1, k + 1, k))
        at = 0
        for t in range(k):
            for _ in range(sizes[t]):
                cols["match"].append(m)
                cols["team"].append(t)
                cols["player"].append(f"p{seats[at]}")
                cols["rank"].append(int(ranks[t]))
                at += 1
    return Matches.from_arrays(cols["match"], cols["team"], cols["player"], rank=cols["rank"])


@pytest.mark.parametrize("two_teams", [False, True])
@pytest.mark.parametrize("limit", [False, True])
def test_team_lanes_equal_the_general_kernel(limit, two_teams):
    """Team matches in lanes (Plackett-Luce, Bradley-Terry) against the general kernel:
    the same bits for the ratings and the predictions (teams of 1-3 players, 2-5 teams,
    ties, consecutive matches sharing players or not). ``two_teams``: every match has
    two teams, which runs the two-team lanes (:func:`_lanes_two_teams`)."""
    rng = np.random.default_rng(8)
    mt = _random_team_matches(rng, 600, lambda m: 2 if m < 200 or two_teams
                              else int(rng.integers(2, 6)))
    assert (mt.n_teams == 2 * mt.n_matches) == two_teams
    for model in ("plackett_luce", "bradley_terry_full", "bradley_terry_part"):
        config = WengLinConfig(model=model, limit_sigma=limit, window=1 if two_teams else 2)
        fast = wl.rate(mt, config)
        prm = wl._params(config, False)
        st_ = np.empty(2 * len(mt.players))
        st_[0::2], st_[1::2] = config.mu, config.sigma ** 2
        pred = np.empty(mt.n_teams)
        pair = np.empty(int(mt.pair_offsets()[-1]))
        gp = np.zeros(len(mt.players), dtype=np.int64)
        wl._weng_lin_kernel(mt.match_team_offsets, mt.team_player_offsets, mt.player,
                            mt.rank, np.empty(0), np.empty(0), st_, pred, pair, gp, prm)
        np.testing.assert_array_equal(fast.exact["var"], st_[1::2])
        np.testing.assert_array_equal(fast.state["mu"], st_[0::2])
        np.testing.assert_array_equal(fast.games_played, gp)
        np.testing.assert_array_equal(fast.predictions, pred)
        np.testing.assert_array_equal(fast.pair_predictions, pair)


def test_1v1_lanes_equal_the_scalar_kernel():
    """1v1 games in lanes against the scalar 1v1 kernel, every model: the same bits,
    ties, limit_sigma, both prediction forms, consecutive games sharing players or not;
    for Thurstone-Mosteller also far-apart players (its guard Phi < eps) and exact
    ties of equal players (v~ at x = 0)."""
    rng = np.random.default_rng(6)
    n = 3000
    seats = np.concatenate([rng.choice(8 if g % 3 == 0 else 2000, 2, replace=False)
                            for g in range(n)])
    rank = np.where(rng.random((n, 2)) < 0.2, 1, [1, 2]).ravel()
    m = Matches.from_arrays(np.repeat(np.arange(n), 2), None, [f"p{x}" for x in seats],
                            rank=rank)
    for model in wl.MODELS:
        for predict in wl.PREDICTS:
            config = WengLinConfig(model=model, predict=predict,
                                   limit_sigma=predict == "normal")
            out = []
            for kern in (wl._lanes_1v1, wl._weng_lin_1v1):
                st_ = np.empty(2 * len(m.players))
                st_[0::2], st_[1::2] = config.mu, config.sigma ** 2
                st_[0:80:2] = np.linspace(-3000.0, 3000.0, 40)  # (the guard: far apart)
                pred = np.empty(m.n_teams)
                pair = np.empty(m.n_matches)
                gp = np.zeros(len(m.players), dtype=np.int64)
                kern(m.player, m.rank, st_, pred, pair, gp, wl._params(config, False))
                out.append((st_, pred, pair, gp))
            for a, b in zip(*out):
                np.testing.assert_array_equal(a, b)


def test_bradley_terry_lanes_equal_the_scalar_kernel():
    """The lanes' Bradley-Terry update against the scalar free-for-all kernel (which the
    Thurstone-Mosteller models still use): the same bits, with and without predictions."""
    rng = np.random.default_rng(5)
    cols = {"match": [], "player": [], "rank": []}
    for m in range(500):
        k = int(rng.integers(2, 9))
        cols["match"] += [m] * k
        cols["player"] += [f"p{i}" for i in rng.choice(50, k, replace=False)]
        cols["rank"] += sorted(rng.integers(1, k + 1, k).tolist())
    m = Matches.from_arrays(cols["match"], None, cols["player"], rank=cols["rank"])
    for model in ("bradley_terry_full", "bradley_terry_part"):
        for predict in (True, False):
            config = WengLinConfig(model=model, limit_sigma=predict)
            out = []
            for lanes in (True, False):
                st_ = np.empty(2 * len(m.players))
                st_[0::2], st_[1::2] = config.mu, config.sigma ** 2
                pred = np.empty(m.n_teams if predict else 0)
                pair = np.empty(int(m.pair_offsets()[-1]) if predict else 0)
                gp = np.zeros(len(m.players), dtype=np.int64)
                prm = wl._params(config, False, predict)
                if lanes:
                    wl._lanes(m.match_team_offsets, m.team_player_offsets, m.player, m.rank,
                              st_, pred, pair, gp, prm, False)
                else:
                    wl._pairwise_ffa(m.match_team_offsets, m.player, m.rank, st_, pred, pair,
                                     gp, prm)
                out.append((st_, pred, pair, gp))
            for a, b in zip(*out):
                np.testing.assert_array_equal(a, b)


# ----------------------------------------------------------------------------------
# 3. where fastrate follows the paper, not openskill


def test_ties_follow_the_paper_not_openskills_averaging():
    """openskill 6.2 means to give tied teams the mean of their mu changes, but its
    averaging reads the players after it has already updated them, so it adds 0 to
    every mu: a no-op. The paper has no averaging: tied teams are ``A_q`` (PL) or
    ``s = 1/2`` (BT), each with its own update. fastrate does the paper's update, which
    is also what openskill computes; the tied teams' changes are not equal."""
    teams = [["a"], ["b", "c"], ["d"]]
    start = {"a": (30.0, 5.0), "b": (20.0, 8.0), "c": (22.0, 6.0), "d": (25.0, 3.0)}
    init = _init(start)
    for model in ("plackett_luce", "bradley_terry_full", "thurstone_mosteller_full"):
        config = WengLinConfig(model=model, tau=0.0)
        r = wl.rate(_matches([_match(teams, ranks=[1, 1, 3])]), config, initial=init)
        # the paper's formulas, written out for the first two tied teams
        b2 = config.beta ** 2
        mu = [30.0, 42.0, 25.0]
        var = [25.0, 100.0, 9.0]
        if model == "plackett_luce":
            c = math.sqrt(sum(v + b2 for v in var))
            e = [math.exp(m / c) for m in mu]
            s_all = sum(e)
            # q ranges over the two tied teams (A = 2, S = all) for teams 0 and 1
            om = [var[i] / c * ((1 - e[i] / s_all) / 2 - e[i] / s_all / 2) for i in (0, 1)]
        elif model == "bradley_terry_full":
            om = []
            for i in (0, 1):
                tot = 0.0
                for q, s in ((1 - i, 0.5), (2, 1.0)):
                    c = math.sqrt(var[i] + var[q] + 2 * b2)
                    tot += var[i] / c * (s - 1 / (1 + math.exp((mu[q] - mu[i]) / c)))
                om.append(tot)
        else:
            om = []
            for i in (0, 1):
                tot = 0.0
                for q, tie in ((1 - i, True), (2, False)):
                    c = math.sqrt(var[i] + var[q] + 2 * b2)
                    x, t = (mu[i] - mu[q]) / c, 0.1 / c
                    tot += var[i] / c * (ref.vt(x, t) if tie else ref.v(x, t))
                om.append(tot)
        got_a = _state(r, "a")[0] - 30.0
        got_b = _state(r, "b")[0] - 20.0
        assert got_a == pytest.approx(om[0], rel=1e-12)
        assert got_b == pytest.approx(om[1] * 64.0 / 100.0, rel=1e-12)
        # not averaged: the two tied teams' changes differ
        assert abs(got_a - (got_b + _state(r, "c")[0] - 22.0)) > 1e-3


def _one_v_one(model, margin_rule, d, margin=3.0):
    config = WengLinConfig(model=model, margin=margin, margin_rule=margin_rule, tau=0.0)
    init = _init({"under": (20.0, 6.0), "fav": (30.0, 4.0)})
    m = _matches([_match([["under"], ["fav"]], scores=[float(d), 0.0])], by_score=True)
    return wl.rate(m, config, initial=init)


@pytest.mark.parametrize("model", MODELS)
def test_margins_count_as_evidence_not_openskills_shrinking_rule(model):
    """openskill divides the skill difference by ``log1p(d / margin)``, so an underdog
    who wins by more gains less (and a win by just over the margin counts more than by
    a bit more). fastrate counts a win by ``d`` as ``1 + ln(d / margin)`` wins: the
    paper's terms of that comparison times the factor, so the underdog's gain grows."""
    gains = {rule: [_state(_one_v_one(model, rule, d), "under")[0] - 20.0
                    for d in (3.0, 6.0, 12.0, 24.0)] for rule in wl.MARGIN_RULES}
    assert np.all(np.diff(gains["evidence"]) > 0)
    assert np.all(np.diff(gains["openskill"][1:]) < 0)  # openskill: shrinking
    # the paper's formula with the factor, Bradley-Terry / Plackett-Luce, two teams
    if model in ("plackett_luce", "bradley_terry_full", "bradley_terry_part"):
        for d, g in zip((3.0, 6.0, 12.0, 24.0), gains["evidence"]):
            c = math.sqrt(36.0 + 16.0 + 2 * (25 / 6) ** 2)
            p = 1 / (1 + math.exp((30.0 - 20.0) / c))
            f = 1 + math.log(d / 3.0) if d > 3.0 else 1.0
            assert g == pytest.approx(f * 36.0 / c * (1 - p), rel=1e-12)
    # and openskill's own rule is reproduced on request
    os_model = OS_CLASS[model](margin=3.0, tau=0.0)
    for d, g in zip((3.0, 6.0, 12.0, 24.0), gains["openskill"]):
        out = os_model.rate([[os_model.rating(20.0, 6.0)], [os_model.rating(30.0, 4.0)]],
                            scores=[d, 0.0])
        assert g == pytest.approx(out[0][0].mu - 20.0, rel=1e-12)


# ----------------------------------------------------------------------------------
# 4. invariants and closed forms


def test_bradley_terry_1v1_closed_form():
    config = WengLinConfig(model="bradley_terry_full")
    init = _init({"a": (27.0, 5.0), "b": (24.0, 7.0)})
    r = wl.rate(_matches([_match([["b"], ["a"]], ranks=[1, 2])]), config, initial=init)
    b2, t2 = config.beta ** 2, config.tau ** 2
    va, vb = 25.0 + t2, 49.0 + t2
    c = math.sqrt(va + vb + 2 * b2)
    p_b = 1 / (1 + math.exp((27.0 - 24.0) / c))
    assert _state(r, "b")[0] == pytest.approx(24.0 + vb / c * (1 - p_b), rel=1e-13)
    assert _state(r, "a")[0] == pytest.approx(27.0 - va / c * (1 - p_b), rel=1e-13)
    d = p_b * (1 - p_b) / c ** 3
    assert _state(r, "b")[1] == pytest.approx(math.sqrt(vb * (1 - math.sqrt(vb) * vb * d)),
                                              rel=1e-13)
    assert _state(r, "a")[1] == pytest.approx(math.sqrt(va * (1 - math.sqrt(va) * va * d)),
                                              rel=1e-13)
    assert r.predictions[0] == pytest.approx(p_b, rel=1e-13)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("rule", wl.WEIGHT_RULES)
def test_weight_zero_player_changes_nothing(model, rule):
    teams = [["a", "b"], ["c"], ["d", "e"]]
    with_zero = _match([["a", "b", "z"], ["c"], ["d", "e"]], ranks=[1, 2, 2],
                       weights=[[1.0, 0.5, 0.0], [1.0], [1.0, 1.0]])
    without = _match(teams, ranks=[1, 2, 2], weights=[[1.0, 0.5], [1.0], [1.0, 1.0]])
    config = WengLinConfig(model=model, weight_rule=rule)
    r0 = wl.rate(_matches([with_zero], weighted=True), config)
    r1 = wl.rate(_matches([without], weighted=True), config)
    for p in "abcde":
        assert _state(r0, p) == _state(r1, p)
    assert _state(r0, "z") == (config.mu, config.sigma)
    assert r0.games_played[r0.players.id_of("z")] == 0
    np.testing.assert_array_equal(r0.predictions, r1.predictions)


@settings(max_examples=30)
@given(seq=match_sequences(max_matches=3), model=st.sampled_from(
    ["plackett_luce", "bradley_terry_full", "thurstone_mosteller_full"]),
    data=st.data())
def test_permuting_teams_and_players_permutes_results(seq, model, data):
    """Teams given in any order (the same ranks) and players in any order within a team
    give every player the same result (full-pairing models and Plackett-Luce, whose
    updates do not depend on the order of tied teams)."""
    config = WengLinConfig(model=model, balance=data.draw(st.booleans()))
    shuffled = []
    for teams, ranks, s, w in seq:
        order = data.draw(st.permutations(range(len(teams))))
        shuffled.append(([data.draw(st.permutations(teams[i])) for i in order],
                         [ranks[i] for i in order], s, w))
    a, b = _fastrate_run(seq, config), _fastrate_run(shuffled, config)
    # (players in another order sum a team's mu and sigma^2 in another order: last-bit
    # differences, which Thurstone-Mosteller's tie functions magnify, as they take the
    # difference of two nearly equal Phi values; 6e-12 relative on a hypothesis case)
    tol = 1e-9 if model.startswith("thurstone") else 1e-12
    for p in a.players.names:
        assert _state(a, p) == pytest.approx(_state(b, p), rel=tol, abs=tol)


def test_games_are_two_player_matches():
    from fastrate.data import Games

    games = Games.from_arrays(["a", "b", "a"], ["b", "c", "c"], [1.0, 0.5, 0.0])
    r = wl.rate(games)
    m = _matches([_match([["a"], ["b"]], ranks=[1, 2], match=0),
                  _match([["b"], ["c"]], ranks=[1, 1], match=1),
                  _match([["c"], ["a"]], ranks=[1, 2], match=2)])
    r2 = wl.rate(m)
    for p in "abc":
        assert _state(r, p) == _state(r2, p)


# ----------------------------------------------------------------------------------
# 5. predictions


def test_predictions_equal_openskill_with_normal_curve():
    config = WengLinConfig(predict="normal", tau=0.0)
    model = openskill_models.PlackettLuce()
    teams = [[(30.0, 4.0), (20.0, 6.0)], [(27.0, 8.0)], [(22.0, 2.0), (25.0, 3.0)]]
    objs = [[model.rating(m, s) for m, s in t] for t in teams]
    np.testing.assert_allclose(wl.predict_win(teams, config), model.predict_win(objs),
                               rtol=1e-12)
    assert wl.predict_draw(teams, config) == pytest.approx(model.predict_draw(objs), rel=1e-12)
    ranks, probs = wl.predict_rank(teams, config)
    assert ranks.tolist() == [r for r, _ in model.predict_rank(objs)]
    np.testing.assert_allclose(probs, [p for _, p in model.predict_rank(objs)], rtol=1e-12)
    two = teams[:2]
    assert wl.predict_win(two, config)[0] == pytest.approx(
        model.predict_win([objs[0], objs[1]])[0], rel=1e-12)


def test_logistic_predictions_are_plackett_luce():
    config = WengLinConfig(tau=0.0)
    teams = [[(30.0, 4.0)], [(27.0, 8.0)], [(22.0, 2.0)]]
    c = math.sqrt(16 + 64 + 4 + 3 * config.beta ** 2)
    e = np.exp(np.array([30.0, 27.0, 22.0]) / c)
    np.testing.assert_allclose(wl.predict_win(teams, config), e / e.sum(), rtol=1e-13)
    p = wl.expected_score(30.0, 4.0, 27.0, 8.0, config)
    assert p == pytest.approx(wl.predict_win(teams[:2], config)[0], rel=1e-13)


def test_rate_predictions_are_the_pre_match_predict_win():
    seq = [_match([["a", "b"], ["c"], ["d"]], ranks=[1, 2, 3], match=0),
           _match([["c"], ["a", "d"], ["b"]], ranks=[1, 2, 2], match=1)]
    for predict in wl.PREDICTS:
        config = WengLinConfig(predict=predict)
        r = wl.rate(_matches(seq), config)
        first = wl.rate(_matches(seq[:1]), config)
        new = (config.mu, config.sigma)
        np.testing.assert_allclose(r.predictions[:3], wl.predict_win(
            [[new, new], [new], [new]], config), rtol=1e-12)
        after = [[_state(first, p) for p in t] for t in (["c"], ["a", "d"], ["b"])]
        np.testing.assert_allclose(r.predictions[3:], wl.predict_win(after, config),
                                   rtol=1e-12)
        np.testing.assert_allclose(np.add.reduceat(r.predictions, [0, 3]), 1.0, rtol=1e-12)


def test_prediction_input_errors():
    with pytest.raises(InputError, match="at least 2 teams"):
        wl.predict_win([[(25.0, 8.0)]])
    with pytest.raises(InputError, match="sigma > 0"):
        wl.predict_win([[(25.0, 0.0)], [(25.0, 1.0)]])


# ----------------------------------------------------------------------------------
# 6. config, spec strings, state


@pytest.mark.parametrize("name,canonical", [
    ("PlackettLuce", "plackett_luce"), ("thurstone-mosteller-full", "thurstone_mosteller_full"),
    ("BradleyTerryPart", "bradley_terry_part"), ("THURSTONEMOSTELLERPART",
                                                 "thurstone_mosteller_part")])
def test_model_names(name, canonical):
    assert WengLinConfig(model=name).model == canonical


def test_specs_and_presets():
    spec = systems.SystemSpec.parse("weng-lin:model=ThurstoneMostellerFull,tau=0")
    assert spec.config.model == "thurstone_mosteller_full" and spec.config.tau == 0.0
    assert systems.SystemSpec.parse("weng_lin@bradley_terry_part").config.model == \
        "bradley_terry_part"
    assert "thurstone_mosteller_full" in systems.presets("weng_lin")
    assert WengLinConfig.openskill().margin_rule == "openskill"


@pytest.mark.parametrize("kwargs", [
    dict(model="elo"), dict(model=3), dict(sigma=0.0), dict(beta=-1.0), dict(kappa=0.0),
    dict(tau=-0.1), dict(tau=math.inf), dict(epsilon=-1.0), dict(window=0), dict(window=1.5),
    dict(margin=-1.0), dict(margin_rule="x"), dict(weight_rule="x"), dict(predict="x"),
    dict(weight_bounds=(2.0, 1.0)), dict(weight_bounds=(0.0, 1.0)), dict(weight_bounds=1.0),
    dict(limit_sigma="yes"), dict(balance=1), dict(conservative_k=math.nan),
    dict(mu=math.inf)])
def test_config_validation(kwargs):
    with pytest.raises((ConfigError, InputTypeError)):
        WengLinConfig(**kwargs)


def test_rating_is_conservative_and_state_continues():
    r = wl.rate(_matches([_match([["a"], ["b"]], ranks=[1, 2])]),
                WengLinConfig(conservative_k=2.0))
    i = r.players.id_of("a")
    assert r.rating[i] == pytest.approx(r.state["mu"][i] - 2.0 * r.state["sigma"][i])
    assert list(r.columns()) == ["player", "rating", "mu", "sigma", "games_played"]
    r2 = wl.rate(_matches([_match([["a"], ["c"]], ranks=[1, 2])]), initial=r)
    assert r2.games_played[r2.players.id_of("a")] == 2
    with pytest.raises(InputError, match="sigma"):
        wl.rate(_matches([_match([["a"], ["c"]], ranks=[1, 2])]),
                initial=_init({"a": (1.0, 0.0)}))


# ----------------------------------------------------------------------------------
# diverging ratings are reported


def test_diverged_ratings_warn_past_a_thousand_sigmas():
    """The check itself: a mu more than DIVERGED_SIGMAS x max(sigma, beta, tau) from its
    start (or not finite) warns, naming the model and the field size; one just inside
    does not. (rate() runs it for Thurstone-Mosteller with more than two teams: the
    logistic models' steps are bounded.)"""
    m = Matches.from_arrays([0, 0, 0], None, ["a", "b", "c"], rank=[1, 2, 3])
    config = WengLinConfig(model="thurstone_mosteller_full")
    limit = wl.DIVERGED_SIGMAS * config.sigma

    def check(mu, start, cfg):
        wl._warn_if_diverged(np.array(mu), start, cfg, m)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check([config.mu + limit, config.mu - limit], config.mu, config)
        check([config.mu + limit, config.mu], np.array([config.mu, config.mu]), config)
    for bad in (config.mu + limit * 1.001, config.mu - limit * 1.001, math.nan, math.inf):
        for start in (config.mu, np.array([config.mu, config.mu])):
            with pytest.warns(FastrateWarning, match=r"thurstone_mosteller_full: the "
                              r"ratings diverged.* up to 3 teams \(full pairing"):
                check([config.mu, bad], start, config)
    wide = WengLinConfig(model="thurstone_mosteller_full", tau=10.0)  # (a wider scale)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check([wide.mu + 1.1 * limit], wide.mu, wide)


def test_thurstone_mosteller_full_diverges_on_formula_1_as_openskill_does(shared_data):
    """Full pairing in fields of up to 42 cars: every pair counted as a whole comparison
    overshoots, and the ratings grow without bound (openskill's own
    ThurstoneMostellerFull reaches the same mu = 4.2e8 for the leader): rate() warns,
    and the command line says so in one line; Plackett-Luce stays put."""
    from click.testing import CliRunner

    from fastrate.cli import main

    path = shared_data / "f1_race_results" / "results.csv.gz"
    m = fastrate.read_matches(path, unranked="drop")
    with pytest.warns(FastrateWarning, match="thurstone_mosteller_full: the ratings diverged"):
        r = wl.rate(m, WengLinConfig(model="thurstone_mosteller_full"))
    assert r.state["mu"].max() > 1e8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pl = wl.rate(m, WengLinConfig(model="plackett_luce"))
    assert np.abs(pl.state["mu"] - 25.0).max() < 100.0
    out = CliRunner().invoke(main, ["rate", str(path), "--system",
                                    "weng-lin:model=thurstone_mosteller_full", "--unranked",
                                    "drop", "--top", "1"])
    assert out.exit_code == 0, out.output
    lines = [x for x in out.output.splitlines() if x.startswith("fastrate: warning:")]
    assert len(lines) == 1 and "the ratings diverged" in lines[0]
    assert "FastrateWarning" not in out.output


@pytest.mark.parametrize("model", ["thurstone_mosteller_full", "thurstone_mosteller_part"])
def test_thurstone_mosteller_two_team_lanes_equal_the_general_kernel(model):
    """Thurstone-Mosteller 2v2-style matches in the two-team lanes against the general
    kernel (which takes every pair through _pair_both): the same bits for the ratings
    and the predictions, with ties (x = 0 among equal teams), teams of 1-3 players,
    limit_sigma, and teams far apart (openskill's guard Phi < eps)."""
    mt = _random_team_matches(np.random.default_rng(11), 800, lambda m: 2)
    names = mt.players.names.tolist()
    start = {n: 25.0 + 600.0 * (int(n[1:]) % 3 - 1) for n in names if int(n[1:]) < 30}
    for limit in (False, True):
        config = WengLinConfig(model=model, limit_sigma=limit, window=1)
        fast = wl.rate(mt, config, initial=start)
        prm = wl._params(config, False)
        st_ = np.empty(2 * len(names))
        st_[0::2] = [start.get(n, config.mu) for n in names]
        st_[1::2] = config.sigma ** 2
        pred = np.empty(mt.n_teams)
        pair = np.empty(int(mt.pair_offsets()[-1]))
        gp = np.zeros(len(names), dtype=np.int64)
        wl._weng_lin_kernel(mt.match_team_offsets, mt.team_player_offsets, mt.player,
                            mt.rank, np.empty(0), np.empty(0), st_, pred, pair, gp, prm)
        order = [fast.players.names.tolist().index(n) for n in names]
        np.testing.assert_array_equal(fast.exact["var"][order], st_[1::2])
        np.testing.assert_array_equal(fast.state["mu"][order], st_[0::2])
        np.testing.assert_array_equal(fast.predictions, pred)
        np.testing.assert_array_equal(fast.pair_predictions, pair)
    assert (mt.rank[0::2] == mt.rank[1::2]).sum() > 100  # (ties, many)
