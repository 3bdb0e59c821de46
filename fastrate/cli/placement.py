"""``fastrate placement``: skill statistics for placement games (TAPL, TAZD, TAZD*,
TAOWR/TAOLZ, p-value, effect size, CI, GPG, PPRG, QOOA, baseball-style standings). Options and
output only: the files are read by :mod:`fastrate.io.placement`, the statistics computed by
:mod:`fastrate.stats.placement`."""

from __future__ import annotations

import warnings

import click

from fastrate.cli._common import emit, input_format_option, table_output_options


@click.group("placement")
def placement_group() -> None:
    """Skill statistics for placement games (KDice-style 1st..k-th place profiles)."""


_NAMED = ("uniform", "tapl", "tazd", "takbe", "taowr", "taolz")


def _read_reference(reference: str | None):
    """'tazd' / 'takbe' / 'uniform' (= 'tapl', the test against pure luck) / 'taowr' /
    'taolz' / None, or a file: one row of k numbers, or a column of k numbers (profile,
    percent or fraction; :func:`fastrate.io.placement.read_profile`)."""
    if reference is None or reference.lower() in _NAMED:
        if reference is None or reference.lower() == "tapl":
            return None
        return reference.lower()
    from pathlib import Path

    from fastrate.errors import InputError
    from fastrate.io.placement import read_profile

    if not Path(reference).exists():
        raise InputError(f"--reference must be tazd, takbe, uniform, taowr, taolz or a profile "
                         f"file (tapl = uniform); no such file: {reference}")
    try:
        return read_profile(reference)
    except InputError as exc:  # "file X must hold only the k numbers ..."
        raise InputError(f"--reference {exc}") from None


def _needs_history(file: str, reference: str):
    """The check of read_placement for --reference taowr/taolz: a log with time and
    points columns."""
    from fastrate.errors import InputError

    def check(kind: str, columns: tuple[str, ...]) -> None:
        if kind != "log":
            raise InputError(f"--reference {reference} needs a placement log (columns "
                             f"game, time, player, place, points), not a counts table; "
                             f"{file} has columns {', '.join(columns)}")
        lower = {c.lower() for c in columns}
        missing = [c for c in ("time", "points") if c not in lower]
        if missing:
            raise InputError(f"--reference {reference} needs the columns 'time' and "
                             f"'points' (points won per game) of a log to follow each "
                             f"player's rating; no column {' or '.join(map(repr, missing))} "
                             f"in {file} (columns: {', '.join(columns)}); "
                             f"{reference.upper()} is computed from the log's history")

    return check


def _load(file: str, fmt: str | None, places: int | None, allow_ties: bool,
          own: dict | None = None, columns: dict | None = None):
    """(player names, counts, points or None, levels or None, games_behind or None,
    TAOWR/TAOLZ columns or None). ``own``: the options of placement.own_reference_stats
    (reference, level, ...), which need a log with time and points columns. ``columns``:
    the file's names for the columns (read_placement's ``columns=``)."""
    from fastrate.io.placement import read_placement
    from fastrate.stats import placement

    data = read_placement(file, fmt, places,
                          check=None if own is None else _needs_history(file, own["reference"]),
                          columns=columns)
    if data.kind == "counts":
        return data.player, data.counts, data.points, data.levels, None, None
    src = data.source
    own_cols = None
    if own is not None:
        own_cols = placement.own_reference_stats(
            data.player, data.place, data.points, data.time, places, game=data.game,
            allow_ties=allow_ties, source=src, **own)
    log = placement.profiles_from_log(data.player, data.place, places, game=data.game,
                                      points=data.points, level=data.level,
                                      allow_ties=allow_ties, source=src)
    gb = None
    if data.game is not None:
        gb = placement.standings(data.game, data.player, data.place, sort=False,
                                 allow_ties=allow_ties, source=src)["games_behind"]
    return log["players"].names, log["counts"], log["points"], log["levels"], gb, own_cols


