"""The commands: ``rate``, ``evaluate``, ``systems``, ``warmup``. I/O and errors only; the
computing happens in the public API."""

from __future__ import annotations

from typing import Any

import click

from fastrate.cli._common import (
    EXAMPLE_CHOICES,
    FORMATS,
    MATCH_EXAMPLES,
    GameProgress,
    Progress,
    chunk_columns,
    column_kwargs,
    emit,
    format_table,
    input_options,
    load_games,
    note_dropped,
    output_options,
    read_state_file,
    split_columns,
    window_options,
)

#: the rating period a period-based system gets when the games have times but no
#: --period was given
DEFAULT_PERIOD = "month"


def _default_period(games, names, evaluating: bool, note: bool = True):
    """Period-based systems (Glicko, Glicko-2) update once per rating period. Without
    --period, games that have times are grouped by calendar month (said on stderr);
    games without times are one period: a note for ``rate``, and for ``evaluate`` a
    refusal, since every prediction would then be the no-information default."""
    period_based = _period_based(names)
    if not period_based or games.period is not None:
        return games
    which = ", ".join(period_based)
    verb = "updates" if len(period_based) == 1 else "update"
    if games.time is not None:
        import dataclasses

        from fastrate.data.periods import bucket_periods

        if note:
            _note_default_period(period_based)
        return dataclasses.replace(games, period=bucket_periods(games.time, DEFAULT_PERIOD))
    if evaluating:
        from fastrate.errors import ConfigError

        raise ConfigError(f"{which} {verb} once per rating period, and these games have "
                          "neither periods nor times: every prediction would be the "
                          "starting one (a coin flip); give --period (a column such as "
                          "season), or evaluate systems that update game by game (elo)")
    if note:
        click.echo(f"fastrate: note: {which} {verb} once per rating period and these games "
                   "have none, so they form a single period; give --period (a column such "
                   "as season)", err=True)
    return games


def _period_based(names) -> list[str]:
    """The systems of ``names`` that update once per rating period (not batch fits, whose
    period is chosen, not defaulted)."""
    from fastrate import systems

    return sorted({n for n in names if systems.get(n).period_based
                   and not systems.get(n).batch})


def _note_default_period(period_based: list[str]) -> None:
    """Say that games without periods are grouped by DEFAULT_PERIOD (whole or in chunks)."""
    which = ", ".join(period_based)
    verb = "updates" if len(period_based) == 1 else "update"
    click.echo(f"fastrate: note: {which} {verb} once per rating period; no --period "
               f"was given, so the games are grouped by {DEFAULT_PERIOD} (choose with "
               "--period: 1w, month, year, or a column such as season)", err=True)


def _note_chunks(dropped: list, seen: dict, specs: list) -> None:
    """The notes of a run in chunks, as a whole run gives them: rows left out, the default
    period, unweighted World Football Elo."""
    note_dropped(dropped)
    if seen.get("default_period"):
        _note_default_period(_period_based([s.name for s in specs]))
    _note_unweighted(bool(seen.get("unweighted")), specs)


def _note_unweighted(unweighted: bool, specs) -> None:
    """World Football Elo weighs each match by its type; say so when the games have no
    weights (a user's own copy of the football results read without --weight)."""
    if unweighted and any("@world_football" in str(getattr(s, "label", s)) for s in specs):
        click.echo("fastrate: note: elo@world_football weighs each match by its type (K 20 "
                   "for a friendly ... 60 at a World Cup); these games have no weights: give "
                   "--weight tournament (the bundled example has them)", err=True)


def _example_system(example: str | None) -> str:
    """The default system of an example (or of a FILE when None)."""
    return {"football": "elo@world_football", "f1": "trueskill",
            "f1_teams": "trueskill"}.get(example or "", "elo")


def _rates_matches(example: str | None, names: list[str]) -> bool:
    """Whether the input is read as matches: an F1 example, or a system that rates
    matches (a two-player system then needs two-player games)."""
    from fastrate import systems

    return example in MATCH_EXAMPLES or any(systems.get(n).data == "matches" for n in names)


