"""Bridge Elo (fastrate.bridge.bridge_elo): hand-worked values, equivalence with the slow
reference (tests/reference/bridge_elo.py) for every model and option, invariants,
evaluation, bad input and the ``fastrate bridge rate`` command."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import bridge_elo as ref

from fastrate.bridge import bridge_elo as be
from fastrate.bridge.boards import Boards
from fastrate.bridge.bridge_elo import BridgeEloConfig
from fastrate.errors import ConfigError, InputError, InputTypeError

INF = math.inf


def board_of(scores, players=None, **kw):
    """One board: table t has NS players n{t}/s{t} and EW players e{t}/w{t}."""
    t = len(scores)
    players = players or {}
    seats = {seat: players.get(seat, [f"{seat[0]}{i}" for i in range(t)])
             for seat in ("north", "south", "east", "west")}
    return Boards.from_arrays([1] * t, scores, **seats, **kw)


def synthetic(n_players=400, n_boards=300, tables=(2, 12), n_periods=6, seed=0,
              spread=150.0, fixed=0.8):
    """Boards with a latent skill per player: each player has a regular partner (played
    with probability ``fixed``), NS's score is a board's par plus 40 points per 100
    rating points of pair advantage plus noise, rounded to 10."""
    rng = np.random.default_rng(seed)
    skill = rng.normal(0.0, spread, n_players)
    partner = np.arange(n_players) ^ 1
    rows = {k: [] for k in ("board", "north", "south", "east", "west", "ns_score", "period")}
    for b in range(n_boards):
        t = int(rng.integers(tables[0], tables[1] + 1))
        order = rng.permutation(n_players).tolist()
        used = np.zeros(n_players, dtype=bool)
        clean = []
        while len(clean) < 2 * t:
            p = order.pop()
            if used[p]:
                continue
            used[p] = True
            q = int(partner[p])
            if used[q] or rng.random() >= fixed:
                q = order.pop()
                while used[q]:
                    q = order.pop()
            used[q] = True
            clean.append((p, q))
        par = rng.choice([-100, 110, 140, 420, 450, 620, -200])
        for i in range(t):
            (n, s), (e, w) = clean[2 * i], clean[2 * i + 1]
            adv = (skill[n] + skill[s] - skill[e] - skill[w]) / 2
            score = par + 0.4 * adv + rng.normal(0, 120)
            rows["board"].append(b)
            rows["north"].append(f"p{n}")
            rows["south"].append(f"p{s}")
            rows["east"].append(f"p{e}")
            rows["west"].append(f"p{w}")
            rows["ns_score"].append(float(np.round(score / 10) * 10))
            rows["period"].append(b * n_periods // n_boards)
    return rows


def boards_from_rows(rows):
    return Boards.from_arrays(rows["board"], rows["ns_score"], north=rows["north"],
                              south=rows["south"], east=rows["east"], west=rows["west"],
                              period=rows["period"])


# ----------------------------------------------------------------------------------
# 1. hand-worked values


def test_thesis_cross_imp_board_with_equal_ratings():
    # thesis §3.2.2: NS -100, 600, -50, 620, -100 -> cross-IMPs -6.5, 8.75, -5, 9.25, -6.5
    b = board_of([-100, 600, -50, 620, -100])
    for model in be.MODELS[:2]:
        r = be.rate(b, BridgeEloConfig(model=model))
        assert r.stored_outcome.tolist() == [0.0, 1.0, 0.0, 1.0, 0.0]
        assert r.stored_predictions.tolist() == [0.5] * 5
        # every player of a pair gets the pair's change K (S - E) = +-8
        assert r["n1"] == r["s1"] == 1508.0 and r["e1"] == r["w1"] == 1492.0
        assert r["n0"] == 1492.0 and r["w0"] == 1508.0
        assert r.games_played.tolist() == [1] * 20


def test_draw_margin_one_imp():
    # 420 vs 450 -> +-1 IMP: a draw; 420 vs 470 -> 2 IMPs: a win
    assert be.rate(board_of([420, 450])).stored_outcome.tolist() == [0.5, 0.5]
    assert be.rate(board_of([420, 470])).stored_outcome.tolist() == [0.0, 1.0]
    assert be.rate(board_of([420, 470]), BridgeEloConfig(draw_margin=2.0)
                   ).stored_outcome.tolist() == [0.5, 0.5]


def test_field_adjustment_by_hand_on_three_tables():
    # pair ratings NS 1600, 1500, 1400; EW 1500, 1550, 1450 (players +-50 around them)
    initial = {"n0": 1650, "s0": 1550, "n1": 1500, "s1": 1500, "n2": 1400, "s2": 1400,
               "e0": 1500, "w0": 1500, "e1": 1600, "w1": 1500, "e2": 1450, "w2": 1450}
    # R_NS = 4500, R_EW = 4500, N = 3, 2.5 N = 7.5:
    # gamma_0 = ((4500 - 1500) - (4500 - 1600)) / 7.5 = 100 / 7.5 = 13.333...
    # gamma_1 = ((4500 - 1550) - (4500 - 1500)) / 7.5 = -50 / 7.5 = -6.666...
    # gamma_2 = ((4500 - 1450) - (4500 - 1400)) / 7.5 = -50 / 7.5 = -6.666...
    gamma = be.field_adjustment([1600, 1500, 1400], [1500, 1550, 1450])
    assert gamma == pytest.approx([100 / 7.5, -50 / 7.5, -50 / 7.5], abs=1e-12)
    d = [1600 + 100 / 7.5 - 1500, 1500 - 50 / 7.5 - 1550, 1400 - 50 / 7.5 - 1450]
    want = [1 / (1 + 10 ** (-x / 400)) for x in d]
    # d = 113.33, -56.67, -56.67 -> E = 0.657551, 0.419166, 0.419166
    assert want == pytest.approx([0.657551, 0.419166, 0.419166], abs=1e-6)
    b = board_of([420, 450, -100])
    r = be.rate(b, BridgeEloConfig(model="field"), initial=initial)
    assert r.stored_predictions == pytest.approx(want, abs=1e-12)
    plain = be.rate(b, BridgeEloConfig(model="plain"), initial=initial)
    assert plain.stored_predictions == pytest.approx(
        [1 / (1 + 10 ** (-x / 400)) for x in (100, -50, -50)], abs=1e-12)
    # cross-IMPs 420: (0 + 11)/2 = 5.5 -> win; 450: (0 + 11)/2 -> win; -100: -11 -> loss
    assert r.stored_outcome.tolist() == [1.0, 1.0, 0.0]
    # NS0 players each gain 16 (1 - 0.657551); EW0 players lose the same
    assert r["n0"] == pytest.approx(1650 + 16 * (1 - want[0]), abs=1e-9)
    assert r["w0"] == pytest.approx(1500 - 16 * (1 - want[0]), abs=1e-9)


def test_artificial_matches_by_hand_on_two_tables():
    # one match: team {NS0, EW1} (1600 + 1400)/2 = 1500 against {NS1, EW0} (1500+1500)/2
    initial = {"n0": 1600, "s0": 1600, "e1": 1400, "w1": 1400}
    r = be.rate(board_of([420, -50]), BridgeEloConfig(model="artificial"), initial=initial)
    # IMP(470) = 10 > 1: team {NS0, EW1} wins with E = 0.5: +8 to its four players
    assert r["n0"] == 1608.0 and r["e1"] == 1408.0
    assert r["n1"] == 1492.0 and r["e0"] == 1492.0
    assert r.stored_predictions.tolist() == [0.5, 0.5]


def test_artificial_mean_over_matches():
    # three tables, equal ratings: NS0 wins both matches (+8 each), so +8 (the mean)
    r = be.rate(board_of([600, 100, -100]), BridgeEloConfig(model="artificial"))
    assert r["n0"] == 1508.0
    # table 1 wins against table 2 (IMP(200) = 5) and loses to table 0: mean 0
    assert r["n1"] == 1500.0
    # EW0 is in team {NS1, EW0} (lost) and team {NS2, EW0} (lost): -8
    assert r["e0"] == 1492.0


def test_rule_of_400_and_no_cap():
    initial = {"n0": 2500, "s0": 2500}
    b = board_of([420, -50])
    assert be.rate(b, BridgeEloConfig(model="plain"), initial=initial
                   ).stored_predictions[0] == pytest.approx(10 / 11, abs=1e-15)
    free = be.rate(b, BridgeEloConfig(model="plain", cap=None), initial=initial)
    assert free.stored_predictions[0] == pytest.approx(1 / (1 + 10 ** (-1000 / 400)),
                                                       abs=1e-15)


def test_expected_score_helper():
    assert round(float(be.expected_score(1700, 1500)), 4) == 0.7597
    assert float(be.expected_score(1500, 1500, gamma=200)) == pytest.approx(
        float(be.expected_score(1700, 1500)), abs=1e-15)
    assert float(be.expected_score(3000, 1500)) == pytest.approx(10 / 11, abs=1e-15)
    with pytest.raises(InputError, match="equal length"):
        be.field_adjustment([1, 2], [1])


def test_experience_bonus_and_k_tables():
    # two boards by the same partnerships: the second sees n = 1 board together
    b = Boards.from_arrays([1, 1, 2, 2], [420, -50, 420, -50], north=["a", "c", "a", "c"],
                           south=["b", "d", "b", "d"], east=["e", "g", "e", "g"],
                           west=["f", "h", "f", "h"])
    cfg = BridgeEloConfig(model="plain", experience_bonus=100.0, experience_n0=1.0, k=0.0)
    r = be.rate(b, cfg, initial={"e": 1600, "f": 1600})
    # board 1: no experience, NS 1500 vs EW 1600; board 2: both bonuses 100 (1 - e^-1)
    assert r.stored_predictions[0] == pytest.approx(1 / (1 + 10 ** (100 / 400)), abs=1e-12)
    assert r.stored_predictions[2] == pytest.approx(1 / (1 + 10 ** (100 / 400)), abs=1e-12)
    assert r.n_partnerships == 4
    # K by games: 32 for the first board, 8 after
    cfg = BridgeEloConfig(model="plain", k_games=((1, 32.0), (INF, 8.0)), update="board")
    r = be.rate(b, cfg)
    assert r["a"] == pytest.approx(1500 + 16 + 8 * (1 - float(be.expected_score(1516, 1484))))
    # K multiplier by experience: x3 for new partnerships
    cfg = BridgeEloConfig(model="plain", k_experience=((1, 3.0), (INF, 1.0)), update="board")
    assert be.rate(b, cfg)["a"] == pytest.approx(
        1500 + 24 + 16 * (1 - float(be.expected_score(1524, 1476))))


def test_margin_multipliers():
    b = board_of([-100, 600, -50, 620, -100])  # table 1: 8.75 IMPs
    lin = be.rate(b, BridgeEloConfig(model="plain", margin="linear", margin_scale=10.0))
    assert lin["n1"] == pytest.approx(1500 + 8 * (1 + 0.875))
    log = be.rate(b, BridgeEloConfig(model="plain", margin="log", margin_scale=10.0))
    assert log["n1"] == pytest.approx(1500 + 8 * (1 + math.log(1.875)))


def test_periods_accumulate_and_apply_at_period_end():
    b = Boards.from_arrays([1, 1, 2, 2], [420, -50, 420, -50], north=["a", "c", "a", "c"],
                           south=["b", "d", "b", "d"], east=["e", "g", "e", "g"],
                           west=["f", "h", "f", "h"], period=[0, 0, 0, 0])
    r = be.rate(b, BridgeEloConfig(model="plain"))
    # one period: both boards predicted from 1500 -> 0.5, +8 twice
    assert r.stored_predictions.tolist() == [0.5] * 4
    assert r["a"] == 1516.0
    by_board = be.rate(b, BridgeEloConfig(model="plain", update="board"))
    assert by_board.stored_predictions[2] == pytest.approx(
        float(be.expected_score(1508, 1492)), abs=1e-15)
    assert r.last_period.tolist() == [0] * 8
    assert r.stored_period.tolist() == [0] * 4


def test_skipped_rows_single_results_and_artificial():
    b = Boards.from_arrays([1, 1, 1, 2], [420, -50, None, 100], north=["a", "c", "x", "a"],
                           south=["b", "d", "y", "b"], east=["e", "g", "z", "e"],
                           west=["f", "h", "u", "f"], artificial=[0, 0, "A+", 0])
    r = be.rate(b)
    assert r.rated.tolist() == [True, True, False, False]
    assert np.isnan(r.stored_predictions[2:]).all() and np.isnan(r.stored_outcome[2:]).all()
    assert r.n_single_result_boards == 1
    assert r["x"] == 1500.0 and r.games_played[b.players.id_of("x")] == 0
    assert r["a"] == 1508.0 and r.games_played[b.players.id_of("a")] == 1
    assert np.isnan(r.predictions[2]) and r.outcome[0] == 1.0


def test_components_and_identifiability():
    # two events: in the first, fixed partnerships (bipartite: not identifiable); in the
    # second a2, b2, c2 and d2 also partner a2-c2, b2-d2, b2-c2 and a2-d2 (the triangle
    # a2-b2-c2 is an odd cycle: identifiable)
    e1 = [("a1", "b1", "e1", "f1"), ("c1", "d1", "g1", "h1")]
    e2 = [[("a2", "b2", "e2", "f2"), ("c2", "d2", "g2", "h2")],
          [("a2", "c2", "e2", "f2"), ("b2", "d2", "g2", "h2")],
          [("b2", "c2", "e2", "f2"), ("a2", "d2", "g2", "h2")]]
    tables = [(1, *e1[0]), (1, *e1[1])] + [(2 + i, *t) for i, b in enumerate(e2) for t in b]
    board, n, s, e, w = (list(x) for x in zip(*tables))
    b = Boards.from_arrays(board, [420, -50] * 4, north=n, south=s, east=e, west=w)
    r = be.rate(b)
    assert r.n_components == 2
    assert r.n_partnership_components == 7  # {a2 b2 c2 d2} and six fixed partnerships
    assert r.n_nonidentifiable == 6
    comp, ident = b.partnership_components()
    assert r.n_partnership_components == ident.shape[0]
    assert r.n_nonidentifiable == int((~ident).sum())
    assert r.n_components == int(b.components().max()) + 1


@settings(max_examples=25)
@given(st.data())
def test_component_counts_match_boards(data):
    rows = data.draw(boards_strategy(max_boards=5, pool=14))
    b = build(rows)
    if b.players is None:
        return
    r = be.rate(b)
    comp, ident = b.partnership_components()
    assert r.n_components == int(b.components().max()) + 1
    assert r.n_partnership_components == ident.shape[0]
    assert r.n_nonidentifiable == int((~ident).sum())
    ns, ew, first, second = be.partnership_ids(b)
    ns2, ew2, first2, second2 = b.partnerships()
    # the same partition of rows into partnerships (ids may differ)
    keys = [(min(f, s), max(f, s)) for f, s in zip(first.tolist(), second.tolist())]
    keys2 = list(zip(first2.tolist(), second2.tolist()))
    assert [keys[i] for i in ns] == [keys2[i] for i in ns2]
    assert [keys[i] for i in ew] == [keys2[i] for i in ew2]


def test_pairs_only_boards_rate_pairs_as_units():
    b = Boards.from_arrays([1, 1, 2, 2], [420, -50, 100, 140], ns_pair=["A", "B", "A", "B"],
                           ew_pair=["C", "D", "C", "D"])
    r = be.rate(b, BridgeEloConfig(model="plain", update="board"))
    assert sorted(r.players.names.tolist()) == ["A", "B", "C", "D"]
    # board 1: A beats C by 10 IMPs (+8); board 2: 100 vs 140 is 1 IMP, a draw
    assert r["A"] == pytest.approx(1508 + 16 * (0.5 - float(be.expected_score(1508, 1492))))
    assert r.games_played.tolist() == [2, 2, 2, 2]
    assert be.components(b) == be.Components(1, 0, 0)
    ns, ew, first, second = be.partnership_ids(b)
    assert np.array_equal(ns, b.ns_pair) and np.array_equal(ew, b.ew_pair)
    assert (first == second).all()


def test_update_board_equals_boards_without_periods():
    rows = synthetic(n_players=60, n_boards=30, n_periods=3, seed=4)
    with_periods = boards_from_rows(rows)
    without = Boards.from_arrays(rows["board"], rows["ns_score"], north=rows["north"],
                                 south=rows["south"], east=rows["east"], west=rows["west"])
    a = be.rate(with_periods, BridgeEloConfig(update="board"))
    b = be.rate(without)
    assert np.array_equal(a.rating, b.rating)
    assert np.array_equal(a.stored_predictions, b.stored_predictions)
    assert b.last_period is None and a.last_period is not None
    assert b.stored_period.tolist() == np.repeat(np.arange(without.n_boards),
                                                 np.diff(without.board_offsets)).tolist()


def test_result_accessors():
    rows = synthetic(n_players=80, n_boards=40, n_periods=4, seed=6)
    b = boards_from_rows(rows)
    r = be.rate(b, BridgeEloConfig(burn_in=1))
    assert r.n_rated == b.n_results and r.boards_played is r.games_played
    assert r.period.tolist() == b.to_input_order(r.stored_period).tolist()
    assert np.array_equal(r.outcome[b.order], r.stored_outcome)
    m = r.metrics()
    assert m["n"] == int(r.scored.sum()) < r.n_rated
    assert "BridgeRatings(field" in repr(r)
    table = r.to_arrow(sort=True)
    assert table.column_names == ["player", "rating", "games_played", "last_period"]


# ----------------------------------------------------------------------------------
# 2. equivalence with the reference


SCORES = [-600, -200, -100, -50, 0, 50, 90, 100, 110, 140, 420, 450, 620, 1100]


@st.composite
def boards_strategy(draw, max_boards=6, pool=20, pairs_only=False):
    """Random boards as plain rows: (board, period, north, south, east, west, score,
    artificial); each board's players distinct, periods nondecreasing."""
    n_boards = draw(st.integers(1, max_boards))
    names = [f"p{i}" for i in range(pool)]
    period = 0
    rows = []
    for b in range(n_boards):
        period += draw(st.integers(0, 1))
        t = draw(st.integers(1, min(5, pool // 4)))
        who = draw(st.permutations(names))[:4 * t]
        for i in range(t):
            score = float(draw(st.sampled_from(SCORES)))
            art = draw(st.sampled_from([0] * 8 + [1, 2, 3]))
            if pairs_only:
                seat = (who[2 * i], who[2 * i], who[2 * i + 1], who[2 * i + 1])
            else:
                seat = tuple(who[4 * i:4 * i + 4])
            rows.append((b, period, *seat, score, art))
    return rows


def build(rows, pairs_only=False):
    cols = list(zip(*rows))
    board, period, n, s, e, w, score, art = cols
    if pairs_only:
        return Boards.from_arrays(list(board), list(score), ns_pair=list(n), ew_pair=list(e),
                                  period=list(period), artificial=list(art))
    return Boards.from_arrays(list(board), list(score), north=list(n), south=list(s),
                              east=list(e), west=list(w), period=list(period),
                              artificial=list(art))


def reference_boards(rows):
    out = []
    for b in sorted({r[0] for r in rows}):
        mine = [r for r in rows if r[0] == b]
        out.append((mine[0][1], [r[2:] for r in mine]))
    return out


CONFIGS = st.fixed_dictionaries({
    "model": st.sampled_from(be.MODELS),
    "k": st.sampled_from([16.0, 10.0, 32.0]),
    "cap": st.sampled_from([400.0, None, 150.0]),
    "draw_margin": st.sampled_from([1.0, 0.0, 2.5]),
    "gamma_divisor": st.sampled_from([2.5, 1.0]),
    "k_games": st.sampled_from([(), ((2.0, 40.0), (INF, 12.0))]),
    "k_experience": st.sampled_from([(), ((1.0, 2.0), (3.0, 1.5), (INF, 1.0))]),
    "margin": st.sampled_from(be.MARGINS),
    "margin_scale": st.sampled_from([10.0, 3.0]),
    "experience_bonus": st.sampled_from([0.0, 60.0, -20.0]),
    "experience_n0": st.sampled_from([1.0, 5.0]),
    "update": st.sampled_from(be.UPDATES),
})


def check_against_reference(rows, cfg_kw, initial=None, pairs_only=False):
    b = build(rows, pairs_only)
    cfg = BridgeEloConfig(**cfg_kw)
    got = be.rate(b, cfg, initial=initial)
    want = ref.rate(reference_boards(rows), **cfg_kw, initial=initial)
    names = got.players.names.tolist()
    for i, name in enumerate(names):
        assert got.rating[i] == pytest.approx(want.rating.get(name, 1500.0), abs=1e-9,
                                              rel=1e-12), name
        assert got.games_played[i] == want.played.get(name, 0), name
    pred = [x for board in want.pred for x in board]
    out = [x for board in want.outcome for x in board]
    np.testing.assert_allclose(got.stored_predictions, pred, rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(got.stored_outcome, out)
    np.testing.assert_array_equal(got.rated, ~np.isnan(pred))


@settings(max_examples=150)
@given(rows=boards_strategy(), cfg=CONFIGS)
def test_matches_reference_every_model_and_option(rows, cfg):
    check_against_reference(rows, cfg)


@settings(max_examples=40)
@given(rows=boards_strategy(pairs_only=True, pool=24), cfg=CONFIGS)
def test_matches_reference_pairs_rated_as_units(rows, cfg):
    check_against_reference(rows, cfg, pairs_only=True)


@settings(max_examples=30)
@given(rows=boards_strategy(), cfg=CONFIGS,
       init=st.dictionaries(st.sampled_from([f"p{i}" for i in range(20)] + ["new"]),
                            st.floats(1000, 2000), max_size=6))
def test_matches_reference_with_initial_ratings(rows, cfg, init):
    check_against_reference(rows, cfg, initial=init)


def test_matches_reference_on_larger_boards():
    rows = synthetic(n_players=120, n_boards=25, tables=(5, 25), n_periods=4, seed=3)
    plain_rows = [(b, p, n, s, e, w, sc, 0) for b, p, n, s, e, w, sc in zip(
        rows["board"], rows["period"], rows["north"], rows["south"], rows["east"],
        rows["west"], rows["ns_score"])]
    for model in be.MODELS:
        check_against_reference(plain_rows, {"model": model, "experience_bonus": 30.0,
                                             "experience_n0": 3.0, "margin": "log"})


# ----------------------------------------------------------------------------------
# 3. invariants


@settings(max_examples=40)
@given(rows=boards_strategy(), model=st.sampled_from(be.MODELS),
       update=st.sampled_from(be.UPDATES), margin=st.sampled_from(be.MARGINS))
def test_zero_sum_with_equal_k(rows, model, update, margin):
    b = build(rows)
    r = be.rate(b, BridgeEloConfig(model=model, update=update, margin=margin, cap=None,
                                   experience_bonus=25.0))
    assert r.rating.sum() == pytest.approx(1500.0 * len(r), abs=1e-8)


@settings(max_examples=30)
@given(rows=boards_strategy(), model=st.sampled_from(be.MODELS), seed=st.integers(0, 999))
def test_permutation_of_player_ids(rows, model, seed):
    rng = np.random.default_rng(seed)
    names = sorted({x for r in rows for x in r[2:6]})
    relabel = dict(zip(names, [f"q{i}" for i in rng.permutation(len(names))]))
    renamed = [(*r[:2], *(relabel[x] for x in r[2:6]), *r[6:]) for r in rows]
    cfg = BridgeEloConfig(model=model, experience_bonus=40.0, experience_n0=2.0)
    a = be.rate(build(rows), cfg)
    b = be.rate(build(renamed), cfg)
    for name in names:
        assert a[name] == b[relabel[name]]
    np.testing.assert_array_equal(a.stored_predictions, b.stored_predictions)


def test_symmetric_board_gives_symmetric_changes():
    b = board_of([420, -50])
    r = be.rate(b, BridgeEloConfig(model="field"))
    assert r["n0"] - 1500 == -(r["n1"] - 1500) == 1500 - r["e0"]


def test_inputs_not_mutated_and_initial_kept():
    rows = synthetic(n_players=60, n_boards=20, n_periods=3)
    b = boards_from_rows(rows)
    before = (b.ns_score.copy(), b.north.copy())
    first = be.rate(b, BridgeEloConfig(k=20.0))
    assert np.array_equal(b.ns_score, before[0]) and np.array_equal(b.north, before[1])
    init = {"outsider": 1700.0}
    r = be.rate(b, BridgeEloConfig(k=20.0), initial=init)
    assert r["outsider"] == 1700.0 and len(r) == len(first) + 1
    for name in first.players.names.tolist():
        assert r[name] == first[name]
    # continuing from a previous run's ratings keeps them as the start
    again = be.rate(b, BridgeEloConfig(k=0.0), initial=first)
    assert np.array_equal(again.rating, first.rating)
    assert (again.games_played == 2 * first.games_played).all()


_THREAD_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from test_bridge_elo import synthetic, boards_from_rows
    from fastrate.bridge import bridge_elo as be
    b = boards_from_rows(synthetic(n_players=200, n_boards=150, n_periods=5, seed=7))
    out = []
    for model in be.MODELS:
        r = be.rate(b, be.BridgeEloConfig(model=model, experience_bonus=30.0))
        out += [r.rating, r.stored_predictions]
    sys.stdout.buffer.write(np.concatenate(out).tobytes())
""")


@pytest.mark.slow
def test_identical_bits_in_separate_processes():
    """Bridge Elo runs no threads (tests/test_kernels.py audits every use of threads);
    what can differ between runs is the order of sets and dicts: two processes with
    different string hash seeds (and thread settings) must give the same bits."""
    script = _THREAD_SCRIPT.format(tests=str(Path(__file__).parent))
    outputs = []
    for threads, seed in (("1", "1"), ("2", "12345")):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONHASHSEED": seed}
        proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              check=True, timeout=300)
        outputs.append(proc.stdout)
    assert len(outputs[0]) > 0 and outputs[0] == outputs[1]


# ----------------------------------------------------------------------------------
# evaluation


def test_evaluate_table_and_burn_in():
    b = boards_from_rows(synthetic(n_players=300, n_boards=400, n_periods=8, seed=1))
    ev = be.evaluate(b, burn_in=2)
    assert ev.labels == [be.NULL_LABEL, "plain", "field", "artificial"]
    null = ev[be.NULL_LABEL]
    assert null["accuracy"] == 0.5 and null["log_loss"] == pytest.approx(math.log(2))
    assert null["rmse"] == pytest.approx(null["brier"] ** 0.5)
    mask = be.burn_in_mask(b, 2)
    assert 0 < ev.n_scored < b.n_results and ev.n_scored == int(mask.sum())
    # a real skill signal: every model beats the null model
    for label in ("plain", "field", "artificial"):
        assert ev[label]["accuracy"] > 0.5
        assert ev[label]["log_loss"] < null["log_loss"]
    # the same scores as the metrics on the run's own scored rows
    run = ev.ratings["field"]
    assert run.metrics()["n"] == int(run.scored.sum()) >= ev.n_scored
    text = str(ev)
    assert "null (50%)" in text and "artificial" in text


def test_evaluate_labels_configs_and_burn_in_from_config():
    b = boards_from_rows(synthetic(n_players=80, n_boards=40, n_periods=4, seed=2))
    ev = be.evaluate(b, {"a": BridgeEloConfig(burn_in=1), "b": BridgeEloConfig(k=8.0)})
    assert ev.labels == [be.NULL_LABEL, "a", "b"] and ev.burn_in == 1
    ev = be.evaluate(b, [BridgeEloConfig(k=8.0, experience_bonus=20.0)])
    assert ev.labels[1] == "field:k=8,experience_bonus=20"
    with pytest.raises(ConfigError, match="unique"):
        be.evaluate(b, [("x", BridgeEloConfig()), ("x", BridgeEloConfig())])
    with pytest.raises(InputError, match="no results to score"):
        be.evaluate(b, burn_in=10)
    with pytest.raises(InputTypeError, match="BridgeEloConfig"):
        be.evaluate(b, ["field"])


# ----------------------------------------------------------------------------------
# 4. bad input


@pytest.mark.parametrize(("kw", "match"), [
    ({"k": -1.0}, "'k' of BridgeEloConfig must be a float in"),
    ({"scale": 0.0}, "'scale'"),
    ({"cap": 0.0}, "'cap'"),
    ({"draw_margin": -1.0}, "'draw_margin'"),
    ({"model": "elo"}, "'model' of BridgeEloConfig must be one of 'field', 'plain', "
                       "'artificial'; got 'elo'"),
    ({"margin": "big"}, "'margin'"),
    ({"margin_scale": 0.0}, "'margin_scale'"),
    ({"experience_n0": 0.0}, "'experience_n0'"),
    ({"update": "game"}, "'update'"),
    ({"burn_in": -1}, "'burn_in'"),
    ({"burn_in": 1.5}, "'burn_in' of BridgeEloConfig must be an integer"),
    ({"k_games": ((10, 32),)}, "must end with an \\(inf, K\\) row"),
    ({"k_games": ((10, 32), (5, 16), (INF, 8))}, "bounds must increase"),
    ({"k_experience": ((INF, -1.0),)}, "'k_experience multiplier'"),
    ({"k_games": ((1, 2, 3),)}, "rows must be"),
    ({"k_games": 5}, "must be rows of"),
    ({"gamma_divisor": 0.0}, "'gamma_divisor'"),
])
def test_bad_config(kw, match):
    with pytest.raises((ConfigError, InputTypeError), match=match):
        BridgeEloConfig(**kw)


def test_bad_arguments():
    b = board_of([420, -50])
    with pytest.raises(InputTypeError, match="needs fastrate.bridge.Boards"):
        be.rate([1, 2])
    with pytest.raises(InputTypeError, match="config must be a BridgeEloConfig"):
        be.rate(b, {"k": 16})
    with pytest.raises(InputError, match="needs boards with rating periods"):
        be.rate(b, BridgeEloConfig(burn_in=1))
    with pytest.raises(InputError, match="cross-IMPs"):
        be.rate(b, scores=b.score("matchpoints"))
    with pytest.raises(InputError, match="one value per result"):
        be.rate(b, scores=np.zeros(3))
    with pytest.raises(ConfigError, match="burn_in must be"):
        be.burn_in_mask(b, -1)
    import dataclasses

    nobody = dataclasses.replace(Boards.from_arrays([1, 1], [420, -50], ns_pair=["a", "b"],
                                                    ew_pair=["c", "d"]),
                                 pairs=None, ns_pair=None, ew_pair=None)
    with pytest.raises(InputError, match="name no players"):
        be.rate(nobody)


# ----------------------------------------------------------------------------------
# the command line


@pytest.fixture()
def results_csv(tmp_path: Path) -> Path:
    rows = synthetic(n_players=120, n_boards=120, n_periods=6, seed=5)
    start = np.datetime64("2024-02-21")
    time = [str(start + np.timedelta64(int(p) * 3, "D")) for p in rows["period"]]
    table = pa.table({"board": rows["board"], "north": rows["north"], "south": rows["south"],
                      "east": rows["east"], "west": rows["west"],
                      "ns_score": rows["ns_score"], "date": time})
    path = tmp_path / "results.csv"
    from fastrate.io.tables import write_table

    write_table(table, path)
    return path


def cli(*args, ok=True):
    from fastrate.cli import main

    result = CliRunner().invoke(main, list(args))
    if ok:
        assert result.exit_code == 0, (result.output, result.stderr)
    return result


def test_cli_rate_writes_table_and_prints_top(results_csv: Path, tmp_path: Path):
    out = tmp_path / "ratings.parquet"
    res = cli("bridge", "rate", str(results_csv), "-o", str(out), "--top", "5")
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    assert table.column_names[:3] == ["player", "rating", "games_played"]
    assert table.num_rows == 120
    ratings = table.column("rating").to_numpy()
    assert (np.diff(ratings) <= 0).all()  # sorted from the top
    assert "field" in res.stdout and res.stdout.count("\n") >= 7
    assert "component" in res.stderr
    # the same numbers as the API with 3-day periods
    from fastrate.io.boards import read_boards

    r = be.rate(read_boards(results_csv, period="3d"))
    assert sorted(ratings.tolist(), reverse=True) == pytest.approx(
        sorted(r.rating.tolist(), reverse=True))


def test_cli_models_options_and_evaluate(results_csv: Path, tmp_path: Path):
    res = cli("bridge", "rate", str(results_csv), "--artificial-matches", "--k", "24",
              "--burn-in", "2", "--experience-bonus", "30", "--experience-n0", "50",
              "--margin", "log", "--evaluate", "--top", "3")
    assert "null (50%)" in res.stdout and "accuracy" in res.stdout
    assert "artificial" in res.stdout
    res = cli("bridge", "rate", str(results_csv), "--plain", "--no-cap", "--period", "none",
              "--format", "json")
    assert res.stdout.lstrip().startswith("[")
    res = cli("bridge", "rate", str(results_csv), "--plain", "--artificial-matches", ok=False)
    assert res.exit_code == 2


def test_cli_reports_skipped_and_single_result_boards(tmp_path: Path):
    path = tmp_path / "r.csv"
    path.write_text("board,north,south,east,west,ns_score\n"
                    "1,a,b,c,d,420\n1,e,f,g,h,-50\n1,a,b,c,d,420\n2,a,b,c,d,100\n")
    res = cli("bridge", "rate", str(path))
    assert "skipped 1 row" in res.stderr
    assert "1 board(s) with a single result" in res.stderr
    assert "not identifiable" in res.stderr
    res = cli("bridge", "rate", str(tmp_path / "missing.csv"), ok=False)
    assert res.exit_code == 1 and "no such file" in res.stderr
    res = cli("bridge", "rate", str(path), "--burn-in", "1", "--evaluate",
              ok=False)
    assert res.exit_code == 1 and "rating periods" in res.stderr


def test_cli_tables_initial_and_predictions(results_csv: Path, tmp_path: Path):
    out = tmp_path / "first.csv"
    cli("bridge", "rate", str(results_csv), "-o", str(out), "--k-games", "50:24/inf:12",
        "--k-experience", "20:1.5/inf:1", "--margin", "linear", "--top", "0")
    pred = tmp_path / "pred.csv"
    res = cli("bridge", "rate", str(results_csv), "--initial", str(out), "--k", "0",
              "--predictions", str(pred), "--format", "csv")
    import pyarrow.csv as pcsv

    first = pcsv.read_csv(out)
    again = pcsv.read_csv(pa.BufferReader(res.stdout.encode()))
    assert sorted(first.column("rating").to_pylist()) == pytest.approx(
        sorted(again.column("rating").to_pylist()))
    p = pcsv.read_csv(pred)
    assert p.column_names == ["row", "period", "expected_score", "outcome"]
    assert p.num_rows == pcsv.read_csv(results_csv).num_rows
    res = cli("bridge", "rate", str(results_csv), "--k-games", "50-24", ok=False)
    assert res.exit_code == 2 and "bound:value" in res.output + res.stderr


def test_bridge_rate_is_documented():
    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    assert "fastrate bridge rate" in doc


# ----------------------------------------------------------------------------------
# continuation with partnership experience


def _split_rows(rows, cut_period):
    def sub(keep):
        idx = [i for i, p in enumerate(rows["period"]) if keep(p)]
        return {k: [v[i] for i in idx] for k, v in rows.items()}
    return sub(lambda p: p < cut_period), sub(lambda p: p >= cut_period)


@pytest.mark.parametrize("cfg_kw", [
    {"experience_bonus": 30.0},
    {"k_experience": ((20.0, 1.5), (math.inf, 1.0)), "update": "board"},
    {"experience_bonus": 20.0, "model": "plain", "experience_n0": 10.0},
])
@pytest.mark.parametrize("cut", [2, 4])
def test_continuation_with_partnership_experience_equals_full_run(cfg_kw, cut):
    cfg = be.BridgeEloConfig(**cfg_kw)
    rows = synthetic(n_players=120, n_boards=150, n_periods=6, seed=3)
    full = be.rate(boards_from_rows(rows), cfg)
    head, tail = _split_rows(rows, cut)
    first = be.rate(boards_from_rows(head), cfg)
    second = be.rate(boards_from_rows(tail), cfg, initial=first)
    by_table = be.rate(boards_from_rows(tail), cfg, initial=first.to_arrow(),
                       partnerships=first.partnerships_table())
    for r in (second, by_table):
        for name in full.players:
            assert r[name] == full[name], name  # exact
    want = sorted((tuple(sorted(p)), n) for *p, n in zip(*full.partnerships.values()))
    got = sorted((tuple(sorted(p)), n) for *p, n in zip(*second.partnerships.values()))
    assert got == want  # pairs of the first part only are carried over too
    # without the saved experience the continuation differs: the test can fail
    lost = be.rate(boards_from_rows(tail), cfg, initial=first.to_arrow())
    assert any(lost[n] != full[n] for n in full.players)


def test_partnerships_table_and_bad_partnerships():
    rows = synthetic(n_players=60, n_boards=30, n_periods=3, seed=1)
    boards = boards_from_rows(rows)
    assert be.rate(boards).partnerships is None
    assert be.rate(boards).partnerships_table() is None
    r = be.rate(boards, be.BridgeEloConfig(experience_bonus=10.0))
    t = r.partnerships_table()
    assert t.column_names == ["player_1", "player_2", "boards"]
    assert sum(t.column("boards").to_pylist()) == 2 * boards.n_results - 2 * int(
        (~r.rated).sum())
    cfg = be.BridgeEloConfig(experience_bonus=10.0)
    with pytest.raises(InputError, match="missing boards"):
        be.rate(boards, cfg, partnerships={"player_1": ["p1"], "player_2": ["p2"]})
    with pytest.raises(InputError, match="column 'boards' must be a whole number >= 0"):
        be.rate(boards, cfg, partnerships={"player_1": ["p1"], "player_2": ["p2"],
                                          "boards": [-1]})
    with pytest.raises(InputError, match="twice"):
        be.rate(boards, cfg, partnerships={"player_1": ["p1", "p2"], "player_2": ["p2", "p1"],
                                          "boards": [1, 2]})


def test_cli_partnerships_round_trip(tmp_path: Path):
    rows = synthetic(n_players=120, n_boards=120, n_periods=6, seed=5)
    start = np.datetime64("2024-02-21")
    from fastrate.io.tables import write_table

    paths = []
    for part, name in zip(_split_rows(rows, 3), ("a.csv", "b.csv")):
        time = [str(start + np.timedelta64(int(p) * 3, "D")) for p in part["period"]]
        table = pa.table({"board": part["board"], "north": part["north"],
                          "south": part["south"], "east": part["east"],
                          "west": part["west"], "ns_score": part["ns_score"], "date": time})
        write_table(table, tmp_path / name)
        paths.append(str(tmp_path / name))
    opts = ["--experience-bonus", "30", "--top", "0"]
    cli("bridge", "rate", paths[0], *opts, "-o", str(tmp_path / "r1.csv"),
        "--partnerships-out", str(tmp_path / "p1.csv"))
    cli("bridge", "rate", paths[1], *opts, "--initial", str(tmp_path / "r1.csv"),
        "--initial-partnerships", str(tmp_path / "p1.csv"), "-o", str(tmp_path / "r2.csv"))
    import pyarrow.csv as pcsv

    from fastrate.io.boards import read_boards

    both = pa.concat_tables([pcsv.read_csv(p) for p in paths])
    write_table(both, tmp_path / "all.csv")
    full = be.rate(read_boards(tmp_path / "all.csv", period="3d"),
                   be.BridgeEloConfig(experience_bonus=30.0))
    got = pcsv.read_csv(tmp_path / "r2.csv").to_pydict()
    for name, rating in zip(got["player"], got["rating"]):
        assert rating == pytest.approx(full[name], abs=1e-9)
    res = cli("bridge", "rate", paths[0], "--partnerships-out", str(tmp_path / "x.csv"),
              ok=False)
    assert res.exit_code == 2 and "--experience-bonus" in res.output + res.stderr


# ----------------------------------------------------------------------------------
# fastrate bridge rate: outputs all or none, options checked before any work


def _one_line_error(r, text, code=1):
    assert r.exit_code == code, (r.stdout, r.stderr)
    assert r.stderr.splitlines()[-1].startswith("fastrate: error: "), r.stderr
    assert text in r.stderr.splitlines()[-1], r.stderr
    assert "Traceback" not in r.stderr


def test_cli_rate_failure_writes_no_file(results_csv: Path, tmp_path: Path):
    pred, out = tmp_path / "pred.csv", tmp_path / "ratings.csv"
    out.write_text("old\n")
    # -o into a missing folder: --predictions was written before the failure
    r = cli("bridge", "rate", str(results_csv), "--predictions", str(pred), "-o",
            str(tmp_path / "nope" / "r.csv"), ok=False)
    _one_line_error(r, "(-o/--output): folder")
    assert not pred.exists()
    # a burn-in longer than the data: -o was overwritten before the evaluation failed
    r = cli("bridge", "rate", str(results_csv), "--evaluate", "--burn-in", "99", "-o",
            str(out), "--predictions", str(pred), ok=False)
    _one_line_error(r, "a burn-in of 99 period(s) leaves no rated result")
    assert "6 rating period(s)" in r.stderr
    assert out.read_text() == "old\n" and not pred.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ratings.csv", "results.csv"]
    r = cli("bridge", "rate", str(results_csv), "-o", str(out), "--predictions",
            str(tmp_path / "." / "ratings.csv"), ok=False)
    _one_line_error(r, "both name", code=2)
    r = cli("bridge", "rate", str(results_csv), "-o", str(tmp_path / "r.xlsx"), ok=False)
    _one_line_error(r, "cannot tell the format of")
    # success: every file, no temporary left behind
    cli("bridge", "rate", str(results_csv), "-o", str(out), "--predictions", str(pred),
        "--experience-bonus", "10", "--partnerships-out", str(tmp_path / "p.parquet"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "p.parquet", "pred.csv", "ratings.csv", "results.csv"]
    assert out.read_text().startswith('"player"')


def test_cli_rate_option_checks(results_csv: Path, tmp_path: Path):
    r = cli("bridge", "rate", str(results_csv), "--burn-in", "2", ok=False)  # was ignored
    _one_line_error(r, "--burn-in applies only with --evaluate", code=2)
    r = cli("bridge", "rate", str(results_csv), "--top", "-1", ok=False)
    _one_line_error(r, "Invalid value for '--top'", code=2)
    r = cli("bridge", "rate", str(results_csv), "--burn-in", "-1", "--evaluate", ok=False)
    _one_line_error(r, "Invalid value for '--burn-in'", code=2)
    bad = tmp_path / "pairs.csv"
    bad.write_text("player_1,player_2,boards\na,b,3\nb,c,-1\n")
    r = cli("bridge", "rate", str(results_csv), "--experience-bonus", "30",
            "--initial-partnerships", str(bad), ok=False)
    _one_line_error(r, "column 'boards' must be a whole number >= 0; found -1.0 at row 2 "
                       "(line 3 of pairs.csv)")
    bad.write_text("a,b\n1,2\n")
    r = cli("bridge", "rate", str(results_csv), "--experience-bonus", "30",
            "--initial-partnerships", str(bad), ok=False)
    _one_line_error(r, "missing player_1, player_2, boards in pairs.csv")