#: the options that name a placement file's columns (read_placement's ``columns=``):
#: role, flag, what the column holds
_COLUMN_OPTIONS = (
    ("game", "--game", "a log's games (default: game)"),
    ("player", "--player", "the players (default: player)"),
    ("place", "--place", "a log's places 1..k (default: place; a file without one is a "
     "counts table)"),
    ("points", "--points", "the points won per game (default: points)"),
    ("level", "--table-level", "a log's table level 0..5 (default: level)"),
    ("time", "--time", "a log's times (default: time)"))


def _column_options(fn):
    """``--game COL`` ... of :data:`_COLUMN_OPTIONS` (each into ``<role>_col``)."""
    for role, flag, what in reversed(_COLUMN_OPTIONS):
        fn = click.option(flag, f"{role}_col", metavar="COL", help=f"Column of {what}.")(fn)
    return fn


@placement_group.command("stats")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--reference", metavar="tazd|takbe|uniform|tapl|taowr|taolz|FILE", default=None,
              help="Profile for chi2, p_value, effect_size and tazd_star (default: uniform, "
              "also called tapl: the test against pure luck; "
              "tazd_star then uses TAZD). FILE holds the k numbers of a profile. taowr / "
              "taolz: each player's own profile at his lowest rating / his last zero, "
              "from a log with time and points columns.")
@click.option("--observed", type=click.Choice(["all", "after"]), default=None,
              help="taowr/taolz: test all of a player's games (the essay; default) or only "
              "those after his reference point.")
@click.option("--level", type=float, default=None, metavar="X",
              help="taolz: the rating that counts as 'zero' (default 0; 1000 for the "
              "essay's Test Against Own Last 1000).")
@click.option("--initial", type=float, default=None, metavar="X",
              help="taowr/taolz: every player's rating before his first game in the log "
              "(default 0).")
@click.option("--floor", type=float, default=None, metavar="X",
              help="taowr/taolz: clamp ratings at X after every game (0: KDice's "
              "zero-minimum points; default: no clamp).")
@click.option("--pseudocount", type=float, default=None, metavar="A",
              help="taowr/taolz: add A to each place of the reference profile (0.5 or 1 "
              "avoids NaN for places the player had never reached; default 0).")
@click.option("--yates", type=click.Choice(["off", "on", "auto"]), default="off",
              show_default=True, flag_value="on", is_flag=False,
              help="Yates' correction: on for every player (plain --yates), auto where an "
              "expected count is below 5 (as the KDice essay does).")
@click.option("--places", type=int, default=None, metavar="K",
              help="Number of places k of a log (default: the largest place).")
@click.option("--allow-ties", is_flag=True, help="Allow two players to share a place in "
              "one game of a log.")