def chunk_options(fn):
    """``--chunk-rows`` and ``--sort`` of the commands that read large inputs."""
    fn = click.option("--sort", "sort_input", is_flag=True, help="In chunks: sort the input "
                      "(a table, not PGN) by time first (an external sort: sorted runs on "
                      "disk in the temporary folder, merged; memory about one chunk). "
                      "Reading the whole input always sorts.")(fn)
    return click.option(
        "--chunk-rows", type=click.IntRange(min=0), default=None, metavar="N",
        help="Read FILE N games at a time, the ratings carried from chunk to chunk (memory "
        "grows with the players, not the games; the same results); 0: read it whole. "
        "Default: in chunks of 4,000,000 for a folder, a glob pattern or a file of 256 MB "
        "or more, when every system rates games one by one.")(fn)


def _chunk_rows(file: str | None, example: str | None, chunk_rows: int | None, specs: list,
                needs_whole: str | None = None, matches_ok: bool = False) -> int | None:
    """Rows per chunk for a chunked run of FILE, or None to read it whole (see
    --chunk-rows)."""
    from pathlib import Path

    from fastrate.errors import ConfigError, InputError
    from fastrate.io.chunks import CHUNK_ROWS, STREAM_MIN_BYTES, is_many
    from fastrate.io.tables import without_compression

    if example is not None or file is None or chunk_rows == 0:
        return None
    many = is_many(file)
    blocked = next((f"{s.label} cannot rate in chunks (it needs the whole input)"
                    for s in specs if s.system.batch or s.system.data == "boards"
                    or (s.system.data == "matches" and not matches_ok)), None)
    blocked = blocked or (f"{needs_whole} needs the whole input" if needs_whole else None)
    if chunk_rows is None:
        if not many:
            p = Path(file)
            name = p.name.lower()
            if (not p.exists() or without_compression(name).endswith(".json")
                    or p.stat().st_size < STREAM_MIN_BYTES):
                return None
        if blocked is not None:
            if many:
                raise InputError(f"{file} is read chunk by chunk (a folder or pattern), but "
                                 f"{blocked}")
            return None
        return CHUNK_ROWS
    if blocked is not None:
        raise ConfigError(f"--chunk-rows: {blocked}; drop --chunk-rows")
    return chunk_rows


@click.command("rate")
@click.argument("file", required=False, type=click.Path())
@click.option("--example", type=click.Choice(EXAMPLE_CHOICES), help="Rate a bundled data set "
              "instead of FILE (football: 49,520 international matches, CC0; f1: 1,160 "
              "Formula 1 races, drivers; f1_teams: constructors as teams of their drivers; "
              "F1DB, CC BY 4.0).")
@click.option("-s", "--system", "system", default=None, metavar="SPEC",
              help="Rating system and options: elo, glicko, glicko2, elo@fide, "
              "'elo:k=20,advantage=65'; for matches (long format) trueskill, "
              "'weng-lin:model=thurstone_mosteller_full', elom, pairwise_elo, codeforces; "
              "bradley_terry: the batch fit of all games (default: elo; elo@world_football "
              "for --example football, trueskill for f1).")
@click.option("--initial", type=click.Path(exists=True, dir_okay=False), help="Starting "
              "ratings (player, rating[, rd, volatility, games_played, last_period]); a "
              "previous run's output continues it exactly.")
@click.option("--resets", type=click.Path(exists=True, dir_okay=False), help="Elo only: "
              "explicit rating resets (player, period or time, value).")
@click.option("--predictions", type=click.Path(dir_okay=False), help="Also write every game's "
              "pre-game expected score (input order) to this file.")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0),
              help="Rows of the readable table (0: none).")
@click.option("--min-games", default=0, show_default=True, type=click.IntRange(min=0),
              metavar="N", help="The readable table lists only players with at least N "
              "games (the written table keeps everyone).")
@click.option("--conservative", default=0.0, show_default=True,
              type=click.FloatRange(0, 1000), metavar="K", help="The readable table ranks by "
              "rating - K x RD (sigma for TrueSkill, Weng-Lin) where the system has one.")
