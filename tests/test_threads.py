"""fastrate._threads: the one kernel thread pool, kept for the process."""

from __future__ import annotations

import threading

import pytest

from fastrate import _threads


def test_run_beside_runs_main_here_and_the_others_on_the_pool():
    seen = {}
    here = threading.get_ident()

    def main():
        seen["main"] = threading.get_ident()
        return 42

    def other():
        seen["other"] = threading.get_ident()

    assert _threads.run_beside(main, other) == 42
    assert seen["main"] == here
    assert seen["other"] != here


def test_the_pool_is_made_once():
    assert _threads.shared_pool() is _threads.shared_pool()


def test_an_error_in_any_call_propagates_after_all_finish():
    done = []

    def slow_ok():
        done.append("ok")

    def fails():
        raise ValueError("side task failed")

    with pytest.raises(ValueError, match="side task failed"):
        _threads.run_beside(slow_ok, fails)
    assert done == ["ok"]

    def main_fails():
        raise KeyError("main")

    with pytest.raises(KeyError):
        _threads.run_beside(main_fails, slow_ok)
    assert done == ["ok", "ok"]  # the side task still ran to its end


def test_run_each_one_call_needs_no_pool(monkeypatch):
    monkeypatch.setattr(_threads, "_POOL", [])
    out = []
    _threads.run_each([lambda: out.append(1)])
    assert out == [1] and _threads._POOL == []
    _threads.run_each([lambda: out.append(2), lambda: out.append(3)])
    assert sorted(out) == [1, 2, 3] and len(_threads._POOL) == 1
    _threads._POOL[0].shutdown()


def test_run_each_returns_every_result_in_order():
    assert _threads.run_each([lambda: 1, lambda: 2, lambda: 3]) == [1, 2, 3]
    assert _threads.run_each([lambda: "only"]) == ["only"]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_makes_its_own_pool():
    """The parent's pool threads do not exist in a forked child: it must not submit to
    that pool (it would wait for ever), but make its own."""
    import multiprocessing as mp
    import time

    # the parent's pool with every one of its threads started (busy at once)
    workers = _threads.shared_pool()._max_workers
    _threads.run_each([lambda: time.sleep(0.05)] * (workers + 1))
    ctx = mp.get_context("fork")
    with ctx.Pool(1) as pool:
        assert pool.apply_async(_in_child).get(timeout=20) == [1, 2, 3]


def _in_child():
    return _threads.run_each([lambda: 1, lambda: 2, lambda: 3])
