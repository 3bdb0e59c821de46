"""``fastrate plot KIND``: one picture, PNG or SVG by the -o suffix, written atomically
(:mod:`fastrate.report.plots`)."""

from __future__ import annotations

from collections.abc import Callable

import click

from fastrate.cli._common import (
    EXAMPLE_CHOICES,
    MATCH_EXAMPLES,
    column_kwargs,
    input_options,
    load_games,
)

#: the examples that are matches (long format)


def _picture_options(fn: Callable) -> Callable:
    """``-o`` (required), ``--dpi`` and ``--title`` of every picture."""
    fn = click.option("--title", help="Title of the picture (default: one that says what "
                      "it shows).")(fn)
    fn = click.option("--dpi", default=100, show_default=True, type=click.IntRange(20, 600),
                      help="Dots per inch of a PNG.")(fn)
    return click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
                        help="The picture to write: .png or .svg (written atomically).")(fn)


def _data_options(multiple: bool) -> Callable:
    """FILE or --example, the input columns and the system(s)."""
    def decorate(fn: Callable) -> Callable:
        fn = input_options(fn)
        what = ("A rating system (repeatable)" if multiple else "The rating system")
        fn = click.option("-s", "--system", "systems", multiple=multiple, metavar="SPEC",
                          help=f"{what}: elo, glicko2, 'elo:k=20', trueskill ... (default: "
                          "elo, or trueskill for matches).")(fn)
        fn = click.option("--example", type=click.Choice(EXAMPLE_CHOICES),
                          help="A bundled data set instead of FILE.")(fn)
        return click.argument("file", required=False, type=click.Path())(fn)
    return decorate


def _load(file, example, systems, input_format, kw, output):
    """The data and the parsed specs (defaults: elo, or trueskill for matches); the
    picture's name is checked first, before any work."""
    from fastrate import systems as registry
    from fastrate.report.plots import image_format
    from fastrate.systems import SystemSpec

    image_format(output)
    if isinstance(systems, str):
        systems = (systems,)
    matches = example in MATCH_EXAMPLES
    specs = [SystemSpec.parse(s) for s in (systems or ())]
    if not specs:
        specs = [SystemSpec.parse("trueskill" if matches else "elo")]
    matches = matches or any(registry.get(s.name).data == "matches" for s in specs)
    data = load_games(file, example, input_format, column_kwargs(kw), matches=matches)
    return data, specs


def _save(fig, output: str, dpi: int) -> None:
    from fastrate.report.plots import save_figure

    save_figure(fig, output, dpi=dpi)
    click.echo(f"wrote {output}", err=True)


@click.group("plot")
def plot_group() -> None:
    """Draw one picture of ratings: PNG or SVG by the -o suffix (needs matplotlib).

    \b
    Examples:
      fastrate plot trajectories --example football --period year -s glicko2 -o top.png
      fastrate plot calibration --example football -s elo -s glicko2 --period year -o cal.svg
      fastrate plot tuning trials.csv --metric log_loss -o tuning.png
    """


@plot_group.command("trajectories")
@_data_options(multiple=False)
@click.option("--show", "players", multiple=True, metavar="NAME", help="A player to draw "
              "(repeatable; default: the top players).")
@click.option("--top", default=10, show_default=True, type=click.IntRange(1, 40),
              help="Draw the N best players (by the conservative rating where the system "
              "has an uncertainty).")
@click.option("--points", default=100, show_default=True, type=click.IntRange(min=2),
              help="Most points of a trajectory (slices of the data, at period boundaries).")
@click.option("--band/--no-band", default=True, show_default=True,
              help="Shade +-2 standard deviations where the system has an uncertainty.")
@_picture_options
def trajectories_command(file, example, systems, players, top, points, band, output, dpi,
                         title, input_format, **kw) -> None:
    """Rating trajectories of chosen players or the top N."""
    from fastrate.report import plots
    from fastrate.report.history import rating_history

    data, (spec, *_) = _load(file, example, systems, input_format, kw, output)
    hist = rating_history(data, spec, players=list(players) or None, points=points)
    final = None if players else spec.rate(data, predictions=False)
    fig = plots.trajectories(hist, players=list(players) or None, top=top, ratings=final,
                             system=spec.name, title=title, band=band)
    _save(fig, output, dpi)


