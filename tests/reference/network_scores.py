"""Dense reference for Park & Newman's win-loss scores (SPEC §1.5; Park & Newman 2005,
bridge thesis §2.4): build ``A`` (``A_ij`` = wins of j over i, a draw half a win each
way, weights multiply) and solve ``(I - α Aᵀ) w = k_out``, ``(I - α A) l = k_in`` with
NumPy's dense solver; ``λ_max`` from the eigenvalues."""

from __future__ import annotations

import numpy as np


def win_matrix(white, black, score, n_players, weight=None):
    a = np.zeros((n_players, n_players))
    weight = np.ones(len(white)) if weight is None else np.asarray(weight, dtype=float)
    for w, b, s, g in zip(white, black, score, weight):
        a[b, w] += s * g          # w beat b
        a[w, b] += (1.0 - s) * g  # b beat w
    return a


def lambda_max(a):
    return float(np.max(np.abs(np.linalg.eigvals(a)))) if a.size else 0.0


def scores(white, black, score, n_players, alpha, weight=None):
    """``(s, w, l)`` for a given ``alpha``."""
    a = win_matrix(white, black, score, n_players, weight)
    k_out = a.sum(axis=0)  # sum_j A_ji: i's wins
    k_in = a.sum(axis=1)   # sum_j A_ij: i's losses
    eye = np.eye(n_players)
    w = np.linalg.solve(eye - alpha * a.T, k_out)
    loss = np.linalg.solve(eye - alpha * a, k_in)
    return w - loss, w, loss