@click.option("--by", metavar="COL", help="Rate the pools of FILE that COL names (leagues, "
              "game modes, regions) independently; the output gets a COL column.")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=None,
              help="--by: pools rated at once on local threads (default: one per CPU); "
              "with --dask, the Dask worker processes (default 2).")
@click.option("--dask", "use_dask", is_flag=True, help="--by: rate the pools on a Dask "
              "LocalCluster started here (needs dask and distributed).")
@click.option("--scheduler", metavar="tcp://HOST:PORT", default=None, help="--by: rate the "
              "pools on the Dask cluster of this scheduler.")
@chunk_options
@input_options
@output_options
def rate_command(file, example, system, initial, resets, predictions, top, min_games,
                 conservative, by, workers, use_dask, scheduler, chunk_rows, sort_input,
                 input_format, output, fmt, progress, **kw) -> None:
    """Rate the games (or matches) in FILE and print or write the ratings.

    Two-player games: one row per game. Team and free-for-all matches (trueskill,
    weng-lin, elom, pairwise_elo, codeforces): the long format, one row per player
    (match, team, player, rank or place or score, optional weight and time).

    \b
    Examples:
      fastrate rate --example football --top 10
      fastrate rate games.csv --system glicko2 --period 1w -o ratings.parquet
      fastrate rate atp.csv.gz --winner winner_id --loser loser_id -o ratings.csv
      fastrate rate new_games.csv --initial ratings.csv -o ratings2.csv
      fastrate rate --example f1 --system weng-lin --top 10
      fastrate rate results.csv --system trueskill --unranked last -o ratings.csv
      fastrate rate games/ --period month -o ratings.parquet     (a folder of monthly files)
      fastrate rate games.csv --by league -s glicko2 --period 1w -o ratings.csv
    """
    columns = column_kwargs(kw)
    from fastrate.systems import SystemSpec

    spec = system or _example_system(example)
    parsed = SystemSpec.parse(spec)
    as_matches = _rates_matches(example, [parsed.name])
    dask = scheduler if scheduler is not None else ("local" if use_dask else None)
    if by is not None:
        if use_dask and scheduler is not None:
            from fastrate.errors import ConfigError

            raise ConfigError("give either --dask (a local cluster) or --scheduler, not both")
        _rate_pools(file, example, by, parsed, workers, dask, initial, resets, predictions,
                    chunk_rows, top, input_format, output, fmt, progress,
                    split_columns(columns, as_matches), as_matches)
        return
    if dask is not None:
        from fastrate.errors import ConfigError

        raise ConfigError("--dask and --scheduler rate independent pools: give --by COL")
    chunks = _chunk_rows(file, example, chunk_rows, [parsed],
                         "--resets" if resets is not None else None, matches_ok=True)
    if chunks is not None:
        _rate_in_chunks(file, parsed, chunks, initial, predictions, top, input_format,
                        output, fmt, progress, chunk_columns(columns, as_matches), sort_input,
                        (min_games, conservative))
        return
    bar = Progress(["reading", "rating", "writing"], progress)
    try:

        name = parsed.name
        if not as_matches:
            parsed.system.require_data("games", f"use 'fastrate {name.split('_')[0]} rate'")
        games = load_games(file, example, input_format, columns, matches=as_matches)
        if as_matches and parsed.system.data == "games":
            from fastrate.evaluate import two_player_games

            games = two_player_games(parsed, games)  # (two-player matches, as games)
        games = _default_period(games, [name], evaluating=False)
        _note_unweighted(getattr(games, "weight", 1) is None, [parsed])
        bar.step()
        kwargs: dict[str, Any] = {}
        if initial is not None:
            kwargs["initial"] = read_state_file(initial, "initial")
        if resets is not None:
            if name != "elo":
                from fastrate.errors import InputError

                raise InputError("--resets works with the elo system only")
            kwargs["resets"] = read_state_file(resets, "resets", columns.get("period"))
        if predictions is not None and parsed.system.accepts("record_pregame"):
            kwargs["record_pregame"] = True  # the pre-game ratings go in the predictions
        # without --predictions: final ratings only, the fastest path
        ratings = parsed.rate(games, predictions=predictions is not None, **kwargs)
        bar.step()
        table = ratings.to_arrow(sort=True)
        if predictions is not None:

            from fastrate.io.tables import write_table

            if ratings.pair_predictions is not None:
                write_table(_team_predictions(games, ratings), predictions)
            else:
                pre = None
                if (ratings.pre_white is None and parsed.system.period_based
                        and games.period is not None):
                    from fastrate.report.history import pregame_ratings

                    pre = pregame_ratings(games, parsed, kwargs.get("initial"))
                write_table(_game_predictions(games, ratings, pre=pre), predictions)
        if output is not None or fmt is not None:
            emit(table, output, fmt)
        bar.step()
    finally:
        bar.close()
    what = (f"{games.n_matches:,} matches" if hasattr(games, "n_matches")
            else f"{games.n_games:,} games")
    _print_ratings(ratings, spec, what, f"--example {example}" if example else file, top,
                   output, fmt, (min_games, conservative))


