"""``fastrate bridge``: contract scores and board comparisons (cross-IMPs, Butler,
matchpoints). I/O and errors only; the computing happens in :mod:`fastrate.bridge`."""

from __future__ import annotations

import sys

import click

FORMATS = ("csv", "parquet", "json")
METHODS = ("cross-imps", "butler", "matchpoints")


@click.group("bridge")
def bridge_group() -> None:
    """Duplicate bridge: contract scores (Law 77) and board scoring (IMPs, matchpoints)."""


@bridge_group.command("contract")
@click.argument("contract")
@click.option("--vulnerable/--not-vulnerable", "vulnerable", default=None,
              help="Declarer's side is vulnerable (default: not, or from --board).")
@click.option("--board", type=int, default=None, help="Board number: vulnerability from "
              "the 16-board cycle (needs --declarer).")
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


def _ns_scores(table, cols, file):
    """NS scores from an ns_score column, or from contract + declarer (+ board number)."""
    import numpy as np

    from fastrate.bridge import contract as c
    from fastrate.errors import InputError

    def col(name):
        return table.column(cols[name]).to_numpy(zero_copy_only=False)

    if "ns_score" in cols:
        return col("ns_score")
    if "contract" in cols and "declarer" in cols:
        seats = np.array([str(s).strip().upper() for s in col("declarer").tolist()],
                         dtype=object)
        contracts = col("contract")
        passed = np.array([c.parse_contract(str(t)).passed_out for t in contracts.tolist()])
        seats = np.where(passed, "N", seats)  # a passed-out board has no declarer
        vul = c.is_vulnerable(col("board"), seats)
        score = c.score_contracts(contracts, vul).astype(np.float64)
        return np.where(np.isin(seats, ["N", "S"]), score, -score)
    raise InputError(f"no column 'ns_score' in {file} (columns: {', '.join(table.column_names)});"
                     " give board, ns_pair, ew_pair and ns_score (or contract and declarer "
                     "instead of ns_score)")


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
@click.option("--input-format", type=click.Choice(FORMATS), help="Format of FILE "
              "(default: from its extension).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the per-table "
              "results to this file (written atomically).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), help="Output format (default: "
              "from the -o extension; csv on stdout).")
def score_command(file, method, drop, datum, style, input_format, output, fmt) -> None:
    """Score the travellers in FILE and print per-pair totals.

    FILE (CSV, Parquet or JSON) has columns board, ns_pair, ew_pair and ns_score (NS
    points; or contract and declarer instead, scored with the board's vulnerability), and
    optionally artificial (0 real, 1 A+, 2 A, 3 A- for NS). The per-table results
    (ns, ew, plus ns_percent/ew_percent for matchpoints, datum for Butler) go to -o or
    stdout; the per-pair totals go to stderr when the table is on stdout, else stdout.
    Boards with a single result get no score and are counted in a warning.

    \b
    Examples:
      fastrate bridge score travellers.csv --method cross-imps -o imps.csv
      fastrate bridge score travellers.parquet --method butler --drop one
      fastrate bridge score travellers.csv --method matchpoints --style 1/0.5/0
    """
    import numpy as np
    import pyarrow as pa

    from fastrate.bridge import scoring
    from fastrate.errors import InputError
    from fastrate.io.tables import read_table, write_table

    drop_value: str | int = int(drop) if drop.isdigit() else drop
    table = read_table(file, input_format)
    cols = {name.lower(): name for name in table.column_names}
    for need in ("board", "ns_pair", "ew_pair"):
        if need not in cols:
            raise InputError(f"no column '{need}' in {file} (columns: "
                             f"{', '.join(table.column_names)}); a traveller file needs "
                             "board, ns_pair, ew_pair and ns_score")
    ns_score = _ns_scores(table, cols, file)
    artificial = (table.column(cols["artificial"]).to_numpy(zero_copy_only=False)
                  if "artificial" in cols else None)
    board = table.column(cols["board"]).to_numpy(zero_copy_only=False)
    groups, r = scoring.score_results(board, ns_score, method, artificial=artificial,
                                      drop=drop_value, datum=datum, style=style)
    ns_pair = table.column(cols["ns_pair"]).to_numpy(zero_copy_only=False).astype(str)
    ew_pair = table.column(cols["ew_pair"]).to_numpy(zero_copy_only=False).astype(str)

    def nullable(x):
        return pa.array(x, mask=np.isnan(x))

    out = {"board": table.column(cols["board"]), "ns_pair": pa.array(ns_pair),
           "ew_pair": pa.array(ew_pair), "ns_score": pa.array(np.asarray(ns_score, float)),
           "ns": nullable(r.ns), "ew": nullable(r.ew)}
    if r.ns_percent is not None:
        out["ns_percent"] = nullable(r.ns_percent)
        out["ew_percent"] = nullable(r.ew_percent)
    if r.datum is not None:
        out["datum"] = nullable(groups.per_row(r.datum))
    result = pa.table(out)
    if output is not None:
        write_table(result, output, fmt)
        click.echo(f"wrote {result.num_rows:,} results of {len(groups.boards):,} boards to "
                   f"{output}", err=True)
    else:
        write_table(result, None, fmt or "csv", stream=sys.stdout.buffer)
        sys.stdout.flush()
    if r.n_no_comparison:
        click.echo(f"fastrate: warning: {r.n_no_comparison} board(s) with a single result "
                   "have no comparison and no score", err=True)
    percent = r.ns_percent is not None
    values = np.concatenate([r.ns_percent, r.ew_percent] if percent else [r.ns, r.ew])
    totals = scoring.pair_totals(np.concatenate([ns_pair, ew_pair]), values)
    order = np.argsort(-np.nan_to_num(totals["mean"] if percent else totals["total"],
                                      nan=-np.inf), kind="stable")
    err = output is None
    head = "percent" if percent else "imps"
    width = max([4] + [len(p) for p in totals["pair"].tolist()])
    click.echo(f"{'pair':<{width}}  boards  {'total ' + head:>12}  {'mean':>8}", err=err)
    for i in order.tolist():
        click.echo(f"{totals['pair'][i]:<{width}}  {totals['boards'][i]:>6}  "
                   f"{totals['total'][i]:>12.2f}  {totals['mean'][i]:>8.2f}", err=err)
