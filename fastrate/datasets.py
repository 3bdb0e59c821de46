"""Bundled example data sets, ready to rate (``fastrate rate --example football``)."""

from __future__ import annotations

from pathlib import Path

from fastrate.data.games import Games
from fastrate.errors import InputError
from fastrate.io.tables import games_from_table, read_table
from fastrate.ratings.elo import world_football_k

__all__ = ["example_path", "load_example"]


_EXAMPLES = {"football": "intl_football.csv.gz"}


def example_path(name: str = "football") -> Path:
    """Path of a bundled example data set (``football``: 49,520 international football
    matches 1872-2026, CC0, from github.com/martj42/international_results)."""
    if name not in _EXAMPLES:
        raise InputError(f"unknown example {name!r}: choose one of {', '.join(_EXAMPLES)}")
    return Path(__file__).resolve().parent / "data_files" / _EXAMPLES[name]


def load_example(name: str = "football", period: str | None = None):
    """The bundled example as :class:`fastrate.Games`.

    ``football``: home team first; score and margin from the goals; ``neutral`` from the
    data; ``weight`` is World Football Elo's K by match type divided by 40 (0.5 for a
    friendly ... 1.5 for a World Cup finals match; see :func:`fastrate.elo.world_football_k`),
    so ``EloConfig.world_football()`` (K 40) gives eloratings.net's K and any other Elo
    weighs matches the same way.
    """
    path = example_path(name)
    table = read_table(path)
    g = games_from_table(table, period=period, source=path.name)
    weights = world_football_k(table.column("tournament")) / 40.0
    return Games(white=g.white, black=g.black, score=g.score, players=g.players, time=g.time,
                 period=g.period, period_labels=g.period_labels,
                 weight=weights if g.order is None else weights[g.order], margin=g.margin,
                 neutral=g.neutral, order=g.order, source=g.source)