def _rate_pools(file, example, by, spec, workers, dask, initial, resets, predictions,
                chunk_rows, top, input_format, output, fmt, progress, columns,
                as_matches) -> None:
    """``fastrate rate --by COL``: every pool rated on its own
    (:func:`fastrate.pools.rate_pools`), one table with the pool first."""
    from fastrate.errors import ConfigError, InputError
    from fastrate.io.pools import read_pools
    from fastrate.pools import pools_table, rate_pools

    refused = [opt for opt, given in (("--example", example is not None),
                                      ("--resets", resets is not None),
                                      ("--predictions", predictions is not None),
                                      ("--chunk-rows", bool(chunk_rows))) if given]
    if refused:
        raise ConfigError(f"--by: {', '.join(refused)} cannot be combined with pools")
    if file is None:
        raise InputError("--by needs a FILE")
    if as_matches and spec.system.data == "games":
        raise ConfigError(f"--by: {spec.name} rates two-player games; give a two-player file")
    bar = Progress(["reading", "rating", "writing"], progress)
    try:
        pools = read_pools(file, by, format=input_format, matches=as_matches, **columns)
        pools = {k: _default_period(p, [spec.name], evaluating=False, note=i == 0)
                 for i, (k, p) in enumerate(pools.items())}
        bar.step()
        rated = rate_pools(pools, spec, initial=read_state_file(initial, "initial"),
                           workers=workers, dask=dask)
        bar.step()
        table = pools_table(rated, by=by)
        if output is not None or fmt is not None:
            emit(table, output, fmt)
        bar.step()
    finally:
        bar.close()
    if output is not None or fmt is None:
        lines = [f"{spec.label}: {len(rated):,} pools by {by!r} ({file})"]
        for label, ratings in rated.items():
            order = ratings.ranking()
            cols = {k: v[order] for k, v in ratings.columns().items() if k != "last_period"}
            n = len(ratings)
            lines.append(format_table(cols, top, f"\n{by} {label}: {n:,} players; top "
                                                 f"{min(top, n)}") if top else
                         f"{by} {label}: {n:,} players")
        click.echo("\n".join(lines), err=output is None and fmt is not None)
        if output is not None:
            click.echo(f"wrote {table.num_rows:,} ratings of {len(rated):,} pools to {output}",
                       err=True)


def _print_ratings(ratings, spec: str, what: str, src: str, top: int, output, fmt,
                   board: tuple[int, float] = (0, 0.0)) -> None:
    """The readable top of the table (to stdout, or stderr when the table itself goes to
    stdout) and the note of what was written. ``board``: the leaderboard's minimum games
    and conservative factor (:meth:`fastrate.Ratings.leaderboard`)."""
    if output is not None or fmt is None:
        cols = {k: v for k, v in ratings.columns().items() if k != "last_period"}
        order = ratings.leaderboard(*board)
        cols = {k: v[order] for k, v in cols.items()}
        rule = "".join([f", at least {board[0]} games" if board[0] else "",
                        f", by rating - {board[1]:g} x uncertainty" if board[1] else ""])
        title = (f"{spec}: {what}, {len(ratings):,} players ({src}); "
                 f"top {min(top, len(order))}{rule}")
        if top > 0:
            click.echo(format_table(cols, top, title), err=output is None and fmt is not None)
        if output is not None:
            click.echo(f"wrote {len(ratings):,} ratings to {output}", err=True)


