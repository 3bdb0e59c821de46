"""``fastrate backgammon``: FIBS ratings of a match list and ratings estimated from error
rates. I/O and errors only; the computing happens in :mod:`fastrate.fibs` and
:mod:`fastrate.backgammon`."""

from __future__ import annotations

import click

from fastrate.cli._common import emit, format_table, input_format_option, table_output_options


@click.group("backgammon", context_settings={"help_option_names": ["-h", "--help"]})
def backgammon_group() -> None:
    """Backgammon: FIBS ratings and ratings estimated from error rates.

    \b
    Examples:
      fastrate backgammon rate matches.csv --top 10
      fastrate backgammon estimate --epm 0.008 --epc 0.02 --length 7
      fastrate backgammon estimate --file analysed.csv --offset 2050
    """


@backgammon_group.command("rate")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--winner", default="winner", show_default=True, metavar="COL",
              help="Column of match winners.")
@click.option("--loser", default="loser", show_default=True, metavar="COL",
              help="Column of match losers.")
@click.option("--length", "length_col", default="length", show_default=True, metavar="COL",
              help="Column of match lengths (points).")
@click.option("--time", "time_col", metavar="COL", help="Column of dates/times used to order "
              "the matches (default: date, time, ... when present).")
@click.option("--drop-self-play", is_flag=True, help="Skip rows where a player plays "
              "himself (counted and reported) instead of refusing them.")
@click.option("--no-experience", is_flag=True, help="Constant K for everyone (--k) instead "
              "of FIBS's K = max(1, 5 - experience/100).")
@click.option("--k", "k", default=1.0, show_default=True, type=float,
              help="The constant K used with --no-experience.")
@click.option("--initial-rating", default=1500.0, show_default=True, type=float,
              help="Rating of a new player.")
@click.option("--initial", type=click.Path(exists=True, dir_okay=False), help="Starting "
              "ratings (player, rating[, experience, games_played]); a previous run's "
              "output continues it exactly.")
@click.option("--evaluate", "do_evaluate", is_flag=True, help="Also score the walk-forward "
              "pre-match predictions (log loss, deviance, Brier, RMSE, accuracy) against "
              "the null model's 50%, printed on stderr.")
@click.option("--period", metavar="SPEC", help="Rating periods for --burn-in: a length "
              "(1w, 30d), a calendar unit (month) or a column name.")
@click.option("--burn-in", default=0, show_default=True, metavar="N",
              help="With --evaluate: leave the matches of the first N periods out of the "
              "scores.")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0),
              help="Rows of the readable table (0: none).")
@input_format_option()
@table_output_options("the full table")
def rate_command(file, winner, loser, length_col, time_col, drop_self_play, no_experience, k,
                 initial_rating, initial, do_evaluate, period, burn_in, top, input_format,
                 output, fmt) -> None:
    """FIBS ratings of the matches in FILE (columns date, winner, loser, length).

    Every row is one finished match, its winner first. The winner gains
    4 K sqrt(N) P and the loser loses as much (his own K), P = the winner's chance of
    having lost.

    \b
    Examples:
      fastrate backgammon rate matches.csv
      fastrate backgammon rate club.csv --no-experience --k 1 -o ratings.csv
      fastrate backgammon rate matches.csv --evaluate --period month --burn-in 3
    """
    from fastrate.data.game_table import pick_column
    from fastrate.errors import InputError
    from fastrate.io.tables import games_from_table, read_table
    from fastrate.ratings.fibs import FibsConfig, rate

    if burn_in and not do_evaluate:
        raise InputError("--burn-in only applies with --evaluate")
    table = read_table(file, input_format)
    name = click.format_filename(file).rsplit("/", 1)[-1]
    if table.num_rows == 0:
        raise InputError(f"no matches: {name} has no rows")
    lcol = pick_column(table.column_names, length_col, "match lengths", name)
    lengths = table.column(lcol).to_numpy(zero_copy_only=False)
    games = games_from_table(table, winner=winner, loser=loser, time=time_col,
                             period=period, drop_self_play=drop_self_play, source=name)
    if games.source.rows is not None:  # rows were dropped: keep their lengths in step
        lengths = lengths[games.source.rows]
    for reason, count, first in games.dropped:
        click.echo(f"fastrate: note: skipped {count:,} row{'s' if count != 1 else ''} where "
                   f"{reason} (first at {first})", err=True)
    config = FibsConfig(initial_rating=initial_rating, use_experience=not no_experience, k=k)
    init = read_table(initial) if initial is not None else None
    if do_evaluate:
        from fastrate.ratings.fibs import evaluate

        label = "fibs" if config.use_experience else f"fibs, K = {config.k:g}"
        result = evaluate(games, [(label, config)], length=lengths, initial=init,
                          burn_in=burn_in)
        ratings = result.ratings[label]
        click.echo(str(result), err=True)
    else:
        ratings = rate(games, config, initial=init, length=lengths)
    if output is not None or fmt is not None:
        emit(ratings.to_arrow(sort=True), output, fmt)
    if output is not None or fmt is None:
        order = ratings.ranking()
        cols = {key: v[order] for key, v in ratings.columns().items()}
        kind = "FIBS" if config.use_experience else f"FIBS, K = {config.k:g}"
        title = (f"{kind}: {games.n_games:,} matches, {len(ratings):,} players ({name}); "
                 f"top {min(top, len(ratings))}")
        if top > 0:
            click.echo(format_table(cols, top, title), err=output is None and fmt is not None)
        if output is not None:
            click.echo(f"wrote {len(ratings):,} ratings to {output}", err=True)


