"""``fastrate ladder``: information per game and pairing schedulers for a rating ladder
(the computer-go post's cost/bits table; simulations of the schedulers). I/O and errors
only; the computing happens in :mod:`fastrate.stats.information` and
:mod:`fastrate.stats.pairing`."""

from __future__ import annotations

import click

from fastrate.cli._common import emit, table_output_options

SCHEDULERS = ("nearest", "gaussian", "greedy")


@click.group("ladder")
def ladder_group() -> None:
    """Information per game and pairing schedulers for a rating ladder."""


def _text_table(heads: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(heads)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(heads, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


@ladder_group.command("table")
@click.option("--max-gap", type=int, default=10, show_default=True, metavar="R",
              help="Largest rank gap of the table.")
@click.option("--min-gap", type=int, default=0, show_default=True, metavar="R",
              help="Smallest rank gap of the table.")
@click.option("--cost-ratio", type=float, default=0.5, show_default=True,
              help="Cost of a rank's games relative to the rank above.")
@click.option("--elo-step", type=float, default=80.0, show_default=True,
              help="Elo points between adjacent ranks.")
@click.option("--rank", type=int, default=0, show_default=True,
              help="Rank of the reference player (0 = top).")
@click.option("--base-cost", type=float, default=1.0, show_default=True,
              help="Cost of a game of rank 0.")
@table_output_options()
def table_command(max_gap, min_gap, cost_ratio, elo_step, rank, base_cost, output,
                  fmt) -> None:
    """The cost/bits table: the reference player against each rank gap below him.

    Columns: rank gap, cost of the game (both players' costs), the lower-ranked
    player's win probability, the expected bits H(p) and bits per unit cost; the
    readable table rounds to 4 decimals (halves up, as the post). With the defaults it
    is the computer-go post's table (SPEC §6).

    \b
    Examples:
      fastrate ladder table
      fastrate ladder table --max-gap 20 --cost-ratio 0.7 --elo-step 50
      fastrate ladder table --rank 3 -o table.csv
    """
    from fastrate.errors import ConfigError
    from fastrate.stats import information

    if max_gap < min_gap:
        raise ConfigError(f"--max-gap must be >= --min-gap; got {max_gap} < {min_gap}")
    table = information.cost_bits_table(range(min_gap, max_gap + 1), cost_ratio=cost_ratio,
                                        elo_step=elo_step, rank=rank, base_cost=base_cost)
    if output is not None or fmt is not None:
        emit(table, output, fmt)
        if output is None:
            return
    r4 = information.round_half_up
    rows = [[str(int(table["rank_gap"][i])), r4(table["cost"][i]), r4(table["win_prob"][i]),
             r4(table["bits"][i]), r4(table["bits_per_cost"][i])]
            for i in range(table["rank_gap"].shape[0])]
    click.echo(f"rank {rank} against the ranks below: {elo_step:g} Elo per rank, each rank's "
               f"games costing {cost_ratio:g} x the rank above, rank 0 costing {base_cost:g}")
    click.echo(_text_table(["RankGap", "Cost", "WinProb", "Bits", "Bits/Cost"], rows))
    best = int(table["bits_per_cost"].argmax())
    click.echo(f"most bits per unit cost: rank gap {int(table['rank_gap'][best])} "
               f"({r4(table['bits_per_cost'][best])})")


def _seed_games(text: str | None) -> tuple[int, int]:
    from fastrate.errors import ConfigError

    if text is None:
        return (0, 0)
    parts = text.replace(":", "-").split("-")
    try:
        wins, losses = (int(p) for p in parts)
    except ValueError:
        raise ConfigError(f"--seed-games must be WINS-LOSSES such as 2-1; got {text!r}") from None
    return wins, losses


@ladder_group.command("simulate")
@click.option("--scheduler", "schedulers", multiple=True,
              type=click.Choice([*SCHEDULERS, "all"]), help="Pairing scheduler; repeat to "
              "compare several (default: all).")
@click.option("--system", type=click.Choice(["elo", "glicko2"]), default="elo",
              show_default=True, help="Rating system of the ladder.")
@click.option("--players", type=int, default=34, show_default=True, help="Players.")
@click.option("--games", type=int, default=20_000, show_default=True,
              help="Games per simulated ladder.")
@click.option("--seeds", type=int, default=8, show_default=True,
              help="Independent runs (seeds seed .. seed+seeds-1, in parallel).")
@click.option("--seed", type=int, default=0, show_default=True, help="First seed.")
@click.option("--elo-step", type=float, default=80.0, show_default=True,
              help="True Elo between adjacent ranks.")
@click.option("--cost-ratio", type=float, default=0.5, show_default=True,
              help="Cost of a rank's games relative to the rank above (rank 0 costs 1).")
@click.option("--sigma", type=float, default=3.0, show_default=True,
              help="gaussian: standard deviation of the rank offset.")
@click.option("--candidates", type=int, default=3, show_default=True,
              help="nearest: random opponents to choose the nearest from.")
@click.option("--k", "k", type=float, default=32.0, show_default=True, help="Elo K.")
@click.option("--period-games", type=int, default=None,
              help="glicko2: games per rating period (default: one per player).")
@click.option("--newcomers", type=int, default=0, show_default=True,
              help="The N strongest players join during the first half, weakest first.")
@click.option("--seed-games", metavar="W-L", default=None,
              help="Seed newcomers with W virtual wins and L losses against the nearest "
              "player present (e.g. 2-1).")
@click.option("--start", type=click.Choice(["initial", "truth"]), default="initial",
              show_default=True, help="Start every estimate at the initial rating (a new "
              "ladder) or at the truth (an established ladder).")
@click.option("--points", type=int, default=10, show_default=True,
              help="Checkpoints at which the metrics are taken.")
@click.option("--plot", type=click.Path(dir_okay=False), help="Also draw the schedulers "
              "side by side into this PNG (needs matplotlib).")
@table_output_options("the metrics of every seed and checkpoint",
                      "with no -o, a readable table of the means")
def simulate_command(schedulers, system, players, games, seeds, seed, elo_step, cost_ratio,
                     sigma, candidates, k, period_games, newcomers, seed_games, start, points,
                     plot, output, fmt) -> None:
    """Simulate a ladder under pairing schedulers and compare them.

    Players ranked 0..N-1 are --elo-step apart in true strength and rank r's games
    cost --cost-ratio^r. Each game a random player meets the opponent the scheduler
    picks from the current ranking; the result is drawn from the true ratings. Reports,
    at each checkpoint, the bits gained per unit cost and the rating error against the
    truth (mean over seeds); -o writes them for every seed (columns scheduler, system,
    seed, games, cost, bits, bits_per_cost, window_bits_per_cost, rmse, misordered,
    mean_rank_gap).

    \b
    Examples:
      fastrate ladder simulate --scheduler gaussian --players 34 --games 20000 --plot out.png
      fastrate ladder simulate --system glicko2 --seeds 16 -o metrics.parquet
      fastrate ladder simulate --newcomers 4 --seed-games 2-1 --scheduler gaussian
    """
    from fastrate.ratings.elo import EloConfig
    from fastrate.stats import pairing

    if plot is not None:
        pairing.check_plot_path(plot)  # before the simulation, not after it
    names = list(dict.fromkeys(schedulers)) or ["all"]
    if "all" in names:
        names = list(SCHEDULERS)
    seeded = _seed_games(seed_games)
    ladder = pairing.Ladder.geometric(players, elo_step=elo_step, cost_ratio=cost_ratio,
                                      newcomers=newcomers, n_games=games)
    results = pairing.compare(ladder, names, system=system, n_games=games, n_seeds=seeds,
                              seed=seed, sigma=sigma, candidates=candidates,
                              elo=EloConfig(k=k), period_games=period_games,
                              seed_games=seeded, n_points=points, start=start)
    if output is not None or fmt is not None:
        # the table first: a failed -o leaves no plot behind
        emit(pairing.ladder_table(results), output, fmt)
    if plot is not None:
        pairing.plot(results, plot, title=f"{players} players, {games:,} games, {seeds} "
                     f"seed{'s' if seeds != 1 else ''}, {system}, start: {start}")
    if output is None and fmt is not None:
        return
    mean = pairing.ladder_table(results, mean=True)

    def f(x, digits=4):
        return "-" if x != x else f"{x:.{digits}g}"

    heads = ["scheduler", "games", "cost", "bits/cost", "window", "rmse", "misordered",
             "rank_gap"]
    rows = [[str(mean["scheduler"][i]), str(int(mean["games"][i])), f(mean["cost"][i], 6),
             f(mean["bits_per_cost"][i]), f(mean["window_bits_per_cost"][i]),
             f(mean["rmse"][i]), f(mean["misordered"][i], 3), f(mean["mean_rank_gap"][i], 3)]
            for i in range(mean["games"].shape[0])]
    click.echo(f"{players} players, {games:,} games x {seeds} seed{'s' if seeds != 1 else ''} "
               f"(from seed {seed}), {system}; means over seeds")
    click.echo(_text_table(heads, rows))
    if plot is not None:
        click.echo(f"plot written to {plot}")
