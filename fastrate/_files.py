"""Writing files so that nothing is lost (layer 0): the one atomic writer.

A regular file is written to a hidden temporary file in the same folder and renamed
over its target only when everything was written, so a failure leaves the old file (or
no file) and no temporary one. A symbolic link is written through, to the file it
points at (the link stays a link). A device or a pipe (``/dev/stdout``, a FIFO) is
written directly: it cannot be replaced. New files get the mode an ordinary ``open``
would give (0666 minus the umask); a replaced file keeps its mode.

:func:`atomic_file` writes one file; :func:`atomic_files` writes several all-or-none
(every temporary file is complete before the first rename).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from fastrate.errors import InputError

__all__ = ["atomic_file", "atomic_files", "resolve_target", "is_special_file"]


def resolve_target(target: str | os.PathLike) -> Path:
    """The file a write to ``target`` must change: symbolic links followed."""
    path = Path(target)
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def is_special_file(path: Path) -> bool:
    """Whether ``path`` exists and is not a regular file (a device, a FIFO, a socket),
    following symbolic links (``/dev/stdout`` is a pipe or a terminal)."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _new_file_mode(target: Path) -> int:
    """The mode an ordinary ``open(target, "w")`` would give: the existing file's mode
    when it is replaced, else 0666 minus the umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _temporary_beside(target: Path) -> Path:
    """A hidden temporary name in ``target``'s folder that keeps its suffixes (so the
    format and compression read from the name stay the same)."""
    return target.with_name(f".{secrets.token_hex(4)}.{target.name}")


@contextlib.contextmanager
def atomic_files(targets: Sequence[str | os.PathLike]) -> Iterator[list[Path]]:
    """Paths to write instead of ``targets``, renamed into place all together when the
    block ends without an error; on any error every temporary file is removed and the
    targets are untouched. Symbolic links are written through; devices and pipes are
    written directly (their path is given back as it is)."""
    resolved = [resolve_target(t) for t in targets]
    paths: list[Path] = []
    pending: list[tuple[Path, Path]] = []
    try:
        for given, target in zip(targets, resolved):
            if is_special_file(Path(given)):  # stat follows links: /dev/stdout -> a pipe
                paths.append(Path(given))
                continue
            tmp = _temporary_beside(target)
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError as exc:
                raise _cannot_write(given, target, exc) from None
            os.close(fd)
            pending.append((tmp, target))
            os.chmod(tmp, _new_file_mode(target))
            paths.append(tmp)
        yield paths
        for tmp, target in pending:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in pending:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def _cannot_write(given: str | os.PathLike, target: Path, exc: OSError) -> InputError:
    """The one-line error for an output that cannot be created (no temporary name in it)."""
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.exists():
        why = f"folder {folder} does not exist"
    elif not folder.is_dir():
        why = f"{folder} is a file, not a folder"
    else:
        why = f"{exc.strerror or type(exc).__name__} in folder {folder}"
    return InputError(f"cannot write {given}: {why}; choose another output path")


@contextlib.contextmanager
def atomic_file(target: str | os.PathLike) -> Iterator[IO[bytes]]:
    """A binary file handle whose content replaces ``target`` only when the block ends
    without an error (see :func:`atomic_files`)."""
    with atomic_files([target]) as (path,):
        with open(path, "wb") as fh:
            yield fh
