"""Backgammon: FIBS match-winning chances and ratings, error rates -> rating (SPEC §5).

* FIBS match-winning chance. A player ``D`` rating points above his opponent wins an
  ``N``-point match with probability ``1 / (1 + 10^(-D sqrt(N) / 2000))``; the underdog's
  chance is ``1 / (1 + 10^(D sqrt(N) / 2000))`` (:func:`fibs_win_probability`). The
  inverse, :func:`rating_diff_from_probability`, turns a (luck-adjusted) result ``p``
  into ``D = -2000 / sqrt(N) * log10(1/p - 1)``; gnubg clamps it below at -2100
  (``clamp=GNUBG_RATING_CLAMP``).
* FIBS rating (:func:`rate`). ``P`` is the winner's chance of having lost (the upset
  chance if the favourite won, one minus it if the underdog won); the winner gains
  ``4 K_w sqrt(N) P`` and the loser loses ``4 K_l sqrt(N) P``, each with his own
  ``K = max(1, 5 - experience/100)``, experience = sum of the lengths of the matches he
  finished *before* this one; everyone starts at 1500 with experience 0. Two new
  players in a 5-point match: ``4 * 5 * sqrt(5) * 0.5 = 22.36``. Clubs often use a
  constant K (1) and another start rating: ``FibsConfig(use_experience=False, k=1)``.
* Error rates -> rating (Kees van den Doel, "Backgammon playing errors and rating in
  GNUBG"): from the difference in error per decision ``R = (11971 + 23681/N) DEPD``
  (:func:`rating_from_depd`); the bilinear fit ``R = a2(N) EPM + b(N) EPC`` with
  ``a2(N) = 8798 + 25526/N``, ``b(N) = 863 - 519/N`` and ``R = 37916 EPM`` for ``N = 1``
  (no cube) (:func:`rating_from_errors`). gnubg's "error based absolute FIBS rating" is
  ``offset - R`` with the analysing program's rating offset (2050 on FIBS);
  :func:`estimate_rating` averages it over a set of matches with a Student-t interval.
* gnubg's skill classes by error rate (:func:`skill_class`): < 0.002 Supernatural,
  < 0.005 World class, < 0.008 Expert, < 0.012 Advanced, < 0.018 Intermediate,
  < 0.026 Casual player, < 0.035 Beginner, else Awful!; a rate on a boundary falls in
  the worse class.

Match lengths are whole numbers of points, at least 1. Sources: FIBS ``help formula``
(rec.games.backgammon archive); GNU Backgammon ``analysis.c`` (rating offset, skill
table, relative FIBS rating); van den Doel's study (the ``R`` fits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fastrate._numba import inline_kernel, kernel
from fastrate._validate import as_1d, as_float64, check_number, fail_at, require
from fastrate.data import Games, PlayerState, Ratings, initial_source
from fastrate.errors import ConfigError, InputError

__all__ = [
    "GNUBG_RATING_CLAMP", "SKILL_CLASSES", "SKILL_BOUNDS", "FibsConfig", "FibsRatings",
    "RatingEstimate", "fibs_win_probability", "fibs_upset_probability",
    "rating_diff_from_probability", "fibs_k", "rate", "evaluate", "rating_from_depd",
    "rating_from_errors", "estimate_rating", "skill_class", "student_t_cdf",
    "student_t_quantile",
]

#: gnubg's lower clamp of the rating difference computed from a luck-adjusted result
GNUBG_RATING_CLAMP = -2100.0
#: gnubg's skill labels, best first, and the upper bounds of all but the last
SKILL_CLASSES = ("Supernatural", "World class", "Expert", "Advanced", "Intermediate",
                 "Casual player", "Beginner", "Awful!")
SKILL_BOUNDS = (0.002, 0.005, 0.008, 0.012, 0.018, 0.026, 0.035)

_LN10 = math.log(10.0)
_INF = math.inf


# ----------------------------------------------------------------------------------
# kernels


@inline_kernel
def _expit(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow for large ``|x|``."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


@kernel
def _fibs_kernel(white, black, score, length, rating, experience, games_played,
                 use_experience, k_const, k_max, k_min, experience_scale, pred):
    """FIBS ratings over matches in order; ``score[i]`` is 1 when ``white[i]`` won, 0
    when ``black[i]`` won. Writes ``pred`` (``white``'s pre-match winning chance) and
    updates ``rating``, ``experience`` and ``games_played`` in place."""
    c = _LN10 / 2000.0
    for i in range(white.shape[0]):
        a = white[i]
        b = black[i]
        n = length[i]
        root = math.sqrt(n)
        pa = _expit((rating[a] - rating[b]) * root * c)
        pred[i] = pa
        if score[i] > 0.5:
            w = a
            lo = b
            p = 1.0 - pa  # the winner's chance of having lost
        else:
            w = b
            lo = a
            p = pa
        if use_experience:
            kw = max(k_min, k_max - experience[w] / experience_scale)
            kl = max(k_min, k_max - experience[lo] / experience_scale)
        else:
            kw = k_const
            kl = k_const
        gain = 4.0 * root * p
        rating[w] += kw * gain
        rating[lo] -= kl * gain
        experience[w] += n
        experience[lo] += n
        games_played[w] += 1
        games_played[lo] += 1


# ----------------------------------------------------------------------------------
# input checks (any shape; scalars stay scalars)


def _values(x: Any, name: str, *, lo: float = -_INF, lo_open: bool = False,
            hi: float = _INF, hi_open: bool = False, integer: bool = False,
            requirement: str | None = None) -> np.ndarray:
    """``x`` as a float64 array of any shape, every value finite and in range."""
    try:
        arr = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"'{name}' must be numeric; got {x!r}") from None
    flat = arr.reshape(-1)
    bad = ~np.isfinite(flat)
    bad |= (flat <= lo) if lo_open else (flat < lo)
    bad |= (flat >= hi) if hi_open else (flat > hi)
    if integer:
        bad |= flat != np.floor(flat)
    if bad.any():
        i = int(np.argmax(bad))
        if requirement is None:
            interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
            requirement = f"must be a finite number in {interval}"
        where = "" if arr.ndim == 0 else f" at index {i}"
        raise InputError(f"'{name}' {requirement}; got {float(flat[i])!r}{where}")
    return arr


def _lengths(length: Any, name: str = "length") -> np.ndarray:
    return _values(length, name, lo=1.0, integer=True,
                   requirement="must be a match length, a whole number of points >= 1")


def _out(arr: np.ndarray) -> Any:
    """0-d results come back as Python floats."""
    return float(arr) if np.ndim(arr) == 0 else arr


def _expit_np(x: np.ndarray) -> np.ndarray:
    z = np.exp(-np.abs(x))
    return np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))


# ----------------------------------------------------------------------------------
# match-winning chances


def fibs_win_probability(rating_diff: Any, length: Any = 1) -> Any:
    """Chance that a player ``rating_diff`` points above his opponent wins a
    ``length``-point match: ``1 / (1 + 10^(-D sqrt(N) / 2000))`` (NumPy-broadcast).

    A negative ``rating_diff`` gives the underdog's chance.

    >>> round(fibs_win_probability(100, 5), 3)
    0.564
    >>> round(fibs_win_probability(-100, 5), 3)
    0.436
    """
    d = _values(rating_diff, "rating_diff")
    n = _lengths(length)
    return _out(_expit_np(d * np.sqrt(n) * (_LN10 / 2000.0)))


def fibs_upset_probability(rating_diff: Any, length: Any = 1) -> Any:
    """The underdog's chance for a rating difference of ``|rating_diff|``:
    ``P_upset = 1 / (1 + 10^(|D| sqrt(N) / 2000))`` (FIBS ``help formula``)."""
    d = _values(rating_diff, "rating_diff")
    return fibs_win_probability(-np.abs(d), length)


def rating_diff_from_probability(p: Any, length: Any = 1, clamp: float | None = None) -> Any:
    """The rating difference that gives winning chance ``p`` in a ``length``-point match,
    ``D = -2000 / sqrt(N) * log10(1/p - 1)`` (the inverse of :func:`fibs_win_probability`).

    ``p`` must be in (0, 1). ``clamp`` is a lower bound on ``D``: gnubg's relative
    FIBS rating from a luck-adjusted result uses ``clamp=GNUBG_RATING_CLAMP`` (-2100).

    >>> round(rating_diff_from_probability(0.75, 1), 2)
    954.24
    """
    pv = _values(p, "p", lo=0.0, hi=1.0, lo_open=True, hi_open=True,
                 requirement="must be a probability in (0, 1)")
    n = _lengths(length)
    d = -2000.0 / np.sqrt(n) * (np.log10(1.0 - pv) - np.log10(pv))
    if clamp is not None:
        check_number("rating_diff_from_probability", "clamp", clamp, lo=-_INF, hi=_INF,
                     lo_open=True, hi_open=True)
        d = np.maximum(d, float(clamp))
    return _out(d)


# ----------------------------------------------------------------------------------
# FIBS ratings


@dataclass(frozen=True)
class FibsConfig:
    """Parameters of a FIBS rating run (validated on construction).

    With ``use_experience`` (FIBS) each player's K is
    ``max(k_min, k_max - experience / experience_scale)`` = ``max(1, 5 - experience/100)``;
    without it every match uses the constant ``k`` (clubs: 1).
    """

    initial_rating: float = 1500.0
    use_experience: bool = True
    k: float = 1.0
    k_max: float = 5.0
    k_min: float = 1.0
    experience_scale: float = 100.0

    def __post_init__(self) -> None:
        o = "FibsConfig"
        check_number(o, "initial_rating", self.initial_rating, lo=-_INF, hi=_INF,
                     lo_open=True, hi_open=True)
        if not isinstance(self.use_experience, (bool, np.bool_)):
            raise ConfigError(f"'use_experience' of FibsConfig must be True or False; got "
                              f"{self.use_experience!r}")
        check_number(o, "k", self.k, lo=0.0, hi=_INF, hi_open=True)
        check_number(o, "k_max", self.k_max, lo=0.0, hi=_INF, hi_open=True)
        check_number(o, "k_min", self.k_min, lo=0.0, hi=_INF, hi_open=True)
        check_number(o, "experience_scale", self.experience_scale, lo=0.0, hi=_INF,
                     lo_open=True, hi_open=True)
        if self.k_min > self.k_max:
            raise ConfigError(f"'k_min' of FibsConfig must be <= 'k_max' ({self.k_max}); got "
                              f"{self.k_min}")

    @classmethod
    def club(cls, initial_rating: float = 1500.0, k: float = 1.0) -> FibsConfig:
        """The FIBS formula with a constant K (many clubs: K = 1)."""
        return cls(initial_rating=initial_rating, use_experience=False, k=k)


def fibs_k(experience: Any, config: FibsConfig = FibsConfig()) -> Any:
    """The K factor of a player with ``experience`` points of finished matches:
    ``max(1, 5 - experience/100)`` (or the constant ``config.k``)."""
    e = _values(experience, "experience", lo=0.0)
    if not config.use_experience:
        return _out(np.full(e.shape, float(config.k)))
    return _out(np.maximum(config.k_min, config.k_max - e / config.experience_scale))


@dataclass(eq=False)
class FibsRatings(Ratings):
    """:class:`fastrate.Ratings` plus each player's experience (sum of match lengths)."""

    experience: np.ndarray | None = None

    def columns(self) -> dict[str, np.ndarray]:
        cols = super().columns()
        if self.experience is None:
            return cols
        out: dict[str, np.ndarray] = {}
        for k, v in cols.items():
            out[k] = v
            if k == "games_played":
                out["experience"] = self.experience
        return out


def _initial_experience(initial: Any, players: Any) -> np.ndarray | None:
    """Experience per player of ``players`` from ``initial`` (None when it has none)."""
    if initial is None:
        return None
    if isinstance(initial, FibsRatings):
        if initial.experience is None:
            return None
        names, values = initial.players.names.tolist(), initial.experience
    elif isinstance(initial, Ratings) or isinstance(initial, dict) and "player" not in initial:
        return None
    else:
        from fastrate._validate import to_arrow_table

        table = to_arrow_table(initial)
        if "experience" not in table.column_names:
            return None
        names = table.column("player").to_numpy(zero_copy_only=False).tolist()
        src = initial_source(initial)
        values = as_float64(table.column("experience"), "experience", src, allow_nan=True)
        values = np.where(np.isnan(values), 0.0, values)
    values = np.asarray(values, dtype=np.float64)
    if (values < 0).any():
        i = int(np.argmax(values < 0))
        raise fail_at("experience", "must be >= 0", values, i, initial_source(initial))
    lookup = dict(zip(names, values.tolist()))
    return np.array([lookup.get(name, 0.0) for name in players.names.tolist()],
                    dtype=np.float64)


def rate(games: Games, config: FibsConfig = FibsConfig(), initial: Any = None,
         length: Any = None) -> FibsRatings:
    """FIBS ratings over the matches in ``games``; return final ratings, experience and
    every pre-match prediction.

    Each game is one match; ``games.score`` is 1 when the first player won and 0 when the
    second did (build winner-first games with ``Games.from_arrays(winner, loser,
    np.ones(n))``). The match length ``N`` is ``length`` (one value per game, in input
    order) or, when that is None, ``games.weight`` ("weight = match length"), or 1.
    ``predictions`` hold the first player's pre-match winning chance, in input order.
    ``initial`` is as in :meth:`fastrate.data.PlayerState.resolve`; a previous
    :class:`FibsRatings` or a table with an ``experience`` column also carries the
    experience over, so a continued run equals a full recompute.
    """
    if not isinstance(games, Games):
        raise InputError(f"rate() needs a fastrate.Games; got {type(games).__name__} "
                         "(build one with Games.from_arrays(winner, loser, ones))")
    if not isinstance(config, FibsConfig):
        raise InputError(f"config must be a FibsConfig; got {type(config).__name__}")
    n = games.n_games
    if length is not None:
        raw = as_float64(as_1d(length, "length"), "length", games.source)
        if raw.shape[0] != n:
            raise InputError(f"'length' must have one value per match ({n}); got "
                             f"{raw.shape[0]}")
        bad = (raw < 1) | (raw != np.floor(raw))
        if bad.any():
            raise fail_at("length", "must be a match length, a whole number of points >= 1",
                          raw, int(np.argmax(bad)), games.source)
        lengths = raw if games.order is None else raw[games.order]
    elif games.weight is not None:
        lengths = games.weight
        bad = (lengths < 1) | (lengths != np.floor(lengths))
        if bad.any():
            i = int(np.argmax(bad))
            row = i if games.order is None else int(games.order[i])
            raise fail_at("weight", "(the match length) must be a whole number of points >= 1",
                          games.to_input_order(lengths), row, games.source)
    else:
        lengths = np.ones(n, dtype=np.float64)
    decisive = (games.score == 0.0) | (games.score == 1.0)
    if not decisive.all():
        i = int(np.argmax(~decisive))
        row = i if games.order is None else int(games.order[i])
        raise fail_at("score", "must be 1 (first player won) or 0 (second player won): a "
                      "backgammon match has no draws", games.to_input_order(games.score), row,
                      games.source)
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating)
    experience = _initial_experience(initial, state.players)
    if experience is None:
        experience = np.zeros(len(state.players), dtype=np.float64)
    pred = np.empty(n, dtype=np.float64)
    _fibs_kernel(games.white, games.black, games.score, require(lengths, np.float64),
                 state.rating, experience, state.games_played, bool(config.use_experience),
                 float(config.k), float(config.k_max), float(config.k_min),
                 float(config.experience_scale), pred)
    return FibsRatings(system="fibs", players=state.players, rating=state.rating,
                       games_played=state.games_played, predictions=games.to_input_order(pred),
                       config=config, experience=experience)


