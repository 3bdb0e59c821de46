"""Batch Bradley-Terry fits as a rating system: walk-forward predictions by refitting on an
expanding window, one refit per rating period (registry name ``bradley_terry``).

A batch model (:mod:`fastrate.ratings.bradley_terry`: Ordo's and BayesElo's models) fits
all games at once, so it has no game-by-game predictions of its own. To score it next to
Elo and Glicko (``fastrate evaluate -s elo -s bradley_terry --period month``), each game
of rating period ``p`` is predicted by the model fitted on **all games of the periods
before** ``p`` (an expanding window; no game of period ``p`` or later is used):

* the prediction is the first player's expected score under the fitted model,
  ``P(win) + P(draw) / 2`` from :func:`~fastrate.ratings.bradley_terry.predict`
  (``bt_half``: ``f(x)``; ``bayeselo``: ``(f(x - drawelo) + f(x + drawelo)) / 2``, with
  ``x = R_first - R_second + advantage``, no advantage in neutral games);
* **first period** (no fit yet): two equal players, ``f(advantage)`` when the config fixes
  the advantage (0.5 in neutral games), else 0.5;
* **players not in the fit** (not seen before the period, or left out by the rule below)
  are placed at the mean of their Gaussian prior when the config gives one
  (``gaussian_prior``), else at the mean rating of the fit;
* names in the config (``anchor``, per-player ``gaussian_prior``, ``virtual_games``) of
  players not yet seen are left out of a window's config until they play;
* **connectivity rule**: early windows are rarely strongly connected, and the maximum
  likelihood does not exist then. Every fit (each window and the final one) first tries
  the config as given; when the fit refuses the data as not connected, it fits the
  **largest component** instead (:func:`~fastrate.ratings.bradley_terry.largest_component`,
  Ordo's way: of the "scored against" graph without a prior, of the "met" graph with
  ``prior`` > 0), and the players left out are at the mean. A prior (``prior=2``,
  BayesElo's default of two virtual draws) keeps almost everyone in the fit and shrinks
  the ratings of players with few games, which the walk-forward scores reward (see
  ``docs/evaluation.md``);
* a window the model cannot be fitted on although all games can (e.g. ``drawelo=fit``
  before the first draw, ``advantage=fit`` while every game so far is neutral, or a
  largest component without games), or whose fit did not converge (a fitted advantage
  or drawelo running off to infinity on a handful of games), keeps the previous
  window's fit (the first-period defaults if there is none);
* ``anchor`` shifts the scale only: the window fits ignore it (predictions do not
  depend on the shift), the final fit uses it.

``rating`` is the fit on **all** games (with the same rule), ``games_played`` counts
every game, and ``fitted`` says whether the final fit rated the player (False: outside
its largest component, shown at the mean). Game weights are not used: every game counts
once, as in BayesElo and Ordo. Games without periods are one period: the ratings are the
full fit and every prediction is a first-period default (``fastrate.evaluate`` refuses
to score a batch system on such games).

Cost: one fit per period plus the final one, each from scratch (``fit`` has no warm
start); a fit is milliseconds on tens of thousands of games, so yearly or monthly
periods are fine (timings in ``docs/evaluation.md``).

A batch fit does not continue from saved ratings: ``initial=`` is refused.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from fastrate._validate import check_type
from fastrate.data import Games, Ratings, period_starts
from fastrate.data.players import PlayerIndex
from fastrate.data.state import GAMES_PLAYED, RATING, StateColumn
from fastrate.errors import ConfigError, InputError
from fastrate.ratings._common import check_batch_start
from fastrate.ratings._common import expected_score as elo_curve
from fastrate.ratings.bradley_terry import (
    BTConfig,
    BTResult,
    fit,
    largest_component,
    predict,
)

__all__ = ["BTConfig", "STATE", "FITTED", "rate", "expected_score", "fit_connected",
           "restrict", "walk_forward"]

#: whether the final fit rated the player (False: outside its largest component)
FITTED = StateColumn("fitted", "bool", True,
                     "rated by the final fit (False: outside its largest component, at the "
                     "mean)")
STATE = (RATING, GAMES_PLAYED, FITTED)
#: the default configuration (BTConfig is frozen)
_DEFAULT = BTConfig()


def fit_connected(games: Games, config: BTConfig,
                  universe: PlayerIndex | None = None) -> BTResult | None:
    """``fit(games, config)``; when the data are not connected enough for it (see the
    module docstring), the fit of their largest component instead; None when that
    component has no games. Other errors of ``fit`` propagate.

    Player names in the config (an anchor, per-player Gaussian priors, virtual games) that
    are players of ``universe`` (default: ``games``) but not of the games fitted are left
    out of the config for that fit; names of no player stay, so ``fit`` reports them."""
    universe = games.players if universe is None else universe
    try:
        return fit(games, restrict(config, games.players, universe))
    except InputError:
        try:
            kept, left_out = largest_component(games, config.prior)
        except InputError:
            return None  # every component is a single player: no game among its players
        if left_out.shape[0] == 0:
            raise  # not a connectivity problem
        return fit(kept, restrict(config, kept.players, universe))


def restrict(config: BTConfig, players: PlayerIndex, universe: PlayerIndex) -> BTConfig:
    """``config`` without the names of ``universe``'s players that are not in ``players``:
    anchors (no anchor left: the mean), per-player Gaussian priors and virtual games."""
    here, known = players.lookup, universe.lookup

    def keep(name: Any) -> bool:
        return name in here or name not in known

    changes: dict[str, Any] = {}
    anchor = config.anchor
    if anchor is not None:
        names = tuple(a for a in (anchor if isinstance(anchor, tuple) else (anchor,))
                      if keep(a))
        if not names:
            changes["anchor"] = None
        elif isinstance(anchor, tuple):
            changes["anchor"] = names
    prior = getattr(config, "gaussian_prior", None)
    if prior is not None and isinstance(prior[0], tuple):
        changes["gaussian_prior"] = tuple(t for t in prior if keep(t[0])) or None
    virtual = getattr(config, "virtual_games", ())
    if virtual:
        changes["virtual_games"] = tuple(r for r in virtual if keep(r[0]) and keep(r[1]))
    changes = {k: v for k, v in changes.items() if v != getattr(config, k)}
    return dataclasses.replace(config, **changes) if changes else config


def _window(games: Games, end: int) -> tuple[Games, np.ndarray]:
    """The first ``end`` stored games among the players they involve, and those players'
    ids in ``games``."""
    w, b = games.white[:end], games.black[:end]
    seen = np.zeros(games.n_players, dtype=bool)
    seen[w] = True
    seen[b] = True
    ids = np.flatnonzero(seen)
    remap = np.full(games.n_players, -1, dtype=np.int64)
    remap[ids] = np.arange(ids.shape[0], dtype=np.int64)

    def cut(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[:end]

    window = Games(white=remap[w], black=remap[b], score=games.score[:end],
                   players=PlayerIndex(games.players.names[ids]), weight=cut(games.weight),
                   margin=cut(games.margin), neutral=cut(games.neutral))
    return window, ids


def _full_ratings(games: Games, config: BTConfig, result: BTResult, window_players: Any,
                  window_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every player of ``games`` rated by ``result``: the fitted rating, or for players not
    in it the mean of their Gaussian prior if ``config`` gives one, else the fit's mean;
    and which ones are in it."""
    n = games.n_players
    prior = getattr(config, "gaussian_prior", None)
    everyone = prior is not None and not isinstance(prior[0], tuple)
    rating = np.full(n, float(prior[0]) if everyone else float(result.rating.mean()))
    if prior is not None and not everyone:
        lookup = games.players.lookup
        for name, mean, _ in prior:
            if name in lookup:
                rating[lookup[name]] = mean
    fitted = np.zeros(n, dtype=bool)
    if result.players is window_players:
        ids = window_ids
    else:  # fitted on the largest component: its own player index
        lookup = games.players.lookup
        ids = np.array([lookup[x] for x in result.players.names.tolist()], dtype=np.int64)
    rating[ids] = result.rating
    fitted[ids] = True
    return rating, fitted


