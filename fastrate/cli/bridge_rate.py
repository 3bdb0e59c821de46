"""``fastrate bridge rate``: Elo ratings of bridge players from table results (bridge
thesis chapter 4; :mod:`fastrate.bridge.bridge_elo`). I/O and errors only."""

from __future__ import annotations

import sys

import click

from fastrate.cli._common import (
    FORMATS,
    emit,
    format_table,
    input_format_option,
    table_output_options,
)


def read_quietly(read, *args, **kwargs):
    """``read(*args, **kwargs)`` and the warnings it gave (e.g. a PBN file's printed
    scores that contradict their contracts), as one-line texts for stderr."""
    import warnings

    from fastrate.io.pbn import PbnScoreWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PbnScoreWarning)
        out = read(*args, **kwargs)
    return out, [" ".join(str(w.message).split()) for w in caught]


def echo_warnings(texts: list[str]) -> None:
    for text in texts:
        click.echo(f"fastrate: warning: {text}", err=True)


def _table_option(text: str | None, name: str) -> tuple[tuple[float, float], ...]:
    """``100:32/inf:16`` -> ((100.0, 32.0), (inf, 16.0))."""
    if not text:
        return ()
    rows = []
    for part in text.split("/"):
        bound, sep, value = part.partition(":")
        try:
            if not sep:
                raise ValueError
            rows.append((float(bound), float(value)))
        except ValueError:
            raise click.BadParameter(f"{text!r}: write rows as bound:value separated by '/', "
                                     "e.g. 100:32/inf:16", param_hint=name) from None
    return tuple(rows)


def _default_period(path: str, input_format: str | None) -> str | None:
    """3-day periods when the file has a time column (read from its header/schema)."""
    from pathlib import Path

    from fastrate.data.boards import BOARD_COLUMNS
    from fastrate.errors import InputError
    from fastrate.io.tables import column_names, format_of

    p = Path(path)
    try:
        fmt = format_of(p, input_format)
    except InputError:  # PBN or an unknown name: read_boards decides
        return "auto"
    if fmt not in ("csv", "parquet") or not p.exists():
        return "auto"
    names = column_names(p, fmt)
    if names is None:
        return "auto"
    lower = {c.lower() for c in names}
    return "3d" if lower & set(BOARD_COLUMNS["time"]) else None


def _read(path: str, period: str | None, input_format: str | None):
    """Boards from FILE; ``period="auto"``: 3d, or none when the file has no time."""
    from fastrate.errors import InputError
    from fastrate.io.boards import read_boards

    if period != "auto":
        boards, said = read_quietly(read_boards, path, format=input_format, period=period)
    else:
        try:
            boards, said = read_quietly(read_boards, path, format=input_format, period="3d")
            period = "3d"
        except InputError as exc:  # no time column, or a PBN game without a date
            if "period '3d' is a length" not in str(exc):
                raise
            boards, said = read_quietly(read_boards, path, format=input_format, period=None)
            period = None
    echo_warnings(said)
    return boards, period


def _check_outputs(paths: dict[str, str | None], fmt: str | None) -> dict[str, tuple]:
    """Check the output files before any work: known formats, existing folders, no
    folder named as a file, no file named twice. Returns option -> (path, format)."""
    import os
    from pathlib import Path

    from fastrate.errors import InputError
    from fastrate.io.tables import format_of

    out: dict[str, tuple] = {}
    seen: dict[str, str] = {}
    for option, path in paths.items():
        if path is None:
            continue
        target = Path(path)
        key = os.path.realpath(target)
        if key in seen:
            raise click.UsageError(f"{seen[key]} and {option} both name {path}; give each "
                                   "output its own file")
        seen[key] = option
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():
            raise InputError(f"cannot write {path} ({option}): folder {folder} does not exist")
        if target.is_dir():
            raise InputError(f"cannot write {path} ({option}): it is a folder")
        out[option] = (path, format_of(path, fmt if option == "-o/--output" else None,
                                      output=True))
    return out


def _write_all(files: list[tuple]) -> None:
    """Write every output file or none (:func:`fastrate._files.atomic_files`)."""
    from fastrate._files import atomic_files
    from fastrate.io.tables import write_table

    with atomic_files([path for _, (path, _) in files]) as paths:
        for (table, (_, fmt)), tmp in zip(files, paths):
            write_table(table, tmp, fmt)


@click.command("rate")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--period", default=None, metavar="SPEC|COL|none",
              help="Rating periods: a length (3d, 1w, 12h) with the time column, a column of "
              "period labels, or none (update after each board). Default: 3d when FILE has a "
              "time column, else none.")
