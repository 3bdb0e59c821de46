"""What every command group of the CLI shares (layer 5): the option decorators for
input columns, output and progress, stage progress on stderr, the readable table and
"write to -o or stdout". Command groups import this module and never each other."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import click

FORMATS = ("csv", "parquet", "json")
#: --example choices: the bundled data sets (fastrate.datasets.EXAMPLES)
EXAMPLE_CHOICES = ("football", "f1", "f1_teams")
#: the examples that are matches (long format) rather than two-player games
MATCH_EXAMPLES = ("f1", "f1_teams")


def input_options(fn: Callable) -> Callable:
    """Column mapping and period options for reading a games file, or a long-format
    matches file (one row per player) for the systems that rate matches."""
    opts = [
        click.option("--white", metavar="COL", help="Column of the first player (gets any "
                     "advantage)."),
        click.option("--black", metavar="COL", help="Column of the second player."),
        click.option("--score", metavar="COL", help="Column of the first player's score "
                     "(1, 0.5, 0, a fraction, or 1-0 / 0-1 / 1/2-1/2); for matches, each "
                     "team's score (higher is better)."),
        click.option("--winner", metavar="COL", help="Column of winners (with --loser: every "
                     "row is a win)."),
        click.option("--loser", metavar="COL", help="Column of losers."),
        click.option("--time", "time_col", metavar="COL", help="Column of dates/times "
                     "(default: date, time, ...)."),
        click.option("--time-format", metavar="FMT", help="strptime format of the time "
                     "column, e.g. %Y%m%d."),
        click.option("--period", metavar="SPEC|COL", help="Rating periods: a length (3d, 1w, "
                     "12h), month, year, or a column such as season."),
        click.option("--weight", metavar="COL", help="Column of per-game K multipliers; for "
                     "matches, each player's share of the match in [0, 1] (partial play)."),
        click.option("--first-points", metavar="COL", help="Column of the first player's "
                     "points (goals, runs ...): with --second-points gives the score (win, "
                     "draw, loss) and the margin (default: home_score/away_score, "
                     "score1/score2)."),
        click.option("--second-points", metavar="COL", help="Column of the second player's "
                     "points."),
        click.option("--margin", metavar="COL", help="Column of point margins (default: from "
                     "home/away scores)."),
        click.option("--neutral", metavar="COL", help="Column of neutral-venue flags."),
        click.option("--context", "context_col", metavar="COL", help="Elo context ratings "
                     "(context_weight): column of each game's context (surface, venue, mode)."),
        click.option("--best-of", "best_of_col", metavar="COL", help="Elo match format "
                     "(best_of): column of each game's best-of-N (default: best_of)."),
        click.option("--share", "share_col", metavar="COL", help="Elo points_share: column "
                     "of the first player's share of the points in [0, 1]."),
        click.option("--tennis-score", metavar="COL", help="Elo points_share from a tennis "
                     "score column (6-4 3-6 7-6(5), the winner's side first): the share of "
                     "games won."),
        click.option("--entry", "entry_col", metavar="COL", help="Newcomers (Elo, Glicko, "
                     "Glicko-2, Stephenson): column of the starting rating of a player with no "
                     "games (empty: the default)."),
        click.option("--entry-rd", "entry_rd_col", metavar="COL", help="Newcomers (Glicko, "
                     "Glicko-2, Stephenson): column of the starting rating deviation of a "
                     "player with no games (empty: initial_rd)."),
        click.option("--drop-self-play", is_flag=True, default=None, help="Skip rows where "
                     "a player plays himself (counted and reported) instead of refusing them."),
        click.option("--match", "match_col", metavar="COL", help="Matches (long format): "
                     "column of the match (default: match, game, event, race ...)."),
        click.option("--team", "team_col", metavar="COL", help="Matches: column of the team "
                     "(default: team; without one, every player is a side of his own)."),
        click.option("--free-for-all", is_flag=True, default=None, help="Matches: every "
                     "player is a side of his own, even if there is a team column."),
        click.option("--player", "player_col", metavar="COL", help="Matches: column of the "
                     "player (default: player, driver ...)."),
        click.option("--rank", "rank_col", metavar="COL", help="Matches: column of ranks "
                     "(lower is better; default: rank, place, position)."),
        click.option("--place", "place_col", metavar="COL", help="Matches: column of places "
                     "(lower is better)."),
        click.option("--unranked", type=click.Choice(["error", "last", "drop"]), default=None,
                     help="Matches: rows without a rank are an error (default), tie last, "
                     "or are dropped."),
        input_format_option(),
        click.option("--encoding", metavar="NAME", help="Text encoding of a CSV or JSON "
                     "input (default utf-8; e.g. latin-1, cp1252, utf-16): text that does not "
                     "decode is refused, naming the row and byte."),
    ]
    for opt in reversed(opts):
        fn = opt(fn)
    return fn


#: the parameters (of any command) that name files the command writes; every other
#: ``click.Path`` parameter names a file it reads
OUTPUT_PARAMS = ("output", "predictions", "partnerships_out", "plot")


def is_output_param(param: click.Parameter) -> bool:
    """Whether a command parameter names a file the command writes."""
    name = param.name or ""
    return name in OUTPUT_PARAMS or name.endswith("_out") or name.startswith("output")


#: (input, output) parameters of a ``rate`` command that may name one file: a starting
#: state updated in place (it is read whole before the new state replaces it)
IN_PLACE = (("initial", "output"), ("initial_partnerships", "partnerships_out"))


def check_output_paths(command: click.Command, values: dict[str, Any]) -> None:
    """Refuse, before any work, an output that names an input of the same command (it
    would be overwritten; a ``rate`` command's starting state may be updated in place,
    :data:`IN_PLACE`) or another output (one would be lost). Devices and pipes
    (``/dev/null``) may be named by several outputs."""
    import os
    from pathlib import Path

    from fastrate._files import is_special_file, resolve_target

    def label(param: click.Parameter) -> str:
        return "/".join(param.opts) if param.param_type_name == "option" else param.name.upper()

    outputs, inputs = [], []
    for param in command.params:
        value = values.get(param.name or "")
        if not isinstance(value, (str, os.PathLike)) or not isinstance(param.type, click.Path):
            continue
        if is_output_param(param):
            outputs.append((param, value))
        else:
            inputs.append((param, value))
    seen: dict[str, click.Parameter] = {}
    for param, path in outputs:
        target = resolve_target(path)
        if is_special_file(Path(path)):
            continue
        folder = target.parent if str(target.parent) else Path(".")
        if not folder.is_dir():  # say so before any work, not after it
            from fastrate.errors import InputError

            why = (f"{folder} is a file, not a folder" if folder.exists()
                   else f"folder {folder} does not exist")
            raise InputError(f"cannot write {path} ({label(param)}): {why}; choose another "
                             "output path")
        for other, source in inputs:
            if command.name == "rate" and (other.name, param.name) in IN_PLACE:
                continue
            same = os.path.realpath(source) == os.path.realpath(path)
            if not same and os.path.exists(source) and os.path.exists(path):
                same = os.path.samefile(source, path)
            if same:
                raise click.UsageError(f"{label(param)} names the input file {source} "
                                       f"({label(other)}), which it would overwrite; write "
                                       "to another file")
        key = os.path.realpath(path)
        if key in seen:
            raise click.UsageError(f"{label(seen[key])} and {label(param)} both name {path}; "
                                   "give each output its own file")
        seen[key] = param


def column_kwargs(kw: dict[str, Any]) -> dict[str, Any]:
    """Pop the input options from a command's kwargs into read_games() arguments."""
    names = {"white": "white", "black": "black", "score": "score", "winner": "winner",
             "loser": "loser", "first_points": "first_points",
             "second_points": "second_points", "time_col": "time", "time_format": "time_format",
             "period": "period", "weight": "weight", "margin": "margin", "neutral": "neutral",
             "context_col": "context", "best_of_col": "best_of", "share_col": "share",
             "tennis_score": "tennis_score", "entry_col": "entry", "entry_rd_col": "entry_rd",
             "drop_self_play": "drop_self_play", "match_col": "match", "team_col": "team",
             "free_for_all": "free_for_all", "player_col": "player", "rank_col": "rank",
             "place_col": "place", "unranked": "unranked", "encoding": "encoding"}
    out = {}
    for opt, arg in names.items():
        value = kw.pop(opt, None)
        if value is not None:
            out[arg] = value
    return out




