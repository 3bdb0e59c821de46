"""FIBS throughput: fastrate against the slow pure-Python reference of the tests.

The workload's games become backgammon matches: decisive (a draw goes to the first
player) with match lengths 1, 3, 5, 7 or 9 drawn from a fixed seed. The reference
(``tests/reference/fibs.py``, written from the FIBS text) is timed on a 20k-match
subsample after checking that it gives fastrate's ratings; the ratio is fastrate's
matches/s over the reference's.

    pytest bench/bench_fibs.py --benchmark-only -m large
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from bench.conftest import SIZE_PARAMS
from bench.generate import subsample
from fastrate import fibs
from fastrate.data import Games

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from reference import fibs as ref  # noqa: E402

PEER_MATCHES = 20_000


def as_matches(games: Games) -> Games:
    """Decisive games with match lengths (the ``weight``), same players and periods."""
    rng = np.random.default_rng(5)
    length = rng.choice(np.array([1.0, 3.0, 5.0, 7.0, 9.0]), games.n_games)
    return Games(white=games.white, black=games.black,
                 score=(games.score >= 0.5).astype(np.float64), players=games.players,
                 period=games.period, weight=length)


@pytest.fixture
def matches(games):
    return as_matches(games)


@pytest.mark.parametrize("size", SIZE_PARAMS)
def bench_fibs_fastrate(throughput, matches, size):
    throughput.info.update(implementation="fastrate", size=size, unit="matches")
    result = throughput(lambda: fibs.rate(matches), matches.n_games)
    assert np.isfinite(result.rating).all()


@pytest.mark.parametrize("size", ["small"])
def bench_fibs_reference(throughput, matches, size):
    sub = subsample(matches, PEER_MATCHES)
    sub = Games(white=sub.white, black=sub.black, score=sub.score, players=sub.players,
                weight=matches.weight[:sub.n_games])
    names = sub.players.names
    rows = [(names[w], names[b], n) if s == 1.0 else (names[b], names[w], n)
            for w, b, s, n in zip(sub.white.tolist(), sub.black.tolist(), sub.score.tolist(),
                                  sub.weight.tolist())]
    want, _, _ = ref.fibs(rows)
    got = fibs.rate(sub)
    for name, r in list(want.items())[:200]:
        assert got[name] == pytest.approx(r, abs=1e-6)
    throughput.info.update(implementation="python reference", size=size, unit="matches")
    throughput(lambda: ref.fibs(rows), len(rows), rounds=3)
