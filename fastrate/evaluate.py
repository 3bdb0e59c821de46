"""Walk-forward evaluation: compare rating systems by how well they predict (SPEC §7).

An online rating system predicts every game from the ratings before it was played
(:attr:`fastrate.Ratings.predictions`), so scoring those predictions against the
results measures predictive skill with no look-ahead. :func:`evaluate` rates the same
games with several systems and tabulates log loss, binomial deviance, Brier score,
RMSE, accuracy and a calibration table per system (the metrics are in
:mod:`fastrate.metrics`). The games of the first rating periods can be left out of
the scores (``burn_in``), while every system still learns from them.

Systems are named by spec strings (the CLI's ``--system``)::

    elo                        EloConfig()
    elo:k=24,advantage=65      EloConfig(k=24, advantage=65)
    elo@fide                   EloConfig.fide()
    elo@fivethirtyeight_nfl:k=25
    elo:k_schedule=games,k_table=30:40/inf:20
    glicko2:tau=0.3            Glicko2Config(tau=0.3)

>>> from fastrate.evaluate import evaluate                              # doctest: +SKIP
>>> print(evaluate(games, ["elo", "elo:k=20", "glicko2"], burn_in=2))   # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from fastrate import metrics as _metrics
from fastrate._validate import as_float64, check_range, check_type
from fastrate.data import Games, Matches, Ratings, period_starts
from fastrate.data.evaluation import (  # NULL_LABEL, score_rows: re-exported (moved)
    NULL_LABEL,
    Evaluation,
    Split,
    Window,
    burn_in_mask,
    check_bins,
    score_rows,
    split_windows,
    unique_labels,
)
from fastrate.errors import ConfigError, InputError
from fastrate.systems import REGISTRY, SystemSpec, names, parse_system, presets

__all__ = ["SystemSpec", "parse_system", "presets", "burn_in_mask", "split_windows", "Split",
           "Window", "evaluate", "score_window",
           "evaluate_matches",
           "evaluate_predictions", "Evaluation", "NULL_LABEL", "check_bins", "score_rows",
           "unique_labels"]


def __getattr__(name: str) -> Any:
    if name == "SYSTEMS":  # before the registry: name -> (module, config class name)
        import warnings

        warnings.warn("fastrate.evaluate.SYSTEMS is deprecated and will be removed in the next "
                      "release; use fastrate.systems.REGISTRY", DeprecationWarning, stacklevel=2)
        return {n: (s.module_name, s.config_name) for n, s in REGISTRY.items()}
    raise AttributeError(f"module 'fastrate.evaluate' has no attribute {name!r}")


# ----------------------------------------------------------------------------------
# burn-in and scoring


def _stored(games: Games, predictions: Any, label: str) -> np.ndarray:
    """Predictions in input order -> checked float64 in stored (chronological) order."""
    p = as_float64(predictions, f"predictions of {label}")
    if p.shape[0] != games.n_games:
        raise InputError(f"predictions of {label} must have one value per game "
                         f"({games.n_games}); got {p.shape[0]}")
    check_range(p, f"predictions of {label}", 0.0, 1.0)
    return p if games.order is None else p[games.order]


def _score(games: Games, pred_stored: np.ndarray, mask: np.ndarray, draws: str, bins: int
           ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    row = _metrics.summary(pred_stored, games.score, mask=mask, draws=draws)
    table = _metrics.calibration(pred_stored, games.score, bins=bins, mask=mask)
    return row, table


def _prepare(games: Any, burn_in: Any, draws: str, bins: Any) -> np.ndarray:
    check_type(games, Games, "evaluation needs a fastrate.Games",
               "build one with Games.from_arrays or read_games")
    _metrics.check_draws(draws)
    check_bins(bins)
    mask = burn_in_mask(games, burn_in)
    if not mask.any():
        n_periods = period_starts(games.period).shape[0] - 1 if games.period is not None else 1
        raise InputError(f"a burn-in of {burn_in} period(s) leaves no games to score: the "
                         f"games span {n_periods} period(s); use a smaller burn_in")
    return mask


def _windowed(data: Games | Matches, mask: np.ndarray, burn_in: int, fit_until: Any,
              score_from: Any, score_until: Any) -> tuple[np.ndarray, tuple[Window, ...]]:
    """The scored mask and the windows an :class:`Evaluation` reports: ``mask`` (the
    burn-in's) as it is when no window is given, else the scored window of
    :func:`split_windows`."""
    if fit_until is None and score_from is None and score_until is None:
        return mask, ()
    split = split_windows(data, burn_in, fit_until, score_from, score_until)
    return split.score_mask(), split.windows(data, fit=fit_until is not None)


def _require_periods(specs: Sequence[SystemSpec], data: Games | Matches) -> None:
    """Refuse to score a batch system (``RatingSystem.batch``: refitted once per rating
    period for its walk-forward predictions) on data without periods: every prediction
    would be the no-fit default."""
    batch = [s.label for s in specs if s.system.batch]
    if batch and data.period is None:
        what = "games" if isinstance(data, Games) else "matches"
        raise ConfigError(f"{', '.join(batch)}: a batch model is refitted once per rating "
                          f"period to predict the next, and these {what} have no periods; "
                          "give periods (period='month' or 'year', --period month, or a "
                          "season column)")


def evaluate(games: Games | Matches, systems: Sequence[Any] | str, burn_in: int = 0,
             initial: Any = None, draws: str = "exclude", bins: int = 10,
             on_system: Callable[[str, Ratings], Any] | None = None,
             resets: Any = None, fit_until: Any = None, score_from: Any = None,
             score_until: Any = None) -> Evaluation:
    """Rate ``games`` with each system and score the walk-forward predictions.

    ``systems``: spec strings (``"elo"``, ``"elo:k=20"``, ``"elo@fide"``,
    ``"glicko2:tau=0.3"``), ``(name, config)`` pairs, or config objects. All are
    validated before any rating starts. ``burn_in``: leave the games of the first that
    many rating periods out of the scores (the systems still learn from them).
    ``initial``: starting ratings passed to every ``rate()``. ``draws``: the accuracy
    convention (``"exclude"`` or ``"half"``). ``bins``: calibration bins.
    ``on_system(label, ratings)`` is called after each system is rated (progress).
    ``resets``: explicit rating resets (a table: player, period or time, value) for the
    systems that take them (Elo: FiveThirtyEight's NFL franchise resets); refused when
    no system does.
    ``fit_until``, ``score_from``, ``score_until``: time windows (dates compared with the
    games' time column, or period labels; see :func:`split_windows`): only the games from
    ``score_from`` (default: ``fit_until``) up to ``score_until`` (excluded) and after the
    burn-in are scored; every system still learns from all the games before them. The
    table then says which games were used for what (:attr:`Evaluation.windows`).

    Returns an :class:`Evaluation` with one row per system, in the order given.

    On :class:`~fastrate.data.Matches` (or when a system rates matches: two-player
    games then become matches of two one-player teams) the table scores team and
    free-for-all predictions instead (:func:`evaluate_matches`).

    Batch models (``bradley_terry``) take part like the online systems: each rating
    period is predicted by the model refitted on the periods before it, so the games
    need periods (a :class:`~fastrate.errors.ConfigError` otherwise).
    """
    if isinstance(systems, (str, SystemSpec)) or (isinstance(systems, tuple)
                                                 and len(systems) == 2
                                                 and isinstance(systems[0], str)
                                                 and not isinstance(systems[1], str)):
        systems = [systems]
    specs = [SystemSpec.of(s) for s in systems]
    if not specs:
        raise ConfigError("no systems to evaluate: give at least one, e.g. ['elo']")
    if isinstance(games, Matches) or (isinstance(games, Games) and any(
            s.system.data == "matches" for s in specs)):
        return evaluate_matches(games, specs, burn_in=burn_in, initial=initial, bins=bins,
                                on_system=on_system, fit_until=fit_until,
                                score_from=score_from, score_until=score_until)
    for spec in specs:
        spec.system.require_data("games", "evaluate it with its own toolkit "
                                          f"({spec.system.module_name}.evaluate)")
    mask = _prepare(games, burn_in, draws, bins)
    mask, windows = _windowed(games, mask, burn_in, fit_until, score_from, score_until)
    _require_periods(specs, games)
    takes_resets = [s.system.accepts("resets") for s in specs]
    if resets is not None and not any(takes_resets):
        raise ConfigError("resets: none of these systems takes rating resets ("
                          + ", ".join(s.label for s in specs) + "); they work with "
                          + ", ".join(n for n in names() if REGISTRY[n].accepts("resets")))
    labels = unique_labels([s.label for s in specs])
    rows, tables, ratings = [], {}, {}
    for spec, label, with_resets in zip(specs, labels, takes_resets):
        extra = {"resets": resets} if resets is not None and with_resets else {}
        r = spec.rate(games, initial=initial, **extra)
        row, table = _score(games, _stored(games, r.predictions, label), mask, draws, bins)
        rows.append({"system": label, **row})
        tables[label] = table
        ratings[label] = r
        if on_system is not None:
            on_system(label, r)
    return Evaluation(rows, tables, games.n_games, int(burn_in), draws, ratings,
                      windows=windows)


def _match_predictions(spec: SystemSpec, matches: Matches, initial: Any
                       ) -> tuple[Ratings, np.ndarray, np.ndarray]:
    """Rate ``matches`` with one system: its Ratings, each team's win probability and
    each pair's expected score. A two-player system rates two-player matches as games:
    the first (better-ranked) player's expected score ``p`` gives ``p, 1 - p``."""
    system = spec.system
    if system.data == "matches":
        r = spec.rate(matches, initial=initial)
        return r, r.predictions, r.pair_predictions
    r = spec.rate(two_player_games(spec, matches), initial=initial)
    p = r.predictions
    return r, _metrics.two_player_win_probabilities(p), np.ascontiguousarray(p, np.float64)


def two_player_games(spec: SystemSpec, matches: Matches) -> Games:
    """Two-player ``matches`` as games for a two-player system (:meth:`Matches.to_games`:
    the better-ranked player first); refused, naming the system, when a match has teams
    or more than two sides, or for a system that rates neither."""
    system = spec.system
    if system.data != "games":
        system.require_data("matches", "evaluate it with its own toolkit")
    if not matches.is_two_player():
        raise ConfigError(f"rating system {system.name!r} rates two-player games; these "
                          "matches have teams or more than two sides: choose a system that "
                          f"rates matches ({', '.join(names('matches'))})")
    return matches.to_games()


def evaluate_matches(matches: Games | Matches, systems: Sequence[Any] | str,
                     burn_in: int = 0, initial: Any = None, bins: int = 10,
                     on_system: Callable[[str, Ratings], Any] | None = None,
                     fit_until: Any = None, score_from: Any = None,
                     score_until: Any = None) -> Evaluation:
    """Rate team or free-for-all ``matches`` with each system and score the walk-forward
    predictions: the winner's log loss and the favourite's accuracy, the log loss and
    accuracy over every pair of teams, and the rank correlation of expected and actual
    finishing order (:func:`fastrate.metrics.match_summary`), plus a calibration table
    of the win probabilities. Every registered system takes part: those that rate
    matches directly, and the two-player ones (Elo ...) when every match is two
    one-player teams. ``burn_in`` leaves the first rating periods' matches out of the
    scores, and ``fit_until``, ``score_from``, ``score_until`` choose the scored window
    as in :func:`evaluate`. Two-player :class:`Games` are taken as matches (draws as
    ties).
    """
    if isinstance(matches, Games):
        matches = Matches.from_games(matches)
    check_type(matches, Matches, "evaluate_matches() needs a fastrate.Matches",
               "build one with Matches.from_arrays or read_matches")
    if isinstance(systems, (str, SystemSpec)):
        systems = [systems]
    specs = [SystemSpec.of(s) for s in systems]
    if not specs:
        raise ConfigError("no systems to evaluate: give at least one, e.g. ['trueskill']")
    check_bins(bins)
    _require_periods(specs, matches)
    mask = burn_in_mask(matches, burn_in)
    if not mask.any():
        raise InputError(f"a burn-in of {burn_in} period(s) leaves no matches to score; use "
                         "a smaller burn_in")
    mask, windows = _windowed(matches, mask, burn_in, fit_until, score_from, score_until)
    off = matches.match_team_offsets
    team_mask = mask[matches.team_match()]
    share = _metrics.winner_outcomes(matches.rank, off)
    labels = unique_labels([s.label for s in specs])
    rows, tables, ratings = [], {}, {}
    for spec, label in zip(specs, labels):
        r, win, pair = _match_predictions(spec, matches, initial)
        rows.append({"system": label,
                     **_metrics.match_summary(win, pair, matches.rank, off, mask)})
        tables[label] = _metrics.calibration(win, share, bins=bins, mask=team_mask)
        ratings[label] = r
        if on_system is not None:
            on_system(label, r)
    return Evaluation(rows, tables, matches.n_matches, int(burn_in), "exclude", ratings,
                      unit="matches", windows=windows)


def score_window(data: Games | Matches, system: Any, start: int = 0, stop: int | None = None,
                 *, draws: str = "exclude", initial: Any = None,
                 resets: Any = None) -> dict[str, Any]:
    """Rate ``data`` with one system and score its walk-forward predictions on the stored
    (chronological) rows ``start:stop`` only: the metrics of one :class:`Evaluation` row
    (``n`` and :data:`fastrate.metrics.METRICS` for games; for matches, or a system that
    rates matches, :data:`fastrate.metrics.MATCH_METRICS`), computed exactly as
    :func:`evaluate` does with the same window (the same bits). What tuning runs for
    every configuration it tries (:func:`fastrate.tune.tune`). ``resets``: rating resets
    as in :func:`evaluate`, passed on when the system takes them (else ignored)."""
    spec = SystemSpec.of(system)
    n = len(data)
    stop = n if stop is None else int(stop)
    mask = np.zeros(n, dtype=np.bool_)
    mask[int(start):stop] = True
    if isinstance(data, Matches) or spec.system.data == "matches":
        matches = data if isinstance(data, Matches) else Matches.from_games(data)
        _, win, pair = _match_predictions(spec, matches, initial)
        return _metrics.match_summary(win, pair, matches.rank, matches.match_team_offsets,
                                      mask)
    extra = {"resets": resets} if resets is not None and spec.system.accepts("resets") else {}
    p = spec.rate(data, initial=initial, **extra).predictions
    if data.order is not None:
        p = p[data.order]
    return _metrics.summary(p, data.score, mask=mask, draws=draws)


def evaluate_predictions(games: Games, predictions: Any, burn_in: int = 0,
                         draws: str = "exclude", bins: int = 10,
                         name: str = "predictions") -> Evaluation:
    """Score predictions made elsewhere against ``games.score``.

    ``predictions``: the first player's expected score for every game **in input
    order** (as :attr:`fastrate.Ratings.predictions`): an array, a :class:`Ratings`, or
    a mapping ``label -> array or Ratings`` to compare several. ``name`` labels a
    single array.
    """
    mask = _prepare(games, burn_in, draws, bins)
    if isinstance(predictions, Mapping):
        items = list(predictions.items())
    elif isinstance(predictions, Ratings):
        items = [(predictions.system if name == "predictions" else name, predictions)]
    else:
        items = [(name, predictions)]
    rows, tables, ratings = [], {}, {}
    for label, pred in items:
        label = str(label)
        if isinstance(pred, Ratings):
            ratings[label] = pred
            pred = pred.predictions
        row, table = _score(games, _stored(games, pred, label), mask, draws, bins)
        rows.append({"system": label, **row})
        tables[label] = table
    return Evaluation(rows, tables, games.n_games, int(burn_in), draws, ratings)