def _fibs_configs(configs: Any) -> list[tuple[str, FibsConfig]]:
    if configs is None:
        return [("fibs", FibsConfig()), ("fibs, K = 1", FibsConfig.club())]
    if isinstance(configs, FibsConfig):
        configs = [configs]
    items = list(configs.items()) if isinstance(configs, dict) else list(configs)
    out = []
    for item in items:
        label, cfg = item if isinstance(item, tuple) else (None, item)
        if not isinstance(cfg, FibsConfig):
            raise ConfigError(f"each configuration must be a FibsConfig; got "
                              f"{type(cfg).__name__}")
        if label is None:
            label = "fibs" if cfg.use_experience else f"fibs, K = {cfg.k:g}"
        out.append((str(label), cfg))
    if not out:
        raise ConfigError("no configurations to evaluate")
    return out


def evaluate(games: Games, configs: Any = None, *, length: Any = None, initial: Any = None,
             burn_in: int = 0, draws: str = "exclude", bins: int = 10):
    """Walk-forward evaluation of FIBS ratings on a match list, with the core metrics.

    Each configuration (a :class:`FibsConfig`, a list of them or of ``(label, config)``
    pairs, or a mapping label -> config; default: FIBS's K schedule and the clubs'
    constant K = 1) rates ``games`` with :func:`rate`, and every match's pre-match
    winning chance is scored against its result (log loss, binomial deviance, Brier,
    RMSE, accuracy: :mod:`fastrate.metrics`), next to the null model's 50%. The matches
    of the first ``burn_in`` rating periods are left out of the scores.

    Matches are oriented by the favourite before scoring: ``p`` is the favourite's chance
    and the outcome 1 when the favourite won. The metrics do not depend on which player
    comes first; the calibration tables then read "favourites predicted to win p of the
    time won this often" (winner-first input would otherwise put every outcome at 1).
    Returns a :class:`fastrate.evaluate.Evaluation` whose ``ratings`` holds each run.
    """
    from fastrate import metrics
    from fastrate.data.evaluation import (
        NULL_LABEL,
        Evaluation,
        burn_in_mask,
        check_bins,
        score_rows,
        unique_labels,
    )

    if not isinstance(games, Games):
        raise InputError(f"evaluate() needs a fastrate.Games; got {type(games).__name__}")
    metrics.check_draws(draws)
    check_bins(bins)
    items = _fibs_configs(configs)
    mask = burn_in_mask(games, burn_in)
    if not mask.any():
        spans = ("" if games.period is None else
                 f": these matches span {np.unique(games.period).shape[0]} period(s)")
        raise InputError(f"a burn-in of {burn_in} period(s) leaves no matches to score"
                         f"{spans}; use a smaller burn_in (--burn-in)")
    runs = {}
    labels = unique_labels([label for label, _ in items])
    for label, (_, cfg) in zip(labels, items):
        runs[label] = rate(games, cfg, initial=initial, length=length)
    y_first = games.score[mask]
    preds = [(NULL_LABEL, np.full(y_first.shape[0], 0.5), y_first)]
    for label, r in runs.items():
        stored = r.predictions if games.order is None else r.predictions[games.order]
        p_first = stored[mask]
        fav = p_first >= 0.5  # oriented by the favourite
        preds.append((label, np.where(fav, p_first, 1.0 - p_first),
                      np.where(fav, y_first, 1.0 - y_first)))
    rows, tables = score_rows(preds, draws, bins)
    return Evaluation(rows, tables, games.n_games, int(burn_in), draws, runs)