def _rate_in_chunks(file, spec, chunk_rows, initial, predictions, top, input_format, output,
                    fmt, progress, columns, sort_input, board=(0, 0.0)) -> None:
    """``fastrate rate`` chunk by chunk (:func:`fastrate.streaming.rate_chunks`): the
    predictions written as they come, progress by chunk."""
    import contextlib

    from fastrate.io.tables import table_writer
    from fastrate.streaming import rate_chunks

    bar = GameProgress(progress)
    rows = [0]
    dropped: list = []
    seen: dict = {}  # (what the chunks were: see _note_chunks)
    try:
        with contextlib.ExitStack() as stack:
            on_predictions = None
            if predictions is not None:
                write = stack.enter_context(table_writer(predictions))

                def on_predictions(part, ratings) -> None:
                    if ratings.pair_predictions is not None:
                        write(_team_predictions(part, ratings))
                        return
                    write(_game_predictions(part, ratings, rows[0] + 1))
                    rows[0] += ratings.predictions.shape[0]

            ratings = rate_chunks(
                file, spec, chunk_rows=chunk_rows, format=input_format,
                initial=read_state_file(initial, "initial"),
                on_predictions=on_predictions, progress=bar, sort=sort_input,
                dropped=dropped, default_period=DEFAULT_PERIOD, seen=seen, **columns)
        if output is not None or fmt is not None:
            emit(ratings.to_arrow(sort=True), output, fmt)
    finally:
        bar.close()
    _note_chunks(dropped, seen, [spec])
    unit = "matches" if spec.system.data == "matches" else "games"
    _print_ratings(ratings, spec.label, f"{bar.done:,} {unit} in chunks of {chunk_rows:,}",
                   file, top, output, fmt, board)


def _game_predictions(games, ratings, first_row: int = 1, pre=None):
    """One row per game, in input order: its ``row`` (from ``first_row``), ``time`` and
    ``period`` when the games have them, both players, their ratings before the game
    (``white_rating``, ``black_rating``: systems that record them, Elo), the first
    player's walk-forward ``expected_score`` and his actual ``score``."""
    import numpy as np
    import pyarrow as pa

    from fastrate._validate import numpy_to_arrow

    back = games.to_input_order
    cols: dict[str, Any] = {"row": pa.array(np.arange(first_row, first_row + games.n_games))}
    if games.time is not None:
        cols["time"] = numpy_to_arrow(back(games.time))
    if games.period is not None:
        period = (games.period_labels[games.period] if games.period_labels is not None
                  else games.period)
        cols["period"] = numpy_to_arrow(back(period))
    names = games.players.names
    cols["white"] = numpy_to_arrow(names[back(games.white)])
    cols["black"] = numpy_to_arrow(names[back(games.black)])
    if pre is None and ratings.pre_white is not None and ratings.pre_black is not None:
        pre = (ratings.pre_white, ratings.pre_black)
    if pre is not None:
        cols["white_rating"] = pa.array(pre[0])
        cols["black_rating"] = pa.array(pre[1])
    cols["expected_score"] = pa.array(ratings.predictions)
    cols["score"] = pa.array(back(games.score))
    return pa.table(cols)


def _team_predictions(matches, ratings):
    """One row per team: its match, the team (or the player of a free-for-all side), its
    rank and its walk-forward probability of winning the match."""
    import numpy as np
    import pyarrow as pa

    from fastrate._validate import numpy_to_arrow

    tm = matches.team_match()
    mlab = (np.arange(matches.n_matches) if matches.match_labels is None
            else matches.match_labels)
    if matches.team_labels is not None:
        team = matches.team_labels
    else:
        team = matches.players.names[matches.player[matches.team_player_offsets[:-1]]]
    return pa.table({"match": numpy_to_arrow(mlab[tm]), "team": numpy_to_arrow(team),
                     "rank": pa.array(matches.rank),
                     "win_probability": pa.array(ratings.predictions)})


