"""The ``large`` marker, for the whole repository: tests and benchmarks marked ``large``
(the 2M-game and 50M-game benchmark sizes, the ATP file, quality runs of many minutes)
are deselected unless ``-m large`` is given or ``FASTRATE_BENCH_LARGE=1`` is set, so
that ``pytest`` (the suite CI runs) stays within its time budget."""

from __future__ import annotations

import os

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
