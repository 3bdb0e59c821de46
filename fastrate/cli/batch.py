"""``fastrate batch``: all games fitted at once (Bradley-Terry, as Ordo and BayesElo do).
I/O and errors only; the fitting happens in :mod:`fastrate.ratings.bradley_terry`."""

from __future__ import annotations

from typing import Any

import click

from fastrate.cli._common import (
    Progress,
    column_kwargs,
    emit,
    format_table,
    input_options,
    load_games,
    output_options,
)
from fastrate.errors import FastrateError

#: --errors auto: the exact standard errors up to this many players (a dense O(n^3)
#: factorisation: about 1 s at 3,000 on two cores); above it the certified series when
#: it applies within its tolerance (well-connected data), else the conditional ones
AUTO_EXACT = 3000


@click.command("batch")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--example", type=click.Choice(["football"]), help="Fit a bundled data set "
              "instead of FILE.")
@click.option("--model", type=click.Choice(["bt_half", "bayeselo", "davidson"]),
              default="bt_half", show_default=True, help="bt_half: a draw is half a win "
              "(Ordo); bayeselo: BayesElo's model with drawelo; davidson: Davidson's draw "
              "model with nu.")
@click.option("--advantage", default="0", show_default=True, metavar="ELO|fit",
              help="First-move (home) advantage in Elo, or 'fit'.")
@click.option("--drawelo", "--draw", "drawelo", default="fit", show_default=True,
              metavar="X|fit", help="The draw parameter, or 'fit': bayeselo's drawelo (Elo), "
              "davidson's nu (>= 0).")
@click.option("--prior", default=0.0, show_default=True, type=click.FloatRange(min=0.0),
              help="BayesElo's virtual draws per player (its default is 2; 0: the exact "
              "maximum likelihood).")
@click.option("--anchor", default=None, metavar="NAME=ELO|A,B,C=ELO|ELO", help="Give one "
              "player a fixed rating (NAME=1800), fix the mean of a set of players "
              "(A,B,C=1800), or set the mean rating (default 0).")
@click.option("--largest-component", is_flag=True, help="Rate only the players of the "
              "largest strongly connected component (Ordo's default), reporting who is left "
              "out; without it such data is refused.")
@click.option("--errors", type=click.Choice(["auto", "exact", "conditional", "bootstrap",
                                             "none"]),
              default="auto", show_default=True, help="Standard errors: exact (inverse "
              "information, O(n^3): many seconds for 10,000 players), conditional (others "
              "held fixed, fast, smaller), bootstrap (parametric, --samples), none; auto: "
              "exact up to 3,000 players; above, exact when the certified series applies "
              "(well-connected data), else conditional (the title says which).")
@click.option("--level", default=0.95, show_default=True,
              type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
              help="Confidence level of the ± column (the interval's half-width).")
@click.option("--samples", default=100, show_default=True, type=click.IntRange(min=2),
              help="Bootstrap samples (--errors bootstrap).")
@click.option("--seed", default=0, show_default=True, type=int, help="Bootstrap seed.")
@click.option("--los", "los_top", default=0, show_default=True, type=click.IntRange(min=0),
              help="Print the likelihood-of-superiority matrix of the top N players "
              "(percent; BayesElo's los).")
@click.option("--top", default=20, show_default=True, type=click.IntRange(min=0),
              help="Rows of the readable table (0: none).")
@click.option("--gaussian-prior", "gaussian", multiple=True, metavar="[NAME=]MEAN:SD",
              help="A Gaussian prior on the ratings (MAP): MEAN:SD for every player, or "
              "NAME=MEAN:SD for one (repeatable); it fixes the level (no --anchor).")
@click.option("--virtual", "virtual", multiple=True, metavar="PLAYER,OPPONENT,W,D,L",
              help="Virtual games before the real ones (the computer-go seeding: a new "
              "player's assumed results against a known one; repeatable).")
