"""Every per-player statistic of a ``(players, k)`` counts matrix in one sweep
(:func:`placement_stats`): the four chi-squares share one pass over a row, then the
standings and, with points, PPRG and GPG."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import kernel
from fastrate._special import chi2_sf
from fastrate._validate import require
from fastrate.errors import InputError
from fastrate.stats.placement._common import (
    GPG_CAP,
    KDICE_BUY_IN,
    as_counts,
    cell,
    is_uniform,
    moments,
    payoff_table,
    per_player,
    standings_kernel,
    yates_mode,
)
from fastrate.stats.placement.profiles import reference_profile
from fastrate.stats.placement.skill_tests import qooa

__all__ = ["placement_stats"]


@kernel
def _all_stats_kernel(counts, k, refs, inv_refs, yates, mu_s, sigma_s, payoff, buy_in, df,
                      games, chi2, pval, effect, test, tapl_, tazd_, takbe_, tstar, ci,
                      behind):
    """Every per-player count statistic in one sweep (see :func:`placement_stats`).

    refs/inv_refs: 4*k values, the main reference, uniform, TAZD, TAKBE profiles and
    their reciprocals. ``behind``: games behind the winners summed (k-player games).
    The four chi-squares share one pass over a row."""
    min_m = refs[0]
    min_u = refs[k]
    min_z = refs[2 * k]
    min_b = refs[3 * k]
    for j in range(k):
        min_m = min(min_m, refs[j])
        min_u = min(min_u, refs[k + j])
        min_z = min(min_z, refs[2 * k + j])
        min_b = min(min_b, refs[3 * k + j])
    inv_k1 = 1.0 / (k - 1)
    scale_ci = 1.0 / buy_in
    for i in range(games.shape[0]):
        base = i * k
        n = 0.0
        sp = 0.0
        sm = 0.0
        for j in range(k):
            c = counts[base + j]
            n += c
            sp += c * payoff[j]
            sm += c * j
        games[i] = n
        behind[i] = sm * inv_k1
        if n <= 0.0:
            chi2[i] = np.nan
            pval[i] = np.nan
            effect[i] = np.nan
            test[i] = np.nan
            tapl_[i] = np.nan
            tazd_[i] = np.nan
            takbe_[i] = np.nan
            tstar[i] = np.nan
            ci[i] = np.nan
            continue
        use_m = yates == 1 or (yates == 2 and n * min_m < 5.0)
        use_u = yates == 1 or (yates == 2 and n * min_u < 5.0)
        use_z = yates == 1 or (yates == 2 and n * min_z < 5.0)
        use_b = yates == 1 or (yates == 2 and n * min_b < 5.0)
        s_m = 0.0
        s_u = 0.0
        s_z = 0.0
        s_b = 0.0
        for j in range(k):
            c = float(counts[base + j])
            s_m += cell(c - n * refs[j], use_m) * inv_refs[j]
            s_u += cell(c - n * refs[k + j], use_u) * inv_refs[k + j]
            s_z += cell(c - n * refs[2 * k + j], use_z) * inv_refs[2 * k + j]
            s_b += cell(c - n * refs[3 * k + j], use_b) * inv_refs[3 * k + j]
        inv_n = 1.0 / n
        root = math.sqrt(n)
        scale = 1000.0 / (root * n)
        s = s_m * inv_n
        chi2[i] = s
        test[i] = s_m * scale
        effect[i] = math.sqrt(s * inv_n)
        pval[i] = chi2_sf(s, df)
        tapl_[i] = s_u * scale
        tazd_[i] = s_z * scale
        takbe_[i] = s_b * scale
        tstar[i] = root * (mu_s - 1.0 - sm * inv_n) / sigma_s * 1000.0
        ci[i] = sp * inv_n * scale_ci


@kernel
def _points_kernel(points, games, ci, cap, out_pprg, out_gpg):
    for i in range(points.shape[0]):
        g = games[i]
        if g > 0.0:
            out_pprg[i] = points[i] / math.sqrt(g)
            c = ci[i]
            if c > 0.0:
                v = points[i] / g / c
                out_gpg[i] = v if v < cap else cap
            else:
                out_gpg[i] = np.nan
        else:
            out_pprg[i] = np.nan
            out_gpg[i] = np.nan


def placement_stats(counts: Any, *, reference: Any = None, yates: bool | str = False,
                    payoff: Any = None, buy_in: float = KDICE_BUY_IN, points: Any = None,
                    levels: Any = None) -> dict[str, np.ndarray]:
    """Every per-player statistic in one sweep over the ``(players, k)`` counts.

    Columns (float64 arrays, one value per player):

    * ``games``; ``chi2``, ``p_value`` (df = k - 1), ``effect_size`` -- against
      ``reference`` (uniform by default; ``"tazd"``, ``"takbe"`` or a profile);
    * ``tapl`` (uniform), ``tazd`` and ``takbe`` (k = 7 only), and ``vs_reference``
      (chi2 / sqrt(n) * 1000 against a non-uniform ``reference``);
    * ``tazd_star`` -- against ``reference`` when it is not uniform, else against the
      TAZD profile (k = 7) or uniform (other k);
    * ``ci`` (default KDice payoffs for k = 7; other k need ``payoff``), ``games_behind``
      (baseball-style standings, every game a full k-player game);
    * with ``points`` (total points per player): ``pprg`` and ``gpg`` (needs ``ci``);
    * with ``levels`` (percentages at table levels 0..5): ``qooa`` and ``tapl_qooa``.

    ``yates`` (False, True, ``"auto"``) applies to every chi-square. A player with no
    games has NaN everywhere except ``games`` and ``games_behind``."""
    arr, single = as_counts(counts)
    if single:
        raise InputError("placement_stats takes a (players, places) matrix; wrap one "
                         "profile as [profile]")
    m, k = arr.shape
    mode = yates_mode(yates)
    ref_m = reference_profile(reference, k)
    ref_u = reference_profile(None, k)
    k7 = k == 7
    ref_z = reference_profile("tazd", k) if k7 else ref_u
    ref_b = reference_profile("takbe", k) if k7 else ref_u
    mu, sigma = moments(ref_z if is_uniform(reference) else ref_m)
    has_ci = payoff is not None or k7
    pay = payoff_table(payoff, k, buy_in) if has_ci else np.zeros(k)
    refs = np.concatenate([ref_m, ref_u, ref_z, ref_b])
    names = ("games", "chi2", "p_value", "effect_size", "vs_reference", "tapl", "tazd",
             "takbe", "tazd_star", "ci")
    cols = {name: np.empty(m) for name in names}
    behind = np.empty(m)
    _all_stats_kernel(arr.reshape(-1), k, refs, 1.0 / refs, mode, mu, sigma, pay,
                      float(buy_in), float(k - 1), *cols.values(), behind)
    if is_uniform(reference):
        del cols["vs_reference"]
    if not k7:
        del cols["tazd"], cols["takbe"]
    if not has_ci:
        del cols["ci"]
    cols["games_behind"] = np.empty(m)
    standings_kernel(cols["games"], behind, cols["games_behind"])
    if points is not None:
        p = require(per_player(points, "points").reshape(-1), np.float64)
        if p.shape[0] != m:
            raise InputError(f"'points' must have one value per player ({m}); got {p.shape[0]}")
        cols["pprg"] = np.empty(m)
        gpg = np.empty(m)
        _points_kernel(p, cols["games"], cols["ci"] if has_ci else np.zeros(m), GPG_CAP,
                       cols["pprg"], gpg)
        if has_ci:
            cols["gpg"] = gpg
    if levels is not None:
        q = np.asarray(qooa(levels), dtype=np.float64).reshape(-1)
        if q.shape[0] != m:
            raise InputError(f"'levels' must have one row per player ({m}); got {q.shape[0]}")
        cols["qooa"] = q
        cols["tapl_qooa"] = cols["tapl"] * q
    return cols
