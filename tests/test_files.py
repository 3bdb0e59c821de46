"""The one atomic writer (fastrate._files): nothing is lost, links are written through,
devices and pipes are written directly, several files are written all-or-none."""

from __future__ import annotations

import os
import stat
import threading

import pytest

from fastrate._files import atomic_file, atomic_files
from fastrate.io.tables import write_table


def test_replaces_only_on_success(tmp_path):
    target = tmp_path / "out.txt"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_file(target) as fh:
            fh.write(b"partial")
            raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]
    with atomic_file(target) as fh:
        fh.write(b"new")
    assert target.read_bytes() == b"new"


def test_new_file_mode_and_kept_mode(tmp_path):
    mask = os.umask(0o022)
    try:
        new = tmp_path / "new.txt"
        with atomic_file(new) as fh:
            fh.write(b"x")
        assert stat.S_IMODE(new.stat().st_mode) == 0o644
        kept = tmp_path / "kept.txt"
        kept.write_bytes(b"x")
        kept.chmod(0o600)
        with atomic_file(kept) as fh:
            fh.write(b"y")
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    finally:
        os.umask(mask)


def test_symlink_is_written_through(tmp_path):
    real = tmp_path / "real.csv"
    real.write_bytes(b"old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_table({"a": [1, 2]}, link)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text().splitlines() == ['"a"', "1", "2"]


def test_device_is_written_directly():
    write_table({"a": [1]}, "/dev/null", "csv")  # cannot be replaced: no error, no rename


def test_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    write_table({"a": [7]}, fifo)
    reader.join(10)
    assert got == [b'"a"\n7\n'] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_several_files_all_or_none(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"old a")
    with pytest.raises(OSError):
        with atomic_files([a, b]) as (ta, tb):
            ta.write_bytes(b"new a")
            raise OSError("disk full while writing b")
    assert a.read_bytes() == b"old a" and not b.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    with atomic_files([a, b]) as (ta, tb):
        ta.write_bytes(b"new a")
        tb.write_bytes(b"new b")
    assert a.read_bytes() == b"new a" and b.read_bytes() == b"new b"