@input_options
@output_options
def batch_command(file, example, model, advantage, drawelo, prior, anchor, largest_component,
                  errors, level, samples, seed, los_top, top, gaussian, virtual, input_format,
                  output, fmt, progress, **kw) -> None:
    """Fit all games of FILE at once (Bradley-Terry, as Ordo and BayesElo do).

    The exact maximum-likelihood ratings (or maximum a posteriori with --prior) of the
    chosen model, with the advantage and draw parameter fixed or fitted, their standard
    errors and the likelihood of superiority. FILE: PGN (also gzipped) or a games table as
    for `fastrate rate`.

    \b
    Examples:
      fastrate batch games.pgn --advantage fit
      fastrate batch games.pgn --model bayeselo --advantage fit --draw fit --prior 2 --los 10
      fastrate batch results.csv --advantage fit --anchor Brazil=2000 -o fit.csv
      fastrate batch games.pgn --model davidson --anchor A,B,C=2000 --errors bootstrap
      fastrate batch games.pgn --gaussian-prior 0:300 --virtual "NewBot,Fruit,1,2,1"
    """
    import statistics

    import numpy as np
    import pyarrow as pa

    from fastrate.errors import InputError
    from fastrate.ratings import bradley_terry as bt

    def number_or_fit(value: str, option: str) -> Any:
        if value.strip().lower() == "fit":
            return "fit"
        try:
            return float(value)
        except ValueError:
            raise InputError(f"{option} must be a number or 'fit'; got {value!r}") \
                from None

    kwargs: dict[str, Any] = {}
    if anchor is not None:
        name, eq, value = anchor.rpartition("=")
        try:
            kwargs["mean_rating"] = float(value)
        except ValueError:
            raise InputError(f"--anchor must be NAME=ELO, A,B,C=ELO or ELO; got {anchor!r}") \
                from None
        if eq:
            names = [x.strip() for x in name.split(",")] if "," in name else None
            kwargs["anchor"] = names if names is not None else name
    if gaussian:
        kwargs["gaussian_prior"] = _gaussian_prior(gaussian)
    if virtual:
        kwargs["virtual_games"] = tuple(_virtual_game(v) for v in virtual)
    draw = number_or_fit(drawelo, "--draw")
    draw_kw = {"draw_nu": draw} if model == "davidson" else {"drawelo": draw}
    config = bt.BTConfig(model=model, advantage=number_or_fit(advantage, "--advantage"),
                         prior=prior, **draw_kw, **kwargs)
    columns = column_kwargs(kw)
    bar = Progress(["reading", "fitting", "errors", "writing"], progress)
    try:
        games = load_games(file, example, input_format, columns)
        if largest_component:
            games, left_out = bt.largest_component(games, prior)
            if left_out.size:
                shown = ", ".join(map(str, left_out[:10].tolist()))
                more = f" and {left_out.size - 10} more" if left_out.size > 10 else ""
                click.echo(f"fastrate: note: left out {left_out.size:,} player"
                           f"{'s' if left_out.size != 1 else ''} outside the largest "
                           f"strongly connected component: {shown}{more}", err=True)
        bar.step()
        result = bt.fit(games, config)
        bar.step()
        se = None
        if not result.converged:  # (errors and LOS describe the maximum: not this)
            click.echo(f"fastrate: warning: the {model} fit did NOT converge in "
                       f"{result.n_newton} Newton steps, so its ratings are not the "
                       "maximum of the likelihood; no standard errors or likelihood of "
                       "superiority (a --prior or --gaussian-prior, or "
                       "--largest-component, makes the maximum exist)", err=True)
            errors, los_top = "none", 0
        if errors == "auto":
            errors = "exact"
            if len(result.players) > AUTO_EXACT:
                se = _certified_series_errors(bt, result)
                if se is None:
                    errors = "conditional"
        if se is not None:
            pass
        elif errors == "bootstrap":
            se = bt.bootstrap(result, samples=samples, seed=seed)
        elif errors != "none":
            se = bt.standard_errors(result, method=errors)
        matrix = bt.los(result, top=los_top) if los_top > 0 else None
        bar.step()
        n = len(result.players)
        played = np.bincount(games.white, minlength=n) + np.bincount(games.black, minlength=n)
        points = (np.bincount(games.white, weights=games.score, minlength=n)
                  + np.bincount(games.black, weights=1.0 - games.score, minlength=n))
        draw_flag = (games.score == 0.5).astype(np.float64)
        draws = (np.bincount(games.white, weights=draw_flag, minlength=n)
                 + np.bincount(games.black, weights=draw_flag, minlength=n))
        opp = (np.bincount(games.white, weights=result.rating[games.black], minlength=n)
               + np.bincount(games.black, weights=result.rating[games.white], minlength=n))
        order = np.argsort(-result.rating, kind="stable")
        per_game = np.maximum(played, 1)
        table = {"player": result.players.names[order], "rating": result.rating[order]}
        if se is not None:
            table["se"] = se.rating[order]
            table["ci_half_width"] = se.half_width(level)[order]
        table.update({"games": played[order], "score": (points / per_game)[order],
                      "draws": (draws / per_game)[order],
                      "opponent_rating": (opp / per_game)[order]})
        if output is not None or fmt is not None:
            emit(pa.table({k: pa.array(v.tolist()) for k, v in table.items()}), output, fmt)
        bar.step()
    finally:
        bar.close()
    if output is not None or fmt is None:
        extra = f"advantage {result.advantage:.1f}"
        if se is not None and not np.isnan(se.advantage):
            extra += f" ± {statistics.NormalDist().inv_cdf(0.5 + 0.5 * level) * se.advantage:.1f}"
        if model == "bayeselo":
            extra += f", drawelo {result.drawelo:.1f}"
        if model == "davidson":
            extra += f", nu {result.draw_nu:.4f}"
        state = "converged" if result.converged else "NOT converged"
        title = (f"{model}: {games.n_games:,} games, {n:,} players; {extra}; log-likelihood "
                 f"{result.log_likelihood:.2f}; {state} in {result.n_newton} Newton steps")
        if se is not None:
            title += (f"\n±: the {level:.0%} normal confidence interval's half-width "
                      f"({se.method} standard errors)")
        shown = {"player": table["player"], "rating": table["rating"]}
        if se is not None:
            shown["±"] = table["ci_half_width"]
        shown.update({k: table[k] for k in ("games", "score", "draws")})
        shown["oppo"] = table["opponent_rating"]
        to_err = output is None and fmt is not None
        if top > 0:
            click.echo(_round_table(shown, top, title), err=to_err)
        if matrix is not None:
            click.echo(_los_table(*matrix), err=to_err)
        if output is not None:
            click.echo(f"wrote {n:,} ratings to {output}", err=True)


