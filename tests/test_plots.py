"""The pictures of fastrate.report.plots: compared pixel by pixel (RMS, with a tolerance)
against the baselines committed in tests/baseline/, so that an empty plot or a broken
axis fails; plus the numbers behind them and ``fastrate plot``.

Regenerate the baselines after an intended change of a picture with
``FASTRATE_UPDATE_BASELINES=1 python -m pytest tests/test_plots.py`` and look at them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")

from fastrate.datasets import load_example  # noqa: E402
from fastrate.errors import InputError  # noqa: E402
from fastrate.evaluate import evaluate  # noqa: E402
from fastrate.report import plots  # noqa: E402
from fastrate.report.history import (  # noqa: E402
    rating_history,
    slice_data,
    snapshots,
)
from fastrate.systems import SystemSpec  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
BASELINE = REPO / "tests" / "baseline"
#: RMS pixel difference (0-255) a picture may differ from its baseline by: font
#: rasterisation differs a little between FreeType builds; an empty plot, a lost axis or
#: a moved line differs by far more (see test_a_broken_picture_fails_the_comparison)
TOLERANCE = 2.0
DPI = 60


@pytest.fixture(scope="module")
def football():
    """The first 6,000 games of the bundled football example (CC0), by year."""
    games = load_example("football", period="year")
    return slice_data(games, 0, 6000)


@pytest.fixture(scope="module")
def runs(football):
    return evaluate(football, ["elo@world_football", "glicko2"])


@pytest.fixture(scope="module")
def history(football):
    return rating_history(football, "glicko2", points=40)


def _trials() -> dict[str, np.ndarray]:
    k = np.array([10.0, 20.0, 30.0, 40.0, 60.0, 10.0, 20.0, 30.0, 40.0, 60.0])
    adv = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 100.0, 100.0, 100.0, 100.0, 100.0])
    loss = 0.58 + ((k - 32.0) / 120.0) ** 2 + np.where(adv > 0, -0.01, 0.0)
    return {"trial": np.arange(10), "system": np.array(["elo"] * 10, dtype=object),
            "spec": np.array([f"elo:k={a:g},advantage={b:g}" for a, b in zip(k, adv)],
                             dtype=object),
            "k": k, "advantage": adv, "log_loss": loss, "brier": loss / 3}


@pytest.fixture(scope="module")
def figures(football, runs, history):
    """Every kind of picture, drawn from the fixed data."""
    return {
        "trajectories": lambda: plots.trajectories(history, top=6,
                                                   ratings=runs.ratings["glicko2"],
                                                   system="glicko2"),
        "distribution": lambda: plots.distribution(runs.ratings["glicko2"], history,
                                                   system="glicko2"),
        "calibration": lambda: plots.calibration(runs, data=football),
        "metrics": lambda: plots.metrics_over_time(football, runs.ratings, window=500),
        "head_to_head": lambda: plots.head_to_head(football,
                                                   runs.ratings["elo@world_football"], top=6),
        "tuning": lambda: plots.tuning(_trials()),
    }


def _compare(fig, name: str, tmp_path: Path) -> str | None:
    """None when the picture matches its baseline within TOLERANCE, else the message of
    matplotlib's comparison (which also writes a -failed-diff image beside it)."""
    from matplotlib.testing.compare import compare_images

    actual = tmp_path / f"{name}.png"
    plots.save_figure(fig, actual, dpi=DPI)
    expected = BASELINE / f"{name}.png"
    if os.environ.get("FASTRATE_UPDATE_BASELINES"):
        BASELINE.mkdir(exist_ok=True)
        expected.write_bytes(actual.read_bytes())
    if not expected.exists():
        pytest.fail(f"no baseline {expected}: run with FASTRATE_UPDATE_BASELINES=1 and "
                    "look at the pictures")
    return compare_images(str(expected), str(actual), tol=TOLERANCE)


KINDS = ["trajectories", "distribution", "calibration", "metrics", "head_to_head", "tuning"]


@pytest.mark.parametrize("kind", KINDS)
def test_picture_matches_its_baseline(kind, figures, tmp_path):
    assert _compare(figures[kind](), kind, tmp_path) is None


def _empty(fig):
    for ax in fig.axes:
        for artist in [*ax.lines, *ax.collections, *ax.patches, *ax.images]:
            artist.remove()
    return fig


def _broken_axis(fig):
    ax = fig.axes[0]
    lo, hi = ax.get_ylim()
    ax.set_ylim(lo, hi + (hi - lo) * 0.5)  # a wrong scale: the data squeezed down
    return fig


def _no_axes(fig):
    for ax in fig.axes:
        ax.set_axis_off()
    return fig