def split_columns(columns: dict[str, Any], matches: bool) -> dict[str, Any]:
    """The :func:`column_kwargs` that apply to a games file (``matches=False``:
    ``read_games`` arguments) or a matches file (``read_matches`` arguments), refusing
    options of the other kind with a one-line error."""
    from fastrate.data.game_table import GAME_ONLY_COLUMNS
    from fastrate.data.matches import MATCH_ONLY_COLUMNS
    from fastrate.errors import InputError

    wrong = GAME_ONLY_COLUMNS if matches else MATCH_ONLY_COLUMNS
    given = [k for k in wrong if k in columns]
    if given:
        kind = ("rates matches (long format: one row per player)" if matches
                else "rates two-player games")
        opts = ", ".join("--" + k.replace("_", "-") for k in given)
        raise InputError(f"{opts}: not an option here: the system {kind}")
    out = dict(columns)
    if matches and out.pop("free_for_all", None):
        out["team"] = False
    return out


def chunk_columns(columns: dict[str, Any], matches: bool) -> dict[str, Any]:
    """:func:`split_columns` for a chunked run of FILE: a game column named (``--winner``
    ...) says the input is two-player games, which a system that rates matches reads as
    matches of two one-player teams (:func:`fastrate.streaming.match_chunks`)."""
    from fastrate.data.game_table import names_game_columns

    return split_columns(columns, matches and not names_game_columns(columns))


