"""Draw the pictures of docs/plots.md from the shared data (docs/img/plot-*.png).

    python docs/make_plots.py                 # all games, into docs/img/
    python docs/make_plots.py --games 5000 --out /tmp/img   # a quick slice (the test)

Data: ``../shared/data/intl_football/results.csv`` (49,520 international football
matches, CC0; home team first, score from the goals, yearly rating periods), and the
bundled Formula 1 results (CC BY 4.0, F1DB) for a team-system trajectory. The tuning
curve comes from a real grid of Elo's K and home advantage on the football games.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FOOTBALL = (REPO / ".." / "shared" / "data" / "intl_football" / "results.csv").resolve()
IMG = REPO / "docs" / "img"


def tuning_table(games, ks=(10, 20, 30, 40, 60), advantages=(0, 50, 100)):
    """A trial table like ``fastrate tune``'s: one Elo run per (k, advantage)."""
    import numpy as np

    from fastrate.evaluate import evaluate

    specs = [f"elo:k={k},advantage={a}" for a in advantages for k in ks]
    ev = evaluate(games, specs, burn_in=5)
    rows = ev.rows
    return {"trial": np.arange(len(specs)), "system": np.array(["elo"] * len(specs), object),
            "spec": np.array(specs, object),
            "k": np.array([float(k) for a in advantages for k in ks]),
            "advantage": np.array([float(a) for a in advantages for k in ks]),
            "log_loss": np.array([r["log_loss"] for r in rows]),
            "brier": np.array([r["brier"] for r in rows])}


def make(out: Path, n_games: int | None = None, dpi: int = 100) -> list[Path]:
    """Draw every picture into ``out``; ``n_games``: only the first games (a quick run)."""
    from fastrate.datasets import load_f1
    from fastrate.evaluate import evaluate
    from fastrate.io.tables import read_games
    from fastrate.report import plots
    from fastrate.report.history import rating_history, slice_data

    games = read_games(FOOTBALL, period="year")
    races = load_f1(period="season")
    if n_games is not None:
        games = slice_data(games, 0, min(n_games, games.n_games))
        races = slice_data(races, 0, min(max(n_games // 50, 20), races.n_matches))
    ev = evaluate(games, ["elo@world_football", "elo", "glicko2"], burn_in=5)
    glicko2 = ev.ratings["glicko2"]
    hist = rating_history(games, "glicko2")
    wf = ev.ratings["elo@world_football"]
    f1 = evaluate(races, ["trueskill"]).ratings["trueskill"]
    f1_hist = rating_history(races, "trueskill")
    pictures = {
        "plot-trajectories.png": plots.trajectories(hist, top=8, ratings=glicko2,
                                                    system="glicko2"),
        "plot-trajectories-f1.png": plots.trajectories(f1_hist, top=6, ratings=f1,
                                                       system="trueskill"),
        "plot-distribution.png": plots.distribution(glicko2, hist, min_games=20,
                                                    system="glicko2"),
        "plot-calibration.png": plots.calibration(ev, data=games),
        "plot-metrics.png": plots.metrics_over_time(games, ev.ratings),
        "plot-head-to-head.png": plots.head_to_head(games, wf, top=8),
        "plot-tuning.png": plots.tuning(tuning_table(games)),
    }
    out.mkdir(parents=True, exist_ok=True)
    return [plots.save_figure(fig, out / name, dpi=dpi) for name, fig in pictures.items()]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python docs/make_plots.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=IMG, help="folder of the pictures")
    ap.add_argument("--games", type=int, default=None, help="only the first N games")
    ap.add_argument("--dpi", type=int, default=100)
    args = ap.parse_args(argv)
    if not FOOTBALL.exists():
        print(f"make_plots: the shared data is missing ({FOOTBALL})", file=sys.stderr)
        return 1
    for path in make(args.out, args.games, args.dpi):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