@pytest.mark.parametrize("kind", ["trajectories", "calibration", "metrics", "tuning"])
@pytest.mark.parametrize("damage", [_empty, _broken_axis, _no_axes])
def test_a_broken_picture_fails_the_comparison(kind, damage, figures, tmp_path):
    """The comparison is not blind: an empty plot, a wrong axis scale or lost axes are
    far outside the tolerance."""
    if os.environ.get("FASTRATE_UPDATE_BASELINES"):
        pytest.skip("updating the baselines")
    fig = damage(figures[kind]())
    actual = tmp_path / f"{kind}-broken.png"
    plots.save_figure(fig, actual, dpi=DPI)
    from matplotlib.testing.compare import compare_images

    result = compare_images(str(BASELINE / f"{kind}.png"), str(actual), tol=TOLERANCE,
                            in_decorator=True)
    assert result is not None and result["rms"] > 3 * TOLERANCE, result


def test_pictures_are_reproducible(figures):
    a = plots.figure_bytes(figures["calibration"](), "png", DPI)
    b = plots.figure_bytes(figures["calibration"](), "png", DPI)
    assert a == b
    sa = plots.figure_bytes(figures["tuning"](), "svg")
    assert sa == plots.figure_bytes(figures["tuning"](), "svg")


def test_svg_is_self_contained(figures, tmp_path):
    """SVG text is drawn as paths: no font is needed and nothing is linked."""
    path = plots.save_figure(figures["trajectories"](), tmp_path / "t.svg")
    text = path.read_text()
    root = ET.fromstring(text)
    assert root.tag.endswith("svg")
    assert "<text" not in text and "font-family" not in text
    assert "http://" not in text.replace("http://www.w3.org", "").replace(
        "http://purl.org", "").replace("http://creativecommons.org", "")


def test_save_figure_refuses_other_suffixes_and_is_atomic(figures, tmp_path):
    fig = figures["tuning"]()
    with pytest.raises(InputError, match=r"must end in \.png or \.svg"):
        plots.save_figure(fig, tmp_path / "x.jpg")
    with pytest.raises(InputError, match="does not exist"):
        plots.save_figure(fig, tmp_path / "no" / "x.png")
    target = tmp_path / "keep.png"
    target.write_bytes(b"old")

    class Boom(Exception):
        pass

    def fail(*args, **kwargs):
        raise Boom

    fig.savefig = fail  # the drawing fails: the old file stays, no temporary is left
    with pytest.raises(Boom):
        plots.save_figure(fig, target)
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.png"]