def input_format_option(what: str = "FILE", formats: tuple[str, ...] = FORMATS) -> Callable:
    """``--input-format``: the format of the input file ``what`` names."""
    return click.option("--input-format", type=click.Choice(formats),
                        help=f"Format of {what} (default: from its extension).")


def table_output_options(what: str = "the table",
                         without_o: str = "with no -o, a readable table") -> Callable:
    """``-o/--output`` and ``--format``: write ``what`` to a file or to stdout (see
    :func:`emit`); ``without_o`` says what a command shows when neither is given."""
    def decorate(fn: Callable) -> Callable:
        fn = click.option("--format", "fmt", type=click.Choice(FORMATS),
                          help=f"Output format (default: from the -o extension; {without_o}).")(fn)
        return click.option("-o", "--output", type=click.Path(dir_okay=False),
                            help=f"Write {what} to this file (written atomically).")(fn)
    return decorate


def output_options(fn: Callable) -> Callable:
    """``-o/--output``, ``--format`` and ``--progress`` of the commands that rate games."""
    fn = click.option("--progress/--no-progress", default=None, help="Progress on stderr "
                      "(default: when stderr is a terminal).")(fn)
    return table_output_options("the full table")(fn)


def window_options(fn: Callable) -> Callable:
    """``--fit-until``, ``--score-from``, ``--score-until``: the time windows of
    ``evaluate`` and ``tune`` (dates compared with the time column, or period labels;
    :func:`fastrate.data.evaluation.split_windows`)."""
    what = ("a date (2000-01-01; compared with the time column) or a period label (a "
            "season such as 2019, or period:LABEL)")
    fn = click.option("--score-until", metavar="DATE|PERIOD", default=None,
                      help=f"Score only the games before this {what}.")(fn)
    fn = click.option("--score-from", metavar="DATE|PERIOD", default=None,
                      help=f"Score only the games from this {what} on (default: "
                      "--fit-until).")(fn)
    return click.option("--fit-until", metavar="DATE|PERIOD", default=None,
                        help=f"End of the fit window (games before this {what}): what "
                        "tuning scores (default: --score-from).")(fn)


class Progress:
    """Stage progress on stderr (tqdm), shown for long work or when asked."""

    def __init__(self, stages: list[str], enabled: bool | None):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=len(stages), file=sys.stderr, leave=False,
                            bar_format="{desc:<28} {bar} {n_fmt}/{total_fmt} [{elapsed}]")
        self.stages = stages
        self.i = 0
        self._show()

    def _show(self) -> None:
        if self.bar is not None and self.i < len(self.stages):
            self.bar.set_description_str(self.stages[self.i])

    def step(self) -> None:
        self.i += 1
        if self.bar is not None:
            self.bar.update(1)
            self._show()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class GameProgress:
    """Games done on stderr (tqdm: games per second and an ETA when the total is known),
    updated by chunk: the ``progress`` callback of :mod:`fastrate.streaming`."""

    def __init__(self, enabled: bool | None, what: str = "rating"):
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        self.done = 0
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=None, desc=what, unit=" games", unit_scale=True,
                            file=sys.stderr, leave=False, dynamic_ncols=True)

    def __call__(self, done: int, total: int | None, seconds: float) -> None:
        self.done = done
        if self.bar is None:
            return
        if total is not None and self.bar.total is None:
            self.bar.total = total
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def format_table(columns: dict[str, Any], n: int, title: str) -> str:
    """A readable fixed-width table of the first n rows (columns already sorted)."""
    import numpy as np

    heads = ["#", *columns.keys()]
    rows = []
    for i in range(min(n, len(next(iter(columns.values()))))):
        row = [str(i + 1)]
        for k, v in columns.items():
            x = v[i]
            if isinstance(x, (float, np.floating)):
                row.append(f"{x:.1f}" if k in ("rating", "rd") else f"{x:.4g}")
            else:
                row.append(str(x))
        rows.append(row)
    widths = [max(len(h), *(len(r[j]) for r in rows)) if rows else len(h)
              for j, h in enumerate(heads)]
    numeric = [j == 0 or k not in ("player", "system") for j, k in enumerate(heads)]

    def fmt(cells):
        return "  ".join(c.rjust(w) if num else c.ljust(w)
                         for c, w, num in zip(cells, widths, numeric)).rstrip()

    lines = ([title] if title else []) + [fmt(heads), fmt(["-" * w for w in widths])]
    lines += [fmt(r) for r in rows]
    return "\n".join(lines)