# ----------------------------------------------------------------------------------
# error rates -> rating


def rating_from_depd(depd: Any, length: Any) -> Any:
    """Rating difference from the difference in error per decision (opponent's minus
    one's own): ``R = (11971 + 23681/N) * DEPD`` (van den Doel, part I).

    >>> round(rating_from_depd(0.01, 5), 3)
    167.072
    """
    d = _values(depd, "depd")
    n = _lengths(length)
    return _out((11971.0 + 23681.0 / n) * d)


def rating_from_errors(epm: Any, epc: Any, length: Any, *, difference: bool = False) -> Any:
    """Rating loss to perfect play from chequer-play error per unforced move ``epm`` and
    cube error per close cube decision ``epc`` (van den Doel, part II):
    ``R = a2(N) EPM + b(N) EPC``, ``a2(N) = 8798 + 25526/N``, ``b(N) = 863 - 519/N``;
    ``R = 37916 EPM`` for ``N = 1`` (there are no cube decisions; ``epc`` is ignored).

    Error rates must be >= 0; with ``difference=True`` they are differences between two
    players (any sign) and ``R`` is their rating difference.

    >>> round(rating_from_errors(0.01, 0.02, 5), 3)
    154.216
    """
    lo = -_INF if difference else 0.0
    m = _values(epm, "epm", lo=lo)
    c = _values(epc, "epc", lo=lo)
    n = _lengths(length)
    bilinear = (8798.0 + 25526.0 / n) * m + (863.0 - 519.0 / n) * c
    return _out(np.where(n == 1.0, 37916.0 * m, bilinear))