def test_import_fastrate_does_not_import_matplotlib():
    code = ("import sys, fastrate, fastrate.report, fastrate.report.plots, "
            "fastrate.report.history, fastrate.report.html, fastrate.cli\n"
            "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------------------
# the numbers behind the pictures


def test_history_ends_at_the_full_run(football):
    """The last snapshot is the full run (continued runs equal the whole run), and
    every player's last point is his final rating (Elo: no change when idle)."""
    full = SystemSpec.parse("elo@world_football").rate(football)
    *_, (when, last) = snapshots(football, "elo@world_football", points=25)
    np.testing.assert_allclose(last.rating, full.rating, rtol=0, atol=1e-9)
    hist = rating_history(football, "elo@world_football", points=25)
    ends = hist.offsets[1:] - 1
    played = np.diff(hist.offsets) > 0
    np.testing.assert_allclose(hist.rating[ends[played]], full.rating[played], atol=1e-9)
    assert hist.when_kind == "time" and np.isnan(hist.uncertainty).all()
    assert played.sum() == (full.games_played > 0).sum()


def test_history_of_a_system_with_uncertainty(football, history):
    full = SystemSpec.parse("glicko2").rate(football)
    t = history.trajectory("Scotland")
    assert t["rating"][-1] == pytest.approx(full["Scotland"])
    assert np.isfinite(history.uncertainty).all() and (history.uncertainty > 0).all()
    # points lie at period boundaries: at most one point per player and year
    assert len(np.unique(t["when"])) == len(t["when"])


def test_history_without_periods_cuts_evenly():
    games = slice_data(load_example("football"), 0, 1000)
    ends = [w for w, _ in snapshots(games, "elo", points=10)]
    assert len(ends) == 10
    with pytest.raises(Exception, match="batch fit"):
        next(snapshots(games, "bradley_terry"))


def test_history_of_matches():
    f1 = load_example("f1")
    f1 = slice_data(f1, 0, 200)
    hist = rating_history(f1, "trueskill", points=20)
    full = SystemSpec.parse("trueskill").rate(f1)
    ends = hist.offsets[1:] - 1
    played = np.diff(hist.offsets) > 0
    np.testing.assert_allclose(hist.rating[ends[played]], full.state["mu"][played], atol=1e-9)
    np.testing.assert_allclose(hist.uncertainty[ends[played]], full.state["sigma"][played],
                               atol=1e-9)


def test_head_to_head_table_counts_both_sides():
    from fastrate import Games

    games = Games.from_arrays(["a", "a", "b", "c"], ["b", "b", "a", "a"],
                              [1.0, 0.5, 1.0, 0.0])
    r = SystemSpec.parse("elo").rate(games)
    ids = [games.players.id_of("a"), games.players.id_of("b")]
    obs, pred, cnt = plots.head_to_head_table(games, r, ids)
    assert cnt.tolist() == [[0, 3], [3, 0]]
    assert obs[0, 1] == 1.5 and obs[1, 0] == 1.5
    p = r.predictions[:3]
    assert pred[0, 1] == pytest.approx(p[0] + p[1] + (1 - p[2]))
    assert pred[0, 1] + pred[1, 0] == pytest.approx(3.0)


def test_calibration_from_both_sides_of_winner_first_games():
    """A file of winner-first rows: every first player scores 1, so the first player's
    calibration is a flat line at 1; from both sides it is the real curve."""
    from fastrate import Games

    rng = np.random.default_rng(3)
    skill = rng.normal(0, 200, 50)
    a, b = rng.integers(0, 50, 4000), rng.integers(0, 50, 4000)
    a, b = a[a != b], b[a != b]
    first_wins = rng.random(a.shape[0]) < 1 / (1 + 10 ** ((skill[b] - skill[a]) / 400))
    winner, loser = np.where(first_wins, a, b), np.where(first_wins, b, a)
    games = Games.from_arrays(winner, loser, np.ones(a.shape[0]), players=list(range(50)))
    ev = evaluate(games, ["elo"])
    plain = ev.calibration["elo"]
    assert (plain["mean_observed"][plain["count"] > 0] == 1.0).all()
    both = plots.both_sides_calibration(games, ev.ratings)["elo"]
    assert both["count"].sum() == 2 * games.n_games
    ok = both["count"] > 100
    obs, pred = both["mean_observed"][ok], both["mean_predicted"][ok]
    assert (np.diff(obs) > 0).all() and np.abs(obs - pred).max() < 0.1
    low = both["upper"] <= 0.5
    assert (both["mean_observed"][low & ok] < 0.5).all()


def test_wilson_band():
    lo, hi = plots.wilson_band(np.array([0.5, 0.0]), np.array([100, 10]))
    assert lo[0] == pytest.approx(0.4038, abs=1e-4) and hi[0] == pytest.approx(0.5962, abs=1e-4)
    assert lo[1] == pytest.approx(0.0, abs=1e-12) and hi[1] == pytest.approx(0.2775, abs=1e-4)


def test_tuning_finds_the_parameter_columns():
    fig = plots.tuning(_trials())
    labels = sorted(ax.get_xlabel() for ax in fig.axes if ax.get_visible())
    assert labels == ["advantage", "k"]
    with pytest.raises(InputError, match="no column 'accuracy'"):
        plots.tuning(_trials(), metric="accuracy")


# ----------------------------------------------------------------------------------
# the command


def _cli(*args):
    from click.testing import CliRunner

    from fastrate.cli import main

    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize("kind, extra", [
    ("trajectories", ["-s", "glicko2", "--top", "3", "--points", "20"]),
    ("distribution", ["-s", "elo"]),
    ("calibration", ["-s", "elo", "-s", "glicko2"]),
    ("metrics", ["-s", "elo"]),
    ("head-to-head", ["--top", "4"]),
])
def test_plot_command_writes_png_and_svg(kind, extra, tmp_path):
    for suffix in (".png", ".svg") if kind == "trajectories" else (".png",):
        out = tmp_path / f"{kind}{suffix}"
        res = _cli("plot", kind, "--example", "football", "--period", "year", *extra,
                   "-o", str(out), "--dpi", "40")
        assert res.exit_code == 0, res.output
        head = out.read_bytes()[:8]
        assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<?xml" in head


def test_plot_chosen_players(tmp_path):
    out = tmp_path / "t.png"
    res = _cli("plot", "trajectories", "--example", "football", "--period", "year",
               "--show", "Brazil", "--show", "Germany", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 1000


def test_plot_tuning_from_a_trial_table(tmp_path):
    import pyarrow as pa

    from fastrate.io.tables import write_table

    table = tmp_path / "trials.csv"
    write_table(pa.table(_trials()), table)
    out = tmp_path / "tune.svg"
    res = _cli("plot", "tuning", str(table), "--metric", "brier", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert out.exists()


def test_plot_errors_are_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "fastrate", "plot", "calibration",
                           "--example", "football", "-o", str(tmp_path / "c.jpg")],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "must end in .png or .svg" in proc.stderr
    assert not list(tmp_path.iterdir())


def test_docs_pictures_script_runs(shared_data, tmp_path):
    """docs/make_plots.py draws every picture of docs/plots.md (here from a slice)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_plots", REPO / "docs" / "make_plots.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made = module.make(tmp_path, n_games=3000, dpi=30)
    names = sorted(p.name for p in made)
    doc = (REPO / "docs" / "plots.md").read_text()
    for name in names:
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"
        assert (REPO / "docs" / "img" / name).exists(), f"run docs/make_plots.py ({name})"
        assert f"img/{name}" in doc, f"docs/plots.md does not show {name}"
