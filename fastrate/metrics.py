"""Scores of probabilistic predictions of two-player games (SPEC §7).

The match metrics at the end of the module (:func:`match_summary`) score predictions
of team and free-for-all matches: each team's probability of winning, and each pair of
teams' expected score.

Every two-player function takes ``p``, the predicted score of the first player (his expected
score, a probability in [0, 1]) and ``y``, his actual score (1 win, 0.5 draw, 0 loss,
or a fraction in [0, 1]), plus optional per-game ``weights`` (non-negative; the
metrics become weighted means) and a boolean ``mask`` selecting the games to score.

* ``log_loss = -mean(y ln p + (1-y) ln(1-p))`` with ``p`` clipped to
  ``[1e-15, 1 - 1e-15]`` (so a confident wrong prediction costs about 34.5, not inf);
* ``binomial_deviance = -mean(y log10 p + (1-y) log10(1-p))``, the same clipping
  (Kaggle's "Elo vs the rest of the world"); it equals ``log_loss / ln 10``;
* ``brier = mean((p - y)^2)`` and ``rmse = sqrt(brier)``;
* ``accuracy`` -- how often the favourite won, with draws excluded or counted as half
  (see :func:`accuracy`);
* ``calibration`` -- a table of predicted against observed scores by bins of ``p``.

An empty selection (no games, a mask with no ``True``, zero total weight, or no
decisive game for ``accuracy(draws="exclude")``) scores ``nan``. Inputs are checked
once: lengths must agree and values must be finite and in [0, 1].
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import as_1d, as_float64, check_range, fail_at
from fastrate.errors import ConfigError, InputError, InputTypeError

__all__ = ["EPS", "DRAWS", "log_loss", "binomial_deviance", "brier", "rmse", "accuracy",
           "calibration", "summary", "ScoreSums", "MatchScoreSums", "METRICS", "check_draws",
           "MATCH_METRICS", "match_summary", "expected_ranks", "rank_correlation",
           "winner_outcomes", "two_player_win_probabilities"]

#: predictions are clipped to ``[EPS, 1 - EPS]`` before taking logarithms
EPS = 1e-15
#: the two accuracy conventions
DRAWS = ("exclude", "half")
#: the scalar metrics :func:`summary` reports, in order
METRICS = ("log_loss", "deviance", "brier", "rmse", "accuracy")

_LN10 = math.log(10.0)


# ----------------------------------------------------------------------------------
# input checks


def _prepare(p: Any, y: Any, weights: Any = None, mask: Any = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Validate and select: return ``(p, y, w)`` restricted to ``mask`` (``w`` or None)."""
    pa = as_float64(p, "predictions")
    ya = as_float64(y, "outcomes")
    n = pa.shape[0]
    if ya.shape[0] != n:
        raise InputError(f"predictions and outcomes must have the same length; got {n} "
                         f"predictions and {ya.shape[0]} outcomes")
    check_range(pa, "predictions", 0.0, 1.0)
    check_range(ya, "outcomes", 0.0, 1.0)
    wa = None
    if weights is not None:
        wa = as_float64(weights, "weights")
        if wa.shape[0] != n:
            raise InputError(f"weights must have one value per prediction ({n}); got "
                             f"{wa.shape[0]}")
        neg = wa < 0
        if neg.any():
            raise fail_at("weights", "must be >= 0", wa, int(np.argmax(neg)))
    if mask is not None:
        m = _check_mask(mask, n)
        if not m.all():
            pa, ya = pa[m], ya[m]
            wa = None if wa is None else wa[m]
    return pa, ya, wa


def _check_mask(mask: Any, n: int) -> np.ndarray:
    """``mask`` as a C-contiguous boolean array of ``n`` values (True = score the game)."""
    m = as_1d(mask, "mask")
    if m.dtype.kind != "b":
        raise InputTypeError(f"mask must be a boolean array (True = score the game); got "
                             f"dtype {m.dtype}")
    if m.shape[0] != n:
        raise InputError(f"mask must have one value per prediction ({n}); got {m.shape[0]}")
    return np.ascontiguousarray(m)


