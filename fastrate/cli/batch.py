"""``fastrate batch``: all games fitted at once (Bradley-Terry, as Ordo and BayesElo do).
I/O and errors only; the fitting happens in :mod:`fastrate.ratings.bradley_terry`."""

from __future__ import annotations

from typing import Any

import click

from fastrate.cli._common import (
    Progress,
    column_kwargs,
    emit,
    format_table,
    input_options,
    load_games,
    output_options,
)


@click.command("batch")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--example", type=click.Choice(["football"]), help="Fit a bundled data set "
              "instead of FILE.")
@click.option("--model", type=click.Choice(["bt_half", "bayeselo"]), default="bt_half",
              show_default=True, help="bt_half: a draw is half a win (Ordo); bayeselo: "
              "BayesElo's model with drawelo.")
@click.option("--advantage", default="0", show_default=True, metavar="ELO|fit",
              help="First-move (home) advantage in Elo, or 'fit'.")
@click.option("--drawelo", default="fit", show_default=True, metavar="ELO|fit",
              help="bayeselo: the draw parameter in Elo, or 'fit'.")
@click.option("--prior", default=0.0, show_default=True, type=click.FloatRange(min=0.0),
              help="BayesElo's virtual draws per player (its default is 2; 0: the exact "
              "maximum likelihood).")
@click.option("--anchor", default=None, metavar="NAME=ELO|ELO", help="Give one player a "
              "fixed rating (NAME=1800), or set the mean rating (default 0).")
@click.option("--largest-component", is_flag=True, help="Rate only the players of the "
              "largest strongly connected component (Ordo's default), reporting who is left "
              "out; without it such data is refused.")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0),
              help="Rows of the readable table (0: none).")
@input_options
@output_options
def batch_command(file, example, model, advantage, drawelo, prior, anchor, largest_component,
                  top, input_format, output, fmt, progress, **kw) -> None:
    """Fit all games of FILE at once (Bradley-Terry, as Ordo and BayesElo do).

    The exact maximum-likelihood ratings (or maximum a posteriori with --prior) of the
    chosen model, with the advantage and drawelo fixed or fitted. FILE: PGN (also
    gzipped) or a games table as for `fastrate rate`.

    \b
    Examples:
      fastrate batch games.pgn --advantage fit
      fastrate batch games.pgn --model bayeselo --advantage fit --drawelo fit --prior 2
      fastrate batch results.csv --advantage fit --anchor Brazil=2000 -o fit.csv
    """
    import numpy as np
    import pyarrow as pa

    from fastrate.errors import InputError
    from fastrate.ratings.bradley_terry import BTConfig, fit
    from fastrate.ratings.bradley_terry import largest_component as keep_largest

    def number_or_fit(value: str, option: str) -> Any:
        if value.strip().lower() == "fit":
            return "fit"
        try:
            return float(value)
        except ValueError:
            raise InputError(f"{option} must be a number of Elo or 'fit'; got {value!r}") \
                from None

    kwargs: dict[str, Any] = {}
    if anchor is not None:
        name, eq, value = anchor.rpartition("=")
        try:
            kwargs["mean_rating"] = float(value)
        except ValueError:
            raise InputError(f"--anchor must be NAME=ELO or ELO; got {anchor!r}") from None
        if eq:
            kwargs["anchor"] = name
    config = BTConfig(model=model, advantage=number_or_fit(advantage, "--advantage"),
                      drawelo=number_or_fit(drawelo, "--drawelo"), prior=prior, **kwargs)
    columns = column_kwargs(kw)
    bar = Progress(["reading", "fitting", "writing"], progress)
    try:
        games = load_games(file, example, input_format, columns)
        if largest_component:
            games, left_out = keep_largest(games, prior)
            if left_out.size:
                shown = ", ".join(map(str, left_out[:10].tolist()))
                more = f" and {left_out.size - 10} more" if left_out.size > 10 else ""
                click.echo(f"fastrate: note: left out {left_out.size:,} player"
                           f"{'s' if left_out.size != 1 else ''} outside the largest "
                           f"strongly connected component: {shown}{more}", err=True)
        bar.step()
        result = fit(games, config)
        bar.step()
        n = len(result.players)
        played = np.bincount(games.white, minlength=n) + np.bincount(games.black, minlength=n)
        points = (np.bincount(games.white, weights=games.score, minlength=n)
                  + np.bincount(games.black, weights=1.0 - games.score, minlength=n))
        draw = (games.score == 0.5).astype(np.float64)
        draws = (np.bincount(games.white, weights=draw, minlength=n)
                 + np.bincount(games.black, weights=draw, minlength=n))
        order = np.argsort(-result.rating, kind="stable")
        table = {"player": result.players.names[order], "rating": result.rating[order],
                 "games": played[order], "score": (points / np.maximum(played, 1))[order],
                 "draws": (draws / np.maximum(played, 1))[order]}
        if output is not None or fmt is not None:
            emit(pa.table({k: pa.array(v.tolist()) for k, v in table.items()}), output, fmt)
        bar.step()
    finally:
        bar.close()
    if output is not None or fmt is None:
        extra = f"advantage {result.advantage:.1f}"
        if model == "bayeselo":
            extra += f", drawelo {result.drawelo:.1f}"
        state = "converged" if result.converged else "NOT converged"
        title = (f"{model}: {games.n_games:,} games, {n:,} players; {extra}; log-likelihood "
                 f"{result.log_likelihood:.2f}; {state} in {result.n_newton} Newton steps")
        if top > 0:
            click.echo(format_table(table, top, title), err=output is None and fmt is not None)
        if output is not None:
            click.echo(f"wrote {n:,} ratings to {output}", err=True)
