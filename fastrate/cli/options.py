"""Option decorators shared by the commands (input columns, output, progress)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

FORMATS = ("csv", "parquet", "json")


def input_options(fn: Callable) -> Callable:
    """Column mapping and period options for reading a games file."""
    opts = [
        click.option("--white", metavar="COL", help="Column of the first player (gets any "
                     "advantage)."),
        click.option("--black", metavar="COL", help="Column of the second player."),
        click.option("--score", metavar="COL", help="Column of the first player's score "
                     "(1, 0.5, 0, a fraction, or 1-0 / 0-1 / 1/2-1/2)."),
        click.option("--winner", metavar="COL", help="Column of winners (with --loser: every "
                     "row is a win)."),
        click.option("--loser", metavar="COL", help="Column of losers."),
        click.option("--time", "time_col", metavar="COL", help="Column of dates/times "
                     "(default: date, time, ...)."),
        click.option("--time-format", metavar="FMT", help="strptime format of the time "
                     "column, e.g. %Y%m%d."),
        click.option("--period", metavar="SPEC|COL", help="Rating periods: a length (3d, 1w, "
                     "12h), month, year, or a column such as season."),
        click.option("--weight", metavar="COL", help="Column of per-game K multipliers."),
        click.option("--margin", metavar="COL", help="Column of point margins (default: from "
                     "home/away scores)."),
        click.option("--neutral", metavar="COL", help="Column of neutral-venue flags."),
        click.option("--drop-self-play", is_flag=True, default=None, help="Skip rows where "
                     "a player plays himself (counted and reported) instead of refusing them."),
        click.option("--input-format", type=click.Choice(FORMATS), help="Format of FILE "
                     "(default: from its extension)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


def column_kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    """Pop the input options from a command's kwargs into read_games() arguments."""
    names = {"white": "white", "black": "black", "score": "score", "winner": "winner",
             "loser": "loser", "time_col": "time", "time_format": "time_format",
             "period": "period", "weight": "weight", "margin": "margin", "neutral": "neutral",
             "drop_self_play": "drop_self_play"}
    out = {}
    for opt, arg in names.items():
        value = kw.pop(opt, None)
        if value is not None:
            out[arg] = value
    return out


def output_options(fn: Callable) -> Callable:
    opts = [
        click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the full "
                     "table to this file (written atomically)."),
        click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format "
                     "(default: from the -o extension; with no -o, a readable table)."),
        click.option("--progress/--no-progress", default=None, help="Progress on stderr "
                     "(default: when stderr is a terminal)."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn
