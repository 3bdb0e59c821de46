"""Every CLI command that writes ``-o`` against the targets a hostile but realistic user
gives it (issue 15, section 3): a symbolic link (its target is written, the link stays),
a FIFO and a device node (written into, never replaced: ``-o /dev/null`` keeps working),
an unwritable place (a one-line error, nothing left behind), ``-o`` naming the input or
the ``--predictions`` file (refused), and SIGTERM during the write (cleaned up as SIGINT)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from fastrate.cli import main

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    """Small inputs for every command that writes -o."""
    d = tmp_path_factory.mktemp("inputs")
    rng = np.random.default_rng(1)
    rows = ["white,black,score,date"]
    for i in range(60):
        a, b = rng.choice(8, 2, replace=False)
        rows.append(f"p{a},p{b},{rng.choice([0, 0.5, 1])},2024-{1 + i // 20:02d}-"
                    f"{1 + i % 20:02d}")
    (d / "games.csv").write_text("\n".join(rows) + "\n")
    (d / "bg.csv").write_text("date,winner,loser,length\n2024-01-03,bob,carol,7\n"
                              "2024-01-01,alice,bob,5\n2024-01-02,alice,carol,3\n")
    (d / "counts.csv").write_text("player,p1,p2,p3,p4,p5,p6,p7\na,10,5,3,2,2,2,1\n"
                                  "b,1,2,3,4,5,6,9\n")
    bridge = ["board,north,south,east,west,ns_score"]
    for board in range(1, 5):
        seats = rng.permutation(12)
        for t in range(3):
            n, s, e, w = seats[4 * t:4 * t + 4]
            bridge.append(f"{board},n{n},n{s},n{e},n{w},{int(rng.integers(-5, 6)) * 10}")
    (d / "bridge.csv").write_text("\n".join(bridge) + "\n")
    seating = ["game,player,seat,watchers"]
    for g in range(1, 13):
        for seat, p in enumerate(rng.permutation(6)[:4]):
            seating.append(f"{g},p{p},{seat + 1},1")
    (d / "seating.csv").write_text("\n".join(seating) + "\n")
    return d


#: (command, arguments before -o, the output's suffix); {d} is the inputs folder
COMMANDS = [
    (("rate",), ["{d}/games.csv"], ".csv"),
    (("evaluate",), ["{d}/games.csv", "--period", "month"], ".csv"),
    (("batch",), ["{d}/games.csv"], ".csv"),
    (("tune",), ["{d}/games.csv", "-s", "elo:k=10..40", "-n", "2"], ".csv"),
    (("bridge", "score"), ["{d}/bridge.csv"], ".csv"),
    (("bridge", "rate"), ["{d}/bridge.csv"], ".csv"),
    (("placement", "stats"), ["{d}/counts.csv"], ".csv"),
    (("placement", "pga"), ["{d}/seating.csv"], ".csv"),
    (("backgammon", "rate"), ["{d}/bg.csv"], ".csv"),
    (("ladder", "table"), [], ".csv"),
    (("ladder", "simulate"), ["--games", "200", "--seeds", "1"], ".csv"),
    (("report",), ["{d}/games.csv", "-s", "elo", "--top", "2", "--points", "20"], ".html"),
    (("plot", "trajectories"), ["{d}/games.csv"], ".png"),
]
#: commands with -o that this test does not run, and why
NOT_RUN = {
    ("plot", "distribution"): "reads a ratings table; plot trajectories covers the writer",
    ("plot", "calibration"): "reads predictions; plot trajectories covers the writer",
    ("plot", "metrics"): "reads an evaluation; plot trajectories covers the writer",
    ("plot", "head-to-head"): "reads games; plot trajectories covers the writer",
    ("plot", "tuning"): "reads a tuning table; plot trajectories covers the writer",
}
IDS = [" ".join(c) for c, _, _ in COMMANDS]


def _commands_with_output(group, path=()):
    import click

    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            yield from _commands_with_output(cmd, (*path, name))
        elif any(p.name == "output" for p in cmd.params):
            yield (*path, name)


def test_every_command_that_writes_o_is_covered():
    have = set(_commands_with_output(main))
    covered = {c for c, _, _ in COMMANDS} | set(NOT_RUN)
    assert have <= covered, f"commands with -o not in this test: {sorted(have - covered)}"


def _run(command, args, d: Path, output: str, *extra: str):
    argv = [*command, *(a.format(d=d) for a in args), *extra, "-o", output]
    return CliRunner().invoke(main, argv)


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize(("command", "args", "suffix"), COMMANDS, ids=IDS)
def test_symlink_writes_its_target_and_stays_a_link(command, args, suffix, data, tmp_path):
    target = tmp_path / f"target{suffix}"
    target.write_text("old")
    link = tmp_path / f"link{suffix}"
    link.symlink_to(target.name)
    res = _run(command, args, data, str(link))
    assert res.exit_code == 0, res.output
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_bytes() != b"old" and target.stat().st_size > 0
    assert _hidden(tmp_path) == []


def _unblock_reader(fifo: Path) -> None:
    """Let a reader still waiting in ``open`` (the command failed before opening the
    pipe) reach end of file. The open must not block: when the reader has already read
    the command's output and closed the pipe, a blocking open for writing would wait
    for ever for a reader (that race hung a CI run). Whether the reader is done cannot
    be told from what it has stored yet: it stores after its read returns."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # ENXIO: no reader has the pipe open any more
        pass


@pytest.mark.parametrize(("command", "args", "suffix"), COMMANDS, ids=IDS)
def test_fifo_is_written_into_not_replaced(command, args, suffix, data, tmp_path):
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    res = _run(command, args, data, str(fifo))
    _unblock_reader(fifo)
    reader.join(10)
    assert res.exit_code == 0, res.output
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert got and got[0]
    assert _hidden(tmp_path) == []


@pytest.fixture
def device(tmp_path) -> Path:
    """A character device of our own (a copy of /dev/null made with mknod), else
    /dev/null itself."""
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        return node
    except (PermissionError, OSError):
        if not Path("/dev/null").exists():
            pytest.skip("no device node to write to")
        return Path("/dev/null")


@pytest.mark.parametrize(("command", "args", "suffix"), COMMANDS, ids=IDS)
def test_device_is_written_into_not_replaced(command, args, suffix, data, device, tmp_path):
    # (a picture or a report into a device: PNG and HTML, the table formats CSV)
    before = device.lstat()
    res = _run(command, args, data, str(device))
    assert res.exit_code == 0, res.output
    after = device.lstat()
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino
    assert _hidden(device.parent) == [] or device.parent == Path("/dev")


@pytest.mark.parametrize(("command", "args", "suffix"), COMMANDS, ids=IDS)
def test_unwritable_place_is_one_line_error(command, args, suffix, data, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    res = _run(command, args, data, str(blocker / f"out{suffix}"))
    assert res.exit_code == 1, res.output
    err = res.output.strip().splitlines()
    assert err[-1].startswith("fastrate: error: cannot write"), res.output
    assert "Traceback" not in res.output and ".out" not in err[-1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into a read-only folder; the case under a regular "
                    "file covers the unwritable place")
def test_read_only_folder_is_one_line_error(data, tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        res = _run(("rate",), ["{d}/games.csv"], data, str(folder / "out.csv"))
    finally:
        folder.chmod(0o700)
    assert res.exit_code == 1
    assert res.output.strip().splitlines()[-1].startswith("fastrate: error: cannot write")
    assert list(folder.iterdir()) == []


def test_output_naming_the_input_is_refused(data, tmp_path):
    games = tmp_path / "games.csv"
    games.write_bytes((data / "games.csv").read_bytes())
    before = games.read_bytes()
    for name in (str(games), str(tmp_path / "." / "games.csv")):
        res = CliRunner().invoke(main, ["rate", str(games), "-o", name])
        assert res.exit_code == 2
        assert "names the input file" in res.output
    link = tmp_path / "alias.csv"
    link.symlink_to(games)
    res = CliRunner().invoke(main, ["rate", str(games), "-o", str(link)])
    assert res.exit_code == 2 and "names the input file" in res.output
    res = CliRunner().invoke(main, ["rate", str(games), "--predictions", str(games)])
    assert res.exit_code == 2 and "--predictions names the input file" in res.output
    assert games.read_bytes() == before


def test_output_equal_to_predictions_is_refused(data, tmp_path):
    out = tmp_path / "both.csv"
    res = CliRunner().invoke(main, ["rate", str(data / "games.csv"), "-o", str(out),
                                    "--predictions", str(tmp_path / "." / "both.csv")])
    assert res.exit_code == 2
    assert "--predictions and -o/--output both name" in res.output
    assert not out.exists()


def test_state_file_may_be_updated_in_place(data, tmp_path):
    state = tmp_path / "ratings.csv"
    assert CliRunner().invoke(main, ["rate", str(data / "games.csv"), "-o",
                                     str(state)]).exit_code == 0
    first = state.read_bytes()
    res = CliRunner().invoke(main, ["rate", str(data / "games.csv"), "--initial", str(state),
                                    "-o", str(state)])
    assert res.exit_code == 0, res.output
    assert state.read_bytes() != first


def test_a_link_to_a_pipe_is_written_into(data, tmp_path):
    """``--predictions /dev/stdout``: a symbolic link to a pipe (no extension: CSV)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "stdout"
    link.symlink_to(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    res = CliRunner().invoke(main, ["rate", str(data / "games.csv"), "--predictions",
                                    str(link), "-o", "/dev/null"])
    _unblock_reader(fifo)
    reader.join(10)
    assert res.exit_code == 0, res.output
    assert got and got[0].startswith(b'"row","time","white"')
    assert link.is_symlink() and stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.parametrize("argv", [
    ["evaluate", "{d}/games.csv", "--period", "month", "--initial", "{s}", "-o", "{s}"],
    ["rate", "{d}/games.csv", "--initial", "{s}", "--predictions", "{s}"],
])
def test_state_file_is_not_overwritten_by_another_table(data, tmp_path, argv):
    state = tmp_path / "ratings.csv"
    assert CliRunner().invoke(main, ["rate", str(data / "games.csv"), "-o",
                                     str(state)]).exit_code == 0
    before = state.read_bytes()
    res = CliRunner().invoke(main, [a.format(d=data, s=state) for a in argv])
    assert res.exit_code == 2 and "names the input file" in res.output
    assert state.read_bytes() == before


def test_dev_null_with_predictions_too(data):
    res = CliRunner().invoke(main, ["rate", str(data / "games.csv"), "-o", "/dev/null",
                                    "--predictions", "/dev/null"])
    assert res.exit_code == 0, res.output
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


_SIGNAL_SCRIPT = """
import os, signal, sys, time
SIG = getattr(signal, sys.argv[3])
import fastrate.io.tables as tables
real = tables._write
def killed(table, fh, fmt):
    real(table, fh, fmt)
    fh.flush()
    os.kill(os.getpid(), SIG)
    time.sleep(5)
tables._write = killed
from fastrate.cli import main
sys.argv = ["fastrate", "rate", sys.argv[1], "-o", sys.argv[2]]
main()
"""


@pytest.mark.parametrize(("sig", "status"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_signal_during_the_write_cleans_up_like_sigint(data, tmp_path, sig, status):
    out = tmp_path / "ratings.csv"
    out.write_text("old\n")
    proc = subprocess.run([sys.executable, "-c", _SIGNAL_SCRIPT, str(data / "games.csv"),
                           str(out), sig], capture_output=True, text=True, timeout=120,
                          cwd=REPO)
    assert proc.returncode == status, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "fastrate: terminated"
    assert out.read_text() == "old\n"
    assert _hidden(tmp_path) == []


def test_an_ignored_sighup_stays_ignored(data, tmp_path):
    """``nohup fastrate ...``: the parent's SIG_IGN for SIGHUP is kept."""
    script = _SIGNAL_SCRIPT.replace("import fastrate.io.tables",
                                    "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
                                    "import fastrate.io.tables")
    script = script.replace("time.sleep(5)", "pass")
    out = tmp_path / "ratings.csv"
    proc = subprocess.run([sys.executable, "-c", script, str(data / "games.csv"), str(out),
                           "SIGHUP"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith('"player"')
