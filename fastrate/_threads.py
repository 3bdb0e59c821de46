"""The one thread pool of fastrate's kernels.

Kernels release the GIL (``nogil``), so a second Python thread runs one beside another.
Creating a pool per call costs a thread start (0.1-0.3 ms) every time, which is a
visible share of a call that rates 2M games in 15 ms; the pool here is created once,
on first use, and kept for the life of the process (its threads are daemons of
``concurrent.futures`` and end with the interpreter).

Nothing submitted here may itself wait on this pool (no nested waits: a full pool
would deadlock); the kernels' row splits and side tasks never do.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

_POOL: list[ThreadPoolExecutor] = []


def shared_pool() -> ThreadPoolExecutor:
    """The process's kernel thread pool (``max(2, cores)`` workers, created on first
    use)."""
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1),
                                        thread_name_prefix="fastrate"))
    return _POOL[0]


def run_beside(main: Callable[[], Any], *others: Callable[[], Any]) -> Any:
    """Run ``others`` on :func:`shared_pool` while ``main`` runs in the calling thread;
    wait for all of them and return ``main``'s result (the first exception raised by
    any of them propagates, after all have finished)."""
    futures = [shared_pool().submit(fn) for fn in others]
    try:
        out = main()
    finally:
        errors = []
        for f in futures:
            try:
                f.result()
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                errors.append(exc)
    if errors:
        raise errors[0]
    return out


def run_each(calls: Sequence[Callable[[], Any]]) -> None:
    """Call every function of ``calls``, the first in the calling thread and the others
    on :func:`shared_pool` beside it (one call: no pool at all); the results must not
    depend on which runs first."""
    if len(calls) == 1:
        calls[0]()
        return
    run_beside(calls[0], *calls[1:])