@dataclass(frozen=True)
class RatingEstimate:
    """A rating estimated from error rates: per-match ratings, their mean and a
    Student-t interval (``lower``/``upper`` are nan for a single match)."""

    mean: float
    lower: float
    upper: float
    std: float
    n: int
    confidence: float
    ratings: np.ndarray

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2.0

    def __str__(self) -> str:
        if self.n < 2:
            return f"{self.mean:.1f} (1 match, no interval)"
        return (f"{self.mean:.1f} +- {self.half_width:.1f} ({self.confidence:.0%} interval "
                f"{self.lower:.1f} .. {self.upper:.1f}, {self.n} matches)")


def estimate_rating(epm: Any, epc: Any, length: Any, offset: float = 2050.0,
                    confidence: float = 0.9) -> RatingEstimate:
    """A player's absolute rating from his error rates in a set of matches.

    Each match gives ``offset - rating_from_errors(epm, epc, N)`` (gnubg's "error based
    abs. FIBS rating"; ``offset`` is the rating of the analysing program on the site,
    2050 on FIBS). The estimate is their mean, with the two-sided ``confidence``
    interval ``mean +- t_{(1+c)/2, n-1} s / sqrt(n)`` (Student's t; the study used a
    normal interval and notes t is right for small samples).
    """
    check_number("estimate_rating", "offset", offset, lo=-_INF, hi=_INF, lo_open=True,
                 hi_open=True)
    check_number("estimate_rating", "confidence", confidence, lo=0.0, hi=1.0, lo_open=True,
                 hi_open=True)
    m, c, n = np.broadcast_arrays(_values(epm, "epm", lo=0.0), _values(epc, "epc", lo=0.0),
                                  _lengths(length))
    r = float(offset) - np.atleast_1d(rating_from_errors(m, c, n)).reshape(-1)
    if r.shape[0] == 0:
        raise InputError("estimate_rating() needs at least one match; got none")
    k = r.shape[0]
    mean = float(np.mean(r))
    if k < 2:
        return RatingEstimate(mean, math.nan, math.nan, math.nan, 1, float(confidence), r)
    std = float(np.std(r, ddof=1))
    half = student_t_quantile(0.5 + confidence / 2.0, k - 1) * std / math.sqrt(k)
    return RatingEstimate(mean, mean - half, mean + half, std, k, float(confidence), r)


