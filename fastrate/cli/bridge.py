"""``fastrate bridge``: contract scores and board comparisons (cross-IMPs, Butler,
matchpoints). I/O and errors only; the computing happens in :mod:`fastrate.bridge`."""

from __future__ import annotations

import click

from fastrate.cli._common import FORMATS, emit, input_format_option, table_output_options
from fastrate.cli.bridge_rate import echo_warnings, read_quietly

METHODS = ("cross-imps", "butler", "matchpoints")


@click.group("bridge", context_settings={"help_option_names": ["-h", "--help"]})
def bridge_group() -> None:
    """Duplicate bridge: contract scores (Law 77), board scoring (cross-IMPs, Butler,
    matchpoints) of CSV/Parquet/PBN travellers, and partnership-aware ratings.

    \b
    Examples:
      fastrate bridge contract 4HX= --vulnerable
      fastrate bridge score travellers.pbn --method matchpoints
      fastrate bridge rate results.parquet --period 3d --evaluate
    """


@bridge_group.command("contract")
@click.argument("contract")
@click.option("--vulnerable/--not-vulnerable", "vulnerable", default=None,
              help="Declarer's side is vulnerable (default: not, or from --board).")
@click.option("--board", type=click.IntRange(min=1, max=2**62), default=None,
              help="Board number (>= 1): vulnerability from the 16-board cycle (needs "
              "--declarer).")
@click.option("--declarer", type=click.Choice(["N", "E", "S", "W"], case_sensitive=False),
              default=None, help="Declarer's seat, with --board.")
def contract_command(contract, vulnerable, board, declarer) -> None:
    """Print the declarer side's score of CONTRACT (Law 77).

    CONTRACT is level, strain (C D H S N/NT), optional X or XX, and the result: =, +k,
    -k or the tricks taken; or "pass".

    \b
    Examples:
      fastrate bridge contract 4HX= --vulnerable      # 790
      fastrate bridge contract 3NT+1                  # 430
      fastrate bridge contract 6S12 --board 2 --declarer N
    """
    from fastrate.bridge import contract as c
    from fastrate.errors import InputError

    if declarer is not None and board is None:
        raise InputError("--declarer goes with --board (the declarer's vulnerability on "
                         "that board); without --board give --vulnerable or "
                         "--not-vulnerable")
    if board is not None:
        if declarer is None:
            raise InputError("--board needs --declarer (N, E, S or W) to tell the "
                             "declarer's vulnerability")
        from_board = c.is_vulnerable(board, declarer.upper())
        if vulnerable is not None and vulnerable != from_board:
            raise InputError(f"--{'' if vulnerable else 'not-'}vulnerable contradicts board "
                             f"{board} ({c.vulnerability(board)} vulnerable) for declarer "
                             f"{declarer.upper()}")
        vulnerable = from_board
    click.echo(c.score_contract(contract, bool(vulnerable)))


def _read_travellers(file, input_format, ignore_names=False):
    """Boards from a PBN file, or from a CSV/Parquet/JSON table of travellers; warnings
    (printed scores that contradict their contracts) go to stderr, one line each."""
    from pathlib import Path

    from fastrate.io.boards import read_boards
    from fastrate.io.pbn import read_pbn_boards

    if ignore_names:
        if (input_format or Path(file).suffix.lower().lstrip(".")) != "pbn":
            raise click.UsageError("--ignore-names applies to PBN files (.pbn or "
                                   "--input-format pbn); a table's columns name who played")
        boards, said = read_quietly(read_pbn_boards, file, ignore_names=True)
    else:
        boards, said = read_quietly(read_boards, file, format=input_format)
    echo_warnings(said)
    return boards


def _report(boards, result, file) -> None:
    """Rows skipped, boards without a comparison and odd scores, on stderr."""
    for reason, count, first in boards.dropped:
        click.echo(f"fastrate: skipped {count:,} row(s) of {file}: {reason} (first at "
                   f"{first})", err=True)
    if result.n_no_comparison:
        click.echo(f"fastrate: warning: {result.n_no_comparison} board(s) with a single result "
                   "have no comparison and no score", err=True)
    if boards.n_odd_scores:
        click.echo(f"fastrate: note: {boards.n_odd_scores:,} score(s) are not multiples of 10 "
                   "(averaged or adjusted); they are compared with the same IMP thresholds",
                   err=True)


def _drop_short(r, drop):
    """Butler with a number to drop: the boards (with a comparison) that drop fewer than
    asked; an error when that is every board, since then the option changes nothing
    where it was meant to."""
    import numpy as np

    from fastrate.bridge import scoring
    from fastrate.errors import InputError

    if not isinstance(drop, int) or drop == 0:
        return None
    n = np.asarray(r.n_real, dtype=np.int64)[~np.asarray(r.no_comparison, dtype=bool)]
    short = scoring.butler_drop_count(n, drop) < drop
    if n.shape[0] and short.all():
        most = int(n.max())
        can = int(scoring.butler_drop_count(np.array([most]), drop)[0])
        fix = (f"give --drop {can} or less" if can else
               "nothing can be dropped here: give --drop none")
        raise InputError(f"--drop {drop} asks for more than any board allows: a board of n "
                         "real results drops at most (n - 1) // 2 from each end, and nothing "
                         f"when n <= 3; the largest board here has {most}, where --drop "
                         f"{drop} would drop {can}; {fix}")
    return short