def _certified_series_errors(bt: Any, result: Any) -> Any:
    """The exact errors by the certified series (``path="series"``) when it applies to
    ``result`` within the default tolerance, else ``None`` (never the dense path: it is
    O(n^3) above ``AUTO_EXACT`` players)."""
    try:
        se = bt.standard_errors(result, method="series")
    except FastrateError:
        return None
    return se if se.bound <= bt.SE_TOLERANCE else None


def _round_table(columns: dict[str, Any], top: int, title: str) -> str:
    """The BayesElo-like table: ratings, ± and the opponents' average to 1 decimal, the
    score and draw shares in percent."""
    shown = dict(columns)
    for k in ("±", "oppo"):
        if k in shown:
            shown[k] = [f"{x:.1f}" for x in shown[k][:top]]
    for k in ("score", "draws"):
        shown[k] = [f"{100 * x:.0f}%" for x in shown[k][:top]]
    shown = {k: list(v[:top]) for k, v in shown.items()}
    return format_table(shown, top, title)


def _los_table(names, matrix) -> str:
    """BayesElo's ``los`` layout: one row per player, P(row better than column) in percent,
    the columns headed by the first 4 characters of each name."""
    k = len(names)
    width = max(len(str(x)) for x in names)
    heads = [str(x)[:4].rjust(4) for x in names]
    lines = ["likelihood of superiority (%): P(row player > column player)",
             " " * width + " " + " ".join(heads)]
    for i in range(k):
        cells = ["    " if i == j else f"{100 * matrix[i, j]:4.0f}" for j in range(k)]
        lines.append(str(names[i]).ljust(width) + " " + " ".join(cells))
    return "\n".join(lines)


def _pair(text: str, option: str, what: str) -> tuple[float, float]:
    from fastrate.errors import InputError

    mean, colon, sd = text.partition(":")
    try:
        if not colon:
            raise ValueError
        return float(mean), float(sd)
    except ValueError:
        raise InputError(f"{option} must be {what}; got {text!r}") from None


def _gaussian_prior(values: tuple[str, ...]) -> Any:
    """``--gaussian-prior``: ``MEAN:SD`` for everyone, or ``NAME=MEAN:SD`` per player."""
    from fastrate.errors import InputError

    named = [v for v in values if "=" in v]
    if named and len(named) != len(values):
        raise InputError("--gaussian-prior: give either one MEAN:SD for every player or "
                         "NAME=MEAN:SD for some, not both")
    if not named:
        if len(values) > 1:
            raise InputError("--gaussian-prior MEAN:SD is given once (it applies to every "
                             "player)")
        return _pair(values[0], "--gaussian-prior", "MEAN:SD or NAME=MEAN:SD")
    out = {}
    for v in values:
        name, _, pair = v.rpartition("=")
        out[name.strip()] = _pair(pair, "--gaussian-prior", "MEAN:SD or NAME=MEAN:SD")
    return out


def _virtual_game(text: str) -> tuple[Any, ...]:
    """``--virtual PLAYER,OPPONENT,W,D,L``."""
    from fastrate.errors import InputError

    parts = [x.strip() for x in text.split(",")]
    try:
        if len(parts) != 5:
            raise ValueError
        return (parts[0], parts[1], *(float(x) for x in parts[2:]))
    except ValueError:
        raise InputError(f"--virtual must be PLAYER,OPPONENT,WINS,DRAWS,LOSSES; got "
                         f"{text!r}") from None