@_column_options
@input_format_option()
@table_output_options(without_o="csv on stdout")
def stats_command(file, reference, observed, level, initial, floor, pseudocount, yates,
                  places, allow_ties, input_format, output, fmt, **column_names) -> None:
    """Per-player skill statistics from a placement log or a counts table.

    FILE is a log (columns game, player, place[, points, level, time]; one row per
    player per game, place 1..k, level 0..5 the table level) or a counts table (player,
    p1..pk[, points, level0..level5 as percentages]). Output columns: player, games,
    chi2, p_value, effect_size, tapl, tazd, takbe, tazd_star, ci, games_behind, and pprg,
    gpg, qooa, tapl_qooa when points/levels are given.

    With --reference taowr or taolz (a log with time and points columns), chi2,
    p_value and effect_size are against each player's own earlier profile, and the
    columns vs_reference and taowr/taolz (the value), df, reference_games, games_after,
    rating, reference_rating and status (ok, no_reference_games, never_at_level,
    no_games_after, zero_expected) are added.

    \b
    Examples:
      fastrate placement stats games.csv -o stats.csv
      fastrate placement stats profiles.csv --reference tazd --yates auto
      fastrate placement stats log.parquet --reference my_profile.txt --format json
      fastrate placement stats log.csv --reference taolz --pseudocount 0.5
      fastrate placement stats results.csv --game round --player nick --place finish
    """
    import pyarrow as pa

    from fastrate.errors import InputError
    from fastrate.stats import placement

    ref = _read_reference(reference)
    mode = {"off": False, "on": True, "auto": "auto"}[yates]
    own_options = {"observed": observed, "level": level, "initial": initial, "floor": floor,
                   "pseudocount": pseudocount}
    given = [name for name, value in own_options.items() if value is not None]
    own = None
    if isinstance(ref, str) and ref in ("taowr", "taolz"):
        if ref == "taowr" and level is not None:
            raise InputError("--level applies to --reference taolz only (TAOWR uses the "
                             "lowest rating)")
        own = {"reference": ref, "yates": mode,
               **{name: own_options[name] for name in given}}
    elif given:
        raise InputError(f"--{given[0]} applies to --reference taowr or taolz only")
    columns = {role: column_names[f"{role}_col"] for role, *_ in _COLUMN_OPTIONS
               if column_names[f"{role}_col"] is not None}
    players, counts, points, levels, gb, own_cols = _load(file, input_format, places,
                                                          allow_ties, own, columns)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", placement.ProfileWarning)
        cols = placement.placement_stats(counts, reference=None if own else ref, yates=mode,
                                         points=points, levels=levels)
    for w in caught:
        click.echo(f"fastrate: warning: {w.message}", err=True)
    if gb is not None:
        cols["games_behind"] = gb
    if own_cols is not None:
        for name in ("chi2", "p_value", "effect_size"):
            cols[name] = own_cols[name]
        cols["vs_reference"] = own_cols[ref]
        for name in (ref, "df", "reference_games", "games_after", "rating",
                     "reference_rating"):
            cols[name] = own_cols[name]
        cols["status"] = own_cols["status"].tolist()
    names = players.tolist() if hasattr(players, "tolist") else list(players)
    data = {"player": pa.array(names), **{k: pa.array(v) for k, v in cols.items()}}
    data["games"] = pa.array(cols["games"].astype("int64") if
                             (cols["games"] == cols["games"].round()).all() else cols["games"])
    table = pa.table(data)
    emit(table, output, fmt)
    if output is not None:
        click.echo(f"wrote statistics of {len(names):,} players to {output}", err=True)


@placement_group.command("pga")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--capacity", type=int, default=7, show_default=True, metavar="N",
              help="Table size (a 'capacity' column in FILE overrides it).")
@click.option("--p-watch", type=float, default=1.0, show_default=True, metavar="P",
              help="Probability that y was watching when x sat down (1 gives the benefit "
              "of the doubt).")
@click.option("--threshold", type=float, default=3.0, show_default=True,
              help="PPC at or above which a pair is flagged.")
@click.option("--min-games", type=int, default=20, show_default=True, metavar="N",
              help="Flag only pairs with at least N games of x (the essay: twenty).")
@click.option("--flagged-only", is_flag=True, help="Write only the flagged pairs.")
@input_format_option()
@table_output_options(without_o="csv on stdout")
def pga_command(file, capacity, p_watch, threshold, min_games, flagged_only, input_format, output,
                fmt) -> None:
    """Pre-game affiliates: the PPC/APC of every pair of players who shared a table.

    FILE is a seating log with columns game, player, seat (the order in which players
    sat down, 1 = first), watchers (players watching when he sat down)[, capacity].
    Output: x, y, games, joins, expected, ppc, apc, p_value, flagged (ppc >= threshold
    over at least --min-games games).

    \b
    Examples:
      fastrate placement pga seating.csv --flagged-only
      fastrate placement pga seating.parquet --p-watch 0.5 -o pairs.csv
    """
    import numpy as np
    import pyarrow as pa

    from fastrate.io.placement import read_seating
    from fastrate.stats import placement

    seating = read_seating(file, input_format)
    result = placement.pga(seating.game, seating.player, seating.seat, seating.watchers,
                           capacity=seating.capacity if seating.capacity is not None
                           else capacity, p_watch=p_watch, threshold=threshold,
                           min_games=min_games, source=seating.source)
    keep = result["flagged"] if flagged_only else np.ones(len(result["x"]), bool)
    out = pa.table({k: pa.array(v[keep].tolist() if v.dtype == object else v[keep])
                    for k, v in result.items()})
    emit(out, output, fmt)
    if output is not None:
        click.echo(f"wrote {out.num_rows:,} pairs to {output}", err=True)