@backgammon_group.command("estimate")
@click.option("--epm", type=float, help="Chequer-play error per unforced move (one match).")
@click.option("--epc", type=float, help="Cube error per close cube decision (one match).")
@click.option("--length", type=int, help="Match length in points (one match).")
@click.option("--file", "file", type=click.Path(dir_okay=False), help="A set of analysed "
              "matches instead: columns epm, epc, length.")
@click.option("--offset", default=2050.0, show_default=True, type=float,
              help="Rating of the analysing program on the site (gnubg: 2050 on FIBS).")
@click.option("--confidence", default=0.9, show_default=True, type=float,
              help="Confidence of the Student-t interval over a set of matches.")
@input_format_option("--file")
def estimate_command(epm, epc, length, file, offset, confidence, input_format) -> None:
    """Estimate a player's FIBS rating from his error rates.

    rating = offset - (a2(N) EPM + b(N) EPC), a2(N) = 8798 + 25526/N,
    b(N) = 863 - 519/N (N = 1: 37916 EPM). Over a set of matches: the mean and a
    Student-t interval, with gnubg's skill class of the mean error rates.

    \b
    Examples:
      fastrate backgammon estimate --epm 0.008 --epc 0.02 --length 7
      fastrate backgammon estimate --file analysed.csv --confidence 0.95
    """
    import numpy as np

    from fastrate.errors import InputError
    from fastrate.stats.backgammon import estimate_rating, skill_class

    single = (epm, epc, length)
    if file is not None:
        if any(v is not None for v in single):
            raise InputError("give either --file or --epm/--epc/--length, not both")
        from fastrate._validate import Source, as_float64
        from fastrate.data.game_table import pick_column
        from fastrate.io.tables import read_table

        table = read_table(file, input_format)
        name = click.format_filename(file).rsplit("/", 1)[-1]
        if table.num_rows == 0:
            raise InputError(f"no matches: {name} has no rows")
        src = Source(name, first_line=2 if name.lower().endswith((".csv", ".csv.gz")) else 0)
        cols = {}
        for col in ("epm", "epc", "length"):
            arr = table.column(pick_column(table.column_names, col, col, name))
            cols[col] = as_float64(arr.to_numpy(zero_copy_only=False), col, src)
        m, c, n = cols["epm"], cols["epc"], cols["length"]
        for col, values in cols.items():
            bad = values < (1 if col == "length" else 0)
            if col == "length":
                bad |= values != np.floor(values)
            if bad.any():
                from fastrate._validate import fail_at

                need = ("must be a match length, a whole number of points >= 1"
                        if col == "length" else "must be >= 0")
                raise fail_at(col, need, values, int(np.argmax(bad)), src)
    else:
        missing = [f"--{k}" for k, v in zip(("epm", "epc", "length"), single) if v is None]
        if missing:
            raise InputError(f"give {', '.join(missing)} (one match) or --file (a set of "
                             "matches)")
        m, c, n = np.array([epm]), np.array([epc]), np.array([length])
    est = estimate_rating(m, c, n, offset=offset, confidence=confidence)
    click.echo(f"estimated rating: {est}")
    if est.n > 1:
        click.echo(f"  mean epm {float(np.mean(m)):.4f}, mean epc {float(np.mean(c)):.4f}, "
                   f"rating offset {offset:g}")
    click.echo(f"  chequer play: {skill_class(float(np.mean(m)))}; cube: "
               f"{skill_class(float(np.mean(c)))}")