@click.option("--field-adjustment", "field_flag", is_flag=True,
              help="Model: the pair against its opponents, adjusted for the field (thesis "
              "eq. 4.7; the default).")
@click.option("--plain", "plain_flag", is_flag=True,
              help="Model: the pair against its opponents only.")
@click.option("--artificial-matches", "artificial_flag", is_flag=True,
              help="Model: every two tables play a team match (O(T^2) per board).")
@click.option("--k", "k", type=float, default=16.0, show_default=True, help="K factor.")
@click.option("--k-games", metavar="TABLE", help="K by boards played, rows bound:K, e.g. "
              "100:32/inf:16 (K 32 for the first 100 boards).")
@click.option("--k-experience", metavar="TABLE", help="K multiplier by the partnership's "
              "boards together, e.g. 50:1.5/inf:1.")
@click.option("--cap", type=float, default=400.0, show_default=True,
              help="Rule of 400: clip the rating lead used in the expected score.")
@click.option("--no-cap", is_flag=True, help="No rule of 400.")
@click.option("--draw-margin", type=float, default=1.0, show_default=True,
              help="IMPs within which a result is a draw.")
@click.option("--margin", type=click.Choice(["none", "linear", "log"]), default="none",
              show_default=True, help="K multiplier of the result's IMPs x: linear "
              "1 + |x|/c, log 1 + ln(1 + |x|/c).")
@click.option("--margin-scale", type=float, default=10.0, show_default=True,
              help="c of --margin (IMPs).")
@click.option("--experience-bonus", type=float, default=0.0, show_default=True,
              metavar="B", help="Add B (1 - exp(-n/n0)) to a pair's rating, n = boards the "
              "two played together before.")
@click.option("--experience-n0", type=float, default=100.0, show_default=True,
              metavar="N0", help="n0 of --experience-bonus (boards).")
@click.option("--burn-in", default=0, show_default=True, metavar="N",
              type=click.IntRange(min=0),
              help="Leave the first N rating periods out of the evaluation (with "
              "--evaluate).")
@click.option("--initial", type=click.Path(exists=True, dir_okay=False),
              help="Starting ratings (player, rating[, games_played]); a previous output.")
@click.option("--initial-partnerships", type=click.Path(exists=True, dir_okay=False),
              help="Boards each partnership played before (player_1, player_2, boards): a "
              "previous --partnerships-out, so that --experience-bonus/--k-experience "
              "continue exactly.")
@click.option("--partnerships-out", type=click.Path(dir_okay=False), help="Write the boards "
              "each partnership has played together (with --experience-bonus or "
              "--k-experience) to this file, for a later --initial-partnerships.")
@click.option("--evaluate", "do_evaluate", is_flag=True, help="Print the walk-forward "
              "metrics (accuracy, RMSE, binomial deviance, log loss) next to the null model.")
@click.option("--predictions", type=click.Path(dir_okay=False), help="Also write every "
              "result's period, NS expected score and outcome (input order) to this file.")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0),
              help="Rows of the readable table.")