@click.command("evaluate")
@click.argument("file", required=False, type=click.Path())
@click.option("--example", type=click.Choice(EXAMPLE_CHOICES), help="Evaluate on a bundled "
              "data set instead of FILE.")
@click.option("-s", "--system", "systems", multiple=True, metavar="SPEC",
              help="A system to compare (repeatable): elo, glicko, glicko2, elo@fide, "
              "'glicko2:tau=0.3', batch models refitted per period such as "
              "'bradley_terry:model=bayeselo,advantage=fit,prior=2' (need --period) ... "
              "(default: elo, glicko, glicko2).")
@click.option("--burn-in", default=0, show_default=True, metavar="N", type=click.IntRange(min=0),
              help="Leave the games of the first N rating periods out of the scores.")
@click.option("--draws", type=click.Choice(["exclude", "half"]), default="exclude",
              show_default=True, help="Accuracy: leave draws out, or count a draw as half.")
@click.option("--calibration", is_flag=True, help="Each system's calibration table (ten "
              "bins of the prediction): printed, and with -o/--format written instead of "
              "the summary (one row per system and bin).")
@click.option("--initial", type=click.Path(exists=True, dir_okay=False), help="Starting "
              "ratings for every system (player, rating[, rd, ...]), as in 'fastrate rate'.")
@click.option("--resets", type=click.Path(exists=True, dir_okay=False), help="Explicit "
              "rating resets (player, period or time, value) for the systems that take them "
              "(elo).")
@window_options
@chunk_options
@input_options
@output_options
def evaluate_command(file, example, systems, burn_in, draws, calibration, initial, resets,
                     fit_until, score_from, score_until, chunk_rows, sort_input, input_format,
                     output, fmt, progress, **kw) -> None:
    """Compare rating systems on FILE by walk-forward prediction.

    Every system predicts each game from the ratings before it; the table gives log loss,
    binomial deviance, Brier score, RMSE and accuracy over the scored games. For team
    and free-for-all matches (long format, or a system that rates matches) it gives the
    winner's log loss and the favourite's accuracy, log loss and accuracy over every pair
    of teams, and the rank correlation of predicted and actual order.

    \b
    Examples:
      fastrate evaluate --example football --system elo --system elo@world_football
      fastrate evaluate games.csv --period 1w --system elo --system "glicko2:tau=0.3" --burn-in 4
      fastrate evaluate --example f1 --period season --burn-in 50 -s trueskill -s weng-lin
      fastrate evaluate --example football --period year -s elo -s "bradley_terry:prior=2"
      fastrate evaluate nfl_games.csv --first-points score1 --second-points score2
          --neutral neutral --period season -s elo@fivethirtyeight_nfl
          --initial initial_elos.csv --resets season_resets.csv --burn-in 10
    """
    from fastrate.evaluate import evaluate

    columns = column_kwargs(kw)
    default = (["trueskill", "weng_lin", "pairwise_elo"] if example in MATCH_EXAMPLES
               else ["elo", "glicko", "glicko2"])
    specs = list(systems) or default
    from fastrate.systems import SystemSpec

    parsed = [SystemSpec.parse(s) for s in specs]
    names = [p.name for p in parsed]
    as_matches = _rates_matches(example, names)
    chunks = _chunk_rows(file, example, chunk_rows, parsed,
                         "--resets" if resets is not None
                         else "--fit-until/--score-from/--score-until" if (
                             fit_until or score_from or score_until) else None,
                         matches_ok=True)
    start = read_state_file(initial, "initial")
    if chunks is not None:
        from fastrate.streaming import evaluate_chunks

        bar = GameProgress(progress, "evaluating")
        dropped: list = []
        seen: dict = {}
        try:
            result = evaluate_chunks(file, parsed, burn_in=burn_in, draws=draws,
                                     initial=start,
                                     chunk_rows=chunks, format=input_format, progress=bar,
                                     sort=sort_input, dropped=dropped,
                                     default_period=DEFAULT_PERIOD, seen=seen,
                                     **chunk_columns(columns, as_matches))
        finally:
            bar.close()
        _note_chunks(dropped, seen, parsed)
    else:
        stages = Progress(["reading", *[f"rating: {s}" for s in specs]], progress)
        try:
            games = load_games(file, example, input_format, columns, matches=as_matches)
            if not systems and games.period is None and games.time is None:
                # the default comparison without times: the systems that can take part
                keep = [i for i, p in enumerate(parsed) if not p.system.period_based]
                click.echo("fastrate: note: these games have neither periods nor times, so "
                           "the period-based default systems are left out ("
                           + ", ".join(specs[i] for i in range(len(specs)) if i not in keep)
                           + "); give --period to include them", err=True)
                specs, names = [specs[i] for i in keep], [names[i] for i in keep]
            games = _default_period(games, names, evaluating=True)
            _note_unweighted(getattr(games, "weight", 1) is None, specs)
            stages.step()
            result = evaluate(games, specs, burn_in=burn_in, draws=draws, initial=start,
                              resets=read_state_file(resets, "resets", columns.get("period")),
                              fit_until=fit_until, score_from=score_from,
                              score_until=score_until, on_system=lambda *_: stages.step())
        finally:
            stages.close()
    if output is not None or fmt is not None:
        emit(result.calibration_table() if calibration else result.to_arrow(), output, fmt)
    if output is not None or fmt is None:
        to_stderr = output is None and fmt is not None
        click.echo(str(result), err=to_stderr)
        if calibration:
            for name, table in result.calibration.items():
                click.echo(f"\ncalibration of {name}:", err=to_stderr)
                click.echo(format_table(table, len(next(iter(table.values()))), ""),
                           err=to_stderr)
    if calibration and output is not None:
        click.echo(f"wrote the calibration tables to {output}", err=True)


