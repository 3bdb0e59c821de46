"""The ``large`` marker, for the whole repository: tests and benchmarks marked ``large``
(the 2M-game and 50M-game benchmark sizes, the ATP file, quality runs of many minutes)
are deselected unless ``-m large`` is given or ``FASTRATE_BENCH_LARGE=1`` is set, so
that ``pytest`` (the suite CI runs) stays within its time budget.

A test that hangs does not eat the CI run's whole time limit: after
``FASTRATE_TEST_HANG_S`` seconds (default 600; no test in the selected suite takes a
tenth of that, ``large`` ones excepted) the run stops with every thread's traceback,
so that the cause shows in the log. ``0`` turns the watch off (a debugger session)."""

from __future__ import annotations

import faulthandler
import os
import sys

import pytest


def _large_wanted(config: pytest.Config) -> bool:
    if os.environ.get("FASTRATE_BENCH_LARGE", "") not in ("", "0"):
        return True
    expr = (config.getoption("markexpr", "") or "").replace("not large", "")
    return "large" in expr


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _large_wanted(config):
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("large") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


_WATCH_FD: list[int] = []


def pytest_configure(config: pytest.Config) -> None:
    # the real stderr, as pytest's own faulthandler plugin takes it, before the
    # per-test capture would swallow what a stopped run prints
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, ValueError):
        fd = sys.__stderr__.fileno()
    _WATCH_FD.append(os.dup(fd))


def _hang_limit_s(config: pytest.Config) -> float:
    default = "0" if _large_wanted(config) else "600"
    return float(os.environ.get("FASTRATE_TEST_HANG_S", default) or 0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    limit = _hang_limit_s(item.config)
    if limit > 0:
        faulthandler.dump_traceback_later(limit, exit=True, file=_WATCH_FD[0])
    try:
        yield
    finally:
        if limit > 0:
            faulthandler.cancel_dump_traceback_later()
