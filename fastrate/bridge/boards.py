"""``fastrate.bridge.boards``: the names of the bridge data model, kept where they were.

:class:`Boards` and building it from arrays and tables in memory live in
:mod:`fastrate.data.boards` (the containers' layer); reading files is
:func:`fastrate.io.boards.read_boards` (and :mod:`fastrate.io.pbn`). The names below are
the very same objects. ``read_boards`` is still reachable here, with a
DeprecationWarning, since the algorithms' layer does not import the readers.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

from fastrate.data.boards import (
    ARTIFICIAL_CODES,
    BOARD_COLUMNS,
    Boards,
    boards_from_table,
    parse_artificial,
)

__all__ = ["Boards", "boards_from_table", "ARTIFICIAL_CODES", "BOARD_COLUMNS",
           "parse_artificial"]

#: names that moved to the readers (io), served here for one release with a warning
MOVED_TO_IO = {"read_boards": "fastrate.io.boards"}


def moved_to_io(module: str, name: str) -> Any:
    """``name`` of :data:`MOVED_TO_IO`, asked of ``module``: warn, then hand it over."""
    home = MOVED_TO_IO[name]
    warnings.warn(f"{module}.{name} moved to {home}.{name}; import it from there (the old "
                  "path goes in the next release)", DeprecationWarning, stacklevel=3)
    return getattr(importlib.import_module(home), name)


def __getattr__(name: str) -> Any:
    if name in MOVED_TO_IO:
        return moved_to_io(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