@plot_group.command("distribution")
@_data_options(multiple=False)
@click.option("--min-games", default=1, show_default=True, type=click.IntRange(min=1),
              help="Leave out players with fewer games from the histogram.")
@click.option("--bins", default=40, show_default=True, type=click.IntRange(min=1),
              help="Bars of the histogram.")
@click.option("--points", default=100, show_default=True, type=click.IntRange(min=2),
              help="Points in time of the drift panel.")
@_picture_options
def distribution_command(file, example, systems, min_games, bins, points, output, dpi,
                         title, input_format, **kw) -> None:
    """The rating distribution, and its quantiles over time (drift)."""
    from fastrate.report import plots
    from fastrate.report.history import rating_history

    data, (spec, *_) = _load(file, example, systems, input_format, kw, output)
    final = spec.rate(data, predictions=False)
    hist = None if spec.system.batch else rating_history(data, spec, points=points)
    fig = plots.distribution(final, hist, min_games=min_games, bins=bins, system=spec.name,
                             title=title)
    _save(fig, output, dpi)


@plot_group.command("calibration")
@_data_options(multiple=True)
@click.option("--burn-in", default=0, show_default=True, metavar="N",
              type=click.IntRange(min=0), help="Leave the first N rating periods out.")
@click.option("--bins", default=10, show_default=True, type=click.IntRange(min=2),
              help="Bins of the predicted score.")
@_picture_options
def calibration_command(file, example, systems, burn_in, bins, output, dpi, title,
                        input_format, **kw) -> None:
    """Reliability diagram of every system, with counts and a 95% band."""
    from fastrate.evaluate import evaluate
    from fastrate.report import plots

    data, specs = _load(file, example, systems, input_format, kw, output)
    ev = evaluate(data, specs, burn_in=burn_in, bins=bins)
    _save(plots.calibration(ev, title=title, data=data), output, dpi)


@plot_group.command("metrics")
@_data_options(multiple=True)
@click.option("--window", type=click.IntRange(min=1), default=None, metavar="N",
              help="Games in the rolling mean (default: a fiftieth of them, at least 100).")
@_picture_options
def metrics_command(file, example, systems, window, output, dpi, title, input_format,
                    **kw) -> None:
    """Rolling log loss and Brier score of every system over time."""
    from fastrate.evaluate import evaluate
    from fastrate.report import plots

    data, specs = _load(file, example, systems, input_format, kw, output)
    ev = evaluate(data, specs)
    _save(plots.metrics_over_time(data, ev.ratings, window=window, title=title), output, dpi)


@plot_group.command("head-to-head")
@_data_options(multiple=False)
@click.option("--show", "players", multiple=True, metavar="NAME",
              help="A player of the matrix (repeatable; default: the top players).")
@click.option("--top", default=10, show_default=True, type=click.IntRange(2, 40),
              help="The N best players.")
@_picture_options
def head_to_head_command(file, example, systems, players, top, output, dpi, title,
                         input_format, **kw) -> None:
    """Observed against predicted score between the top N players."""
    from fastrate.report import plots

    data, (spec, *_) = _load(file, example, systems, input_format, kw, output)
    ratings = spec.rate(data)
    _save(plots.head_to_head(data, ratings, top=top, players=list(players) or None,
                             title=title), output, dpi)


@plot_group.command("tuning")
@click.argument("table", type=click.Path(exists=True, dir_okay=False))
@click.option("--metric", default="log_loss", show_default=True,
              help="The metric column to draw.")
@click.option("--input-format", type=click.Choice(("csv", "parquet", "json")),
              help="Format of TABLE (default: from its extension).")
@_picture_options
def tuning_command(table, metric, input_format, output, dpi, title) -> None:
    """Tuning curves from a 'fastrate tune' trial table: the metric against each
    parameter."""
    from fastrate.io.tables import read_table
    from fastrate.report import plots

    plots.image_format(output)
    trials = read_table(table, format=input_format)
    _save(plots.tuning(trials, metric=metric, title=title), output, dpi)