def emit(table, output: str | None, fmt: str | None) -> None:
    """Write ``table`` to ``output`` (atomically; format from ``fmt`` or its extension),
    or with no ``output`` to stdout (``fmt``, default csv)."""
    from fastrate.io.tables import write_table

    if output is not None:
        write_table(table, output, fmt)
    else:
        write_table(table, None, fmt or "csv", stream=sys.stdout.buffer)
        sys.stdout.flush()


def load_games(file: str | None, example: str | None, fmt: str | None, columns: dict,
                matches: bool = False):
    """The games (or, ``matches=True``, the long-format matches) of FILE or --example."""
    from fastrate.data import Games
    from fastrate.data.game_table import names_game_columns
    from fastrate.datasets import load_example
    from fastrate.errors import InputError
    from fastrate.io.pgn_games import is_pgn, pgn_options, read_pgn
    from fastrate.io.tables import read_games

    if matches and example is None and file is not None and (
            names_game_columns(columns) or is_pgn(file)):
        # two-player games (a PGN file, or game columns named) for a system that rates
        # matches: read as games, then each game a match of two one-player teams
        return games_as_matches(load_games(file, example, fmt, columns))
    columns = split_columns(columns, matches)
    if example is not None:
        if file is not None:
            raise InputError("give either FILE or --example, not both")
        extra = set(columns) - {"period"}
        if extra:
            raise InputError(f"--example data has fixed columns; drop {', '.join(sorted(extra))}")
        data = load_example(example, period=columns.get("period"))
        return games_as_matches(data) if matches and isinstance(data, Games) else data
    if file is None:
        raise InputError("no input: give a games FILE (CSV, Parquet or JSON) or --example "
                         "football")
    if matches:
        from fastrate.io.matches import long_format_or_games, read_matches

        return long_format_or_games(  # (no match column: two-player games, as matches)
            lambda: _noted(read_matches(file, format=fmt, **columns)),
            lambda: games_as_matches(load_games(file, example, fmt, columns)))
    if is_pgn(file):
        games = read_pgn(file, **pgn_options(columns))
    else:
        games = read_games(file, format=fmt, **columns)
    return _noted(games)


def _noted(data: Any) -> Any:
    """``data`` (Games or Matches) once its left-out rows are noted (:func:`note_dropped`)."""
    note_dropped(data.dropped)
    return data


def games_as_matches(games: Any) -> Any:
    """Two-player games as matches of two one-player teams, for a system that rates
    matches (:meth:`fastrate.Matches.from_games`). Seat weights are shares of a game in
    [0, 1]; games weighted otherwise (the football example's match importance, 0.5 to
    1.5) are rated unweighted, with a note."""
    import dataclasses

    from fastrate.data import Matches

    if games.weight is not None and not ((games.weight >= 0.0) & (games.weight <= 1.0)).all():
        click.echo(f"fastrate: note: the games' weights run to {float(games.weight.max()):g}; "
                   "a system that rates matches takes weights as shares of a game in [0, 1] "
                   "(partial play), so these games are rated unweighted", err=True)
        games = dataclasses.replace(games, weight=None)
    return Matches.from_games(games)


def note_dropped(dropped: Any) -> None:
    """One ``fastrate: note:`` line per reason rows were left out for (``Games.dropped``
    records: reason, count, first place)."""
    for reason, count, first in dropped:
        click.echo(f"fastrate: note: skipped {count:,} row{'s' if count != 1 else ''} where "
                   f"{reason} (first at {first})", err=True)


#: other names of the saved-state columns that ``--initial`` / ``--resets`` accept
_STATE_ALIASES = {"player": ("team", "name", "id"), "rating": ("elo",)}


def read_state_file(path: str | None, what: str, period: str | None = None):
    """``--initial`` / ``--resets`` FILE as a table, its columns named as the library
    wants them: ``player`` may be called team, name or id and ``rating`` elo (when the
    proper name is absent), and a resets file may give its period under the games'
    period column name (``--period season``: a ``season`` column)."""
    if path is None:
        return None
    from fastrate.io.tables import read_ratings

    table = read_ratings(path)
    names = list(table.column_names)
    wanted = dict(_STATE_ALIASES)
    if what == "resets":
        wanted = {"player": wanted["player"], "value": ("rating", "elo")}
        if period is not None and "period" not in names and "time" not in names:
            wanted["period"] = (period,)
    for proper, others in wanted.items():
        if proper not in names:
            alias = next((a for a in others if a in names), None)
            if alias is not None:
                names[names.index(alias)] = proper
    return table.rename_columns(names)