@click.command("warmup")
@click.option("-v", "--verbose", is_flag=True,
              help="Also list every kernel specialisation of each group.")
@click.option("-j", "--workers", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: the CPU count, at most 4; 1 = this process).")
def warmup_command(verbose: bool, workers: int | None) -> None:
    """Compile every kernel into Numba's on-disk cache (run once after installing).

    One line per kernel group on stderr as it finishes (its kernel specialisations,
    compiled or loaded from the cache, and its time), then a summary with the cache
    folder. NUMBA_CACHE_DIR chooses the folder.

    \b
    Examples:
      fastrate warmup
      fastrate warmup -v --workers 1
    """
    from fastrate._warmup import groups, run_warmup

    total = len(groups())
    count = 0

    def progress(result: Any) -> None:
        nonlocal count
        count += 1
        click.echo(f"[{count}/{total}] {result.line()}", err=True)
        if verbose:
            for key, compiled in sorted(result.kernels.items()):
                click.echo(f"    {'compiled' if compiled else 'loaded  '} {key}", err=True)

    click.echo(f"compiling {total} kernel groups ...", err=True)
    click.echo(run_warmup(workers=workers, progress=progress).summary())


@click.command("systems")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default=None,
              help="Machine-readable output instead of the readable list.")
def systems_command(fmt: str | None) -> None:
    """List the registered rating systems: name, data, presets and state columns.

    \b
    Examples:
      fastrate systems
      fastrate systems --format json
    """
    from fastrate import systems

    rows = []
    for name in systems.names():
        entry = systems.get(name)
        rows.append({"system": name, "data": entry.data,
                     "presets": " ".join(systems.presets(name)),
                     "state": " ".join(entry.state_names()),
                     "period_based": entry.period_based, "batch": entry.batch,
                     "summary": entry.summary})
    if fmt is not None:
        emit({k: [r[k] for r in rows] for k in rows[0]}, None, fmt)
        return
    for r in rows:
        presets = f"; presets: {r['presets']}" if r["presets"] else ""
        click.echo(f"{r['system']:<12} {r['summary']}")
        batch = "; batch fit, refitted per period to predict" if r["batch"] else ""
        click.echo(f"{'':<12} rates {r['data']}{batch}{presets}; state: {r['state']}")