def skill_class(error_rate: Any) -> Any:
    """gnubg's skill label of an error rate per decision (a value on a boundary falls in
    the worse class): a string for a scalar, an array of strings otherwise.

    >>> skill_class(0.004), skill_class(0.005)
    ('World class', 'Expert')
    """
    e = _values(error_rate, "error_rate", lo=0.0)
    idx = np.searchsorted(np.array(SKILL_BOUNDS), e, side="right")
    labels = np.array(SKILL_CLASSES, dtype=object)[idx]
    return str(labels) if np.ndim(labels) == 0 else labels


# ----------------------------------------------------------------------------------
# Student's t (no scipy): regularized incomplete beta by its continued fraction


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of ``I_x(a, b)`` (modified Lentz), for ``x < (a+1)/(a+b+2)``."""
    tiny = 1e-300
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10000):
        # even step
        num = m * (b - m) * x / ((a + 2 * m - 1.0) * (a + 2 * m))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        # odd step
        num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1.0))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            break
    return h


def _beta_inc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` for ``0 <= x <= 1``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x)
                 + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def _t_tail(t: float, df: float) -> float:
    """``P(T > t)`` for ``t >= 0``."""
    x = df / (df + t * t)
    return 0.5 * _beta_inc(df / 2.0, 0.5, x)


def student_t_cdf(t: float, df: float) -> float:
    """``P(T <= t)`` for Student's t with ``df`` degrees of freedom (``df > 0``)."""
    check_number("student_t_cdf", "df", df, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
    t = check_number("student_t_cdf", "t", t)
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = _t_tail(abs(t), float(df))
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom, by bisection on
    the tail probability (computed from the regularized incomplete beta function).

    >>> round(student_t_quantile(0.95, 5), 4)
    2.015
    """
    check_number("student_t_quantile", "p", p, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    check_number("student_t_quantile", "df", df, lo=0.0, hi=_INF, lo_open=True, hi_open=True)
    p, df = float(p), float(df)
    if p == 0.5:
        return 0.0
    tail = 1.0 - p if p > 0.5 else p  # solve P(T > t) = tail for t > 0
    lo, hi = 0.0, 1.0
    while _t_tail(hi, df) > tail:
        lo, hi = hi, hi * 2.0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        if _t_tail(mid, df) > tail:
            lo = mid
        else:
            hi = mid
    t = 0.5 * (lo + hi)
    return t if p > 0.5 else -t
