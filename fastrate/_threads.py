"""The one thread pool of fastrate's kernels.

Kernels release the GIL (``nogil``), so a second Python thread runs one beside another.
Creating a pool per call costs a thread start (0.1-0.3 ms) every time, which is a
visible share of a call that rates 2M games in 15 ms; the pool here is created once,
on first use, and kept for the life of the process (its threads are daemons of
``concurrent.futures`` and end with the interpreter).

Nothing submitted here may itself wait on this pool (no nested waits: a full pool
would deadlock); the kernels' row splits and side tasks never do. A forked child
(``fastrate warmup``'s workers, multiprocessing's fork) starts without the parent's
pool, whose threads it does not have, and makes its own when it needs one.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

_POOL: list[ThreadPoolExecutor] = []
_LOCK = threading.Lock()


def shared_pool() -> ThreadPoolExecutor:
    """The process's kernel thread pool (``max(2, cores)`` workers, created on first
    use; one even when several threads ask at once)."""
    if not _POOL:
        with _LOCK:
            if not _POOL:
                _POOL.append(ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 1),
                                                thread_name_prefix="fastrate"))
    return _POOL[0]


def _forget_pool_in_child() -> None:
    """After a fork: the parent's pool threads do not exist here (a submit would wait for
    ever); drop it, and the lock, which a parent thread may have held."""
    global _LOCK
    _POOL.clear()
    _LOCK = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_in_child)


def run_beside(main: Callable[[], Any], *others: Callable[[], Any]) -> Any:
    """Run ``others`` on :func:`shared_pool` while ``main`` runs in the calling thread;
    wait for all of them and return ``main``'s result (the first exception raised by
    any of them propagates, after all have finished)."""
    return run_each([main, *others])[0]


def run_each(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Call every function of ``calls``, the first in the calling thread and the others
    on :func:`shared_pool` beside it (one call: no pool at all), and return their
    results in order once all have finished (the first exception raised by any of them
    propagates, after all have finished); the results must not depend on which runs
    first."""
    if len(calls) == 1:
        return [calls[0]()]
    futures = [shared_pool().submit(fn) for fn in calls[1:]]
    try:
        first = calls[0]()
    finally:
        out, errors = [], []
        for f in futures:
            try:
                out.append(f.result())
            except BaseException as exc:  # noqa: BLE001 - re-raised below
                errors.append(exc)
    if errors:
        raise errors[0]
    return [first, *out]


def run_chunks(fn: Callable[..., Any], args: tuple, cuts: Sequence[int]) -> list[Any]:
    """``fn(*args, c0, c1)`` for each pair of consecutive ``cuts`` (row or pair ranges),
    side by side as :func:`run_each` (the first chunk in the calling thread); their
    results in order."""
    return run_each([partial(fn, *args, int(cuts[c]), int(cuts[c + 1]))
                     for c in range(len(cuts) - 1)])
