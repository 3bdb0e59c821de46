"""``fastrate tune``: search rating systems' parameters for the best walk-forward
prediction (:func:`fastrate.tune.tune`). I/O only."""

from __future__ import annotations

import sys

import click

from fastrate.cli._common import (
    EXAMPLE_CHOICES,
    MATCH_EXAMPLES,
    column_kwargs,
    input_options,
    load_games,
    read_state_file,
    table_output_options,
    window_options,
)

#: --example choices (fastrate.datasets)


class _TrialBar:
    """Trials done on stderr (tqdm), the ``progress`` callback of :func:`fastrate.tune`."""

    def __init__(self, enabled: bool | None):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=None, desc="tuning", unit=" trials", file=sys.stderr,
                            leave=False, dynamic_ncols=True)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            return
        if self.bar.total != total:
            self.bar.total = total
            self.bar.refresh()
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@click.command("tune")
@click.argument("file", required=False, type=click.Path())
@click.option("--example", type=click.Choice(EXAMPLE_CHOICES), help="Tune on a bundled data set "
              "instead of FILE.")
@click.option("-s", "--system", "spaces", multiple=True, metavar="SPACE",
              help="A search space (repeatable): a spec with ranges and lists, e.g. "
              "'elo:k=10..60,advantage=0..150,k_schedule=constant|power', "
              "'glicko2:tau=0.1..1.2:log', 'elom:k_games=10..2000:int', "
              "'elo:k_schedule=power,k_power[2]=0.1..0.8' (default: every registered system "
              "that fits the data, over its default space).")
@click.option("--strategy", type=click.Choice(["grid", "random", "coordinate"]), default=None,
              help="grid: every combination; random: seeded draws; coordinate: a compass "
              "search with quadratic steps (default: grid when every option is a list, "
              "else coordinate).")
@click.option("-n", "--trials", type=click.IntRange(min=1), default=None, metavar="N",
              help="Evaluations per space (default: the whole grid, 50 random, 200 "
              "coordinate).")
@click.option("--grid-points", type=click.IntRange(min=1), default=5, show_default=True,
              metavar="N", help="Grid: values per range.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random: the seed.")
@click.option("--metric", default=None, metavar="NAME", help="What to optimise: log_loss "
              "(default), deviance, brier, rmse, accuracy; for matches winner_log_loss "
              "(default), winner_accuracy, pair_log_loss, pair_accuracy, rank_correlation.")
@click.option("--burn-in", default=0, show_default=True, metavar="N", type=click.IntRange(min=0),
              help="Leave the games of the first N rating periods out of every score.")
@window_options
@click.option("--draws", type=click.Choice(["exclude", "half"]), default="exclude",
              show_default=True, help="Accuracy: leave draws out, or count a draw as half.")
@click.option("--initial", type=click.Path(exists=True, dir_okay=False), help="Starting "
              "ratings for every run (player, rating[, rd, ...]), as in 'fastrate rate'.")
@click.option("--resets", type=click.Path(exists=True, dir_okay=False), help="Explicit "
              "rating resets (player, period or time, value) for the systems that take them "
              "(elo), in every run, as in 'fastrate evaluate'.")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=1, show_default=True,
              help="Configurations evaluated at once (threads; with --dask, Dask workers).")
@click.option("--dask", "use_dask", is_flag=True, help="Run the trials on a Dask LocalCluster "
              "started here (--workers processes; needs dask and distributed).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None, help="Run the trials "
              "on the Dask cluster of this scheduler.")
@input_options
@table_output_options("the table of every configuration tried (--format json: one object "
                      "with the best, its scores and the trials)",
                      "with no -o, the summary")
@click.option("--progress/--no-progress", default=None, help="Progress on stderr (default: "
              "when stderr is a terminal).")
def tune_command(file, example, spaces, strategy, trials, grid_points, seed, metric, burn_in,
                 fit_until, score_from, score_until, draws, initial, resets, workers, use_dask,
                 scheduler, input_format, output, fmt, progress, **kw) -> None:
    """Search rating systems' parameters for the best walk-forward prediction on FILE.

    Every configuration is scored on the fit window (after --burn-in, before --fit-until
    or --score-from); the best is then scored once on the scored window (from
    --score-from to --score-until). Prints the best configuration as a ready -s string
    with its in-sample and out-of-sample scores; -o writes the table of every
    configuration tried (columns: trial, system, spec, one per parameter, then the fit
    metrics).

    \b
    Examples:
      fastrate tune games.csv --score-from 2000-01-01
      fastrate tune --example football --period year -s "elo:k=10..60,advantage=0..150"
          --score-from 2000-01-01 -o trials.csv
      fastrate tune atp.csv.gz --winner winner_id --loser loser_id --period year
          -s "elo:k_schedule=power,k_power[0]=50..3000:log,k_power[1]=1..200:log,k_power[2]=0.1..1"
          --score-from 2000-01-01 -j 2 --format json
      fastrate tune games.csv -s "glicko2:tau=0.1..1.2:log" --strategy random -n 40
          --period month --score-from 2020-01-01 --dask
    """
    import json

    from fastrate import systems
    from fastrate.errors import ConfigError
    from fastrate.tune import Space, tune

    columns = column_kwargs(kw)
    if use_dask and scheduler is not None:
        raise ConfigError("give either --dask (a local cluster) or --scheduler, not both")
    parsed = [Space.parse(s) for s in spaces]
    as_matches = example in MATCH_EXAMPLES or any(
        systems.get(p.system).data == "matches" for p in parsed)
    games = load_games(file, example, input_format, columns, matches=as_matches)
    bar = _TrialBar(progress)
    try:
        result = tune(games, list(spaces) or None, strategy=strategy, trials=trials,
                      grid_points=grid_points, seed=seed, metric=metric, burn_in=burn_in,
                      fit_until=fit_until, score_from=score_from, score_until=score_until,
                      initial=read_state_file(initial, "initial"),
                      resets=read_state_file(resets, "resets", columns.get("period")),
                      draws=draws, workers=workers,
                      dask=scheduler if scheduler is not None else ("local" if use_dask
                                                                    else None),
                      progress=bar)
    finally:
        bar.close()
    json_out = fmt == "json" or (fmt is None and output is not None
                                 and str(output).lower().endswith(".json"))
    if json_out:
        text = json.dumps(result.to_dict(), indent=None) + "\n"
        if output is None:
            sys.stdout.write(text)
            sys.stdout.flush()
        else:
            from fastrate._files import atomic_file

            with atomic_file(output) as f:
                f.write(text.encode())
    elif output is not None or fmt is not None:
        from fastrate.cli._common import emit

        emit(result.to_arrow(), output, fmt)
    if output is not None or fmt is None:
        click.echo(str(result), err=output is None and fmt is not None)
    if output is not None:
        click.echo(f"wrote {len(result.trials):,} trials to {output}", err=True)
