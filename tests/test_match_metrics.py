"""Match metrics (fastrate.metrics.match_summary) against the slow reference, on random
matches of 2 to 6 teams with ties, and on a worked example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import metrics as ref

from fastrate import metrics
from fastrate.data._csr import pair_members
from fastrate.errors import InputError


def _arrays(matches):
    sizes = [len(w) for w, _, _ in matches]
    off = np.zeros(len(sizes) + 1, dtype=np.int64)
    off[1:] = np.cumsum(sizes)
    win = np.concatenate([w for w, _, _ in matches])
    rank = np.concatenate([r for _, _, r in matches]).astype(np.int64)
    first, second = pair_members(off)
    pair = np.empty(first.shape[0])
    for k, (i, j) in enumerate(zip(first, second)):
        m = int(np.searchsorted(off, i, side="right") - 1)
        pair[k] = matches[m][1][(int(i - off[m]), int(j - off[m]))]
    return win, pair, rank, off


@st.composite
def random_matches(draw):
    out = []
    for _ in range(draw(st.integers(1, 6))):
        t = draw(st.integers(2, 6))
        raw = draw(st.lists(st.floats(0.01, 1.0), min_size=t, max_size=t))
        win = np.array(raw) / sum(raw)
        ranks = sorted(draw(st.lists(st.integers(1, t), min_size=t, max_size=t)))
        # competition ranks: 1 + the number of teams strictly better
        rank = [1 + sum(r2 < r for r2 in ranks) for r in ranks]
        pair = {(i, j): draw(st.sampled_from([0.5, 0.2, 0.7, 0.9, 0.35]))
                for i in range(t) for j in range(i + 1, t)}
        out.append((list(win), pair, rank))
    return out


@settings(max_examples=60, deadline=None)
@given(random_matches(), st.data())
def test_match_summary_equals_reference(matches, data):
    mask = data.draw(st.lists(st.booleans(), min_size=len(matches), max_size=len(matches)))
    if not any(mask):
        mask[0] = True
    win, pair, rank, off = _arrays(matches)
    got = metrics.match_summary(win, pair, rank, off, np.array(mask))
    want = ref.match_summary(matches, mask)
    assert got.keys() == want.keys()
    for k, v in want.items():
        if isinstance(v, float) and math.isnan(v):
            assert math.isnan(got[k]), k
        else:
            assert got[k] == pytest.approx(v, rel=1e-12, abs=1e-12), k


def test_worked_example():
    # match 1: two teams, the favourite (0.7) wins; match 2: three teams, the first
    # wins, the other two tie
    win = np.array([0.7, 0.3, 0.5, 0.3, 0.2])
    rank = np.array([1, 2, 1, 2, 2])
    pair = np.array([0.7, 0.6, 0.8, 0.6])  # (0,1) | (2,3) (2,4) (3,4)
    s = metrics.match_summary(win, pair, rank, np.array([0, 2, 5]))
    assert s["n"] == 2 and s["n_pairs"] == 4
    assert s["winner_log_loss"] == pytest.approx((-math.log(0.7) - math.log(0.5)) / 2)
    assert s["winner_accuracy"] == 1.0
    tie = -(0.5 * math.log(0.6) + 0.5 * math.log(0.4))
    assert s["pair_log_loss"] == pytest.approx(
        (-math.log(0.7) - math.log(0.6) - math.log(0.8) + tie) / 4)
    assert s["pair_accuracy"] == 1.0  # the tie is not a decisive pair
    # expected ranks of match 2: 1 + (0.4 + 0.2), 1 + (0.6 + 0.4), 1 + (0.8 + 0.6)
    np.testing.assert_allclose(metrics.expected_ranks(pair, np.array([0, 2, 5]))[2:],
                               [1.6, 2.0, 2.4])
    # spearman of (1, 2, 3) against (1, 2.5, 2.5): sqrt(3)/2
    assert s["rank_correlation"] == pytest.approx((1.0 + math.sqrt(3) / 2) / 2)


def test_shared_wins_and_favourites():
    # two teams tied first share the win (and both count as winners for the favourite);
    # two equal favourites share the credit
    win = np.array([0.4, 0.4, 0.2])
    s = metrics.match_summary(win, np.array([0.5, 0.6, 0.6]), np.array([1, 1, 3]),
                              np.array([0, 3]))
    assert s["winner_log_loss"] == pytest.approx(-math.log(0.4))
    assert s["winner_accuracy"] == 1.0
    s = metrics.match_summary(win, np.array([0.5, 0.6, 0.6]), np.array([1, 2, 3]),
                              np.array([0, 3]))
    assert s["winner_accuracy"] == 0.5


def test_match_summary_checks_its_input():
    with pytest.raises(InputError, match=r"one win probability and rank per team \(2\) and "
                       r"one value per pair \(1\); got 2, 2 and 2"):
        metrics.match_summary([0.5, 0.5], [0.5, 0.5], [1, 2], np.array([0, 2]))
    with pytest.raises(InputError, match=r"win probabilities' must be in \[0, 1\]"):
        metrics.match_summary([1.5, 0.5], [0.5], [1, 2], np.array([0, 2]))