def _mean(x: np.ndarray, w: np.ndarray | None) -> float:
    """(Weighted) mean; ``nan`` for an empty selection or zero total weight."""
    if x.shape[0] == 0:
        return math.nan
    if w is None:
        return float(np.mean(x))
    total = float(np.sum(w))
    if total == 0.0:
        return math.nan
    return float(np.dot(w, x) / total)


def check_draws(draws: str) -> str:
    if draws not in DRAWS:
        raise ConfigError(f"draws must be one of 'exclude', 'half'; got {draws!r}")
    return draws


def _log_terms(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-game ``-(y ln p + (1-y) ln(1-p))`` with ``p`` clipped to [EPS, 1-EPS]."""
    pc = np.clip(p, EPS, 1.0 - EPS)
    return -(y * np.log(pc) + (1.0 - y) * np.log1p(-pc))


def _hits(p: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-game credit of the favourite: 1 won, 0 lost, 0.5 for a draw or ``p == 0.5``."""
    fav = np.sign(p - 0.5)
    res = np.sign(y - 0.5)
    return np.where((fav == 0) | (res == 0), 0.5, (fav == res).astype(np.float64))


# ----------------------------------------------------------------------------------
# running sums: the scores of games that arrive in chunks


#: slots of :class:`ScoreSums`' accumulator: (sum, compensation) pairs from _W on
_N, _W, _LL, _BR, _HIT, _DEC_N, _DEC_W, _DEC_HIT = 0, 2, 4, 6, 8, 10, 12, 14
_SLOTS = 16


@inline_kernel
def _add(acc, slot, x):
    """``acc[slot] += x`` with Neumaier's compensation kept in ``acc[slot + 1]``: the
    sum of the values in order, whatever chunks they come in."""
    s = acc[slot]
    t = s + x
    if abs(s) >= abs(x):
        acc[slot + 1] += (s - t) + x
    else:
        acc[slot + 1] += (x - t) + s
    acc[slot] = t


@inline_kernel
def _neumaier(s, c, x):
    """One step of Neumaier's compensated sum: ``(s + x, compensation)`` (as
    :func:`_add`, on values held in registers)."""
    t = s + x
    if abs(s) >= abs(x):
        c += (s - t) + x
    else:
        c += (x - t) + s
    return t, c


@kernel
def _score_sums_kernel(p, y, w, mask, eps, bins, acc, count, bin_sums):
    """Add games ``p``/``y`` (weights ``w``, mask ``mask``: length 0 = none) to the
    running sums ``acc`` and, with ``bins`` > 0, to the uniform calibration bins
    (``count``; ``bin_sums`` rows: weight, weight * p, weight * y; bin edges i / bins
    as :func:`calibration` draws them). The sums are held in locals through the loop
    (the same additions in the same order as :func:`_add` on ``acc``: the same bits,
    about twice as fast as going through the array, which may alias the inputs)."""
    has_w = w.shape[0] > 0
    has_m = mask.shape[0] > 0
    n_all, n_dec = acc[_N], acc[_DEC_N]
    sw, cw = acc[_W], acc[_W + 1]
    sll, cll = acc[_LL], acc[_LL + 1]
    sbr, cbr = acc[_BR], acc[_BR + 1]
    shit, chit = acc[_HIT], acc[_HIT + 1]
    sdw, cdw = acc[_DEC_W], acc[_DEC_W + 1]
    sdh, cdh = acc[_DEC_HIT], acc[_DEC_HIT + 1]
    for i in range(p.shape[0]):
        if has_m and not mask[i]:
            continue
        pi = p[i]
        yi = y[i]
        wi = w[i] if has_w else 1.0
        pc = min(max(pi, eps), 1.0 - eps)
        # y ln p + (1 - y) ln(1 - p); with y 0 or 1 the other term is an exact zero
        if yi == 1.0:
            ll = -math.log(pc)
        elif yi == 0.0:
            ll = -math.log1p(-pc)
        else:
            ll = -(yi * math.log(pc) + (1.0 - yi) * math.log1p(-pc))
        fav = pi - 0.5
        res = yi - 0.5
        hit = 0.5 if fav == 0.0 or res == 0.0 else (1.0 if (fav > 0.0) == (res > 0.0) else 0.0)
        n_all += 1.0
        sw, cw = _neumaier(sw, cw, wi)
        sll, cll = _neumaier(sll, cll, wi * ll)
        sbr, cbr = _neumaier(sbr, cbr, wi * (pi - yi) * (pi - yi))
        shit, chit = _neumaier(shit, chit, wi * hit)
        if res != 0.0:
            n_dec += 1.0
            sdw, cdw = _neumaier(sdw, cdw, wi)
            sdh, cdh = _neumaier(sdh, cdh, wi * hit)
        if bins > 0:
            k = min(int(pi * bins), bins - 1)
            # p * bins can round across an edge: the edges (k / bins) decide
            if pi < k / bins:
                k -= 1
            elif k < bins - 1 and pi >= (k + 1) / bins:
                k += 1
            count[k] += 1
            bin_sums[0, k] += wi
            bin_sums[1, k] += wi * pi
            bin_sums[2, k] += wi * yi
    acc[_N], acc[_DEC_N] = n_all, n_dec
    acc[_W], acc[_W + 1] = sw, cw
    acc[_LL], acc[_LL + 1] = sll, cll
    acc[_BR], acc[_BR + 1] = sbr, cbr
    acc[_HIT], acc[_HIT + 1] = shit, chit
    acc[_DEC_W], acc[_DEC_W + 1] = sdw, cdw
    acc[_DEC_HIT], acc[_DEC_HIT + 1] = sdh, cdh


class ScoreSums:
    """The running sums behind :func:`summary` and the uniform :func:`calibration`:
    :meth:`add` games in any number of chunks, then read :meth:`summary` /
    :meth:`calibration`. Every sum adds the games in order (compensated), so chunks give
    the same bits as one call, which is how :func:`summary` itself computes.

    >>> acc = ScoreSums(bins=2)
    >>> acc.add([0.8, 0.3], [1.0, 0.0])
    >>> acc.add([0.6], [0.5])
    >>> round(acc.summary()["log_loss"], 6) == round(log_loss([0.8, 0.3, 0.6], [1, 0, 0.5]), 6)
    True
    >>> acc.calibration()["count"].tolist()
    [1, 2]
    """

    def __init__(self, bins: int = 0):
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 0:
            raise ConfigError(f"bins must be an integer >= 1; got {bins!r}")
        self.bins = int(bins)
        self.acc = np.zeros(_SLOTS)
        self.count = np.zeros(self.bins, dtype=np.int64)
        self.bin_sums = np.zeros((3, self.bins))

    def add(self, p: Any, y: Any, weights: Any = None, mask: Any = None) -> None:
        """Add games (validated as every metric's input is)."""
        pa, ya, wa = _prepare(p, y, weights, None)
        m = np.zeros(0, dtype=np.bool_) if mask is None else _check_mask(mask, pa.shape[0])
        _score_sums_kernel(pa, ya, np.zeros(0) if wa is None else wa, m, EPS, self.bins,
                           self.acc, self.count, self.bin_sums)

    def _mean(self, slot: int, weight_slot: int) -> float:
        total = self.acc[weight_slot] + self.acc[weight_slot + 1]
        if total == 0.0:
            return math.nan
        return float((self.acc[slot] + self.acc[slot + 1]) / total)

    def summary(self, draws: str = "exclude") -> dict[str, float | int]:
        """``n``, ``log_loss``, ``deviance``, ``brier``, ``rmse``, ``accuracy`` (as
        :func:`summary`)."""
        check_draws(draws)
        ll = self._mean(_LL, _W)
        br = self._mean(_BR, _W)
        acc = self._mean(_DEC_HIT, _DEC_W) if draws == "exclude" else self._mean(_HIT, _W)
        return {"n": int(self.acc[_N]), "log_loss": ll, "deviance": ll / _LN10, "brier": br,
                "rmse": math.sqrt(br), "accuracy": acc}

    def calibration(self) -> dict[str, np.ndarray]:
        """The uniform calibration table (as :func:`calibration`)."""
        if self.bins == 0:
            raise ConfigError("these sums were kept without calibration bins (bins=0)")
        edges = np.arange(self.bins + 1, dtype=np.float64) / self.bins
        wsum, psum, ysum = self.bin_sums
        ok = wsum > 0
        mean_p = np.full(self.bins, np.nan)
        mean_y = np.full(self.bins, np.nan)
        mean_p[ok] = psum[ok] / wsum[ok]
        mean_y[ok] = ysum[ok] / wsum[ok]
        return {"lower": edges[:-1].copy(), "upper": edges[1:].copy(),
                "count": self.count.copy(), "mean_predicted": mean_p, "mean_observed": mean_y}


# ----------------------------------------------------------------------------------
# metrics


def log_loss(p: Any, y: Any, weights: Any = None, mask: Any = None) -> float:
    """Mean negative log-likelihood (natural log), ``-mean(y ln p + (1-y) ln(1-p))``.

    ``p`` is clipped to ``[1e-15, 1 - 1e-15]``. Always predicting 0.5 scores
    ``ln 2 = 0.6931``.

    >>> round(log_loss([0.8, 0.3], [1, 0]), 6)   # -(ln 0.8 + ln 0.7) / 2
    0.289909
    """
    pa, ya, wa = _prepare(p, y, weights, mask)
    return _mean(_log_terms(pa, ya), wa)


def binomial_deviance(p: Any, y: Any, weights: Any = None, mask: Any = None) -> float:
    """Binomial deviance, ``-mean(y log10 p + (1-y) log10(1-p))`` (Kaggle's chess
    rating competitions); the same clipping as :func:`log_loss`, whose value it is
    divided by ``ln 10``. Always predicting 0.5 scores ``log10 2 = 0.3010``."""
    pa, ya, wa = _prepare(p, y, weights, mask)
    return _mean(_log_terms(pa, ya), wa) / _LN10


def brier(p: Any, y: Any, weights: Any = None, mask: Any = None) -> float:
    """Brier score (mean squared error of the expected score), ``mean((p - y)^2)``."""
    pa, ya, wa = _prepare(p, y, weights, mask)
    return _mean((pa - ya) ** 2, wa)


def rmse(p: Any, y: Any, weights: Any = None, mask: Any = None) -> float:
    """Root mean squared error of the expected score, ``sqrt(brier)``."""
    return math.sqrt(brier(p, y, weights, mask))


def accuracy(p: Any, y: Any, weights: Any = None, mask: Any = None,
             draws: str = "exclude") -> float:
    """How often the favourite (``p > 0.5`` for the first player) won.

    A game's credit is 1 when the favourite won, 0 when he lost, and 0.5 when the
    prediction was exactly 0.5 (no favourite) or the game was drawn. A result ``y``
    above 0.5 is a win of the first player, below 0.5 a loss, exactly 0.5 a draw.

    * ``draws="exclude"`` (default): the mean credit over decisive games only (draws
      left out); ``nan`` if there is none.
    * ``draws="half"``: the mean credit over every game, a draw counting 0.5.

    >>> accuracy([0.8, 0.3, 0.6], [1, 1, 0.5])
    0.5
    >>> accuracy([0.8, 0.3, 0.6], [1, 1, 0.5], draws="half")
    0.5
    """
    check_draws(draws)
    pa, ya, wa = _prepare(p, y, weights, mask)
    if draws == "exclude":
        decisive = ya != 0.5
        if not decisive.all():
            pa, ya = pa[decisive], ya[decisive]
            wa = None if wa is None else wa[decisive]
    return _mean(_hits(pa, ya), wa)


def calibration(p: Any, y: Any, bins: int = 10, weights: Any = None, mask: Any = None,
                strategy: str = "uniform") -> dict[str, np.ndarray]:
    """Predicted against observed score by bins of the prediction.

    ``strategy="uniform"`` (default): ``bins`` equal-width bins of [0, 1]; bin ``i``
    holds ``i/bins <= p < (i+1)/bins`` (edges computed as ``i / bins``), the last bin
    also ``p == 1``. Every bin is
    listed, empty ones with ``count`` 0 and ``nan`` means.
    ``strategy="quantile"``: bin edges at the quantiles of ``p`` (deciles for
    ``bins=10``), so the bins hold about equally many games; repeated edges are merged,
    so there may be fewer rows than ``bins``.

    Returns a dict of equal-length arrays: ``lower``, ``upper`` (bin edges), ``count``
    (games in the bin), ``mean_predicted`` and ``mean_observed`` (weighted means when
    ``weights`` are given). The counts sum to the number of scored games.
    """
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise ConfigError(f"bins must be an integer >= 1; got {bins!r}")
    if strategy not in ("uniform", "quantile"):
        raise ConfigError(f"strategy must be one of 'uniform', 'quantile'; got {strategy!r}")
    bins = int(bins)
    if strategy == "uniform":
        acc = ScoreSums(bins)
        acc.add(p, y, weights, mask)
        return acc.calibration()
    pa, ya, wa = _prepare(p, y, weights, mask)
    if pa.shape[0] == 0:
        edges = np.array([0.0, 1.0])
    else:
        edges = np.unique(np.quantile(pa, np.linspace(0.0, 1.0, bins + 1)))
        if edges.shape[0] == 1:
            edges = np.array([edges[0], edges[0]])
    nb = edges.shape[0] - 1
    idx = np.clip(np.searchsorted(edges, pa, side="right") - 1, 0, nb - 1)
    bins = nb
    count = np.bincount(idx, minlength=bins).astype(np.int64)
    w = np.ones(pa.shape[0]) if wa is None else wa
    wsum = np.bincount(idx, weights=w, minlength=bins)
    psum = np.bincount(idx, weights=w * pa, minlength=bins)
    ysum = np.bincount(idx, weights=w * ya, minlength=bins)
    ok = wsum > 0
    mean_p = np.full(bins, np.nan)
    mean_y = np.full(bins, np.nan)
    mean_p[ok] = psum[ok] / wsum[ok]
    mean_y[ok] = ysum[ok] / wsum[ok]
    return {"lower": edges[:-1].copy(), "upper": edges[1:].copy(), "count": count,
            "mean_predicted": mean_p, "mean_observed": mean_y}


def summary(p: Any, y: Any, weights: Any = None, mask: Any = None,
            draws: str = "exclude") -> dict[str, float | int]:
    """Every scalar metric at once: ``n`` (games scored), ``log_loss``, ``deviance``,
    ``brier``, ``rmse`` and ``accuracy`` (with the given draw convention), computed as
    running sums (:class:`ScoreSums`), so that games scored in chunks give the same
    bits."""
    check_draws(draws)
    acc = ScoreSums()
    acc.add(p, y, weights, mask)
    return acc.summary(draws)


# ----------------------------------------------------------------------------------
# matches of two or more teams

#: the scalar metrics :func:`match_summary` reports, in order
MATCH_METRICS = ("winner_log_loss", "winner_accuracy", "pair_log_loss", "pair_accuracy",
                 "rank_correlation")


def two_player_win_probabilities(p: Any) -> np.ndarray:
    """Both sides' win probabilities ``p, 1 - p`` of two-player matches (interleaved, as
    a match's teams are stored) from the first side's expected score ``p``."""
    p = np.asarray(p, dtype=np.float64)
    win = np.empty(2 * p.shape[0], dtype=np.float64)
    win[0::2] = p
    win[1::2] = 1.0 - p
    return win


def winner_outcomes(rank: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each team's share of the win: ``1/k`` for each of the ``k`` teams ranked first in
    their match (1 for a lone winner), 0 for the others."""
    from fastrate.data._csr import group_of

    first = rank == 1
    k = np.bincount(group_of(offsets), weights=first.astype(np.float64),
                    minlength=offsets.shape[0] - 1)
    return np.where(first, 1.0 / np.maximum(k, 1.0)[group_of(offsets)], 0.0)


def expected_ranks(pair: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each team's expected rank from the pair predictions: ``1 + sum_j P(j beats i)``,
    with ``pair[k]`` the first team's expected score against the second for the pairs
    of :func:`fastrate.data._csr.pair_members` (a draw counts half each way)."""
    from fastrate.data._csr import pair_members

    first, second = pair_members(offsets)
    n = int(offsets[-1])
    lost = np.bincount(first, weights=1.0 - pair, minlength=n)
    lost += np.bincount(second, weights=pair, minlength=n)
    return 1.0 + lost


def _average_ranks(key: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Within each group, the 1-based rank of ``key`` (lower first), ties averaged."""
    from fastrate.data._csr import group_of, run_starts

    grp = group_of(offsets)
    order = np.lexsort((key, grp))
    pos = np.arange(key.shape[0], dtype=np.float64) - offsets[grp[order]] + 1.0
    new = np.ones(key.shape[0], dtype=np.bool_)
    new[1:] = (grp[order][1:] != grp[order][:-1]) | (key[order][1:] != key[order][:-1])
    starts = run_starts(np.cumsum(new))
    sizes = np.diff(starts)
    first_pos = pos[starts[:-1]]
    avg = np.repeat(first_pos + (sizes - 1) / 2.0, sizes)
    out = np.empty(key.shape[0], dtype=np.float64)
    out[order] = avg
    return out


def rank_correlation(predicted_rank: np.ndarray, rank: np.ndarray, offsets: np.ndarray
                     ) -> np.ndarray:
    """Spearman's rank correlation of predicted and actual ranks in every match (ties
    get average ranks; predicted ranks equal to 9 decimals are a tie, so that rounding
    in their sums does not order equal teams); NaN for a match where either is
    constant (one cannot rank)."""
    from fastrate.data._csr import group_of

    a = _average_ranks(np.round(np.asarray(predicted_rank, np.float64), 9), offsets)
    b = _average_ranks(np.asarray(rank, np.float64), offsets)
    grp = group_of(offsets)
    m = offsets.shape[0] - 1
    cnt = np.bincount(grp, minlength=m).astype(np.float64)
    ma = np.bincount(grp, weights=a, minlength=m) / cnt
    mb = np.bincount(grp, weights=b, minlength=m) / cnt
    da, db = a - ma[grp], b - mb[grp]
    cov = np.bincount(grp, weights=da * db, minlength=m)
    va = np.bincount(grp, weights=da * da, minlength=m)
    vb = np.bincount(grp, weights=db * db, minlength=m)
    ok = (va > 1e-12) & (vb > 1e-12)
    out = np.full(m, np.nan)
    out[ok] = cov[ok] / np.sqrt(va[ok] * vb[ok])
    return out


def match_summary(win: Any, pair: Any, rank: Any, offsets: Any, mask: Any = None
                  ) -> dict[str, float | int]:
    """Every match metric at once, over the matches selected by ``mask`` (boolean per
    match; all when None).

    ``win``: each team's predicted probability of winning its match (teams in CSR order
    by ``offsets``, the match -> team offsets); ``pair``: each pair of teams' expected
    score (first team against second, pairs as :func:`fastrate.data._csr.pair_members`);
    ``rank``: the actual competition ranks (1 best, equal is a tie).

    * ``winner_log_loss``: mean over matches of ``-ln p(winner)`` (``p`` clipped to
      [EPS, 1]); ``k`` teams tied first each count ``1/k``;
    * ``winner_accuracy``: how often the favourite (the highest win probability; equal
      favourites share the credit) won, a share of first place counting as a win;
    * ``pair_log_loss``, ``pair_accuracy``: the two-player log loss and accuracy (draws
      excluded) of every pair of teams, a draw being a tie in rank;
    * ``rank_correlation``: mean Spearman correlation of the expected ranks
      (:func:`expected_ranks`) with the actual ranks, over matches where both vary;
    * ``n`` matches and ``n_pairs`` pairs scored.

    Computed as running sums (:class:`MatchScoreSums`), so that matches scored in chunks
    give the same bits.
    """
    acc = MatchScoreSums()
    acc.add(win, pair, rank, offsets, mask)
    return acc.summary()


#: slots of :class:`MatchScoreSums` (sum, compensation pairs; counts are exact floats)
_M_N, _M_LL, _M_ACC, _M_PN, _M_PLL, _M_PDN, _M_PHIT, _M_RN, _M_RHO = (
    0, 2, 4, 6, 8, 10, 12, 14, 16)


@kernel
def _add_sum_kernel(values, acc, slot):
    """Add ``values`` in order to the compensated sum at ``acc[slot]``."""
    for i in range(values.shape[0]):
        _add(acc, slot, values[i])


class MatchScoreSums:
    """The running sums behind :func:`match_summary`: :meth:`add` matches in any number
    of chunks (whole matches), then read :meth:`summary`; every sum adds its terms in
    order, so chunks give the same bits as one call."""

    def __init__(self) -> None:
        self.acc = np.zeros(18)

    def _sum(self, values: np.ndarray, slot: int) -> None:
        _add_sum_kernel(np.ascontiguousarray(values, dtype=np.float64), self.acc, slot)

    def add(self, win: Any, pair: Any, rank: Any, offsets: Any, mask: Any = None) -> None:
        """Add the matches of one chunk (arguments as :func:`match_summary`)."""
        from fastrate.data._csr import group_of, pair_members, pair_offsets

        off = np.ascontiguousarray(offsets, dtype=np.int64)
        w = as_float64(win, "win probabilities")
        pr = as_float64(pair, "pair predictions")
        r = np.asarray(rank, dtype=np.int64)
        n_matches, n_teams = off.shape[0] - 1, int(off[-1])
        poff = pair_offsets(off)
        if w.shape[0] != n_teams or r.shape[0] != n_teams or pr.shape[0] != int(poff[-1]):
            raise InputError(f"a match prediction needs one win probability and rank per "
                             f"team ({n_teams}) and one value per pair ({int(poff[-1])}); "
                             f"got {w.shape[0]}, {r.shape[0]} and {pr.shape[0]}")
        check_range(w, "win probabilities", 0.0, 1.0)
        check_range(pr, "pair predictions", 0.0, 1.0)
        sel = (np.ones(n_matches, dtype=np.bool_) if mask is None
               else np.asarray(mask, np.bool_))
        grp = group_of(off)
        tsel = sel[grp]
        share = winner_outcomes(r, off)
        self.acc[_M_N] += float(sel.sum())
        self._sum(-(share[tsel] * np.log(np.clip(w[tsel], EPS, 1.0))), _M_LL)
        # the favourite: the teams with the match's highest win probability share credit
        top = np.full(n_matches, -np.inf)
        np.maximum.at(top, grp, w)
        fav = w == top[grp]
        n_fav = np.bincount(grp, weights=fav.astype(np.float64), minlength=n_matches)
        credit = np.bincount(grp, weights=(fav & (r == 1)).astype(np.float64),
                             minlength=n_matches)
        self._sum((credit / np.where(n_fav > 0, n_fav, 1.0))[sel], _M_ACC)
        first, second = pair_members(off)
        psel = sel[grp[first]]
        y = np.where(r[first] < r[second], 1.0, 0.5)
        self.acc[_M_PN] += float(psel.sum())
        self._sum(_log_terms(pr[psel], y[psel]), _M_PLL)
        dec = psel & (y != 0.5)
        self.acc[_M_PDN] += float(dec.sum())
        self._sum(_hits(pr[dec], y[dec]), _M_PHIT)
        rho = rank_correlation(expected_ranks(pr, off), r, off)[sel]
        rho = rho[~np.isnan(rho)]
        self.acc[_M_RN] += float(rho.shape[0])
        self._sum(rho, _M_RHO)

    def summary(self) -> dict[str, float | int]:
        """The metrics of :func:`match_summary` over every match added."""
        a = self.acc

        def mean(slot: int, count: float) -> float:
            return float((a[slot] + a[slot + 1]) / count) if count else math.nan

        n, n_pairs = int(a[_M_N]), int(a[_M_PN])
        return {"n": n, "n_pairs": n_pairs, "winner_log_loss": mean(_M_LL, a[_M_N]),
                "winner_accuracy": mean(_M_ACC, a[_M_N]),
                "pair_log_loss": mean(_M_PLL, a[_M_PN]),
                "pair_accuracy": mean(_M_PHIT, a[_M_PDN]),
                "rank_correlation": mean(_M_RHO, a[_M_RN])}