@input_format_option(formats=(*FORMATS, "pbn"))
@table_output_options("the ratings table")
def rate_command(file, period, field_flag, plain_flag, artificial_flag, k, k_games,
                 k_experience, cap, no_cap, draw_margin, margin, margin_scale,
                 experience_bonus, experience_n0, burn_in, initial, initial_partnerships,
                 partnerships_out, do_evaluate, predictions, top, input_format, output,
                 fmt) -> None:
    """Rate bridge players from the table results in FILE (bridge Elo).

    FILE (CSV, Parquet, JSON or PBN) has one row per table result: board (and event),
    north, south, east, west and ns_score (NS points; or contract and declarer), and
    optionally time and artificial. Each pair's result is its cross-IMPs on the board: a
    win above 1 IMP, a loss below -1, else a draw; both players of a pair get the pair's
    change. The ratings table (player, rating, games_played = boards rated,
    last_period) goes to -o; the top players are printed; notes on skipped rows,
    single-result boards and components go to stderr.

    \b
    Examples:
      fastrate bridge rate results.parquet --period 3d -o ratings.csv
      fastrate bridge rate results.csv --plain --k 24 --evaluate --burn-in 5
      fastrate bridge rate results.csv --experience-bonus 30 --experience-n0 100 --evaluate
      fastrate bridge rate results.csv --artificial-matches --top 50
      fastrate bridge rate new.csv --experience-bonus 30 --initial ratings.csv \
          --initial-partnerships pairs.csv --partnerships-out pairs2.csv -o ratings2.csv
    """
    chosen = [name for name, on in (("field", field_flag), ("plain", plain_flag),
                                    ("artificial", artificial_flag)) if on]
    if len(chosen) > 1:
        raise click.UsageError("choose one model: --field-adjustment, --plain or "
                               "--artificial-matches")
    model = chosen[0] if chosen else "field"
    if burn_in and not do_evaluate:
        raise click.UsageError("--burn-in applies only with --evaluate (it leaves periods "
                               "out of the evaluation, not out of the ratings)")
    targets = _check_outputs({"-o/--output": output, "--predictions": predictions,
                              "--partnerships-out": partnerships_out}, fmt)
    import numpy as np
    import pyarrow as pa

    from fastrate.bridge import bridge_elo as be

    config = be.BridgeEloConfig(
        k=k, cap=None if no_cap else cap, draw_margin=draw_margin, model=model,
        k_games=_table_option(k_games, "--k-games"),
        k_experience=_table_option(k_experience, "--k-experience"), margin=margin,
        margin_scale=margin_scale, experience_bonus=experience_bonus,
        experience_n0=experience_n0, burn_in=burn_in)
    if (initial_partnerships or partnerships_out) and not config.uses_partnerships:
        raise click.UsageError("--initial-partnerships and --partnerships-out go with "
                               "--experience-bonus or --k-experience (the options that use "
                               "partnership experience)")
    if period is None:
        period = _default_period(file, input_format)
    elif period.strip().lower() == "none":
        period = None
    boards, period = _read(file, period, input_format)

    def note(text: str) -> None:
        click.echo(f"fastrate: note: {text}", err=True)

    for reason, count, first in boards.dropped:
        note(f"skipped {count:,} row{'s' if count != 1 else ''}: {reason} (first at {first})")
    scores = boards.score("cross-imps")
    if scores.n_no_comparison:
        click.echo(f"fastrate: warning: {scores.n_no_comparison:,} board(s) with a single "
                   "result have no comparison and are not rated", err=True)
    from fastrate.io.tables import read_ratings

    init = read_ratings(initial) if initial is not None else None
    pairs = read_ratings(initial_partnerships) if initial_partnerships is not None else None
    ratings = be.rate(boards, config, initial=init, scores=scores, partnerships=pairs)
    who = "pairs" if boards.players is None else "players"
    note(f"{len(ratings):,} {who} in {ratings.n_components:,} board component(s)"
         + (" (ratings in different components are on unrelated scales)"
            if ratings.n_components > 1 else ""))
    if ratings.n_nonidentifiable:
        note(f"{ratings.n_nonidentifiable:,} of {ratings.n_partnership_components:,} "
             "partnership component(s) are not identifiable: their players only ever "
             "partnered across a bipartite graph (e.g. a fixed partnership), so only pair "
             "ratings are determined, not how they split between the partners")
    if period is None and boards.board_period is None:
        note("no rating periods: ratings update after each board (give --period 3d and a "
             "time column for the thesis's 3-day periods)")
    table = ratings.to_arrow(sort=True)
    # everything that can fail comes before the first output: the evaluation, then the
    # files (all or none), then stdout
    ev = (be.evaluate_ratings(boards, {config.label(): ratings}, burn_in=burn_in)
          if do_evaluate else None)
    files = []
    if predictions is not None:
        def nullable(x):
            return pa.array(x, mask=np.isnan(x))

        files.append((pa.table({"row": pa.array(np.arange(1, len(ratings.predictions) + 1)),
                                "period": pa.array(ratings.period),
                                "expected_score": nullable(ratings.predictions),
                                "outcome": nullable(ratings.outcome)}),
                      targets["--predictions"]))
    if partnerships_out is not None:
        files.append((ratings.partnerships_table(), targets["--partnerships-out"]))
    if output is not None:
        files.append((table, targets["-o/--output"]))
    _write_all(files)
    if output is None and fmt is not None:
        emit(table, None, fmt)
    to_err = output is None and fmt is not None
    if top > 0 and (output is not None or fmt is None):
        cols = {c: v for c, v in ratings.columns().items() if c != "last_period"}
        order = ratings.ranking()
        cols = {c: v[order] for c, v in cols.items()}
        title = (f"bridge elo ({config.label()}): {ratings.n_rated:,} of "
                 f"{boards.n_results:,} results rated, {len(ratings):,} {who} ({file}); "
                 f"top {min(top, len(ratings))}")
        click.echo(format_table(cols, top, title), err=to_err)
    if ev is not None:
        click.echo(("\n" if top > 0 else "") + str(ev), err=to_err)
    if output is not None:
        click.echo(f"wrote {len(ratings):,} ratings to {output}", err=True)
    sys.stdout.flush()