def _default_scores(games: Games, config: BTConfig, a: int, b: int) -> np.ndarray:
    """Predictions before any fit: equal players, with the config's fixed advantage."""
    adv = 0.0 if isinstance(config.advantage, str) else float(config.advantage)
    h = np.ones(b - a)
    if games.neutral is not None:
        h[games.neutral[a:b]] = 0.0
    return np.asarray(elo_curve(h * adv, 0.0), dtype=np.float64)


def walk_forward(games: Games, config: BTConfig = _DEFAULT) -> np.ndarray:
    """The walk-forward expected score of the first player of every game, in **stored**
    (chronological) order: the games of each period predicted by the fit on the games of
    the periods before it (see the module docstring for the rules)."""
    check_type(games, Games, "walk_forward() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    check_type(config, BTConfig, "walk_forward() needs a BTConfig as config")
    window_config = (config if config.anchor is None
                     else dataclasses.replace(config, anchor=None))
    g = games.n_games
    starts = (period_starts(games.period) if games.period is not None
              else np.array([0, g], dtype=np.int64))
    ids_as_names = PlayerIndex(np.arange(games.n_players, dtype=np.int64))
    pred = np.empty(g, dtype=np.float64)
    current: BTResult | None = None  # the last fit, over every player of ``games``
    for k in range(starts.shape[0] - 1):
        a, b = int(starts[k]), int(starts[k + 1])
        if a > 0:
            window, ids = _window(games, a)
            try:
                result = fit_connected(window, window_config, games.players)
            except (InputError, ConfigError):
                result = None  # not fittable yet (the full data were): keep the last fit
            if result is not None and result.converged:
                rating, _ = _full_ratings(games, config, result, window.players, ids)
                current = dataclasses.replace(result, players=ids_as_names, rating=rating)
        if current is None:
            pred[a:b] = _default_scores(games, config, a, b)
            continue
        neutral = None if games.neutral is None else games.neutral[a:b]
        with np.errstate(over="ignore"):  # f(x) of |x| > 1e5 Elo: exactly 0 or 1
            win, draw, _ = predict(current, games.white[a:b], games.black[a:b], neutral)
        pred[a:b] = win + 0.5 * draw
    return pred


def rate(games: Games, config: BTConfig = _DEFAULT, initial: Any = None) -> Ratings:
    """The fit of all ``games`` as :class:`~fastrate.Ratings`, with walk-forward
    ``predictions`` (input order) from refits on the periods before each game's.

    >>> import fastrate
    >>> g = fastrate.Games.from_arrays(["a", "b", "c", "a", "b"], ["b", "c", "a", "c", "a"],
    ...                                [1.0, 0.5, 0.0, 0.5, 0.0], period=[1, 1, 2, 2, 3])
    >>> r = rate(g, BTConfig(prior=2))
    >>> [round(float(p), 3) for p in r.predictions]     # period 1: no fit yet
    [0.5, 0.5, 0.3, 0.7, 0.279]
    >>> r.columns()["fitted"].tolist()
    [True, True, True]
    """
    check_type(games, Games, "bradley_terry.rate() needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    check_type(config, BTConfig, "bradley_terry.rate() needs a BTConfig as config")
    check_batch_start("bradley_terry", games, initial)
    final = fit_connected(games, config)  # first: errors in the data surface here
    n = games.n_players
    if final is None:
        rating, fitted = np.full(n, config.mean_rating), np.zeros(n, dtype=bool)
    else:
        rating, fitted = _full_ratings(games, config, final, games.players,
                                       np.arange(n, dtype=np.int64))
    played = (np.bincount(games.white, minlength=n)
              + np.bincount(games.black, minlength=n)).astype(np.int64)
    pred = walk_forward(games, config)
    return Ratings("bradley_terry", games.players, rating, played,
                   games.to_input_order(pred), config, state={"fitted": fitted})


def expected_score(result: BTResult, white: Any, black: Any, neutral: Any = None
                   ) -> np.ndarray:
    """The expected score ``P(win) + P(draw) / 2`` of ``white`` against ``black`` (names
    of the fit) under a fitted model (:func:`~fastrate.ratings.bradley_terry.predict`)."""
    with np.errstate(over="ignore"):
        win, draw, _ = predict(result, white, black, neutral)
    return win + 0.5 * draw
