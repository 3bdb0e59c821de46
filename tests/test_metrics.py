"""fastrate.metrics: hand-computed values, equivalence with the pure-Python reference,
invariants (perfect predictions, weights as repetitions, masks as subsets), bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import metrics as ref

from fastrate import metrics as m
from fastrate.errors import ConfigError, InputError, InputTypeError

# -- published / hand-computed values -----------------------------------------------


def test_hand_computed_two_games():
    p, y = [0.8, 0.3], [1, 0]
    assert m.log_loss(p, y) == pytest.approx(-(math.log(0.8) + math.log(0.7)) / 2, rel=1e-15)
    assert m.binomial_deviance(p, y) == pytest.approx(
        -(math.log10(0.8) + math.log10(0.7)) / 2, rel=1e-14)
    assert m.brier(p, y) == pytest.approx((0.04 + 0.09) / 2, rel=1e-14)
    assert m.rmse(p, y) == pytest.approx(math.sqrt(0.065), rel=1e-14)
    assert m.accuracy(p, y) == 1.0


def test_coin_flip_predictions():
    y = [1, 0, 1, 1, 0]
    p = [0.5] * 5
    assert m.log_loss(p, y) == pytest.approx(math.log(2), rel=1e-15)
    assert m.binomial_deviance(p, y) == pytest.approx(math.log10(2), rel=1e-14)
    assert m.brier(p, y) == 0.25
    assert m.rmse(p, y) == 0.5
    assert m.accuracy(p, y) == 0.5  # no favourite: half credit


def test_perfect_predictions():
    y = np.array([1.0, 0.0, 1.0, 0.0, 0.0])
    s = m.summary(y, y)
    assert s["n"] == 5
    assert s["log_loss"] == pytest.approx(0.0, abs=1e-12)
    assert s["deviance"] == pytest.approx(0.0, abs=1e-12)
    assert s["brier"] == 0.0 and s["rmse"] == 0.0
    assert s["accuracy"] == 1.0
    assert m.accuracy(y, y, draws="half") == 1.0


def test_certain_and_wrong_is_clipped_not_infinite():
    assert m.log_loss([0.0], [1.0]) == pytest.approx(-math.log(1e-15), rel=1e-12)
    assert m.log_loss([1.0], [0.0]) == pytest.approx(-math.log1p(-(1 - 1e-15)), rel=1e-3)
    assert math.isfinite(m.binomial_deviance([1.0, 0.0], [0.0, 1.0]))


def test_accuracy_draw_conventions():
    p = [0.8, 0.7, 0.6, 0.5, 0.2]
    y = [1.0, 1.0, 0.5, 0.0, 1.0]
    # exclude: decisive games 0, 1, 3, 4 -> credits 1, 1, 0.5 (no favourite), 0
    assert m.accuracy(p, y) == pytest.approx(2.5 / 4)
    # half: every game; the draw counts 0.5
    assert m.accuracy(p, y, draws="half") == pytest.approx(3.0 / 5)
    # fractional results: above 0.5 is a win of the first player
    assert m.accuracy([0.7, 0.7], [0.75, 0.25]) == 0.5
    # only draws: nothing to score when draws are excluded
    assert math.isnan(m.accuracy([0.6, 0.4], [0.5, 0.5]))
    assert m.accuracy([0.6, 0.4], [0.5, 0.5], draws="half") == 0.5


def test_summary_matches_the_functions():
    rng = np.random.default_rng(3)
    p = rng.random(200)
    y = rng.choice([0.0, 0.5, 1.0], 200)
    w = rng.random(200)
    mask = rng.random(200) < 0.7
    for draws in m.DRAWS:
        s = m.summary(p, y, w, mask, draws=draws)
        assert s["n"] == int(mask.sum())
        assert s["log_loss"] == pytest.approx(m.log_loss(p, y, w, mask), rel=1e-14)
        assert s["deviance"] == pytest.approx(m.binomial_deviance(p, y, w, mask), rel=1e-14)
        assert s["brier"] == pytest.approx(m.brier(p, y, w, mask), rel=1e-14)
        assert s["rmse"] == pytest.approx(m.rmse(p, y, w, mask), rel=1e-14)
        assert s["accuracy"] == pytest.approx(m.accuracy(p, y, w, mask, draws=draws), rel=1e-14)
    assert tuple(k for k in s if k != "n") == m.METRICS


def test_deviance_is_log_loss_over_ln10():
    rng = np.random.default_rng(4)
    p, y = rng.random(50), rng.random(50)
    assert m.binomial_deviance(p, y) == pytest.approx(m.log_loss(p, y) / math.log(10), rel=1e-14)


def test_empty_selection_is_nan_without_warnings():
    p, y = [0.3, 0.6], [0.0, 1.0]
    none = np.zeros(2, dtype=bool)
    s = m.summary(p, y, mask=none)
    assert s["n"] == 0
    assert all(math.isnan(s[k]) for k in m.METRICS)
    assert math.isnan(m.log_loss([], []))
    assert math.isnan(m.brier(p, y, weights=[0.0, 0.0]))
    table = m.calibration([], [], bins=4)
    assert table["count"].tolist() == [0, 0, 0, 0]
    assert np.isnan(table["mean_predicted"]).all()


def test_inputs_accept_lists_series_and_readonly_arrays():
    import pandas as pd
    import pyarrow as pa

    p = np.array([0.8, 0.3])
    p.flags.writeable = False
    expected = m.log_loss([0.8, 0.3], [1, 0])
    assert m.log_loss(p, pd.Series([1, 0])) == expected
    assert m.log_loss(pa.array([0.8, 0.3]), (1, 0)) == expected


# -- weights and masks ----------------------------------------------------------------


def test_integer_weights_equal_repetition():
    rng = np.random.default_rng(5)
    p = rng.random(40)
    y = rng.choice([0.0, 0.5, 1.0], 40)
    w = rng.integers(0, 4, 40)
    pr, yr = np.repeat(p, w), np.repeat(y, w)
    for name in ("log_loss", "binomial_deviance", "brier", "rmse"):
        f = getattr(m, name)
        assert f(p, y, weights=w) == pytest.approx(f(pr, yr), rel=1e-12)
    for draws in m.DRAWS:
        assert m.accuracy(p, y, weights=w, draws=draws) == pytest.approx(
            m.accuracy(pr, yr, draws=draws), rel=1e-12)
    cw = m.calibration(p, y, weights=w)
    cr = m.calibration(pr, yr)
    np.testing.assert_allclose(cw["mean_predicted"], cr["mean_predicted"], rtol=1e-12)
    np.testing.assert_allclose(cw["mean_observed"], cr["mean_observed"], rtol=1e-12)


def test_mask_equals_subset():
    rng = np.random.default_rng(6)
    p, y = rng.random(30), rng.choice([0.0, 1.0], 30)
    mask = rng.random(30) < 0.5
    assert m.summary(p, y, mask=mask) == m.summary(p[mask], y[mask])


# -- calibration --------------------------------------------------------------------


def test_calibration_table():
    p = [0.0, 0.05, 0.3, 0.3, 0.95, 1.0]
    y = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    t = m.calibration(p, y, bins=10)
    assert set(t) == {"lower", "upper", "count", "mean_predicted", "mean_observed"}
    np.testing.assert_array_equal(t["lower"], np.arange(10) / 10)
    np.testing.assert_array_equal(t["upper"], np.arange(1, 11) / 10)
    assert t["count"].tolist() == [2, 0, 0, 2, 0, 0, 0, 0, 0, 2]  # 0.3 in [0.3, 0.4), 1 last
    assert t["mean_predicted"][0] == pytest.approx(0.025)
    assert t["mean_observed"][0] == 0.5
    assert t["mean_observed"][3] == 0.5
    assert t["mean_predicted"][9] == pytest.approx(0.975)
    assert np.isnan(t["mean_predicted"][1]) and np.isnan(t["mean_observed"][5])


@pytest.mark.parametrize("bins", [1, 3, 10, 20])
def test_calibration_counts_sum_to_n(bins):
    rng = np.random.default_rng(bins)
    p = np.concatenate([rng.random(300), np.arange(bins + 1) / bins])  # edges included
    y = rng.choice([0.0, 0.5, 1.0], p.shape[0])
    t = m.calibration(p, y, bins=bins)
    assert t["count"].sum() == p.shape[0]
    ok = t["count"] > 0
    assert np.all(t["mean_predicted"][ok] >= t["lower"][ok])
    assert np.all(t["mean_predicted"][ok] <= t["upper"][ok])


def test_calibration_edge_lands_in_its_own_bin_for_every_bin_count():
    """p = i / bins lands in bin i (the last bin also holds p = 1), and the float just
    below the edge in bin i - 1, for every bin count up to 200 (a rule broken only for
    many bins, where i / bins and p * bins round apart, passed the other tests)."""
    for bins in range(1, 201):
        edges = np.arange(bins + 1) / bins
        below = np.nextafter(edges[1:], -np.inf)
        p = np.concatenate([edges, below])
        t = m.calibration(p, np.zeros(p.shape[0]), bins=bins)
        want = np.zeros(bins, dtype=np.int64)
        np.add.at(want, np.minimum(np.arange(bins + 1), bins - 1), 1)
        np.add.at(want, np.arange(bins), 1)
        np.testing.assert_array_equal(t["count"], want, err_msg=f"bins={bins}")
        np.testing.assert_array_equal(t["lower"], edges[:-1])
        for i in range(bins):  # each edge alone, to see where exactly it went
            one = m.calibration([edges[i]], [0.0], bins=bins)["count"]
            assert one[i] == 1, (bins, i)


def test_calibration_quantile_bins():
    rng = np.random.default_rng(8)
    p = rng.random(1000)
    y = (rng.random(1000) < p).astype(float)
    t = m.calibration(p, y, bins=10, strategy="quantile")
    assert t["count"].sum() == 1000
    assert t["count"].min() >= 99 and t["count"].max() <= 101
    assert t["lower"][0] == p.min() and t["upper"][-1] == p.max()
    # repeated predictions merge edges
    t2 = m.calibration([0.5] * 7 + [0.7] * 3, [1] * 10, bins=10, strategy="quantile")
    assert t2["count"].sum() == 10 and len(t2["count"]) <= 2
    t3 = m.calibration([0.5, 0.5], [1, 0], strategy="quantile")
    assert t3["count"].tolist() == [2]


# -- equivalence with the reference ---------------------------------------------------

probs = st.one_of(st.sampled_from([0.0, 0.5, 1.0, 0.3, 0.7]),
                  st.floats(0.0, 1.0, allow_nan=False))
results = st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0, allow_nan=False))


@st.composite
def scored_games(draw):
    n = draw(st.integers(0, 40))
    p = draw(st.lists(probs, min_size=n, max_size=n))
    y = draw(st.lists(results, min_size=n, max_size=n))
    weight = st.one_of(st.just(0.0), st.floats(1e-3, 10.0))
    w = draw(st.none() | st.lists(weight, min_size=n, max_size=n))
    mask = draw(st.none() | st.lists(st.booleans(), min_size=n, max_size=n))
    return p, y, w, mask


def _close(a, b):
    if math.isnan(b):
        return math.isnan(a)
    return a == pytest.approx(b, rel=1e-9, abs=1e-12)


@settings(max_examples=60)
@given(scored_games())
def test_metrics_equal_reference(case):
    p, y, w, mask = case
    warr = None if w is None else np.array(w)
    marr = None if mask is None else np.array(mask, dtype=bool)
    assert _close(m.log_loss(p, y, warr, marr), ref.log_loss(p, y, w, mask))
    assert _close(m.binomial_deviance(p, y, warr, marr), ref.binomial_deviance(p, y, w, mask))
    assert _close(m.brier(p, y, warr, marr), ref.brier(p, y, w, mask))
    assert _close(m.rmse(p, y, warr, marr), ref.rmse(p, y, w, mask))
    for draws in m.DRAWS:
        assert _close(m.accuracy(p, y, warr, marr, draws=draws),
                      ref.accuracy(p, y, w, mask, draws=draws))


@settings(max_examples=40)
@given(scored_games(), st.integers(1, 12))
def test_calibration_equals_reference(case, bins):
    p, y, w, mask = case
    warr = None if w is None else np.array(w)
    marr = None if mask is None else np.array(mask, dtype=bool)
    got = m.calibration(p, y, bins=bins, weights=warr, mask=marr)
    want = ref.calibration(p, y, bins=bins, w=w, mask=mask)
    assert got["count"].tolist() == want["count"]
    assert got["count"].sum() == (len(p) if mask is None else sum(mask))
    np.testing.assert_array_equal(got["lower"], want["lower"])
    np.testing.assert_array_equal(got["upper"], want["upper"])
    for k in ("mean_predicted", "mean_observed"):
        for a, b in zip(got[k].tolist(), want[k]):
            assert _close(a, b), (k, a, b)


# -- bad input ------------------------------------------------------------------------


@pytest.mark.parametrize("args,kwargs,exc,match", [
    (([0.5, 0.5], [1]), {}, InputError,
     r"predictions and outcomes must have the same length; got 2 predictions and 1"),
    (([0.5, 1.5], [1, 0]), {}, InputError,
     r"column 'predictions' must be in \[0, 1\]; found 1.5 at row 2"),
    (([0.5, 0.5], [1, -1]), {}, InputError,
     r"column 'outcomes' must be in \[0, 1\]; found -1.0 at row 2"),
    (([0.5, float("nan")], [1, 0]), {}, InputError,
     r"column 'predictions' must be a finite number .* at row 2"),
    (([0.5, "x"], [1, 0]), {}, InputError, r"column 'predictions' must be numeric"),
    (([0.5, 0.5], [1, 0]), {"weights": [1.0, -2.0]}, InputError,
     r"column 'weights' must be >= 0; found -2.0 at row 2"),
    (([0.5, 0.5], [1, 0]), {"weights": [1.0]}, InputError,
     r"weights must have one value per prediction \(2\); got 1"),
    (([0.5, 0.5], [1, 0]), {"mask": [1, 0]}, InputTypeError, r"mask must be a boolean array"),
    (([0.5, 0.5], [1, 0]), {"mask": [True]}, InputError,
     r"mask must have one value per prediction \(2\); got 1"),
    (([[0.5], [0.5]], [1, 0]), {}, InputError, r"column 'predictions' must be one-dimensional"),
])
def test_bad_input(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        m.log_loss(*args, **kwargs)


def test_bad_options():
    with pytest.raises(ConfigError, match=r"draws must be one of 'exclude', 'half'; got 'x'"):
        m.accuracy([0.5], [1], draws="x")
    with pytest.raises(ConfigError, match=r"draws must be one of"):
        m.summary([0.5], [1], draws="ignore")
    with pytest.raises(ConfigError, match=r"bins must be an integer >= 1; got 0"):
        m.calibration([0.5], [1], bins=0)
    with pytest.raises(ConfigError, match=r"bins must be an integer >= 1; got 2.5"):
        m.calibration([0.5], [1], bins=2.5)
    with pytest.raises(ConfigError, match=r"strategy must be one of 'uniform', 'quantile'"):
        m.calibration([0.5], [1], strategy="deciles")