@bridge_group.command("score")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--method", type=click.Choice(METHODS), default="cross-imps",
              show_default=True, help="How results on a board are compared.")
@click.option("--drop", default="none", show_default=True,
              metavar="none|one|sqrtish|tenth|quarter|N",
              help="Butler: results dropped from each end before the datum is averaged.")
@click.option("--datum", type=click.Choice(["mean", "median"]), default="mean",
              show_default=True, help="Butler: datum from the (trimmed) mean or the median.")
@click.option("--style", type=click.Choice(["2/1/0", "1/0.5/0"]), default="2/1/0",
              show_default=True, help="Matchpoints: 2 per score beaten (European) or 1 (ACBL).")
@click.option("--ignore-names", is_flag=True,
              help="PBN: do not read who played (no players, no pairs, no per-pair totals), "
              "for files whose names clash without a bad seating: twins listed by surname, "
              "a robot such as GIB in two seats.")
@input_format_option(formats=(*FORMATS, "pbn"))
@table_output_options("the per-table results", "csv on stdout")
@click.pass_context
def score_command(ctx, file, method, drop, datum, style, ignore_names, input_format, output,
                  fmt) -> None:
    """Score the travellers in FILE and print per-pair totals.

    FILE is a PBN file (.pbn: each board's ScoreTable, Multiplicity expanded, or one
    [Score] per game as in team matches) or a table (CSV, Parquet or JSON) with columns
    board (and optionally event), the pairs ns_pair and ew_pair or the players north,
    south, east and west, and ns_score (NS points; or contract and declarer instead,
    scored with the board's vulnerability), and optionally artificial (0 real, 1 A+,
    2 A, 3 A- for NS). The per-table results (ns, ew, plus ns_percent/ew_percent for
    matchpoints, datum for Butler), in input-row order, go to -o or stdout; the
    per-pair totals go to stderr when the table is on stdout, else stdout. Rows skipped
    (and why), boards with a single result (no score) and scores that are not
    multiples of 10 are reported on stderr.

    \b
    Examples:
      fastrate bridge score travellers.csv --method cross-imps -o imps.csv
      fastrate bridge score travellers.parquet --method butler --drop one
      fastrate bridge score travellers.csv --method matchpoints --style 1/0.5/0
      fastrate bridge score okbridge.pbn --method cross-imps -o imps.csv
    """
    import numpy as np
    from click.core import ParameterSource

    from fastrate.bridge import scoring

    given = {name for name in ("drop", "datum", "style")
             if ctx.get_parameter_source(name) is not ParameterSource.DEFAULT}
    needs = {"drop": "butler", "datum": "butler", "style": "matchpoints"}
    wrong = [f"--{name} applies only to --method {needs[name]}" for name in
             ("drop", "datum", "style") if name in given and needs[name] != method]
    if wrong:
        raise click.UsageError(f"{'; '.join(wrong)} (not {method})")
    drop_value: str | int = int(drop) if drop.isdigit() else drop
    if not isinstance(drop_value, int) and drop_value not in scoring.DROPS:
        raise click.BadParameter(f"{drop!r}: use none, one, sqrtish, tenth, quarter or a "
                                 "whole number >= 0 (results dropped from each end)",
                                 param_hint="--drop")
    boards = _read_travellers(file, input_format, ignore_names)
    r = boards.score(method, drop=drop_value, datum=datum, style=style)
    short = _drop_short(r, drop_value) if method == "butler" else None
    result, totals = scoring.results_table(boards, r)
    emit(result, output, fmt)
    if output is not None:
        click.echo(f"wrote {result.num_rows:,} results of {boards.n_boards:,} boards to "
                   f"{output}", err=True)
    _report(boards, r, file)
    if short is not None and short.any():
        click.echo(f"fastrate: note: --drop {drop_value}: {int(short.sum()):,} of "
                   f"{short.shape[0]:,} board(s) have too few results to drop that many from "
                   "each end; they drop (n - 1) // 2 of their n results from each end, none "
                   "with 3 or fewer", err=True)
    err = output is None
    if totals is None:
        click.echo(f"fastrate: note: {file} names no pairs or players: no per-pair totals",
                   err=True)
        return
    percent = r.ns_percent is not None
    order = np.argsort(-np.nan_to_num(totals["mean"] if percent else totals["total"],
                                      nan=-np.inf), kind="stable")
    head = "percent" if percent else "imps"
    width = max([4] + [len(p) for p in totals["pair"].tolist()])
    click.echo(f"{'pair':<{width}}  boards  {'total ' + head:>12}  {'mean':>8}", err=err)
    for i in order.tolist():
        click.echo(f"{totals['pair'][i]:<{width}}  {totals['boards'][i]:>6}  "
                   f"{totals['total'][i]:>12.2f}  {totals['mean'][i]:>8.2f}", err=err)


from fastrate.cli.bridge_rate import rate_command  # noqa: E402

bridge_group.add_command(rate_command)
