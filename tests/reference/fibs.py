"""A slow, obviously-correct pure-Python FIBS rating, written from SPEC §5 and the FIBS
``help formula`` text only (not from the kernel), used as the oracle in
tests/test_fibs.py.

Players are dict keys; matches are ``(winner, loser, length)`` tuples in order. The
formula is written the way FIBS states it: ``D = |r1 - r2|``,
``P_upset = 1 / (10 ** (D * sqrt(n) / 2000) + 1)``, ``P = P_upset`` if the favourite won
and ``1 - P_upset`` if the underdog won (equal ratings: ``P = 1/2``); the winner gains
``4 * K * sqrt(n) * P`` and the loser loses ``4 * K * sqrt(n) * P`` with each player's own
``K = max(1, 5 - experience / 100)``, experience counted before the match.
"""

from __future__ import annotations

import math


def fibs(matches, initial_rating=1500.0, use_experience=True, k=1.0, initial=None,
         initial_experience=None):
    """Return ``(ratings, experience, predictions)``; ``predictions[i]`` is the chance the
    winner of match ``i`` had before it."""
    rating = dict(initial or {})
    experience = dict(initial_experience or {})
    predictions = []
    for winner, loser, n in matches:
        rw = rating.setdefault(winner, initial_rating)
        rl = rating.setdefault(loser, initial_rating)
        ew = experience.setdefault(winner, 0.0)
        el = experience.setdefault(loser, 0.0)
        d = abs(rw - rl)
        upset = 1.0 / (10.0 ** (d * math.sqrt(n) / 2000.0) + 1.0)
        if rw > rl:  # favourite won
            p = upset
        elif rw < rl:  # underdog won
            p = 1.0 - upset
        else:
            p = 0.5
        predictions.append(1.0 - p)
        if use_experience:
            kw = max(1.0, 5.0 - ew / 100.0)
            kl = max(1.0, 5.0 - el / 100.0)
        else:
            kw = kl = k
        rating[winner] = rw + 4.0 * kw * math.sqrt(n) * p
        rating[loser] = rl - 4.0 * kl * math.sqrt(n) * p
        experience[winner] = ew + n
        experience[loser] = el + n
    return rating, experience, predictions
