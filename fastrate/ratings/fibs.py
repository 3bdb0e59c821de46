"""FIBS backgammon ratings (SPEC §5): match-length-aware win probabilities and the FIBS
rating update. Registered as the ``fibs`` rating system (:mod:`fastrate.systems`).

* FIBS match-winning chance. A player ``D`` rating points above his opponent wins an
  ``N``-point match with probability ``1 / (1 + 10^(-D sqrt(N) / 2000))``; the underdog's
  chance is ``1 / (1 + 10^(D sqrt(N) / 2000))`` (:func:`fibs_win_probability`, also
  :func:`expected_score`). The inverse, :func:`rating_diff_from_probability`, turns a
  (luck-adjusted) result ``p`` into ``D = -2000 / sqrt(N) * log10(1/p - 1)``; gnubg clamps
  it below at -2100 (``clamp=GNUBG_RATING_CLAMP``).
* FIBS rating (:func:`rate`). ``P`` is the winner's chance of having lost (the upset
  chance if the favourite won, one minus it if the underdog won); the winner gains
  ``4 K_w sqrt(N) P`` and the loser loses ``4 K_l sqrt(N) P``, each with his own
  ``K = max(1, 5 - experience/100)``, experience = sum of the lengths of the matches he
  finished *before* this one; everyone starts at 1500 with experience 0. Two new
  players in a 5-point match: ``4 * 5 * sqrt(5) * 0.5 = 22.36``. Clubs often use a
  constant K (1) and another start rating: ``FibsConfig(use_experience=False, k=1)``.

Match lengths are whole numbers of points, at least 1 (a game's ``weight``). Sources:
FIBS ``help formula`` (rec.games.backgammon archive); GNU Backgammon ``analysis.c``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from fastrate import metrics
from fastrate._numba import inline_kernel, kernel
from fastrate._validate import (
    as_1d,
    as_checked_floats,
    as_float64,
    check_number,
    check_type,
    fail_at,
    require,
    scalar_or_array,
)
from fastrate.data import Games, PlayerState, Ratings, evaluation
from fastrate.data.state import GAMES_PLAYED, RATING, StateColumn
from fastrate.errors import ConfigError, InputError

__all__ = [
    "GNUBG_RATING_CLAMP", "FibsConfig", "FibsRatings", "fibs_win_probability",
    "fibs_upset_probability", "rating_diff_from_probability", "expected_score", "fibs_k",
    "match_lengths", "rate", "evaluate",
]

#: gnubg's lower clamp of the rating difference computed from a luck-adjusted result
GNUBG_RATING_CLAMP = -2100.0

_LN10 = math.log(10.0)


# ----------------------------------------------------------------------------------
# kernels


@inline_kernel
def _expit(x: float) -> float:
    """``1 / (1 + exp(-x))`` without overflow for large ``|x|``."""
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


class _FibsParams(NamedTuple):
    """The scalars of :func:`_fibs_kernel`."""

    use_experience: bool  #: ``K = max(k_min, k_max - experience / experience_scale)``
    k: float  #: the constant K otherwise
    k_max: float
    k_min: float
    experience_scale: float


@kernel
def _fibs_kernel(white, black, score, length, rating, experience, games_played, params,
                 pred):
    """FIBS ratings over matches in order, with the K rule of ``params`` (a
    :class:`_FibsParams`); ``score[i]`` is 1 when ``white[i]`` won, 0 when ``black[i]``
    won. Writes ``pred`` (``white``'s pre-match winning chance) and updates ``rating``,
    ``experience`` and ``games_played`` in place."""
    use_experience = params.use_experience
    k_max = params.k_max
    k_min = params.k_min
    experience_scale = params.experience_scale
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
            kw = params.k
            kl = params.k
        gain = 4.0 * root * p
        rating[w] += kw * gain
        rating[lo] -= kl * gain
        experience[w] += n
        experience[lo] += n
        games_played[w] += 1
        games_played[lo] += 1


#: the longest match length :func:`rate` accepts (points): real matches are at most a few
#: dozen, and a rating moves by up to 4 K sqrt(length) a match
MAX_LENGTH = 1e6


def match_lengths(length: Any, name: str = "length") -> np.ndarray:
    """Match lengths (any shape) as float64, each a whole number of points >= 1."""
    return as_checked_floats(length, name, lo=1.0, integer=True,
                             requirement="must be a match length, a whole number of points >= 1")


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
    return _win_chance(as_checked_floats(rating_diff, "rating_diff"), length)


def _win_chance(d: np.ndarray, length: Any) -> Any:
    """:func:`fibs_win_probability` of checked rating differences ``d``."""
    n = match_lengths(length)
    return scalar_or_array(_expit_np(d * np.sqrt(n) * (_LN10 / 2000.0)))


def expected_score(rating_a: Any, rating_b: Any, length: Any = 1) -> Any:
    """The registry's prediction: the chance that a player rated ``rating_a`` wins an
    ``length``-point match against one rated ``rating_b`` (FIBS)."""
    a = as_checked_floats(rating_a, "rating_a")
    b = as_checked_floats(rating_b, "rating_b")
    return fibs_win_probability(a - b, length)


def fibs_upset_probability(rating_diff: Any, length: Any = 1) -> Any:
    """The underdog's chance for a rating difference of ``|rating_diff|``:
    ``P_upset = 1 / (1 + 10^(|D| sqrt(N) / 2000))`` (FIBS ``help formula``)."""
    d = as_checked_floats(rating_diff, "rating_diff")
    return _win_chance(-np.abs(d), length)


def rating_diff_from_probability(p: Any, length: Any = 1, clamp: float | None = None) -> Any:
    """The rating difference that gives winning chance ``p`` in a ``length``-point match,
    ``D = -2000 / sqrt(N) * log10(1/p - 1)`` (the inverse of :func:`fibs_win_probability`).

    ``p`` must be in (0, 1). ``clamp`` is a lower bound on ``D``: gnubg's relative
    FIBS rating from a luck-adjusted result uses ``clamp=GNUBG_RATING_CLAMP`` (-2100).

    >>> round(rating_diff_from_probability(0.75, 1), 2)
    954.24
    """
    pv = as_checked_floats(p, "p", lo=0.0, hi=1.0, lo_open=True, hi_open=True,
                 requirement="must be a probability in (0, 1)")
    n = match_lengths(length)
    d = -2000.0 / np.sqrt(n) * (np.log10(1.0 - pv) - np.log10(pv))
    if clamp is not None:
        check_number("rating_diff_from_probability", "clamp", clamp, lo=-math.inf, hi=math.inf,
                     lo_open=True, hi_open=True)
        d = np.maximum(d, float(clamp))
    return scalar_or_array(d)


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
        # ranges: see docs/algorithms/fibs.md ("Ranges"); within them no parameter alone
        # can overflow a rating
        check_number(o, "initial_rating", self.initial_rating, lo=-1e9, hi=1e9)
        if not isinstance(self.use_experience, (bool, np.bool_)):
            raise ConfigError(f"'use_experience' of FibsConfig must be True or False; got "
                              f"{self.use_experience!r}")
        check_number(o, "k", self.k, lo=0.0, hi=1e6)
        check_number(o, "k_max", self.k_max, lo=0.0, hi=1e6)
        check_number(o, "k_min", self.k_min, lo=0.0, hi=1e6)
        check_number(o, "experience_scale", self.experience_scale, lo=0.0, hi=math.inf,
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
    e = as_checked_floats(experience, "experience", lo=0.0)
    if not config.use_experience:
        return scalar_or_array(np.full(e.shape, float(config.k)))
    return scalar_or_array(np.maximum(config.k_min, config.k_max - e / config.experience_scale))


@dataclass(eq=False)
class FibsRatings(Ratings):
    """:class:`fastrate.Ratings` of a FIBS run; its state table carries each player's
    ``experience`` (the sum of the lengths of the matches he finished)."""

    @property
    def experience(self) -> np.ndarray | None:
        """The ``experience`` state column."""
        return self.state.get("experience")


def _refuse_game(games: Games, bad: np.ndarray, column: str, requirement: str,
                 values: np.ndarray) -> InputError:
    """The error for the first game where ``bad`` (per-game arrays in stored order),
    naming its input row."""
    i = int(np.argmax(bad))
    row = i if games.order is None else int(games.order[i])
    return fail_at(column, requirement, games.to_input_order(values), row, games.source)


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
    check_type(games, Games, "rate() needs a fastrate.Games",
               "build one with Games.from_arrays(winner, loser, ones)")
    check_type(config, FibsConfig, "config must be a FibsConfig")
    n = games.n_games
    if length is not None:
        raw = as_float64(as_1d(length, "length"), "length", games.source)
        if raw.shape[0] != n:
            raise InputError(f"'length' must have one value per match ({n}); got "
                             f"{raw.shape[0]}")
        bad = (raw < 1) | (raw != np.floor(raw)) | (raw > MAX_LENGTH)
        if bad.any():
            raise fail_at("length", "must be a match length, a whole number of points in "
                          "[1, 1e6]", raw, int(np.argmax(bad)), games.source)
        lengths = raw if games.order is None else raw[games.order]
    elif games.weight is not None:
        lengths = games.weight
        bad = (lengths < 1) | (lengths != np.floor(lengths)) | (lengths > MAX_LENGTH)
        if bad.any():
            raise _refuse_game(games, bad, "weight", "(the match length) must be a whole "
                               "number of points in [1, 1e6]",
                               lengths)
    else:
        lengths = np.ones(n, dtype=np.float64)
    decisive = (games.score == 0.0) | (games.score == 1.0)
    if not decisive.all():
        raise _refuse_game(games, ~decisive, "score", "must be 1 (first player won) or 0 "
                           "(second player won): a backgammon match has no draws", games.score)
    state, games = PlayerState.resolve(games, initial, rating=config.initial_rating,
                                       extra=(EXPERIENCE,))
    experience = state.extra["experience"]
    pred = np.empty(n, dtype=np.float64)
    params = _FibsParams(bool(config.use_experience), float(config.k), float(config.k_max),
                         float(config.k_min), float(config.experience_scale))
    _fibs_kernel(games.white, games.black, games.score, require(lengths, np.float64),
                 state.rating, experience, state.games_played, params, pred)
    return FibsRatings(system="fibs", players=state.players, rating=state.rating,
                       games_played=state.games_played, predictions=games.to_input_order(pred),
                       config=config, state={"experience": experience})


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
    check_type(games, Games, "evaluate() needs a fastrate.Games")
    metrics.check_draws(draws)
    evaluation.check_bins(bins)
    items = _fibs_configs(configs)
    mask = evaluation.burn_in_mask(games, burn_in)
    if not mask.any():
        spans = ("" if games.period is None else
                 f": these matches span {np.unique(games.period).shape[0]} period(s)")
        raise InputError(f"a burn-in of {burn_in} period(s) leaves no matches to score"
                         f"{spans}; use a smaller burn_in (--burn-in)")
    runs = {}
    labels = evaluation.unique_labels([label for label, _ in items])
    for label, (_, cfg) in zip(labels, items):
        runs[label] = rate(games, cfg, initial=initial, length=length)
    y_first = games.score[mask]
    preds = [(evaluation.NULL_LABEL, np.full(y_first.shape[0], 0.5), y_first)]
    for label, r in runs.items():
        stored = r.predictions if games.order is None else r.predictions[games.order]
        p_first = stored[mask]
        fav = p_first >= 0.5  # oriented by the favourite
        preds.append((label, np.where(fav, p_first, 1.0 - p_first),
                      np.where(fav, y_first, 1.0 - y_first)))
    rows, tables = evaluation.score_rows(preds, draws, bins)
    return evaluation.Evaluation(rows, tables, games.n_games, int(burn_in), draws, runs)

# ----------------------------------------------------------------------------------
# the protocol (fastrate.systems): the per-player state a continued run needs

#: FIBS experience: the sum of the match lengths a player has finished
EXPERIENCE = StateColumn("experience", "float64", 0.0, "match points played (FIBS)",
                         minimum=0.0)

#: per-player state columns, in table order (``initial=`` reads them back)
STATE = (RATING, GAMES_PLAYED, EXPERIENCE)
