"""``fastrate report``: one self-contained HTML report of rating FILE with one or more
systems (:mod:`fastrate.report.html`)."""

from __future__ import annotations

import click

from fastrate.cli._common import (
    EXAMPLE_CHOICES,
    MATCH_EXAMPLES,
    column_kwargs,
    input_options,
    load_games,
)


def command_line() -> str:
    """The command as typed (quoted so that it can be pasted back into a shell)."""
    import shlex
    import sys

    return shlex.join(["fastrate", *sys.argv[1:]])


@click.command("report")
@click.argument("file", required=False, type=click.Path())
@click.option("--example", type=click.Choice(EXAMPLE_CHOICES),
              help="Report on a bundled data set instead of FILE.")
@click.option("-s", "--system", "systems", multiple=True, metavar="SPEC",
              help="A rating system (repeatable), as for 'fastrate evaluate' (default: elo "
              "and glicko2; trueskill and weng_lin for matches).")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False),
              help="The HTML file to write (atomically).")
@click.option("--burn-in", default=0, show_default=True, metavar="N",
              type=click.IntRange(min=0), help="Leave the first N rating periods out of "
              "the scores.")
@click.option("--top", default=10, show_default=True, type=click.IntRange(min=1, max=40),
              help="Players in the trajectories and the head-to-head matrix.")
@click.option("--points", default=100, show_default=True, type=click.IntRange(min=2),
              help="Most points of a trajectory (slices of the data, at period boundaries).")
@input_options
def report_command(file, example, systems, output, burn_in, top, points, input_format,
                   **kw) -> None:
    """Write one self-contained HTML report of rating FILE: the data summary, a sortable
    and searchable rating table, the comparison of the systems, calibration, scores over
    time, rating trajectories, the rating distribution and head-to-head of the top
    players, and the command that made it. The page loads nothing from the network.

    \b
    Examples:
      fastrate report --example football --period year -o football.html
      fastrate report atp.csv.gz --winner winner_id --loser loser_id --time tourney_date \\
          --time-format %Y%m%d --period month --drop-self-play -s elo -s glicko2 -o atp.html
      fastrate report --example f1 -s trueskill -s weng-lin -o f1.html
    """
    from fastrate import systems as registry
    from fastrate.report.html import build_report, write_report
    from fastrate.report.plots import image_format  # noqa: F401 - fails early without mpl
    from fastrate.systems import SystemSpec

    columns = column_kwargs(kw)
    default = (["trueskill", "weng_lin"] if example in MATCH_EXAMPLES
               else ["elo", "glicko2"])
    specs = [SystemSpec.parse(s) for s in (systems or default)]
    as_matches = example in MATCH_EXAMPLES or any(
        registry.get(s.name).data == "matches" for s in specs)
    from pathlib import Path

    from fastrate._files import is_special_file

    if not str(output).lower().endswith((".html", ".htm")) \
            and not is_special_file(Path(output)):
        from fastrate.errors import InputError

        raise InputError(f"cannot write the report to {output}: the name must end in .html")
    data = load_games(file, example, input_format, columns, matches=as_matches)
    if data.period is None and any(s.system.period_based for s in specs):
        click.echo("fastrate: note: " + ", ".join(s.label for s in specs if s.system.period_based)
                   + " update once per rating period and these data have none, so they form "
                   "a single period; give --period (e.g. month, year)", err=True)
    source = f"--example {example}" if example else str(file)
    page = build_report(data, specs, source=source, command=command_line(), burn_in=burn_in,
                        top=top, points=points)
    write_report(page, output)
    click.echo(f"wrote the report to {output} ({len(page.encode('utf-8')) / 1e6:.1f} MB)",
               err=True)
