"""Bundled example data sets, ready to rate (``fastrate rate --example football``,
``--example f1``, ``--example f1_teams``)."""

from __future__ import annotations

from pathlib import Path

from fastrate.data._csr import factorize
from fastrate.data.games import Games
from fastrate.data.match_types import match_type_weights
from fastrate.data.matches import Matches
from fastrate.errors import InputError
from fastrate.io.tables import games_from_table, read_table

__all__ = ["example_path", "load_example", "EXAMPLES", "load_f1"]


_EXAMPLES = {"football": "intl_football.csv.gz", "f1": "f1_results.csv.gz",
             "f1_teams": "f1_results.csv.gz"}
#: the bundled examples: name -> what it is
EXAMPLES = {
    "football": "49,520 international football matches 1872-2026 (two-player games, CC0)",
    "f1": "1,160 Formula 1 races 1950-2026: drivers in a free-for-all (matches, CC BY 4.0 "
          "F1DB)",
    "f1_teams": "the same races with constructors as teams of their drivers (matches)",
}


def example_path(name: str = "football") -> Path:
    """Path of a bundled example data set (``football``: 49,520 international football
    matches 1872-2026, CC0, from github.com/martj42/international_results; ``f1`` and
    ``f1_teams``: 27,438 Formula 1 results 1950-2026 derived from F1DB by Marcel
    Overdijk and contributors, CC BY 4.0, see ``data_files/f1_results.LICENSE``)."""
    if name not in _EXAMPLES:
        raise InputError(f"unknown example {name!r}: choose one of {', '.join(_EXAMPLES)}")
    return Path(__file__).resolve().parent / "data_files" / _EXAMPLES[name]


def load_example(name: str = "football", period: str | None = None):
    """The bundled example as :class:`fastrate.Games` (``football``) or
    :class:`fastrate.Matches` (``f1``, ``f1_teams``: see :func:`load_f1`).

    ``football``: home team first; score and margin from the goals; ``neutral`` from the
    data; ``weight`` is World Football Elo's K by match type divided by 40 (0.5 for a
    friendly ... 1.5 for a World Cup finals match; see :func:`fastrate.elo.world_football_k`),
    so ``EloConfig.world_football()`` (K 40) gives eloratings.net's K and any other Elo
    weighs matches the same way.
    """
    path = example_path(name)
    if name in ("f1", "f1_teams"):
        return load_f1(teams=name == "f1_teams", period=period)
    table = read_table(path)
    g = games_from_table(table, period=period, source=path.name)
    weights = match_type_weights(table.column("tournament"))
    return Games(white=g.white, black=g.black, score=g.score, players=g.players, time=g.time,
                 period=g.period, period_labels=g.period_labels,
                 weight=weights if g.order is None else weights[g.order], margin=g.margin,
                 neutral=g.neutral, order=g.order, source=g.source)


def load_f1(teams: bool = False, period: str | None = None, since: int | None = None
            ) -> Matches:
    """The bundled Formula 1 results as :class:`fastrate.Matches`: one match per Grand
    Prix (time: the race date), the drivers who took the start, ranked by finishing
    position; unclassified starters (retired, not classified, disqualified) tie last.
    Shared drives of the 1950s give tied positions.

    ``teams=False``: every driver is a side of his own (a free-for-all of 6 to 42).
    ``teams=True``: each constructor is a team of its drivers in that race, placed by
    its best-placed driver (a constructor with no classified driver ties last).
    ``period``: a period spec (``"year"``, ``"month"``) or ``"season"`` for the
    championship season. ``since``: keep the seasons from that year on.

    Derived from F1DB (github.com/f1db/f1db) by Marcel Overdijk and contributors,
    CC BY 4.0; see ``fastrate/data_files/f1_results.LICENSE``.
    """
    import numpy as np
    import pyarrow.compute as pc

    path = example_path("f1")
    table = read_table(path)
    table = table.filter(pc.equal(table.column("started"), 1))
    if since is not None:
        table = table.filter(pc.greater_equal(table.column("season"), int(since)))
    position = table.column("position").to_numpy(zero_copy_only=False).astype(np.float64)
    race = table.column("race_id").to_numpy(zero_copy_only=False)
    team = None
    if teams:
        constructor = table.column("constructor").to_numpy(zero_copy_only=False)
        team = constructor
        race_id, _ = factorize(race, "race_id")
        cons_id, cons = factorize(constructor, "constructor")
        _, inverse = np.unique(race_id * len(cons) + cons_id, return_inverse=True)
        best = np.full(inverse.max() + 1, np.inf)
        np.fmin.at(best, inverse, np.where(np.isnan(position), np.inf, position))
        position = best[inverse]
        position[np.isinf(position)] = np.nan
    if period == "season":
        period_arg = table.column("season")
    else:
        period_arg = period
    return Matches.from_arrays(race, team, table.column("driver"), place=position,
                               time=table.column("date"), period=period_arg,
                               unranked="last", source=path.name)

